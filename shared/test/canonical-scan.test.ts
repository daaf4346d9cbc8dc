// The quick pass of the canonical check against the full check it sits in front of: it must accept
// what our serializer writes (or the fast signer gains nothing) and must never accept what the full
// check refuses, nor report another span. Mutated documents probe the edges: markup characters,
// entities, whitespace, controls, U+FFFE, prefixes, attributes, unbalanced and empty elements.
import { describe, expect, it } from "vitest";
import { checkRootElementInFull, rootStart } from "../src/signing/canonical-check.ts";
import { scanCanonicalRoot } from "../src/signing/canonical-scan.ts";
import { ecfToXml } from "../src/xml/serialize.ts";
import { makeEcf } from "./support/ecf-factories.ts";

const encoder = new TextEncoder();

/** Both passes on one document: the full check's span or its error code, and the quick pass's span or null. */
function judge(xml: string) {
  const bytes = encoder.encode(xml);
  let start: number;
  try {
    start = rootStart(xml, bytes);
  } catch {
    return null; // refused before the root: neither pass runs
  }
  let full: unknown;
  try {
    full = checkRootElementInFull(bytes, start);
  } catch (error) {
    full = (error as { code: string }).code;
  }
  return { full, quick: scanCanonicalRoot(bytes, start) };
}

const INSERTS = [
  " ",
  "\n",
  "\t",
  "\r",
  "<",
  ">",
  "&",
  "/",
  "a",
  "<B>",
  "</B>",
  "<B>1</B>",
  "</A>",
  "&amp;",
  "&lt;",
  "&gt;",
  "&#xD;",
  "&quot;",
  "&#65;",
  "&am;",
  "\u0007",
  "\u007f",
  "é",
  "😀",
  "\uFFFE",
  "\uFFFF",
  "\uF000",
  "<A/>",
  "<x:A>",
  '<A id="1">',
  "<!-- c -->",
  "<?pi?>",
  "<![CDATA[x]]>",
  "<Signature>",
  "<1A>",
  "<A >",
  "</A >",
  "",
];

/** A small deterministic generator, so a failure names its seed. */
function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

function mutate(xml: string, next: () => number): string {
  const at = Math.floor(next() * xml.length);
  const what = INSERTS[Math.floor(next() * INSERTS.length)]!;
  // Replace 0 to 3 characters at a random place with one of the probes.
  const cut = Math.floor(next() * 4);
  return xml.slice(0, at) + what + xml.slice(at + cut);
}

describe("the quick canonical pass", () => {
  it("accepts what the serializer writes, with the full check's span", () => {
    for (const type of ["31", "32", "33", "34", "41", "43", "44", "45", "46", "47"] as const) {
      for (const lines of [1, 7, 60]) {
        const verdict = judge(ecfToXml(makeEcf(type, { lines, trickyText: lines === 7 })));
        expect(verdict?.quick, `E${type} with ${lines} lines`).not.toBeNull();
        expect(verdict?.quick).toEqual(verdict?.full);
      }
    }
    const small = `<ECF><A>a &amp; b &lt; c &gt; d &#xD; é 😀 \uF000\t\n x</A><B><C>1</C></B></ECF>  \r\n`;
    expect(judge(small)?.quick).toEqual(judge(small)?.full);
    expect(judge(small)?.quick).not.toBeNull();
  });

  it("never accepts what the full check refuses, over 4000 mutated documents", () => {
    const base = ecfToXml(makeEcf("31", { lines: 3 }));
    let refused = 0,
      accepted = 0;
    for (let seed = 1; seed <= 4000; seed++) {
      const next = random(seed);
      let xml = base;
      const mutations = 1 + Math.floor(next() * 3);
      for (let m = 0; m < mutations; m++) xml = mutate(xml, next);
      const verdict = judge(xml);
      if (!verdict) continue;
      if (typeof verdict.full === "string") {
        refused++;
        expect(verdict.quick, `seed ${seed}: the full check says ${verdict.full}`).toBeNull();
      } else {
        accepted++;
        if (verdict.quick) expect(verdict.quick, `seed ${seed}`).toEqual(verdict.full);
      }
    }
    // Both sides of the edge were probed.
    expect(refused).toBeGreaterThan(1000);
    expect(accepted).toBeGreaterThan(100);
  });

  it("leaves nesting deeper than it tracks to the full check, which accepts it", () => {
    const deep = `${"<A>".repeat(100)}1${"</A>".repeat(100)}`;
    const verdict = judge(deep);
    expect(verdict?.quick).toBeNull();
    expect(verdict?.full).toEqual({ start: 0, closeTag: deep.length - 4, end: deep.length });
  });
});
