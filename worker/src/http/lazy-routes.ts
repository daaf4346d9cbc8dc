// The route groups load on first use, so that an isolate's start does not build every route's
// request and answer schemas (zod, most of the start-up's running time: bench/cold-start.bench.ts).
// A request's first path segment names the groups that serve it; on the first request for that
// segment their modules are imported and mounted, in the table's order, into one router kept for
// the isolate's life. That router runs inside the app's own middleware (request id, round trips,
// audit, limits), on the same request: the context's variables go in and come back out, and an
// error goes back up to the app's error handler, so a request sees what it did when every group
// was mounted in the app itself. The OpenAPI document mounts every group (`allRouteGroups`).
// The routers here are plain Hono: @hono/zod-openapi (zod, zod-to-openapi) loads with the first group,
// whose module builds its routes with it, and the document's router is the OpenAPI one (app.ts).
import { type Context, Hono, type MiddlewareHandler } from "hono";
import type { AppEnv } from "../env.ts";
import { notFound } from "./errors.ts";

/** The first path segment of the receiver's `/{rnc}/fe/...` services: an RNC or a cédula. */
export const RNC_SEGMENT = "{rnc}";

export interface RouteGroup {
  /** Where the group is mounted ("/" for a group that names its own prefixes). */
  mount: string;
  /** The first path segments it serves, lower-cased (RNC_SEGMENT: any RNC or cédula). */
  serves: readonly string[];
  /** Its module, imported on first use. */
  load: () => Promise<Hono<any, any, any>>;
}

type Router = Hono<AppEnv>;

/** The segment a path starts with, as the groups name it (the receiver's services ignore case). */
function segmentOf(path: string): string {
  const segment = path.split("/")[1]?.toLowerCase() ?? "";
  return /^(\d{9}|\d{11})$/.test(segment) ? RNC_SEGMENT : segment;
}

/** Every group mounted in `router`, in the table's order. */
export async function mountGroups<R extends Hono<any, any, any>>(groups: readonly RouteGroup[], router: R): Promise<R> {
  const loaded = await Promise.all(groups.map((group) => group.load()));
  groups.forEach((group, i) => router.route(group.mount, loaded[i]!));
  return router;
}

/**
 * `load`, kept once it has succeeded. Until then every caller runs `load` itself, awaiting its own
 * promise: workerd binds a promise to the request that created it, and a request awaiting another
 * request's promise waits for ever if that request is cancelled first (its client gone) before the
 * promise settles. The runtime's module map still evaluates each module once, so concurrent first
 * requests share the import's work, not its promise; a failed load is simply tried again.
 */
export function onceLoaded<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: { value: T } | undefined;
  return async () => {
    if (loaded) return loaded.value;
    const value = await load();
    loaded ??= { value };
    return loaded.value;
  };
}

/** Variables crossing from the app's context into the group router's, and back, by request. */
const handoff = new WeakMap<Request, Record<string, unknown>>();

/** The group router's first middleware: the app's variables in, and whatever the groups set out again. */
const sharedVariables: MiddlewareHandler<AppEnv> = async (c, next) => {
  const shared = handoff.get(c.req.raw) ?? {};
  for (const [key, value] of Object.entries(shared)) c.set(key as never, value as never);
  try {
    await next();
  } finally {
    Object.assign(shared, c.var);
  }
};

/** A router for one segment's groups: shared variables, the groups, the app's not-found; errors go up. */
function segmentRouter(groups: readonly RouteGroup[]): Promise<Router> {
  const router = new Hono<AppEnv>();
  router.use(sharedVariables);
  router.notFound(notFound);
  router.onError((error) => {
    throw error;
  });
  return mountGroups(groups, router);
}

/** The execution context, when the request has one (`app.request` in tests has none). */
function executionContextOf(c: Context<AppEnv>) {
  try {
    return c.executionCtx;
  } catch {
    return undefined;
  }
}

/**
 * The middleware that serves every group of `table`: the groups of the request's first segment,
 * mounted on first use; a segment no group serves goes on to the app's own routes.
 */
export function lazyRouteGroups(table: readonly RouteGroup[]): MiddlewareHandler<AppEnv> {
  const routers = new Map<string, () => Promise<Router>>();
  return async (c, next) => {
    const segment = segmentOf(c.req.path);
    const groups = table.filter((group) => group.serves.includes(segment));
    if (groups.length === 0) return next();
    let router = routers.get(segment);
    if (!router) routers.set(segment, (router = onceLoaded(() => segmentRouter(groups))));
    const shared: Record<string, unknown> = { ...c.var };
    handoff.set(c.req.raw, shared);
    try {
      const answer = await (await router()).fetch(c.req.raw, c.env, executionContextOf(c));
      // Reading c.res first makes it hold the headers the app's middleware set before (X-Request-Id):
      // setting it then merges them into the answer.
      if (c.res) c.res = answer;
    } finally {
      for (const [key, value] of Object.entries(shared))
        if (c.get(key as never) !== value) c.set(key as never, value as never);
    }
  };
}
