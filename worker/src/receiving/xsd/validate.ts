// XSD validation of received documents against DGII's official schemas (libxml2 in-process, see
// engine.ts), batched as the DGII sandbox does (dgii-sandbox/src/xsd-batcher.ts): each libxml2
// run instantiates the module and compiles the schema, which costs far more than validating one
// document, so documents of one kind that arrive while a run is in flight in this isolate are
// validated together in the next run.
import { validateXsdMany, type DocumentKind, type XsdValidationResult } from "@ecf/shared";
import { validateXmlInProcess } from "./engine.ts";

interface Pending {
  xml: string;
  resolve: (result: XsdValidationResult) => void;
  reject: (error: unknown) => void;
}

/** At most this many documents per libxml2 run (≤ 1 MiB each), so one run never grows unbounded. */
const MAX_BATCH = 16;

const queues = new Map<DocumentKind, Pending[]>();
const running = new Set<DocumentKind>();

async function drain(kind: DocumentKind): Promise<void> {
  running.add(kind);
  try {
    for (;;) {
      const batch = (queues.get(kind) ?? []).splice(0, MAX_BATCH);
      if (batch.length === 0) return;
      try {
        const results = await validateXsdMany(
          batch.map((p) => p.xml),
          kind,
          { requireSignature: false, engine: validateXmlInProcess },
        );
        batch.forEach((pending, i) => pending.resolve(results[i]!));
      } catch (error) {
        for (const pending of batch) pending.reject(error);
      }
    }
  } finally {
    running.delete(kind);
  }
}

/** Validates a document of `kind` against its official XSD; the Signature is judged by verifyXml. */
export function validateReceivedXsd(xml: string, kind: DocumentKind): Promise<XsdValidationResult> {
  return new Promise((resolve, reject) => {
    const queue = queues.get(kind) ?? [];
    queue.push({ xml, resolve, reject });
    queues.set(kind, queue);
    if (!running.has(kind)) void drain(kind);
  });
}
