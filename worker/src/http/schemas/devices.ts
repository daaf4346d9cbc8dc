// Point-of-sale devices as the API shows them: registration and pairing, signing material, e-NCF
// leases, receipt uploads (one, or a batch) and their states.
import { z } from "@hono/zod-openapi";
import { POS_TIPOS } from "@ecf/shared";
import { MAX_BATCH_RECEIPTS } from "../../devices/batch-uploads.ts";
import { MAX_GIVEN_UP } from "../../devices/given-up.ts";
import { DEFAULT_LEASE_SIZE, MAX_LEASE_SIZE } from "../../devices/leases.ts";
import { ProblemSchema } from "../openapi.ts";
import { DgiiEnvironment } from "./common.ts";
import { IssueAnswer } from "../../answers/receipt-schema.ts";

export const NewDevice = z.object({ name: z.string().trim().min(1).max(60) }).openapi("NewDevice");

export const DeviceCreated = z
  .object({ id: z.string(), name: z.string(), pairingCode: z.string(), pairingExpiresAt: z.string(), note: z.string() })
  .openapi("DeviceCreated");

export const DeviceOut = z
  .object({
    id: z.string(),
    name: z.string(),
    status: z.enum(["waiting_pairing", "paired", "revoked"]),
    pairedAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
    lastSeenAt: z.string().nullable(),
    createdAt: z.string(),
    canEditPrices: z
      .boolean()
      .openapi({ description: "Whether the till may change prices locally (PATCH /devices/{id})" }),
    keyApproval: z.enum(["not_needed", "pending", "granted"]).openapi({
      description:
        "Whether the signing key may reach the till: `pending` for a till a manager registered until an owner approves it (POST /tills/{id}/approve), then `granted`; `not_needed` for one an owner or the administrator registered",
    }),
    keyHandedOverAt: z.string().nullable().openapi({ description: "When the till last received the signing key" }),
  })
  .openapi("Device");

export const LeaseOut = z
  .object({
    tipoeCF: z.string(),
    rangeFrom: z.number().int(),
    rangeTo: z.number().int(),
    expiresOn: z.string(),
    firstEncf: z.string(),
    lastEncf: z.string(),
  })
  .openapi("DeviceLease");

export const CompanyForDevice = z
  .object({
    id: z.string(),
    registryNumber: z.string(),
    name: z.string(),
    tradeName: z.string().nullable(),
    address: z.string().nullable(),
    province: z.string().nullable(),
    municipality: z.string().nullable(),
    dgiiServer: DgiiEnvironment,
  })
  .openapi("DeviceCompany");

export const SigningMaterial = z
  .object({
    algorithm: z.literal("RSA-OAEP-256+A256GCM"),
    wrappedKey: z.string().openapi({
      description: "A fresh AES-256 key, encrypted with RSA-OAEP (SHA-256) to the till's publicKey, base64",
    }),
    iv: z.string().openapi({ description: "The AES-GCM nonce (12 bytes), base64" }),
    wrappedPkcs8: z.string().openapi({
      description:
        "The issuer's private key (PKCS#8 DER) encrypted with AES-GCM under that key, tag appended, base64: unwrap it (WebCrypto unwrapKey) into a non-extractable signing key",
    }),
    certificate: z.string().openapi({ description: "The certificate, DER in base64" }),
    certificateSerial: z.string().nullable(),
    signatureExpirationDate: z.string().nullable(),
  })
  .openapi("SigningMaterial");

export const Paired = z
  .object({
    device: DeviceOut,
    token: z.string(),
    company: CompanyForDevice,
    // Null when no publicKey was sent, or an owner has yet to approve a till a manager registered.
    signing: z.union([SigningMaterial, z.null()]),
    leases: z.array(LeaseOut),
  })
  .openapi("DevicePaired");

export const DeviceStatus = z
  .object({
    device: DeviceOut,
    company: CompanyForDevice,
    certificateSerial: z.string().nullable(),
    certificateSha256: z
      .string()
      .nullable()
      .openapi({
        description:
          "SHA-256 (hex) of the issuer's current certificate (DER). certificateSerial names the holder and stays the " +
          "same across a renewal; this changes with every certificate, so a till whose key's certificate differs " +
          "asks for a new key.",
      }),
    signatureExpirationDate: z.string().nullable(),
    leases: z.array(LeaseOut),
  })
  .openapi("DeviceStatus");

export const LeaseRequest = z
  .object({ tipoeCF: z.enum(POS_TIPOS), size: z.number().int().min(1).max(MAX_LEASE_SIZE).default(DEFAULT_LEASE_SIZE) })
  .openapi("LeaseRequest");

export const ReceiptUpload = z.object({ xml: z.string().min(1) }).openapi("DeviceReceiptUpload");

export const ReceiptBatch = z
  .object({
    // Any string: an unreadable receipt is that receipt's own problem, not the batch's.
    receipts: z
      .array(z.object({ xml: z.string() }))
      .min(1)
      .max(MAX_BATCH_RECEIPTS)
      .openapi({ description: `Up to ${MAX_BATCH_RECEIPTS} signed receipts, in the order the till signed them` }),
  })
  .openapi("DeviceReceiptBatch");

