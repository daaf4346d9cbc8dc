// Types for the generated Emscripten factory of xmllint-wasm (see xmllint-glue.js).
export interface XmllintModuleOptions {
  inputFiles: { fileName: string; contents: string | Uint8Array }[];
  arguments: string[];
  print(text: string): void;
  printErr(text: string): void;
  onExit(code: number): void;
  onAbort(reason: unknown): void;
  wasmMemory: WebAssembly.Memory;
  instantiateWasm(imports: WebAssembly.Imports, done: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void): object;
}
declare const createXmllint: (options: XmllintModuleOptions) => Promise<unknown>;
export default createXmllint;
