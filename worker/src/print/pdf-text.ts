// Text for the standard fonts, which encode WinAnsi (Latin-1 plus a few): Spanish is fully
// covered; anything else (emoji, other scripts) becomes "?" instead of failing the whole document.

const WIN_ANSI_EXTRA = new Set("€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ");

export function printable(text: string): string {
  let out = "";
  for (const ch of text.replace(/[\r\n\t]+/g, " ")) {
    const cp = ch.codePointAt(0)!;
    out += (cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0xff) || WIN_ANSI_EXTRA.has(ch) ? ch : "?";
  }
  return out;
}

/** Greedy word wrap to `width` points; words longer than a line are cut. */
export function wrap(
  text: string,
  font: { widthOfTextAtSize(text: string, size: number): number },
  size: number,
  width: number,
): string[] {
  const words = printable(text)
    .split(" ")
    .filter((w) => w !== "");
  const lines: string[] = [];
  let line = "";
  const fits = (s: string) => font.widthOfTextAtSize(s, size) <= width;
  for (let word of words) {
    while (!fits(word)) {
      let cut = word.length - 1;
      while (cut > 1 && !fits(word.slice(0, cut))) cut--;
      if (line) {
        lines.push(line);
        line = "";
      }
      lines.push(word.slice(0, cut));
      word = word.slice(cut);
    }
    const candidate = line ? `${line} ${word}` : word;
    if (fits(candidate)) line = candidate;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line || lines.length === 0) lines.push(line);
  return lines;
}

/** "1234567.5" → "1,234,567.50": exact, on the decimal text as written in the XML. */
export function formatAmount(value: string | undefined): string {
  if (value === undefined || value === "") return "";
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(value.trim());
  if (!m) return value;
  const units = m[2]!.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const fraction = (m[3] ?? "").padEnd(2, "0");
  return `${m[1]}${units}.${fraction}`;
}
