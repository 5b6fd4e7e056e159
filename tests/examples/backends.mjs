// The hand-written backends (examples/python-backend, examples/node-backend): real
// servers of the two per-session routes only, no relay. Each is started as a user starts
// it, fed through its POST route, and followed by the plain-HTML example page in
// Chromium: live, a later event shown, a reload restoring from /context, and a stream
// the server closes (--max-stream-ms) resumed from the toolbar's last event id. The
// backend's own resume (`?last_event_id=`, `Last-Event-ID`) is checked over HTTP too.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { root } from "../support/browser.mjs";
import { assert, until } from "../support/net.mjs";

/** Starts `command args`; resolves to `{proc, url, log}` once it prints its address (`log`: its output so far). */
function startBackend(command, args) {
  return new Promise((resolve, reject) => {
    const proc = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    const handle = { proc, url: null, log: "" };
    const timer = setTimeout(() => reject(new Error(`${args[0]} did not start: ${handle.log}`)), 15_000);
    const read = (d) => {
      handle.log += d;
      const m = !handle.url && handle.log.match(/listening on (http:\/\/[^\s]+\/)/);
      if (m) {
        clearTimeout(timer);
        handle.url = m[1];
        resolve(handle);
      }
    };
    proc.stdout.on("data", read);
    proc.stderr.on("data", read);
    proc.on("exit", (code) => !handle.url && reject(new Error(`${args[0]} exited early (${code}): ${handle.log}`)));
  });
}

const metrics = (used) => {
  const available = 112_000;
  return {
    context_window: 128_000, reserved_output_tokens: 16_000, available_input_tokens: available, used_input_tokens: used,
    remaining_input_tokens: available - used, remaining_percent: Math.floor(((available - used) * 100) / available),
    display_remaining_tokens: 128_000 - used, display_remaining_percent: Math.floor(((128_000 - used) * 100) / 128_000),
    trigger_limit: 100_800, target_limit: 89_600, is_over_trigger: false,
  };
};
const status = (used) => ({ type: "response.status.updated", response_id: "resp_1", phase: "after_tool_end", context_metrics: metrics(used) });

async function publish(url, used) {
  const res = await fetch(`${url}api/sessions/demo/events`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(status(used)) });
  return (await res.json()).event_ids[0];
}

/** The first `count` SSE event ids the backend sends for `headers`/`query` (then the request is dropped). */
async function firstIds(url, query, headers, count) {
  const abort = new AbortController();
  const res = await fetch(`${url}api/sessions/demo/events${query}`, { headers, signal: abort.signal });
  const reader = res.body.getReader();
  let text = "";
  const ids = () => [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
  const giveUp = setTimeout(() => abort.abort(), 3_000);
  try {
    while (ids().length < count) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
  } catch {
    // aborted: fewer ids than asked
  } finally {
    clearTimeout(giveUp);
    abort.abort();
  }
  return ids();
}

export async function backendChecks({ browser, site, tally }) {
  const backends = [
    ["Python (http.server)", "python3", [join(root, "examples/python-backend/server.py")]],
    ["Node (http)", process.execPath, [join(root, "examples/node-backend/server.mjs")]],
  ];
  const deep = (id) => `document.querySelector("ctxguard-toolbar").shadowRoot.querySelector('[data-testid="${id}"]')`;
  for (const [name, command, script] of backends) {
    await tally.check(`${name} backend, per-session routes only: live, a later event, a reload, a dropped stream resumed from its last id`, async () => {
      const backend = await startBackend(command, [...script, "--port", "0", "--max-stream-ms", "4000"]);
      try {
        const url = backend.url;
        assert((await fetch(`${url}api/sessions/demo/context`)).status === 404, "unknown before its first event");
        await publish(url, 10_000);
        // The backend's own resume: after ?last_event_id=1, or after the Last-Event-ID header.
        await publish(url, 12_000);
        assert(JSON.stringify(await firstIds(url, "?last_event_id=1", {}, 1)) === "[2]", "resumes after ?last_event_id=1");
        assert(JSON.stringify(await firstIds(url, "", { "last-event-id": "1" }, 1)) === "[2]", "resumes after Last-Event-ID: 1");

        const page = await browser.newPage();
        const errors = [];
        page.on("pageerror", (e) => errors.push(e.message));
        const requests = [];
        page.on("request", (r) => r.url().startsWith(url) && requests.push(r.url()));
        await page.goto(`${site.origin}/examples/plain-html/?server=${encodeURIComponent(url.replace(/\/$/, ""))}`);
        const live = () => page.evaluate(`${deep("ctxguard-connection")}?.dataset.state === "live"`);
        const usage = () => page.evaluate(`${deep("ctxguard-usage")}?.textContent`);
        await until("live", live, 20_000);
        assert((await usage()) === "12,000 / 128,000 tokens", await usage());
        await publish(url, 20_000);
        await until("the later event", async () => (await usage()) === "20,000 / 128,000 tokens", 10_000);

        await page.reload();
        await until("live after the reload", live, 20_000);
        assert((await usage()) === "20,000 / 128,000 tokens", `after the reload: ${await usage()}`);

        // The server closes the stream (--max-stream-ms): the toolbar comes back from its last id.
        const opened = (backend.log.match(/^stream demo from/gm) ?? []).length;
        await until("the server closed a stream", async () => /^stream demo closed$/m.test(backend.log), 10_000);
        await until("the toolbar reopened the stream", async () => (backend.log.match(/^stream demo from/gm) ?? []).length > opened, 20_000);
        const from = [...backend.log.matchAll(/^stream demo from (\d+)$/gm)].at(-1)[1];
        assert(from === "3", `reopened from ${from}, not the last event id 3`);
        await until("live again", live, 10_000);
        await publish(url, 30_000);
        await until("the event after the drop", async () => (await usage()) === "30,000 / 128,000 tokens", 10_000);
        assert(!requests.some((u) => u.includes("/api/events")), `asked for the shared stream: ${requests.filter((u) => u.includes("/api/events"))}`);
        assert(errors.length === 0, errors.join(" | "));
        await page.close();
      } finally {
        backend.proc.kill("SIGTERM");
      }
    });
  }
}
