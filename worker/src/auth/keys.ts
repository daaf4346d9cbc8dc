import { randomToken, sha256Hex } from "./crypto.ts";

export type KeyKind = "test" | "live";

export interface NewKeyMaterial {
  /** Public id, safe to show and log: `key_test_…`. */
  id: string;
  /** The clear API key (`ecf_test_…`): shown once, stored only as a hash. */
  apiKey: string;
  /** The clear secret: shown once, stored only as a hash. */
  apiSecret: string;
  keyHash: string;
  secretHash: string;
}

/** The kind is visible in every prefix, so a live key pasted into a test setup is obvious. */
export async function generateKeyMaterial(kind: KeyKind): Promise<NewKeyMaterial> {
  const id = `key_${kind}_${randomToken(9)}`;
  const apiKey = `ecf_${kind}_${randomToken(24)}`;
  const apiSecret = randomToken(32);
  return { id, apiKey, apiSecret, keyHash: await sha256Hex(apiKey), secretHash: await sha256Hex(apiSecret) };
}
