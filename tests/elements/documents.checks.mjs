// <ctxguard-attachment-preview> and the documents issue: real uploads (a .docx,
// an .xlsx, a .pptx, a GBK .csv and a legacy .doc, taken from the recorded cases)
// dropped onto the element, each row checked against the recorded record, and the
// rendered block checked against ctxguard-core's own path in the same page:
// parseDocument (ctxguard-core/documents) → composeAttachmentBlock → previewAttachments.
import { join } from "node:path";
import { root } from "../support/browser.mjs";
import { assert } from "../support/net.mjs";
import { same } from "./harness.mjs";

/** The recorded cases the check uploads, by id. */
const CASES = ["document_parse-docx-1", "document_parse-xlsx-1", "document_parse-pptx-1", "document_parse-csv-15", "document_parse-legacy-1"];

export async function documentsChecks(h, check) {
  await check("documents dropped on the preview: every row as the backend stores it, the block as core composes it from parseDocument's records", () =>
    h.with(async ({ page }) => {
      const out = await page.evaluate(async (ids) => {
        const core = await import("/pkg/core/ctxguard_core.js");
        const docs = await import("/pkg/core/documents/ctxguard_documents.js");
        await core.default();
        await docs.default();
        const lines = (await (await fetch("/tests/conformance/documents.jsonl")).text()).split("\n");
        const cases = ids.map((id) => JSON.parse(lines.find((l) => l.includes(`"id": "${id}"`))));
        const bytesOf = (c) => Uint8Array.from(atob(c.data_base64), (ch) => ch.charCodeAt(0));
        const files = cases.map((c) => new File([bytesOf(c)], c.filename));
        // And a log the backend keeps only part of (max-text-length="2000").
        const log = Array.from({ length: 300 }, (_, i) => `2026-12-01T10:00:${String(i % 60).padStart(2, "0")}Z request ${i} served`).join("\n");
        files.push(new File([log], "server.log", { type: "text/plain" }));
        // Dropped as a user drops them.
        const pv = t.add('<ctxguard-attachment-preview limit="4000" max-text-length="2000" style="display:block;width:980px"></ctxguard-attachment-preview>');
        await t.settle();
        const reported = new Promise((r) => pv.addEventListener("ctxguard-preview", (e) => r(e.detail), { once: true }));
        const data = new DataTransfer();
        for (const f of files) data.items.add(f);
        t.q(pv, "ctxguard-dropzone").dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
        const report = await reported;
        await t.settle();
        const rows = t.all(pv, "ctxguard-attachment-row").map((r) => ({
          state: r.dataset.state,
          code: r.querySelector('[data-testid="ctxguard-attachment-error"]')?.dataset.code ?? null,
          text: r.textContent,
        }));
        // The same uploads through ctxguard-core's API.
        const uploads = cases.concat([{ filename: "server.log", data_base64: btoa(log) }]);
        const attachments = uploads.map((c, i) => {
          let record;
          try {
            record = docs.parseDocument(bytesOf(c), c.filename, { max_text_length: 2000 }).record;
          } catch (e) {
            record = e.record;
          }
          return {
            attachment_id: i + 1,
            filename: c.filename,
            mime_type: record.type_data.mime_type,
            file_size: record.type_data.file_size,
            extracted_text: record.extracted_text || null,
            is_truncated: record.type_data.is_truncated ?? false,
            is_image: false,
            image_base64: null,
            sandbox_path: null,
          };
        });
        const blocks = core.composeAttachmentBlock(attachments, {});
        const composed = Array.isArray(blocks) ? blocks[0].text : "";
        const previewed = core.previewAttachments([{ role: "user", content: composed }], "gpt-4o", 4000).messages[0].content;
        const expected = cases.map((c) => c.expected);
        return { report, rows, previewed, composedTokens: core.countTokens(composed, "gpt-4o"), expected, files: pv.files.length };
      }, CASES);
      if (process.env.UPDATE_SCREENSHOT === "1") {
        const shot = join(root, "docs/preview-documents.png");
        await page.locator("ctxguard-attachment-preview").last().screenshot({ path: shot });
        console.log(`      wrote ${shot}`);
      }
      const { report, rows, expected } = out;
      assert(out.files === 6, "the files property lists the drop");
      assert(same(rows.map((r) => r.state), ["fits", "fits", "fits", "fits", "rejected", "truncated-on-upload"]), JSON.stringify(rows.map((r) => r.state)));
      // Each row is the recorded record's: what the backend stores, or its refusal.
      report.attachments.slice(0, 5).forEach((row, i) => {
        const e = expected[i];
        if (e.error) {
          assert(row.error && row.error.code === e.error.code && row.error.message === e.error.message, JSON.stringify([row.error, e.error]));
        } else {
          assert(row.stored_chars === e.text_length && row.error === null, JSON.stringify([row.stored_chars, e.text_length]));
        }
        assert(row.mime_type === e.record.type_data.mime_type, JSON.stringify([row.mime_type, e.record.type_data.mime_type]));
      });
      assert(rows[4].code === "legacy_doc" && rows[4].text.includes("Outdated file format") && rows[4].text.includes("Please save the .doc file as .docx format and upload again"), rows[4].text);
      assert(report.rendered === out.previewed, "the rendered block is core's composition of parseDocument's records, bounded by previewAttachments");
      assert(report.block_tokens_before === out.composedTokens, JSON.stringify([report.block_tokens_before, out.composedTokens]));
      // The GBK CSV was decoded as the backend decodes it, not as UTF-8 (no U+FFFD).
      assert(report.rendered.includes("--- Sheet: CSV Data ---") && !report.rendered.includes("\ufffd"), "GBK decoded");
    }),
  );

  await check("a document over MAX_EXTRACTED_TEXT_LENGTH shows truncated-on-upload with the backend's summary", () =>
    h.with(async ({ page }) => {
      const out = await page.evaluate(async () => {
        const pv = t.add('<ctxguard-attachment-preview max-text-length="2000"></ctxguard-attachment-preview>');
        const text = Array.from({ length: 400 }, (_, i) => `line ${i} of a long log`).join("\n");
        const report = await pv.previewFiles([new File([text], "app.txt", { type: "text/plain" })]);
        await t.settle();
        return { row: report.attachments[0], shown: t.q(pv, "ctxguard-upload-truncation")?.textContent ?? null };
      });
      assert(out.row.state === "truncated-on-upload" && out.row.upload_truncation.truncated_length <= 2000, JSON.stringify(out.row));
      assert(out.row.upload_truncation.summary_message.startsWith("[Smart Truncation Applied - Head + Tail (contiguous)]"), out.row.upload_truncation.summary_message);
      assert(out.shown && out.shown.includes("File content truncated") && out.shown.includes("Total: 400 lines"), out.shown);
    }),
  );

  await check("parseDocument takes a File: in a dedicated worker read synchronously by slices (the answer at once), on the main thread a Promise; both the bytes' answer", () =>
    h.with(async ({ page }) => {
      const out = await page.evaluate(async (ids) => {
        const docs = await import("/pkg/core/documents/ctxguard_documents.js");
        await docs.default();
        const lines = (await (await fetch("/tests/conformance/documents.jsonl")).text()).split("\n");
        const cases = ids.map((id) => JSON.parse(lines.find((l) => l.includes(`"id": "${id}"`))));
        const bytesOf = (c) => Uint8Array.from(atob(c.data_base64), (ch) => ch.charCodeAt(0));
        const answer = (f) => {
          try {
            return JSON.stringify(f());
          } catch (e) {
            return JSON.stringify({ code: e.code, message: e.message, record: e.record });
          }
        };
        const settle = async (p) => {
          try {
            return JSON.stringify(await p);
          } catch (e) {
            return JSON.stringify({ code: e.code, message: e.message, record: e.record });
          }
        };
        const files = cases.map((c) => new File([bytesOf(c)], c.filename));
        const fromBytes = cases.map((c) => answer(() => docs.parseDocument(bytesOf(c), c.filename, { max_text_length: 2000 })));
        const main = [];
        let promised = true;
        for (const f of files) {
          const p = docs.parseDocument(f, f.name, { max_text_length: 2000 });
          promised &&= typeof p?.then === "function";
          main.push(await settle(p));
        }
        const source = `import init, { parseDocument } from "${location.origin}/pkg/core/documents/ctxguard_documents.js";
          onmessage = async ({ data }) => {
            await init();
            const out = data.map((f) => {
              try {
                const d = parseDocument(f, f.name, { max_text_length: 2000 });
                return typeof d?.then === "function" ? "a Promise" : JSON.stringify(d);
              } catch (e) {
                return JSON.stringify({ code: e.code, message: e.message, record: e.record });
              }
            });
            postMessage(out);
          };`;
        const worker = new Worker(URL.createObjectURL(new Blob([source], { type: "text/javascript" })), { type: "module" });
        const inWorker = await new Promise((resolve, reject) => {
          worker.onmessage = ({ data }) => resolve(data);
          worker.onerror = (e) => reject(new Error(e.message));
          worker.postMessage(files);
        });
        worker.terminate();
        return { fromBytes, main, inWorker, promised };
      }, CASES);
      assert(out.promised, "a File on the main thread gives a Promise");
      assert(same(out.main, out.fromBytes), "main thread: the bytes' answers");
      assert(same(out.inWorker, out.fromBytes), `worker: the bytes' answers, returned at once (${out.inWorker.map((x) => x.slice(0, 60))})`);
    }),
  );
}
