// The administration API's client shared by `npm run admin`, its command modules and the seed:
// @ecf/client with the admin secret as bearer, behind the small untyped interface the commands
// use (get/post/put/patch/request by path; JSON answers parsed, others as text; a refusal thrown
// as an Error with `status` and `body`, the problem document).
import { register } from "tsx/esm/api";
import { devVar } from "./lib.mjs";

// @ecf/client is TypeScript source (a just-in-time workspace package) and these scripts are plain
// Node: tsx's loader, registered here, lets them import it (`npm start` and `npm run admin` run
// without a loader of their own).
register();
const { createClient, ProblemError } = await import("@ecf/client");
// For the other plain Node scripts (the seed), which import this module first.
export { createClient, ProblemError };

export function adminClient(
  baseUrl = process.env.WORKER_URL ?? "http://127.0.0.1:8787",
  secret = process.env.ADMIN_SECRET ?? devVar("ADMIN_SECRET"),
) {
  const api = createClient({ baseUrl, credentials: { adminSecret: secret } });
  async function request(method, path, body) {
    // A Blob (a CSV file) goes as it is, with its own type as Content-Type; a FormData with fetch's.
    const headers = body instanceof Blob ? { "Content-Type": body.type || "application/octet-stream" } : undefined;
    let answer;
    try {
      answer = await api.request(method.toLowerCase(), path, {
        ...(body === undefined ? {} : { body }),
        ...(headers ? { headers } : {}),
        parseAs: "text",
      });
    } catch (error) {
      if (!(error instanceof ProblemError)) throw error;
      throw Object.assign(new Error(`${method} ${path} → ${error.status}: ${error.detail || error.title}`), {
        status: error.status,
        body: error.body,
      });
    }
    const { data, error, response } = answer;
    const text = response.ok ? data : error;
    let json;
    try {
      json = typeof text === "string" ? JSON.parse(text) : text;
    } catch {
      json = text;
    }
    if (!response.ok)
      throw Object.assign(new Error(`${method} ${path} → ${response.status}: ${json?.detail ?? text}`), {
        status: response.status,
        body: json,
      });
    return json;
  }
  return {
    request,
    get: (path) => request("GET", path),
    post: (path, body) => request("POST", path, body),
    put: (path, body) => request("PUT", path, body),
    patch: (path, body) => request("PATCH", path, body),
  };
}
