/** One message from DGII: its code (when it gives one) and its text. */
export interface DgiiMessage {
  codigo: string | null;
  valor: string;
}

/**
 * Answers by which DGII (or the gateway in front of it) says it did not take the request: 503
 * Service Unavailable, 429 Too Many Requests, 408 Request Timeout (the body was not read). Any other
 * 5xx (500, 502, 504) may come after the document was recorded, so it proves nothing.
 */
const NOT_TAKEN_STATUSES: ReadonlySet<number> = new Set([408, 429, 503]);

/**
 * Every way a DGII call can fail, in one type. `unreachable` and `timeout` mean DGII may or may not
 * have seen the request (contingency); `http` means DGII answered with an error. `beforeSending`:
 * the failure came before the document itself went out (its token could not be had).
 */
export class DgiiError extends Error {
  constructor(
    readonly kind: "unreachable" | "timeout" | "http",
    readonly status: number | null,
    readonly mensajes: DgiiMessage[],
    message: string,
    readonly beforeSending = false,
  ) {
    super(message);
    this.name = "DgiiError";
  }

  /** DGII is down for practical purposes: retry later, the receipt stays in contingency. */
  get isUnavailable(): boolean {
    return this.kind !== "http" || (this.status !== null && (this.status >= 500 || this.status === 429));
  }

  /**
   * Whether DGII may have recorded what this failed call sent: true when there was no answer
   * (timeout, reset, a torn response) or an answer that does not say the request was refused;
   * false when the call never left or DGII answered that it did not take it. Only the first kind
   * of failed send must be looked up at DGII before the document is sent again.
   */
  get mayHaveBeenRecorded(): boolean {
    if (this.beforeSending) return false;
    return this.kind !== "http" || this.status === null || !NOT_TAKEN_STATUSES.has(this.status);
  }

  /** The same failure, marked as one that happened before the document was sent. */
  static beforeSending(error: DgiiError): DgiiError {
    return new DgiiError(error.kind, error.status, error.mensajes, error.message, true);
  }
}

const stripHtml = (html: string) =>
  html
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, " ")
    .replace(/<[^>]+>/g, " ")
    .replace(/&nbsp;/g, " ")
    .replace(/\s+/g, " ")
    .trim();

function fromJson(value: unknown): DgiiMessage[] {
  if (typeof value === "string") return value ? [{ codigo: null, valor: value }] : [];
  if (Array.isArray(value)) return value.flatMap(fromJson);
  if (!value || typeof value !== "object") return [];
  const o = value as Record<string, unknown>;
  if (Array.isArray(o.mensajes) && o.mensajes.length) {
    return o.mensajes.flatMap((m) =>
      m && typeof m === "object"
        ? [
            {
              codigo:
                (m as Record<string, unknown>).codigo != null ? String((m as Record<string, unknown>).codigo) : null,
              valor: String(
                (m as Record<string, unknown>).valor ?? (m as Record<string, unknown>).mensaje ?? JSON.stringify(m),
              ),
            },
          ]
        : fromJson(m),
    );
  }
  if ("valor" in o && typeof o.valor === "string")
    return [{ codigo: o.codigo != null ? String(o.codigo) : null, valor: o.valor }];
  const text = [o.mensaje, o.error, o.detail, o.title, o.message].find((v) => typeof v === "string" && v.trim());
  if (typeof text === "string") return [{ codigo: o.codigo != null ? String(o.codigo) : null, valor: text }];
  return [];
}

/** Reads any DGII error body (plain string, JSON, a `mensajes` array, HTML) into messages. */
export function messagesFromBody(body: string, contentType: string | null): DgiiMessage[] {
  const text = body.trim();
  if (!text) return [];
  if (/json/i.test(contentType ?? "") || /^[[{"]/.test(text)) {
    try {
      const messages = fromJson(JSON.parse(text));
      if (messages.length) return messages;
    } catch {
      // not JSON after all: fall through
    }
  }
  if (/html/i.test(contentType ?? "") || /^<(!doctype|html)/i.test(text)) {
    const plain = stripHtml(text);
    return plain ? [{ codigo: null, valor: plain.slice(0, 500) }] : [];
  }
  return [{ codigo: null, valor: text.slice(0, 1000) }];
}

export async function errorFromResponse(response: Response, what: string): Promise<DgiiError> {
  const body = await response.text().catch(() => "");
  const mensajes = messagesFromBody(body, response.headers.get("content-type"));
  const summary =
    mensajes.map((m) => (m.codigo ? `${m.codigo}: ${m.valor}` : m.valor)).join("; ") || response.statusText;
  return new DgiiError("http", response.status, mensajes, `DGII ${what} answered ${response.status}: ${summary}`);
}
