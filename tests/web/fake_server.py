#!/usr/bin/env python3
"""A stand-in for `ctxguard serve`, for looking at the toolbar without the real server.

Serves dist/ at / and the session API of SPEC §4 for any session id:
  GET /api/sessions/{id}/context  -> {event_id, phase, context_metrics, context_compaction?}
  GET /api/sessions/{id}/events   -> SSE `response.status.updated`, from ?last_event_id= / Last-Event-ID
The stream plays a short scripted conversation (with a usage breakdown) that
crosses the trigger and holds inside a compaction (`--scenario compacting`), or
finishes it (`--scenario completed`). Unknown session `missing` gets 404.

Usage: fake_server.py --port N [--dist DIR] [--scenario compacting|completed|live]
Prints `listening on PORT` once ready. Loopback only.
"""

import argparse
import datetime as dt
import functools
import http.server
import json
import os
import sys
import time
import urllib.parse

WINDOW, RESERVED, TRIGGER, TARGET = 128_000, 16_000, 100_800, 89_600


def metrics(used, breakdown=True):
    available = WINDOW - RESERVED
    m = {
        "context_window": WINDOW,
        "reserved_output_tokens": RESERVED,
        "available_input_tokens": available,
        "used_input_tokens": used,
        "remaining_input_tokens": max(0, available - used),
        "remaining_percent": int(max(0, available - used) / available * 100),
        "display_remaining_tokens": max(0, WINDOW - used),
        "display_remaining_percent": int(max(0, WINDOW - used) / WINDOW * 100),
        "trigger_limit": TRIGGER,
        "target_limit": TARGET,
        "is_over_trigger": used >= TRIGGER,
    }
    if breakdown:
        system = 2_400
        parts = {"system": system, "user": int(used * 0.16), "assistant": int(used * 0.22),
                 "tool_outputs": int(used * 0.34), "attachments": int(used * 0.18)}
        parts["overhead"] = max(0, used - sum(parts.values()))
        m["breakdown"] = parts
    return m


def script(scenario):
    started = (dt.datetime.now(dt.timezone.utc) - dt.timedelta(seconds=23)).isoformat()
    events = []
    for used in (18_400, 41_250, 66_900, 88_300, 104_512):
        phase = "build_messages" if used == 18_400 else "after_tool_end"
        events.append({"phase": phase, "context_metrics": metrics(used)})
    comp = {"type": "summary_compact", "before_tokens": 104_512, "trigger_limit": TRIGGER,
            "target_limit": TARGET, "used_legacy_fallback": False, "created_at": started}
    events.append({"phase": "summary_compact", "context_metrics": metrics(104_512),
                   "context_compaction": dict(comp, status="started")})
    events.append({"phase": "summary_compact", "context_metrics": metrics(104_512),
                   "context_compaction": dict(comp, status="in_progress")})
    if scenario == "completed":
        events.append({"phase": "summary_compact", "context_metrics": metrics(31_870),
                       "context_compaction": dict(comp, status="completed", after_tokens=31_870,
                                                  summary_message_id="msg_42")})
        events.append({"phase": "after_compaction", "context_metrics": metrics(31_870)})
    elif scenario == "live":
        events = events[:4]
    out = []
    for i, e in enumerate(events, start=1):
        e = dict(type="response.status.updated", response_id="resp_demo", **e)
        out.append((i, e))
    return out


class Handler(http.server.SimpleHTTPRequestHandler):
    events = []

    def log_message(self, fmt, *args):
        pass

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        parts = url.path.strip("/").split("/")
        if len(parts) == 4 and parts[:2] == ["api", "sessions"]:
            session, what = urllib.parse.unquote(parts[2]), parts[3]
            if session == "missing":
                return self.json(404, {"error": f"unknown session {session}"})
            if what == "context":
                return self.context()
            if what == "events":
                return self.stream(url)
            return self.json(404, {"error": "not found"})
        if url.path.startswith("/api/"):
            return self.json(404, {"error": "not found"})
        return super().do_GET()

    def json(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def context(self):
        # The latest state before the stream starts: the first event only, so the stream has work to do.
        i, e = self.events[0]
        body = {"event_id": i, "phase": e["phase"], "context_metrics": e["context_metrics"]}
        return self.json(200, body)

    def stream(self, url):
        q = urllib.parse.parse_qs(url.query)
        last = self.headers.get("Last-Event-ID") or (q.get("last_event_id") or ["0"])[0]
        try:
            last = int(last)
        except ValueError:
            last = 0
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        try:
            for i, e in self.events:
                if i <= last:
                    continue
                time.sleep(0.15)
                self.wfile.write(f"event: response.status.updated\nid: {i}\ndata: {json.dumps(e)}\n\n".encode())
                self.wfile.flush()
            deadline = time.time() + 120
            while time.time() < deadline:
                time.sleep(5)
                self.wfile.write(b": keep-alive\n\n")
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--dist", default=os.path.join(os.path.dirname(__file__), "..", "..", "dist"))
    ap.add_argument("--scenario", default="compacting", choices=["compacting", "completed", "live"])
    args = ap.parse_args()
    Handler.events = script(args.scenario)
    handler = functools.partial(Handler, directory=os.path.abspath(args.dist))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), handler)
    server.daemon_threads = True
    print(f"listening on {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    sys.exit(0)


if __name__ == "__main__":
    main()
