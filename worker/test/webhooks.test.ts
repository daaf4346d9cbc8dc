// Webhooks (Standard Webhooks): registration, the events of a receipt's life in order and once per
// id, at-least-once delivery with back-off, disabling after 3 days, and a retry on demand. Every
// delivery is verified by the standardwebhooks package in the test's receiver (support/webhook-sink.ts).
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, inject, it } from "vitest";
import { admin, authed, createKey, tokenFor } from "./support/accounts.ts";
import { call } from "./support/http.ts";
import { clearFaults, issue, issueRequest, issuer, setFault } from "./support/issuing.ts";
import {
  everyMonthSql,
  issuerAlarmAt,
  receiptRow,
  runIssuerAlarm,
  runRetryAlarms,
  runTaskAlarms,
  setInvoicesThisMonth,
} from "./support/ledger.ts";
import type { SinkAnswer, SinkDelivery, SinkStream } from "./support/webhook-sink.ts";
import { deliverWebhook } from "../src/webhooks/deliver.ts";
import { EVENT_TYPES } from "../src/webhooks/events.ts";
import { forgetKeyLookups } from "../src/db/key-lookups.ts";
import { until } from "./support/until.ts";
import { certificateNoticeKey, nextNoticeAt } from "../src/certificates/certificate-watch.ts";

afterEach(clearFaults);

const sinkUrl = (name: string) => `${inject("webhookSinkUrl")}/sinks/${name}`;
const setSink = (name: string, secret: string, failWith: number | null = null) =>
  fetch(sinkUrl(name), {
    method: "PUT",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ secret, failWith }),
  });
