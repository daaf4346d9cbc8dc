// DGII's directory answers are remembered per isolate, "not listed" only briefly: a buyer DGII has
// just added to its directory is treated as a receiver within seconds, not ten minutes.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DirectoryCache } from "../src/dgii/directory-cache.ts";
import { dgiiDirectoryTtls } from "../src/dgii/for-company.ts";
import type { DirectoryEntry } from "../src/dgii/directory.ts";

const listed = { rnc: "131880681", urlRecepcion: "https://buyer.example/fe" } as unknown as DirectoryEntry;
const ttls = { listedMs: 600_000, notListedMs: 30_000 };

describe("the directory cache", () => {
  it("keeps a listing for its TTL and a 'not listed' answer only for the short one", () => {
    const cache = new DirectoryCache();
    cache.remember("testecf|131880681", listed, 0, ttls);
    cache.remember("testecf|130000002", undefined, 0, ttls);
    expect(cache.lookup("testecf|131880681", 29_999)).toEqual({ entry: listed });
    expect(cache.lookup("testecf|130000002", 29_999)).toEqual({ entry: undefined });
    expect(cache.lookup("testecf|130000002", 30_000)).toBeUndefined();
    expect(cache.lookup("testecf|131880681", 599_999)).toEqual({ entry: listed });
    expect(cache.lookup("testecf|131880681", 600_000)).toBeUndefined();
    expect(cache.lookup("testecf|000000000", 0)).toBeUndefined();
  });

  it("reads both TTLs from the environment, the negative one 30 s unless configured", () => {
    expect(
      dgiiDirectoryTtls({
        ...env,
        DGII_DIRECTORY_TTL_MS: "600000",
        DGII_DIRECTORY_NEGATIVE_TTL_MS: undefined,
      } as unknown as Env),
    ).toEqual(ttls);
    expect(
      dgiiDirectoryTtls({
        ...env,
        DGII_DIRECTORY_TTL_MS: "1000",
        DGII_DIRECTORY_NEGATIVE_TTL_MS: "500",
      } as unknown as Env),
    ).toEqual({
      listedMs: 1000,
      notListedMs: 500,
    });
  });
});
