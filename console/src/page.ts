// What every page gets: the session, its route, and a way to replace the session (company switch).
import type { Route } from "./router.ts";
import type { Session } from "./session.ts";

export interface PageContext {
  session: Session;
  route: Route;
  /** Re-renders the current page (after a change it shows). */
  reload: () => void;
}

export type Page = (ctx: PageContext) => Promise<HTMLElement>;
