// libxml2's XSD validation inside workerd. xmllint-wasm runs its WebAssembly in a Web Worker, and
// workerd has no Worker constructor (nor may it compile WebAssembly from bytes at run time), so
// this engine runs the same Emscripten build in-process from the precompiled module that the
// bundler imports. It keeps xmllint-wasm's `validateXML` contract, so it plugs into
// `validateXsdMany(..., { engine })` of @ecf/shared and is judged by the same code as in Node.
import type { validateXML } from "xmllint-wasm";
import xmllintWasm from "./xmllint.wasm";
import createXmllint from "./xmllint-glue.js";

type Options = Parameters<typeof validateXML>[0];
type Result = Awaited<ReturnType<typeof validateXML>>;
type FileInfo = { fileName: string; contents: string | Uint8Array };

/** 16 MiB to start, 256 MiB at most: an e-CF (≤ 1 MiB) and DGII's schemas fit with room. */
const INITIAL_PAGES = 256;
const MAX_PAGES = 4096;

const asFiles = (input: unknown, ext: string): FileInfo[] =>
  (Array.isArray(input) ? input : input == null ? [] : [input]).map((f: string | FileInfo, i) => (typeof f === "string" ? { fileName: `file_${i}.${ext}`, contents: f } : f));

/** xmllint's stderr lines as xmllint-wasm reports them (`file:line: message`). */
function parseErrors(output: string): Result["errors"] {
  return output
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const [fileName, lineNumber, ...rest] = line.split(":");
      return fileName && lineNumber && rest.length
        ? { rawMessage: line, message: rest.join(":").trim(), loc: { fileName, lineNumber: Number.parseInt(lineNumber, 10) } }
        : { rawMessage: line, message: line, loc: null };
    })
    .filter((e) => !(e.loc === null && e.rawMessage.trim().endsWith(" validates")));
}

/** Same contract as xmllint-wasm's `validateXML` (schema validation only). */
export const validateXmlInProcess: typeof validateXML = async (options: Options) => {
  const xmls = asFiles(options.xml, "xml");
  const schemas = asFiles((options as { schema?: unknown }).schema, "xsd");
  for (const f of [...xmls, ...schemas]) {
    if (/(^|\s)-/.test(f.fileName)) throw new Error(`Invalid file name "${f.fileName}"`);
  }
  const args = [...schemas.flatMap((s) => ["--schema", s.fileName]), "--noout", ...xmls.map((x) => x.fileName)];
  let stdout = "";
  let stderr = "";
  const exitCode = await new Promise<number>((resolve, reject) => {
    createXmllint({
      inputFiles: [...xmls, ...schemas],
      arguments: args,
      print: (text) => void (stdout += `${text}\n`),
      printErr: (text) => void (stderr += `${text}\n`),
      onExit: resolve,
      onAbort: (reason) => reject(new Error(`xmllint aborted: ${String(reason)}`)),
      wasmMemory: new WebAssembly.Memory({ initial: INITIAL_PAGES, maximum: MAX_PAGES }),
      instantiateWasm(imports, done) {
        WebAssembly.instantiate(xmllintWasm, imports).then((instance) => done(instance, xmllintWasm), reject);
        return {};
      },
    }).catch(reject);
  });
  if (exitCode !== 0 && exitCode !== 3 && exitCode !== 4) throw new Error(`xmllint failed (exit ${exitCode}): ${stderr}`);
  const valid = exitCode === 0;
  return { valid, normalized: stdout, errors: valid ? [] : parseErrors(stderr), rawOutput: stderr } as Result;
};
