// Screenshots of the elements in the states a user meets (light and dark,
// wide and 320 px, compact, history open, the preview with files), to look
// at what was built. Fed through the public API with scripted events.
//
// Usage: node tests/elements/gallery.mjs OUT_DIR
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { launchBrowser, root, serveDirectory } from "../support/browser.mjs";
import { PAGE_HELPERS } from "./harness.mjs";
import { compaction, createdAt, event } from "./fixtures.mjs";

const out = process.argv[2];
if (!out) {
  console.error("usage: node tests/elements/gallery.mjs OUT_DIR");
  process.exit(2);
}
mkdirSync(out, { recursive: true });

// A session: four turns, a completed and a fallen-back compaction, one running now.
const breakdown = { system: 1_200, user: 9_800, assistant: 14_500, tool_outputs: 41_000, attachments: 12_400, overhead: 900 };
const withBreakdown = (e) => ({ ...e, context_metrics: { ...e.context_metrics, breakdown } });
const SCRIPT = [
  event(52_000, "build_messages"),
  compaction("started", { created_at: createdAt(-30), before_tokens: 104_000 }),
  compaction("completed", { created_at: createdAt(-30), before_tokens: 104_000, after_tokens: 31_500 }),
  compaction("started", { created_at: createdAt(-12), before_tokens: 101_200 }),
  compaction("fallback", { created_at: createdAt(-12), before_tokens: 101_200, failure_reason: "summary_compact_failed" }),
  event(60_000, "build_messages"),
  event(68_500, "build_messages"),
  withBreakdown(event(79_800, "build_messages")),
];

const site = await serveDirectory(root);
const browser = await launchBrowser();
try {
  for (const scheme of ["light", "dark"]) {
    const context = await browser.newContext({ viewport: { width: 1000, height: 560 }, colorScheme: scheme, locale: "en-US" });
    const page = await context.newPage();
    await page.addInitScript(PAGE_HELPERS);
    await page.goto(`${site.origin}/tests/elements/pages/host.html`);
    await page.evaluate(() => window.ctxguardReady);
    await page.evaluate(async (script) => {
      document.body.style.background = getComputedStyle(document.documentElement).colorScheme === "dark" ? "#0b111d" : "#f4f6fa";
      document.body.insertAdjacentHTML(
        "beforeend",
        `<div style="display:grid; grid-template-columns: 1fr 320px; gap: 24px; align-items: start">
           <div style="display:grid; gap: 16px">
             <ctxguard-toolbar id="wide" source="host" session="gallery-wide"></ctxguard-toolbar>
             <ctxguard-toolbar id="compact" source="host" session="gallery-compact" compact></ctxguard-toolbar>
             <ctxguard-attachment-preview id="preview" limit="600"></ctxguard-attachment-preview>
           </div>
           <div style="display:grid; gap: 16px">
             <ctxguard-toolbar id="narrow" source="host" session="gallery-narrow"></ctxguard-toolbar>
             <ctxguard-toolbar id="narrow-compact" source="host" session="gallery-narrow-compact" compact></ctxguard-toolbar>
           </div>
         </div>`,
      );
      for (const el of document.querySelectorAll("ctxguard-toolbar")) {
        el.clear();
        for (const e of script) el.pushEvent(e);
      }
      const long = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ".repeat(120);
      await document.getElementById("preview").previewFiles([
        new File(["# Release notes\n\nSmall and complete."], "NOTES.md", { type: "text/markdown" }),
        new File([long], "server.log", { type: "text/plain" }),
        new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], "diagram.png", { type: "image/png" }),
      ]);
      await t.settle();
      for (const id of ["wide", "narrow"]) t.q(document.getElementById(id), "ctxguard-compaction-count").click();
      await t.settle();
    }, SCRIPT);
    await page.waitForTimeout(400);
    const file = join(out, `elements-${scheme}.png`);
    await page.screenshot({ path: file, fullPage: true });
    console.log(`wrote ${file}`);
    await context.close();
  }
} finally {
  await browser.close();
  await site.close();
}
