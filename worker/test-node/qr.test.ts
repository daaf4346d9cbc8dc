// The timbre's QR chooses its mask itself (a faster count of ISO 18004's penalties): the symbol
// must be, module for module, the one qrcode builds when it searches the mask on its own.
import { create } from "qrcode/lib/core/qrcode.js";
import { describe, expect, it } from "vitest";
import { qrMatrix } from "../src/print/qr.ts";

/** A deterministic pseudo-random generator, so a failure names a reproducible input. */
function generator(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=% ";

function texts(): string[] {
  const random = generator(18004);
  const out = [
    "https://ecf.dgii.gov.do/testecf/ConsultaTimbre?RncEmisor=131880681&RncComprador=131880738&ENcf=E310000000001&FechaEmision=01-04-2025&MontoTotal=11800.00&FechaFirma=01-04-2025%2010:00:00&CodigoSeguridad=ABC123",
    "https://fc.dgii.gov.do/testecf/consultatimbrefc?RncEmisor=130862346&ENCF=E320000000001&MontoTotal=1.00&CodigoSeguridad=ABCDEF",
    "a",
  ];
  // Lengths from one byte to ~700 cover versions 1 to 19, each with its own reserved layout.
  for (let i = 0; i < 300; i++) {
    const length = 1 + Math.floor(random() ** 2 * 700);
    let text = "";
    for (let k = 0; k < length; k++) text += ALPHABET[Math.floor(random() * ALPHABET.length)];
    out.push(text);
  }
  return out;
}

describe("qrMatrix", () => {
  it("builds exactly qrcode's own symbol (same mask chosen by the ISO 18004 penalties) for 303 texts of 1 to 700 bytes", () => {
    const masks = new Set<number>();
    const versions = new Set<number>();
    for (const text of texts()) {
      const reference = create([{ data: text, mode: "byte" }], { errorCorrectionLevel: "M" });
      masks.add(reference.maskPattern);
      versions.add(reference.version);
      const ours = qrMatrix(text);
      expect(ours.size, text).toBe(reference.modules.size);
      let mismatches = 0;
      for (let row = 0; row < ours.size; row++)
        for (let col = 0; col < ours.size; col++)
          if (ours.dark(row, col) !== (reference.modules.get(row, col) === 1)) mismatches++;
      expect(mismatches, `modules that differ from qrcode's symbol for ${JSON.stringify(text)}`).toBe(0);
    }
    // The inputs did exercise every mask pattern and many versions.
    expect(masks.size).toBe(8);
    expect(versions.size).toBeGreaterThan(10);
  });
});
