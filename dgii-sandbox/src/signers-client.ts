// For the sandbox's clients (tests, benches, scripts): tell it who may sign for an RNC, as DGII
// knows each RNC's delegates. The sandbox takes nothing signed for an RNC that registered no one.

/** PUT /__sandbox/signers: `certificates` (PEM) are the RNC's authorized signers from now on. */
export async function registerSigner(sandboxUrl: string, rnc: string, certificates: string[]): Promise<void> {
  const res = await fetch(`${sandboxUrl.replace(/\/+$/, "")}/__sandbox/signers`, {
    method: "PUT",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ rnc, certificates }),
  });
  if (!res.ok)
    throw new Error(`the DGII sandbox refused the signers of ${rnc}: HTTP ${res.status} ${await res.text()}`);
}
