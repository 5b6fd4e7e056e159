// <ctxguard-toolbar> fed by the host page (source="host"): methods, state,
// DOM events, history, forecast, saving and restoring, rendering, attributes.
import { assert } from "../support/net.mjs";
import { same } from "./harness.mjs";
import { CREATED, compaction, context, createdAt, event, metrics, wegent } from "./fixtures.mjs";

/** Adds a host-fed toolbar for `session` and returns nothing; the page keeps it as window.tb. */
const ADD = (session = "s1", extra = "") =>
  `window.tb = t.add('<ctxguard-toolbar source="host" session="${session}" ${extra}></ctxguard-toolbar>');`;

export async function toolbarChecks(h, check) {
  await check("a Wegent host's late heartbeat, cancelled turn, unknown phase, over-window numbers and socket state, each explained", () =>
    h.with(async ({ page }) => {
      const out = await page.evaluate(
        async ([add, started, progress, done, cold, over]) => {
          eval(add);
          const ignored = [];
          document.addEventListener("ctxguard-ignored", (e) => ignored.push({ ...e.detail, bubbles: e.bubbles, composed: e.composed }));
          const r = [tb.pushEvent(started), tb.pushEvent(done), tb.pushEvent(progress)];
          await t.settle();
          const afterLate = t.attr(tb, "ctxguard-compaction", "data-state");
          r.push(tb.pushEvent(cold));
          await t.settle();
          const usageCold = t.text(tb, "ctxguard-usage");
          r.push(tb.pushEvent(over));
          await t.settle();
          const exceeded = t.text(tb, "ctxguard-remaining");
          const clamped = tb.state.metrics.display_remaining_percent;
          const second = JSON.parse(JSON.stringify(progress));
          second.context_compaction.created_at = "2026-06-23T15:30:00.000000+00:00";
          r.push(tb.pushEvent(second));
          const interrupted = tb.turnEnded("cancelled");
          await t.settle();
          const chip = [t.attr(tb, "ctxguard-compaction", "data-state"), t.text(tb, "ctxguard-compaction")];
          let threw = null;
          try { tb.turnEnded("sideways"); } catch (e) { threw = e.constructor.name; }
          tb.setConnection("reconnecting");
          await t.settle();
          const connection = [t.attr(tb, "ctxguard-connection", "data-state"), tb.state.connection];
          r.push(tb.pushEvent({ phase: 3, task_id: 7, context_metrics: {} }));
          return { r, afterLate, usageCold, exceeded, clamped, interrupted, chip, threw, connection, ignored, state: tb.state };
        },
        [ADD(), wegent(compaction("started")), wegent(compaction("in_progress")), wegent(compaction("completed", { after_tokens: 40_000 }, 40_000)),
          { ...wegent(event(64_000)), phase: "persisted" },
          { ...wegent(event(140_000)), context_metrics: { ...metrics(140_000), display_remaining_percent: -9, remaining_percent: -25 } },],
      );
      assert(same(out.r, ["applied", "applied", "stale", "applied", "applied", "applied", "malformed"]), JSON.stringify(out.r));
      assert(out.afterLate === "completed", `the late heartbeat reopened it: ${out.afterLate}`);
      assert(out.usageCold === "64,000 / 128,000 tokens", out.usageCold);
      assert(out.exceeded === "Context window exceeded", out.exceeded);
      assert(out.interrupted === true && same(out.chip, ["interrupted", "Compaction interrupted · turn cancelled"]), JSON.stringify(out.chip));
      assert(out.threw === "TypeError", `turnEnded("sideways") threw ${out.threw}`);
      assert(same(out.connection, ["reconnecting", "reconnecting"]), JSON.stringify(out.connection));
      assert(out.state.history.length === 1 && out.state.interrupted?.reason === "cancelled", JSON.stringify(out.state.history));
      assert(out.clamped === 0, `display_remaining_percent -9 read as ${out.clamped}`);
      const kinds = out.ignored.map((d) => [d.outcome, d.field, d.bubbles && d.composed]);
      assert(same(kinds, [["stale", "context_compaction.created_at", true], ["malformed", "phase", true]]), JSON.stringify(out.ignored));
      assert(out.ignored.every((d) => typeof d.reason === "string" && d.reason.length > 0), JSON.stringify(out.ignored));
    }),
  );

  // No event costs the page a task over 50 ms (laying out or copying a long text blocked it for seconds), a 10 MB failure_reason included.
  // Measured here (2-core machine, 2026-12-07): the push task takes 32-36 ms, the browser
  // encoding the text straight into the module's memory (js_text.rs; 40-48 ms when it went
  // through a scratch array, 2.7 s at first); the first 10 MB of a page, for which that
  // memory first grows, 50-90 ms. Three fallbacks
  // with different 10 MB reasons follow each other; each must show and hand back its own
  // text (the title, state and both events carry the string the page pushed, ===), and one
  // of the three at least must run without a long task (one slow turn of a loaded machine
  // does not fail the check; a regression, slow every time, does).
  await check("a 10 MB failure_reason is laid out cut, handed back whole, and costs no task over 50 ms", () =>
    h.with(async ({ page }) => {
      const attempts = await page.evaluate(
        async ([add, e]) => {
          eval(add);
          tb.pushEvent(e);
          const long = [];
          new PerformanceObserver((list) => long.push(...list.getEntries().map((x) => Math.round(x.duration)))).observe({ type: "longtask" });
          const seen = {};
          tb.addEventListener("ctxguard-change", (ev) => (seen.change = ev.detail));
          tb.addEventListener("ctxguard-compaction", (ev) => (seen.compaction = ev.detail));
          const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
          const attempts = [];
          for (const [i, letter] of ["r", "s", "t"].entries()) {
            const fallback = JSON.parse(JSON.stringify(e));
            fallback.context_compaction.status = "fallback";
            fallback.context_compaction.created_at = `2026-06-23T15:0${i}:00Z`;
            // As an event read off the network carries it: one flat string (`repeat` makes a
            // rope, which the first encoding of the push would have to flatten).
            const reason = JSON.parse(JSON.stringify(letter.repeat(10 << 20)));
            fallback.context_compaction.failure_reason = reason;
            await sleep(200);
            const before = long.length;
            const r = await new Promise((resolve) => setTimeout(() => resolve(tb.pushEvent(fallback)), 0));
            await sleep(1_000);
            const chip = tb.shadowRoot.querySelector('[data-testid="ctxguard-compaction"]');
            attempts.push({
              r,
              long: long.slice(before),
              shown: chip.textContent.length,
              whole: [chip.title, tb.state.compaction.failure_reason, seen.change?.compaction?.failure_reason, seen.compaction?.failure_reason].map((t) => t === reason),
            });
          }
          // A small event after them carries the last reason on, at no cost.
          const small = JSON.parse(JSON.stringify(e));
          delete small.context_compaction;
          small.context_metrics.used_input_tokens += 1;
          tb.pushEvent(small);
          attempts.push({ after: seen.change?.compaction?.failure_reason === "t".repeat(10 << 20) });
          return attempts;
        },
        [ADD("big"), compaction("in_progress")],
      );
      const after = attempts.pop().after;
      console.log(`    10 MB failure_reasons: long tasks ${JSON.stringify(attempts.map((a) => a.long))} ms`);
      for (const a of attempts) {
        assert(a.r === "applied" && a.shown < 1_100, JSON.stringify(a));
        assert(a.whole.every(Boolean), `title, state, ctxguard-change, ctxguard-compaction hand back the pushed text: ${JSON.stringify(a.whole)}`);
      }
      assert(after, "a later event's ctxguard-change still carries the whole reason");
      assert(attempts.some((a) => a.long.every((ms) => ms < 50)), `long tasks (ms): ${JSON.stringify(attempts.map((a) => a.long))}`);
    }),
  );

  await check("pushEvent applies the SSE payload, Wegent's chat:status_updated payload and JSON text", () =>
    h.with(async ({ page }) => {
      const out = await page.evaluate(
        async ([add, a, b, c]) => {
          eval(add);
          const r = [tb.pushEvent(a), tb.pushEvent(b), tb.pushEvent(JSON.stringify(c))];
          await t.settle();
          return { r, shown: t.shown(tb), state: tb.state };
        },
        [ADD(), event(32_000), wegent(event(48_000)), event(64_000)],
      );
      assert(same(out.r, ["applied", "applied", "applied"]), JSON.stringify(out.r));
      assert(out.shown.remaining === "Context 50% left", out.shown.remaining);
      assert(out.shown.usage === "64,000 / 128,000 tokens", out.shown.usage);
      assert(out.shown.connection === "host", out.shown.connection);
      assert(out.state.last_event_id === 3 && out.state.metrics.used_input_tokens === 64_000, JSON.stringify(out.state));
      assert(out.state.session === "s1" && out.state.connection === "host" && out.state.restored === false, JSON.stringify(out.state));
    }),
  );

  await check("pushEvent ids: explicit ids follow the id rules, events without one are numbered after the last", () =>
    h.with(async ({ page }) => {
      const out = await page.evaluate(
        ([add, e]) => {
          eval(add);
          return [
            tb.pushEvent(e, 10),
            tb.pushEvent(e, 10),
            tb.pushEvent(e, "9"),
            tb.pushEvent(e),
            tb.state.last_event_id,
            tb.pushEvent(e, "12"),
            tb.state.last_event_id,
          ];
        },
        [ADD(), event(1_000)],
      );
      assert(same(out, ["applied", "stale", "stale", "applied", 11, "applied", 12]), JSON.stringify(out));
    }),
  );

  await check('pushEvent with each malformed input returns "malformed" and changes nothing', () =>
    h.with(async ({ page }) => {
      const good = event(40_000);
      // A phase that is not a string (an unknown name applies), and a count
      // that is not a number (a negative one is clamped).
      const badPhase = { ...event(1), phase: ["no_such_phase"] };
      const negative = event(1);
      negative.context_metrics.used_input_tokens = "-5";
      const fraction = event(1);
      fraction.context_metrics.used_input_tokens = 1.5;
      const badTime = compaction("started", { created_at: "yesterday" });
      const noMetrics = { type: "response.status.updated", response_id: "r", phase: "final" };
      const noTask = { phase: "final", context_metrics: metrics(1) };
      const out = await page.evaluate(
        async ([add, good, cases]) => {
          eval(add);
          tb.pushEvent(good);
          await t.settle();
          const before = { state: JSON.stringify(tb.state), shown: t.shown(tb) };
          let changes = 0;
          tb.addEventListener("ctxguard-change", () => changes++);
          const cyclic = { type: "response.status.updated" };
          cyclic.self = cyclic;
          const inputs = [
            ...cases.map((c) => [c]),
            [undefined],
            [null],
            [42],
            [true],
            ["{not json"],
            ["[1,2,3]"],
            ['"a string"'],
            [{}],
            [[]],
            [cyclic],
            [{ ...good, context_metrics: { ...good.context_metrics, used_input_tokens: 10n } }],
            [good, -1],
            [good, 1.5],
            [good, "abc"],
            [good, "1e3"],
            [good, {}],
            [good, 2 ** 64],
            [good, "18446744073709551615"],
            [good, Number.MAX_SAFE_INTEGER + 2],
          ];
          const results = inputs.map((args) => tb.pushEvent(...args));
          await t.settle();
          return {
            results,
            changes,
            same: JSON.stringify(tb.state) === before.state,
            before: before.shown,
            after: t.shown(tb),
            ignored: t.attr(tb, "ctxguard-ignored", "data-count"),
          };
        },
        [ADD(), good, [badPhase, negative, fraction, badTime, noMetrics, noTask]],
      );
      const bad = out.results.map((r, i) => [i, r]).filter(([, r]) => r !== "malformed");
      assert(bad.length === 0, `not malformed: ${JSON.stringify(bad)}`);
      assert(out.same, "the state changed");
      assert(out.changes === 0, `${out.changes} ctxguard-change events`);
      assert(same(out.before, out.after), `${JSON.stringify(out.before)} → ${JSON.stringify(out.after)}`);
      assert(Number(out.ignored) === out.results.length, `ignored count ${out.ignored}`);
    }),
  );

  await check('pushEvent of another event type returns "unknown" and changes nothing', () =>
    h.with(async ({ page }) => {
      const out = await page.evaluate(
        ([add, e]) => {
          eval(add);
          tb.pushEvent(e);
          const before = JSON.stringify(tb.state);
          const r = [tb.pushEvent({ ...e, type: "chat:message" }), tb.pushEvent(JSON.stringify({ type: "other" }))];
          return { r, same: JSON.stringify(tb.state) === before };
        },
        [ADD(), event(1_000)],
      );
      assert(same(out.r, ["unknown", "unknown"]) && out.same, JSON.stringify(out));
    }),
  );

  await check("applyContext replaces the state (even at a lower id); a bad body is malformed", () =>
    h.with(async ({ page }) => {
      const out = await page.evaluate(
        async ([add, e, ctx, ctxText]) => {
          eval(add);
          tb.pushEvent(e, 500);
          const r1 = tb.applyContext(ctx);
          await t.settle();
          const after = { state: tb.state, shown: t.shown(tb) };
          const r2 = tb.applyContext(ctxText);
          const bad = [tb.applyContext("{"), tb.applyContext({ event_id: -1 }), tb.applyContext({ event_id: 1, phase: "nope" }), tb.applyContext(7)];
          return { r1, r2, bad, after, last: tb.state.last_event_id, next: tb.pushEvent(e) };
        },
        [ADD(), event(90_000), context(3, 1_000, { model: "gpt-4", attachment_limit: 700 }), JSON.stringify(context(4, 2_000))],
      );
      assert(out.r1 === "applied" && out.r2 === "applied", JSON.stringify([out.r1, out.r2]));
      assert(same(out.bad, ["malformed", "malformed", "malformed", "malformed"]), JSON.stringify(out.bad));
      assert(out.after.state.last_event_id === 3 && out.after.shown.usage === "1,000 / 128,000 tokens", JSON.stringify(out.after));
      assert(same(out.after.state.attachment_budget, { model: "gpt-4", limit_tokens: 700 }), JSON.stringify(out.after.state.attachment_budget));
      assert(out.last === 4 && out.next === "applied", JSON.stringify(out));
    }),
  );

  await check("ctxguard-change fires after every applied event and connection change, bubbling and composed", () =>
    h.with(async ({ page }) => {
      const out = await page.evaluate(
        async ([a, b]) => {
          // The toolbar sits inside another component's shadow root: the events still reach the document.
          const outer = t.add("<div></div>");
          const root = outer.attachShadow({ mode: "open" });
          const seen = [];
          document.addEventListener("ctxguard-change", (e) => seen.push(["doc", e.detail.last_event_id, e.detail.connection, e.bubbles, e.composed]));
          const el = document.createElement("ctxguard-toolbar");
          el.setAttribute("source", "host");
          el.setAttribute("session", "events");
          el.addEventListener("ctxguard-change", (e) => seen.push(["el", e.detail.last_event_id, same(e.detail, el.state)]));
          function same(x, y) { return JSON.stringify(x) === JSON.stringify(y); }
          root.append(el);
          const r = [el.pushEvent(a), el.pushEvent(a, 1), el.pushEvent("{bad"), el.pushEvent(b)];
          return { r, seen };
        },
        [event(1_000), event(2_000)],
      );
      const doc = out.seen.filter((s) => s[0] === "doc");
      const el = out.seen.filter((s) => s[0] === "el");
      // connect (connecting → host), event 1, event 2: three changes; the stale and the bad one none.
      assert(same(doc.map((s) => s[1]), [null, 1, 2]), JSON.stringify(doc));
      assert(doc[0][2] === "host" && doc.every((s) => s[3] && s[4]), JSON.stringify(doc));
      assert(el.length === 3 && el.every((s) => s[2]), `detail is the state: ${JSON.stringify(el)}`);
    }),
  );

  await check("ctxguard-compaction fires when the compaction's status changes, with the record", () =>
    h.with(async ({ page }) => {
      const out = await page.evaluate(
        ([add, started, heartbeat, done, next]) => {
          eval(add);
          const seen = [];
          tb.addEventListener("ctxguard-compaction", (e) => seen.push([e.detail.status, e.detail.created_at, e.bubbles, e.composed]));
          for (const e of [started, heartbeat, heartbeat, heartbeat, done, done, next]) tb.pushEvent(e);
          return seen;
        },
        [
          ADD(),
          compaction("started"),
          compaction("in_progress"),
          compaction("completed", { after_tokens: 30_000 }),
          compaction("started", { created_at: createdAt(5) }),
        ],
      );
      assert(
        same(out.map((s) => s[0]), ["started", "in_progress", "completed", "started"]),
        JSON.stringify(out),
      );
      assert(out[0][1] === CREATED && out[3][1] === createdAt(5) && out.every((s) => s[2] && s[3]), JSON.stringify(out));
    }),
  );

  await check("history: one entry per ended compaction, newest first; the count toggles it by click and Enter", () =>
    h.with(async ({ page }) => {
      const out = await page.evaluate(
        async ([add, events]) => {
          eval(add);
          for (const e of events) tb.pushEvent(e);
          await t.settle();
          const before = { count: t.q(tb, "ctxguard-compaction-count")?.dataset.count, open: Boolean(t.q(tb, "ctxguard-history")) };
          t.q(tb, "ctxguard-compaction-count").click();
          await t.settle();
          const items = t.all(tb, "ctxguard-history-item").map((li) => [li.dataset.status, li.textContent]);
          const expanded = t.attr(tb, "ctxguard-compaction-count", "aria-expanded");
          t.q(tb, "ctxguard-compaction-count").click();
          await t.settle();
          const closed = !t.q(tb, "ctxguard-history");
          const count = t.q(tb, "ctxguard-compaction-count");
          count.focus();
          count.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
          await t.settle();
          const reopened = Boolean(t.q(tb, "ctxguard-history"));
          return { before, items, expanded, closed, reopened, history: tb.state.history, role: count.getAttribute("role"), tabindex: count.tabIndex };
        },
        [
          ADD(),
          [
            event(90_000),
            compaction("started"),
            compaction("in_progress"),
            compaction("completed", { after_tokens: 30_000 }),
            compaction("completed", { after_tokens: 30_000 }), // repeated: no second entry
            compaction("started", { created_at: createdAt(10) }),
            compaction("fallback", { created_at: createdAt(10), failure_reason: "summary_compact_failed" }),
          ],
        ],
      );
      assert(out.before.count === "2" && !out.before.open, JSON.stringify(out.before));
      assert(same(out.items.map((i) => i[0]), ["fallback", "completed"]), JSON.stringify(out.items));
      assert(out.items[0][1].includes("the summary call failed"), out.items[0][1]);
      assert(out.items[1][1].includes("110,000 → 30,000") && out.items[1][1].includes("saved 80,000"), out.items[1][1]);
      assert(/ran \d+s/.test(out.items[1][1]) && /\d\d:\d\d/.test(out.items[1][1]), out.items[1][1]);
      assert(out.expanded === "true" && out.closed && out.reopened, JSON.stringify(out));
      assert(out.role === "button" && out.tabindex === 0, "the count is a focusable button");
      const [fell, done] = out.history;
      assert(fell.status === "fallback" && fell.reason === "summary_compact_failed" && fell.created_at === createdAt(10), JSON.stringify(fell));
      assert(done.status === "completed" && done.before_tokens === 110_000 && done.after_tokens === 30_000 && done.saved_tokens === 80_000, JSON.stringify(done));
      assert(typeof done.ended_ms === "number" && done.duration_ms >= 0, JSON.stringify(done));
    }),
  );

  await check("history keeps the last 50 entries", () =>
    h.with(async ({ page }) => {
      const events = [];
      for (let i = 0; i < 55; i++) events.push(compaction("completed", { created_at: createdAt(i), after_tokens: 1_000 + i }));
      const out = await page.evaluate(
        async ([add, events]) => {
          eval(add);
          for (const e of events) tb.pushEvent(e);
          await t.settle();
          return { count: t.attr(tb, "ctxguard-compaction-count", "data-count"), history: tb.state.history.map((e) => e.after_tokens) };
        },
        [ADD(), events],
      );
      assert(out.count === "50" && out.history.length === 50, JSON.stringify(out.count));
      assert(out.history[0] === 1_054 && out.history[49] === 1_005, JSON.stringify([out.history[0], out.history[49]]));
    }),
  );

  await check("forecast: ≈ T turns until compaction from turn starts; compaction due at the trigger", () =>
    h.with(async ({ page }) => {
      const out = await page.evaluate(
        async ([add, turns, over, one]) => {
          eval(add);
          const shots = [];
          for (const e of turns) {
            tb.pushEvent(e);
            await t.settle();
            shots.push([t.attr(tb, "ctxguard-forecast", "data-turns"), t.text(tb, "ctxguard-forecast")]);
          }
          tb.pushEvent(one);
          await t.settle();
          shots.push([t.attr(tb, "ctxguard-forecast", "data-turns"), t.text(tb, "ctxguard-forecast")]);
          tb.pushEvent(over);
          await t.settle();
          shots.push([t.attr(tb, "ctxguard-forecast", "data-turns"), t.text(tb, "ctxguard-forecast")]);
          return { shots, forecast: tb.state.forecast };
        },
        [
          ADD(),
          [event(60_000, "build_messages"), event(68_000, "after_tool_end"), event(70_000, "build_messages"), event(76_000, "build_messages")],
          event(101_000, "after_tool_end"),
          event(96_000, "after_tool_end"),
        ],
      );
      // Differences 10,000 and 6,000: g = 8,000; (100,800 − 76,000) / 8,000 = 3.1 → 4.
      assert(same(out.shots.slice(0, 3), [[null, null], [null, null], [null, null]]), JSON.stringify(out.shots));
      assert(same(out.shots[3], ["4", "≈ 4 turns until compaction"]), JSON.stringify(out.shots[3]));
      assert(same(out.shots[4], ["1", "≈ 1 turn until compaction"]), JSON.stringify(out.shots[4]));
      // At the trigger the forecast steps aside for the over-trigger chip (one signal at a time); the state keeps it.
      assert(same(out.shots[5], [null, null]), JSON.stringify(out.shots[5]));
      assert(same(out.forecast, { turns: 0, tokens_per_turn: 8_000 }), JSON.stringify(out.forecast));
    }),
  );

  await check("a reload restores the state, the history and the forecast at once (marked restored)", () =>
    h.with(async ({ page }) => {
      const events = [
        event(50_000, "build_messages"),
        event(54_000, "build_messages"),
        event(60_000, "build_messages"),
        compaction("completed", { after_tokens: 20_000 }),
        event(22_000, "build_messages"),
      ];
      const before = await page.evaluate(
        async ([add, events]) => {
          eval(add);
          for (const e of events) tb.pushEvent(e);
          await t.settle();
          return { state: tb.state, shown: t.shown(tb) };
        },
        [ADD("reload"), events],
      );
      await page.reload({ waitUntil: "load" });
      const after = await page.evaluate(async (add) => {
        await window.ctxguardReady;
        eval(add);
        await t.settle();
        return { state: tb.state, shown: t.shown(tb), restored: t.attr(tb, "ctxguard-connection", "data-restored") };
      }, ADD("reload"));
      assert(after.state.restored === true && after.restored === "true", JSON.stringify(after));
      for (const k of ["metrics", "compaction", "history", "forecast", "last_event_id", "phase"]) {
        assert(same(after.state[k], before.state[k]), `${k}: ${JSON.stringify(before.state[k])} → ${JSON.stringify(after.state[k])}`);
      }
      assert(before.state.forecast !== null && before.state.history.length === 1, JSON.stringify(before.state));
      for (const k of ["remaining", "usage", "compaction", "forecast", "count"]) {
        assert(after.shown[k] === before.shown[k], `${k}: ${before.shown[k]} → ${after.shown[k]}`);
      }
      // A pushed event confirms it.
      const confirmed = await page.evaluate(async (e) => {
        tb.pushEvent(e);
        await t.settle();
        return [tb.state.restored, t.attr(tb, "ctxguard-connection", "data-restored")];
      }, event(23_000));
      assert(same(confirmed, [false, null]), JSON.stringify(confirmed));
    }),
  );

  await check("clear() forgets the saved state and the history of this session only", () =>
    h.with(async ({ page }) => {
      const out = await page.evaluate(
        async ([a, b, done]) => {
          eval(a);
          const one = tb;
          eval(b);
          const two = tb;
          for (const el of [one, two]) {
            el.pushEvent(done);
            el.pushEvent(done);
          }
          const keys = () => Object.keys(localStorage).filter((k) => k.startsWith("ctxguard.toolbar.")).sort();
          const before = keys();
          one.clear();
          await t.settle();
          return {
            before,
            after: keys(),
            one: [one.state.history.length, one.state.metrics, t.q(one, "ctxguard-compaction-count")],
            two: two.state.history.length,
            // The next event is new to the cleared toolbar (its numbering starts over) and saved again.
            next: one.pushEvent(done),
            historyAfterRepeat: one.state.history.length,
            saved: keys(),
          };
        },
        [ADD("clear-a"), ADD("clear-b"), compaction("completed", { after_tokens: 1 })],
      );
      assert(same(out.before, ["ctxguard.toolbar.v2.clear-a", "ctxguard.toolbar.v2.clear-b"]), JSON.stringify(out.before));
      assert(same(out.after, ["ctxguard.toolbar.v2.clear-b"]), JSON.stringify(out.after));
      assert(same(out.one, [0, null, null]) && out.two === 1, JSON.stringify(out));
      assert(out.next === "applied" && out.historyAfterRepeat === 0, "the compaction it already knew is not brought back");
      assert(same(out.saved, out.before), JSON.stringify(out.saved));
    }),
  );

  await check("two toolbars for two sessions on one page keep their own state, history and storage", () =>
    h.with(async ({ page }) => {
      const out = await page.evaluate(
        async ([a, b, e1, e2, done]) => {
          eval(a);
          const one = tb;
          eval(b);
          const two = tb;
          one.pushEvent(e1);
          two.pushEvent(e2);
          two.pushEvent(done);
          await t.settle();
          return {
            one: [one.state.session, t.text(one, "ctxguard-usage"), one.state.history.length],
            two: [two.state.session, t.text(two, "ctxguard-usage"), two.state.history.length],
            saved: [JSON.parse(localStorage["ctxguard.toolbar.v2.two-a"]).toolbar.state.context_metrics.used_input_tokens,
              JSON.parse(localStorage["ctxguard.toolbar.v2.two-b"]).toolbar.history.length],
          };
        },
        [ADD("two-a"), ADD("two-b"), event(11_000), event(22_000), compaction("completed", { after_tokens: 5 })],
      );
      assert(same(out.one, ["two-a", "11,000 / 128,000 tokens", 0]), JSON.stringify(out.one));
      assert(same(out.two, ["two-b", "110,000 / 128,000 tokens", 1]), JSON.stringify(out.two));
      assert(same(out.saved, [11_000, 1]), JSON.stringify(out.saved));
    }),
  );

  await check("strings from events render as text, never HTML (compaction chip and history)", () =>
    h.with(async ({ page }) => {
      const reason = '<img src=x onerror="window.__xss=1"><b>bold</b><script>window.__xss=2</script>';
      const out = await page.evaluate(
        async ([add, fell]) => {
          eval(add);
          tb.pushEvent(fell);
          await t.settle();
          t.q(tb, "ctxguard-compaction-count").click();
          await t.settle();
          await new Promise((r) => setTimeout(r, 50));
          return {
            chip: t.text(tb, "ctxguard-compaction"),
            item: t.all(tb, "ctxguard-history-item")[0].textContent,
            injected: tb.shadowRoot.querySelectorAll("img, b, script").length,
            xss: window.__xss ?? null,
          };
        },
        [ADD(), compaction("fallback", { failure_reason: reason })],
      );
      assert(out.chip.includes(reason) && out.item.includes(reason), JSON.stringify(out));
      assert(out.injected === 0 && out.xss === null, JSON.stringify(out));
    }),
  );

  await check("lang: the attribute, else the document's, else the browser's; changing it re-renders", async () => {
    await h.with({ locale: "zh-CN" }, async ({ page }) => {
      const out = await page.evaluate(
        async ([e]) => {
          document.documentElement.removeAttribute("lang");
          const browser = t.add('<ctxguard-toolbar source="host" session="l1"></ctxguard-toolbar>');
          const en = t.add('<ctxguard-toolbar source="host" session="l2" lang="en"></ctxguard-toolbar>');
          const wrap = t.add('<div lang="en-GB"></div>');
          const inherited = t.add('<ctxguard-toolbar source="host" session="l3"></ctxguard-toolbar>', wrap);
          for (const el of [browser, en, inherited]) el.pushEvent(e);
          await t.settle();
          const texts = [browser, en, inherited].map((el) => t.text(el, "ctxguard-remaining"));
          en.setAttribute("lang", "zh-CN");
          await t.settle();
          return { texts, switched: t.text(en, "ctxguard-remaining"), conn: t.text(en, "ctxguard-connection") };
        },
        [event(32_000)],
      );
      assert(same(out.texts, ["上下文剩余 75%", "Context 75% left", "Context 75% left"]), JSON.stringify(out.texts));
      assert(out.switched === "上下文剩余 75%" && out.conn.includes("由页面推送"), JSON.stringify(out));
    });
    await h.with(async ({ page }) => {
      const text = await page.evaluate(async (turns) => {
        document.documentElement.lang = "zh-CN";
        const el = t.add('<ctxguard-toolbar source="host" session="l4"></ctxguard-toolbar>');
        for (const e of turns) el.pushEvent(e);
        await t.settle();
        return [t.text(el, "ctxguard-remaining"), t.text(el, "ctxguard-forecast")];
      }, [event(60_000, "build_messages"), event(70_000, "build_messages"), event(80_000, "build_messages")]);
      // g = 10,000; (100,800 − 80,000) / 10,000 = 2.08 → 3.
      assert(same(text, ["上下文剩余 37%", "约 3 轮后压缩"]), JSON.stringify(text));
    });
  });

  await check("compact: one line, no legend, no scale", () =>
    h.with(async ({ page }) => {
      const withBreakdown = event(64_000, "after_tool_end");
      withBreakdown.context_metrics.breakdown = { system: 1000, user: 20000, assistant: 20000, tool_outputs: 20000, attachments: 2000, overhead: 1000 };
      const out = await page.evaluate(
        async ([e]) => {
          const full = t.add('<ctxguard-toolbar source="host" session="c1"></ctxguard-toolbar>');
          const compact = t.add('<ctxguard-toolbar source="host" session="c2" compact></ctxguard-toolbar>');
          for (const el of [full, compact]) el.pushEvent(e);
          await t.settle();
          const measure = (el) => ({
            legend: Boolean(t.q(el, "ctxguard-breakdown")),
            scale: Boolean(el.shadowRoot.querySelector(".bar-scale")),
            bar: Boolean(t.q(el, "ctxguard-bar")),
            height: el.getBoundingClientRect().height,
            // One line: every visible item of the line overlaps one horizontal band.
            oneLine: (() => {
              const rects = [...el.shadowRoot.querySelector(".tb-line").children].map((c) => c.getBoundingClientRect()).filter((r) => r.width > 0 && r.height > 0);
              return Math.max(...rects.map((r) => r.top)) < Math.min(...rects.map((r) => r.bottom));
            })(),
          });
          const m = [measure(full), measure(compact)];
          compact.removeAttribute("compact");
          await t.settle();
          return [...m, measure(compact)];
        },
        [withBreakdown],
      );
      const [full, compact, uncompacted] = out;
      assert(full.legend && full.scale, JSON.stringify(full));
      assert(!compact.legend && !compact.scale && compact.bar, JSON.stringify(compact));
      assert(compact.oneLine && compact.height < 56 && compact.height < full.height, JSON.stringify(out));
      assert(uncompacted.legend, "removing the attribute brings the legend back");
    }),
  );

  await check("theme, prefers-color-scheme, CSS custom properties and ::part() style it from outside", async () => {
    const look = async (page) =>
      page.evaluate(async () => {
        const style = document.createElement("style");
        style.textContent = `
          #custom { --ctxguard-bg: rgb(1, 2, 3); --ctxguard-fg: rgb(250, 251, 252); }
          #parted::part(remaining) { color: rgb(9, 99, 199); }
          #parted::part(toolbar) { border-radius: 0px; }`;
        document.head.append(style);
        const els = ["plain", "light", "dark", "custom", "parted"].map((id) => {
          const theme = id === "light" || id === "dark" ? ` theme="${id}"` : "";
          const el = t.add(`<ctxguard-toolbar id="${id}" source="host" session="${id}"${theme}></ctxguard-toolbar>`);
          return el;
        });
        await t.settle();
        const css = (el, part, prop) => getComputedStyle(el.shadowRoot.querySelector(`[part~="${part}"]`))[prop];
        return Object.fromEntries(els.map((el) => [el.id, { bg: css(el, "toolbar", "backgroundColor"), fg: css(el, "toolbar", "color"), remaining: css(el, "remaining", "color"), radius: css(el, "toolbar", "borderTopLeftRadius") }]));
      });
    const dark = (rgb) => {
      const [r, g, b] = rgb.match(/\d+/g).map(Number);
      return r + g + b < 150;
    };
    await h.with({ colorScheme: "light" }, async ({ page }) => {
      const s = await look(page);
      assert(!dark(s.plain.bg) && !dark(s.light.bg) && dark(s.dark.bg), JSON.stringify(s));
      assert(s.custom.bg === "rgb(1, 2, 3)" && s.custom.fg === "rgb(250, 251, 252)", JSON.stringify(s.custom));
      assert(s.parted.remaining === "rgb(9, 99, 199)" && s.parted.radius === "0px", JSON.stringify(s.parted));
    });
    await h.with({ colorScheme: "dark" }, async ({ page }) => {
      const s = await look(page);
      assert(dark(s.plain.bg) && !dark(s.light.bg) && dark(s.dark.bg), JSON.stringify(s));
    });
  });

  await check("it fits a 320 px host box (full and compact, with long figures and history open)", () =>
    h.with({ viewport: { width: 360, height: 800 } }, async ({ page }) => {
      const big = event(1_234_567);
      big.context_metrics = { ...metrics(1_234_567), context_window: 2_000_000, trigger_limit: 1_600_000, target_limit: 1_400_000 };
      big.context_metrics.breakdown = { system: 1000, user: 200000, assistant: 200000, tool_outputs: 800000, attachments: 20000, overhead: 13567 };
      const out = await page.evaluate(
        async ([e, turns, fell]) => {
          const box = t.add('<div style="width: 320px"></div>');
          const full = t.add('<ctxguard-toolbar source="host" session="n1"></ctxguard-toolbar>', box);
          const compact = t.add('<ctxguard-toolbar source="host" session="n2" compact></ctxguard-toolbar>', box);
          for (const el of [full, compact]) {
            for (const x of turns) el.pushEvent(x);
            el.pushEvent(fell);
            el.pushEvent(e);
          }
          await t.settle();
          t.q(full, "ctxguard-compaction-count").click();
          await t.settle();
          const fits = (el) => {
            const host = el.getBoundingClientRect();
            const over = [...el.shadowRoot.querySelectorAll("*")].filter((n) => {
              const r = n.getBoundingClientRect();
              return r.width > 0 && (r.right > host.right + 0.5 || r.left < host.left - 0.5);
            });
            return { width: host.width, over: over.map((n) => n.className || n.tagName).slice(0, 5), scroll: el.shadowRoot.querySelector(".toolbar").scrollWidth };
          };
          return [fits(full), fits(compact)];
        },
        [big, [event(60_000, "build_messages"), event(70_000, "build_messages"), event(80_000, "build_messages")], compaction("fallback", { failure_reason: "summary_compact_failed" })],
      );
      for (const r of out) {
        assert(r.width === 320 && r.over.length === 0 && r.scroll <= 320, JSON.stringify(r));
      }
    }),
  );

  // The toolbar fits a phone and a laptop: the layout page (every state a Wegent host meets) at a
  // phone's and a laptop's width, light and dark — the same page the screenshots in docs/ show.
  await check("at 360 px every state is at most 120 px tall; at 1 024 px and up, one row", async () => {
    for (const [width, scheme] of [[360, "light"], [360, "dark"], [1024, "light"], [1280, "dark"]]) {
      await h.with({ path: `/tests/elements/pages/layout.html?theme=${scheme}`, viewport: { width, height: 1250 }, ready: false }, async ({ page }) => {
        await page.waitForFunction(() => document.body.dataset.laidOut === "true", null, { timeout: 30_000 });
        const states = await page.evaluate(() =>
          [...document.querySelectorAll("section")].map((s) => [s.querySelector("h2").firstChild.textContent.trim(), Number(s.dataset.height), Number(s.dataset.rows)]),
        );
        assert(states.length === 8, JSON.stringify(states));
        const bad = states.filter(([, height, rows]) => (width <= 400 ? height > 120 : rows !== 1));
        assert(bad.length === 0, `${width} px ${scheme}: ${JSON.stringify(bad)}`);
      });
    }
  });

  await check("an open shadow root with the page's test ids and states", () =>
    h.with(async ({ page }) => {
      const out = await page.evaluate(
        async ([add, e, c]) => {
          eval(add);
          tb.pushEvent(e);
          tb.pushEvent(c);
          await t.settle();
          const ids = [...tb.shadowRoot.querySelectorAll("[data-testid]")].map((n) => n.dataset.testid);
          return {
            mode: tb.shadowRoot.mode,
            ids,
            lightDom: tb.childElementCount,
            toolbar: t.q(tb, "ctxguard-toolbar").dataset,
            bar: [t.attr(tb, "ctxguard-bar", "data-level"), t.attr(tb, "ctxguard-bar", "role"), t.attr(tb, "ctxguard-bar", "aria-valuenow")],
          };
        },
        [ADD(), event(120_000), compaction("in_progress", {}, 120_000)],
      );
      assert(out.mode === "open" && out.lightDom === 0, JSON.stringify(out));
      for (const id of ["ctxguard-toolbar", "ctxguard-remaining", "ctxguard-usage", "ctxguard-compaction", "ctxguard-connection", "ctxguard-bar", "ctxguard-bar-used", "ctxguard-target-mark", "ctxguard-trigger-mark"]) {
        assert(out.ids.includes(id), `missing ${id}: ${out.ids}`);
      }
      // While it compacts, the compaction chip is the one signal.
      assert(!out.ids.includes("ctxguard-over-trigger") && !out.ids.includes("ctxguard-forecast"), `${out.ids}`);
      assert(out.toolbar.compaction === "compacting" && out.toolbar.overTrigger === "true" && out.toolbar.connection === "host", JSON.stringify(out.toolbar));
      assert(same(out.bar, ["over-trigger", "progressbar", "120000"]), JSON.stringify(out.bar));
    }),
  );

  await check("methods work before the element is connected; connecting renders what they did", () =>
    h.with(async ({ page }) => {
      const out = await page.evaluate(async (e) => {
        const el = document.createElement("ctxguard-toolbar");
        el.setAttribute("source", "host");
        el.setAttribute("session", "early");
        const r = el.pushEvent(e);
        const state = el.state;
        document.body.append(el);
        await t.settle();
        const shown = t.text(el, "ctxguard-usage");
        el.remove();
        el.pushEvent(e);
        document.body.append(el);
        await t.settle();
        return { r, last: state.last_event_id, shown, again: [el.state.last_event_id, t.text(el, "ctxguard-usage")] };
      }, event(5_000));
      assert(out.r === "applied" && out.last === 1 && out.shown === "5,000 / 128,000 tokens", JSON.stringify(out));
      assert(same(out.again, [2, "5,000 / 128,000 tokens"]), JSON.stringify(out.again));
    }),
  );
}
