// The sync runner's state machine in Node (fake-indexeddb): when rounds run (start, interval,
// `online`), revocation (key deleted at once, receipts signed before it still handed over with the
// revoked token, token forgotten once they are up) and a certificate change (key replaced).
import "fake-indexeddb/auto";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ProblemError } from "@ecf/client";
import type { DeviceLease } from "../src/api.ts";
import { PosDatabase, type OutboxEntry } from "../src/db.ts";
import { addLease } from "../src/leases.ts";
import { RETIRED_TOKENS, type Session } from "../src/session.ts";
import { installSigningKey, signingKey } from "../src/signing/keystore.ts";
import { newTillKeyPair } from "../src/signing/till-keys.ts";
import { SyncRunner, type RunnerApi, type SyncStatus } from "../src/sync/runner.ts";
import type { ServerAnswer, UploadResult } from "../src/uploads.ts";

// The browser's window events, for the runner's `online` listener.
const windowEvents = new EventTarget();
Object.assign(globalThis, {
  addEventListener: windowEvents.addEventListener.bind(windowEvents),
  removeEventListener: windowEvents.removeEventListener.bind(windowEvents),
});

const b64 = (b: ArrayBuffer | Uint8Array) =>
  Buffer.from(b instanceof Uint8Array ? b : new Uint8Array(b)).toString("base64");
async function rsaPkcs8(): Promise<string> {
  const pair = await crypto.subtle.generateKey(
    { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
    true,
    ["sign", "verify"],
  );
  return b64(await crypto.subtle.exportKey("pkcs8", pair.privateKey));
}

/** What the service does (worker/src/devices/key-wrapping.ts): the PKCS#8 wrapped to the till's public key. */
async function wrapToTill(pkcs8: string, spki: string) {
  const rsa = { name: "RSA-OAEP", hash: "SHA-256" };
  const tillKey = await crypto.subtle.importKey("spki", Buffer.from(spki, "base64"), rsa, false, ["encrypt"]);
  const aes = await crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, true, ["encrypt"]);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, aes, Buffer.from(pkcs8, "base64"));
  const wrapped = await crypto.subtle.encrypt(rsa, tillKey, await crypto.subtle.exportKey("raw", aes));
  return {
    algorithm: "RSA-OAEP-256+A256GCM" as const,
    wrappedKey: b64(wrapped),
    iv: b64(iv),
    wrappedPkcs8: b64(sealed),
  };
}

let keys: [string, string];
beforeAll(async () => {
  keys = [await rsaPkcs8(), await rsaPkcs8()];
});

let db: PosDatabase;
let runner: SyncRunner | undefined;
afterEach(async () => {
  runner?.stop();
  await runner?.running;
  await db.delete();
});

const session: Session = {
  deviceId: "dev_a",
  deviceName: "Caja 1",
  token: "dvt_a",
  company: {
    id: "c",
    registryNumber: "131880681",
    name: "X",
    tradeName: null,
    address: null,
    province: null,
    municipality: null,
    dgiiServer: "testecf",
  },
};

/** The worker's answer to a revoked device's token: a 401 problem with the deviceRevoked extension. */
const revokedProblem = () =>
  new ProblemError(401, {
    type: "https://ecf-edge.dev/problems/unauthorized",
    title: "Unauthorized",
    status: 401,
    detail: "This device was revoked.",
    titleEs: "Se requiere autenticación",
    detailEs: "Este dispositivo fue revocado.",
    code: "unauthorized",
    requestId: "req_1",
    instance: "/devices/me",
    errors: [],
    deviceRevoked: true,
  });

/**
 * A server as the device sees it: per token, whether the device is revoked; uploads are answered
 * Aceptado (En Proceso until `judged`, as a batch's receipts are) and a revoked token still
 * uploads, as POST /devices/receipts allows.
 */
