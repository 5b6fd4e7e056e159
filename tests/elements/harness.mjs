// The element tests' harness: a fresh browser context per check (so
// localStorage and the module registry start empty), the test host page
// that imports the package, and helpers installed in the page to add
// elements and read their shadow roots. Every check fails on any page error
// or console error: a panic in the WebAssembly module shows up as one.
import { assert, sleep } from "../support/net.mjs";

/** In every test page: `t.add(html)`, `t.q(el, testid)`, `t.text`, `t.attr`, `t.settle()`. */
export const PAGE_HELPERS = `
  window.t = {
    add(html, parent = document.body) {
      const template = document.createElement("template");
      template.innerHTML = html.trim();
      const el = template.content.firstElementChild;
      parent.append(el);
      return el;
    },
    q(el, id) { return el.shadowRoot.querySelector('[data-testid="' + id + '"]'); },
    all(el, id) { return [...el.shadowRoot.querySelectorAll('[data-testid="' + id + '"]')]; },
    text(el, id) { return t.q(el, id)?.textContent ?? null; },
    attr(el, id, name) { return t.q(el, id)?.getAttribute(name) ?? null; },
    // The views update in microtasks after a change; two animation frames is past all of them.
    async settle() {
      for (let i = 0; i < 2; i++) await new Promise((r) => requestAnimationFrame(() => r()));
      await new Promise((r) => setTimeout(r, 0));
    },
    shown(el) {
      return {
        remaining: t.text(el, "ctxguard-remaining"),
        usage: t.text(el, "ctxguard-usage"),
        compaction: t.attr(el, "ctxguard-compaction", "data-state"),
        compactionText: t.text(el, "ctxguard-compaction"),
        over: Boolean(t.q(el, "ctxguard-over-trigger")),
        forecast: t.attr(el, "ctxguard-forecast", "data-turns"),
        count: t.attr(el, "ctxguard-compaction-count", "data-count"),
        connection: t.attr(el, "ctxguard-connection", "data-state"),
      };
    },
  };
`;

/** Opens pages on `site` in `browser`. */
export class Harness {
  constructor(browser, site) {
    this.browser = browser;
    this.site = site;
  }

  /**
   * A fresh context and page at `path` (default the host page), the package loaded.
   * Resolves to `{ page, context, errors, requests, close() }`.
   */
  async open({ path = "/tests/elements/pages/host.html", colorScheme = "light", viewport, locale = "en-US", ready = true } = {}) {
    const context = await this.browser.newContext({
      viewport: viewport ?? { width: 1000, height: 640 },
      colorScheme,
      locale,
    });
    const page = await context.newPage();
    const errors = [];
    const requests = [];
    page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
    page.on("console", (m) => {
      // The one expected console error: the favicon the test host page does not have.
      if (m.type() === "error" && !/favicon|404 \(Not Found\)/.test(m.text())) errors.push(`console: ${m.text()}`);
    });
    page.on("request", (r) => requests.push(r.url()));
    await page.addInitScript(PAGE_HELPERS);
    await page.goto(this.site.origin + path, { waitUntil: "load", timeout: 30_000 });
    if (ready) {
      const state = await page.evaluate(() => window.ctxguardReady);
      assert(state === "ready", `the package did not load: ${state}`);
    }
    return {
      page,
      context,
      errors,
      requests,
      close: () => context.close(),
    };
  }

  /** Runs `fn(h)` on a fresh page and fails on any page error. */
  async with(options, fn) {
    if (typeof options === "function") [options, fn] = [{}, options];
    const h = await this.open(options);
    try {
      await fn(h);
      await sleep(20);
      assert(h.errors.length === 0, `page errors: ${h.errors.join(" | ")}`);
    } finally {
      await h.close();
    }
  }
}

/** Deep equality through JSON (for the JSON-safe states). */
export function same(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}
