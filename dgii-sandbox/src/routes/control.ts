// /__sandbox: the test-facing controls (faults, what was received, timing). Not part of DGII.
import { Hono } from "hono";
import { certificatesOfPem, fingerprintOfDer, listSigners, setSigners } from "../signers.ts";
import { queryParam, type SandboxContext, type SandboxEnv } from "../context.ts";
import { parseFault } from "../faults.ts";
import { sameEncf } from "../state.ts";
import { certificacionControlRoutes } from "./certificacion.ts";
import { parseDirectory } from "./consultadirectorio.ts";
import { publicOutcome } from "./consultaresultado.ts";
import { emisorRoutes } from "./emisor.ts";

export function controlRoutes(ctx: SandboxContext) {
  const app = new Hono<SandboxEnv>();

  app.get("/faults", (c) => c.json(ctx.faults.list()));

  app.post("/faults", async (c) => {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return c.json({ error: "body must be JSON" }, 400);
    }
    const fault = parseFault(body);
    if (typeof fault === "string") return c.json({ error: fault }, 400);
    ctx.faults.set(fault);
    return c.json({ active: ctx.faults.list() });
  });

  app.delete("/faults", (c) => {
    ctx.faults.clear();
    return c.json({ active: [] });
  });

  app.get("/received", (c) => {
    const rnc = queryParam(c, "rnc");
    const encf = queryParam(c, "encf");
    const kind = queryParam(c, "kind");
    const env = queryParam(c, "env");
    const entries = ctx.state.received
      .filter(
        (entry) =>
          (!rnc || entry.rnc === rnc) &&
          (!encf || (entry.encf !== null && sameEncf(entry.encf, encf))) &&
          (!kind || entry.kind === kind.toLowerCase()) &&
          (!env || entry.env === env.toLowerCase()),
      )
      .map((entry) => ({
        kind: entry.kind,
        env: entry.env,
        rnc: entry.rnc,
        encf: entry.encf,
        trackId: entry.trackId,
        fileName: entry.fileName,
        outcome: entry.kind === "ecf" && entry.trackId ? acceptedOutcome(ctx, entry.trackId) : entry.outcome,
        receivedAt: entry.receivedAt.toISOString(),
      }));
    return c.json(entries);
  });

  app.delete("/received", (c) => {
    ctx.state.record({ t: "clear-received" });
    return c.json({ cleared: true });
  });

  app.get("/requests", (c) => {
    const service = queryParam(c, "service")?.toLowerCase();
    return c.json(service ? ctx.state.requests.filter((r) => r.service === service) : ctx.state.requests);
  });

  app.delete("/requests", (c) => {
    ctx.state.requests.length = 0;
    return c.json({ cleared: true });
  });

  app.get("/config", (c) => c.json(ctx.config));

  app.put("/config", async (c) => {
    const body = (await c.req.json().catch(() => null)) as Record<string, unknown> | null;
    if (!body || typeof body !== "object") return c.json({ error: "body must be a JSON object" }, 400);
    for (const key of ["processingMs", "tokenTtlMs", "seedTtlMs"] as const) {
      const value = body[key];
      if (value === undefined) continue;
      if (typeof value !== "number" || !Number.isInteger(value) || value < 0)
        return c.json({ error: `${key} must be a non-negative integer` }, 400);
      ctx.config[key] = value;
    }
    return c.json(ctx.config);
  });

  app.get("/directory", (c) => c.json(ctx.state.directory));

  app.put("/directory", async (c) => {
    const directory = parseDirectory(await c.req.json().catch(() => null));
    if (typeof directory === "string") return c.json({ error: directory }, 400);
    ctx.state.record({ t: "directory", directory });
    return c.json(directory);
  });

  // The buyer the emisor-receptor simulator plays: { estado: "0" | "1", motivo?: "1".."4", requireAuth?: boolean }.
  app.get("/signers", (c) => c.json(listSigners(ctx)));

  // { rnc, certificates: [PEM, …] }: who may sign for that RNC from now on ([]: no one).
  app.put("/signers", async (c) => {
    const body = (await c.req.json().catch(() => null)) as { rnc?: unknown; certificates?: unknown } | null;
    const rnc = typeof body?.rnc === "string" && /^(\d{9}|\d{11})$/.test(body.rnc) ? body.rnc : undefined;
    const pems =
      Array.isArray(body?.certificates) && body.certificates.every((p) => typeof p === "string")
        ? (body.certificates as string[])
        : undefined;
    if (!rnc || !pems)
      return c.json({ error: "Send { rnc: '9 or 11 digits', certificates: ['-----BEGIN CERTIFICATE-----…'] }" }, 400);
    const ders = pems.map(certificatesOfPem);
    if (ders.some((d) => !d?.length))
      return c.json({ error: "Every entry of certificates must be a PEM certificate" }, 400);
    setSigners(
      ctx,
      rnc,
      ders.flatMap((d) => d!.map(fingerprintOfDer)),
    );
    return c.json({ rnc, signers: listSigners(ctx)[rnc] ?? [] });
  });

  app.get("/buyer", (c) => c.json(ctx.state.buyer));
  app.put("/buyer", async (c) => {
    const body = (await c.req.json().catch(() => null)) as Record<string, unknown> | null;
    if (!body || typeof body !== "object") return c.json({ error: "body must be a JSON object" }, 400);
    const { estado, motivo, requireAuth } = body;
    if (estado !== undefined && estado !== "0" && estado !== "1")
      return c.json({ error: 'estado must be "0" or "1"' }, 400);
    if (estado === "1" && !["1", "2", "3", "4"].includes(String(motivo)))
      return c.json({ error: 'estado "1" needs motivo "1" to "4"' }, 400);
    if (requireAuth !== undefined && typeof requireAuth !== "boolean")
      return c.json({ error: "requireAuth must be a boolean" }, 400);
    ctx.state.record({
      t: "buyer",
      buyer: {
        ...(estado ? { estado } : {}),
        ...(estado === "1" ? { motivo: String(motivo) as "1" | "2" | "3" | "4" } : {}),
        ...(requireAuth !== undefined ? { requireAuth } : {}),
      },
    });
    return c.json(ctx.state.buyer);
  });
  app.delete("/buyer", (c) => {
    ctx.state.record({ t: "buyer", buyer: {} });
    return c.body(null, 204);
  });

  app.route("/emisor", emisorRoutes(ctx));
  app.route("/certificacion", certificacionControlRoutes(ctx));

  return app;
}

/** An accepted e-CF's entry moves from En Proceso to its final state: read from its reception when listed. */
function acceptedOutcome(ctx: SandboxContext, trackId: string): unknown {
  const reception = ctx.state.receptions.get(trackId);
  return reception ? publicOutcome(ctx, reception) : null;
}
