/** One message from DGII: its code (when it gives one) and its text. */
export interface DgiiMessage {
  codigo: string | null;
  valor: string;
}

/**
 * Every way a DGII call can fail, in one type. `unreachable` and `timeout` mean DGII may never
 * have seen the request (contingency); `http` means DGII answered with an error.
 */
export class DgiiError extends Error {
  constructor(
    readonly kind: "unreachable" | "timeout" | "http",
    readonly status: number | null,
    readonly mensajes: DgiiMessage[],
    message: string,
  ) {
    super(message);
    this.name = "DgiiError";
  }

  /** DGII is down for practical purposes: retry later, the receipt stays in contingency. */
  get isUnavailable(): boolean {
    return this.kind !== "http" || (this.status !== null && (this.status >= 500 || this.status === 429));
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