export const BatchResult = z
  .object({
    encf: z.string().nullable(),
    status: z.number().int().openapi({
      description:
        "What POST /devices/receipts would have answered for this receipt alone: 200 with `answer`, else `problem` (409 e-NCF used by another document, 422 refused, 403 another issuer's; 500: not recorded, send it again)",
    }),
    replayed: z.boolean().openapi({
      description: "The receipt was held already (a retry): its answer as it stands, nothing recorded twice",
    }),
    answer: IssueAnswer.optional(),
    problem: ProblemSchema.optional(),
  })
  .openapi("DeviceReceiptBatchResult");

export const BatchAnswer = z
  .object({ results: z.array(BatchResult).openapi({ description: "One per receipt, in the order sent" }) })
  .openapi("DeviceReceiptBatchAnswer");

/** How many receipts one state query names. */
export const MAX_STATE_QUERY = 100;

export const StateQuery = z.object({
  encf: z
    .string()
    .regex(/^E\d{12}(,E\d{12})*$/)
    .refine((list) => list.split(",").length <= MAX_STATE_QUERY, `At most ${MAX_STATE_QUERY} e-NCF.`)
    .openapi({
      param: { name: "encf", in: "query" },
      description: `Comma-separated e-NCF, at most ${MAX_STATE_QUERY}`,
      example: "E320000000001,E320000000002",
    }),
});

export const DeviceList = z.object({ devices: z.array(DeviceOut) }).openapi("DeviceList");
const TillPublicKey = z.string().min(1).max(2000).openapi({
  description:
    "The till's own RSA-OAEP (SHA-256) public key, SPKI DER in base64, at least 2048 bits: the signing key travels wrapped to it. Generate the pair non-extractable, usable only to unwrap.",
});
export const PairingRequest = z
  .object({ pairingCode: z.string().min(1).max(20), publicKey: TillPublicKey.optional() })
  .openapi("PairingRequest");
export const SigningRequest = z
  .object({
    pairingCode: z.string().min(1).max(20).optional().openapi({
      description:
        "A re-key code (POST /tills/{id}/pairing-code); left out for the first key after an owner's approval",
    }),
  })
  .openapi("SigningRequest");
/** A device gets the same receipt answer as the API. */
export const DeviceReceiptStates = z.object({ receipts: z.array(IssueAnswer) }).openapi("DeviceReceiptStates");

const GivenUpNumber = z.object({
  tipoeCF: z.enum(POS_TIPOS),
  encf: z
    .string()
    .regex(/^E\d{12}$/)
    .openapi({ example: "E320000000007" }),
});

export const GivenUpNumbers = z
  .object({
    numbers: z
      .array(GivenUpNumber)
      .min(1)
      .max(MAX_GIVEN_UP)
      .openapi({ description: `Up to ${MAX_GIVEN_UP} numbers the till took from its leases and will never sign` }),
  })
  .superRefine((body, ctx) => {
    // A malformed e-NCF was already told (zod checks refinements even then).
    for (const [i, n] of body.numbers.entries())
      if (/^E\d{12}$/.test(n.encf) && n.encf.slice(1, 3) !== n.tipoeCF)
        ctx.addIssue({ code: "custom", path: ["numbers", i, "encf"], message: `Not an e-NCF of type ${n.tipoeCF}.` });
  })
  .openapi("GivenUpNumbers");

export const GivenUpResult = GivenUpNumber.extend({
  anulado: z.boolean().openapi({ description: "DGII voided the number (an ANECF), now or before" }),
  replayed: z.boolean().openapi({ description: "It was voided before this request: nothing was sent to DGII" }),
  error: z.object({ code: z.string(), message: z.string() }).optional().openapi({
    description:
      "Why it was not voided: encf_not_leased (not in this device's leases) and encf_used (it holds a receipt, or DGII counts it as used) are final; without `error`, send it again",
  }),
  proposed: z.boolean().optional().openapi({
    description:
      "Kept as a proposal: no ANECF leaves until an owner or accountant confirms it (POST /devices/given-up-proposals/confirm); send it again later to learn the outcome",
  }),
}).openapi("GivenUpResult");

export const GivenUpProposalOut = z
  .object({
    id: z.string(),
    deviceId: z.string(),
    tipoeCF: z.string(),
    encf: z.string(),
    proposedAt: z.string(),
  })
  .openapi("GivenUpProposal");
export const GivenUpProposalList = z.object({ proposals: z.array(GivenUpProposalOut) }).openapi("GivenUpProposalList");
export const ConfirmProposals = z
  .object({ ids: z.array(z.string().min(1).max(40)).min(1).max(MAX_GIVEN_UP) })
  .openapi("ConfirmGivenUpProposals");
export const ConfirmAnswer = z
  .object({
    results: z
      .array(GivenUpResult.extend({ id: z.string() }))
      .openapi({ description: "One per proposal found, voided (`anulado`), refused (`error`) or still proposed" }),
  })
  .openapi("ConfirmGivenUpAnswer");

export const GivenUpAnswer = z
  .object({ results: z.array(GivenUpResult).openapi({ description: "One per number, in the order sent" }) })
  .openapi("GivenUpAnswer");

export const LeaseLimits = z
  .object({
    sharePercent: z.number().int().min(1).max(50).openapi({
      description: "A till's lease takes at most this share (%) of the numbers left in a range (default 25)",
    }),
    perDay: z
      .number()
      .int()
      .min(1)
      .max(500)
      .openapi({ description: "A till takes at most this many leases of one type a day (default 20)" }),
  })
  .openapi("DeviceLeaseLimits");
export const LeaseLimitsPatch = LeaseLimits.partial().openapi("DeviceLeaseLimitsPatch");
