import { createRoute, OpenAPIHono, type z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { requireAdmin } from "../auth/admin.ts";
import { clientAddress } from "../auth/client-address.ts";
import { requireAuth } from "../auth/middleware.ts";
import { longestWait, pairingScopes, recordFailure } from "../auth/throttle.ts";
import { database } from "../db/client.ts";
import { companyById } from "../db/companies.ts";
import { devices } from "../db/devices-tables.ts";
import { requireDevice, requireDeviceForReceipts, type DeviceEnv } from "../devices/auth.ts";
import { currentLeases, leaseBlock, leaseView } from "../devices/leases.ts";
import {
  createDevice,
  newRekeyCode,
  pairDevice,
  revokeDevice,
  signingMaterialFor,
  type DeviceRow,
} from "../devices/registry.ts";
import { approveDevice, registrant } from "../devices/custody.ts";
import { MAX_BATCH_RECEIPTS, acceptDeviceReceiptBatch } from "../devices/batch-uploads.ts";
import { currentAnswer, currentAnswers } from "../devices/submit.ts";
import { acceptDeviceReceipt } from "../devices/uploads.ts";
import { confirmProposals, pendingProposals, proposeGivenUpNumbers } from "../devices/given-up-proposals.ts";
import { validationHook } from "../http/errors.ts";
import { adminRoute, tenantRoute, problemSchema } from "../http/openapi.ts";
import { ApiProblem } from "../errors/problem.ts";
import { problemBody } from "../http/problem.ts";
import { certificateSha256 } from "../certificates/vault.ts";
import { companies, type Company } from "../db/tables.ts";
import { forgetKeyLookups } from "../db/key-lookups.ts";
import { resolveTenant } from "../tenant/resolve.ts";
import { IssueAnswer } from "../answers/receipt-schema.ts";
import { EncfParam, IdParam, json } from "../http/schemas/common.ts";
import {
  BatchAnswer,
  ConfirmAnswer,
  ConfirmProposals,
  GivenUpProposalList,
  type CompanyForDevice,
  DeviceCreated,
  DeviceList,
  DeviceOut,
  DeviceReceiptStates,
  DeviceStatus,
  GivenUpAnswer,
  GivenUpNumbers,
  LeaseLimits,
  LeaseLimitsPatch,
  LeaseOut,
  LeaseRequest,
  MAX_STATE_QUERY,
  NewDevice,
  Paired,
  PairingRequest,
  ReceiptBatch,
  ReceiptUpload,
  SigningMaterial,
  SigningRequest,
  StateQuery,
} from "../http/schemas/devices.ts";

/** The types a till issues: consumo (E32), crédito fiscal (E31) and credit notes (E34). */

const deviceSecurity = [{ deviceAuth: [] as string[] }];

const deviceOut = (d: DeviceRow): z.infer<typeof DeviceOut> => ({
  id: d.id,
  name: d.name,
  status: d.revokedAt ? "revoked" : d.pairedAt ? "paired" : "waiting_pairing",
  pairedAt: d.pairedAt,
  revokedAt: d.revokedAt,
  lastSeenAt: d.lastSeenAt,
  createdAt: d.createdAt,
  canEditPrices: d.canEditPrices,
  keyApproval: d.keyApproval,
  keyHandedOverAt: d.keyHandedOverAt,
});
const companyOut = (c: Company): z.infer<typeof CompanyForDevice> => ({
  id: c.id,
  registryNumber: c.rnc,
  name: c.legalName,
  tradeName: c.tradeName,
  address: c.address,
  province: c.province,
  municipality: c.municipality,
  dgiiServer: c.dgiiEnvironment,
});

export const deviceRoutes = new OpenAPIHono<DeviceEnv>({ defaultHook: validationHook });
deviceRoutes.openAPIRegistry.registerComponent("securitySchemes", "deviceAuth", {
  type: "http",
  scheme: "bearer",
  description: "Device token from POST /devices/pair",
});

deviceRoutes.openapi(
  adminRoute({
    method: "post",
    path: "/admin/companies/{id}/devices",
    tags: ["Administration"],
    summary: "Create a point-of-sale device and its one-time pairing code",
    description:
      "The operator's form of POST /devices, for an issuer it names by id: creates the device and answers its pairing code, valid for a short time and usable once; the till enters it in POST /devices/pair.",
    middleware: [requireAdmin] as const,
    request: { params: IdParam, body: { required: true, ...json(NewDevice) } },
    responses: { 201: { description: "Created", ...json(DeviceCreated) }, 404: problemSchema("No such company") },
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    const company = await companyById(c.env, id);
    if (!company) throw new ApiProblem("not_found", { detail: `No company with id ${id}.` });
    return c.json(await createDevice(c.env.DB, id, c.req.valid("json").name, registrant(undefined), new Date()), 201);
  },
);

deviceRoutes.openapi(
  adminRoute({
    method: "post",
    path: "/admin/devices/{id}/revoke",
    tags: ["Administration"],
    summary: "Revoke a device: its token fails at once and it deletes its key",
    description:
      "The operator's form of POST /tills/{id}/revoke: the device's token is refused from its next request on, and the till deletes its copy of the signing key when it hears so. What it signed before the revocation may still be uploaded.",
    middleware: [requireAdmin] as const,
    request: { params: IdParam },
    responses: { 200: { description: "Revoked", ...json(DeviceOut) }, 404: problemSchema("No such device") },
  }),
  async (c) => c.json(deviceOut(await revokeDevice(c.env.DB, c.req.valid("param").id, null, new Date())), 200),
);

deviceRoutes.openapi(
  tenantRoute({
    method: "post",
    path: "/devices",
    tags: ["Devices"],
    summary: "Create a point-of-sale device and its one-time pairing code",
    description:
      "The issuer (or its partner) registers a till by name and gets a pairing code, valid for a short time and usable once; whoever sets the till up enters it there, and the till calls POST /devices/pair.",
    middleware: [requireAuth, resolveTenant] as const,
    request: { body: { required: true, ...json(NewDevice) } },
    responses: { 201: { description: "Created", ...json(DeviceCreated) } },
  }),
  async (c) => {
    const by = registrant(c.get("principal"));
    return c.json(await createDevice(c.env.DB, c.get("tenant").id, c.req.valid("json").name, by, new Date()), 201);
  },
);

deviceRoutes.openapi(
  tenantRoute({
    method: "post",
    path: "/tills/{id}/approve",
    tags: ["Devices"],
    summary: "An owner lets a till a manager registered receive the signing key",
    description:
      "The certificate stays under its holder's control: a till a manager registered (keyApproval `pending`) pairs and leases numbers but receives the issuer's signing key only after an owner (or the company's API key) approves it here. The till then fetches the key once (POST /devices/signing-material without a code), wrapped to the public key it sent at pairing; the handover is audited, sent as the webhook event device.key_handed_over and e-mailed to the owners.",
    middleware: [requireAuth, resolveTenant] as const,
    request: { params: IdParam },
    responses: {
      200: { description: "Approved", ...json(DeviceOut) },
      404: problemSchema("No such device of this issuer"),
      409: problemSchema("The device needs no approval, was approved already or is revoked"),
    },
  }),
  async (c) => {
    const principal = c.get("principal");
    const actor = principal.console ? principal.keyId : `key:${principal.keyId}`;
    const { id } = c.req.valid("param");
    const row = await approveDevice(c.env, c.get("tenant"), id, actor, c.get("requestId") ?? "unknown", new Date());
    return c.json(deviceOut(row), 200);
  },
);

deviceRoutes.openapi(
  tenantRoute({
    method: "get",
    path: "/devices",
    tags: ["Devices"],
    summary: "The issuer's devices",
    description:
      "Every point-of-sale device of the issuer in creation order, with its state (waiting_pairing, paired, revoked) and when it was paired, revoked and last seen.",
    middleware: [requireAuth, resolveTenant] as const,
    responses: { 200: { description: "Devices", ...json(DeviceList) } },
  }),
  async (c) => {
    const rows = await database(c.env.DB).query.devices.findMany({
      where: eq(devices.companyId, c.get("tenant").id),
      orderBy: devices.createdAt,
    });
    return c.json({ devices: rows.map(deviceOut) }, 200);
  },
);

deviceRoutes.openapi(
  tenantRoute({
    method: "post",
    path: "/tills/{id}/pairing-code",
    tags: ["Devices"],
    summary: "A one-time code for a paired till to receive the issuer's new signing key",
    description:
      "After a certificate change, a till needs the new key: this code (valid 15 minutes, usable once) is typed on that till, which presents it to POST /devices/signing-material. It cannot pair another till.",
    middleware: [requireAuth, resolveTenant] as const,
    request: { params: IdParam },
    responses: {
      201: { description: "Created", ...json(DeviceCreated) },
      404: problemSchema("No paired, unrevoked device of this issuer"),
    },
  }),
  async (c) => c.json(await newRekeyCode(c.env.DB, c.req.valid("param").id, c.get("tenant").id, new Date()), 201),
);

deviceRoutes.openapi(
  tenantRoute({
    method: "post",
    path: "/tills/{id}/revoke",
    tags: ["Devices"],
    summary: "Revoke a device: its token fails at once and it deletes its key",
    description:
      "For a lost or retired till: its token is refused from its next request on and the till deletes its copy of the signing key when it hears so. Receipts it signed before the revocation may still be uploaded; its unused leased numbers can be voided.",
    middleware: [requireAuth, resolveTenant] as const,
    request: { params: IdParam },
    responses: {
      200: { description: "Revoked", ...json(DeviceOut) },
      404: problemSchema("No such device of this issuer"),
    },
  }),
  async (c) =>
    c.json(deviceOut(await revokeDevice(c.env.DB, c.req.valid("param").id, c.get("tenant").id, new Date())), 200),
);

deviceRoutes.openapi(
  createRoute({
    method: "post",
    path: "/devices/pair",
    tags: ["Devices"],
    summary: "Pair a till with its one-time code: its token, the signing material and its first e-NCF blocks",
    description:
      "Called by the till itself, without a token: the pairing code becomes the device's bearer token, the issuer's profile, a first lease of e-NCF per type and, when the till may hold it, the signing key wrapped to the RSA-OAEP public key the till sent (`publicKey`; unwrap it into a non-extractable key), so it can sign offline at once. The key never travels in clear: without `publicKey`, or for a till a manager registered until an owner approves it (POST /tills/{id}/approve), `signing` is null. A code works once. Wrong codes are throttled per source address and over all sources (429 with Retry-After); a right code is never refused for others' failures.",
    request: { body: { required: true, ...json(PairingRequest) } },
    responses: {
      200: { description: "Paired", ...json(Paired) },
      401: problemSchema("Unknown, used or expired pairing code"),
      429: problemSchema("too_many_requests: too many wrong pairing codes"),
    },
  }),
  async (c) => {
    const context = { action: "POST /devices/pair", requestId: c.get("requestId") ?? "unknown", now: new Date() };
    const { device, token, company, signing, leases } = await throttledPairing(c.env, c.req.raw.headers, () =>
      pairDevice(c.env, c.req.valid("json"), context),
    );
    return c.json(
      { device: deviceOut(device), token, company: companyOut(company), signing, leases: leases.map(leaseView) },
      200,
    );
  },
);

/** Runs a pairing under the pairing throttle: a wrong code counts against its source and all sources. */
async function throttledPairing<T>(env: Env, headers: Headers, pair: () => Promise<T>): Promise<T> {
  const db = database(env.DB);
  const now = new Date();
  const { own, shared } = pairingScopes(clientAddress(headers, env.BEHIND_CLOUDFLARE));
  const [ownWait, sharedWait] = await Promise.all([longestWait(db, own, now), longestWait(db, shared, now)]);
  const tooMany = (wait: number) =>
    new ApiProblem("too_many_requests", {
      detail: `Too many wrong pairing codes; try again in ${wait} seconds.`,
      retryAfter: wait,
    });
  if (ownWait > 0) throw tooMany(ownWait);
  try {
    return await pair();
  } catch (error) {
    if (!(error instanceof ApiProblem && error.code === "unauthorized")) throw error;
    await Promise.all([...own, ...shared].map(({ scope }) => recordFailure(db, scope, now)));
    throw sharedWait > 0 ? tooMany(sharedWait) : error;
  }
}

deviceRoutes.openapi(
  createRoute({
    method: "get",
    path: "/devices/me",
    tags: ["Devices"],
    summary: "The device's status, its issuer, the current certificate and its leases",
    description:
      "The till's periodic check-in: whether it is still paired (401 with `deviceRevoked: true` once revoked), its issuer's profile, which certificate is current (to fetch new signing material when it changed) and its unexpired leases.",
    security: deviceSecurity,
    middleware: [requireDevice] as const,
    responses: {
      200: { description: "Status", ...json(DeviceStatus) },
      401: problemSchema("Token invalid or device revoked (deviceRevoked: true)"),
    },
  }),
  async (c) => {
    const device = c.get("device");
    const company = c.get("tenant");
    await database(c.env.DB)
      .update(devices)
      .set({ lastSeenAt: new Date().toISOString() })
      .where(eq(devices.id, device.id));
    return c.json(
      {
        device: deviceOut(device),
        company: companyOut(company),
        certificateSerial: company.certificateSerial,
        certificateSha256: company.certificateDer ? await certificateSha256(company.certificateDer) : null,
        signatureExpirationDate: company.certificateNotAfter,
        leases: (await currentLeases(c.env, company.id, device.id)).map(leaseView),
      },
      200,
    );
  },
);

deviceRoutes.openapi(
  createRoute({
    method: "post",
    path: "/devices/signing-material",
    tags: ["Devices"],
    summary: "The issuer's current signing material, against a fresh one-time code or an owner's approval",
    description:
      "When GET /devices/me shows a certificate the till does not hold, someone at the issuer asks for a code (POST /tills/{id}/pairing-code) and types it on the till, which fetches the new key and certificate here. Without a code, the key comes once after an owner approved a till a manager registered. The key is always wrapped to the public key the till sent at pairing, so a stolen token never yields it. The code works once, for 15 minutes (the previous certificate stays valid for what it signed before the change).",
    security: deviceSecurity,
    middleware: [requireDevice] as const,
    request: { body: { required: true, ...json(SigningRequest) } },
    responses: {
      200: { description: "Signing material", ...json(SigningMaterial) },
      403: problemSchema("Unknown, used or expired code (pairing_code_invalid)"),
    },
  }),
  async (c) => {
    const context = {
      action: "POST /devices/signing-material",
      requestId: c.get("requestId") ?? "unknown",
      now: new Date(),
    };
    const { pairingCode } = c.req.valid("json");
    const material = await signingMaterialFor(c.env, c.get("tenant"), c.get("device").id, pairingCode, context);
    return c.json(material, 200);
  },
);

deviceRoutes.openapi(
  createRoute({
    method: "post",
    path: "/devices/leases",
    tags: ["Devices"],
    summary: "Lease a block of e-NCF numbers for offline numbering",
    description:
      "Reserves the next `size` numbers of a type for this device alone, so a till that is offline never collides with the API or another till; ask for a new block before the current one runs out. A block takes at most the company's share of the numbers left in the range (25 % by default: a smaller block when less is left) and a till takes at most so many blocks of a type a day (20 by default), so the API always keeps numbers to issue. 422 when the type has no range, it expired or ran out, or the till reached a limit (`lease_cap_reached`, `lease_share_reached`). A block that leaves less than a tenth of the range sends the webhook event range.low once.",
    security: deviceSecurity,
    middleware: [requireDevice] as const,
    request: { body: { required: true, ...json(LeaseRequest) } },
    responses: {
      201: { description: "Leased", ...json(LeaseOut) },
      422: problemSchema("No range, expired or exhausted"),
    },
  }),
  async (c) => {
    const { tipoeCF, size } = c.req.valid("json");
    const lease = await leaseBlock(c.env, c.get("tenant"), c.get("device").id, tipoeCF, size, new Date());
    return c.json(leaseView(lease), 201);
  },
);

deviceRoutes.openapi(
  createRoute({
    method: "post",
    path: "/devices/receipts",
    tags: ["Devices"],
    summary: "Upload a receipt the device signed (online or in contingency)",
    description:
      "The till sends each receipt it signed with a leased number; the service checks the signature, the certificate and the lease, records it and sends it to DGII, answering the receipt's state as POST /fe/recepcion/ecf does. Sending it again is safe: the first answer comes back (Idempotent-Replayed: true). A revoked device may still upload what it signed before its revocation.",
    security: deviceSecurity,
    middleware: [requireDeviceForReceipts] as const,
    request: { body: { required: true, ...json(ReceiptUpload) } },
    responses: {
      200: {
        description: "The receipt's state (a retry replays the first answer, with Idempotent-Replayed: true)",
        ...json(IssueAnswer),
      },
      409: problemSchema("The e-NCF was already used by a different document"),
      422: problemSchema(
        "Bad signature, a certificate that was not the issuer's at FechaHoraFirma, a number outside this device's leases, or signed after the device's revocation",
      ),
    },
  }),
  async (c) => {
    const outcome = await acceptDeviceReceipt(c.env, c.get("tenant"), c.get("device"), c.req.valid("json").xml);
    if (outcome.replayed) c.header("Idempotent-Replayed", "true");
    return c.json(outcome.answer, 200);
  },
);

deviceRoutes.openapi(
  createRoute({
    method: "post",
    path: "/devices/receipts/batch",
    tags: ["Devices"],
    summary: `Upload up to ${MAX_BATCH_RECEIPTS} receipts the device signed, in signing order`,
    description:
      "For a till's backlog after a time offline: each receipt is checked and recorded as POST /devices/receipts would, and DGII is told in the background. Every receipt gets its own result, in the order sent. A recorded receipt answers En Proceso (trackId null) until the ledger has sent it to DGII: ask GET /devices/receipts?encf=… later. A retried batch records nothing twice (each receipt held already comes back with `replayed: true`); a different document under a used e-NCF is that receipt's 409. A failure on the server's side leaves that receipt and the ones after it unrecorded (status 500): send them again, in order.",
    security: deviceSecurity,
    middleware: [requireDeviceForReceipts] as const,
    request: { body: { required: true, ...json(ReceiptBatch) } },
    responses: { 200: { description: "One result per receipt", ...json(BatchAnswer) } },
  }),
  async (c) => {
    const outcomes = await acceptDeviceReceiptBatch(
      c.env,
      c.get("tenant"),
      c.get("device"),
      c.req.valid("json").receipts.map((r) => r.xml),
    );
    const requestId = c.get("requestId") ?? "unknown";
    const instance = new URL(c.req.url).pathname;
    const results = outcomes.map((o) =>
      "answer" in o
        ? { encf: o.encf, status: 200, replayed: o.replayed, answer: o.answer }
        : {
            encf: o.encf,
            status: o.problem.status,
            replayed: false,
            problem: problemBody(o.problem.code, requestId, instance, o.problem.init),
          },
    );
    // Refused receipts go to the audit log as one entry for the request (a single upload's refusal is one too).
    const refused = results.filter((r) => r.problem);
    if (refused.length) {
      const detail = refused
        .map(
          (r) => `${r.problem!.errors[0]?.path}: ${r.encf ?? "?"} ${r.problem!.errors[0]?.code} (${r.problem!.detail})`,
        )
        .join("; ");
      c.set("auditEvent", {
        code: "device_receipts_refused",
        detail: `${refused.length} of ${results.length} receipts not taken: ${detail}`,
      });
    }
    return c.json({ results }, 200);
  },
);

deviceRoutes.openapi(
  createRoute({
    method: "get",
    path: "/devices/receipts",
    tags: ["Devices"],
    summary: `The current state of up to ${MAX_STATE_QUERY} receipts this issuer's devices uploaded, in one request`,
    description:
      "How a till follows its backlog after a batch upload: the current answer of each e-NCF asked for (the same shape as POST /devices/receipts answers), so it can mark what DGII accepted or rejected; e-NCF never uploaded are left out.",
    security: deviceSecurity,
    middleware: [requireDeviceForReceipts] as const,
    request: { query: StateQuery },
    responses: {
      200: {
        description: "The receipts the ledger holds, in the order asked; unknown e-NCF are left out",
        ...json(DeviceReceiptStates),
      },
    },
  }),
  async (c) =>
    c.json({ receipts: await currentAnswers(c.env, c.get("tenant"), c.req.valid("query").encf.split(",")) }, 200),
);

deviceRoutes.openapi(
  createRoute({
    method: "get",
    path: "/devices/receipts/{encf}",
    tags: ["Devices"],
    summary: "The current state of a receipt this issuer's devices uploaded (En Proceso until DGII's final word)",
    description:
      "One receipt's current answer, as POST /devices/receipts gave it: En Proceso until DGII's final word, then Aceptado, Aceptado Condicional or Rechazado; 404 if no device of the issuer uploaded it.",
    security: deviceSecurity,
    middleware: [requireDeviceForReceipts] as const,
    request: { params: EncfParam },
    responses: { 200: { description: "State", ...json(IssueAnswer) }, 404: problemSchema("Not uploaded") },
  }),
  async (c) => {
    const { encf } = c.req.valid("param");
    const answer = await currentAnswer(c.env, c.get("tenant"), encf);
    if (!answer) throw new ApiProblem("not_found", { detail: `${encf} has not been uploaded.` });
    return c.json(answer, 200);
  },
);

deviceRoutes.openapi(
  createRoute({
    method: "post",
    path: "/devices/given-up-numbers",
    tags: ["Devices"],
    summary: "Propose voiding the e-NCF the till took from its leases and will never sign",
    description:
      "A till that took a number and could not sign it (it stopped between numbering and signing) never uses it again; it sends such numbers with its next sync. Voiding numbers at DGII is an owner's or accountant's act, so each number inside the device's own leases becomes a proposal (`proposed: true`) and no ANECF leaves until one of them confirms it (POST /devices/given-up-proposals/confirm). Each number gets its own result, in the order sent: proposed, voided (`anulado: true`, `replayed: true`: confirmed and voided before), or refused with a reason (a number outside this device's leases, or one holding a receipt). Sending the list again is safe: a proposal is kept once.",
    security: deviceSecurity,
    middleware: [requireDevice] as const,
    request: { body: { required: true, ...json(GivenUpNumbers) } },
    responses: { 200: { description: "One result per number", ...json(GivenUpAnswer) } },
  }),
  async (c) => {
    const { numbers } = c.req.valid("json");
    const results = await proposeGivenUpNumbers(c.env, c.get("tenant"), c.get("device").id, numbers, new Date());
    return c.json({ results }, 200);
  },
);

deviceRoutes.openapi(
  tenantRoute({
    method: "get",
    path: "/devices/given-up-proposals",
    tags: ["Devices"],
    summary: "The numbers tills gave up, waiting for an owner or accountant to void them",
    description:
      "Every proposal not decided yet, oldest first: the till, the type and the e-NCF. Confirm them with POST /devices/given-up-proposals/confirm.",
    middleware: [requireAuth, resolveTenant] as const,
    responses: { 200: { description: "Proposals", ...json(GivenUpProposalList) } },
  }),
  async (c) => {
    const rows = await pendingProposals(c.env, c.get("tenant").id);
    const proposals = rows.map(({ id, deviceId, tipoeCF, encf, proposedAt }) => ({
      id,
      deviceId,
      tipoeCF,
      encf,
      proposedAt,
    }));
    return c.json({ proposals }, 200);
  },
);

deviceRoutes.openapi(
  tenantRoute({
    method: "post",
    path: "/devices/given-up-proposals/confirm",
    tags: ["Devices"],
    summary: "Void the proposed numbers at DGII (one ANECF per till)",
    description:
      "An owner's or accountant's confirmation: each till's proposed numbers are judged again (a receipt may have arrived meanwhile) and voided with DGII in one signed ANECF, as POST /fe/anulacion does. One result per proposal found, in the order stored: voided, refused with a reason, or still proposed when DGII did not answer for it. 503 when DGII cannot be reached: nothing was voided, confirm again.",
    middleware: [requireAuth, resolveTenant] as const,
    request: { body: { required: true, ...json(ConfirmProposals) } },
    responses: {
      200: { description: "One result per proposal", ...json(ConfirmAnswer) },
      503: problemSchema("DGII unreachable"),
    },
  }),
  async (c) => {
    const principal = c.get("principal");
    const actor = principal.console ? principal.keyId : `key:${principal.keyId}`;
    const { ids } = c.req.valid("json");
    const { results, auditEvent } = await confirmProposals(c.env, c.get("tenant"), ids, actor, new Date());
    if (auditEvent) c.set("auditEvent", auditEvent);
    return c.json({ results }, 200);
  },
);

const limitsOf = (c: Company) => ({ sharePercent: c.deviceLeaseSharePercent, perDay: c.deviceLeasesPerDay });

deviceRoutes.openapi(
  tenantRoute({
    method: "get",
    path: "/devices/lease-limits",
    tags: ["Devices"],
    summary: "What one till may lease (share of a range per lease, leases a day)",
    description:
      "The company's limits on its tills' leases (POST /devices/leases), so no till can take a whole range and the API always keeps numbers to issue.",
    middleware: [requireAuth, resolveTenant] as const,
    responses: { 200: { description: "Limits", ...json(LeaseLimits) } },
  }),
  async (c) => c.json(limitsOf(c.get("tenant")), 200),
);

deviceRoutes.openapi(
  tenantRoute({
    method: "patch",
    path: "/devices/lease-limits",
    tags: ["Devices"],
    summary: "Change what one till may lease",
    description: "Owners only (or the company's API key). Applies to the next lease.",
    middleware: [requireAuth, resolveTenant] as const,
    request: { body: { required: true, ...json(LeaseLimitsPatch) } },
    responses: { 200: { description: "Limits", ...json(LeaseLimits) }, 400: problemSchema("Out of bounds") },
  }),
  async (c) => {
    const { sharePercent, perDay } = c.req.valid("json");
    if (sharePercent === undefined && perDay === undefined) return c.json(limitsOf(c.get("tenant")), 200);
    const [row] = await database(c.env.DB)
      .update(companies)
      .set({
        ...(sharePercent === undefined ? {} : { deviceLeaseSharePercent: sharePercent }),
        ...(perDay === undefined ? {} : { deviceLeasesPerDay: perDay }),
      })
      .where(eq(companies.id, c.get("tenant").id))
      .returning();
    // The company comes with its key's lookup: the next request must read the new limits.
    forgetKeyLookups();
    return c.json(limitsOf(row!), 200);
  },
);
