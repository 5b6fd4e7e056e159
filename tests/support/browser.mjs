// The one browser driver of the tests: playwright-core over Debian's Chromium
// (/usr/bin/chromium, never a downloaded browser), launched with the flags this
// workplace requires, plus a static file server for pages served from the
// repository. Every runner that needs a browser takes it from here.
import { chromium } from "playwright-core";
import { createReadStream, statSync } from "node:fs";
import { createServer } from "node:http";
import { dirname, extname, join, normalize, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { option } from "./net.mjs";

/** The repository root. */
export const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** Chromium's flags: headless, no sandbox (tests run as root), no background traffic to the closed network. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
  "--no-first-run",
];

/** The Chromium binary: `--chromium PATH`, `$CHROMIUM`, else Debian's. */
export const chromiumPath = option("--chromium", process.env.CHROMIUM || "/usr/bin/chromium");

/** Launches headless Chromium (a fresh profile each time); close it in `finally`. */
export function launchBrowser() {
  return chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_ARGS });
}

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".jsonl": "text/plain; charset=utf-8",
  ".ts": "text/plain; charset=utf-8",
  ".png": "image/png",
  ".svg": "image/svg+xml",
};

/**
 * Serves `dir` (default: the repository root) on 127.0.0.1, on a free port,
 * with `no-store` caching. Resolves to `{ origin, close() }`.
 */
export function serveDirectory(dir = root) {
  const base = resolve(dir);
  const server = createServer((req, res) => {
    const url = new URL(req.url, "http://localhost");
    let path = normalize(join(base, decodeURIComponent(url.pathname)));
    if (path !== base && !path.startsWith(base + sep)) {
      res.writeHead(403).end();
      return;
    }
    let stat;
    try {
      stat = statSync(path);
      if (stat.isDirectory()) {
        path = join(path, "index.html");
        stat = statSync(path);
      }
    } catch {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, {
      "content-type": TYPES[extname(path)] ?? "application/octet-stream",
      "content-length": stat.size,
      "cache-control": "no-store",
    });
    createReadStream(path).pipe(res);
  });
  return new Promise((ok, fail) => {
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () =>
      ok({
        origin: `http://127.0.0.1:${server.address().port}`,
        close: () => new Promise((done) => server.close(() => done())),
      }),
    );
  });
}

/**
 * Serves the repository and opens one page in a fresh browser, for runners
 * that drive a test page. Resolves to
 * `{ origin, browserVersion, browser, page, goto(path), execute(script), setScriptTimeout(ms), close() }`:
 * `execute` runs a function body in the page and returns its result;
 * `close()` ends the browser and the server (call it in `finally`).
 */
export async function openBrowser() {
  const site = await serveDirectory(root);
  let browser;
  const close = async () => {
    if (browser) await browser.close().catch(() => {});
    browser = undefined;
    await site.close();
  };
  try {
    browser = await launchBrowser();
    const page = await browser.newPage();
    return {
      origin: site.origin,
      browserVersion: browser.version(),
      browser,
      page,
      goto: (path) => page.goto(site.origin + path, { waitUntil: "load", timeout: 60_000 }),
      execute: (script) => page.evaluate(new Function(script)),
      setScriptTimeout: (ms) => page.setDefaultTimeout(ms),
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}
