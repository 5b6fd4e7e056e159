// The examples as a user runs them, in headless Chromium: examples/plain-html
// (one import, a toolbar fed by SSE from `ctxguard serve --demo`) and
// examples/react (built by Vite: a React 19 chat UI feeding the toolbar from
// a Socket.IO-like emitter and reading ctxguard-change back into React state)
// and examples/socketio (a real socket.io 4.8 server emitting a scripted Wegent
// session to a plain page that imports the installed toolbar tarball), and
// examples/vue (built by Vite: property bindings, event listeners, a template
// ref, the toolbar's state styled from outside), and the hand-written backends
// (backends.mjs: Python and Node servers of the per-session routes, no relay).
//
// Usage: node tests/examples/run.mjs --bin PATH [--screenshot docs/react-example.png] [--vue-screenshot FILE]
//        node tests/examples/run.mjs --only TEXT   (the checks whose name holds TEXT; the relay only when a relay check runs)
import { spawn } from "node:child_process";
import { join } from "node:path";
import { launchBrowser, root, serveDirectory } from "../support/browser.mjs";
import { Tally, assert, option, startServe, stopAll, until, wanted } from "../support/net.mjs";
import { backendChecks } from "./backends.mjs";

const RELAY_CHECKS = [
  "plain HTML: one import, a toolbar fed by SSE goes live and follows the session",
  "React: socket payloads reach the toolbar; ctxguard-change comes back into React state",
];
const bin = option("--bin", null);
const relayWanted = RELAY_CHECKS.some(wanted);
const screenshot = option("--screenshot", null);
const vueScreenshot = option("--vue-screenshot", null);
if (!bin && relayWanted) {
  console.error("usage: node tests/examples/run.mjs --bin PATH [--screenshot FILE]");
  process.exit(2);
}

const tally = new Tally();

/** Starts `node SCRIPT ...args` and resolves with `{proc, url}` once it prints its address. */
function startNodeServer(script, args) {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [script, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    const timer = setTimeout(() => reject(new Error(`${script} did not start: ${out}`)), 15_000);
    proc.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/listening on (http:\/\/[^\s]+\/)/);
      if (m) {
        clearTimeout(timer);
        resolve({ proc, url: m[1] });
      }
    });
    proc.stderr.on("data", (d) => (out += d));
    proc.on("exit", (code) => reject(new Error(`${script} exited early (${code}): ${out}`)));
  });
}
const site = await serveDirectory(root);
const browser = await launchBrowser();
const deep = (id) => `document.querySelector("ctxguard-toolbar").shadowRoot.querySelector('[data-testid="${id}"]')`;

