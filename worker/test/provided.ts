// What test/global-setup.ts hands to the tests through `inject`.
export {};

declare module "vitest" {
  export interface ProvidedContext {
    sandboxUrl: string;
    /** The webhook receiver (test/support/webhook-sink.ts). */
    webhookSinkUrl: string;
    /** Judges a zip with unzip and xmlsec1 (test/support/zip-verifier.ts). */
    zipVerifierUrl: string;
    certificates: {
      password: string;
      legacyP12: string;
      forgeP12: string;
      modernP12: string;
      expiredP12: string;
      renewedP12: string;
      /** The certificate inside renewedP12, for the sandbox's signer registry. */
      renewedCertificatePem: string;
      ecP12: string;
      pkcs8: string;
      certificateDer: string;
      certificatePem: string;
      /** A self-signed certificate (no accredited issuer) with the test issuer's subject. */
      selfSignedPkcs8: string;
      selfSignedCertificateDer: string;
      /** A supplier's certificate issued by an intermediate CA that the demo CA issued. */
      chainedPkcs8: string;
      chainedCertificateDer: string;
      intermediateCertificateDer: string;
      /** The certificate of a representative (cédula 00112345678, MARIA PEREZ), issued by the demo CA. */
      representativeP12: string;
      representativeCertificatePem: string;
    };
  }
}
