// End-to-end test: `ctxguard serve` (fast demo script + a replayed recording)
// and the built demo page in headless Chromium, driven by playwright-core. The
// page hosts <ctxguard-toolbar>, so every query reads its (open) shadow root.
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

// A short keep-alive lets the relay notice a closed page's stream within a second, so its
// open-stream gauge settles before a check counts the streams a page opens.
const FAST = ['--demo', '--speed', '10', '--heartbeat-ms', '200', '--fail-every', '0', '--keep-alive-secs', '0.3'];
const REPLAY = ['--replay', path.join(here, 'replay.jsonl')];
// After the restart the demo stands still for a while (its next step is 24 s away), so the
// toolbar's numbers can be compared with /context exactly.
const SLOW = ['--demo', '--speed', '0.05', '--heartbeat-ms', '200', '--fail-every', '0', '--keep-alive-secs', '0.3'];

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
// Installed in every page: finds an element by test id inside the toolbar's shadow root.
const DEEP = `window.__ctxguardQ = (id) => document.querySelector('ctxguard-toolbar')?.shadowRoot?.querySelector('[data-testid="' + id + '"]') ?? null;`;
// Both read the DOM as it is now (no auto-waiting), so a check never waits for what it tests.
const attr = (page, id, name) =>
  page.evaluate(([i, n]) => window.__ctxguardQ(i)?.getAttribute(n) ?? null, [id, name]);
