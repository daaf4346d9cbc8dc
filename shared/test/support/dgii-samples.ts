// Test support: third-party and DGII sample e-CFs turned into this package's JSON shape.
import { readFileSync, readdirSync } from "node:fs";
import { ARRAY_CONTAINERS } from "../../src/obligations.ts";

const KIT = "/work/shared/dgii/testsets";
const arrays = ARRAY_CONTAINERS as Record<string, string>;

/** XML-shaped JSON (`{DetallesItems: {Item: [...]}}`) → ours (`{DetallesItems: [...]}`). */
export function fromXmlShaped(node: unknown, path = ""): unknown {
  if (Array.isArray(node)) return node.map((n) => fromXmlShaped(n, path));
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    const p = path ? `${path}/${key}` : key;
    const child = arrays[p];
    if (child !== undefined) {
      const inner = typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[child] : value;
      const list = inner === undefined ? [] : Array.isArray(inner) ? inner : [inner];
      out[key] = list.map((v) => fromXmlShaped(v, `${p}/${child}`));
    } else out[key] = fromXmlShaped(value, p);
  }
  return out;
}

/** The 24 ithesk/odoo_dgii_ecf test-set cases (RNC 130939616), in our JSON shape. */
export function itheskCases(): { name: string; doc: Record<string, unknown> }[] {
  const dir = `${KIT}/ithesk_odoo_dgii_ecf__exmpjson`;
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => {
      const raw = JSON.parse(readFileSync(`${dir}/${f}`, "utf8")) as { ECF: unknown };
      return { name: f, doc: fromXmlShaped(raw.ECF) as Record<string, unknown> };
    });
}
