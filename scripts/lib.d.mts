// Types of lib.mjs for the TypeScript scripts and tests that import it.
import type { ChildProcess, SpawnOptions, SpawnSyncOptions } from "node:child_process";

export const root: string;
export const wranglerEnv: NodeJS.ProcessEnv;
export const wranglerBin: string;
export function freshSecrets(): { JWT_SECRET: string; ADMIN_SECRET: string; MASTER_KEY: string };
export function ensureDevVars(): string;
export function devVar(name: string): string | undefined;
export function run(cmd: string, args: string[], options?: SpawnSyncOptions): void;
export function migrationArgs(persistTo: string): string[];
export function applyMigrations(persistTo: string, options?: { quiet?: boolean }): void;
export function wranglerDevArgs(options: {
  port: number | string;
  persistTo: string;
  inspectorPort?: number | string | undefined;
  entry?: string[];
  vars?: Record<string, string>;
}): string[];
export function startChild(name: string, cmd: string, args: string[], options?: SpawnOptions): ChildProcess;
export function stopChildren(children: ChildProcess[], graceMs?: number): Promise<void>;
export function freePort(): Promise<number>;
export function answers(url: string, ms?: number, method?: string): Promise<boolean>;
export function waitForUrl(url: string, options?: { timeoutMs?: number; child?: ChildProcess }): Promise<void>;
export interface RunningCopy {
  workerUrl: string;
  sandboxUrl: string;
  stateDir: string;
  credentialsFile: string;
  pid: number;
}
export function recordRunningCopy(copy: Omit<RunningCopy, "pid">): void;
export function forgetRunningCopy(workerUrl: string): void;
export function runningCopy(workerUrl: string): RunningCopy | undefined;
export function credentialsFileFor(workerUrl: string, stateDir?: string): string;
export function explainUnreachable(error: unknown, url: string): Error;
