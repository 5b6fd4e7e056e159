// Headless Chromium for the Node test runners, with Node built-ins only: a
// static file server for the repository root on a free loopback port, and a
// chromedriver session (WebDriver over HTTP) with the flags this workplace
// requires. Never downloads a browser or a driver.
import { spawn } from "node:child_process";
import { createReadStream, statSync } from "node:fs";
import { createServer } from "node:http";
import { createServer as createNetServer } from "node:net";
import { dirname, extname, join, normalize, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** Chromium's flags: headless, no sandbox (root), no background traffic to the closed network. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
];

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".jsonl": "text/plain; charset=utf-8",
  ".ts": "text/plain; charset=utf-8",
};

/** `--name value` from the command line, or `fallback`. */
export function option(name, fallback) {
  const args = process.argv.slice(2);
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A static file server for the repository root, bound to 127.0.0.1 on a free port. */
export function serveRepository() {
  const server = createServer((req, res) => {
    const url = new URL(req.url, "http://localhost");
    const path = normalize(join(root, decodeURIComponent(url.pathname)));
    if (path !== root && !path.startsWith(root + sep)) {
      res.writeHead(403).end();
      return;
    }
    let stat;
    try {
      stat = statSync(path);
    } catch {
      res.writeHead(404).end();
      return;
    }
    if (!stat.isFile()) {
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
    server.listen(0, "127.0.0.1", () => ok(server));
  });
}

function freePort() {
  return new Promise((ok, fail) => {
    const s = createNetServer();
    s.once("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

async function webdriver(base, method, path, body) {
  const res = await fetch(base + path, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`WebDriver ${method} ${path}: ${JSON.stringify(json.value ?? json).slice(0, 500)}`);
  return json.value;
}

/**
 * Serves the repository and opens one Chromium session. Resolves to
 * `{ origin, browserVersion, goto(path), execute(script), setScriptTimeout(ms), close() }`;
 * `close()` ends the session, chromedriver and the server (call it in `finally`).
 */
export async function openBrowser({
  chromedriver = option("--chromedriver", "/usr/bin/chromedriver"),
  chromium = option("--chromium", "/usr/bin/chromium"),
} = {}) {
  const server = await serveRepository();
  const origin = `http://127.0.0.1:${server.address().port}`;
  const driverPort = await freePort();
  const driver = spawn(chromedriver, [`--port=${driverPort}`, "--allowed-ips=127.0.0.1"], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  const base = `http://127.0.0.1:${driverPort}`;
  let session;
  const close = async () => {
    if (session) await webdriver(base, "DELETE", `/session/${session}`).catch(() => {});
    session = undefined;
    driver.kill();
    server.close();
  };
  try {
    for (let i = 0; ; i++) {
      try {
        if ((await webdriver(base, "GET", "/status")).ready) break;
      } catch {
        // not listening yet
      }
      if (i > 100) throw new Error("chromedriver did not become ready");
      await sleep(100);
    }
    const created = await webdriver(base, "POST", "/session", {
      capabilities: {
        alwaysMatch: { browserName: "chrome", "goog:chromeOptions": { binary: chromium, args: CHROMIUM_ARGS } },
      },
    });
    session = created.sessionId;
    return {
      origin,
      browserVersion: created.capabilities?.browserVersion ?? null,
      goto: (path) => webdriver(base, "POST", `/session/${session}/url`, { url: origin + path }),
      execute: (script) => webdriver(base, "POST", `/session/${session}/execute/sync`, { script, args: [] }),
      setScriptTimeout: (ms) => webdriver(base, "POST", `/session/${session}/timeouts`, { script: ms, pageLoad: 60_000 }),
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}
