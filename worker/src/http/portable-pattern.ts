// A JSON Schema `pattern` that means the same to every validator an integrator runs. The e-CF
// request schemas translate DGII's XSD patterns with Unicode property escapes (`\d` is any
// Unicode digit: `\p{Nd}`), which only a regex compiled with the `u` flag understands; Spectral,
// among others, compiles patterns without it and then rejects every valid example. Here each
// property escape becomes a plain class of BMP ranges, read the same with or without `u`.

/** Longest exact range list kept; a larger class (letters) is exact in ASCII and admits all else. */
const MAX_EXACT_CLASS = 1000;
const BMP_END = 0x10000;

const written = (code: number) =>
  /[0-9A-Za-z]/.test(String.fromCharCode(code))
    ? String.fromCharCode(code)
    : `\\u${code.toString(16).padStart(4, "0")}`;

function rangesOf(matches: (code: number) => boolean): string {
  let out = "";
  let start = -1;
  for (let code = 0; code <= BMP_END; code++) {
    const inside = code < BMP_END && matches(code);
    if (inside && start < 0) start = code;
    if (!inside && start >= 0) {
      out += start === code - 1 ? written(start) : `${written(start)}-${written(code - 1)}`;
      start = -1;
    }
  }
  return out;
}

const classes = new Map<string, string>();

/** The contents of a bracket class matching what `\p{name}` (or `\P{name}`) matches in the BMP. */
function classContents(propertyEscape: string): string {
  const known = classes.get(propertyEscape);
  if (known !== undefined) return known;
  const property = new RegExp(propertyEscape, "u");
  const isSurrogate = (code: number) => code >= 0xd800 && code <= 0xdfff;
  const exact = rangesOf((code) => !isSurrogate(code) && property.test(String.fromCharCode(code)));
  // Too long to repeat in every field: exact for ASCII, and (a superset) any other BMP character;
  // the service's own validator still judges the request exactly.
  const contents =
    exact.length <= MAX_EXACT_CLASS
      ? exact
      : `${rangesOf((code) => code < 0x80 && property.test(String.fromCharCode(code)))}\\u0080-\\uffff`;
  classes.set(propertyEscape, contents);
  return contents;
}

/** `pattern` with every `\p{…}`/`\P{…}` replaced by an equivalent class that needs no `u` flag. */
export function portablePattern(pattern: string): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    const property = c === "\\" ? /^\\[pP]\{[A-Za-z_=]+\}/.exec(pattern.slice(i)) : null;
    if (property) {
      const contents = classContents(property[0]);
      out += inClass ? contents : `[${contents}]`;
      i += property[0].length - 1;
      continue;
    }
    if (c === "\\") {
      out += c + (pattern[i + 1] ?? "");
      i++;
      continue;
    }
    if (c === "[") inClass = true;
    else if (c === "]") inClass = false;
    out += c;
  }
  return out;
}

/** A copy of a JSON Schema with every `pattern` made portable. */
export function withPortablePatterns<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(withPortablePatterns) as T;
  if (typeof schema !== "object" || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === "pattern" && typeof value === "string" ? portablePattern(value) : withPortablePatterns(value),
    ]),
  ) as T;
}