function server(state: {
  revoked: Set<string>;
  serial: string;
  material: { pkcs8: string; certificate: string };
  judged?: boolean;
  /** SHA-256 hex of the current certificate, as GET /devices/me sends it since 1.11.0. */
  sha256?: string;
}) {
  const calls: string[] = [];
  const uploads: { token: string; encf: string }[] = [];
  const batches: number[] = [];
  const states: string[][] = [];
  const givenUp: string[][] = [];
  const shifts: string[] = [];
  const connect = (token: string): RunnerApi => {
    const guard = () => {
      if (state.revoked.has(token)) throw revokedProblem();
    };
    return {
      me: async () => {
        calls.push(`me:${token}`);
        guard();
        return { certificateSerial: state.serial, certificateSha256: state.sha256 ?? null };
      },
      signingMaterial: async (pairingCode?: string) => {
        calls.push(`signing-material:${pairingCode}`);
        guard();
        const { pkcs8, certificate } = state.material;
        return {
          ...(await wrapToTill(pkcs8, tillPublicKey)),
          certificate,
          certificateSerial: state.serial,
          signatureExpirationDate: null,
        };
      },
      lease: async (tipoeCF: string, size: number): Promise<DeviceLease> => {
        guard();
        const encf = (n: number) => `E${tipoeCF}${String(n).padStart(10, "0")}`;
        return {
          tipoeCF,
          rangeFrom: 5000,
          rangeTo: 5000 + size - 1,
          expiresOn: "2099-12-31",
          firstEncf: encf(5000),
          lastEncf: encf(5000 + size - 1),
        };
      },
      receiptStates: async (encfs: string[]): Promise<ServerAnswer[]> => {
        states.push(encfs);
        return encfs.map((encf) => ({
          estado: state.judged === false ? "En Proceso" : "Aceptado",
          encf,
          mensajes: [],
        }));
      },
      voidGivenUp: async (numbers) => {
        guard();
        givenUp.push(numbers.map((n) => n.encf));
        return numbers.map((n) => ({ ...n, anulado: true, replayed: false }));
      },
      putShift: async (id: string) => {
        shifts.push(`${token}:${id}`);
        return {} as Awaited<ReturnType<RunnerApi["putShift"]>>;
      },
      uploadMany: async (entries: OutboxEntry[]): Promise<UploadResult[]> => {
        batches.push(entries.length);
        for (const entry of entries) uploads.push({ token, encf: entry.encf });
        return entries.map((entry) => ({
          kind: "answer",
          answer: { estado: state.judged === false ? "En Proceso" : "Aceptado", encf: entry.encf, mensajes: [] },
        }));
      },
    };
  };
  return { connect, calls, uploads, batches, states, givenUp, shifts };
}

let tillPublicKey: string;
async function ready(serial = "S1") {
  db = new PosDatabase(`pos-${crypto.randomUUID()}`);
  tillPublicKey = await newTillKeyPair(db);
  await installSigningKey(db, {
    pkcs8: keys[0],
    certificate: b64(new Uint8Array([1, 2, 3])),
    certificateSerial: serial,
  });
  for (const tipo of ["32", "31", "34"])
    await addLease(db, { tipoeCF: tipo, rangeFrom: 1, rangeTo: 200, expiresOn: "2099-12-31" });
  await db.setSetting("session", session);
}

async function queue(encf: string, deviceId = session.deviceId) {
  await db.recordSignedSale(
    { id: encf, createdAt: "t", encf, document: {}, estado: "Contingencia" },
    { saleId: encf, encf, signedXml: `<ECF>${encf}</ECF>`, deviceId },
  );
}

