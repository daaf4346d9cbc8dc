// XSD validation in batches. Each libxml2 run (xmllint-wasm) starts a Worker and compiles the
// schema, which costs far more than validating one document; under load, documents of one kind
// that arrive while a run is in flight are validated together in the next run.
import type { DocumentKind } from "@ecf/shared";
import { validateXsdMany, type XsdValidationResult } from "@ecf/shared/xml/xsd-validate";

interface Pending {
  xml: string;
  resolve: (result: XsdValidationResult) => void;
  reject: (error: unknown) => void;
}

/** At most this many documents per libxml2 run, so one run never grows unbounded. */
const MAX_BATCH = 50;

export class XsdBatcher {
  private readonly queues = new Map<DocumentKind, Pending[]>();
  private readonly running = new Set<DocumentKind>();

  constructor(private readonly validateMany: typeof validateXsdMany = validateXsdMany) {}

  validate(xml: string, kind: DocumentKind): Promise<XsdValidationResult> {
    return new Promise((resolve, reject) => {
      const queue = this.queues.get(kind) ?? [];
      queue.push({ xml, resolve, reject });
      this.queues.set(kind, queue);
      if (!this.running.has(kind)) void this.run(kind);
    });
  }

  private async run(kind: DocumentKind): Promise<void> {
    this.running.add(kind);
    try {
      for (;;) {
        const queue = this.queues.get(kind) ?? [];
        if (queue.length === 0) return;
        const batch = queue.splice(0, MAX_BATCH);
        try {
          const results = await this.validateMany(
            batch.map((p) => p.xml),
            kind,
            { requireSignature: true },
          );
          batch.forEach((pending, i) => pending.resolve(results[i]!));
        } catch (error) {
          for (const pending of batch) pending.reject(error);
        }
      }
    } finally {
      this.running.delete(kind);
    }
  }
}
