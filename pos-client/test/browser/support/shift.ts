// Browser tests that sell need an open shift first (no sale without one). The cashier is created
// through the administration API before pairing; `openShiftIfAsked` opens a shift when the till asks.
import type { Page } from "playwright-core";

export const TEST_CASHIER = { name: "Cajera de prueba", pin: "246813" };

/** Creates the test cashier for a company (what `npm run admin -- cashiers:create` sends). */
export async function createTestCashier(
  admin: (method: string, path: string, body?: unknown) => Promise<unknown>,
  companyId: string,
): Promise<void> {
  await admin("POST", `/admin/companies/${companyId}/cashiers`, TEST_CASHIER);
}

/**
 * When the sale tab shows the opening form instead of the sale screen, opens a shift for the test
 * cashier (waiting for the catalogue to bring the cashier), then waits for the sale screen.
 */
export async function openShiftIfAsked(page: Page, openingFloat = "0"): Promise<void> {
  const shown = await page.waitForSelector("#search, #shift-open", { timeout: 60_000 });
  if ((await shown.getAttribute("id")) === "search") return;
  await page.waitForSelector(`#shift-cashier option:text-is("${TEST_CASHIER.name}")`, {
    state: "attached",
    timeout: 60_000,
  });
  await page.selectOption("#shift-cashier", { label: TEST_CASHIER.name });
  await page.fill("#shift-pin", TEST_CASHIER.pin);
  await page.fill("#shift-float", openingFloat);
  await page.click("#shift-open-button");
  await page.waitForSelector("#search");
}
