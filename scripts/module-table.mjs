// What `npm start` prints of wrangler dev's output: wrangler lists every module it attaches beside
// the entry in a table, a row apiece (for the split build of scripts/build-worker.mjs a hundred rows
// between the variables and "Ready on"); that table becomes one line, the rest passes as printed.

const ANSI = /\x1b\[[0-9;]*m/g;
const TOTAL = /Total \((\d+) modules\)\s*│\s*│\s*([\d.]+ \S+)/;

/** A filter of wrangler's output, text chunk by chunk: the module table as one line, the rest as it came. */
export function collapseModuleTable() {
  let inTable = false;
  let total = null;
  let pending = "";
  const lineOut = (line) => {
    const text = line.replace(ANSI, "");
    if (!inTable && text.startsWith("Attaching additional modules:")) {
      inTable = true;
      total = null;
      return "";
    }
    if (inTable && /^[┌├│└]/.test(text)) {
      const row = TOTAL.exec(text);
      if (row) total = `${row[1]} modules, ${row[2]}`;
      if (!text.startsWith("└")) return "";
      inTable = false;
      return `Attaching additional modules: ${total ?? "(no total)"} (the worker's lazily loaded parts)\n`;
    }
    if (inTable) {
      inTable = false; // not the table after all: what came, as it came
      return `Attaching additional modules:\n${line}\n`;
    }
    return `${line}\n`;
  };
  return (chunk) => {
    const lines = (pending + chunk).split("\n");
    pending = lines.pop() ?? "";
    return lines.map(lineOut).join("");
  };
}
