// Documents signed by other implementations (the DGII kit's samples, read in place): the
// sandbox's checks accept their signatures and refuse them for the documented reasons only.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testIdentity } from "@ecf/shared/test-support/certs";
import { startSandbox, type RunningSandbox } from "../src/start.ts";
import { DgiiClient } from "./support/dgii-client.ts";
import { DGII_KIT } from "@ecf/shared/test-support/kit";

const SAMPLES = `${DGII_KIT}/samples/xml/`;
const sample = (name: string) => readFileSync(SAMPLES + name, "utf8");

let sandbox: RunningSandbox;
let client: DgiiClient;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, processingMs: 0 });
  client = new DgiiClient(sandbox.url);
});
afterAll(() => sandbox.close());

describe("kit samples", () => {
  it("a seed signed by another DGII client verifies, and is refused only as not issued here", async () => {
    const { status, body } = await client.validateSeed(sample("seed-test_140133.xml"));
    expect(status).toBe(400);
    expect(body.error).toBe("semilla_desconocida");
  });

  it("a real signed E31 gets a track id and is rejected for its TotalPaginas 1, which the current XSD refuses", async () => {
    const token = await client.login(await testIdentity());
    const sent = await client.send(sample("130862346E310005000201.xml"), "130862346E310005000201.xml", token);
    expect(sent.status).toBe(200);
    const final = await client.waitFinal(sent.body.trackId, token);
    expect(final).toMatchObject({ codigo: 2, secuenciaUtilizada: false });
    expect(final.mensajes).toEqual([{ codigo: 1, valor: expect.stringContaining("TotalPaginas") }]);
  });
});
