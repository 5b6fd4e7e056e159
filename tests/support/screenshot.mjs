// Takes a screenshot of a page in headless Chromium, to look at what was
// built as a user would.
//
// Usage: node tests/support/screenshot.mjs URL OUT.png [--width 1100] [--height 700]
//        [--wait-for CSS] [--files FILE...] [--full-page]
// `--files` sets the files of the first <input type=file> on the page (also
// inside open shadow roots), as a user picking them would.
import { launchBrowser } from "./browser.mjs";
import { flag, option } from "./net.mjs";

const [url, out] = process.argv.slice(2).filter((a, i, all) => !a.startsWith("--") && !(all[i - 1] ?? "").startsWith("--"));
if (!url || !out) {
  console.error("usage: node tests/support/screenshot.mjs URL OUT.png [--width W] [--height H] [--wait-for CSS] [--files FILE...] [--full-page]");
  process.exit(2);
}
const files = [];
const argv = process.argv.slice(2);
const at = argv.indexOf("--files");
if (at >= 0) for (const f of argv.slice(at + 1)) { if (f.startsWith("--")) break; files.push(f); }

const browser = await launchBrowser();
try {
  const page = await browser.newPage({
    viewport: { width: Number(option("--width", "1100")), height: Number(option("--height", "700")) },
  });
  await page.goto(url, { waitUntil: "load", timeout: 30_000 });
  const waitFor = option("--wait-for", null);
  if (waitFor) await page.locator(waitFor).first().waitFor({ timeout: 15_000 });
  if (files.length) {
    await page.locator("input[type=file]").first().setInputFiles(files);
    await page.waitForTimeout(1000);
  }
  await page.waitForTimeout(500);
  await page.screenshot({ path: out, fullPage: flag("--full-page") });
  console.log(`wrote ${out}`);
} finally {
  await browser.close();
}
