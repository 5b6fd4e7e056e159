// <ctxguard-toolbar> before sending: setUsage from the three providers' usage
// shapes and the declarative attributes, and the projection of the draft and
// of a linked preview's files (the ghost segment, "after sending: N% left",
// the consequence, the ctxguard-projection event).
import { assert } from "../support/net.mjs";
import { same } from "./harness.mjs";
import { event } from "./fixtures.mjs";

const FILES = `
  window.mkfile = ([name, body, type]) => new File([body], name, { type });
`;

export async function projectionChecks(h, check) {
  await check("setUsage (read in the toolbar's worker, resolving to the outcome) builds the snapshot from OpenAI, Anthropic and AI SDK usage shapes and the model/context-window attributes", () =>
    h.with(async ({ page }) => {
      const out = await page.evaluate(async () => {
        const tb = t.add('<ctxguard-toolbar source="host" session="u1"></ctxguard-toolbar>');
        const seen = [];
        tb.addEventListener("ctxguard-change", (e) => seen.push(e.detail.metrics?.used_input_tokens));
        const r = [];
        r.push(await tb.setUsage({ model: "gpt-4o", usage: { prompt_tokens: 32_000, completion_tokens: 12, total_tokens: 32_012 } }));
        await t.settle();
        const openai = [tb.state.metrics, t.text(tb, "ctxguard-remaining")];
        r.push(await tb.setUsage({ model: "claude-sonnet-4-20250514", input_tokens: 12, cache_creation_input_tokens: 3_000, cache_read_input_tokens: 40_000 }));
        const anthropic = tb.state.metrics;
        const declared = t.add('<ctxguard-toolbar source="host" session="u2" model="my-model" context-window="32000"></ctxguard-toolbar>');
        r.push(await declared.setUsage({ inputTokens: 16_000, outputTokens: 40, totalTokens: 16_040 }));
        await t.settle();
        const aiSdk = [declared.state.metrics, t.text(declared, "ctxguard-remaining")];
        let threw = null;
        try { await declared.setUsage({ outputTokens: 5 }); } catch (e) { threw = [e.constructor.name, e.message]; }
        return { r, openai, anthropic, aiSdk, threw, seen };
      });
      assert(same(out.r, ["applied", "applied", "applied"]), JSON.stringify(out.r));
      const [m, remaining] = out.openai;
      assert(m.used_input_tokens === 32_000 && m.trigger_limit === 100_800 && m.display_remaining_percent === 75, JSON.stringify(m));
      assert(remaining === "Context 75% left", remaining);
      // Anthropic's context is input + cache creation + cache read; claude-sonnet-4: 200000 / 64000.
      const a = out.anthropic;
      assert(a.used_input_tokens === 43_012 && a.context_window === 200_000 && a.reserved_output_tokens === 20_000, JSON.stringify(a));
      // context-window="32000" acts as the model config: reserved 16000 (no max output), ratios 0.90 / 0.70.
      const [s, declaredRemaining] = out.aiSdk;
      assert(s.context_window === 32_000 && s.available_input_tokens === 16_000 && s.trigger_limit === 14_400 && s.target_limit === 11_200, JSON.stringify(s));
      assert(s.is_over_trigger === true && declaredRemaining === "Context 50% left", `${JSON.stringify(s)} ${declaredRemaining}`);
      assert(out.threw?.[0] === "TypeError" && out.threw[1].includes("inputTokens (AI SDK)"), JSON.stringify(out.threw));
      assert(out.seen.includes(32_000) && out.seen.includes(43_012), JSON.stringify(out.seen));
    }),
  );

  await check("typing a draft: ctxguard-projection with the outcome and numbers, counted in the worker; a linked preview's file grows the ghost; crossing the trigger reads as compaction", () =>
    h.with(async ({ page }) => {
      await page.evaluate(FILES);
      const out = await page.evaluate(async (before) => {
        const tb = t.add('<ctxguard-toolbar id="tb" source="host" session="p1"></ctxguard-toolbar>');
        const pv = t.add('<ctxguard-attachment-preview for="tb"></ctxguard-attachment-preview>');
        tb.pushEvent(before);
        const events = [];
        tb.addEventListener("ctxguard-projection", (e) => events.push({ detail: e.detail, bubbles: e.bubbles, composed: e.composed }));
        const wait = async (test) => {
          for (let i = 0; i < 200 && !test(); i++) await new Promise((r) => setTimeout(r, 25));
          await t.settle();
        };
        tb.setDraft("hello");
        await wait(() => events.length > 0);
        const typed = { event: events.at(-1), ghost: t.attr(tb, "projection-ghost", "style"), left: t.text(tb, "projection-left"), words: t.text(tb, "projection-consequence"), property: tb.draft };
        // A file cut to the block budget in the linked preview: 96006 + its block crosses the trigger 100800.
        await pv.previewFiles([mkfile(["notes.txt", "token ".repeat(37_000), "text/plain"])]);
        await wait(() => events.at(-1)?.detail?.block_tokens > 0);
        const attached = { event: events.at(-1), ghost: t.attr(tb, "projection-ghost", "style"), outcome: t.attr(tb, "projection-summary", "data-outcome"), words: t.text(tb, "projection-consequence"), left: t.text(tb, "projection-left") };
        // A 1 MB paste: counted off the main thread, the setter returns at once.
        const t0 = performance.now();
        tb.draft = "word ".repeat(200_000);
        const setterMs = performance.now() - t0;
        await wait(() => events.at(-1)?.detail?.message_tokens > 100_000);
        const pasted = events.at(-1).detail;
        tb.draft = "";
        pv.previewFiles([]);
        await wait(() => events.at(-1)?.detail?.message_tokens === 5);
        return { typed, attached, setterMs, pasted, last: events.at(-1).detail, ghostLeft: t.q(tb, "projection-ghost") !== null };
      }, event(96_000));
      const d = out.typed.event.detail;
      // "hello" as a user message: 4 + tok("user") + tok("hello") = 6 (gpt-4o's default o200k).
      assert(d.outcome === "fits" && d.message_tokens === 6 && d.block_tokens === 0 && d.added_tokens === 6, JSON.stringify(d));
      assert(d.metrics.used_input_tokens === 96_006 && d.remaining_percent === 24, JSON.stringify(d));
      assert(out.typed.event.bubbles && out.typed.event.composed, "ctxguard-projection bubbles and is composed");
      assert(out.typed.left === "After sending: 24% left" && out.typed.words === "Fits: it is sent as it is.", `${out.typed.left} | ${out.typed.words}`);
      assert(out.typed.property === "hello", out.typed.property);
      const width = (style) => Number(/width:\s*([\d.]+)%/.exec(style ?? "")?.[1] ?? NaN);
      assert(width(out.attached.ghost) > width(out.typed.ghost), `the ghost did not grow: ${out.typed.ghost} -> ${out.attached.ghost}`);
      const a = out.attached.event.detail;
      assert(a.block_tokens > 5_000 && a.added_tokens === a.block_tokens + 6, JSON.stringify(a));
      assert(a.outcome === "compacts" && a.expected_after_tokens === 89_600 && a.metrics.is_over_trigger, JSON.stringify(a));
      assert(out.attached.outcome === "compacts" && out.attached.words.startsWith("Crosses the compaction trigger") && out.attached.words.includes("89,600 tokens"), out.attached.words);
      assert(out.setterMs < 20, `setting a 1 MB draft took ${out.setterMs} ms on the main thread`);
      assert(out.pasted.message_tokens > 100_000 && out.pasted.outcome !== "fits", JSON.stringify({ ...out.pasted, metrics: undefined }));
      // The draft cleared, the file still listed: the block travels alone, in a message of its own overhead.
      assert(out.last.message_tokens === 5 && out.last.block_tokens === a.block_tokens, JSON.stringify({ ...out.last, metrics: undefined }));
    }),
  );
}
