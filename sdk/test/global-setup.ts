// One private worker for the SDK's tests (scripts/local-stack.ts): a frozen bundle, so an edit
// elsewhere in the tree does not reload it mid-run, with its own DGII sandbox and secrets.
import type { TestProject } from "vitest/node";
import { startLocalStack } from "../../scripts/local-stack.ts";

declare module "vitest" {
  export interface ProvidedContext {
    workerUrl: string;
    adminSecret: string;
    /** Its DGII sandbox, told who signs for each demo issuer (seed's registerSigners). */
    sandboxUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const stack = await startLocalStack({ frozen: true });
  project.provide("workerUrl", stack.workerUrl);
  project.provide("adminSecret", stack.adminSecret);
  project.provide("sandboxUrl", stack.sandboxUrl);
  return () => stack.stop();
}
