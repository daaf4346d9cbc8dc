// Who holds the signature: a till a manager registers pairs and leases numbers, but receives the
// issuer's key only after an owner approves it; the approval and the handover are audited, the
// handover is announced (webhook event and an e-mail to the owners); the key travels wrapped to
// the till's own public key, never in clear.
import { env } from "cloudflare:workers";
import { fromBase64 } from "@ecf/shared";
import { describe, expect, inject, it } from "vitest";
import { admin, createCompany, createKey, tokenFor } from "./support/accounts.ts";
import { browse, consoleUser } from "./support/console.ts";
import { call, postJson } from "./support/http.ts";
import { registerSigner, sandboxUrl } from "./support/issuing.ts";
import { auditRows, runTaskAlarms } from "./support/ledger.ts";
import { until } from "./support/until.ts";
import type { SinkDelivery } from "./support/webhook-sink.ts";
import { openedPkcs8, tillKeys, type WrappedMaterial } from "./support/till-keys.ts";

const fixtures = inject("certificates");
const sinkUrl = (name: string) => `${inject("webhookSinkUrl")}/sinks/${name}`;

async function companyWithCertificate() {
  const company = await createCompany();
  const form = new FormData();
  form.set("file", new File([new Uint8Array(fromBase64(fixtures.forgeP12)!)], "firma.p12"));
  form.set("password", fixtures.password);
  const res = await call(`/admin/companies/${company.id}/certificate`, {
    method: "PUT",
    headers: { Authorization: `Bearer ${env.ADMIN_SECRET}` },
    body: form,
  });
  expect(res.status).toBe(200);
  await registerSigner(company.rnc);
  await admin("PUT", `/admin/companies/${company.id}/sequences/32`, {
    rangeFrom: 1,
    rangeTo: 100_000,
    expiresOn: "2099-12-31",
  });
  return company;
}

async function subscribe(companyId: string, name: string) {
  const token = await tokenFor(await createKey("company", companyId));
  const res = await postJson(
    "/webhooks",
    { url: sinkUrl(name), events: ["device.key_handed_over"] },
    {
      Authorization: `Bearer ${token}`,
    },
  );
  expect(res.status, await res.clone().text()).toBe(201);
  const { secret } = (await res.json()) as { secret: string };
  await fetch(sinkUrl(name), {
    method: "PUT",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ secret, failWith: null }),
  });
}

const mailTo = async (address: string) =>
  ((await (await fetch(`${sandboxUrl()}/__mail`)).json()) as { to: string[]; subject?: string }[]).filter((m) =>
    m.to.includes(address),
  );
const deviceCall = (token: string, path: string, body: unknown) =>
  postJson(path, body, { Authorization: `Bearer ${token}` });

