import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Starts the real server process on a free port and talks to it over HTTP.
let child: ChildProcess;
const port = 18788 + Math.floor(Math.random() * 1000);
const base = `http://127.0.0.1:${port}`;

beforeAll(async () => {
  child = spawn(process.execPath, ["--import", "tsx", "src/server.ts"], {
    cwd: new URL("..", import.meta.url).pathname,
    env: { ...process.env, SANDBOX_PORT: String(port) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const [line] = (await once(child.stdout!, "data")) as [Buffer];
  expect(line.toString()).toContain(`127.0.0.1:${port}`);
});

afterAll(async () => {
  child.kill("SIGTERM");
  await once(child, "exit");
});

describe("sandbox server", () => {
  it("answers over HTTP", async () => {
    const res = await fetch(`${base}/`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { service: string; environments: string[] };
    expect(body.service).toBe("dgii-sandbox");
    expect(body.environments).toEqual(["testecf", "certecf", "ecf"]);
  });
});
