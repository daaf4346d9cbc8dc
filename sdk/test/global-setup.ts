// One private worker for the SDK's tests (scripts/local-stack.ts): a frozen bundle, so an edit
// elsewhere in the tree does not reload it mid-run, with its own DGII sandbox and secrets.
import type { TestProject } from "vitest/node";
import { startLocalStack } from "../../scripts/local-stack.ts";

declare module "vitest" {
  export interface ProvidedContext {
    workerUrl: string;
    adminSecret: string;
  }
}

export default async function setup(project: TestProject) {
  const stack = await startLocalStack({ frozen: true });
  project.provide("workerUrl", stack.workerUrl);
  project.provide("adminSecret", stack.adminSecret);
  return () => stack.stop();
}
