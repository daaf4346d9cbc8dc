import type { D1Migration } from "cloudflare:test";
import "./provided.ts";

declare global {
  namespace Cloudflare {
    interface Env {
      TEST_MIGRATIONS: D1Migration[];
    }
  }
}
