/**
 * The document's tags, in the order an integrator meets them: log in, set the issuer up, issue,
 * follow a receipt, receive, report, archive, listen, run tills, administer. Scalar shows them as
 * the chapters of the reference, so each says what its chapter is for.
 */
export const API_TAGS = [
  {
    name: "Authentication",
    description:
      "Start here: trade an API key and its secret for a 24-hour bearer token (POST /login) and send it as `Authorization: Bearer …` on every call. A partner's token names the issuer it acts for in `X-RNC-Emisor`.",
  },
  {
    name: "Company",
    description:
      "The issuer's setup before its first receipt: its profile and warnings, the e-NCF ranges DGII authorised, the signing certificate, and the numbers that will never be a receipt (to void).",
  },
  {
    name: "Issuing",
    description:
      "Issue an e-CF in one call (validated, numbered, signed, archived, sent to DGII), e-mail its printed copy, and void unused e-NCF ranges with an ANECF.",
  },
  {
    name: "Receipts",
    description:
      "A receipt after it was issued: its state as DGII spells it (Aceptado, Rechazado, Aceptado Condicional, En Proceso, Contingencia, Anulado), the signed XML, the PDF and the buyer's ARECF.",
  },
  {
    name: "Receiving",
    description:
      "DGII's emisor-receptor services, served for every issuer on the platform: suppliers (and DGII's simulator) authenticate with a signed seed and send their e-CF and commercial approvals (ACECF) here.",
  },
  {
    name: "Purchases",
    description:
      "What suppliers sent the issuer: whether a token is required to send it, its commercial approval (ACECF) of a received e-CF, and the 606 classification of its purchases, with defaults per supplier.",
  },
  {
    name: "Reports",
    description:
      "Paged reports of issued and received e-CF and of refused requests (JSON or CSV), DGII's monthly formats 606, 607 and 608 (JSON or the TXT to file), and the sale data the 607 needs beyond the e-CF.",
  },
  {
    name: "Archive",
    description:
      "A month's documents as one streamed zip: the signed XML issued and received, ARECF and ACECF, the PDFs already rendered, and an index with each file's SHA-256.",
  },
  {
    name: "Webhooks",
    description:
      "Standard Webhooks endpoints that hear of DGII's verdicts, deliveries to buyers, commercial approvals, purchases, the certificate and the quota; their deliveries, and a retry. The events are listed under webhooks.",
  },
  {
    name: "Taxpayers",
    description:
      "DGII's registry of taxpayers, as the platform last imported it: a buyer's legal name and status by RNC or cédula, to fill RazonSocialComprador and warn about a taxpayer that is not active.",
  },
  {
    name: "Catalogue",
    description:
      "The store's shared catalogue the tills sell from: products (paged, versioned, changed with If-Match, imported and exported as CSV) and the cashiers who sign in on the tills with a PIN.",
  },
  {
    name: "Customers",
    description:
      "The company's buyers: the RNC or cédula, name and e-mail of each, filled from the receipts it issued and edited by hand, and whether DGII's directory lists it as an electronic receiver.",
  },
  {
    name: "Devices",
    description:
      "Point-of-sale tills that sign offline: the issuer creates a device, the till pairs with its one-time code, leases blocks of e-NCF, uploads what it signed (one by one or in batches) and asks for their state.",
  },
  {
    name: "Console",
    description:
      "The web console's people: sign-in with an e-mail and password (a session cookie and a CSRF token), invitations by e-mail, and the company's users with their roles (owner, accountant, manager). The session cookie is accepted by every issuer-scoped operation, within the user's role.",
  },
  {
    name: "Buyers",
    description:
      "What a buyer reaches without an account: every issued receipt's public page (its printed copy, the PDF, the signed XML and DGII's state), behind the address printed on the receipt with its security code.",
  },
  {
    name: "Administration",
    description:
      "The operator's API, behind the ADMIN_SECRET bearer: issuers, partners and API keys, and an issuer's ranges, certificate and devices on its behalf; the move of API 1.7's ledger into the Durable Objects.",
  },
  {
    name: "Service",
    description: "Whether the service is up and reaches its database, for monitors and load balancers; needs no token.",
  },
];
