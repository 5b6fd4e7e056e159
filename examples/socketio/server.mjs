// A Wegent-style backend on the real socket.io 4.8: namespace /chat, a room per
// task (`task:<id>`), and Wegent's join handler, which enters the room first and
// then reads the cached status and sends it, so a live update can arrive before
// the cached one. Once a page joins task 7, a scripted session plays: turns, a
// compaction during which the connection drops (the page rejoins, and the live
// `completed` overtakes the cached `in_progress`: the toolbar counts that late
// heartbeat as stale), a cold-load `persisted` status (a phase the toolbar does
// not know), a second compaction the user cancels (Wegent sends no compaction end
// then, only chat:cancelled), and another task's update the page filters out.
//
// It also serves the page (index.html) and the files its import map names, from
// node_modules: the installed ctxguard-toolbar tarball and socket.io-client's ESM build.
//
// Usage: node server.mjs [--port 8080] [--step-ms 400]
import { createReadStream, existsSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { dirname, extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { Server } from "socket.io";

const here = dirname(fileURLToPath(import.meta.url));
const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const port = Number(arg("--port", "8080"));
const stepMs = Number(arg("--step-ms", "400"));

const TYPES = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".json": "application/json", ".map": "application/json" };
// What the page may load: itself and two package folders.
const ROUTES = [
  ["/node_modules/ctxguard-toolbar/", join(here, "node_modules/ctxguard-toolbar/")],
  ["/node_modules/socket.io-client/dist/", join(here, "node_modules/socket.io-client/dist/")],
];

const http = createServer((req, res) => {
  const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
  if (path === "/favicon.ico") {
    res.writeHead(204).end();
    return;
  }
  let file = path === "/" ? join(here, "index.html") : null;
  for (const [prefix, dir] of ROUTES) {
    if (path.startsWith(prefix)) {
      const candidate = normalize(join(dir, path.slice(prefix.length)));
      if (candidate.startsWith(dir)) file = candidate;
    }
  }
  if (!file || !existsSync(file) || !statSync(file).isFile()) {
    res.writeHead(404).end("not found");
    return;
  }
  res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
  createReadStream(file).pipe(res);
});

// ---- the scripted session (Wegent's chat:status_updated payloads) ----

const TASK = 7;
const WINDOW = 128_000, RESERVED = 16_000, TRIGGER = 100_800, TARGET = 89_600;
function metrics(used) {
  const available = WINDOW - RESERVED;
  return {
    context_window: WINDOW, reserved_output_tokens: RESERVED, available_input_tokens: available,
    used_input_tokens: used, remaining_input_tokens: Math.max(0, available - used),
    remaining_percent: Math.floor((Math.max(0, available - used) * 100) / available),
    display_remaining_tokens: Math.max(0, WINDOW - used),
    display_remaining_percent: Math.floor((Math.max(0, WINDOW - used) * 100) / WINDOW),
    trigger_limit: TRIGGER, target_limit: TARGET, is_over_trigger: used >= TRIGGER,
  };
}
const status = (subtask, phase, used, compaction) => ({
  task_id: TASK, subtask_id: subtask, phase, context_metrics: metrics(used),
  ...(compaction ? { context_compaction: { type: "summary_compact", trigger_limit: TRIGGER, target_limit: TARGET, used_legacy_fallback: false, ...compaction } } : {}),
});
const at = (offsetS) => new Date(Date.now() + offsetS * 1000).toISOString().replace("Z", "+00:00");

function script() {
  const first = at(0), second = at(5);
  return [
    ["chat:status_updated", status(101, "build_messages", 61_000)],
    ["chat:status_updated", status(101, "after_tool_end", 78_500)],
    ["chat:status_updated", status(101, "final", 80_100)],
    ["chat:done", { task_id: TASK, subtask_id: 101 }],
    ["chat:status_updated", status(102, "build_messages", 96_000)],
    ["chat:status_updated", status(102, "after_tool_end", 104_200)],
    ["chat:status_updated", status(102, "summary_compact", 104_200, { status: "started", before_tokens: 104_200, created_at: first })],
    ["chat:status_updated", status(102, "summary_compact", 104_200, { status: "in_progress", before_tokens: 104_200, created_at: first })],
    // The connection drops mid-compaction; the page rejoins, and the compaction ends
    // while the join handler is still reading the cache.
    ["drop", null],
    ["chat:status_updated", status(102, "summary_compact", 33_900, { status: "completed", before_tokens: 104_200, after_tokens: 33_900, summary_message_id: "m-9", created_at: first })],
    ["chat:status_updated", status(102, "after_compaction", 33_900)],
    ["chat:done", { task_id: TASK, subtask_id: 102 }],
    // Wegent's frontend makes up this phase for a cold load of the cached status.
    ["chat:status_updated", status(null, "persisted", 33_900)],
    ["chat:status_updated", status(103, "build_messages", 101_500)],
    ["chat:status_updated", status(103, "summary_compact", 101_500, { status: "started", before_tokens: 101_500, created_at: second })],
    ["chat:status_updated", status(103, "summary_compact", 101_500, { status: "in_progress", before_tokens: 101_500, created_at: second })],
    // The user cancels: no compaction end follows.
    ["chat:cancelled", { task_id: TASK, subtask_id: 103 }],
    // Another task's update, in the same namespace: the page filters it out by task_id.
    ["chat:status_updated", { ...status(900, "final", 5_000), task_id: 8 }],
    ["session:end", { task_id: TASK }],
  ];
}

// The cached status of each task, as Wegent keeps it (the latest chat:status_updated).
const cache = new Map();
const io = new Server(http);
const chat = io.of("/chat");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** How long the join handler's cache read takes (Wegent reads Redis). */
const CACHE_READ_MS = 250;
let playing = false;
let joined = () => {};

chat.on("connection", (socket) => {
  socket.on("task:join", async ({ task_id: task } = {}, ack) => {
    // Wegent's order: into the room first, then the cache read; a live update can
    // reach the socket in between.
    await socket.join(`task:${task}`);
    const cached = cache.get(task);
    joined();
    await sleep(CACHE_READ_MS);
    if (cached) socket.emit("chat:status_updated", cached);
    ack?.({ ok: true });
    if (task === TASK && !playing) play();
  });
});

async function play() {
  playing = true;
  let pause = stepMs;
  for (const [event, payload] of script()) {
    await sleep(pause);
    pause = stepMs;
    if (event === "drop") {
      // Close the transports (not a server disconnect): the clients reconnect and rejoin,
      // and the next update goes out while the join handler reads the cache.
      const rejoined = new Promise((r) => (joined = r));
      for (const socket of chat.sockets.values()) if (socket.rooms.has(`task:${TASK}`)) socket.conn.close();
      await rejoined;
      pause = 0;
      continue;
    }
    if (event === "chat:status_updated") cache.set(payload.task_id, payload);
    // Another task's update goes to every socket of the namespace, as a broadcast would.
    (payload.task_id === TASK ? chat.to(`task:${TASK}`) : chat).emit(event, payload);
  }
  playing = false;
}

http.listen(port, "127.0.0.1", () => {
  console.log(`listening on http://127.0.0.1:${http.address().port}/`);
});
