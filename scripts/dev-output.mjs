// What `npm start` shows of wrangler dev's output: one line per request, and what a developer must
// read (errors, the worker's own logs, wrangler's warnings, the module table as one line). Wrangler's
// preamble (its version banner, the table of bindings with every variable's value, "Ready on") is
// left out: the start's own banner names the URLs. So are the requests made before that banner (the
// seed's), the supervisor's HEAD probes of /health every 2 s, and the worker's warning for a
// refused request that names no issuer, whose request line (a 401, a 413) already says it.
import { collapseModuleTable } from "./module-table.mjs";

const ANSI = /\x1b\[[0-9;]*m/g;
const REQUEST = /^\[wrangler:info\] [A-Z]+ \S+ \d{3}\b/;
const PREAMBLE = [
  /^\s*⛅️ wrangler /,
  /^─+$/,
  /^Using secrets defined in /,
  /^Using vars defined in /,
  // "⎔ Starting local server...", "⎔ Reloading local server...", "⎔ Local server updated and ready"
  /^⎔ /,
  /^(⎔ )?Local server updated and ready/,
  /^\[wrangler:info\] Ready on /,
];
const BINDINGS = /^Your Worker has access to the following bindings:/;
const REFUSAL_WARNING = /^▲ \[WARNING\] refused request with no issuer\b/;

/**
 * A filter of wrangler dev's output, text chunk by chunk (a line may arrive in pieces). `live()`
 * says whether requests are shown yet (after the banner).
 */
export function quietDevOutput({ live = () => true } = {}) {
  const collapse = collapseModuleTable();
  // What is being skipped: the bindings table (to its blank line), a refusal's warning (to its "}").
  let skipping = null;
  const keep = (line) => {
    const text = line.replace(ANSI, "");
    if (skipping === "bindings") {
      if (text.trim() === "") skipping = null;
      return false;
    }
    if (skipping === "warning") {
      if (/^\s*}\s*$/.test(text)) skipping = "blank";
      return false;
    }
    if (skipping === "blank") {
      if (text.trim() === "") return false;
      skipping = null;
    }
    if (BINDINGS.test(text)) {
      skipping = "bindings";
      return false;
    }
    if (REFUSAL_WARNING.test(text)) {
      skipping = text.trimEnd().endsWith("{") ? "warning" : "blank";
      return false;
    }
    if (PREAMBLE.some((p) => p.test(text))) return false;
    if (REQUEST.test(text)) return live() && !/^\[wrangler:info\] HEAD \/health /.test(text);
    // Blank lines between the parts of the preamble.
    return text.trim() !== "";
  };
  return (chunk) => {
    // The collapse passes whole lines only, each ending in a newline.
    const lines = collapse(chunk).split("\n");
    lines.pop();
    return lines
      .filter(keep)
      .map((line) => `${line}\n`)
      .join("");
  };
}
