// One webhook delivery: the event, signed with the endpoint's secret, POSTed through the outbound
// policy (no redirect followed, a timeout, the answer read up to ANSWER_BYTES). A 2xx is success; anything else is tried again with back-off until the task's deadline (3 days), after
// which the endpoint is disabled.
import { disableEndpoint, endpointById, endpointSecret, urlProblem } from "./endpoints.ts";
import type { WebhookPayload } from "../ledger/month/task-types.ts";
import { signatureHeaders } from "./signing.ts";
import { outboundFetch } from "../outbound/fetch.ts";
import { outboundPolicy } from "../outbound/url-policy.ts";

export type DeliveryOutcome = { status: "done" | "retry" | "failed"; result: Record<string, unknown> };

const TIMEOUT_MS = 10_000;
/** Only an excerpt of the answer is kept (200 characters), so little more is read. */
const ANSWER_BYTES = 4096;

export async function deliverWebhook(
  env: Env,
  id: string,
  payload: WebhookPayload,
  pastDeadline: boolean,
  now: Date,
): Promise<DeliveryOutcome> {
  const endpoint = await endpointById(env, payload.endpointId);
  if (!endpoint) return { status: "failed", result: { error: "the endpoint was deleted" } };
  if (endpoint.disabledAt)
    return { status: "failed", result: { error: `the endpoint is disabled: ${endpoint.disabledReason ?? ""}` } };
  const refused = urlProblem(env, endpoint.url);
  if (refused) return { status: "failed", result: { error: `URL refused: ${refused}` } };

  const body = JSON.stringify(payload.event);
  let result: Record<string, unknown>;
  try {
    const headers = {
      "Content-Type": "application/json",
      "User-Agent": "ecf-edge-webhooks",
      ...(await signatureHeaders(await endpointSecret(env, endpoint), id, now, body)),
    };
    const limits = { timeoutMs: TIMEOUT_MS, maxBytes: ANSWER_BYTES, overflow: "truncate" } as const;
    const response = await outboundFetch(outboundPolicy(env), endpoint.url, { method: "POST", headers, body }, limits);
    result = { httpStatus: response.status, body: (await response.text()).slice(0, 200) };
    if (response.status >= 200 && response.status < 300) return { status: "done", result };
  } catch (error) {
    result = { error: (error as Error).message.slice(0, 200) };
  }
  if (!pastDeadline) return { status: "retry", result };
  await disableEndpoint(env, endpoint.id, `deliveries failed for 3 days (last: ${JSON.stringify(result)})`);
  return { status: "failed", result };
}
