// The till-administration paths moved to /tills/{id}/…; the old /devices/{id}/… ones answer the
// same for one release (CHANGELOG.md) and are not in the OpenAPI document.
import { describe, expect, it } from "vitest";
import { call } from "./support/http.ts";
import { admin, authed, companyWithToken } from "./support/accounts.ts";

async function tillOfNewCompany() {
  const { company, token } = await companyWithToken();
  const till = await admin<{ id: string }>("POST", `/admin/companies/${company.id}/devices`, { name: "Caja 1" });
  return { token, till };
}

describe("the till-administration paths before /tills", () => {
  it("POST /devices/{id}/revoke revokes as POST /tills/{id}/revoke does", async () => {
    const { token, till } = await tillOfNewCompany();
    const res = await call(`/devices/${till.id}/revoke`, { method: "POST", headers: authed(token) });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: till.id, status: "revoked" });
    const list = (await (await call("/devices", { headers: authed(token) })).json()) as {
      devices: { id: string; status: string }[];
    };
    expect(list.devices.find((d) => d.id === till.id)?.status).toBe("revoked");
  });

  it("POST /devices/{id}/pairing-code answers what POST /tills/{id}/pairing-code answers", async () => {
    const { token, till } = await tillOfNewCompany();
    // Not paired yet: both refuse it with the same problem, not the route-not-found one.
    const current = await call(`/tills/${till.id}/pairing-code`, { method: "POST", headers: authed(token) });
    const old = await call(`/devices/${till.id}/pairing-code`, { method: "POST", headers: authed(token) });
    const unknown = await call(`/devices/${till.id}/no-such-action`, { method: "POST", headers: authed(token) });
    expect(old.status).toBe(current.status);
    const problem = async (res: Response) => {
      const { code, detail } = (await res.json()) as { code: string; detail: string };
      return { code, detail };
    };
    const refused = await problem(current);
    expect(await problem(old)).toEqual(refused);
    expect((await problem(unknown)).detail).not.toBe(refused.detail);
  });

  it("the document names the new paths only", async () => {
    const doc = (await (await call("/openapi.json")).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/tills/{id}/pairing-code", "/tills/{id}/revoke"]));
    expect(Object.keys(doc.paths).filter((p) => /^\/devices\/\{[^}]+\}\/(pairing-code|revoke)$/.test(p))).toEqual([]);
  });
});
