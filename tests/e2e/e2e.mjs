// End-to-end test: `ctxguard serve` (fast demo script + a replayed recording)
// and the built toolbar in headless Chromium, driven by playwright-core.
//
// Usage: node e2e.mjs --bin PATH --dist DIR [--screenshot FILE]
// Prints one line per check and `N passed, M failed` at the end; exits 1 on any failure.
// Talks to nothing but loopback. Every server and browser it starts is stopped.

import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { launchBrowser } from '../support/browser.mjs';
import { Tally, assert, freePort, option, sleep, startServe, stopAll, stopProcess, until } from '../support/net.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = option('--bin', null);
const dist = option('--dist', null);
const screenshot = option('--screenshot', null);
if (!bin || !dist) {
  console.error('usage: node e2e.mjs --bin PATH --dist DIR [--screenshot FILE]');
  process.exit(2);
}

const FAST = ['--demo', '--speed', '10', '--heartbeat-ms', '200', '--fail-every', '0'];
const REPLAY = ['--replay', path.join(here, 'replay.jsonl')];
// After the restart the demo stands still for a while (its next step is 24 s away), so the
// toolbar's numbers can be compared with /context exactly.
const SLOW = ['--demo', '--speed', '0.05', '--heartbeat-ms', '200', '--fail-every', '0'];

const tally = new Tally();
const check = (name, fn) => tally.check(name, fn);
let browser;

function log(msg) {
  process.stdout.write(`${msg}\n`);
}

// Publishing is on (no read secret: the page's ?token= is the toolbar's business; tokens are tested over HTTP).
const PUBLISH_TOKEN = 'e2e-publish-token';

/** Starts `ctxguard serve` on `port` serving the built toolbar. */
const startServer = (port, extra) =>
  startServe(bin, ['--dist', dist, ...extra], { port, env: { CTXGUARD_PUBLISH_TOKEN: PUBLISH_TOKEN } });
const stopServer = stopProcess;

async function cleanup() {
  await stopAll();
  if (browser) await browser.close().catch(() => {});
}
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, async () => {
    await cleanup();
    process.exit(130);
  });
}

async function context(url, session) {
  const r = await fetch(`${url}api/sessions/${session}/context`);
  assert(r.ok, `/context answered ${r.status}`);
  return r.json();
}

const tid = (id) => `[data-testid="${id}"]`;
// Both read the DOM as it is now (no auto-waiting), so a check never waits for what it tests.
const attr = (page, id, name) =>
  page.evaluate(([sel, n]) => document.querySelector(sel)?.getAttribute(n) ?? null, [tid(id), name]);
const text = (page, id) => page.evaluate((sel) => document.querySelector(sel)?.textContent ?? null, tid(id));
const group = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** What the toolbar shows, as one comparable record. */
async function shown(page) {
  return page.evaluate(() => {
    const q = (id) => document.querySelector(`[data-testid="${id}"]`);
    return {
      remaining: q('ctxguard-remaining')?.textContent ?? null,
      usage: q('ctxguard-usage')?.textContent ?? null,
      over: Boolean(q('ctxguard-over-trigger')),
      compaction: q('ctxguard-compaction')?.getAttribute('data-state') ?? null,
      compactionText: q('ctxguard-compaction')?.textContent ?? null,
      connection: q('ctxguard-connection')?.getAttribute('data-state') ?? null,
      restored: q('ctxguard-connection')?.getAttribute('data-restored') ?? null,
    };
  });
}

function matchesContext(view, ctx) {
  const m = ctx.context_metrics;
  const pct = Math.max(0, Math.min(100, m.display_remaining_percent));
  return (
    view.remaining === `Context ${pct}% left` &&
    view.usage !== null &&
    view.usage.includes(group(m.used_input_tokens)) &&
    view.usage.includes(group(m.context_window)) &&
    view.over === m.is_over_trigger
  );
}

// Records, from the first paint of every load, each state the connection and compaction show.
const RECORDER = `
  (() => {
    const seen = [];
    window.__ctxguardSeen = seen;
    const snap = () => {
      const c = document.querySelector('[data-testid="ctxguard-connection"]');
      const k = document.querySelector('[data-testid="ctxguard-compaction"]');
      if (!c && !k) return;
      const s = (c ? c.getAttribute('data-state') : '-') + '/' + (c ? c.getAttribute('data-restored') : '-') +
        '/' + (k ? k.getAttribute('data-state') : '-');
      if (seen[seen.length - 1] !== s) seen.push(s);
    };
    new MutationObserver(snap).observe(document, { subtree: true, childList: true, attributes: true });
  })();
`;

