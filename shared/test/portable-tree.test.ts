// A clone anywhere must work: no file the repository tracks names a folder of one machine (a
// workplace path, a home directory) or reaches outside the checkout for DGII's kit.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { DGII_KIT } from "./support/kit.ts";

const repoRoot = resolve(import.meta.dirname, "../..");
const tracked = execFileSync("git", ["ls-files", "-z"], { cwd: repoRoot, encoding: "utf8" })
  .split("\0")
  .filter(Boolean);
/** Absolute folders of a machine, and the kit's old place beside the checkout. */
const MACHINE_PATH =
  /(?:^|[\s"'`(=:])(?:\/work\/|\/home\/[a-z_][\w.-]*\/|\/Users\/[A-Za-z]|\/root\/|[A-Z]:\\\\Users\\\\)|\.\.\/shared\/dgii/;

describe("the repository is portable", () => {
  it("names no absolute path of a machine in any tracked text file", () => {
    const offenders: string[] = [];
    for (const file of tracked) {
      if (/\.(?:png|pdf|woff2?|ico|zip|p12|der)$/.test(file)) continue;
      const lines = readFileSync(join(repoRoot, file), "utf8").split("\n");
      lines.forEach((line, i) => {
        if (MACHINE_PATH.test(line)) offenders.push(`${file}:${i + 1}: ${line.trim().slice(0, 120)}`);
      });
    }
    expect(offenders).toEqual([]);
  });

  it("the pattern catches what it is meant to catch", () => {
    // Assembled here, so this file names no such path itself.
    const at = (...parts: string[]) => parts.join("/");
    for (const bad of [
      `"${at("", "work", "shared", "dgii")}"`,
      ` ${at("", "home", "alice", "ecf")}`,
      `(${at("", "Users", "bob", "x")}`,
      at("..", "shared", "dgii", "testsets"),
      `=${at("", "root", ".cache")}`,
    ])
      expect(MACHINE_PATH.test(bad), bad).toBe(true);
    for (const fine of [
      "vendor/dgii/xsd",
      `https://example.com${at("", "work", "x")}`,
      at("", "tmp", "x"),
      "./shared/src",
    ])
      expect(MACHINE_PATH.test(fine), fine).toBe(false);
  });

  it("reads DGII's kit from vendor/dgii inside the checkout", () => {
    expect(DGII_KIT).toBe(join(repoRoot, "vendor", "dgii"));
    for (const part of ["xsd", "docs", "catalogs", "samples", "testsets"])
      expect(
        tracked.some((f) => f.startsWith(`vendor/dgii/${part}/`)),
        part,
      ).toBe(true);
    expect(tracked).toContain("vendor/dgii/SOURCES.md");
  });
});
