// One driver over the three browser engines, for the checks that must hold in
// each: Chromium (playwright-core), Firefox ESR (puppeteer-core over WebDriver
// BiDi) and WebKitGTK, Safari's engine (WebKitWebDriver driving MiniBrowser
// under Xvfb, plain W3C WebDriver over HTTP). Every browser is Debian's; none
// is downloaded. A check sees the same small surface in each engine:
//
//   const engine = await launchEngine("firefox");
//   const page = await engine.newPage();
//   await page.goto(url);
//   const value = await page.evaluate(async (arg) => …, arg);  // JSON in, JSON out
//   page.errors;                                                  // uncaught page errors
//   await page.close(); await engine.close();
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { launchBrowser } from "./browser.mjs";
import { freePort, sleep, until } from "./net.mjs";

/** The engines every cross-engine check runs in. */
export const ENGINES = ["chromium", "firefox", "webkit"];

/** Debian's binaries, overridable for another layout. */
export const ENGINE_PATHS = {
  firefox: process.env.FIREFOX || "/usr/bin/firefox-esr",
  webkitDriver: process.env.WEBKIT_WEBDRIVER || "/usr/bin/WebKitWebDriver",
  miniBrowser: process.env.WEBKIT_MINIBROWSER || "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser",
  xvfb: process.env.XVFB || "/usr/bin/Xvfb",
};

/** Launches `name` (one of ENGINES); resolves to `{ name, version, newPage(), close() }`. */
export async function launchEngine(name) {
  switch (name) {
    case "chromium":
      return wrapPuppetLike(name, await launchBrowser());
    case "firefox":
      return launchFirefox();
    case "webkit":
      return launchWebKit();
    default:
      throw new Error(`unknown engine ${name} (expected one of ${ENGINES.join(", ")})`);
  }
}

/** A playwright or puppeteer browser: the same page API for what the checks use. */
function wrapPuppetLike(name, browser) {
  return {
    name,
    version: typeof browser.version === "function" ? browser.version() : "",
    async newPage() {
      const page = await browser.newPage();
      const errors = [];
      page.on("pageerror", (e) => errors.push(`pageerror: ${e.message ?? e}`));
      return {
        errors,
        goto: (url) => page.goto(url, { waitUntil: "load", timeout: 60_000 }),
        evaluate: (fn, arg) => page.evaluate(fn, arg),
        close: () => page.close(),
      };
    },
    close: () => browser.close(),
  };
}

async function launchFirefox() {
  if (!existsSync(ENGINE_PATHS.firefox)) throw new Error(`${ENGINE_PATHS.firefox} is missing (scripts/setup.sh installs firefox-esr)`);
  const { default: puppeteer } = await import("puppeteer-core");
  const browser = await puppeteer.launch({
    browser: "firefox",
    executablePath: ENGINE_PATHS.firefox,
    headless: true,
    protocolTimeout: 180_000,
    // No background traffic to the closed network.
    extraPrefsFirefox: {
      "app.update.enabled": false,
      "browser.safebrowsing.malware.enabled": false,
      "browser.safebrowsing.phishing.enabled": false,
      "network.captive-portal-service.enabled": false,
      "network.connectivity-service.enabled": false,
    },
  });
  const engine = wrapPuppetLike("firefox", browser);
  engine.version = await browser.version();
  return engine;
}

/** Starts `cmd args` in the background; the caller stops it. */
function start(cmd, args, env) {
  const proc = spawn(cmd, args, { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, ...env } });
  let stderr = "";
  proc.stderr.on("data", (d) => (stderr = (stderr + d).slice(-2000)));
  proc.stderrTail = () => stderr;
  return proc;
}

function stop(proc) {
  if (proc && proc.exitCode === null && proc.signalCode === null) proc.kill("SIGTERM");
}

/** A display number no X server holds. */
function freeDisplay() {
  for (let n = 90 + Math.floor(Math.random() * 400); ; n++) {
    if (!existsSync(`/tmp/.X${n}-lock`) && !existsSync(`/tmp/.X11-unix/X${n}`)) return n;
  }
}

async function launchWebKit() {
  for (const path of [ENGINE_PATHS.webkitDriver, ENGINE_PATHS.miniBrowser, ENGINE_PATHS.xvfb]) {
    if (!existsSync(path)) throw new Error(`${path} is missing (scripts/setup.sh installs webkit2gtk-driver and xvfb)`);
  }
  const display = freeDisplay();
  const xvfb = start(ENGINE_PATHS.xvfb, [`:${display}`, "-screen", "0", "1280x800x24", "-nolisten", "tcp"]);
  let driver;
  try {
    await until(`Xvfb :${display}`, () => existsSync(`/tmp/.X11-unix/X${display}`), 15_000);
    const port = await freePort();
    driver = start(ENGINE_PATHS.webkitDriver, [`--port=${port}`], { DISPLAY: `:${display}` });
    const base = `http://127.0.0.1:${port}`;
    await until("WebKitWebDriver", async () => (await fetch(`${base}/status`)).ok, 15_000, 100);
    const call = async (method, path, body) => {
      const res = await fetch(base + path, {
        method,
        headers: { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const json = await res.json().catch(() => ({}));
      if (!res.ok) throw new Error(`WebDriver ${method} ${path}: ${res.status} ${JSON.stringify(json.value ?? json).slice(0, 500)}`);
      return json.value;
    };
    const session = await call("POST", "/session", {
      capabilities: {
        alwaysMatch: {
          "webkitgtk:browserOptions": { binary: ENGINE_PATHS.miniBrowser, args: ["--automation"] },
        },
      },
    });
    const id = session.sessionId;
    await call("POST", `/session/${id}/timeouts`, { script: 180_000, pageLoad: 60_000 });
    // One window: a page is the session's window, emptied on close.
    return {
      name: "webkit",
      version: session.capabilities?.browserVersion ?? "",
      async newPage() {
        return {
          // WebDriver has no page-error events; an error a check must see surfaces through evaluate.
          errors: [],
          goto: (url) => call("POST", `/session/${id}/url`, { url }),
          async evaluate(fn, arg) {
            const script = `
              const done = arguments[arguments.length - 1];
              Promise.resolve()
                .then(() => (${fn.toString()})(arguments[0]))
                .then((value) => done({ ok: true, value: value === undefined ? null : value }),
                      (e) => done({ ok: false, error: String((e && e.stack) || e) }));`;
            const out = await call("POST", `/session/${id}/execute/async`, { script, args: [arg === undefined ? null : arg] });
            if (!out || !out.ok) throw new Error(`in the page: ${out ? out.error : "no answer"}`);
            return out.value;
          },
          close: () => call("POST", `/session/${id}/url`, { url: "about:blank" }),
        };
      },
      async close() {
        await call("DELETE", `/session/${id}`).catch(() => {});
        stop(driver);
        stop(xvfb);
        await sleep(100);
      },
    };
  } catch (e) {
    stop(driver);
    stop(xvfb);
    throw new Error(`${e.message}${driver ? ` (WebKitWebDriver: ${driver.stderrTail()})` : ""} (Xvfb: ${xvfb.stderrTail()})`);
  }
}
