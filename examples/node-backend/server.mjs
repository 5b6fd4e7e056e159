// A chat backend's status stream for <ctxguard-toolbar>, on Node's own `http`
// (no dependency, no ctxguard relay): the two per-session routes any backend serves.
//
//     node examples/node-backend/server.mjs --port 8080 --demo
//
//   GET  /api/sessions/{id}/context  the session's latest state (404 before its first event)
//   GET  /api/sessions/{id}/events   SSE: `event: response.status.updated`, `id: N`, `data: {json}`;
//                                    resumes after `?last_event_id=N` or the `Last-Event-ID` header
//   POST /api/sessions/{id}/events   publishes one status event (or an array): {"event_ids": [...]}
//
// In your own backend, call `publish(session, event)` where your chat loop computes the
// metrics (put your own auth in front of the POST route, or leave it out). `--demo` plays a
// scripted session "demo" in a loop; `--max-stream-ms` closes each stream after that long, as
// proxies do, to show that the toolbar resumes.
import { createServer } from "node:http";
import { parseArgs } from "node:util";

const BACKLOG = 256; // events kept per session for resuming streams
const EVENT = "response.status.updated";

/** id -> {context, events: [{id, data}], streams: Set<(event) => void>} */
const sessions = new Map();

/** Stores `event` as the session's next one and sends it to its open streams; returns its id. */
export function publish(session, event) {
  let s = sessions.get(session);
  if (!s) sessions.set(session, (s = { context: null, events: [], streams: new Set() }));
  const id = (s.events.at(-1)?.id ?? 0) + 1;
  const stored = { id, data: JSON.stringify(event) };
  s.events = [...s.events.slice(-BACKLOG + 1), stored];
  s.context = { ...s.context, event_id: id, phase: event.phase ?? null, context_metrics: event.context_metrics ?? null };
  if (event.context_compaction) s.context.context_compaction = event.context_compaction;
  for (const send of s.streams) send(stored);
  return id;
}

function json(res, status, body) {
  res.writeHead(status, { "content-type": "application/json", "access-control-allow-origin": "*" }).end(JSON.stringify(body));
}

function stream(req, res, name, s, query, maxStreamMs) {
  const resume = query.get("last_event_id") ?? req.headers["last-event-id"] ?? "0";
  let last = /^\d+$/.test(resume) ? Number(resume) : 0;
  console.log(`stream ${name} from ${last}`);
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store", "access-control-allow-origin": "*" });
  const send = ({ id, data }) => {
    if (id <= last) return;
    res.write(`event: ${EVENT}\nid: ${id}\ndata: ${data}\n\n`);
    last = id;
  };
  res.write(": open\n\n");
  s.events.forEach(send);
  s.streams.add(send);
  const keepAlive = setInterval(() => res.write(": keep-alive\n\n"), 15_000);
  const ends = maxStreamMs ? setTimeout(() => res.end(), maxStreamMs) : null;
  res.on("close", () => {
    s.streams.delete(send);
    clearInterval(keepAlive);
    clearTimeout(ends);
    console.log(`stream ${name} closed`);
  });
}

/** The server: the routes above, each stream closed after `maxStreamMs` when set. */
export function createStatusServer({ maxStreamMs = 0 } = {}) {
  return createServer((req, res) => {
    const url = new URL(req.url, "http://localhost");
    const m = url.pathname.match(/^\/api\/sessions\/([^/]+)\/(context|events)$/);
    if (req.method === "OPTIONS") {
      res.writeHead(204, { "access-control-allow-origin": "*", "access-control-allow-headers": "content-type" }).end();
      return;
    }
    if (!m) return json(res, 404, { error: "not found" });
    const name = decodeURIComponent(m[1]);
    if (req.method === "POST" && m[2] === "events") {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        let events;
        try {
          events = [JSON.parse(body)].flat();
        } catch {
          return json(res, 400, { error: "the body is not JSON" });
        }
        json(res, 200, { event_ids: events.map((e) => publish(name, e)) });
      });
      return;
    }
    const s = sessions.get(name);
    if (!s) return json(res, 404, { error: "unknown session" });
    if (m[2] === "context") return json(res, 200, s.context);
    stream(req, res, name, s, url.searchParams, maxStreamMs);
  });
}

/** gpt-4o's budget with `used` input tokens (what ctxguard-core's contextMetrics returns). */
function metrics(used, window = 128_000, reserved = 16_000, trigger = 100_800, target = 89_600) {
  const available = window - reserved;
  const remaining = Math.max(0, available - used);
  return {
    context_window: window, reserved_output_tokens: reserved, available_input_tokens: available,
    used_input_tokens: used, remaining_input_tokens: remaining,
    remaining_percent: Math.floor((remaining * 100) / available),
    display_remaining_tokens: Math.max(0, window - used),
    display_remaining_percent: Math.floor((Math.max(0, window - used) * 100) / window),
    trigger_limit: trigger, target_limit: target, is_over_trigger: used >= trigger,
  };
}

/** Session "demo": turns that grow the context, then a compaction, forever. */
async function demo(stepMs) {
  const sleep = () => new Promise((r) => setTimeout(r, stepMs));
  for (;;) {
    for (let used = 20_000; used <= 110_000; used += 15_000) {
      publish("demo", { type: EVENT, response_id: "resp_demo", phase: "after_tool_end", context_metrics: metrics(used) });
      await sleep();
    }
    const created = new Date().toISOString().replace(/\.(\d{3})Z$/, ".$1000+00:00");
    const record = { type: "summary_compact", before_tokens: 110_000, trigger_limit: 100_800, target_limit: 89_600, used_legacy_fallback: false, created_at: created };
    for (const [status, used, extra] of [["in_progress", 110_000, {}], ["completed", 30_000, { after_tokens: 30_000, saved_tokens: 80_000 }]]) {
      publish("demo", { type: EVENT, response_id: "resp_demo", phase: "summary_compact", context_metrics: metrics(used), context_compaction: { ...record, status, ...extra } });
      await sleep();
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      port: { type: "string", default: "8080" },
      demo: { type: "boolean", default: false },
      "step-ms": { type: "string", default: "1500" },
      "max-stream-ms": { type: "string", default: "0" },
    },
  });
  const server = createStatusServer({ maxStreamMs: Number(values["max-stream-ms"]) });
  server.listen(Number(values.port), "127.0.0.1", () => console.log(`listening on http://127.0.0.1:${server.address().port}/`));
  if (values.demo) demo(Number(values["step-ms"]));
}