describe("a manager's till and the signing key", () => {
  it("gets no key until an owner approves it; the approval and the handover are audited and announced", async () => {
    const company = await companyWithCertificate();
    const manager = await consoleUser(company.id, "manager");
    const owner = await consoleUser(company.id, "owner");
    await subscribe(company.id, `custody-${company.id}`);

    const created = await browse(manager, "/devices", { method: "POST", body: { name: "Caja del encargado" } });
    expect(created.status).toBe(201);
    const device = (await created.json()) as { id: string; pairingCode: string };
    const keys = await tillKeys();
    const pairing = await postJson("/devices/pair", { pairingCode: device.pairingCode, publicKey: keys.publicKey });
    expect(pairing.status).toBe(200);
    const paired = (await pairing.json()) as {
      token: string;
      device: { keyApproval: string };
      signing: unknown;
      leases: unknown[];
    };
    expect(paired.signing).toBeNull();
    expect(paired.device.keyApproval).toBe("pending");
    expect(paired.leases.length).toBeGreaterThan(0);

    // Neither the device token alone nor a re-key code the manager asks for yields the key.
    const alone = await deviceCall(paired.token, "/devices/signing-material", {});
    expect(alone.status).toBe(403);
    const rekey = await browse(manager, `/devices/${device.id}/pairing-code`, { method: "POST" });
    expect(rekey.status).toBe(201);
    const { pairingCode } = (await rekey.json()) as { pairingCode: string };
    const withCode = await deviceCall(paired.token, "/devices/signing-material", { pairingCode });
    expect(withCode.status).toBe(403);
    expect(((await withCode.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe("owner_approval_pending");

    // The manager cannot approve their own till; the owner can.
    expect((await browse(manager, `/tills/${device.id}/approve`, { method: "POST" })).status).toBe(403);
    const approved = await browse(owner, `/tills/${device.id}/approve`, { method: "POST" });
    expect(approved.status).toBe(200);
    expect(((await approved.json()) as { keyApproval: string }).keyApproval).toBe("granted");
    expect((await browse(owner, `/tills/${device.id}/approve`, { method: "POST" })).status).toBe(409);

    // Now the till fetches the key once, wrapped to its own public key.
    const fetched = await deviceCall(paired.token, "/devices/signing-material", {});
    expect(fetched.status).toBe(200);
    const text = await fetched.text();
    const material = JSON.parse(text) as WrappedMaterial;
    expect(material.algorithm).toBe("RSA-OAEP-256+A256GCM");
    expect(text).not.toContain(fixtures.pkcs8.slice(40, 100));
    expect(await openedPkcs8(keys, material)).toBe(fixtures.pkcs8);
    expect((await deviceCall(paired.token, "/devices/signing-material", {})).status).toBe(403);

    const audit = await auditRows(company.id, "code IN ('device_key_approved', 'device_key_handed_over')");
    expect(audit.map((r) => [r.code, r.actor])).toEqual([
      ["device_key_approved", `user:${owner.session.user.id}`],
      ["device_key_handed_over", `device:${device.id}`],
    ]);
    const notices = async (address: string) =>
      (await mailTo(address)).filter((m) => JSON.stringify(m).includes("Caja del encargado"));
    expect(await notices(owner.session.user.email)).toHaveLength(1);
    expect(await notices(manager.session.user.email)).toHaveLength(0);
    const name = `custody-${company.id}`;
    const deliveries = async () => (await (await fetch(sinkUrl(name))).json()) as SinkDelivery[];
    await until(
      async () => (await deliveries()).length >= 1,
      () => runTaskAlarms(company.id),
    );
    const [event] = await deliveries();
    expect(event!.verified).toBe(true);
    expect(event!.body).toMatchObject({
      type: "device.key_handed_over",
      data: { rncEmisor: company.rnc, deviceId: device.id, approvedBy: `user:${owner.session.user.id}` },
    });
  });

  it("an owner's till receives the key at pairing, wrapped; without a public key the answer holds no key", async () => {
    const company = await companyWithCertificate();
    const owner = await consoleUser(company.id, "owner");
    const create = async () =>
      (await (await browse(owner, "/devices", { method: "POST", body: { name: "Caja 1" } })).json()) as {
        pairingCode: string;
      };
    const keys = await tillKeys();
    const res = await postJson("/devices/pair", {
      pairingCode: (await create()).pairingCode,
      publicKey: keys.publicKey,
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain(fixtures.pkcs8.slice(40, 100));
    expect(text).not.toContain('"pkcs8"');
    const { signing } = JSON.parse(text) as { signing: WrappedMaterial };
    expect(await openedPkcs8(keys, signing)).toBe(fixtures.pkcs8);

    const bare = await postJson("/devices/pair", { pairingCode: (await create()).pairingCode });
    expect(bare.status).toBe(200);
    const bareText = await bare.text();
    expect(JSON.parse(bareText).signing).toBeNull();
    expect(bareText).not.toContain(fixtures.pkcs8.slice(40, 100));

    const weak = await postJson("/devices/pair", { pairingCode: (await create()).pairingCode, publicKey: "AAAA" });
    expect(weak.status).toBe(400);
    expect(((await weak.json()) as { errors: { path: string }[] }).errors[0]!.path).toBe("/publicKey");
  });
});
