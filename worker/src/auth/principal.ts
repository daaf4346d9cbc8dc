// Who a request acts as: the claims of its verified token, or a console user acting for its
// session's current company. Its own module so that env.ts (the app's context variables) and the
// auth middleware that sets them do not import each other.
import type { ConsoleRole } from "../db/console-tables.ts";
import type { TokenClaims } from "./jwt.ts";

export type Principal = TokenClaims & {
  /** Set for a console session: the user and its role in the current company. */
  console?: { userId: string; role: ConsoleRole };
};

/** Who did something, as records name it: `key:<key id>`, or `user:<user id>` for a console user. */
export const actorOf = (principal: Principal) => (principal.console ? principal.keyId : `key:${principal.keyId}`);
