/** Shapes of the generated XSD model (src/generated/xsd-model.ts), kept compact on disk. */

/** Facets of one XSD simple type, after resolving its restriction of a built-in type. */
export interface RawFacets {
  /** Built-in base type without prefix: `string`, `integer`, `decimal`, `dateTime`, `anyType`. */
  base: string;
  length?: number;
  minLength?: number;
  maxLength?: number;
  /** XSD regular expressions (implicitly anchored); the value must match one of them. */
  patterns?: string[];
  enumeration?: string[];
  totalDigits?: number;
  fractionDigits?: number;
  minInclusive?: string;
  maxInclusive?: string;
  minExclusive?: string;
  maxExclusive?: string;
}

/**
 * One particle of a sequence: `[name, minOccurs, maxOccurs, typeIndexOrChildren]`.
 * maxOccurs -1 means unbounded; the name `*` is an `xs:any` wildcard (the Signature slot).
 */
export type RawNode =
  | readonly [name: string, min: number, max: number, content: number | readonly RawNode[]]
  | readonly [name: string, min: number, max: number];
