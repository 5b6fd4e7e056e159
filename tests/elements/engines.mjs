// The toolbar package in every browser engine (tests/support/engines.mjs:
// Chromium, Firefox ESR, WebKitGTK): the element checks that cover what differs
// between engines, each run in each engine through the same small page API
// (goto, evaluate): the open shadow root and its events, the SSE stream from a
// scripted server, and the worker preview of real documents against core's own
// composition. A check that passes in one engine and fails in another is a bug
// in the package. Prints `ok`/`FAIL [engine] name` lines and `N passed, M failed`.
//
// Usage: node tests/elements/engines.mjs [--engines chromium,firefox,webkit] [--only TEXT]
import { root, serveDirectory } from "../support/browser.mjs";
import { ENGINES, launchEngine } from "../support/engines.mjs";
import { Tally, assert, option, until, wanted } from "../support/net.mjs";
import { context, event } from "./fixtures.mjs";
import { PAGE_HELPERS, same } from "./harness.mjs";
import { startScriptedServer } from "./scripted-server.mjs";

/** The recorded uploads the preview check drops, by id (as the Chromium-only documents check). */
const DOCUMENTS = ["document_parse-docx-1", "document_parse-xlsx-1", "document_parse-pptx-1", "document_parse-csv-15", "document_parse-legacy-1"];

/** Opens the test host page in `engine` with the helpers (`t.add`, `t.q`, …) and the package loaded. */
async function hostPage(engine, site) {
  const page = await engine.newPage();
  await page.goto(`${site.origin}/tests/elements/pages/host.html`);
  await page.evaluate((helpers) => (0, eval)(helpers), PAGE_HELPERS);
  const state = await page.evaluate(() => window.ctxguardReady);
  assert(state === "ready", `the package did not load: ${state}`);
  return page;
}

