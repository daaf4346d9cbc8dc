// @ecf/client: the TypeScript client of the ecf-edge API. The types are generated from the
// worker's /openapi.json (npm run sdk:generate); this layer adds authentication, X-RNC-Emisor,
// Idempotency-Key and problem+json as a typed error.
export { answerOf } from "./answer.ts";
export { formData, serializeBody } from "./body.ts";
export { type ClientOptions, createClient, type EcfClient, isLostAnswer, type LostAnswerRetry } from "./client.ts";
export { type Credentials, Session } from "./credentials.ts";
export { type Problem, type ProblemCode, ProblemError, type ProblemItem, retryAfterSeconds } from "./problem-error.ts";
export { tokenExpiry } from "./token.ts";
export { IDEMPOTENT_OPERATIONS } from "./generated/idempotent-operations.ts";
export type { components, operations, paths } from "./generated/openapi.ts";
