// The DGII XMLDSig profile: the only algorithms we emit, and the only ones we accept.
export const XMLDSIG_NS = "http://www.w3.org/2000/09/xmldsig#";
export const C14N_10 = "http://www.w3.org/TR/2001/REC-xml-c14n-20010315";
export const RSA_SHA256 = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256";
export const SHA256 = "http://www.w3.org/2001/04/xmlenc#sha256";
export const ENVELOPED_SIGNATURE = "http://www.w3.org/2000/09/xmldsig#enveloped-signature";

/** The WebCrypto algorithm behind RSA_SHA256. */
export const RSA_PKCS1_SHA256 = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" } as const;
