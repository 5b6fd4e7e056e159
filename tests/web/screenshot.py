#!/usr/bin/env python3
"""Screenshots of the toolbar page in headless Chromium, driven over WebDriver (chromedriver).

Usage: screenshot.py URL OUT.png [--wait SECONDS] [--files PATH...] [--expand] [--size 1200x800]
Loads URL, waits, optionally picks files in the attachment panel (sent to the file input,
as a person choosing them would) and expands the rendered preview, then saves a PNG.
Prints the toolbar's data-state attributes. Uses only the standard library.
"""

import argparse
import base64
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Driver:
    def __init__(self, chromedriver, size):
        self.port = free_port()
        self.proc = subprocess.Popen([chromedriver, f"--port={self.port}"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.base = f"http://127.0.0.1:{self.port}"
        for _ in range(100):
            try:
                self.call("GET", "/status")
                break
            except OSError:
                time.sleep(0.1)
        w, h = size.split("x")
        caps = {"capabilities": {"alwaysMatch": {"goog:chromeOptions": {"args": [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            f"--window-size={w},{h}", "--lang=en-US"]},
            "goog:loggingPrefs": {"browser": "ALL"}}}}
        self.session = self.call("POST", "/session", caps)["value"]["sessionId"]

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as r:
            return json.loads(r.read() or b"{}")

    def s(self, method, path, body=None):
        return self.call(method, f"/session/{self.session}{path}", body)

    def js(self, script, *args):
        return self.s("POST", "/execute/sync", {"script": script, "args": list(args)})["value"]

    def find(self, css):
        v = self.s("POST", "/element", {"using": "css selector", "value": css})["value"]
        return next(iter(v.values()))

    def close(self):
        try:
            self.s("DELETE", "")
        finally:
            self.proc.terminate()
            self.proc.wait(timeout=10)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("out")
    ap.add_argument("--wait", type=float, default=4.0)
    ap.add_argument("--files", nargs="*", default=[])
    ap.add_argument("--expand", action="store_true")
    ap.add_argument("--size", default="1200x800")
    ap.add_argument("--chromedriver", default=os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    args = ap.parse_args()

    d = Driver(args.chromedriver, args.size)
    try:
        d.s("POST", "/url", {"url": args.url})
        time.sleep(args.wait)
        if args.files:
            el = d.find("[data-testid=ctxguard-file-input]")
            d.s("POST", f"/element/{el}/value", {"text": "\n".join(os.path.abspath(f) for f in args.files)})
            time.sleep(2.5)
        if args.expand:
            d.js("const e = document.querySelector('[data-testid=ctxguard-rendered]'); if (e) e.open = true;")
            time.sleep(0.3)
        states = d.js("""
            const q = id => document.querySelector(`[data-testid=${id}]`);
            const c = q('ctxguard-connection'), k = q('ctxguard-compaction');
            return {remaining: q('ctxguard-remaining')?.textContent, usage: q('ctxguard-usage')?.textContent,
                    over_trigger: !!q('ctxguard-over-trigger'), compaction: k?.dataset.state, compaction_text: k?.textContent,
                    connection: c?.dataset.state, restored: c?.dataset.restored ?? null};""")
        print(json.dumps(states, ensure_ascii=False))
        png = base64.b64decode(d.s("GET", "/screenshot")["value"])
        with open(args.out, "wb") as f:
            f.write(png)
        print(f"saved {args.out} ({len(png)} bytes)")
        try:
            for entry in d.s("POST", "/se/log", {"type": "browser"})["value"]:
                print(f"console {entry['level']}: {entry['message']}"[:400])
        except OSError:
            pass
    finally:
        d.close()


if __name__ == "__main__":
    sys.exit(main())
