// The records of running copies of `npm start` (.wrangler/running/): a record left by an npm start
// that was killed (it could not forget it) names nobody, and is deleted when it is found.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { forgetRunningCopy, freePort, recordRunningCopy, root, runningCopy } from "../../scripts/lib.mjs";

describe("records of running copies", () => {
  it("answers a live copy's record and deletes one whose npm start is gone", async () => {
    const port = await freePort();
    const workerUrl = `http://127.0.0.1:${port}`;
    const record = join(root, ".wrangler", "running", `${port}.json`);
    const copy = { workerUrl, sandboxUrl: "http://127.0.0.1:1", stateDir: "x", credentialsFile: "x/creds.json" };
    try {
      recordRunningCopy(copy); // this process is the live npm start
      expect(runningCopy(workerUrl)).toMatchObject(copy);
      expect(existsSync(record)).toBe(true);
      // A process that has exited: its pid names nobody now.
      const gone = spawnSync(process.execPath, ["-e", ""]).pid;
      mkdirSync(join(root, ".wrangler", "running"), { recursive: true });
      writeFileSync(record, JSON.stringify({ ...copy, pid: gone }));
      expect(runningCopy(workerUrl)).toBeUndefined();
      expect(existsSync(record)).toBe(false);
    } finally {
      forgetRunningCopy(workerUrl);
    }
  });
});
