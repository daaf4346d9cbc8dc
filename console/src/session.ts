// The console session (contract: /console/*): who is logged in, for which company, in which role.
import { callJson, setCsrfToken } from "./api.ts";

export type Role = "owner" | "accountant" | "manager";

export interface Session {
  user: { id: string; email: string; name: string | null };
  company: { rnc: string; razonSocial: string } | null;
  role: Role;
  companies: { rnc: string; razonSocial: string; role: Role }[];
  csrfToken: string;
}

export interface Invitation {
  email: string;
  role: Role;
  company: { rnc: string; razonSocial: string };
}

export const ROLE_NOMBRE: Record<Role, string> = {
  owner: "Dueño",
  accountant: "Contador",
  manager: "Encargado de tienda",
};

function adopt(session: Session): Session {
  setCsrfToken(session.csrfToken);
  return session;
}

/** The current session, or null when nobody is logged in (401). */
export async function currentSession(): Promise<Session | null> {
  try {
    return adopt(await callJson<Session>("GET", "/console/session"));
  } catch (error) {
    if ((error as { status?: number }).status === 401) return null;
    throw error;
  }
}

export async function login(email: string, password: string): Promise<Session> {
  return adopt(await callJson<Session>("POST", "/console/login", { email, password }));
}

export async function logout(): Promise<void> {
  await callJson<void>("POST", "/console/logout");
  setCsrfToken(undefined);
}

export async function switchCompany(rnc: string): Promise<Session> {
  return adopt(await callJson<Session>("POST", "/console/session/company", { rnc }));
}

export function readInvitation(token: string): Promise<Invitation> {
  return callJson<Invitation>("GET", `/console/invitations/${encodeURIComponent(token)}`);
}

export async function acceptInvitation(token: string, password: string, name?: string): Promise<Session> {
  const body = name ? { password, name } : { password };
  return adopt(await callJson<Session>("POST", `/console/invitations/${encodeURIComponent(token)}/accept`, body));
}

/** Whether `role` may change what a page shows (the contract's role table; the API enforces it). */
export function may(role: Role, area: "issue" | "purchases" | "monthly" | "store" | "settings"): boolean {
  if (role === "owner") return true;
  if (role === "accountant") return area === "issue" || area === "purchases" || area === "monthly";
  return area === "store";
}
