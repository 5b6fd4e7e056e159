#!/usr/bin/env python3
"""A chat backend's status stream for <ctxguard-toolbar>, in the standard
library only: the two per-session routes any backend serves (no ctxguard relay).

    python3 examples/python-backend/server.py --port 8080 --demo

  GET  /api/sessions/{id}/context  the session's latest state (404 before its first event)
  GET  /api/sessions/{id}/events   SSE: `event: response.status.updated`, `id: N`, `data: {json}`;
                                   resumes after `?last_event_id=N` or the `Last-Event-ID` header
  POST /api/sessions/{id}/events   publishes one status event (or an array): {"event_ids": [...]}

In your own backend, call `Sessions.publish` where your chat loop computes the
metrics (put your own auth in front of the POST route, or leave it out).
`--demo` plays a scripted session "demo" in a loop; `--max-stream-ms` closes
each stream after that long, as proxies do, to show that the toolbar resumes.
"""

import argparse
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

BACKLOG = 256  # events kept per session for resuming streams
EVENT = "response.status.updated"


class Sessions:
    """Every session's latest state and recent events; `publish` wakes the streams."""

    def __init__(self):
        self.lock = threading.Condition()
        self.sessions = {}  # id -> {"context": dict, "events": [(id, json text)]}

    def publish(self, session, event):
        with self.lock:
            s = self.sessions.setdefault(session, {"context": None, "events": []})
            event_id = (s["events"][-1][0] if s["events"] else 0) + 1
            s["events"] = s["events"][-BACKLOG + 1 :] + [(event_id, json.dumps(event))]
            context = dict(s["context"] or {})
            context.update(event_id=event_id, phase=event.get("phase"), context_metrics=event.get("context_metrics"))
            if event.get("context_compaction"):
                context["context_compaction"] = event["context_compaction"]
            s["context"] = context
            self.lock.notify_all()
            return event_id

    def context(self, session):
        with self.lock:
            s = self.sessions.get(session)
            return s and s["context"]

    def after(self, session, last_id, timeout):
        """Events of `session` newer than `last_id`, waiting up to `timeout` s for one."""
        with self.lock:
            def newer():
                events = self.sessions.get(session, {"events": []})["events"]
                return [e for e in events if e[0] > last_id]
            self.lock.wait_for(newer, timeout)
            return newer()


def handler(sessions, max_stream_ms):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def route(self):
            parts = urlsplit(self.path)
            bits = parts.path.strip("/").split("/")
            if len(bits) == 4 and bits[:2] == ["api", "sessions"] and bits[3] in ("context", "events"):
                return unquote(bits[2]), bits[3], parse_qs(parts.query)
            return None, None, None

        def reply(self, status, body):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Access-Control-Allow-Origin", "*")
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            session, kind, query = self.route()
            if session is None or sessions.context(session) is None:
                return self.reply(404, {"error": "unknown session"})
            if kind == "context":
                return self.reply(200, sessions.context(session))
            resume = (query.get("last_event_id") or [self.headers.get("Last-Event-ID") or "0"])[0]
            last = int(resume) if resume.isdigit() else 0
            print(f"stream {session} from {last}", flush=True)
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-store")
            self.send_header("Access-Control-Allow-Origin", "*")
            self.end_headers()
            ends = time.monotonic() + max_stream_ms / 1000 if max_stream_ms else float("inf")
            try:
                self.wfile.write(b": open\n\n")
                self.wfile.flush()
                while time.monotonic() < ends:
                    events = sessions.after(session, last, min(15.0, max(0.0, ends - time.monotonic())))
                    for event_id, data in events:
                        self.wfile.write(f"event: {EVENT}\nid: {event_id}\ndata: {data}\n\n".encode())
                        last = event_id
                    if not events:
                        self.wfile.write(b": keep-alive\n\n")
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass
            print(f"stream {session} closed", flush=True)
            self.close_connection = True

        def do_POST(self):
            session, kind, _ = self.route()
            if kind != "events":
                return self.reply(404, {"error": "not found"})
            try:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            except ValueError:
                return self.reply(400, {"error": "the body is not JSON"})
            events = body if isinstance(body, list) else [body]
            self.reply(200, {"event_ids": [sessions.publish(session, e) for e in events]})

        def do_OPTIONS(self):
            self.send_response(204)
            self.send_header("Access-Control-Allow-Origin", "*")
            self.send_header("Access-Control-Allow-Headers", "content-type")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    return Handler


def metrics(used, window=128_000, reserved=16_000, trigger=100_800, target=89_600):
    """gpt-4o's budget with `used` input tokens (what ctxguard-core's contextMetrics returns)."""
    available = window - reserved
    remaining = max(0, available - used)
    return {
        "context_window": window, "reserved_output_tokens": reserved, "available_input_tokens": available,
        "used_input_tokens": used, "remaining_input_tokens": remaining,
        "remaining_percent": remaining * 100 // available,
        "display_remaining_tokens": max(0, window - used),
        "display_remaining_percent": max(0, window - used) * 100 // window,
        "trigger_limit": trigger, "target_limit": target, "is_over_trigger": used >= trigger,
    }


def demo(sessions, step_ms):
    """Session "demo": turns that grow the context, then a compaction, forever."""
    while True:
        for used in range(20_000, 110_001, 15_000):
            sessions.publish("demo", {"type": EVENT, "response_id": "resp_demo", "phase": "after_tool_end", "context_metrics": metrics(used)})
            time.sleep(step_ms / 1000)
        created = time.strftime("%Y-%m-%dT%H:%M:%S.000000+00:00", time.gmtime())
        record = {"type": "summary_compact", "before_tokens": 110_000, "trigger_limit": 100_800, "target_limit": 89_600,
                  "used_legacy_fallback": False, "created_at": created}
        for status, used, extra in [("in_progress", 110_000, {}), ("completed", 30_000, {"after_tokens": 30_000, "saved_tokens": 80_000})]:
            sessions.publish("demo", {"type": EVENT, "response_id": "resp_demo", "phase": "summary_compact",
                                      "context_metrics": metrics(used), "context_compaction": {**record, "status": status, **extra}})
            time.sleep(step_ms / 1000)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8080, help="0: any free port")
    parser.add_argument("--demo", action="store_true", help='play a scripted session "demo"')
    parser.add_argument("--step-ms", type=int, default=1500)
    parser.add_argument("--max-stream-ms", type=int, default=0, help="close each stream after this long (0: never)")
    args = parser.parse_args()
    sessions = Sessions()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), handler(sessions, args.max_stream_ms))
    server.daemon_threads = True
    if args.demo:
        threading.Thread(target=demo, args=(sessions, args.step_ms), daemon=True).start()
    print(f"listening on http://127.0.0.1:{server.server_address[1]}/", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == "__main__":
    main()
