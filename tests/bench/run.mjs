// Drives tests/bench/index.html in one headless Chromium session through
// chromedriver (WebDriver over HTTP), using only Node built-ins, as
// tests/wasm-host/run.mjs does. Serves the repository root on a free localhost
// port; measures each tokenizer's init on `--inits` fresh page loads, then runs
// the throughput / worst-case page once; prints the table and writes the raw
// result as JSON to `--out`.
//
// Usage: node tests/bench/run.mjs [--out FILE] [--inits N] [--chromedriver PATH] [--chromium PATH]
import { spawn } from "node:child_process";
import { createReadStream, existsSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { createServer as createNetServer } from "node:net";
import { dirname, extname, join, normalize, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { browserTable } from "./report.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
};
const out = option("--out", null);
const inits = Number(option("--inits", "5"));
const chromedriverPath = option("--chromedriver", "/usr/bin/chromedriver");
const chromiumPath = option("--chromium", "/usr/bin/chromium");
const TIMEOUT_MS = 9 * 60_000;
const TOKENIZERS = ["ctxguard", "gpt-tokenizer", "js-tiktoken", "tiktoken (npm wasm)"];

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".jsonl": "text/plain; charset=utf-8",
};

/** A static file server for the repository root, bound to 127.0.0.1 on a free port. */
function serve() {
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
      // Every page load is a cold start: nothing comes from the HTTP or code cache.
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

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

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

async function main() {
  for (const p of ["pkg/ctxguard_core.js", "pkg/ctxguard_core_bg.wasm", "tests/bench/node_modules/tiktoken/package.json"]) {
    if (!existsSync(join(root, p))) throw new Error(`${p} is missing (scripts/bench.sh builds pkg/ and runs npm ci)`);
  }
  const server = await serve();
  const pagePort = server.address().port;
  const driverPort = await freePort();
  const driver = spawn(chromedriverPath, [`--port=${driverPort}`, "--allowed-ips=127.0.0.1"], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  const base = `http://127.0.0.1:${driverPort}`;
  let session;
  const cleanup = async () => {
    if (session) await webdriver(base, "DELETE", `/session/${session}`).catch(() => {});
    session = undefined;
    driver.kill();
    server.close();
  };
  const deadline = setTimeout(() => {
    console.error(`browser bench: timed out after ${TIMEOUT_MS / 1000} s`);
    cleanup().finally(() => process.exit(2));
  }, TIMEOUT_MS);

  const page = `http://127.0.0.1:${pagePort}/tests/bench/index.html`;
  const report = { inits: {}, chromium: null };
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
        alwaysMatch: {
          browserName: "chrome",
          "goog:chromeOptions": {
            binary: chromiumPath,
            args: [
              "--headless",
              "--no-sandbox",
              "--disable-gpu",
              "--disable-background-networking",
              "--disable-component-update",
              "--disable-sync",
              "--disable-dev-shm-usage",
            ],
          },
        },
      },
    });
    session = created.sessionId;
    report.chromium = created.capabilities?.browserVersion ?? null;
    // A page busy counting blocks script execution; let the poll wait for it.
    await webdriver(base, "POST", `/session/${session}/timeouts`, { script: TIMEOUT_MS, pageLoad: 60_000 });

    const poll = async (onProgress) => {
      let last = "";
      for (;;) {
        const r = await webdriver(base, "POST", `/session/${session}/execute/sync`, {
          script: "const r = window.benchResult; return r ? (r.done ? r : { progress: r.progress }) : null;",
          args: [],
        });
        if (r && r.done) return r;
        if (r && r.progress && r.progress !== last && onProgress) onProgress((last = r.progress));
        await sleep(250);
      }
    };

    for (let run = 0; run < inits; run++) {
      for (const name of TOKENIZERS) {
        const url = `${page}?mode=init&tok=${encodeURIComponent(name)}&run=${run}`;
        await webdriver(base, "POST", `/session/${session}/url`, { url });
        const r = await poll();
        if (r.error) throw new Error(`init of ${name}: ${r.error}`);
        (report.inits[name] ??= []).push(r.init_ms);
        console.log(`init ${name} (fresh page ${run + 1}/${inits}): ${r.init_ms.toFixed(1)} ms`);
      }
    }
    await webdriver(base, "POST", `/session/${session}/url`, { url: `${page}?mode=run` });
    const r = await poll((p) => console.log(`  ${p}…`));
    if (r.error) throw new Error(`bench page: ${r.error}`);
    Object.assign(report, r);
  } finally {
    clearTimeout(deadline);
    await cleanup();
  }
  delete report.done;
  delete report.progress;
  if (out) writeFileSync(out, JSON.stringify(report, null, 2) + "\n");
  console.log("\n" + browserTable(report));
  // A JS tokenizer disagreeing with ctxguard is reported (in the table), not a failure of the run.
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(`browser bench: ${e.stack ?? e}`);
    process.exit(1);
  },
);
