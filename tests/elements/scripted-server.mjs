// A scripted stand-in for `ctxguard serve`'s two session endpoints, for the
// element tests that need to control every event and see every request:
// GET /api/sessions/{id}/context answers the context the test set (404 for
// an unknown session); GET /api/sessions/{id}/events and GET /api/events
// (several sessions, as the relay tags and resumes them) hold the stream
// open and send what the test sends. /context says `"shared_stream": true`, as
// the relay's does; started with `{sharedStream: false}` it is a server of the
// per-session routes only (no such field, and GET /api/events is a 404), as a
// hand-written backend is. Every request is recorded with its query,
// and every stream's close is seen. CORS allows any origin (the test pages
// come from another port), as the real server does.
import { createServer } from "node:http";

/** Starts the server on a free loopback port; resolves to its handle. */
export function startScriptedServer({ sharedStream = true } = {}) {
  const sessions = new Map();
  const requests = [];
  const streams = new Set();
  const server = createServer((req, res) => {
    const url = new URL(req.url, "http://localhost");
    const record = { path: url.pathname, query: Object.fromEntries(url.searchParams), at: Date.now(), closed: false };
    requests.push(record);
    res.setHeader("access-control-allow-origin", "*");
    if (url.pathname === "/api/events" && sharedStream) {
      multiStream(url, req, res, record);
      return;
    }
    const m = url.pathname.match(/^\/api\/sessions\/([^/]+)\/(context|events)$/);
    const session = m && sessions.get(decodeURIComponent(m[1]));
    if (!m || !session) {
      res.writeHead(404, { "content-type": "application/json" }).end('{"error":"unknown session"}');
      return;
    }
    if (m[2] === "context") {
      const body = sharedStream ? { ...session.context, shared_stream: true } : session.context;
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" });
    res.write(": open\n\n");
    const stream = { sessions: [session.name], res, record };
    streams.add(stream);
    req.on("close", () => {
      record.closed = true;
      streams.delete(stream);
    });
  });
  // GET /api/events?session=a&token=ta&session=b…&last_event_id=a:1,b:2, as the relay answers it:
  // 404 when any session is unknown; each session also gets a per-session record (path
  // /api/sessions/ID/events, query {token, last_event_id} of that session) so checks read it
  // like a stream of its own.
  function multiStream(url, req, res, record) {
    const names = url.searchParams.getAll("session");
    const tokens = url.searchParams.getAll("token");
    const cursor = new Map(
      (url.searchParams.get("last_event_id") ?? "")
        .split(",")
        .filter((p) => p.includes(":"))
        .map((p) => [p.slice(0, p.lastIndexOf(":")), p.slice(p.lastIndexOf(":") + 1)]),
    );
    if (!names.length || names.some((n) => !sessions.has(n))) {
      res.writeHead(names.length ? 404 : 400, { "content-type": "application/json" }).end('{"error":"unknown session"}');
      return;
    }
    const views = names.map((name, i) => {
      const query = {};
      if (tokens[i] !== undefined) query.token = tokens[i];
      if (cursor.has(name)) query.last_event_id = cursor.get(name);
      const view = { path: `/api/sessions/${encodeURIComponent(name)}/events`, query, at: record.at, closed: false, multi: record };
      requests.push(view);
      return view;
    });
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" });
    res.write(": open\n\n");
    const stream = { sessions: names, res, record, cursor };
    streams.add(stream);
    req.on("close", () => {
      record.closed = true;
      for (const v of views) v.closed = true;
      streams.delete(stream);
    });
  }
  const handle = {
    requests,
    /** Sets (or creates) a session's /context body. */
    session(name, context) {
      sessions.set(name, { name, context });
    },
    /** Sends one SSE event to every open stream of `session` (on a multi-session stream: tagged, with the cursor as id). */
    send(session, id, data, event = "response.status.updated") {
      const text = typeof data === "string" ? data : JSON.stringify(data);
      for (const s of streams) {
        if (!s.sessions.includes(session)) continue;
        if (!s.cursor) {
          s.res.write(`event: ${event}\nid: ${id}\ndata: ${text}\n\n`);
          continue;
        }
        s.cursor.set(session, String(id));
        const cursor = [...s.cursor].map(([k, v]) => `${k}:${v}`).join(",");
        const tagged = text.startsWith("{") ? `{"session":"${session}",${text.slice(1)}` : `{"session":"${session}","data":${JSON.stringify(text)}}`;
        s.res.write(`event: ${event}\nid: ${cursor}\ndata: ${tagged}\n\n`);
      }
    },
    /** Open streams carrying `session`. */
    open(session) {
      return [...streams].filter((s) => s.sessions.includes(session)).length;
    },
    /** Ends every per-session stream of `session` (the browser sees it fail). */
    drop(session) {
      for (const s of streams) if (!s.cursor && s.sessions.includes(session)) s.res.end();
    },
    /** Ends every multi-session stream (the browser sees it fail). */
    dropShared() {
      for (const s of streams) if (s.cursor) s.res.end();
    },
    /** Open multi-session streams (GET /api/events). */
    openShared() {
      return [...streams].filter((s) => s.cursor).length;
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
