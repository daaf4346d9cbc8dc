// A webhook receiver for the workerd tests, run in Node by the global setup: it verifies every
// delivery with the `standardwebhooks` package's own verifier (independent of our signer) and
// records it. Per sink name: PUT /sinks/{name} { secret, failWith?, answer? } sets it up (failWith:
// answer that HTTP status instead of 204); POST /sinks/{name}[/any/path] receives; GET /sinks/{name}
// lists. A hostile receiver for the outbound policy: answer { redirectTo } answers 307 to that URL;
// answer { hugeBytes } answers 200 with that many bytes, streamed as the reader takes them, and
// GET /sinks/{name}/stream says how far it got and whether the reader hung up before the end.
import { createServer, type Server, type ServerResponse } from "node:http";
import { Webhook } from "standardwebhooks";

export interface SinkDelivery {
  id: string;
  timestamp: string;
  type: string;
  body: Record<string, any>;
  verified: boolean;
  error: string | null;
  answered: number;
}

export type SinkAnswer = { redirectTo: string } | { hugeBytes: number };
export interface SinkStream {
  sent: number;
  completed: boolean;
  hungUp: boolean;
}

interface Sink {
  secret: string;
  failWith: number | null;
  answer: SinkAnswer | null;
  deliveries: SinkDelivery[];
  stream: SinkStream | null;
}

/** Writes `total` bytes in chunks, waiting for the reader (backpressure), until it ends or hangs up. */
function streamHuge(res: ServerResponse, total: number, stream: SinkStream): void {
  const chunk = Buffer.alloc(64 * 1024, 0x41);
  res.writeHead(200, { "Content-Type": "text/plain", "Content-Length": String(total) });
  res.on("close", () => {
    if (!stream.completed) stream.hungUp = true;
  });
  const pump = () => {
    while (stream.sent < total && !res.destroyed) {
      const piece = chunk.subarray(0, Math.min(chunk.length, total - stream.sent));
      stream.sent += piece.length;
      if (!res.write(piece)) return void res.once("drain", pump);
    }
    if (stream.sent >= total && !res.destroyed) res.end(() => (stream.completed = true));
  };
  pump();
}

export async function startWebhookSink(): Promise<{ url: string; close(): Promise<void> }> {
  const sinks = new Map<string, Sink>();
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const [, name, rest] = /^\/sinks\/([\w-]+)(\/.*)?$/.exec(req.url ?? "") ?? [];
    const answer = (status: number, body?: unknown) => {
      res.writeHead(status, { "Content-Type": "application/json" });
      res.end(body === undefined ? undefined : JSON.stringify(body));
    };
    if (!name) return answer(404);
    if (req.method === "PUT") {
      const {
        secret,
        failWith,
        answer: hostile,
      } = JSON.parse(text) as { secret: string; failWith?: number | null; answer?: SinkAnswer };
      const sink = sinks.get(name);
      sinks.set(name, {
        secret,
        failWith: failWith ?? null,
        answer: hostile ?? null,
        deliveries: sink?.deliveries ?? [],
        stream: null,
      });
      return answer(204);
    }
    const sink = sinks.get(name);
    if (!sink) return answer(404);
    if (req.method === "GET") return answer(200, rest === "/stream" ? sink.stream : sink.deliveries);
    if (req.method !== "POST") return answer(405);
    const headers = {
      "webhook-id": String(req.headers["webhook-id"] ?? ""),
      "webhook-timestamp": String(req.headers["webhook-timestamp"] ?? ""),
      "webhook-signature": String(req.headers["webhook-signature"] ?? ""),
    };
    let verified = false;
    let error: string | null = null;
    try {
      new Webhook(sink.secret).verify(text, headers);
      verified = true;
    } catch (e) {
      error = (e as Error).message;
    }
    if (sink.answer && "redirectTo" in sink.answer) {
      sink.deliveries.push({
        id: "",
        timestamp: "",
        type: "redirected",
        body: {},
        verified: false,
        error: null,
        answered: 307,
      });
      res.writeHead(307, { Location: sink.answer.redirectTo });
      return res.end();
    }
    if (sink.answer && "hugeBytes" in sink.answer) {
      sink.stream = { sent: 0, completed: false, hungUp: false };
      return streamHuge(res, sink.answer.hugeBytes, sink.stream);
    }
    const status = sink.failWith ?? 204;
    const body = JSON.parse(text) as Record<string, any>;
    sink.deliveries.push({
      id: headers["webhook-id"],
      timestamp: headers["webhook-timestamp"],
      type: String(body.type),
      body,
      verified,
      error,
      answered: status,
    });
    return answer(status);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
