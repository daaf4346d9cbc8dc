// Renders public/icons/icon.svg to the PNG sizes the web app manifest lists, with Chromium.
// Run after changing the SVG: node pos-client/scripts/make-icons.mjs
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const dir = fileURLToPath(new URL("../public/icons/", import.meta.url));
const svg = readFileSync(`${dir}icon.svg`, "utf8");
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});
try {
  for (const size of [192, 512]) {
    const page = await browser.newPage({ viewport: { width: size, height: size } });
    await page.setContent(
      `<style>html,body{margin:0;background:transparent}svg{display:block;width:${size}px;height:${size}px}</style>${svg}`,
    );
    await page.screenshot({ path: `${dir}icon-${size}.png`, omitBackground: true });
    await page.close();
  }
} finally {
  await browser.close();
}
