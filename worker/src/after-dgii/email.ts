// The printed copy by e-mail: the RI (PDF) and the signed XML as attachments, with a short Spanish
// message naming the issuer, the e-NCF, the total, the receipt's public page and the timbre URL, sent over SMTP from the
// worker (TCP sockets, worker-mailer) to the server in SMTP_HOST/SMTP_PORT (credentials as the
// secrets SMTP_USER/SMTP_PASSWORD). Each sending is recorded on the receipt.
import { receiptPageUrl } from "@ecf/shared/receipt-link";
import { toBase64 } from "@ecf/shared/signing/base64";
import { WorkerMailer } from "worker-mailer";
import { companyById } from "../db/companies.ts";
import { smtpOptions } from "../outbound/smtp.ts";
import { archivedXml } from "../issuing/transmit.ts";
import type { EmailRecord, Receipt } from "../ledger/rows.ts";
import { defaultLayout, pdfKey, storeReceiptPdf } from "../print/receipt-pdf.ts";
import type { EmailPayload, TaskContext, TaskOutcome } from "../ledger/month/task-types.ts";

/** A plausible single address (the SMTP server has the last word). */
export const isEmailAddress = (value: string) =>
  /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:"]+$/.test(value) && value.length <= 254;

/** CorreoComprador of a signed e-CF we issued (our serializer's compact XML). */
export function correoComprador(xml: string): string | undefined {
  const value = /<Comprador>(?:(?!<\/Comprador>).)*?<CorreoComprador>([^<]+)<\/CorreoComprador>/s
    .exec(xml)?.[1]
    ?.trim();
  return value && isEmailAddress(value) ? value : undefined;
}

function recordEmail(context: TaskContext, receipt: Receipt, record: EmailRecord): void {
  const earlier = receipt.emails ? (JSON.parse(receipt.emails) as EmailRecord[]) : [];
  context.recordEmails(receipt.id, JSON.stringify([...earlier, record].slice(-20)));
}

export async function sendReceiptEmail(
  payload: EmailPayload,
  context: TaskContext,
  pastDeadline: boolean,
): Promise<TaskOutcome> {
  const { env, now } = context;
  const receipt = context.receipt(payload.encf);
  if (!receipt) return { status: "failed", result: { error: `no receipt ${payload.encf}` } };
  const smtp = smtpOptions(env);
  const from = (env as unknown as Record<string, string | undefined>).MAIL_FROM;
  const fail = (detail: string): TaskOutcome => {
    recordEmail(context, receipt, {
      to: payload.to,
      at: now.toISOString(),
      outcome: pastDeadline ? "failed" : "retrying",
      detail: detail.slice(0, 300),
    });
    return { status: pastDeadline ? "failed" : "retry", result: { error: detail.slice(0, 300) } };
  };
  if (!smtp || !from) return fail("e-mail is not configured (SMTP_HOST, SMTP_PORT, MAIL_FROM)");
  try {
    const company = await companyById(env, receipt.companyId);
    const issuer = company?.tradeName ?? company?.legalName ?? receipt.xmlKey.split("/")[0]!;
    const stored = await env.ARCHIVE.get(pdfKey(receipt.xmlKey, defaultLayout(receipt), true));
    const pdf = stored ? new Uint8Array(await stored.arrayBuffer()) : await storeReceiptPdf(env, receipt);
    const xml = await archivedXml(env, receipt);
    const rnc = receipt.xmlKey.split("/")[0]!;
    await WorkerMailer.send(smtp, {
      from: { name: issuer, email: from },
      to: payload.to,
      subject: `Comprobante fiscal electrónico ${receipt.encf} de ${issuer}`,
      text: [
        `Estimado cliente:`,
        ``,
        `${issuer} (RNC ${rnc}) le remite su comprobante fiscal electrónico ${receipt.encf} por un total de RD$ ${receipt.montoTotal}.`,
        `Adjuntamos la representación impresa (PDF) y el documento firmado (XML).`,
        `Puede consultarlo y descargarlo cuando quiera en: ${receiptPageUrl(env.PUBLIC_URL, rnc, receipt.encf, receipt.securityCode)}`,
        `Puede verificarlo en la DGII: ${receipt.timbreUrl}`,
      ].join("\n"),
      attachments: [
        { filename: `${rnc}${receipt.encf}.pdf`, content: toBase64(pdf), mimeType: "application/pdf" },
        {
          filename: `${rnc}${receipt.encf}.xml`,
          content: toBase64(new TextEncoder().encode(xml)),
          mimeType: "application/xml",
        },
      ],
    });
    recordEmail(context, receipt, { to: payload.to, at: now.toISOString(), outcome: "sent", detail: null });
    return { status: "done", result: { to: payload.to } };
  } catch (error) {
    return fail((error as Error).message);
  }
}
