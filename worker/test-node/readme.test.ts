// README.es.md is the Spanish translation of README.md: it must keep the same sections (as many
// `## ` headings) and the same fenced code blocks, in the same order and byte for byte (commands,
// the tree map, JSON and their comments stay as README.md has them; only the prose is translated).
// A change to README.md that README.es.md does not follow fails here.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");

/** A Markdown file's `## ` headings and fenced blocks (each with its fence lines), fences read line by line. */
function outline(file: string): { headings: string[]; blocks: string[]; lines: string[] } {
  const lines = readFileSync(join(root, file), "utf8").split("\n");
  const headings: string[] = [];
  const blocks: string[] = [];
  let block: string[] | null = null;
  for (const line of lines) {
    if (block) {
      block.push(line);
      if (line.startsWith("```")) {
        blocks.push(block.join("\n"));
        block = null;
      }
    } else if (line.startsWith("```")) block = [line];
    else if (line.startsWith("## ")) headings.push(line);
  }
  expect(block, `${file}: a fenced block left open`).toBeNull();
  return { headings, blocks, lines };
}

describe("README.es.md follows README.md", () => {
  const en = outline("README.md");
  const es = outline("README.es.md");

  it("has as many ## sections", () => {
    expect(en.headings.length).toBeGreaterThan(0);
    expect(es.headings.length, `README.md: ${en.headings.join(" | ")}\nREADME.es.md: ${es.headings.join(" | ")}`).toBe(
      en.headings.length,
    );
  });

  it("has the same fenced code blocks in the same order, byte for byte", () => {
    expect(en.blocks.length).toBeGreaterThan(0);
    // Block by block, so a failure names the first block that differs rather than the whole list.
    for (let i = 0; i < Math.max(en.blocks.length, es.blocks.length); i++) {
      expect(es.blocks[i], `code block ${i + 1} of README.md`).toBe(en.blocks[i]);
    }
  });

  it("each links to the other language under its title", () => {
    expect(en.lines[0]).toMatch(/^# /);
    expect(es.lines[0]).toBe(en.lines[0]);
    expect(en.lines.slice(1, 4)).toContain("Español: [README.es.md](README.es.md)");
    expect(es.lines.slice(1, 4)).toContain("English: [README.md](README.md)");
  });
});
