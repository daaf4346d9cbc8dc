// A webhook receiver for the workerd tests, run in Node by the global setup: it verifies every
// delivery with the `standardwebhooks` package's own verifier (independent of our signer) and
// records it. Per sink name: PUT /sinks/{name} { secret, failWith? } sets it up (failWith: answer
// that HTTP status instead of 204); POST /sinks/{name} receives; GET /sinks/{name} lists.
import { createServer, type Server } from "node:http";
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

interface Sink {
  secret: string;
  failWith: number | null;
  deliveries: SinkDelivery[];
}

export async function startWebhookSink(): Promise<{ url: string; close(): Promise<void> }> {
  const sinks = new Map<string, Sink>();
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const name = /^\/sinks\/([\w-]+)$/.exec(req.url ?? "")?.[1];
    const answer = (status: number, body?: unknown) => {
      res.writeHead(status, { "Content-Type": "application/json" });
      res.end(body === undefined ? undefined : JSON.stringify(body));
    };
    if (!name) return answer(404);
    if (req.method === "PUT") {
      const { secret, failWith } = JSON.parse(text) as { secret: string; failWith?: number | null };
      const sink = sinks.get(name);
      sinks.set(name, { secret, failWith: failWith ?? null, deliveries: sink?.deliveries ?? [] });
      return answer(204);
    }
    const sink = sinks.get(name);
    if (!sink) return answer(404);
    if (req.method === "GET") return answer(200, sink.deliveries);
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
    const status = sink.failWith ?? 204;
    const body = JSON.parse(text) as Record<string, any>;
    sink.deliveries.push({ id: headers["webhook-id"], timestamp: headers["webhook-timestamp"], type: String(body.type), body, verified, error, answered: status });
    return answer(status);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
