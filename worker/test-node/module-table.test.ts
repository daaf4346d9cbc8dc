// npm start's view of wrangler dev's output (scripts/module-table.mjs): the table of attached modules,
// a row apiece, as one line; everything else as wrangler printed it, however the output is chunked.
import { describe, expect, it } from "vitest";
import { collapseModuleTable } from "../../scripts/module-table.mjs";

// As wrangler 4 printed it for `npm start` (rows cut), between the variables and the server's start.
const printed = [
  'env.MASTER_KEY ("(hidden)")     Environment Variable      local',
  "",
  "Attaching additional modules:",
  "┌──────────────────────────────────┬──────┬─────────────┐",
  "│ Name                             │ Type │ Size        │",
  "├──────────────────────────────────┼──────┼─────────────┤",
  "│ admin-GRZGSPFP.chunk.js          │ esm  │ 1.26 KiB    │",
  "├──────────────────────────────────┼──────┼─────────────┤",
  "│ webhooks-ZZMGBU6Q.chunk.js       │ esm  │ 9.75 KiB    │",
  "├──────────────────────────────────┼──────┼─────────────┤",
  "│ Total (103 modules)              │      │ 2069.89 KiB │",
  "└──────────────────────────────────┴──────┴─────────────┘",
  "⎔ Starting local server...",
  "[wrangler:info] Ready on http://127.0.0.1:8787",
  "",
].join("\n");

const shown = [
  'env.MASTER_KEY ("(hidden)")     Environment Variable      local',
  "",
  "Attaching additional modules: 103 modules, 2069.89 KiB (the worker's lazily loaded parts)",
  "⎔ Starting local server...",
  "[wrangler:info] Ready on http://127.0.0.1:8787",
  "",
].join("\n");

function through(chunks: string[]): string {
  const collapse = collapseModuleTable();
  return chunks.map(collapse).join("");
}

describe("npm start's view of wrangler's module table", () => {
  it("shows the table as one line with its total, the rest as printed", () => {
    expect(through([printed])).toBe(shown);
  });

  it("gives the same however the output is cut into chunks", () => {
    expect(through([...printed])).toBe(shown);
    expect(through([printed.slice(0, 200), printed.slice(200, 201), printed.slice(201)])).toBe(shown);
  });

  it("keeps colours out of the way and passes on what is not a table", () => {
    const coloured = printed.replace("Total (103 modules)", "\x1b[1mTotal (103 modules)\x1b[22m");
    expect(through([coloured])).toBe(shown);
    const notATable = "Attaching additional modules:\nsomething else\n";
    expect(through([notATable])).toBe(notATable);
    expect(through(["no table here\nat all\n"])).toBe("no table here\nat all\n");
  });
});
