// A scripted stand-in for `ctxguard serve`'s two session endpoints, for the
// element tests that need to control every event and see every request:
// GET /api/sessions/{id}/context answers the context the test set (404 for
// an unknown session); GET /api/sessions/{id}/events holds the stream open
// and sends what the test sends. Every request is recorded with its query,
// and every stream's close is seen. CORS allows any origin (the test pages
// come from another port), as the real server does.
import { createServer } from "node:http";

/** Starts the server on a free loopback port; resolves to its handle. */
export function startScriptedServer() {
  const sessions = new Map();
  const requests = [];
  const streams = new Set();
  const server = createServer((req, res) => {
    const url = new URL(req.url, "http://localhost");
    const record = { path: url.pathname, query: Object.fromEntries(url.searchParams), at: Date.now(), closed: false };
    requests.push(record);
    res.setHeader("access-control-allow-origin", "*");
    const m = url.pathname.match(/^\/api\/sessions\/([^/]+)\/(context|events)$/);
    const session = m && sessions.get(decodeURIComponent(m[1]));
    if (!m || !session) {
      res.writeHead(404, { "content-type": "application/json" }).end('{"error":"unknown session"}');
      return;
    }
    if (m[2] === "context") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(session.context));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" });
    res.write(": open\n\n");
    const stream = { session: session.name, res, record };
    streams.add(stream);
    req.on("close", () => {
      record.closed = true;
      streams.delete(stream);
    });
  });
  const handle = {
    requests,
    /** Sets (or creates) a session's /context body. */
    session(name, context) {
      sessions.set(name, { name, context });
    },
    /** Sends one SSE event to every open stream of `session`. */
    send(session, id, data, event = "response.status.updated") {
      const text = typeof data === "string" ? data : JSON.stringify(data);
      for (const s of streams) {
        if (s.session === session) s.res.write(`event: ${event}\nid: ${id}\ndata: ${text}\n\n`);
      }
    },
    /** Open streams of `session`. */
    open(session) {
      return [...streams].filter((s) => s.session === session).length;
    },
    /** Requests to `session`'s `kind` endpoint (context or events). */
    to(session, kind) {
      return requests.filter((r) => r.path === `/api/sessions/${encodeURIComponent(session)}/${kind}`);
    },
    close() {
      for (const s of streams) s.res.destroy();
      return new Promise((done) => server.close(() => done()));
    },
  };
  return new Promise((ok, fail) => {
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => ok({ ...handle, origin: `http://127.0.0.1:${server.address().port}` }));
  });
}
