// npm start's view of wrangler dev's output (scripts/dev-output.mjs): one line per request once
// the banner is out, what a developer must read, and none of wrangler's preamble, however the
// output is cut into chunks.
import { describe, expect, it } from "vitest";
import { quietDevOutput } from "../../scripts/dev-output.mjs";

// As wrangler 4 printed it for `npm start` (rows cut), the worker's refusal warning in colour.
const preamble = [
  "",
  " ⛅️ wrangler 4.86.0 (update available 4.164.0)",
  "──────────────────────────────────────────────",
  "Using secrets defined in .dev.vars",
  "Your Worker has access to the following bindings:",
  "Binding                                    Resource                  Mode",
  "env.DB (ecf-edge)                          D1 Database               local",
  'env.TRUSTED_CA_PEM ("-----BEGIN CERTIFICATE-----',
  'MIIDijCCA...")                       Environment Variable      local',
  'env.MASTER_KEY ("(hidden)")                Environment Variable      local',
  "",
  "Attaching additional modules:",
  "┌──────────────────────────────────┬──────┬─────────────┐",
  "│ admin-GRZGSPFP.chunk.js          │ esm  │ 1.26 KiB    │",
  "├──────────────────────────────────┼──────┼─────────────┤",
  "│ Total (103 modules)              │      │ 2069.89 KiB │",
  "└──────────────────────────────────┴──────┴─────────────┘",
  "⎔ Starting local server...",
  "[wrangler:info] Ready on http://127.0.0.1:8787",
  "[wrangler:info] PUT /admin/companies/1/sequences/31 200 OK (95ms)",
  "⎔ Reloading local server...",
  "⎔ Local server updated and ready",
  "",
].join("\n");
const requests = [
  "\x1b[33m▲ \x1b[43;33m[\x1b[43;30mWARNING\x1b[43;33m]\x1b[0m \x1b[1mrefused request with no issuer {\x1b[0m",
  "",
  "    action: 'POST /fe/recepcion/ecf',",
  "    status: 401,",
  "  }",
  "",
  "",
  "[wrangler:info] POST /fe/recepcion/ecf 401 Unauthorized (83ms)",
  "[wrangler:info] HEAD /health 200 OK (3ms)",
  "[wrangler:info] GET /health 200 OK (4ms)",
  "▲ [WARNING] The DGII sandbox did not answer",
  "✘ [ERROR] alarm: E310000000001 failed",
  "",
].join("\n");

function through(chunks: string[], live: () => boolean): string {
  const quiet = quietDevOutput({ live });
  return chunks.map(quiet).join("");
}

describe("npm start's view of wrangler dev's output", () => {
  it("drops the preamble, keeps the module table as one line, shows no request before the banner", () => {
    expect(through([preamble], () => false)).toBe(
      "Attaching additional modules: 103 modules, 2069.89 KiB (the worker's lazily loaded parts)\n",
    );
  });

  it("then one line per request, no refusal warning, no HEAD probe; other warnings and errors as they came", () => {
    const shown = [
      "[wrangler:info] POST /fe/recepcion/ecf 401 Unauthorized (83ms)",
      "[wrangler:info] GET /health 200 OK (4ms)",
      "▲ [WARNING] The DGII sandbox did not answer",
      "✘ [ERROR] alarm: E310000000001 failed",
      "",
    ].join("\n");
    expect(through([requests], () => true)).toBe(shown);
    expect(through([...requests], () => true)).toBe(shown);
    expect(through([requests.slice(0, 70), requests.slice(70, 71), requests.slice(71)], () => true)).toBe(shown);
  });
});
