// <ctxguard-toolbar> on its default source (sse) against the scripted
// server: /context then the stream, the read token on every request,
// attribute changes that start the feed over, host events merged with the
// stream, and a host-fed toolbar that touches no network.
import { assert, until } from "../support/net.mjs";
import { same } from "./harness.mjs";
import { startScriptedServer } from "./scripted-server.mjs";
import { compaction, context, event } from "./fixtures.mjs";

const shownOf = (page) => page.evaluate(() => t.shown(tb));
const waitFor = (page, what, fn, ms = 10_000) => until(what, async () => page.evaluate(fn), ms, 25);

export async function sseChecks(h, check) {
  const server = await startScriptedServer();
  const other = await startScriptedServer();
  try {
    await check("source sse (the default): /context, then the stream from its id; events apply; live", () =>
      h.with(async ({ page }) => {
        server.session("live", context(7, 10_000));
        await page.evaluate((origin) => {
          window.tb = t.add(`<ctxguard-toolbar server="${origin}" session="live"></ctxguard-toolbar>`);
        }, server.origin);
        await waitFor(page, "live", () => t.attr(tb, "ctxguard-connection", "data-state") === "live");
        const [ctx] = server.to("live", "context");
        const [events] = server.to("live", "events");
        assert(ctx && events && ctx.at <= events.at, "context before events");
        assert(events.query.last_event_id === "7", JSON.stringify(events.query));
        assert((await shownOf(page)).usage === "10,000 / 128,000 tokens", "the /context numbers");
        server.send("live", 8, event(20_000));
        await waitFor(page, "event 8", () => tb.state.last_event_id === 8);
        assert((await shownOf(page)).usage === "20,000 / 128,000 tokens", "the event's numbers");
        server.send("live", 9, "{not json");
        server.send("live", 10, event(30_000), "message.other");
        server.send("live", 11, event(40_000));
        await waitFor(page, "event 11", () => tb.state.last_event_id === 11);
        const ignored = await page.evaluate(() => t.attr(tb, "ctxguard-ignored", "data-count"));
        assert(ignored === "1", `ignored ${ignored}`);
      }),
    );

    await check("token: sent as ?token= on every request", () =>
      h.with(async ({ page }) => {
        server.session("tok", context(1, 1_000));
        await page.evaluate((origin) => {
          window.tb = t.add(`<ctxguard-toolbar server="${origin}" session="tok" token="r.a+b/c=="></ctxguard-toolbar>`);
        }, server.origin);
        await waitFor(page, "live", () => t.attr(tb, "ctxguard-connection", "data-state") === "live");
        const reqs = [...server.to("tok", "context"), ...server.to("tok", "events")];
        assert(reqs.length >= 2 && reqs.every((r) => r.query.token === "r.a+b/c=="), JSON.stringify(reqs.map((r) => r.query)));
      }),
    );

    await check("changing session, server, token or source while connected closes the old stream and starts over", () =>
      h.with(async ({ page }) => {
        server.session("one", context(1, 1_000));
        server.session("two", context(5, 2_000));
        other.session("two", context(9, 3_000));
        await page.evaluate((origin) => {
          window.tb = t.add(`<ctxguard-toolbar server="${origin}" session="one"></ctxguard-toolbar>`);
        }, server.origin);
        await waitFor(page, "live on one", () => t.attr(tb, "ctxguard-connection", "data-state") === "live");
        assert(server.open("one") === 1, "one stream");

        await page.evaluate(() => tb.setAttribute("session", "two"));
        await until("the stream of one closed", async () => server.open("one") === 0, 5000, 25);
        await waitFor(page, "two shown", () => tb.state.session === "two" && t.text(tb, "ctxguard-usage") === "2,000 / 128,000 tokens");
        await until("a stream for two", async () => server.open("two") === 1, 5000, 25);

        await page.evaluate(() => tb.setAttribute("token", "t2"));
        await until("a new stream with the token", async () => server.to("two", "events").some((r) => r.query.token === "t2" && !r.closed), 5000, 25);
        await until("the old one closed", async () => server.open("two") === 1, 5000, 25);

        await page.evaluate((origin) => tb.setAttribute("server", origin), other.origin);
        await until("the stream moved to the other server", async () => other.open("two") === 1 && server.open("two") === 0, 5000, 25);
        await waitFor(page, "its numbers", () => tb.state.last_event_id === 9);

        const before = server.requests.length + other.requests.length;
        await page.evaluate(() => tb.setAttribute("source", "host"));
        await until("no stream left", async () => other.open("two") === 0, 5000, 25);
        await waitFor(page, "host", () => t.attr(tb, "ctxguard-connection", "data-state") === "host");
        await page.waitForTimeout(300);
        assert(server.requests.length + other.requests.length === before, "host source makes no request");

        await page.evaluate(() => tb.setAttribute("source", "sse"));
        await until("streaming again", async () => other.open("two") === 1, 5000, 25);

        await page.evaluate(() => tb.remove());
        await until("removing the element closes its stream", async () => other.open("two") === 0, 5000, 25);
      }),
    );

    await check("toolbars of one server share one stream; each keeps its own numbers, ids and resync", () =>
      h.with(async ({ page }) => {
        const names = Array.from({ length: 8 }, (_, i) => `shared:${i}`);
        names.forEach((n, i) => server.session(n, context(10 + i, 1_000 + i)));
        other.session("elsewhere", context(3, 3_000));
        const before = server.requests.filter((r) => r.path === "/api/events").length;
        await page.evaluate(([origin, otherOrigin, names]) => {
          window.tbs = names.map((n) => t.add(`<ctxguard-toolbar server="${origin}" session="${n}" token="tok-${n}"></ctxguard-toolbar>`));
          window.lone = t.add(`<ctxguard-toolbar server="${otherOrigin}" session="elsewhere"></ctxguard-toolbar>`);
        }, [server.origin, other.origin, names]);
        const allLive = () => tbs.every((tb) => t.attr(tb, "ctxguard-connection", "data-state") === "live");
        await waitFor(page, "all live", allLive);
        await waitFor(page, "the other server's toolbar live", () => t.attr(lone, "ctxguard-connection", "data-state") === "live");
        const opened = server.requests.filter((r) => r.path === "/api/events").slice(before);
        // One or two openings as a rule; a heavily loaded machine can spread the /context replies
        // past the debounce window once more (seen at nice 19 on 2 busy cores), hence 3.
        assert(opened.length >= 1 && opened.length <= 3, `shared streams opened: ${opened.length}`);
        assert(server.openShared() === 1 && other.openShared() === 1, `open: ${server.openShared()} + ${other.openShared()}`);
        // Each session with its own token and the id its /context gave.
        const last = opened[opened.length - 1];
        for (const [i, n] of names.entries()) {
          const view = server.to(n, "events").at(-1);
          assert(view.multi === last && view.query.token === `tok-${n}` && view.query.last_event_id === String(10 + i), JSON.stringify(view.query));
        }
        names.forEach((n, i) => server.send(n, 100 + i, event(5_000 + 100 * i)));
        await waitFor(page, "each its own event", () => tbs.every((tb, i) => tb.state.last_event_id === 100 + i && tb.state.metrics.used_input_tokens === 5_000 + 100 * i));
        // A toolbar that leaves takes its session off the stream; the others resume from their ids.
        await page.evaluate(() => tbs.shift().remove());
        await until("reopened without shared:0", async () => server.openShared() === 1 && server.open("shared:0") === 0, 5000, 25);
        const resumed = server.to("shared:1", "events").at(-1);
        assert(resumed.query.last_event_id === "101", JSON.stringify(resumed.query));
        server.send("shared:1", 200, event(9_000));
        await waitFor(page, "still live after the reopening", () => tbs[0].state.last_event_id === 200);
        // The shared stream fails: every member resyncs from its own /context and joins again.
        const contexts = names.slice(1).map((n) => server.to(n, "context").length);
        server.dropShared();
        await until("every member fetched /context again", async () => names.slice(1).every((n, i) => server.to(n, "context").length > contexts[i]), 10_000, 25);
        await waitFor(page, "all live again", allLive);
        assert(server.openShared() === 1, `open after the resync: ${server.openShared()}`);
      }),
    );

    await check("a server of the per-session routes only (no shared_stream in /context): its own stream, resumed there, never /api/events", () =>
      h.with(async ({ page }) => {
        const plain = await startScriptedServer({ sharedStream: false });
        try {
          for (const n of ["p1", "p2"]) plain.session(n, context(4, 1_000));
          await page.evaluate((origin) => {
            window.tbs = ["p1", "p2"].map((n) => t.add(`<ctxguard-toolbar server="${origin}" session="${n}"></ctxguard-toolbar>`));
          }, plain.origin);
          await waitFor(page, "both live", () => tbs.every((tb) => t.attr(tb, "ctxguard-connection", "data-state") === "live"));
          assert(plain.open("p1") === 1 && plain.open("p2") === 1, `open: ${plain.open("p1")} ${plain.open("p2")}`);
          plain.session("p1", context(5, 2_000)); // the server's latest state, as /context answers it
          plain.send("p1", 5, event(2_000));
          await waitFor(page, "event 5", () => tbs[0].state.last_event_id === 5);
          // The server ends the stream: the toolbar resyncs from /context and asks the same route from event 5.
          plain.drop("p1");
          await until("reopened", async () => plain.to("p1", "events").length === 2 && plain.open("p1") === 1, 10_000, 25);
          assert(plain.to("p1", "events")[1].query.last_event_id === "5", JSON.stringify(plain.to("p1", "events")[1].query));
          plain.send("p1", 6, event(3_000));
          await waitFor(page, "event 6", () => tbs[0].state.last_event_id === 6 && tbs[0].state.metrics.used_input_tokens === 3_000);
          const shared = plain.requests.filter((r) => r.path === "/api/events");
          assert(shared.length === 0, `asked the shared stream ${shared.length} times`);
          // Removed before the server goes, so no stream is cut mid-chunk.
          await page.evaluate(() => tbs.forEach((tb) => tb.remove()));
          await until("streams closed", async () => plain.open("p1") + plain.open("p2") === 0, 5000, 25);
        } finally {
          await plain.close();
        }
      }),
    );

    await check("pushEvent in sse mode is merged with the stream by the same id rules", () =>
      h.with(async ({ page }) => {
        server.session("merge", context(20, 1_000));
        await page.evaluate((origin) => {
          window.tb = t.add(`<ctxguard-toolbar server="${origin}" session="merge"></ctxguard-toolbar>`);
        }, server.origin);
        await waitFor(page, "live", () => t.attr(tb, "ctxguard-connection", "data-state") === "live");
        const r = await page.evaluate(([a, b]) => [tb.pushEvent(a, 20), tb.pushEvent(b, 21)], [event(5_000), event(6_000)]);
        assert(same(r, ["stale", "applied"]), JSON.stringify(r));
        server.send("merge", 21, event(7_000));
        server.send("merge", 22, event(8_000));
        await waitFor(page, "event 22", () => tb.state.last_event_id === 22);
        const seen = await page.evaluate(() => tb.state.metrics.used_input_tokens);
        assert(seen === 8_000, `${seen}`);
      }),
    );

    await check("an event id of 2^64 − 1 from the stream does not freeze the toolbar", () =>
      h.with(async ({ page }) => {
        server.session("ids", context(3, 1_000));
        await page.evaluate((origin) => {
          window.tb = t.add(`<ctxguard-toolbar server="${origin}" session="ids"></ctxguard-toolbar>`);
        }, server.origin);
        await waitFor(page, "live", () => t.attr(tb, "ctxguard-connection", "data-state") === "live");
        server.send("ids", "18446744073709551615", event(99_000));
        server.send("ids", 4, event(4_000));
        server.send("ids", 5, compaction("started"));
        await waitFor(page, "event 5", () => tb.state.last_event_id === 5);
        const shown = await shownOf(page);
        assert(shown.compaction === "compacting" && /^Compacting… [0-4]s$/.test(shown.compactionText), JSON.stringify(shown));
      }),
    );

    await check("an unknown session shows offline · Unknown session", () =>
      h.with(async ({ page }) => {
        await page.evaluate((origin) => {
          window.tb = t.add(`<ctxguard-toolbar server="${origin}" session="nobody"></ctxguard-toolbar>`);
        }, server.origin);
        await waitFor(page, "offline", () => t.attr(tb, "ctxguard-connection", "data-state") === "offline");
        const label = await page.evaluate(() => tb.shadowRoot.querySelector(".connection-label").textContent);
        assert(label === "Unknown session", label);
        assert((await page.evaluate(() => tb.state.connection)) === "offline", "state.connection");
      }),
    );

    await check('source="host" makes no network request at all', () =>
      h.with(async ({ page, requests }) => {
        const before = requests.length;
        await page.evaluate((origin) => {
          window.tb = t.add(`<ctxguard-toolbar source="host" server="${origin}" session="quiet"></ctxguard-toolbar>`);
        }, server.origin);
        await page.evaluate((e) => tb.pushEvent(e), event(1));
        await page.waitForTimeout(500);
        assert(requests.length === before, `requests: ${requests.slice(before)}`);
        assert(server.to("quiet", "context").length === 0, "the server saw nothing");
      }),
    );
  } finally {
    await server.close();
    await other.close();
  }
}
