// What every Node test runner shares besides the browser: command-line
// options, free loopback ports, waiting for a condition, starting and
// stopping `ctxguard serve`, and the `N passed, M failed` tally that
// scripts/test.sh sums up. Every runner takes `--only TEXT`: only the checks
// whose name holds TEXT (any case) run (`scripts/test.sh --only SUITE TEXT`).
import { spawn } from "node:child_process";
import { createServer } from "node:net";

/** `--name value` from the command line, or `fallback`. */
export function option(name, fallback) {
  const args = process.argv.slice(2);
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback;
}

/** Whether `--name` is on the command line. */
export function flag(name) {
  return process.argv.slice(2).includes(name);
}

/** The `--only TEXT` filter of this run (lower-cased), or null when every check runs. */
export const onlyText = option("--only", null)?.toLowerCase() ?? null;

/** Whether the check called `name` runs under `--only` (always without one). */
export function wanted(name) {
  return onlyText === null || String(name).toLowerCase().includes(onlyText);
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.unref();
    s.once("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

/** Polls `fn` until it returns something truthy (its value), or throws after `timeoutMs`. */
export async function until(what, fn, timeoutMs = 15_000, everyMs = 50) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    await sleep(everyMs);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${last})`);
}

const running = new Set();

/**
 * Starts `BIN serve --port PORT ...args` and resolves with `{ proc, url, port }`
 * once it prints its address. Every process started here is stopped by `stopAll()`.
 */
export function startServe(bin, args, { port = 0, verbose = Boolean(process.env.E2E_VERBOSE), env } = {}) {
  return new Promise((resolve, reject) => {
    const proc = spawn(bin, ["serve", "--port", String(port), ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      env: env ? { ...process.env, ...env } : process.env,
    });
    running.add(proc);
    let out = "";
    let err = "";
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out} ${err}`)), 15_000);
    proc.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/listening on (http:\/\/[^\s]+\/)/);
      if (m) {
        clearTimeout(timer);
        resolve({ proc, url: m[1], port: Number(new URL(m[1]).port) });
      }
    });
    proc.stderr.on("data", (d) => {
      err += d;
      if (verbose) process.stderr.write(`[server] ${d}`);
    });
    proc.on("exit", (code) => {
      running.delete(proc);
      clearTimeout(timer);
      reject(new Error(`server exited early (${code}): ${out} ${err}`));
    });
  });
}

/** Stops a process with SIGTERM (SIGKILL after 8 s) and waits for it. */
export function stopProcess(proc) {
  return new Promise((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
    const hard = setTimeout(() => proc.kill("SIGKILL"), 8000);
    proc.once("exit", () => {
      clearTimeout(hard);
      running.delete(proc);
      resolve();
    });
    proc.kill("SIGTERM");
  });
}

/** Stops every process `startServe` started that is still running. */
export async function stopAll() {
  await Promise.all([...running].map(stopProcess));
}

/** Named checks with a closing `N passed, M failed` line; `--only TEXT` skips the others. */
export class Tally {
  passed = 0;
  failed = 0;

  /** Runs one named check (unless `--only` leaves it out); a throw is a failure with its first stack lines. */
  async check(name, fn) {
    if (!wanted(name)) return;
    const t0 = Date.now();
    try {
      await fn();
      this.passed += 1;
      console.log(`ok   ${name} (${Date.now() - t0} ms)`);
    } catch (e) {
      this.failed += 1;
      const why = e && e.stack ? e.stack.split("\n").slice(0, 3).join(" | ") : String(e);
      console.log(`FAIL ${name} (${Date.now() - t0} ms): ${why}`);
    }
  }

  /** Records a failure that is not a check (setup, timeout). */
  fail(what) {
    this.failed += 1;
    console.log(`FAIL ${what}`);
  }

  /**
   * Prints the tally; the exit code: 0 only when nothing failed and something passed (under
   * `--only`, nothing may have matched here: scripts/test.sh fails a filter no runner of the
   * suite matched).
   */
  finish() {
    if (onlyText !== null && this.passed + this.failed === 0) {
      console.log(`no check's name holds "${onlyText}" (--only)`);
      console.log("0 passed, 0 failed");
      return 0;
    }
    console.log(`${this.passed} passed, ${this.failed} failed`);
    return this.failed === 0 && this.passed > 0 ? 0 : 1;
  }
}

/** Throws `msg` unless `cond`. */
export function assert(cond, msg) {
  if (!cond) throw new Error(msg);
}