async function main() {
  const port = await freePort();
  let server = await startServer(port, [...FAST, ...REPLAY]);
  const url = server.url;
  log(`server at ${url}`);

  browser = await launchBrowser();
  const demoCtx = await browser.newContext({ viewport: { width: 1100, height: 420 }, locale: 'en-US' });
  const page = await demoCtx.newPage();
  await page.addInitScript(RECORDER);
  if (process.env.E2E_VERBOSE) page.on('request', (r) => log(`[demo page] ${r.method()} ${r.url()}`));
  const demoUrl = `${url}?session=demo&lang=en`;

  await check('the page loads and goes live', async () => {
    await page.goto(demoUrl, { waitUntil: 'load', timeout: 15000 });
    await until('connection live', async () => (await attr(page, 'ctxguard-connection', 'data-state')) === 'live');
    const v = await shown(page);
    assert(/^Context \d{1,3}% left$/.test(v.remaining), `remaining: ${v.remaining}`);
    assert(/ \/ 32,000 tokens$/.test(v.usage), `usage: ${v.usage}`);
  });

  await check('live updates change the numbers', async () => {
    const first = (await shown(page)).usage;
    await until('another usage figure', async () => (await shown(page)).usage !== first, 15000);
  });

  await check('reload during a compaction shows compacting at once (restored), then live', async () => {
    await until('a compaction', async () => (await attr(page, 'ctxguard-compaction', 'data-state')) === 'compacting', 60000, 20);
    // Hold /context back a little so the restored frame cannot be missed.
    await page.route('**/api/sessions/demo/context', async (route) => {
      await sleep(700);
      await route.continue();
    });
    await page.reload({ waitUntil: 'load', timeout: 15000 });
    const seen = await until('a first frame', async () => {
      const s = await page.evaluate(() => window.__ctxguardSeen);
      return s && s.length ? s : null;
    }, 5000, 10);
    const immediate = await shown(page);
    assert(seen[0].endsWith('/true/compacting'), `first frame after reload: ${seen[0]} (all: ${seen.join(' ')})`);
    assert(immediate.compaction === 'compacting' && immediate.restored === 'true', `right after load: ${JSON.stringify(immediate)}`);
    await until('live again', async () => {
      const v = await shown(page);
      return v.connection === 'live' && v.restored !== 'true';
    }, 10000);
    await page.unroute('**/api/sessions/demo/context');
    const seenAll = await page.evaluate(() => window.__ctxguardSeen);
    assert(seenAll.some((s) => s.startsWith('live/')), `states: ${seenAll.join(' ')}`);
  });

  if (screenshot) {
    await check('screenshot of the toolbar', async () => {
      await until('live', async () => (await attr(page, 'ctxguard-connection', 'data-state')) === 'live');
      await page.screenshot({ path: screenshot, fullPage: true });
    });
  }

  const replayCtx = await browser.newContext({ viewport: { width: 1100, height: 420 }, locale: 'en-US' });
  const rpage = await replayCtx.newPage();
  if (process.env.E2E_VERBOSE) rpage.on('request', (r) => log(`[replay page ${Date.now() % 100000}] ${r.method()} ${r.url()}`));
  await check('malformed events change nothing', async () => {
    await rpage.goto(`${url}?session=replay&lang=en`, { waitUntil: 'load', timeout: 15000 });
    await until('replay live', async () => (await attr(rpage, 'ctxguard-connection', 'data-state')) === 'live');
    const before = await shown(rpage);
    assert(before.usage && before.usage.startsWith('12,345'), `opening state: ${JSON.stringify(before)}`);
    const ignoredBefore = Number((await attr(rpage, 'ctxguard-ignored', 'data-count')) ?? 0);
    assert(ignoredBefore === 0, `${ignoredBefore} events ignored before the bad ones were sent`);
    // The recording sends four bad events 1.5–2.4 s after the first visit, then a compaction 4.9–5.4 s.
    await until('the bad events to be ignored', async () => {
      const n = Number(await attr(rpage, 'ctxguard-ignored', 'data-count'));
      return n >= 4;
    }, 8000);
    if (process.env.E2E_VERBOSE) log(`ignored ${await rpage.evaluate(() => document.querySelector('[data-testid="ctxguard-ignored"]')?.outerHTML)}`);
    const after = await shown(rpage);
    for (const k of ['remaining', 'usage', 'over', 'compaction', 'compactionText', 'connection']) {
      assert(after[k] === before[k], `${k} changed: ${JSON.stringify(before[k])} → ${JSON.stringify(after[k])}`);
    }
  });

  await check('a failure_reason holding HTML renders as text', async () => {
    await until('fallback', async () => (await attr(rpage, 'ctxguard-compaction', 'data-state')) === 'fallback', 10000);
    const t = await text(rpage, 'ctxguard-compaction');
    assert(t.includes('<img src=x onerror="window.__ctxguardXss=1"><b>bold</b>'), `text: ${t}`);
    assert(t.includes('<script>'), `text: ${t}`);
    const injected = await rpage.evaluate(() => {
      const el = document.querySelector('[data-testid="ctxguard-compaction"]');
      return {
        elements: el.querySelectorAll('img, b, script').length,
        xss: window.__ctxguardXss ?? null,
      };
    });
    assert(injected.elements === 0 && injected.xss === null, JSON.stringify(injected));
  });
  await replayCtx.close();

  await check('a session published by examples/publish.py shows on the toolbar, then live', async () => {
    const out = execFileSync('python3', [path.join(here, '../../examples/publish.py'), '--server', url, '--session', 'chat:e2e'], {
      env: { ...process.env, CTXGUARD_PUBLISH_TOKEN: PUBLISH_TOKEN, CTXGUARD_READ_SECRET: '' },
      encoding: 'utf8',
      timeout: 20000,
    });
    const last = Number((out.match(/last event id: (\d+)/) || [])[1]);
    const ctx = await context(url, 'chat:e2e');
    assert(ctx.event_id === last && ctx.phase === 'final', `/context ${JSON.stringify(ctx)} after ${out}`);
    const pctx = await browser.newContext({ viewport: { width: 1100, height: 420 }, locale: 'en-US' });
    try {
      const ppage = await pctx.newPage();
      await ppage.goto(`${url}?session=chat:e2e&lang=en`, { waitUntil: 'load', timeout: 15000 });
      await until('live', async () => (await attr(ppage, 'ctxguard-connection', 'data-state')) === 'live');
      await until(`what publish.py sent (${JSON.stringify(ctx.context_metrics)})`, async () => matchesContext(await shown(ppage), ctx), 5000);
      const v = await shown(ppage);
      assert(v.usage.startsWith('24,610') && v.compaction === 'completed', JSON.stringify(v));
      // One more event from the backend reaches the open page.
      const r = await fetch(`${url}api/sessions/chat:e2e/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${PUBLISH_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'response.status.updated', response_id: 'resp_e2e', phase: 'build_messages',
          context_metrics: { ...ctx.context_metrics, used_input_tokens: 50000, remaining_input_tokens: 62000,
            remaining_percent: 55, display_remaining_tokens: 78000, display_remaining_percent: 60, is_over_trigger: false } }),
      });
      assert(r.ok, `publish answered ${r.status}`);
      await until('the new figure', async () => (await shown(ppage)).usage.startsWith('50,000'), 5000);
      assert((await shown(ppage)).remaining === 'Context 60% left', JSON.stringify(await shown(ppage)));
    } finally {
      await pctx.close();
    }
  });

  await check('stopping the server shows reconnecting', async () => {
    await stopServer(server.proc);
    await until('reconnecting', async () => (await attr(page, 'ctxguard-connection', 'data-state')) === 'reconnecting', 10000);
  });

  await check('restarting it returns to live with the numbers of /context', async () => {
    server = await startServer(port, SLOW);
    assert(server.url === url, `restarted on ${server.url}, not ${url}`);
    await until('live again', async () => (await attr(page, 'ctxguard-connection', 'data-state')) === 'live', 20000);
    const ctx = await context(url, 'demo');
    await until(`the numbers of /context (${JSON.stringify(ctx.context_metrics)})`, async () => matchesContext(await shown(page), ctx), 5000);
  });

  await stopServer(server.proc);
}

const watchdog = setTimeout(async () => {
  tally.fail('the whole run took longer than 240 s');
  await cleanup();
  process.exit(tally.finish());
}, 240000);

try {
  await main();
} catch (e) {
  tally.fail(`setup: ${e && e.stack ? e.stack : e}`);
} finally {
  clearTimeout(watchdog);
  await cleanup();
}
process.exit(tally.finish());
