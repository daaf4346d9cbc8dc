// One private worker for the browser project: Scalar's script placed among the static assets
// (scripts/docs-assets.mjs, as `npm start` does), then `wrangler dev` of a frozen bundle (an edit
// elsewhere in the tree does not reload it mid-run) beside its own DGII sandbox.
import type { TestProject } from "vitest/node";
import { placeDocsAssets } from "../../scripts/docs-assets.mjs";
import { startLocalStack } from "../../scripts/local-stack.ts";

declare module "vitest" {
  export interface ProvidedContext {
    workerUrl: string;
    sandboxUrl: string;
    adminSecret: string;
  }
}

export default async function setup(project: TestProject) {
  placeDocsAssets();
  const stack = await startLocalStack({ frozen: true });
  project.provide("workerUrl", stack.workerUrl);
  project.provide("sandboxUrl", stack.sandboxUrl);
  project.provide("adminSecret", stack.adminSecret);
  return () => stack.stop();
}
