// The scanner's burst detector on its own: keys with their own time stamps, no DOM and no clock.
import { describe, expect, it } from "vitest";
import { type BurstKey, BurstDetector, type BurstVerdict } from "../src/scanner/bursts.ts";

/** Feeds `text` (with "\r" for Enter, "\t" for Tab) as keys `gapMs` apart from `start`; the verdicts. */
function feed(detector: BurstDetector, text: string, gapMs: number, start = 0): BurstVerdict[] {
  const keys: BurstKey[] = [...text].map((ch, i) => ({
    key: ch === "\r" ? "Enter" : ch === "\t" ? "Tab" : ch,
    time: start + i * gapMs,
  }));
  return keys.map((k) => detector.key(k));
}

const scans = (verdicts: BurstVerdict[]) => verdicts.flatMap((v) => (v.kind === "scan" ? [v.code] : []));

describe("the scanner's burst detector", () => {
  it("13 digits and Enter with no time between them is one code; the next one right after is another", () => {
    const d = new BurstDetector();
    const verdicts = feed(d, "7461000000011\r7461000000028\r", 0);
    expect(scans(verdicts)).toEqual(["7461000000011", "7461000000028"]);
    expect(verdicts[0]).toEqual({ kind: "starts" });
    expect(verdicts[1]).toEqual({ kind: "continues" });
    // The second code starts afresh: its characters may have to be taken out of a field again.
    expect(verdicts[14]).toEqual({ kind: "starts" });
  });

  it("a hundred codes back to back at a scanner's pace, each in order", () => {
    const d = new BurstDetector();
    const codes = Array.from({ length: 100 }, (_, i) => `74620000${String(i).padStart(5, "0")}`);
    expect(scans(feed(d, codes.map((c) => `${c}\r`).join(""), 3))).toEqual(codes);
  });

  it("the same keys at a person's pace are typing, whatever they end with", () => {
    const d = new BurstDetector();
    expect(scans(feed(d, "131880738\r", 120))).toEqual([]);
    expect(scans(feed(d, "arroz\t", 90, 5_000))).toEqual([]);
  });

  it("a pause longer than the gap inside a code starts a new burst: only the fast tail counts", () => {
    const d = new BurstDetector({ maxGapMs: 50 });
    const verdicts = [...feed(d, "12", 5), ...feed(d, "34567\r", 5, 200)];
    expect(verdicts[2]).toEqual({ kind: "starts" });
    expect(scans(verdicts)).toEqual(["34567"]);
  });

  it("Enter too long after the last digit, or after fewer characters than a code has, is not a scan", () => {
    const d = new BurstDetector({ maxGapMs: 50, minLength: 4 });
    expect(d.key({ key: "7", time: 0 })).toEqual({ kind: "starts" });
    expect(d.key({ key: "4", time: 5 })).toEqual({ kind: "continues" });
    expect(d.key({ key: "6", time: 10 })).toEqual({ kind: "continues" });
    expect(d.key({ key: "1", time: 15 })).toEqual({ kind: "continues" });
    expect(d.key({ key: "Enter", time: 80 })).toEqual({ kind: "other" });
    expect(scans(feed(d, "123\r", 1, 1_000))).toEqual([]);
  });

  it("Tab is a suffix too; Shift (capitals) is part of a code; a shortcut breaks it", () => {
    const d = new BurstDetector();
    expect(scans(feed(d, "ABC123\t", 2))).toEqual(["ABC123"]);
    expect(d.key({ key: "A", time: 100 })).toEqual({ kind: "starts" });
    expect(d.key({ key: "Shift", time: 101 })).toEqual({ kind: "continues" });
    for (const [i, key] of [..."GUA"].entries()) d.key({ key, time: 102 + i });
    expect(d.key({ key: "Enter", time: 106 })).toEqual({ kind: "scan", code: "AGUA" });
    for (const [i, key] of [..."1234"].entries()) d.key({ key, time: 200 + i });
    expect(d.key({ key: "v", time: 205, modified: true })).toEqual({ kind: "other" });
    expect(d.key({ key: "Enter", time: 206 })).toEqual({ kind: "other" });
    expect(d.inBurst).toBe(false);
  });

  it("a suffix the scanner is not set up with does not end a scan", () => {
    const d = new BurstDetector({ suffixes: ["Enter"] });
    expect(scans(feed(d, "7461000000011\t", 1))).toEqual([]);
  });
});
