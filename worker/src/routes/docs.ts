import { Hono } from "hono";
import type { AppEnv } from "../env.ts";

// The API reference: Scalar rendering /openapi.json. Its script is one of the worker's static
// assets (scripts/docs-assets.mjs puts it at /docs/scalar.js), never a CDN, so the page works on an
// offline machine; the page itself asks nothing of anyone but this origin (no web fonts, no
// telemetry, no proxy), and "try it" sends its requests to the server that served the page.
const CONFIGURATION = {
  url: "/openapi.json",
  withDefaultFonts: false,
  telemetry: false,
  // Scalar's hosted extras (its AI agent, MCP, the developer-tools bar) talk to scalar.com.
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: "never",
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>ecf-edge API reference</title>
<link rel="icon" href="data:,">
</head>
<body>
<div id="app"></div>
<p id="missing" hidden>The reference's script (/docs/scalar.js) is missing from the worker's assets: run <code>node scripts/docs-assets.mjs</code>. The document itself is at <a href="/openapi.json">/openapi.json</a>.</p>
<script src="/docs/scalar.js" onerror="document.getElementById('missing').hidden = false"></script>
<script>
if (window.Scalar) Scalar.createApiReference("#app", Object.assign(${JSON.stringify(CONFIGURATION)}, { servers: [{ url: location.origin, description: "This server" }] }));
</script>
</body>
</html>`;

export const docsRoutes = new Hono<AppEnv>().get("/docs", (c) => c.html(PAGE));