const text = (page, id) => page.evaluate((i) => window.__ctxguardQ(i)?.textContent ?? null, id);
const group = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** What the toolbar shows, as one comparable record. */
async function shown(page) {
  return page.evaluate(() => {
    const q = window.__ctxguardQ;
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

// Records, from the first paint of every load, each state the connection and compaction show
// (it watches the document and every shadow root opened in it).
const RECORDER = `
  (() => {
    ${DEEP}
    const seen = [];
    window.__ctxguardSeen = seen;
    const snap = () => {
      const c = window.__ctxguardQ('ctxguard-connection');
      const k = window.__ctxguardQ('ctxguard-compaction');
      if (!c && !k) return;
      const s = (c ? c.getAttribute('data-state') : '-') + '/' + (c ? c.getAttribute('data-restored') : '-') +
        '/' + (k ? k.getAttribute('data-state') : '-');
      if (seen[seen.length - 1] !== s) seen.push(s);
    };
    const watch = (root) => new MutationObserver(snap).observe(root, { subtree: true, childList: true, attributes: true });
    const attachShadow = Element.prototype.attachShadow;
    Element.prototype.attachShadow = function (init) {
      const root = attachShadow.call(this, init);
      watch(root);
      return root;
    };
    watch(document);
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

  await check('the live demo shows the compaction history and the forecast', async () => {
    // A compaction that ends adds to the history; three turn starts make a forecast.
    await until('a compaction in the history', async () => Number(await attr(page, 'ctxguard-compaction-count', 'data-count')) >= 1, 90000, 100);
    await until('a forecast', async () => (await attr(page, 'ctxguard-forecast', 'data-turns')) !== null, 60000, 100);
    const turns = Number(await attr(page, 'ctxguard-forecast', 'data-turns'));
    const forecast = await text(page, 'ctxguard-forecast');
    assert(Number.isInteger(turns) && turns >= 0, `data-turns ${turns}`);
    assert(turns === 0 ? forecast === 'compaction due' : /^≈ \d+ turns? until compaction$/.test(forecast), `forecast: ${forecast}`);
    assert((await page.evaluate(() => document.querySelector('ctxguard-toolbar').state.history.length)) >= 1, 'state.history');
    await page.evaluate(() => window.__ctxguardQ('ctxguard-compaction-count').click());
    await until('the history open', async () => page.evaluate(() => Boolean(window.__ctxguardQ('ctxguard-history'))), 3000);
    const statuses = await page.evaluate(() =>
      [...window.__ctxguardQ('ctxguard-history').querySelectorAll('[data-testid="ctxguard-history-item"]')].map((e) => e.dataset.status));
    assert(statuses.length >= 1 && statuses.every((s) => s === 'completed' || s === 'fallback'), `items: ${statuses}`);
  });

  if (screenshot) {
    await check('screenshot of the demo page', async () => {
      await until('live', async () => (await attr(page, 'ctxguard-connection', 'data-state')) === 'live');
      await page.screenshot({ path: screenshot, fullPage: true });
    });
  }

  await check('?session=, ?lang= and ?token= reach the toolbar', async () => {
    const ctx = await browser.newContext({ viewport: { width: 900, height: 300 }, locale: 'en-US' });
    try {
      const p = await ctx.newPage();
      await p.addInitScript(DEEP);
      const urls = [];
      p.on('request', (r) => urls.push(r.url()));
      await p.goto(`${url}?session=demo&lang=zh-CN&token=r.e2e%2B1`, { waitUntil: 'load', timeout: 15000 });
      await until('live', async () => (await attr(p, 'ctxguard-connection', 'data-state')) === 'live', 15000);
      const api = urls.filter((u) => u.includes('/api/'));
      assert(api.some((u) => u.includes('/api/sessions/demo/context?')), `requests: ${api}`);
      // The stream is the page's shared one, naming the session.
      assert(api.some((u) => u.includes('/api/events?') && new URL(u).searchParams.getAll('session').includes('demo')), `requests: ${api}`);
      assert(api.every((u) => new URL(u).searchParams.get('token') === 'r.e2e+1'), `requests: ${api}`);
      const remaining = await text(p, 'ctxguard-remaining');
      assert(/^上下文剩余 \d+%$/.test(remaining), `remaining: ${remaining}`);
      assert((await p.evaluate(() => document.documentElement.lang)) === 'zh-CN', 'page lang');
    } finally {
      await ctx.close();
    }
  });

  const replayCtx = await browser.newContext({ viewport: { width: 1100, height: 420 }, locale: 'en-US' });
  const rpage = await replayCtx.newPage();
  await rpage.addInitScript(DEEP);
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
    if (process.env.E2E_VERBOSE) log(`ignored ${await rpage.evaluate(() => window.__ctxguardQ('ctxguard-ignored')?.outerHTML)}`);
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
      const el = window.__ctxguardQ('ctxguard-compaction');
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
      await ppage.addInitScript(DEEP);
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

  await check('twenty toolbars on one page share one stream, each live with its own numbers', async () => {
    const N = 20;
    const sessions = Array.from({ length: N }, (_, i) => `many:${i}`);
    const publish = async (session, used) => {
      const r = await fetch(`${url}api/sessions/${session}/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${PUBLISH_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'response.status.updated', response_id: `resp_${session}`, phase: 'after_tool_end',
          context_metrics: { context_window: 128000, reserved_output_tokens: 16000, available_input_tokens: 112000,
            used_input_tokens: used, remaining_input_tokens: 112000 - used, remaining_percent: Math.floor(((112000 - used) * 100) / 112000),
            display_remaining_tokens: 128000 - used, display_remaining_percent: Math.floor(((128000 - used) * 100) / 128000),
            trigger_limit: 100000, target_limit: 80000, is_over_trigger: false } }),
      });
      assert(r.ok, `publish to ${session} answered ${r.status}`);
    };
    await Promise.all(sessions.map((s, i) => publish(s, 1000 + i)));
    const openStreams = async () => Number((await (await fetch(`${url}metrics`)).text()).match(/^ctxguard_open_streams (\d+)$/m)?.[1]);
    // Streams of pages closed by the checks before close when the relay next writes to them:
    // count only once the gauge has held still for a second.
    let streamsBefore = await openStreams();
    for (let held = 0, tries = 0; held < 4 && tries < 40; tries += 1) {
      await new Promise((r) => setTimeout(r, 250));
      const now = await openStreams();
      held = now === streamsBefore ? held + 1 : 0;
      streamsBefore = now;
    }
    const mctx = await browser.newContext({ viewport: { width: 1100, height: 900 }, locale: 'en-US' });
    try {
      const mpage = await mctx.newPage();
      const urls = [];
      mpage.on('request', (r) => urls.push(r.url()));
      // A page of the relay's origin holding twenty toolbars, one per session.
      const html = `<!doctype html><meta charset="utf-8"><title>many</title>
        <script type="module" src="/ctxguard-toolbar/ctxguard-toolbar.js"></script>
        ${sessions.map((s) => `<ctxguard-toolbar session="${s}"></ctxguard-toolbar>`).join('\n')}`;
      await mpage.route(`${url}many.html`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: html }));
      await mpage.goto(`${url}many.html`, { waitUntil: 'load', timeout: 15000 });
      const states = () =>
        mpage.evaluate(() =>
          [...document.querySelectorAll('ctxguard-toolbar')].map((el) => ({
            session: el.getAttribute('session'),
            connection: el.shadowRoot?.querySelector('[data-testid="ctxguard-connection"]')?.getAttribute('data-state') ?? null,
            usage: el.shadowRoot?.querySelector('[data-testid="ctxguard-usage"]')?.textContent ?? null,
          })),
        );
      await until('all twenty live', async () => (await states()).every((s) => s.connection === 'live'), 20000);
      const own = (list, base) => list.every((s, i) => s.session === sessions[i] && s.usage?.startsWith(group(base + i)));
      assert(own(await states(), 1000), `the /context numbers: ${JSON.stringify(await states())}`);
      await Promise.all(sessions.map((s, i) => publish(s, 20000 + 100 * i)));
      const every = (list) => list.every((s, i) => s.usage?.startsWith(group(20000 + 100 * i)));
      await until('each toolbar shows its session\'s event', async () => every(await states()), 10000);
      const shared = urls.filter((u) => u.includes('/api/events?'));
      const single = urls.filter((u) => /\/api\/sessions\/[^/]+\/events/.test(u));
      assert(shared.length >= 1 && shared.length <= 2 && single.length === 0, `event streams: ${shared.length} shared, ${single.length} single: ${JSON.stringify([...shared, ...single])}`);
      const last = new URL(shared[shared.length - 1]).searchParams.getAll('session');
      assert(last.length === N && sessions.every((s) => last.includes(s)), `the stream names every session: ${last}`);
      const streamsOpen = (await openStreams()) - streamsBefore;
      assert(streamsOpen >= 1 && streamsOpen <= 2, `the relay counts ${streamsOpen} more open streams`);
      const timing = await mpage.evaluate(() => performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/events?')).length);
      assert(timing <= 2, `PerformanceResourceTiming saw ${timing} event streams`);
    } finally {
      await mctx.close();
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
  tally.fail('the whole run took longer than 420 s');
  await cleanup();
  process.exit(tally.finish());
}, 420000);

try {
  await main();
} catch (e) {
  tally.fail(`setup: ${e && e.stack ? e.stack : e}`);
} finally {
  clearTimeout(watchdog);
  await cleanup();
}
process.exit(tally.finish());
