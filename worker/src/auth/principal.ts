// Who a request acts as: the claims of its verified token. Its own module so that env.ts (the
// app's context variables) and the auth middleware that sets them do not import each other.
import type { TokenClaims } from "./jwt.ts";

export type Principal = TokenClaims;
