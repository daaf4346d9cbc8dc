// A tiny client for the worker's administration API, shared by `npm run admin` and the seed.
import { devVar } from "./lib.mjs";

export function adminClient(baseUrl = process.env.WORKER_URL ?? "http://127.0.0.1:8787", secret = process.env.ADMIN_SECRET ?? devVar("ADMIN_SECRET")) {
  async function request(method, path, body) {
    const headers = { Authorization: `Bearer ${secret}` };
    let payload;
    // A Blob (a CSV file) goes as it is, with its own type as Content-Type.
    if (body instanceof FormData || body instanceof Blob) payload = body;
    else if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      payload = JSON.stringify(body);
    }
    const res = await fetch(`${baseUrl}${path}`, { method, headers, body: payload });
    const text = await res.text();
    let json;
    try {
      json = JSON.parse(text);
    } catch {
      json = text;
    }
    if (!res.ok) {
      const error = new Error(`${method} ${path} → ${res.status}: ${json?.detail ?? text}`);
      error.status = res.status;
      error.body = json;
      throw error;
    }
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