const until = async (check: () => boolean | Promise<boolean>, ms = 30_000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe("sync runner", () => {
  it("runs a round at start and then on its interval", async () => {
    await ready();
    const s = server({ revoked: new Set(), serial: "S1", material: { pkcs8: keys[0], certificate: "AQID" } });
    runner = new SyncRunner(
      db,
      session,
      () => {},
      () => {},
      s.connect,
      40,
    );
    runner.start();
    await until(() => s.calls.length >= 1);
    await queue("E320000000001");
    await until(() => s.calls.length >= 3);
    expect(s.uploads.map((u) => u.encf)).toEqual(["E320000000001"]);
    runner.stop();
    await runner.running;
    const after = s.calls.length;
    await new Promise((r) => setTimeout(r, 150));
    // Stopped: no more rounds.
    expect(s.calls.length).toBe(after);
  });

  it("runs a round when the network comes back", async () => {
    await ready();
    const s = server({ revoked: new Set(), serial: "S1", material: { pkcs8: keys[0], certificate: "AQID" } });
    runner = new SyncRunner(
      db,
      session,
      () => {},
      () => {},
      s.connect,
      60_000,
    );
    runner.start();
    await until(() => s.calls.length === 1);
    await runner.running;
    await queue("E320000000001");
    windowEvents.dispatchEvent(new Event("online"));
    await until(() => s.uploads.length === 1);
    expect(s.calls.length).toBe(2);
  });

  it("revocation: the key goes at once, receipts signed before it are still handed over, the app is told", async () => {
    await ready();
    await queue("E320000000001");
    await queue("E320000000002");
    const s = server({ revoked: new Set(["dvt_a"]), serial: "S1", material: { pkcs8: keys[0], certificate: "AQID" } });
    const statuses: SyncStatus[] = [];
    let revoked = 0;
    runner = new SyncRunner(
      db,
      session,
      (st) => statuses.push(st),
      () => revoked++,
      s.connect,
      60_000,
    );
    await runner.run();
    expect(revoked).toBe(1);
    expect(await signingKey(db)).toBeUndefined();
    expect(await db.setting("session")).toBeUndefined();
    expect(await db.setting("revoked")).toBe(true);
    // Both receipts went up with the (revoked) token that signed them, in order.
    expect(s.uploads).toEqual([
      { token: "dvt_a", encf: "E320000000001" },
      { token: "dvt_a", encf: "E320000000002" },
    ]);
    expect((await db.outbox.toArray()).map((e) => e.state)).toEqual(["sent", "sent"]);
    // Nothing left to hand over: the revoked token is not kept.
    expect(await db.setting(RETIRED_TOKENS)).toEqual({});
    expect(statuses.at(-1)).toMatchObject({ running: false });
  });

  it("receipts a revoked pairing could not hand over go up with its token after pairing again", async () => {
    await ready();
    await queue("E320000000001", "dev_old");
    await queue("E320000000501");
    await db.setSetting(RETIRED_TOKENS, { dev_old: "dvt_old" });
    const s = server({
      revoked: new Set(["dvt_old"]),
      serial: "S1",
      material: { pkcs8: keys[0], certificate: "AQID" },
    });
    runner = new SyncRunner(
      db,
      session,
      () => {},
      () => {},
      s.connect,
      60_000,
    );
    await runner.run();
    expect(s.uploads).toEqual([
      { token: "dvt_old", encf: "E320000000001" },
      { token: "dvt_a", encf: "E320000000501" },
    ]);
    expect(await db.setting(RETIRED_TOKENS)).toEqual({});
  });

  it("a shift closed since the last round goes up in the round, with the token of the pairing that opened it", async () => {
    await ready();
    const shift = (id: string, deviceId: string, state: "open" | "closed", sync: "pending" | "sent") => ({
      id,
      cashierId: "c1",
      cashierName: "Ana",
      openedAt: `2026-12-02T0${id.length}:00:00.000Z`,
      openingFloat: "0.00",
      state,
      deviceId,
      sync,
      revision: 1,
    });
    await db.shifts.bulkAdd([
      shift("s-old", "dev_old", "closed", "pending"),
      shift("s-now", session.deviceId, "closed", "pending"),
      shift("s-sent", session.deviceId, "closed", "sent"),
    ]);
    await db.setSetting(RETIRED_TOKENS, { dev_old: "dvt_old" });
    const s = server({ revoked: new Set(), serial: "S1", material: { pkcs8: keys[0], certificate: "AQID" } });
    const statuses: SyncStatus[] = [];
    runner = new SyncRunner(
      db,
      session,
      (st) => statuses.push(st),
      () => {},
      s.connect,
      60_000,
    );
    await runner.run();
    expect(s.shifts.sort()).toEqual(["dvt_a:s-now", "dvt_old:s-old"]);
    expect((await db.shifts.toArray()).map((r) => r.sync)).toEqual(["sent", "sent", "sent"]);
    expect(statuses.at(-1)?.shifts).toEqual({ sent: 2, refused: 0 });
  });

  it("a backlog goes up in batches, and a round that left receipts En Proceso is followed by another soon that shows DGII's verdicts", async () => {
    await ready();
    for (let i = 1; i <= 150; i++) await queue(`E32${String(i).padStart(10, "0")}`);
    const state = {
      revoked: new Set<string>(),
      serial: "S1",
      material: { pkcs8: keys[0], certificate: "AQID" },
      judged: false,
    };
    const s = server(state);
    runner = new SyncRunner(
      db,
      session,
      () => {},
      () => {},
      s.connect,
      60_000,
      50,
    );
    await runner.run();
    expect(s.batches).toEqual([100, 50]);
    expect(new Set((await db.sales.toArray()).map((x) => x.estado))).toEqual(new Set(["En Proceso"]));
    // The refresh asked about all of them, 100 at a time.
    expect(s.states.map((q) => q.length)).toEqual([100, 50]);
    // DGII judges them; the follow-up round (no interval, no event) shows it.
    state.judged = true;
    await until(async () => (await db.sales.toArray()).every((x) => x.estado === "Aceptado"));
    expect(s.uploads).toHaveLength(150);
    // Nothing uploaded in that round, so no round after it before the interval.
    await runner.running;
    const rounds = s.calls.filter((c) => c.startsWith("me:")).length;
    await new Promise((r) => setTimeout(r, 200));
    expect(s.calls.filter((c) => c.startsWith("me:")).length).toBe(rounds);
  });

  it("a changed certificate is only noted: the new key comes against a one-time code, imported non-extractable", async () => {
    await ready("S1");
    const state = {
      revoked: new Set<string>(),
      serial: "S1",
      material: { pkcs8: keys[1], certificate: b64(new Uint8Array([9, 9])) },
    };
    const s = server(state);
    const statuses: SyncStatus[] = [];
    runner = new SyncRunner(
      db,
      session,
      (status) => statuses.push(status),
      () => {},
      s.connect,
      60_000,
    );
    await runner.run();
    expect(runner.keyOutdated).toBe(false);
    expect(statuses.some((x) => x.keyOutdated)).toBe(false);

    state.serial = "S2";
    await runner.run();
    // The device token alone never asks for the key.
    expect(s.calls.filter((c) => c.startsWith("signing-material"))).toEqual([]);
    expect(runner.keyOutdated).toBe(true);
    expect(statuses.at(-1)).toMatchObject({ running: false, keyOutdated: true });
    expect((await signingKey(db))!.certificateSerial).toBe("S1");

    await runner.installNewKey("ABCD-EFGH");
    const after = (await signingKey(db))!;
    expect(s.calls.filter((c) => c.startsWith("signing-material"))).toEqual(["signing-material:ABCD-EFGH"]);
    expect(after.certificateSerial).toBe("S2");
    expect([...after.certificate]).toEqual([9, 9]);
    expect(after.key.extractable).toBe(false);
    expect(runner.keyOutdated).toBe(false);
  });
});

describe("sync runner: a renewed certificate", () => {
  it("is seen by its digest though the holder's serial stays the same", async () => {
    await ready("S1");
    const hex = async (bytes: number[]) =>
      Buffer.from(await crypto.subtle.digest("SHA-256", new Uint8Array(bytes))).toString("hex");
    const state = {
      revoked: new Set<string>(),
      serial: "S1",
      material: { pkcs8: keys[1], certificate: b64(new Uint8Array([9, 9])) },
      sha256: await hex([1, 2, 3]),
    };
    runner = new SyncRunner(
      db,
      session,
      () => {},
      () => {},
      server(state).connect,
      60_000,
    );
    await runner.run();
    expect(runner.keyOutdated).toBe(false);
    state.sha256 = await hex([9, 9]);
    await runner.run();
    expect(runner.keyOutdated).toBe(true);
    await runner.installNewKey("ABCD-EFGH");
    await runner.run();
    expect(runner.keyOutdated).toBe(false);
  });
});

describe("sync runner: no sale waits for the next interval", () => {
  it("a sale rung while a round uploads goes in a round right after it (the kick is not dropped)", async () => {
    await ready();
    await queue("E320000000001");
    const s = server({ revoked: new Set(), serial: "S1", material: { pkcs8: keys[0], certificate: "AQID" } });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const connect = (token: string): RunnerApi => {
      const api = s.connect(token);
      // The first upload hangs until released: a round in progress.
      return {
        ...api,
        uploadMany: async (entries) =>
          s.batches.length === 0 ? (await gate, api.uploadMany(entries)) : api.uploadMany(entries),
      };
    };
    runner = new SyncRunner(
      db,
      session,
      () => {},
      () => {},
      connect,
      60_000,
    );
    runner.start();
    await until(() => s.calls.length === 1);
    await queue("E320000000002");
    runner.kick();
    release();
    await until(() => s.uploads.length === 2);
    expect(s.uploads.map((u) => u.encf)).toEqual(["E320000000001", "E320000000002"]);
    // Two rounds (two check-ins), long before the one-minute interval.
    expect(s.calls.filter((c) => c.startsWith("me:"))).toHaveLength(2);
  });

  it("the server unreachable: the status says so, rounds retry soon, the backlog goes as soon as it answers", async () => {
    await ready();
    await queue("E320000000001");
    const s = server({ revoked: new Set(), serial: "S1", material: { pkcs8: keys[0], certificate: "AQID" } });
    let down = true;
    const connect = (token: string): RunnerApi => {
      const api = s.connect(token);
      return {
        ...api,
        me: async () => {
          if (down) throw new TypeError("fetch failed");
          return api.me();
        },
      };
    };
    const statuses: SyncStatus[] = [];
    // Interval one minute, first retry 20 ms: only the retry can bring the receipt up in time.
    runner = new SyncRunner(
      db,
      session,
      (st) => statuses.push(st),
      () => {},
      connect,
      60_000,
      4_000,
      20,
    );
    runner.start();
    await until(() => statuses.some((st) => st.unreachable));
    expect(s.uploads).toEqual([]);
    down = false;
    await until(() => s.uploads.length === 1);
    await runner.running;
    expect(statuses.at(-1)).toMatchObject({ running: false });
    expect(statuses.at(-1)?.unreachable).toBeUndefined();
  });
});
