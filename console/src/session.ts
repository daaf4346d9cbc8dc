// The console session (contract: /console/*): who is logged in, for which company, in which role.
import type { components } from "@ecf/client";
import { api, setCsrfToken } from "./api.ts";

export type Role = "owner" | "accountant" | "manager";

/** A session with a current company (a user without one has nothing to see in the console). */
export type Session = components["schemas"]["ConsoleSession"] & { role: Role };
type AnySession = components["schemas"]["ConsoleSession"];

export type Invitation = components["schemas"]["ConsoleInvitationView"];

export const ROLE_NOMBRE: Record<Role, string> = {
  owner: "Dueño",
  accountant: "Contador",
  manager: "Encargado de tienda",
};

/** Takes the session's CSRF token for the requests that follow; refuses a session with no company. */
function adopt(session: AnySession | undefined): Session {
  if (!session) throw new Error("La sesión no llegó.");
  setCsrfToken(session.csrfToken);
  if (!session.role || !session.company)
    throw new Error("Este usuario no pertenece a ninguna empresa: pida una invitación al dueño.");
  return session as Session;
}

/** The current session, or null when nobody is logged in (401). */
export async function currentSession(): Promise<Session | null> {
  try {
    return adopt((await api.GET("/console/session")).data);
  } catch (error) {
    if ((error as { status?: number }).status === 401) return null;
    throw error;
  }
}

/** `code`: the one e-mailed after the sign-ins from here were throttled; `totp`: the authenticator app's. */
export async function login(email: string, password: string, code?: string, totp?: string): Promise<Session> {
  const body = { email, password, ...(code ? { code } : {}), ...(totp ? { totp } : {}) };
  return adopt((await api.POST("/console/login", { body })).data);
}

export async function logout(): Promise<void> {
  await api.POST("/console/logout");
  setCsrfToken(undefined);
}

export async function switchCompany(rnc: string): Promise<Session> {
  return adopt((await api.POST("/console/session/company", { body: { rnc } })).data);
}

export async function readInvitation(token: string): Promise<Invitation> {
  return (await api.GET("/console/invitations/{token}", { params: { path: { token } } })).data!;
}

/** `totp`: an existing user's authenticator app code, when two-step verification is on. */
export async function acceptInvitation(
  token: string,
  password: string,
  name?: string,
  totp?: string,
): Promise<Session> {
  const body = { password, ...(name ? { name } : {}), ...(totp ? { totp } : {}) };
  return adopt((await api.POST("/console/invitations/{token}/accept", { params: { path: { token } }, body })).data);
}

/** Whether `role` may change what a page shows (the contract's role table; the API enforces it). */
export function may(role: Role, area: "issue" | "purchases" | "monthly" | "store" | "settings"): boolean {
  if (role === "owner") return true;
  if (role === "accountant") return area === "issue" || area === "purchases" || area === "monthly";
  return area === "store";
}
