import { Hono } from "hono";
import type { DocumentChecks } from "./checks.ts";
import type { SandboxConfig, SandboxContext, SandboxEnv } from "./context.ts";
import { ENVIRONMENTS, type Environment } from "./environments.ts";
import { faultMiddleware } from "./fault-middleware.ts";
import { FaultSet } from "./faults.ts";
import { aprobacionComercialRoutes } from "./routes/aprobacioncomercial.ts";
import { certificacionRoutes } from "./routes/certificacion.ts";
import { anulacionRangosRoutes } from "./routes/anulacionrangos.ts";
import { autenticacionRoutes } from "./routes/autenticacion.ts";
import { consultaDirectorioRoutes } from "./routes/consultadirectorio.ts";
import { consultaEstadoRoutes } from "./routes/consultaestado.ts";
import { consultaResultadoRoutes } from "./routes/consultaresultado.ts";
import { consultaRfceRoutes } from "./routes/consultarfce.ts";
import { consultaTrackIdsRoutes } from "./routes/consultatrackids.ts";
import { controlRoutes } from "./routes/control.ts";
import { mailRoutes, type MailSink } from "./mail-sink.ts";
import { emisorReceptorRoutes } from "./routes/emisorreceptor.ts";
import {
  DEFAULT_MAINTENANCE_WINDOWS,
  estatusServiciosRoutes,
  type MaintenanceWindow,
} from "./routes/estatusservicios.ts";
import { judge, recepcionRoutes } from "./routes/recepcion.ts";
import { recepcionFcRoutes } from "./routes/recepcionfc.ts";
import { requestLog } from "./request-log.ts";
import { sharedChecks } from "./shared-checks.ts";
import { createDemoSigner, type SandboxSigner } from "./signer.ts";
import { initSigners } from "./signers.ts";
import { SandboxState } from "./state.ts";
import { requireToken } from "./tokens.ts";
import { xmlAnswers } from "./xml-answers.ts";

export interface SandboxOptions extends Partial<SandboxConfig> {
  /** Validation and signature checks; the real ones from @ecf/shared unless a test swaps them. */
  checks?: DocumentChecks;
  /** Clock, for tests that need expiry without waiting. */
  now?: () => Date;
  maintenanceWindows?: MaintenanceWindow[];
  /** Identity for the documents the sandbox signs (ARECF); a self-signed one is made at first use. */
  signer?: SandboxSigner;
  /** The local SMTP sink whose messages GET /__mail shows (started by startSandbox with smtpPort). */
  mail?: MailSink;
  /** Where the sandbox keeps what it received across restarts (journal.jsonl); in memory only without it. */
  stateDir?: string;
  /** Authorized signers registered at start: RNC -> PEM certificates (as PUT /__sandbox/signers). */
  signers?: Record<string, string[]>;
  /**
   * LENIENT, not DGII: an RNC with no registered signer takes anyone's signature and token. Off by
   * default (every RNC is checked, as DGII checks it); only for a client that cannot register its signers.
   */
  lenientSigners?: boolean;
}

function lazySigner(given: SandboxSigner | undefined): () => Promise<SandboxSigner> {
  let signer: Promise<SandboxSigner> | undefined = given ? Promise.resolve(given) : undefined;
  return () => (signer ??= createDemoSigner());
}

export const DEFAULT_CONFIG: SandboxConfig = {
  processingMs: 300,
  tokenTtlMs: 60 * 60 * 1000,
  seedTtlMs: 5 * 60 * 1000,
};

