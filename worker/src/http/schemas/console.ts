// The console's people and sessions, as the console's contract fixed them: sign-in, the session,
// invitations and the company's users.
import { z } from "@hono/zod-openapi";
import { CONSOLE_ROLES } from "../../db/console-tables.ts";

const Email = z.string().trim().min(3).max(254).email().openapi({ example: "dueno@demo.do" });
const Role = z.enum(CONSOLE_ROLES).openapi({
  description:
    "owner: everything; accountant: issuing, receipts, purchases, monthly files, reports, reads the rest; " +
    "manager: products, cashiers, tills, shifts and Z reports, reads receipts and reports",
});
const Password = z.string().min(10).max(200).openapi({ description: "At least 10 characters" });
const Name = z.string().trim().min(1).max(120);
const TotpCode = z
  .string()
  .trim()
  .regex(/^\d{3} ?\d{3}$/)
  .openapi({ description: "Six digits (a space in the middle allowed, as apps show them)", example: "287082" });

export const ConsoleLoginBody = z
  .object({
    email: Email,
    password: z.string().min(1).max(200),
    code: z.string().min(1).max(12).optional().openapi({
      description: "The six-digit code e-mailed after the sign-ins from here were throttled",
    }),
    totp: TotpCode.optional().openapi({
      description: "The authenticator app's current six-digit code, for a user with two-step verification on",
    }),
  })
  .openapi("ConsoleLoginRequest");

const CompanyRef = z.object({ rnc: z.string(), razonSocial: z.string() });

export const ConsoleSession = z
  .object({
    user: z.object({ id: z.string(), email: z.string(), name: z.string() }),
    company: CompanyRef.nullable().openapi({ description: "The company the console acts for now" }),
    role: Role.nullable().openapi({ description: "The user's role in the current company" }),
    companies: z.array(CompanyRef.extend({ role: Role })),
    csrfToken: z.string().openapi({ description: "Send it as X-CSRF-Token on every request that is not GET or HEAD" }),
  })
  .openapi("ConsoleSession");

export const SwitchCompanyBody = z
  .object({
    rnc: z
      .string()
      .regex(/^(\d{9}|\d{11})$/)
      .openapi({ example: "131880681" }),
  })
  .openapi("ConsoleSwitchCompanyRequest");

export const InvitationBody = z
  .object({ email: Email, role: Role, name: Name.optional() })
  .openapi("ConsoleInvitationRequest");

export const InvitationCreated = z
  .object({
    id: z.string(),
    email: z.string(),
    role: Role,
    expiresAt: z.string().openapi({ description: "ISO 8601, UTC: 7 days after it was made" }),
    emailSent: z.boolean().openapi({ description: "false when no mail server is configured or it refused the e-mail" }),
  })
  .openapi("ConsoleInvitation");

export const PendingInvitation = z
  .object({
    id: z.string(),
    email: z.string(),
    name: z.string().nullable(),
    role: Role,
    expiresAt: z.string(),
    createdAt: z.string(),
  })
  .openapi("ConsolePendingInvitation");

export const PendingInvitationList = z
  .object({ items: z.array(PendingInvitation) })
  .openapi("ConsolePendingInvitationList");

export const InvitationView = z
  .object({ email: z.string(), role: Role, company: CompanyRef })
  .openapi("ConsoleInvitationView");

export const AcceptInvitationBody = z
  .object({
    password: Password,
    name: Name.optional(),
    totp: TotpCode.optional().openapi({
      description: "An existing user with two-step verification on: the authenticator app's current code",
    }),
  })
  .openapi("ConsoleAcceptInvitationRequest");

export const InvitationToken = z.object({
  token: z
    .string()
    .min(10)
    .max(100)
    .openapi({ param: { name: "token", in: "path" } }),
});

const ConsoleUser = z
  .object({ id: z.string(), email: z.string(), name: z.string(), role: Role })
  .openapi("ConsoleUser");
export const ConsoleUserList = z.object({ items: z.array(ConsoleUser) }).openapi("ConsoleUserList");
export const ConsoleUserOut = ConsoleUser;
export const RoleBody = z.object({ role: Role }).openapi("ConsoleRoleChange");
export const UserId = z.object({
  id: z
    .string()
    .min(1)
    .max(60)
    .openapi({ param: { name: "id", in: "path" } }),
});

export const TotpStatus = z
  .object({
    status: z.enum(["off", "pending", "active"]).openapi({
      description:
        "off: sign-in takes the password only; pending: a secret was given but no code confirmed it yet; active: sign-in also takes the app's code",
    }),
    mayEnrol: z.boolean().openapi({
      description: "Whether the user's role in the current company (owner, accountant) lets it turn it on",
    }),
  })
  .openapi("ConsoleTotpStatus");

export const TotpEnrolment = z
  .object({
    secret: z.string().openapi({
      description: "The secret in base32 (RFC 4648, no padding), to type into the app; shown this once",
      example: "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP",
    }),
    otpauthUri: z.string().openapi({
      description: "The same secret as an otpauth:// URI (issuer ecf-edge, the user's e-mail), for a QR code",
      example:
        "otpauth://totp/ecf-edge:dueno%40demo.do?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=ecf-edge&algorithm=SHA1&digits=6&period=30",
    }),
  })
  .openapi("ConsoleTotpEnrolment");

export const TotpConfirmBody = z
  .object({ code: TotpCode.openapi({ description: "The app's current six-digit code" }) })
  .openapi("ConsoleTotpConfirmRequest");

export const TotpDisableBody = z
  .object({
    code: TotpCode.optional().openapi({ description: "The app's current six-digit code" }),
    password: z.string().min(1).max(200).optional().openapi({ description: "Or the user's password" }),
  })
  .openapi("ConsoleTotpDisableRequest");
