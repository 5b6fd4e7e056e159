#!/usr/bin/env python3
"""How a chat backend feeds a ctxguard relay: publish a turn's status events,
and mint the read token a browser passes to the toolbar. Standard library only.

    CTXGUARD_PUBLISH_TOKEN=... CTXGUARD_READ_SECRET=... \\
        python3 examples/publish.py --server http://127.0.0.1:8080/ --session chat:42

Publishing: POST {server}api/sessions/{session}/events with
`Authorization: Bearer <publish token>`, the body one status event (SPEC §4,
or Wegent's `chat:status_updated` shape) or an array of at most 100; the
answer is {"event_ids": [...]}. Read tokens: "v1.{expiry}.{session}.{sig}",
sig = unpadded base64url HMAC-SHA256 (key: the read secret) of
"v1.{expiry}.{session}"; the browser passes it as ?token=.
"""

import argparse
import base64
import hashlib
import hmac
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

# gpt-4o's budget as ctxguard computes it (`ctxguard limits --model gpt-4o`).
WINDOW, RESERVED, TRIGGER, TARGET = 128_000, 16_000, 100_800, 78_400


def read_token(secret, session, ttl_secs=86_400, now=None):
    """A read token for `session`, valid `ttl_secs` from `now` (Unix seconds)."""
    expiry = int(now if now is not None else time.time()) + ttl_secs
    signed = f"v1.{expiry}.{session}"
    mac = hmac.new(secret.encode(), signed.encode(), hashlib.sha256).digest()
    return signed + "." + base64.urlsafe_b64encode(mac).rstrip(b"=").decode()


def metrics(used):
    """A context_metrics snapshot for `used` input tokens of gpt-4o."""
    available = WINDOW - RESERVED
    remaining = max(available - used, 0)
    shown = max(WINDOW - used, 0)
    return {
        "context_window": WINDOW,
        "reserved_output_tokens": RESERVED,
        "available_input_tokens": available,
        "used_input_tokens": used,
        "remaining_input_tokens": remaining,
        "remaining_percent": int(remaining / available * 100),
        "display_remaining_tokens": shown,
        "display_remaining_percent": int(shown / WINDOW * 100),
        "trigger_limit": TRIGGER,
        "target_limit": TARGET,
        "is_over_trigger": used >= TRIGGER,
    }


def event(response_id, phase, used, compaction=None):
    """A `response.status.updated` payload (SPEC §4)."""
    e = {"type": "response.status.updated", "response_id": response_id, "phase": phase, "context_metrics": metrics(used)}
    if compaction is not None:
        e["context_compaction"] = compaction
    return e


def compaction(status, before, created_at, after=None, summary_id=None):
    """The `context_compaction` record of a `summary_compact` event."""
    c = {"type": "summary_compact", "status": status, "before_tokens": before, "trigger_limit": TRIGGER,
         "target_limit": TARGET, "used_legacy_fallback": False, "created_at": created_at}
    if after is not None:
        c["after_tokens"] = after
        c["summary_message_id"] = summary_id
    return c


def publish(server, session, token, events):
    """POSTs `events` (one payload or a list); returns their ids. Raises with the relay's JSON error."""
    url = urllib.parse.urljoin(server, f"api/sessions/{urllib.parse.quote(session, safe=':')}/events")
    request = urllib.request.Request(url, data=json.dumps(events).encode(), method="POST", headers={
        "Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.load(response)["event_ids"]
    except urllib.error.HTTPError as e:
        raise SystemExit(f"publish failed: HTTP {e.code}: {e.read().decode(errors='replace')}")


def turn(response_id):
    """One turn that crosses the trigger and compacts: the events a backend sends, in order."""
    started = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + ".000000+00:00"
    before = 104_250
    return [
        [event(response_id, "build_messages", 61_500)],
        [event(response_id, "after_tool_end", 83_900), event(response_id, "after_tool_end", before)],
        [event(response_id, "summary_compact", before, compaction("started", before, started))],
        # The same update in Wegent's Socket.IO shape: the relay accepts it as is.
        [{"task_id": 42, "subtask_id": response_id, "phase": "summary_compact", "context_metrics": metrics(before),
          "context_compaction": compaction("in_progress", before, started)}],
        [event(response_id, "summary_compact", 23_750, compaction("completed", before, started, 23_750, "cg-summary-1")),
         event(response_id, "after_compaction", 23_750)],
        [event(response_id, "final", 24_610)],
    ]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--server", default="http://127.0.0.1:8080/", help="the relay's base URL")
    p.add_argument("--session", default="chat:42", help="the session id ([A-Za-z0-9._:-]{1,128})")
    p.add_argument("--token", default=os.environ.get("CTXGUARD_PUBLISH_TOKEN"), help="the publish token (default: $CTXGUARD_PUBLISH_TOKEN)")
    p.add_argument("--read-secret", default=os.environ.get("CTXGUARD_READ_SECRET"), help="the read secret, to mint a token (default: $CTXGUARD_READ_SECRET)")
    p.add_argument("--delay-ms", type=int, default=0, help="pause between requests, to watch the toolbar move")
    args = p.parse_args()
    if not args.token:
        sys.exit("no publish token: pass --token or set CTXGUARD_PUBLISH_TOKEN")
    server = args.server if args.server.endswith("/") else args.server + "/"
    ids = []
    for batch in turn("resp_example_1"):
        ids += publish(server, args.session, args.token, batch if len(batch) > 1 else batch[0])
        time.sleep(args.delay_ms / 1000)
    print(f"published {len(ids)} events to {args.session}: ids {ids[0]}..{ids[-1]}")
    print(f"last event id: {ids[-1]}")
    toolbar = f"{server}?session={urllib.parse.quote(args.session, safe=':')}"
    if args.read_secret:
        token = read_token(args.read_secret, args.session)
        print(f"read token: {token}")
        toolbar += f"&token={token}"
    print(f"toolbar: {toolbar}")


if __name__ == "__main__":
    main()
