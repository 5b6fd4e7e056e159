// <ctxguard-attachment-preview>: files in (method, property, picker), rows
// and the rendered block out, the ctxguard-preview event, model and limit
// from its attributes or from a toolbar (`for`), and the tokenizer module
// loaded only when files are first given.
import { join } from "node:path";
import { root } from "../support/browser.mjs";
import { assert, until } from "../support/net.mjs";
import { same } from "./harness.mjs";

// Files made in the page: [name, text or byte array, MIME type].
const FILES = `
  window.mkfile = ([name, body, type]) =>
    new File([typeof body === "string" ? body : new Uint8Array(body)], name, { type });
`;

const LONG = "The quick brown fox jumps over the lazy dog. ".repeat(300);
/** A valid 1×1 PNG (Pillow's own encoding of one red pixel). */
const PNG_1X1 = [
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x01,
  0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4, 0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41,
  0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0xf0, 0x1f, 0x00, 0x05, 0x00, 0x01, 0xff, 0x89, 0x99, 0x3d, 0x1d, 0x00, 0x00,
  0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

export async function previewChecks(h, check) {
  await check("the tokenizer module loads only when files are first given", () =>
    h.with(async ({ page, requests }) => {
      await page.evaluate(() => {
        window.tb = t.add('<ctxguard-toolbar source="host" session="p0"></ctxguard-toolbar>');
        window.pv = t.add("<ctxguard-attachment-preview></ctxguard-attachment-preview>");
      });
      await page.waitForTimeout(300);
      const engine = () => requests.filter((u) => u.includes("/engine/"));
      assert(engine().length === 0, `loaded early: ${engine()}`);
      await page.evaluate(FILES);
      const report = await page.evaluate(() => pv.previewFiles([mkfile(["a.txt", "hello there", "text/plain"])]));
      assert(report && report.attachments.length === 1, JSON.stringify(report));
      const loaded = engine();
      assert(loaded.some((u) => u.endsWith("ctxguard_preview_bg.wasm")) && loaded.some((u) => u.endsWith("ctxguard_preview.js")), `${loaded}`);
    }),
  );

  await check("previewFiles: one row per file, the block as the server will inject it, ctxguard-preview with the report", () =>
    h.with(async ({ page }) => {
      await page.evaluate(FILES);
      const out = await page.evaluate(
        async ([long, png]) => {
          const pv = t.add('<ctxguard-attachment-preview limit="400"></ctxguard-attachment-preview>');
          const events = [];
          document.addEventListener("ctxguard-preview", (e) => events.push({ detail: e.detail, bubbles: e.bubbles, composed: e.composed }));
          const files = [
            ["short.txt", "hello world", "text/plain"],
            ["long.log", long, "text/plain"],
            ["<img src=x onerror=window.__xss=1>.png", png, "image/png"],
            ["blob.bin", [0, 1, 2, 3, 4], ""],
          ].map(mkfile);
          const report = await pv.previewFiles(files);
          await t.settle();
          const rows = t.all(pv, "ctxguard-attachment-row").map((r) => ({
            id: r.dataset.attachmentId,
            state: r.dataset.state,
            tokens: r.querySelector('[data-field="tokens"]').textContent,
            allocation: r.querySelector('[data-field="allocation"]').textContent,
            text: r.textContent,
            code: r.querySelector('[data-testid="ctxguard-attachment-error"]')?.dataset.code ?? null,
          }));
          return {
            report,
            rows,
            events,
            property: pv.report,
            rendered: t.q(pv, "ctxguard-rendered").textContent,
            summary: t.text(pv, "ctxguard-attachments-summary"),
            injected: pv.shadowRoot.querySelectorAll("img").length,
            xss: window.__xss ?? null,
          };
        },
        [LONG, PNG_1X1],
      );
      const { report, rows } = out;
      assert(same(rows.map((r) => r.state), ["fits", "cut", "image", "rejected"]), JSON.stringify(rows));
      // An unknown extension whose bytes libmagic calls data: the backend's refusal, word for word.
      const refusal = report.attachments[3].error;
      assert(refusal.code === "unrecognized_type" && refusal.message === "Unrecognized file type: .bin (detected MIME: application/octet-stream)", JSON.stringify(refusal));
      assert(rows[3].code === "unrecognized_type" && rows[3].text.includes("Unrecognized file type") && rows[3].text.includes("Please upload documents, images, or text files"), rows[3].text);
      assert(same(rows.map((r) => r.id), ["1", "2", "3", "4"]), JSON.stringify(rows));
      const [a, b] = report.attachments;
      assert(rows[0].tokens === String(a.tokens) && rows[1].allocation === b.allocation.toLocaleString("en-US"), JSON.stringify([rows[0], a]));
      assert(b.truncated && b.tokens > 400 && b.allocation < b.tokens, JSON.stringify(b));
      assert(rows[2].tokens === "—" && rows[3].tokens === "—", "no text, no tokens");
      assert(report.limit_tokens === 400 && report.model === "gpt-4o", JSON.stringify(report));
      assert(report.block_tokens_after < report.block_tokens_before, "the cut makes the block smaller");
      // core's composition: numbered parts, text headers, the image's header after the documents.
      assert(out.rendered.includes("[Attachment 1]\n[Attachment IDs in this message: 1, 2, 3]"), out.rendered.slice(0, 300));
      assert(out.rendered.includes("[Attachment: short.txt | ID: 1 | Type: text/plain | Size: 11 bytes"), out.rendered.slice(0, 300));
      assert(out.rendered.includes("[Image Attachment: <img src=x onerror=window.__xss=1>.png | ID: 3 | Type: image/png"), "image header");
      assert(out.rendered.includes("Truncated: yes"), "the cut is annotated");
      assert(out.summary === `Block: ${report.block_tokens_before.toLocaleString("en-US")} → ${report.block_tokens_after.toLocaleString("en-US")} tokens · 1 cut · 1 refused`, out.summary);
      assert(out.events.length === 1 && same(out.events[0].detail, report) && out.events[0].bubbles && out.events[0].composed, JSON.stringify(out.events.length));
      assert(same(out.property, report), "the report property");
      assert(out.injected === 0 && out.xss === null, "file names are text");
    }),
  );

  await check("files property, model and limit attributes, the picker and the drop zone inside the shadow root", () =>
    h.with(async ({ page }) => {
      await page.evaluate(FILES);
      const out = await page.evaluate(async () => {
        const pv = t.add('<ctxguard-attachment-preview model="gpt-4"></ctxguard-attachment-preview>');
        const hint = () => [t.attr(pv, "ctxguard-preview-budget", "data-model"), t.attr(pv, "ctxguard-preview-budget", "data-limit")];
        await t.settle();
        const first = hint();
        const next = new Promise((r) => pv.addEventListener("ctxguard-preview", (e) => r(e.detail), { once: true }));
        const f = mkfile(["notes.md", "# notes\n" + "some text to count ".repeat(40), "text/markdown"]);
        pv.files = [f];
        const report = await next;
        const files = pv.files;
        const again = new Promise((r) => pv.addEventListener("ctxguard-preview", (e) => r(e.detail), { once: true }));
        pv.setAttribute("limit", "20");
        const limited = await again;
        return { first, after: hint(), report, limited, files: files.map((x) => x.name), same: files[0] === f };
      });
      // gpt-4: an 8,192-token window, so min(8192 / 2, 15000) = 4,096.
      assert(same(out.first, ["gpt-4", "4096"]), JSON.stringify(out.first));
      assert(out.report.model === "gpt-4" && out.report.limit_tokens === 4096, JSON.stringify(out.report));
      assert(same(out.files, ["notes.md"]) && out.same, JSON.stringify(out.files));
      assert(same(out.after, ["gpt-4", "20"]) && out.limited.limit_tokens === 20 && out.limited.attachments[0].state === "cut", JSON.stringify(out.limited));

      // The picker, as a user uses it (playwright pierces the open shadow root).
      await page.evaluate(() => {
        window.pv2 = t.add("<ctxguard-attachment-preview></ctxguard-attachment-preview>");
      });
      const input = page.locator("ctxguard-attachment-preview >> nth=1").locator('[data-testid="ctxguard-file-input"]');
      await input.setInputFiles([
        { name: "a.txt", mimeType: "text/plain", buffer: Buffer.from("first file") },
        { name: "b.csv", mimeType: "text/csv", buffer: Buffer.from("x,y\n1,2\n") },
      ]);
      await until("two rows", async () => page.evaluate(() => t.all(pv2, "ctxguard-attachment-row").length === 2), 15000, 50);
      await input.setInputFiles([{ name: "c.txt", mimeType: "text/plain", buffer: Buffer.from("third") }]);
      await until("the picker adds to the list", async () => page.evaluate(() => t.all(pv2, "ctxguard-attachment-row").length === 3), 15000, 50);
      await page.evaluate(() => t.q(pv2, "ctxguard-attachments-clear").click());
      await until("cleared", async () => page.evaluate(() => t.all(pv2, "ctxguard-attachment-row").length === 0), 5000, 50);

      // The drop zone, as a drag from the desktop delivers files.
      await page.evaluate(async () => {
        const zone = t.q(pv2, "ctxguard-dropzone");
        const data = new DataTransfer();
        data.items.add(mkfile(["dropped.txt", "dropped text", "text/plain"]));
        zone.dispatchEvent(new DragEvent("dragover", { dataTransfer: data, bubbles: true, cancelable: true }));
        await t.settle();
        window.dragging = zone.classList.contains("dragging");
        zone.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
      });
      await until("the dropped file", async () => page.evaluate(() => t.all(pv2, "ctxguard-attachment-row").length === 1), 15000, 50);
      const dropped = await page.evaluate(() => [window.dragging, t.q(pv2, "ctxguard-dropzone").classList.contains("dragging"), pv2.report.attachments[0].name, pv2.files.map((f) => f.name)]);
      assert(same(dropped, [true, false, "dropped.txt", ["dropped.txt"]]), `the files property follows the drop: ${JSON.stringify(dropped)}`);
    }),
  );

  await check('for="ID" takes the model and budget from that toolbar\'s /context', () =>
    h.with(async ({ page }) => {
      await page.evaluate(FILES);
      const out = await page.evaluate(async () => {
        const pv = t.add('<ctxguard-attachment-preview for="tb"></ctxguard-attachment-preview>');
        const tb = t.add('<ctxguard-toolbar id="tb" source="host" session="for"></ctxguard-toolbar>');
        await t.settle();
        const hint = () => [t.attr(pv, "ctxguard-preview-budget", "data-model"), t.attr(pv, "ctxguard-preview-budget", "data-limit")];
        const before = hint();
        tb.applyContext({ event_id: 1, phase: null, context_metrics: null, model: "gpt-4", attachment_limit: 321 });
        await t.settle();
        const linked = hint();
        const report = await pv.previewFiles([mkfile(["x.txt", "some words here", "text/plain"])]);
        pv.setAttribute("model", "gpt-4o");
        await t.settle();
        const own = hint();
        return { before, linked, report: [report.model, report.limit_tokens], own };
      });
      assert(same(out.before, ["gpt-4o", "15000"]), JSON.stringify(out.before));
      assert(same(out.linked, ["gpt-4", "321"]), JSON.stringify(out.linked));
      assert(same(out.report, ["gpt-4", 321]), JSON.stringify(out.report));
      assert(same(out.own, ["gpt-4o", "321"]), "its own model, the toolbar's budget");
    }),
  );

  await check("the preview follows lang and fits a 320 px box", () =>
    h.with({ viewport: { width: 360, height: 900 } }, async ({ page }) => {
      await page.evaluate(FILES);
      const out = await page.evaluate(async (long) => {
        const box = t.add('<div style="width: 320px"></div>');
        const pv = t.add('<ctxguard-attachment-preview lang="zh-CN" limit="300"></ctxguard-attachment-preview>', box);
        await pv.previewFiles([
          mkfile(["a-file-with-a-rather-long-name-that-goes-on.txt", long, "text/plain"]),
          mkfile(["b.txt", "short", "text/plain"]),
        ]);
        await t.settle();
        const host = pv.getBoundingClientRect();
        const over = [...pv.shadowRoot.querySelectorAll("*")].filter((n) => {
          const r = n.getBoundingClientRect();
          return r.width > 0 && (r.right > host.right + 0.5 || r.left < host.left - 0.5) && !n.closest(".table-wrap");
        });
        const wrap = pv.shadowRoot.querySelector(".table-wrap");
        return {
          title: pv.shadowRoot.querySelector("h2").textContent,
          cut: t.all(pv, "ctxguard-attachment-row")[0].textContent,
          over: over.map((n) => n.className || n.tagName),
          table: wrap.scrollWidth <= wrap.clientWidth,
          width: host.width,
        };
      }, LONG);
      assert(out.title === "附件预算预览" && out.cut.includes("将被截断"), JSON.stringify(out));
      assert(out.width === 320 && out.over.length === 0 && out.table, JSON.stringify(out));
    }),
  );

  await check("progress bars and ctxguard-preview-progress while a file is read; a file over max-upload-bytes gets the backend's refusal unread", () =>
    h.with(async ({ page }) => {
      await page.evaluate(FILES);
      const out = await page.evaluate(async () => {
        const pv = t.add('<ctxguard-attachment-preview max-upload-bytes="4194304"></ctxguard-attachment-preview>');
        const progress = [];
        pv.addEventListener("ctxguard-preview-progress", (e) => progress.push({ ...e.detail, bubbles: e.bubbles, composed: e.composed }));
        let bar = null;
        const observer = new MutationObserver(() => {
          const b = t.q(pv, "ctxguard-preview-progress");
          if (b && !bar) bar = { role: b.getAttribute("role"), now: b.getAttribute("aria-valuenow"), max: b.getAttribute("aria-valuemax") };
        });
        observer.observe(pv.shadowRoot, { subtree: true, childList: true, attributes: true });
        const big = new File([new Uint8Array(3_000_000).fill(0x61)], "big.log", { type: "text/plain" });
        const huge = new File([new Uint8Array(5_000_000)], "huge.txt", { type: "text/plain" });
        const report = await pv.previewFiles([big, huge]);
        observer.disconnect();
        return { progress, bar, rows: report.attachments.map((r) => [r.state, r.error?.code ?? null, r.error?.message ?? null]) };
      });
      assert(out.bar && out.bar.role === "progressbar" && out.bar.max === "100" && out.bar.now !== null, JSON.stringify(out.bar));
      const first = out.progress.filter((p) => p.file_index === 0);
      assert(first.length >= 2 && first.at(-1).done_bytes === 3_000_000 && first.at(-1).total_bytes === 3_000_000, JSON.stringify(first));
      assert(out.progress.every((p) => p.bubbles && p.composed), "bubbling, composed");
      // 3 MB of one line: over MAX_EXTRACTED_TEXT_LENGTH, so the backend keeps only part of it.
      assert(same(out.rows, [["truncated-on-upload", null, null], ["rejected", "file_too_large", "File size exceeds maximum limit (4.0 MB)"]]), JSON.stringify(out.rows));
    }),
  );

  await check("Cancel stops a running preview: no ctxguard-preview, previewFiles resolves to null, the next pick works", () =>
    h.with(async ({ page }) => {
      const out = await page.evaluate(async () => {
        const pv = t.add("<ctxguard-attachment-preview></ctxguard-attachment-preview>");
        let reports = 0;
        pv.addEventListener("ctxguard-preview", () => reports++);
        const file = new File([new Uint8Array(60_000_000).fill(0x62)], "slow.log", { type: "text/plain" });
        const started = new Promise((r) => pv.addEventListener("ctxguard-preview-progress", r, { once: true }));
        const pending = pv.previewFiles([file]);
        await started;
        const t0 = performance.now();
        t.q(pv, "ctxguard-preview-cancel").click();
        const result = await pending;
        const took = performance.now() - t0;
        await t.settle();
        const cancelled = !!t.q(pv, "ctxguard-preview-cancelled");
        const again = await pv.previewFiles([new File(["after the cancel"], "next.txt", { type: "text/plain" })]);
        return { result, took, reports, cancelled, again: again?.attachments.map((r) => r.state) };
      });
      assert(out.result === null && out.cancelled, JSON.stringify(out));
      assert(out.took < 100, `cancelled within 100 ms (${out.took.toFixed(1)} ms)`);
      assert(out.reports === 1 && same(out.again, ["fits"]), JSON.stringify(out));
    }),
  );

  await check("a 100 MB text file is previewed without freezing the page: no long task over 50 ms, at least 30 frames a second", () =>
    h.with(async ({ page }) => {
      await page.evaluate(async () => {
        // The file is made before the measurement: 100 MB of log lines.
        const line = new TextEncoder().encode("2026-12-01T10:00:00Z INFO request served in 12 ms path=/api/sessions/demo/events\n");
        const size = 100 * 1024 * 1024;
        const bytes = new Uint8Array(size);
        for (let at = 0; at < size; at += line.length) bytes.set(line.subarray(0, Math.min(line.length, size - at)), at);
        const file = new File([bytes], "big.log", { type: "text/plain" });
        const pv = t.add('<ctxguard-attachment-preview style="display:block;width:760px"></ctxguard-attachment-preview>');
        await t.settle();
        const m = (window.measure = { longTasks: [], frames: 0, running: true });
        const observer = new PerformanceObserver((list) => m.longTasks.push(...list.getEntries().map((e) => e.duration)));
        observer.observe({ type: "longtask" });
        const tick = () => {
          m.frames++;
          if (m.running) requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
        m.t0 = performance.now();
        window.pending = pv.previewFiles([file]).then((report) => {
          m.seconds = (performance.now() - m.t0) / 1000;
          m.running = false;
          observer.disconnect();
          return report;
        });
      });
      if (process.env.UPDATE_SCREENSHOT === "1") {
        // The progress bar mid-way, for docs/.
        const bar = page.locator("ctxguard-attachment-preview").last().locator('[data-testid="ctxguard-preview-progress"]');
        for (let i = 0; i < 400; i++) {
          const now = Number(await bar.getAttribute("aria-valuenow").catch(() => "0"));
          if (now >= 35 && now <= 80) break;
          await page.waitForTimeout(25);
        }
        const shot = join(root, "docs/preview-progress.png");
        await page.locator("ctxguard-attachment-preview").last().screenshot({ path: shot });
        console.log(`      wrote ${shot}`);
      }
      const out = await page.evaluate(async () => {
        const report = await window.pending;
        const m = window.measure;
        return { seconds: m.seconds, fps: m.frames / m.seconds, longest: Math.max(0, ...m.longTasks), state: report.attachments[0].state, kept: report.attachments[0].upload_truncation?.truncated_length };
      });
      console.log(`      100 MB log: ${out.seconds.toFixed(2)} s, ${out.fps.toFixed(0)} frames/s, longest main-thread task ${out.longest.toFixed(0)} ms`);
      assert(out.state === "truncated-on-upload" && out.kept <= 500000, JSON.stringify(out));
      assert(out.longest <= 50, `a long task of ${out.longest.toFixed(0)} ms on the main thread`);
      assert(out.fps >= 30, `${out.fps.toFixed(1)} frames a second`);
    }),
  );
}