const sinkDeliveries = async (name: string) => (await (await fetch(sinkUrl(name))).json()) as SinkDelivery[];
const post = (token: string, path: string, body: unknown) =>
  call(path, {
    method: "POST",
    headers: { ...authed(token), "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });

async function register(token: string, name: string, events: string[]) {
  const res = await post(token, "/webhooks", { url: sinkUrl(name), events });
  expect(res.status, await res.clone().text()).toBe(201);
  const endpoint = (await res.json()) as { id: string; secret: string };
  await setSink(name, endpoint.secret);
  return endpoint;
}

describe("webhook endpoints", () => {
  it("registers (secret shown once), lists, refuses unsafe URLs and unknown events, deletes", async () => {
    const { token } = await issuer();
    const created = await register(token, "reg", ["receipt.accepted"]);
    expect(created.id).toMatch(/^wh_/);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    const listed = (await (await call("/webhooks", { headers: authed(token) })).json()) as {
      webhooks: Record<string, unknown>[];
    };
    expect(listed.webhooks).toEqual([
      expect.objectContaining({ id: created.id, events: ["receipt.accepted"], scope: "company", disabledAt: null }),
    ]);
    expect(JSON.stringify(listed)).not.toContain(created.secret);

    const unsafe = [
      "http://example.com/hook",
      "https://10.0.0.8/hook",
      "https://192.168.1.2/hook",
      "https://localhost/hook",
      "ftp://example.com/x",
    ];
    // Issue 32's examples: IPv4 inside IPv6, NAT64, site-local, a trailing dot, a metadata name, benchmark, broadcast.
    unsafe.push(
      "https://[::127.0.0.1]/hook",
      "https://[64:ff9b::a9fe:a9fe]/hook",
      "https://[fec0::1]/hook",
      "https://localhost./hook",
    );
    unsafe.push("https://metadata.google.internal/hook", "https://198.18.0.1/hook", "https://255.255.255.255/hook");
    for (const url of unsafe) {
      const refused = await post(token, "/webhooks", { url, events: ["receipt.accepted"] });
      expect(refused.status, url).toBe(400);
      expect(refused.headers.get("Content-Type")).toContain("application/problem+json");
      expect(((await refused.json()) as { errors: { path: string; code: string }[] }).errors).toEqual([
        expect.objectContaining({ path: "/url", code: "url_not_allowed" }),
      ]);
    }
    expect((await post(token, "/webhooks", { url: sinkUrl("x"), events: ["receipt.exploded"] })).status).toBe(400);
    expect((await call(`/webhooks/${created.id}`, { method: "DELETE", headers: authed(token) })).status).toBe(204);
    expect((await call(`/webhooks/${created.id}`, { method: "DELETE", headers: authed(token) })).status).toBe(404);
  });

  it("another issuer can neither see nor delete an endpoint", async () => {
    const a = await issuer();
    const b = await issuer();
    const created = await register(a.token, "iso", ["receipt.accepted"]);
    expect(
      ((await (await call("/webhooks", { headers: authed(b.token) })).json()) as { webhooks: unknown[] }).webhooks,
    ).toEqual([]);
    expect((await call(`/webhooks/${created.id}`, { method: "DELETE", headers: authed(b.token) })).status).toBe(404);
    expect((await call(`/webhooks/${created.id}/deliveries`, { headers: authed(b.token) })).status).toBe(404);
  });
});

describe("a hostile endpoint's answer", () => {
  const setHostile = (name: string, secret: string, answer: SinkAnswer) =>
    fetch(sinkUrl(name), {
      method: "PUT",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ secret, answer }),
    });
  const deliverTo = (companyId: string, endpointId: string) =>
    deliverWebhook(
      env,
      `msg_${crypto.randomUUID()}`,
      { companyId, endpointId, event: { type: "receipt.accepted", timestamp: new Date().toISOString(), data: {} } },
      false,
      new Date(),
    );

  it("a redirect is not followed: the delivery fails (to be retried) and the redirect's target hears nothing", async () => {
    const { company, token } = await issuer();
    const target = await register(token, "redirect-target", ["receipt.accepted"]);
    const endpoint = await register(token, "redirecting", ["receipt.accepted"]);
    await setHostile("redirecting", endpoint.secret, { redirectTo: sinkUrl("redirect-target") });
    const outcome = await deliverTo(company.id, endpoint.id);
    expect(outcome.status).toBe("retry");
    expect(String(outcome.result.error)).toMatch(/HTTP 307.*redirects are not followed/);
    expect((await sinkDeliveries("redirecting")).map((d) => d.answered)).toEqual([307]);
    expect(await sinkDeliveries("redirect-target")).toEqual([]);
    expect(target.id).not.toBe(endpoint.id);
  });

  it("a 24 MiB answer is not read whole: the reader stops after a few KiB and hangs up", async () => {
    const { company, token } = await issuer();
    const endpoint = await register(token, "huge", ["receipt.accepted"]);
    const hugeBytes = 24 * 1024 * 1024;
    await setHostile("huge", endpoint.secret, { hugeBytes });
    const outcome = await deliverTo(company.id, endpoint.id);
    expect(outcome).toMatchObject({ status: "done", result: { httpStatus: 200 } });
    expect(String(outcome.result.body)).toBe("A".repeat(200));
    let stream: SinkStream | null = null;
    for (let round = 0; round < 100 && !stream?.hungUp && !stream?.completed; round++) {
      stream = (await (await fetch(`${sinkUrl("huge")}/stream`)).json()) as SinkStream | null;
      if (!stream?.hungUp) await new Promise((r) => setTimeout(r, 50));
    }
    expect(stream).toMatchObject({ hungUp: true, completed: false });
    expect(stream!.sent).toBeLessThan(hugeBytes);
  });
});

describe("the contract", () => {
  it("/openapi.json documents the webhook routes and every event's payload", async () => {
    const doc = (await (await call("/openapi.json")).json()) as {
      paths: Record<string, object>;
      webhooks: Record<string, { post: { requestBody: { content: Record<string, { schema: unknown }> } } }>;
    };
    for (const path of [
      "/webhooks",
      "/webhooks/{id}",
      "/webhooks/{id}/deliveries",
      "/webhooks/{id}/deliveries/{deliveryId}/retry",
    ])
      expect(doc.paths[path], path).toBeDefined();
    // Keyed by event type (the router mounts them under "/").
    expect(
      Object.keys(doc.webhooks)
        .map((k) => k.replace(/^\//, ""))
        .sort(),
    ).toEqual([...EVENT_TYPES].sort());
    const accepted = JSON.stringify(
      (doc.webhooks["/receipt.accepted"] ?? doc.webhooks["receipt.accepted"])!.post.requestBody.content[
        "application/json"
      ]!.schema,
    );
    // The receipt's fields are those of its GET (the IssueAnswer schema), plus the issuer's RNC.
    for (const field of ["rncEmisor", "timestamp", "IssueAnswer"]) expect(accepted).toContain(field);
  });
});

describe("webhook deliveries", () => {
  it("a receipt's contingency and then its acceptance arrive in order, signed, once per id", async () => {
    const { company, token } = await issuer();
    await register(token, "life", ["receipt.accepted", "receipt.contingency", "receipt.rejected"]);
    await setFault({ mode: "down" });
    const { status, body } = await issue(token, issueRequest("31"));
    expect(status).toBe(503);
    await clearFaults();
    await until(
      async () => (await receiptRow(company.id, body.encf))?.status === "accepted",
      () => runRetryAlarms(company.id),
    );
    await until(
      async () => (await sinkDeliveries("life")).length >= 2,
      () => runTaskAlarms(company.id),
    );

    const got = await sinkDeliveries("life");
    expect(got.map((d) => d.type)).toEqual(["receipt.contingency", "receipt.accepted"]);
    expect(got.every((d) => d.verified)).toBe(true);
    expect(new Set(got.map((d) => d.id)).size).toBe(2);
    expect(got[1]!.body).toMatchObject({
      type: "receipt.accepted",
      data: {
        rncEmisor: company.rnc,
        encf: body.encf,
        estado: "Aceptado",
        codigoSeguridad: body.codigoSeguridad,
        reenviado: false,
      },
    });
    expect(Date.parse(got[1]!.body.timestamp)).not.toBeNaN();
  });

  it("a failing endpoint is retried with back-off under the same webhook-id, then succeeds; the deliveries list shows it", async () => {
    const { company, token } = await issuer();
    const endpoint = await register(token, "flaky", ["receipt.accepted"]);
    await setSink("flaky", endpoint.secret, 500);
    const { body } = await issue(token, issueRequest("32"));
    // The event fans out into a delivery in one alarm run, which is attempted in the next ones
    // (the runtime may run some of them on its own in between).
    await until(
      async () => (await sinkDeliveries("flaky")).length >= 2,
      () => runTaskAlarms(company.id),
    );
    const failing = await sinkDeliveries("flaky");
    expect(failing.length).toBeGreaterThanOrEqual(2);
    expect(new Set(failing.map((d) => d.id)).size).toBe(1);
    const listed = (await (await call(`/webhooks/${endpoint.id}/deliveries`, { headers: authed(token) })).json()) as {
      deliveries: { id: string; status: string; attempts: number; lastResult: { httpStatus: number } }[];
    };
    expect(listed.deliveries).toEqual([
      expect.objectContaining({
        id: failing[0]!.id,
        status: "pending",
        event: "receipt.accepted",
        encf: body.encf,
        lastResult: expect.objectContaining({ httpStatus: 500 }),
      }),
    ]);
    expect(listed.deliveries[0]!.attempts).toBeGreaterThanOrEqual(2);
    // Back-off: the next attempt is not before a few seconds.
    const [task] = await everyMonthSql(company.id, "SELECT next_attempt_at FROM tasks WHERE kind = 'webhook'");
    expect(Date.parse(String(task!.next_attempt_at))).toBeGreaterThan(Date.now() + 1_000);

    await setSink("flaky", endpoint.secret, null);
    await runTaskAlarms(company.id);
    const after = await sinkDeliveries("flaky");
    expect(after.at(-1)).toMatchObject({ id: failing[0]!.id, answered: 204, verified: true });
    expect(after.at(-1)!.body.data.encf).toBe(body.encf);
    const done = (await (await call(`/webhooks/${endpoint.id}/deliveries`, { headers: authed(token) })).json()) as {
      deliveries: { status: string }[];
    };
    expect(done.deliveries[0]!.status).toBe("done");
  });

  it("an endpoint failing for 3 days is disabled and the issuer warned; a delivery can be queued again on demand", async () => {
    const { company, token } = await issuer();
    const endpoint = await register(token, "dead", ["receipt.accepted"]);
    await setSink("dead", endpoint.secret, 503);
    await issue(token, issueRequest("32"));
    await runTaskAlarms(company.id);
    // Three days later (the deadline passed) the next failure gives up and disables the endpoint.
    await everyMonthSql(
      company.id,
      "UPDATE tasks SET deadline = ?1 WHERE kind = 'webhook'",
      new Date(Date.now() - 1000).toISOString(),
    );
    await runTaskAlarms(company.id);
    const me = (await (await call("/company/me", { headers: authed(token) })).json()) as {
      warnings: { code: string; message: string }[];
    };
    expect(me.warnings).toContainEqual(expect.objectContaining({ code: "webhook_disabled" }));
    const listed = (await (await call(`/webhooks/${endpoint.id}/deliveries`, { headers: authed(token) })).json()) as {
      deliveries: { id: string; status: string }[];
    };
    expect(listed.deliveries[0]!.status).toBe("failed");

    // A delivery can be queued again on demand (an unknown one is a 404).
    const again = await register(token, "dead2", ["receipt.accepted"]);
    expect(again.id).not.toBe(endpoint.id);
    const retry = await post(token, `/webhooks/${endpoint.id}/deliveries/${listed.deliveries[0]!.id}/retry`, {});
    expect(retry.status).toBe(202);
    expect((await post(token, `/webhooks/${endpoint.id}/deliveries/msg_nope/retry`, {})).status).toBe(404);
  });

  it("the issuer's own events: quota.near_limit once the month passes 90 %, certificate.expiring once per certificate", async () => {
    const { company, token } = await issuer({ invoiceLimitPerMonth: 10 });
    await register(token, "issuer-events", ["quota.near_limit", "certificate.expiring"]);
    await setInvoicesThisMonth(company.id, 8);
    await issue(token, issueRequest("32")); // 9 of 10: not above 90 %
    const inTenDays = new Date(Date.now() + 10 * 86_400_000).toISOString();
    await env.DB.prepare("UPDATE companies SET certificate_not_after = ?1 WHERE id = ?2")
      .bind(inTenDays, company.id)
      .run();
    forgetKeyLookups(); // (a write past the worker)
    await issue(token, issueRequest("32")); // 10 of 10, and the certificate expires in 10 days
    await issue(token, issueRequest("32")).catch(() => undefined); // refused (quota): no second notice either way
    await until(
      async () => (await sinkDeliveries("issuer-events")).length >= 2,
      () => runTaskAlarms(company.id),
    );
    const got = await sinkDeliveries("issuer-events");
    expect(got.map((d) => d.type).sort()).toEqual(["certificate.expiring", "quota.near_limit"]);
    expect(got.every((d) => d.verified)).toBe(true);
    expect(got.find((d) => d.type === "quota.near_limit")!.body.data).toMatchObject({
      rncEmisor: company.rnc,
      used: 10,
      limit: 10,
    });
    expect(got.find((d) => d.type === "certificate.expiring")!.body.data).toMatchObject({
      rncEmisor: company.rnc,
      notAfter: inTenDays,
      withinDays: 15,
    });
  });

  it("certificate.expiring once at 15 days and once more at 3, never twice at the same mark", async () => {
    const { company, token } = await issuer();
    await register(token, "certificate-marks", ["certificate.expiring"]);
    const expiringIn = async (days: number) => {
      const notAfter = new Date(Date.now() + days * 86_400_000).toISOString();
      await env.DB.prepare("UPDATE companies SET certificate_not_after = ?1 WHERE id = ?2")
        .bind(notAfter, company.id)
        .run();
      forgetKeyLookups(); // (a write past the worker)
      return notAfter;
    };
    const noticesAfter = async (expected: number) => {
      for (let round = 0; round < 5 && (await sinkDeliveries("certificate-marks")).length < expected; round++)
        await runTaskAlarms(company.id);
      return (await sinkDeliveries("certificate-marks")).map(
        (d) => d.body.data as { withinDays: number; notAfter: string },
      );
    };
    await expiringIn(20);
    await issue(token, issueRequest("32")); // 20 days left: nothing yet
    const at14 = await expiringIn(14);
    await issue(token, issueRequest("32"));
    await issue(token, issueRequest("32")); // still within 15: not again
    expect(await noticesAfter(1)).toEqual([expect.objectContaining({ withinDays: 15, notAfter: at14 })]);
    const at2 = await expiringIn(2);
    await issue(token, issueRequest("32"));
    await issue(token, issueRequest("32")); // still within 3: not again
    const notices = await noticesAfter(2);
    expect(notices.map((n) => n.withinDays).sort((a, b) => b - a)).toEqual([15, 3]);
    expect(notices.find((n) => n.withinDays === 3)).toMatchObject({ notAfter: at2 });
  });

  it("a request queues only the events some endpoint of the issuer (or of its partner) is subscribed to; the alarm queues every one", async () => {
    const { company, token } = await issuer();
    const events = async () =>
      (await everyMonthSql(company.id, "SELECT payload FROM tasks WHERE kind = 'event' ORDER BY position")).map(
        (row) => {
          const { event } = JSON.parse(String(row.payload)) as { event: { type: string; data: { encf: string } } };
          return `${event.type} ${event.data.encf}`;
        },
      );
    // Nobody listens: neither an acceptance nor a contingency queues anything.
    const accepted = await issue(token, issueRequest("32"));
    expect(accepted.body.estado).toBe("Aceptado");
    await setFault({ mode: "down" });
    const unheard = await issue(token, issueRequest("31"));
    expect(unheard.status).toBe(503);
    expect(await events()).toEqual([]);
    // The issuer's endpoint hears acceptances only: a contingency still queues nothing.
    await register(token, "accepted-only", ["receipt.accepted"]);
    const second = await issue(token, issueRequest("31"));
    expect(second.status).toBe(503);
    expect(await events()).toEqual([]);
    // A partner serving the issuer hears contingencies: the next one is queued.
    const partner = await admin<{ id: string }>("POST", "/admin/partners", { name: `Integrador ${company.rnc}` });
    await admin("POST", `/admin/partners/${partner.id}/companies`, { companyId: company.id });
    await register(await tokenFor(await createKey("partner", partner.id)), "partner-contingency", [
      "receipt.contingency",
    ]);
    const third = await issue(token, issueRequest("31"));
    expect(third.status).toBe(503);
    expect(await events()).toEqual([`receipt.contingency ${third.body.encf}`]);
    // DGII back: the alarm does not know what anyone listens to, so it queues each acceptance, and
    // the endpoint hears the acceptance of every receipt in contingency.
    await clearFaults();
    const waiting = [unheard, second, third].map((r) => r.body.encf);
    const allAccepted = async () =>
      (await Promise.all(waiting.map((encf) => receiptRow(company.id, encf)))).every(
        (row) => row?.status === "accepted",
      );
    await until(allAccepted, () => runRetryAlarms(company.id));
    await until(
      async () => (await sinkDeliveries("accepted-only")).length >= 3,
      () => runTaskAlarms(company.id),
    );
    expect((await sinkDeliveries("accepted-only")).map((d) => `${d.type} ${d.body.data.encf}`).sort()).toEqual(
      waiting.map((encf) => `receipt.accepted ${encf}`).sort(),
    );
    expect((await sinkDeliveries("partner-contingency")).map((d) => `${d.type} ${d.body.data.encf}`)).toEqual([
      `receipt.contingency ${third.body.encf}`,
    ]);
  });

  it("a partner's endpoint (no X-RNC-Emisor) hears about every issuer it serves", async () => {
    const a = await issuer();
    const b = await issuer();
    const partner = await admin<{ id: string }>("POST", "/admin/partners", {
      name: `Casa de software ${a.company.rnc}`,
    });
    for (const { company } of [a, b])
      await admin("POST", `/admin/partners/${partner.id}/companies`, { companyId: company.id });
    const partnerToken = await tokenFor(await createKey("partner", partner.id));
    const endpoint = await register(partnerToken, "partner", ["receipt.accepted"]);
    const listed = (await (await call("/webhooks", { headers: authed(partnerToken) })).json()) as {
      webhooks: { id: string; scope: string }[];
    };
    expect(listed.webhooks).toEqual([expect.objectContaining({ id: endpoint.id, scope: "partner" })]);
    const issued = [await issue(a.token, issueRequest("32")), await issue(b.token, issueRequest("32"))];
    await until(
      async () => (await sinkDeliveries("partner")).length >= 2,
      async () => {
        await runTaskAlarms(a.company.id);
        await runTaskAlarms(b.company.id);
      },
    );
    const got = await sinkDeliveries("partner");
    expect(got.map((d) => d.body.data.rncEmisor).sort()).toEqual([a.company.rnc, b.company.rnc].sort());
    expect(got.map((d) => d.body.data.encf).sort()).toEqual(issued.map((i) => i.body.encf).sort());
    // The issuer's own list does not show the partner's endpoint.
    expect(
      ((await (await call("/webhooks", { headers: authed(a.token) })).json()) as { webhooks: unknown[] }).webhooks,
    ).toEqual([]);
  });
});

describe("certificate.expiring from the issuer object's alarm", () => {
  const DAY = 86_400_000;
  // The fixture certificates' expiry (test/global-setup.ts): every issuer() stores the first.
  const NOT_AFTER = "2030-01-01T00:00:00.000Z";
  const RENEWED_NOT_AFTER = "2031-01-01T00:00:00.000Z";
  const daysBefore = (days: number, notAfter = NOT_AFTER) => new Date(Date.parse(notAfter) - days * DAY);
  type Notice = { withinDays: number; notAfter: string; rncEmisor: string };
  /** Every certificate.expiring event queued in the issuer's months, sent or not, in queue order. */
  const queuedNotices = async (companyId: string) =>
    (await everyMonthSql(companyId, "SELECT payload FROM tasks WHERE kind = 'event' ORDER BY position"))
      .map((row) => (JSON.parse(String(row.payload)) as { event: { type: string; data: Notice } }).event)
      .filter((event) => event.type === "certificate.expiring")
      .map((event) => event.data);
  const withNotAfter = (notAfter: string) => async (companyId: string) => {
    await env.DB.prepare("UPDATE companies SET certificate_not_after = ?1 WHERE id = ?2")
      .bind(notAfter, companyId)
      .run();
    forgetKeyLookups(); // (a write past the worker)
  };

  it("an issuer that issues nothing hears at 15 days and again at 3, once each, from the alarm", async () => {
    const { company, token } = await issuer();
    const endpoint = await register(token, "quiet-issuer", ["certificate.expiring"]);
    // Storing the certificate set the alarm for its first mark.
    expect(await issuerAlarmAt(company.id)).toBe(daysBefore(15).getTime());
    // It runs with 10 days left: the 15-day notice, and the alarm set for the 3-day one; a second
    // run (the runtime retries an alarm) sends nothing more.
    expect(await runIssuerAlarm(company.id, daysBefore(10))).toBe(daysBefore(3).getTime());
    expect(await runIssuerAlarm(company.id, daysBefore(10))).toBe(daysBefore(3).getTime());
    expect((await queuedNotices(company.id)).map((n) => n.withinDays)).toEqual([15]);
    // With 3 days left, one more; then nothing is left to wait for.
    expect(await runIssuerAlarm(company.id, daysBefore(3))).toBeNull();
    expect(await runIssuerAlarm(company.id, daysBefore(1))).toBeNull();
    expect(await queuedNotices(company.id)).toEqual([
      expect.objectContaining({ withinDays: 15, notAfter: NOT_AFTER, rncEmisor: company.rnc }),
      expect.objectContaining({ withinDays: 3, notAfter: NOT_AFTER, rncEmisor: company.rnc }),
    ]);
    // Delivered signed, and listed with the issuer's deliveries (the alarm noted the month it wrote to).
    await until(
      async () => (await sinkDeliveries("quiet-issuer")).length >= 2,
      () => runTaskAlarms(company.id),
    );
    const delivered = await sinkDeliveries("quiet-issuer");
    expect(delivered.every((d) => d.verified && d.type === "certificate.expiring")).toBe(true);
    expect(delivered.map((d) => (d.body.data as Notice).withinDays).sort((a, b) => b - a)).toEqual([15, 3]);
    const listed = (await (await call(`/webhooks/${endpoint.id}/deliveries`, { headers: authed(token) })).json()) as {
      deliveries: { event: string }[];
    };
    expect(listed.deliveries.map((d) => d.event)).toEqual(["certificate.expiring", "certificate.expiring"]);
  });

  it("the issuing path and the alarm share each notice: whichever comes first sends it, the other nothing", async () => {
    const { company, token } = await issuer();
    await register(token, "shared-marks", ["certificate.expiring"]);
    // Ten days left (written past the worker, so the alarm keeps its time; its run reads D1).
    const notAfter = new Date(Date.now() + 10 * DAY).toISOString();
    await withNotAfter(notAfter)(company.id);
    await issue(token, issueRequest("32")); // the issuing path sends the 15-day notice
    expect(await queuedNotices(company.id)).toEqual([expect.objectContaining({ withinDays: 15, notAfter })]);
    expect(await runIssuerAlarm(company.id, new Date())).toBe(daysBefore(3, notAfter).getTime());
    await issue(token, issueRequest("32"));
    expect((await queuedNotices(company.id)).map((n) => n.withinDays)).toEqual([15]);
    // With 3 days left the alarm sends it; issuing meanwhile sends nothing again.
    expect(await runIssuerAlarm(company.id, daysBefore(2, notAfter))).toBeNull();
    await issue(token, issueRequest("32"));
    expect((await queuedNotices(company.id)).map((n) => n.withinDays)).toEqual([15, 3]);
  });

  it("a renewed certificate re-arms the alarm for its own notices", async () => {
    const { company, token } = await issuer();
    await register(token, "renewal", ["certificate.expiring"]);
    expect(await runIssuerAlarm(company.id, daysBefore(10))).toBe(daysBefore(3).getTime());
    const form = new FormData();
    form.set(
      "file",
      new File([Uint8Array.from(atob(inject("certificates").renewedP12), (c) => c.charCodeAt(0))], "n.p12"),
    );
    form.set("password", inject("certificates").password);
    const renewed = await call("/company/certificate", { method: "PUT", headers: authed(token), body: form });
    expect(renewed.status, await renewed.clone().text()).toBe(200);
    // The renewed certificate's first mark, though the holder (the subject's serialNumber) is the same.
    expect(await issuerAlarmAt(company.id)).toBe(daysBefore(15, RENEWED_NOT_AFTER).getTime());
    expect(await runIssuerAlarm(company.id, daysBefore(12, RENEWED_NOT_AFTER))).toBe(
      daysBefore(3, RENEWED_NOT_AFTER).getTime(),
    );
    expect(await queuedNotices(company.id)).toEqual([
      expect.objectContaining({ withinDays: 15, notAfter: NOT_AFTER }),
      expect.objectContaining({ withinDays: 15, notAfter: RENEWED_NOT_AFTER }),
    ]);
  });

  it("a certificate stored within a mark is due at once; one within 3 days is told only of the 3", () => {
    const certificate = { serial: "RNC 131880681", notAfter: NOT_AFTER };
    const nothingGiven = () => false;
    expect(nextNoticeAt(certificate, daysBefore(40), nothingGiven)).toBe(daysBefore(15).getTime());
    expect(nextNoticeAt(certificate, daysBefore(10), nothingGiven)).toBe(daysBefore(10).getTime());
    expect(nextNoticeAt(certificate, daysBefore(2), nothingGiven)).toBe(daysBefore(2).getTime());
    const fifteenGiven = (key: string) => key === certificateNoticeKey(certificate, 15);
    expect(nextNoticeAt(certificate, daysBefore(10), fifteenGiven)).toBe(daysBefore(3).getTime());
    expect(nextNoticeAt(certificate, new Date(Date.parse(NOT_AFTER) + 1), nothingGiven)).toBeNull();
  });
});
