// Types of taxpayers-import.mjs for the TypeScript tests and benchmarks that import it.

/** What admin-client.mjs's adminClient() returns, as far as the import uses it. */
export interface AdminApi {
  request(method: string, path: string, body?: unknown): Promise<any>;
  get(path: string): Promise<any>;
  post(path: string, body?: unknown): Promise<any>;
}

export interface TaxpayerRow {
  rnc: string;
  legalName: string;
  tradeName: string | null;
  activity: string | null;
  status: string;
  paymentRegime: string | null;
  /** yyyy-MM-dd */
  registeredOn: string | null;
}

export interface RegistryEntry {
  name: string;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  localHeaderOffset: number;
  dataOffset: number;
  encrypted: boolean;
}

export interface ImportSummary {
  importId: number;
  rows: number;
  importedAt: string;
  lines: number;
  skippedLines: number;
  linesWithProblems: number;
  firstProblems: { line: number; problem: string }[];
  replacedRowsDeleted: number;
  seconds: number;
}

export const REGISTRY_FIELDS: number;
export const DEFAULT_CHUNK_ROWS: number;
export function locateRegistryEntry(file: string): Promise<RegistryEntry>;
export function registryLines(
  file: string,
  progress?: (bytesRead: number, compressedSize: number) => void,
): AsyncGenerator<{ number: number; text: string }>;
export function parseRegistryLine(
  text: string,
):
  | { skipped: string; row?: undefined; problem?: undefined }
  | { skipped?: undefined; row: TaxpayerRow; problem: string | undefined };
export function importTaxpayerRegistry(
  api: AdminApi,
  file: string,
  options?: { chunkRows?: number; report?: (line: string) => void },
): Promise<ImportSummary>;