/** Every DGII service of one environment, under /{env}; all but autenticacion need a token. */
function environmentRoutes(ctx: SandboxContext, env: Environment) {
  const app = new Hono<SandboxEnv>();
  app.use("*", requestLog(ctx, env));
  app.use("*", faultMiddleware(ctx));
  app.use("*", xmlAnswers());
  // The token check is attached to each service's own sub-app, so it covers exactly its paths.
  const guarded = (service: Hono<SandboxEnv>) =>
    new Hono<SandboxEnv>().use("*", requireToken(ctx, env)).route("/", service);
  app.route("/autenticacion", autenticacionRoutes(ctx, env));
  app.route("/recepcion", guarded(recepcionRoutes(ctx, env)));
  app.route("/consultaresultado", guarded(consultaResultadoRoutes(ctx, env)));
  app.route("/recepcionfc", guarded(recepcionFcRoutes(ctx, env)));
  app.route("/consultatrackids", guarded(consultaTrackIdsRoutes(ctx, env)));
  app.route("/consultaestado", guarded(consultaEstadoRoutes(ctx, env)));
  app.route("/aprobacioncomercial", guarded(aprobacionComercialRoutes(ctx, env)));
  app.route("/anulacionrangos", guarded(anulacionRangosRoutes(ctx, env)));
  app.route("/consultadirectorio", guarded(consultaDirectorioRoutes(ctx)));
  app.route("/consultarfce", guarded(consultaRfceRoutes(ctx, env)));
  // DGII runs its emisor-receptor simulator in pre-certification only.
  if (env === "testecf") app.route("/emisorreceptor", emisorReceptorRoutes(ctx, env));
  return app;
}

/**
 * The local stand-in for DGII's web services. It is a real HTTP server so the worker's DGII
 * client is exercised over the wire exactly as in production; only the host differs (the
 * ecf, fc and statusecf hosts are all served from this one origin).
 */
export function createSandboxApp(options: SandboxOptions = {}) {
  const ctx: SandboxContext = {
    state: SandboxState.open(options.stateDir),
    faults: new FaultSet(),
    checks: options.checks ?? sharedChecks,
    config: {
      processingMs: options.processingMs ?? DEFAULT_CONFIG.processingMs,
      tokenTtlMs: options.tokenTtlMs ?? DEFAULT_CONFIG.tokenTtlMs,
      seedTtlMs: options.seedTtlMs ?? DEFAULT_CONFIG.seedTtlMs,
    },
    now: options.now ?? (() => new Date()),
    signer: lazySigner(options.signer),
  };
  initSigners(ctx, options);
  // What a killed sandbox had received but not judged is judged now, as DGII would after a restart.
  for (const [trackId, xml] of ctx.state.unjudged) judge(ctx, ctx.state.receptions.get(trackId)!, xml);
  const windows = options.maintenanceWindows ?? DEFAULT_MAINTENANCE_WINDOWS;

  // DGII's services are case-insensitive (descripcion-tecnica, "Requerimientos Generales"), so
  // routes are matched on the lower-cased path.
  const app = new Hono<SandboxEnv>({ getPath: (request) => new URL(request.url).pathname.toLowerCase() });

  app.get("/", (c) =>
    c.json({
      service: "dgii-sandbox",
      description: "Local stand-in for DGII's e-CF web services",
      environments: ENVIRONMENTS,
    }),
  );
  for (const env of ENVIRONMENTS) app.route(`/${env}`, environmentRoutes(ctx, env));
  app.route(
    "/api/estatusservicios",
    estatusServiciosRoutes(ctx, () => windows),
  );
  // DGII's certification portal (Oficina Virtual): the postulación and the person's acts of each step.
  app.route("/portal/certificacion", certificacionRoutes(ctx));
  app.route("/__sandbox", controlRoutes(ctx));
  app.route("/__mail", mailRoutes(options.mail));

  app.notFound((c) => c.json({ title: "Not Found", status: 404, detail: `No DGII service at ${c.req.path}` }, 404));
  app.onError((error, c) => {
    if (error instanceof TypeError && error.message.startsWith("sandbox fault")) throw error;
    console.error(error);
    return c.json({ title: "Internal Server Error", status: 500, detail: String(error) }, 500);
  });
  return app;
}
