// Who did something, as the records name the principal (env.ts) a request acts as.
import type { Principal } from "../env.ts";

/** Who did something, as records name it: `key:<key id>`, or `user:<user id>` for a console user. */
export const actorOf = (principal: Principal) => (principal.console ? principal.keyId : `key:${principal.keyId}`);
