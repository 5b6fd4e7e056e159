// Drives tests/wasm-host/index.html in headless Chromium through chromedriver
// (WebDriver over HTTP), using only Node built-ins. Serves the repository root
// on a free localhost port, runs the page `--runs` times in fresh page loads,
// prints every failure, the init-to-first-count timings and a closing
// `N passed, M failed` line; exits non-zero on any failure.
//
// Usage: node tests/wasm-host/run.mjs [--runs N] [--chromedriver PATH] [--chromium PATH]
import { spawn } from "node:child_process";
import { createReadStream, statSync } from "node:fs";
import { createServer } from "node:http";
import { createServer as createNetServer } from "node:net";
import { dirname, extname, join, normalize, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
};
const runs = Number(option("--runs", "1"));
const chromedriverPath = option("--chromedriver", "/usr/bin/chromedriver");
const chromiumPath = option("--chromium", "/usr/bin/chromium");
const TIMEOUT_MS = 180_000;

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".jsonl": "text/plain; charset=utf-8",
  ".ts": "text/plain; charset=utf-8",
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
    console.error(`wasm-host: timed out after ${TIMEOUT_MS / 1000} s`);
    cleanup().finally(() => process.exit(2));
  }, TIMEOUT_MS);

  let passed = 0;
  let failed = 0;
  const timings = [];
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
    session = (
      await webdriver(base, "POST", "/session", {
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
      })
    ).sessionId;
    const page = `http://127.0.0.1:${pagePort}/tests/wasm-host/index.html`;
    for (let run = 0; run < runs; run++) {
      await webdriver(base, "POST", `/session/${session}/url`, { url: `${page}?run=${run}` });
      let result;
      for (;;) {
        result = await webdriver(base, "POST", `/session/${session}/execute/sync`, {
          script: "return window.ctxguardResult && window.ctxguardResult.done ? window.ctxguardResult : null;",
          args: [],
        });
        if (result) break;
        await sleep(200);
      }
      timings.push(result.timings);
      if (run === 0) {
        const vectors = Object.values(result.vectorKinds ?? {}).reduce((a, b) => a + b, 0);
        console.log(`vectors run through the package: ${vectors} (${JSON.stringify(result.vectorKinds)})`);
        if (vectors < 412) {
          result.failed += 1;
          result.failures.push(`only ${vectors} vectors ran, expected at least 412`);
        }
      }
      for (const f of result.failures) console.log(`FAIL run ${run}: ${f}`);
      passed += result.passed;
      failed += result.failed;
    }
  } finally {
    clearTimeout(deadline);
    await cleanup();
  }
  const fmt = (ms) => `${ms.toFixed(1)} ms`;
  timings.forEach((t, i) =>
    console.log(
      `run ${i}: init() ${fmt(t.init_ms)}, first countTokens(o200k) ${fmt(t.first_count_ms)}, init to first count ${fmt(t.init_to_first_count_ms)}`,
    ),
  );
  if (timings.length > 1) {
    const sorted = timings.map((t) => t.init_to_first_count_ms).sort((a, b) => a - b);
    console.log(`init to first count: median ${fmt(sorted[Math.floor(sorted.length / 2)])} over ${sorted.length} page loads`);
  }
  console.log(`${passed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(`wasm-host: ${e.stack ?? e}`);
    console.log("0 passed, 1 failed");
    process.exit(1);
  },
);