/** The checks, each `(page, ctx) => Promise` on a fresh host page. */
const CHECKS = [
  [
    "shadow DOM: a host-fed <ctxguard-toolbar> renders pushed events in its open shadow root and reports a bubbling, composed ctxguard-change",
    async (page) => {
      const out = await page.evaluate(async ([first, second]) => {
        const tb = t.add('<ctxguard-toolbar source="host" session="engines"></ctxguard-toolbar>');
        const changes = [];
        document.addEventListener("ctxguard-change", (e) => changes.push({ bubbles: e.bubbles, composed: e.composed }));
        const applied = [tb.pushEvent(first), tb.pushEvent(second)];
        await t.settle();
        return {
          mode: tb.shadowRoot?.mode ?? null,
          applied,
          usage: t.text(tb, "ctxguard-usage"),
          remaining: t.text(tb, "ctxguard-remaining"),
          connection: t.attr(tb, "ctxguard-connection", "data-state"),
          changes,
          styled: tb.shadowRoot.querySelectorAll("style").length + (tb.shadowRoot.adoptedStyleSheets?.length ?? 0),
        };
      }, [event(20_000), event(30_000)]);
      assert(out.mode === "open", `shadow root mode ${out.mode}`);
      assert(out.usage === "30,000 / 128,000 tokens", `usage ${out.usage}`);
      assert(out.connection === "host", `connection ${out.connection}`);
      assert(out.changes.length >= 1 && out.changes.every((c) => c.bubbles && c.composed), JSON.stringify(out.changes));
      assert(out.styled > 0, "the shadow root carries its styles");
      return out;
    },
  ],
  [
    "SSE: <ctxguard-toolbar server session> reads /context, then the stream from its id; events apply, a malformed one is ignored; live",
    async (page, { server }) => {
      server.session("engines-live", context(7, 10_000));
      await page.evaluate((origin) => {
        window.tb = t.add(`<ctxguard-toolbar server="${origin}" session="engines-live"></ctxguard-toolbar>`);
      }, server.origin);
      const state = () => page.evaluate(() => ({ connection: t.attr(tb, "ctxguard-connection", "data-state"), id: tb.state.last_event_id, usage: t.text(tb, "ctxguard-usage"), ignored: t.attr(tb, "ctxguard-ignored", "data-count") }));
      await until("live", async () => (await state()).connection === "live", 20_000, 50);
      const [ctx] = server.to("engines-live", "context");
      const [events] = server.to("engines-live", "events");
      assert(ctx && events && ctx.at <= events.at, "context before events");
      assert(events.query.last_event_id === "7", JSON.stringify(events.query));
      assert((await state()).usage === "10,000 / 128,000 tokens", "the /context numbers");
      server.send("engines-live", 8, event(20_000));
      await until("event 8", async () => (await state()).id === 8, 10_000, 50);
      assert((await state()).usage === "20,000 / 128,000 tokens", "the event's numbers");
      server.send("engines-live", 9, "{not json");
      server.send("engines-live", 10, event(40_000));
      await until("event 10", async () => (await state()).id === 10, 10_000, 50);
      const last = await state();
      assert(last.usage === "40,000 / 128,000 tokens" && last.ignored === "1", JSON.stringify(last));
      await page.evaluate(() => tb.remove());
      await until("the stream closed when the element left the page", async () => server.open("engines-live") === 0, 10_000, 50);
      return last;
    },
  ],
  [
    "worker preview: real documents given to <ctxguard-attachment-preview> come back as the backend stores them, the block as core composes it",
    async (page) => {
      const out = await page.evaluate(async (ids) => {
        const core = await import("/pkg/core/ctxguard_core.js");
        const docs = await import("/pkg/core/documents/ctxguard_documents.js");
        await core.default();
        await docs.default();
        const lines = (await (await fetch("/tests/conformance/documents.jsonl")).text()).split("\n");
        const cases = ids.map((id) => JSON.parse(lines.find((l) => l.includes(`"id": "${id}"`))));
        const bytesOf = (c) => Uint8Array.from(atob(c.data_base64), (ch) => ch.charCodeAt(0));
        const pv = t.add('<ctxguard-attachment-preview limit="4000"></ctxguard-attachment-preview>');
        const report = await pv.previewFiles(cases.map((c) => new File([bytesOf(c)], c.filename)));
        await t.settle();
        const rows = t.all(pv, "ctxguard-attachment-row").map((r) => r.dataset.state);
        const attachments = cases.map((c, i) => {
          let record;
          try {
            record = docs.parseDocument(bytesOf(c), c.filename).record;
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
        return { rows, report, previewed, expected: cases.map((c) => c.expected) };
      }, DOCUMENTS);
      assert(same(out.rows, ["fits", "fits", "fits", "fits", "rejected"]), `rows ${JSON.stringify(out.rows)}`);
      out.report.attachments.forEach((row, i) => {
        const e = out.expected[i];
        if (e.error) assert(row.error && row.error.code === e.error.code && row.error.message === e.error.message, `${DOCUMENTS[i]}: ${JSON.stringify([row.error, e.error])}`);
        else assert(row.stored_chars === e.text_length && row.error === null, `${DOCUMENTS[i]}: ${JSON.stringify([row.stored_chars, e.text_length])}`);
        assert(row.mime_type === e.record.type_data.mime_type, `${DOCUMENTS[i]}: ${JSON.stringify([row.mime_type, e.record.type_data.mime_type])}`);
      });
      assert(out.report.rendered === out.previewed, "the rendered block is core's composition of parseDocument's records, bounded by previewAttachments");
      assert(!out.report.rendered.includes("\ufffd"), "the GBK CSV decoded as the backend decodes it");
      return out.report.block_tokens_before;
    },
  ],
];

const engines = option("--engines", ENGINES.join(",")).split(",");
const tally = new Tally();
const site = await serveDirectory(root);
const server = await startScriptedServer();
const watchdog = setTimeout(() => {
  tally.fail("the whole run took longer than 900 s");
  process.exit(tally.finish());
}, 900_000);
try {
  for (const name of engines) {
    const checks = CHECKS.filter(([title]) => wanted(`[${name}] ${title}`));
    if (!checks.length) continue;
    let engine;
    try {
      engine = await launchEngine(name);
      console.log(`[${name}] ${engine.version}`);
    } catch (e) {
      tally.fail(`[${name}] the browser did not start: ${e.message}`);
      continue;
    }
    try {
      for (const [title, fn] of checks) {
        await tally.check(`[${name}] ${title}`, async () => {
          const page = await hostPage(engine, site);
          try {
            await fn(page, { server });
            assert(page.errors.length === 0, `page errors: ${page.errors.join(" | ")}`);
          } finally {
            await page.close().catch(() => {});
          }
        });
      }
    } finally {
      await engine.close().catch(() => {});
    }
  }
} finally {
  clearTimeout(watchdog);
  await server.close();
  await site.close();
}
process.exit(tally.finish());
