// What each console role may do, in one table: the first rule whose pattern matches the path
// decides, reads (GET, HEAD) and writes apart; a path no rule names is the owner's to change and
// the owner's and the accountant's to read. API keys are not subject to it (a key acts as the
// company itself); only a console session carries a role.
import type { ConsoleRole } from "../db/console-tables.ts";
import { ApiProblem } from "../errors/problem.ts";

interface Rule {
  pattern: RegExp;
  read: readonly ConsoleRole[];
  write: readonly ConsoleRole[];
}

const ALL: readonly ConsoleRole[] = ["owner", "accountant", "manager"];
const BOOKS: readonly ConsoleRole[] = ["owner", "accountant"];
const STORE: readonly ConsoleRole[] = ["owner", "manager"];

// biome-ignore format: one rule per line
export const ROLE_RULES: readonly Rule[] = [
  // The console's own people: invitations and users.
  { pattern: /^\/console\/(users|invitations)(\/|$)/, read: ["owner"], write: ["owner"] },
  // The DGII certification run: the owner's alone (the representative signs its documents).
  { pattern: /^\/company\/certification(\/|$)/, read: ["owner"], write: ["owner"] },
  // The company's API keys: only the owner sees or makes them.
  { pattern: /^\/company\/api-keys(\/|$)/, read: ["owner"], write: ["owner"] },
  // Issuing and receipts: issue, resend the e-mail; void unused numbers.
  { pattern: /^\/fe\/recepcion\/ecf(\/|$)/, read: ALL, write: BOOKS },
  { pattern: /^\/fe\/anulacion$/, read: BOOKS, write: BOOKS },
  // Purchases (approve, classify, override), a sale's 607 data, the month's files and archive.
  { pattern: /^\/(compras|proveedores|ventas|archive)(\/|$)/, read: BOOKS, write: BOOKS },
  // Buyers' crédito fiscal requests: the books' people decide them.
  { pattern: /^\/credito-fiscal(\/|$)/, read: BOOKS, write: BOOKS },
  // Reports, shifts' Z reports among them.
  { pattern: /^\/reports\//, read: ALL, write: BOOKS },
  // Voiding numbers a till gave up is the books' act, as /fe/anulacion is.
  { pattern: /^\/devices\/given-up-proposals(\/|$)/, read: BOOKS, write: BOOKS },
  // What one till may lease is the owner's setting.
  { pattern: /^\/devices\/lease-limits$/, read: ALL, write: ["owner"] },
  // The signing key reaches a manager's till only with an owner's consent.
  { pattern: /^\/tills\/[^/]+\/approve$/, read: ["owner"], write: ["owner"] },
  // The store: products (and their CSV import), cashiers, tills.
  { pattern: /^\/(products|cashiers|devices|tills)(\/|$)/, read: ALL, write: STORE },
];
const OTHERWISE: Omit<Rule, "pattern"> = { read: BOOKS, write: ["owner"] };

/** The roles that may make this request. */
export function rolesAllowed(method: string, path: string): readonly ConsoleRole[] {
  const rule = ROLE_RULES.find((r) => r.pattern.test(path)) ?? OTHERWISE;
  return method === "GET" || method === "HEAD" ? rule.read : rule.write;
}

/** Refuses a console user whose role in the current company does not allow the request. */
export function requireRole(role: ConsoleRole, method: string, path: string): void {
  const allowed = rolesAllowed(method, path);
  if (allowed.includes(role)) return;
  throw new ApiProblem("forbidden", {
    detail: `${method} ${path} needs the role ${allowed.join(" or ")} in this company; this user is ${role}.`,
  });
}