try {
  // The example page comes from another origin than the server: allow it (CORS for the reads).
  if (relayWanted) await relayExamples();
  async function relayExamples() {
    const server = await startServe(bin, ["--demo", "--speed", "10", "--heartbeat-ms", "300", "--allow-origin", site.origin]);

    await tally.check(RELAY_CHECKS[0], async () => {
      const page = await browser.newPage();
      const errors = [];
      page.on("pageerror", (e) => errors.push(e.message));
      await page.goto(`${site.origin}/examples/plain-html/?server=${encodeURIComponent(server.url.replace(/\/$/, ""))}`);
      await until("live", () => page.evaluate(`${deep("ctxguard-connection")}?.dataset.state === "live"`), 20000);
      const first = await page.evaluate(`${deep("ctxguard-usage")}.textContent`);
      await until("a new figure", async () => (await page.evaluate(`${deep("ctxguard-usage")}.textContent`)) !== first, 20000);
      assert(/ \/ 32,000 tokens$/.test(first), first);
      assert(errors.length === 0, errors.join(" | "));
      await page.close();
    });

    await tally.check(RELAY_CHECKS[1], async () => {
      const page = await browser.newPage({ viewport: { width: 1120, height: 900 } });
      const errors = [];
      page.on("pageerror", (e) => errors.push(e.message));
      page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
      await page.goto(`${site.origin}/examples/react/dist/index.html`);
      await until("the conversation played", () => page.evaluate(() => document.querySelector(".app")?.dataset.done === "true"), 30000);
      const seen = await page.evaluate(() => {
        const el = document.querySelector("ctxguard-toolbar");
        const text = (id) => document.querySelector(`[data-testid="${id}"]`).textContent;
        const q = (id) => el.shadowRoot.querySelector(`[data-testid="${id}"]`);
        return {
          state: el.state,
          react: ["react-remaining", "react-forecast", "react-history", "react-last", "react-events"].map(text),
          toolbar: { count: q("ctxguard-compaction-count")?.dataset.count, turns: q("ctxguard-forecast")?.dataset.turns, connection: q("ctxguard-connection").dataset.state },
        };
      });
      const s = seen.state;
      assert(s.last_event_id === 23 && s.connection === "host", JSON.stringify(s).slice(0, 200));
      assert(s.history.length === 2 && s.history[0].status === "fallback" && s.history[1].status === "completed", JSON.stringify(s.history));
      assert(s.forecast && s.forecast.turns > 0, JSON.stringify(s.forecast));
      const expected = [`${s.metrics.display_remaining_percent}%`, `≈ ${s.forecast.turns}`, "2", "fell back (summary_compact_failed)", "23"];
      assert(JSON.stringify(seen.react) === JSON.stringify(expected), `React shows ${JSON.stringify(seen.react)}, the toolbar ${JSON.stringify(expected)}`);
      assert(seen.toolbar.count === "2" && seen.toolbar.turns === String(s.forecast.turns) && seen.toolbar.connection === "host", JSON.stringify(seen.toolbar));

      // The attachment preview, through its picker; its event reaches React state too.
      await page.locator('ctxguard-attachment-preview [data-testid="ctxguard-file-input"]').setInputFiles([
        { name: "schema.sql", mimeType: "text/plain", buffer: Buffer.from("CREATE INDEX audit_tenant ON audit_events (tenant_id, created_at);\n".repeat(40)) },
        { name: "explain.txt", mimeType: "text/plain", buffer: Buffer.from("Seq Scan on audit_events (cost=0.00..812345.00 rows=41208117)\n".repeat(12)) },
      ]);
      await until("the preview in React state", () => page.evaluate(() => /^2 · [\d,]+ tokens$/.test(document.querySelector('[data-testid="react-preview"]').textContent)), 30000);
      const budget = await page.evaluate(() => document.querySelector("ctxguard-attachment-preview").report.limit_tokens);
      assert(budget === 15000, `the preview's budget ${budget}`);
      assert(errors.length === 0, errors.join(" | "));

      if (screenshot) {
        await page.evaluate(() => document.querySelector("ctxguard-toolbar").shadowRoot.querySelector('[data-testid="ctxguard-compaction-count"]').click());
        await page.waitForTimeout(400);
        await page.screenshot({ path: screenshot, fullPage: true });
        console.log(`wrote ${screenshot}`);
      }
      await page.close();
    });
  }

  await vueExample();
  async function vueExample() {
    await tally.check("Vue: property bindings, event listeners and a template ref drive the toolbar; its state styled from outside", async () => {
      const page = await browser.newPage({ viewport: { width: 1000, height: 720 } });
      const errors = [];
      page.on("pageerror", (e) => errors.push(e.message));
      page.on("console", (m) => (m.type() === "error" || /Failed to resolve component/.test(m.text())) && errors.push(`${m.text()} ${m.location()?.url ?? ""}`));
      await page.goto(`${site.origin}/examples/vue/dist/index.html`);
      // Mid-run, the compaction pauses in_progress: :state(compacting) is set and the app's CSS shows it.
      await until("compacting", () => page.evaluate(() => document.querySelector("ctxguard-toolbar")?.matches(":state(compacting)")), 30_000, 25);
      const ring = await page.evaluate(() => getComputedStyle(document.querySelector("ctxguard-toolbar")).boxShadow);
      assert(ring.includes("rgb(217, 119, 6)"), `the compacting ring: ${ring}`);
      await until("task-1 played", () => page.evaluate(() => document.querySelector(".app")?.dataset.done === "true"), 30_000);
      const text = (id) => page.evaluate((id) => document.querySelector(`[data-testid="${id}"]`).textContent.trim(), id);
      const s = await page.evaluate(() => document.querySelector("ctxguard-toolbar").state);
      assert(s.session === "task-1" && s.history.length === 1 && s.history[0].status === "completed", JSON.stringify(s).slice(0, 300));
      const seen = [await text("vue-session"), await text("vue-remaining"), await text("vue-history"), await text("vue-compactions"), await text("vue-forecast")];
      const expected = ["task-1", `${s.metrics.display_remaining_percent}%`, "1", "3", s.forecast ? `≈ ${s.forecast.turns}` : "–"];
      assert(JSON.stringify(seen) === JSON.stringify(expected), `Vue shows ${JSON.stringify(seen)}, the toolbar ${JSON.stringify(expected)}`);
      if (vueScreenshot) {
        await page.screenshot({ path: vueScreenshot, fullPage: true });
        console.log(`wrote ${vueScreenshot}`);
      }
      // :session and :compact are property bindings: the element follows them.
      await page.click('[data-testid="vue-task-2"]');
      await until("task-2 played", () => page.evaluate(() => {
        const s = document.querySelector("ctxguard-toolbar").state;
        return document.querySelector(".app").dataset.done === "true" && s.session === "task-2" && s.metrics?.used_input_tokens === 19_500;
      }), 10_000);
      await page.click('[data-testid="vue-compact"]');
      const after = await page.evaluate(() => {
        const el = document.querySelector("ctxguard-toolbar");
        return { session: el.session, attr: el.getAttribute("session"), state: el.state.session, compact: el.compact, used: el.state.metrics?.used_input_tokens };
      });
      assert(JSON.stringify(after) === JSON.stringify({ session: "task-2", attr: "task-2", state: "task-2", compact: true, used: 19_500 }), JSON.stringify(after));
      assert((await text("vue-session")) === "task-2", await text("vue-session"));
      assert(errors.length === 0, errors.join(" | "));
      await page.close();
    });
  }

  await backendChecks({ browser, site, tally });

  await tally.check("socket.io: a Wegent session on the real socket.io reaches the toolbar; late, unknown and cancelled handled", async () => {
    const server = await startNodeServer(join(root, "examples/socketio/server.mjs"), ["--port", "0", "--step-ms", "120"]);
    try {
      const page = await browser.newPage();
      const errors = [];
      page.on("pageerror", (e) => errors.push(e.message));
      page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
      const ignored = [];
      await page.exposeFunction("reportIgnored", (d) => ignored.push(d));
      await page.addInitScript(() => {
        document.addEventListener("ctxguard-ignored", (e) => window.reportIgnored(e.detail));
      });
      const connections = [];
      await page.exposeFunction("reportConnection", (c) => connections.push(c));
      await page.addInitScript(() => {
        document.addEventListener("ctxguard-change", (e) => window.reportConnection(e.detail.connection));
      });
      await page.goto(server.url);
      await until("the session played", () => page.evaluate(() => document.body.dataset.done === "true"), 30000);
      const seen = await page.evaluate(() => {
        const el = document.querySelector("ctxguard-toolbar");
        const q = (id) => el.shadowRoot.querySelector(`[data-testid="${id}"]`);
        return { state: el.state, chip: q("ctxguard-compaction").dataset.state, usage: q("ctxguard-usage").textContent, connection: q("ctxguard-connection").dataset.state };
      });
      const s = seen.state;
      assert(seen.chip === "interrupted" && s.interrupted?.reason === "cancelled", `after chat:cancelled: ${seen.chip} ${JSON.stringify(s.interrupted)}`);
      assert(s.history.length === 1 && s.history[0].status === "completed" && s.history[0].after_tokens === 33_900, JSON.stringify(s.history));
      assert(s.phase === "summary_compact" && seen.usage === "101,500 / 128,000 tokens", `${s.phase} ${seen.usage}`);
      assert(seen.connection === "live" && connections.includes("reconnecting"), `${seen.connection} ${connections.join(",")}`);
      const stale = ignored.filter((d) => d.outcome === "stale");
      assert(stale.length === 1 && stale[0].field === "context_compaction.created_at", `the late cached in_progress: ${JSON.stringify(ignored)}`);
      assert(ignored.length === 1, `nothing else ignored (persisted applies): ${JSON.stringify(ignored)}`);
      assert(errors.length === 0, errors.join(" | "));
      await page.close();
    } finally {
      server.proc.kill("SIGTERM");
    }
  });
} catch (e) {
  tally.fail(`setup: ${e && e.stack ? e.stack : e}`);
} finally {
  await stopAll();
  await browser.close().catch(() => {});
  await site.close();
}
process.exit(tally.finish());
