// The API's OpenAPI document, as GET /openapi.json serves it: what every route group declares,
// plus the e-CF request's per-type schemas, who may call each operation, the problem examples
// and the operation ids. Imported
// on the first request for the document (app.ts), so an isolate's start does not load its parts.
import type { OpenAPIHono } from "@hono/zod-openapi";
import { API_VERSION } from "../version.ts";
import { withEcfRequestSchemas } from "./ecf-request.ts";
import { withOperationIds, withProblemExamples } from "./openapi.ts";
import { withDeclaredSecurity } from "./operation-security.ts";
import { API_TAGS } from "./tags.ts";

/** The document of `router` (every group mounted), naming `origin` as its server. */
export function apiDocument(router: OpenAPIHono<any, any, any>, origin: string) {
  const declared = router.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "ecf-edge API",
      version: API_VERSION,
      description: "Electronic tax receipts (e-CF) for the Dominican Republic: issue, receive, approve, report.",
    },
    // The server that answers: the same document serves npm start, a deployment and a test.
    servers: [{ url: origin, description: "This ecf-edge server" }],
    tags: API_TAGS,
  });
  return withOperationIds(withProblemExamples(withDeclaredSecurity(withEcfRequestSchemas(declared))));
}
