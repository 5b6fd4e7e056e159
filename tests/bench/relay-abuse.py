"""Slow, silent and half-sent connections (and silent ones under a low descriptor limit), measured against a release `ctxguard serve` with its default limits.

Usage: python3 tests/bench/relay-abuse.py PATH/TO/ctxguard   (cargo build --release -p ctxguard-cli)
"""
import re
import resource
import socket
import subprocess
import sys
import time
from collections import Counter

BIN = sys.argv[1]

def start(preexec=None):
    p = subprocess.Popen([BIN, "serve", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True, preexec_fn=preexec)
    line = p.stdout.readline()
    port = int(re.search(r":(\d+)/", line).group(1))
    return p, port

def rss_kib(p):
    with open(f"/proc/{p.pid}/status") as f:
        return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))

def state(s):
    """'open' (nothing received yet), or the status line the server answered, or 'closed'."""
    s.setblocking(False)
    try:
        data = s.recv(4096)
    except BlockingIOError:
        return "open"
    except OSError:
        return "closed"
    if not data:
        return "closed"
    return data.split(b"\r\n")[0].decode(errors="replace")

def is_open(s):
    return state(s) == "open"

def healthz(port, timeout=5):
    t = time.time()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            data = s.recv(100)
        return data.split(b"\r\n")[0].decode(), time.time() - t
    except OSError as e:
        return f"error {e}", time.time() - t

p, port = start()
try:
    # 300 connections sending one header line every 2 s.
    slow = [socket.create_connection(("127.0.0.1", port)) for _ in range(300)]
    for s in slow:
        s.sendall(b"GET /healthz HTTP/1.1\r\n")
    # 20 connections sending nothing.
    silent = [socket.create_connection(("127.0.0.1", port)) for _ in range(20)]
    t0 = time.time()
    while time.time() - t0 < 15:
        time.sleep(2)
        for s in slow:
            try:
                s.sendall(b"X-Slow: 1\r\n")
            except OSError:
                pass
    slow_open = sum(is_open(s) for s in slow)
    silent_open = sum(is_open(s) for s in silent)
    print(f"after 15 s: {slow_open} of 300 header-line-every-2-s connections open; {silent_open} of 20 silent ones open"
          f" (header-read timeout 10 s)")
    for s in slow + silent:
        s.close()

    # 8000 half-sent requests.
    time.sleep(1)
    before = rss_kib(p)
    half = []
    for _ in range(8000):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"GET /api/sessions/x/context HTTP/1.1\r\nHost: t\r\n")
        half.append(s)
    time.sleep(2)
    during = rss_kib(p)
    t1 = time.time()
    while time.time() - t1 < 45 and any(is_open(s) for s in half[-200:]):
        time.sleep(1)
    outcome = Counter(state(s) for s in half)
    closed_by_server = sum(n for k, n in outcome.items() if k != "open")
    print("  outcomes:", dict(outcome))
    for s in half:
        s.close()
    time.sleep(3)
    after = rss_kib(p)
    print(f"8000 half-sent requests: RSS {before/1024:.1f} MiB before, {during/1024:.1f} MiB with them open,"
          f" {closed_by_server} of 8000 closed by the server within {time.time()-t1:.0f} s (a request head not complete: the 10 s header-read timeout),"
          f" {after/1024:.1f} MiB after they closed")
finally:
    p.terminate(); p.wait()

# Under ulimit -n 256: 300 silent connections, then real requests.
def lower():
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
p, port = start(preexec=lower)
try:
    silent = []
    for _ in range(300):
        try:
            silent.append(socket.create_connection(("127.0.0.1", port), timeout=2))
        except OSError:
            pass
    time.sleep(0.5)
    answers = [healthz(port) for _ in range(5)]
    print("ulimit -n 256, 300 silent connections open: real requests got " +
          ", ".join(f"{a} in {t*1000:.0f} ms" for a, t in answers))
    time.sleep(11)
    answers = [healthz(port) for _ in range(3)]
    print("11 s later (header timeout freed them): " + ", ".join(f"{a} in {t*1000:.0f} ms" for a, t in answers))
    for s in silent:
        s.close()
finally:
    p.terminate(); p.wait()
