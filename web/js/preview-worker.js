// The attachment preview's worker: every picked file is read here, slice by
// slice, into the preview engine (./engine/, loaded on the first preview),
// which parses it as Wegent's backend does and composes and counts the block;
// the page receives progress and the report only, never the files' contents.
//
// Messages in:  {type: "preview", id, files: File[], options, maxTextLength, maxUploadBytes}
//               {type: "count", id, model, text} (the toolbar's draft)
// Messages out: {type: "progress", id, file_index, done_bytes, total_bytes}
//               {type: "report", id, report, memory_bytes} | {type: "error", id, message}
//               {type: "count", id, message_tokens, kept_tokens}
// (`memory_bytes`: the engine's wasm memory after the preview, which is its peak:
// wasm memory never shrinks, so the page closes an idle worker instead.)
import init, { PreviewSession, countDraft } from "./engine/ctxguard_preview.js";

/** Bytes read per slice: small enough to report progress often, large enough to stay fast. */
const CHUNK_BYTES = 4 * 1024 * 1024;
/** Progress is posted at least this often while a file is read. */
const PROGRESS_MS = 50;

let ready;
let engine;

async function preview({ id, files, options, maxTextLength, maxUploadBytes }) {
  ready ??= init();
  engine = await ready;
  const session = new PreviewSession();
  try {
    for (const [index, file] of files.entries()) {
      const total = file.size;
      let last = 0;
      const progress = (done, force) => {
        const now = performance.now();
        if (force || now - last >= PROGRESS_MS) {
          last = now;
          postMessage({ type: "progress", id, file_index: index, done_bytes: done, total_bytes: total });
        }
      };
      progress(0, true);
      if (!session.begin(file.name, total, maxUploadBytes)) {
        progress(total, true);
        continue;
      }
      for (let offset = 0; offset < total; offset += CHUNK_BYTES) {
        const chunk = new Uint8Array(await file.slice(offset, offset + CHUNK_BYTES).arrayBuffer());
        session.append(chunk);
        progress(Math.min(total, offset + chunk.length), false);
      }
      session.finish(maxTextLength);
      progress(total, true);
    }
    const report = JSON.parse(session.report(JSON.stringify(options)));
    postMessage({ type: "report", id, report, memory_bytes: engine.memory.buffer.byteLength });
  } finally {
    session.free();
  }
}

/** The toolbar's draft, counted as the backend counts a user message (off the page's thread). */
async function count({ id, model, text }) {
  ready ??= init();
  engine = await ready;
  const [messageTokens, keptTokens] = countDraft(String(model ?? ""), String(text ?? ""));
  postMessage({ type: "count", id, message_tokens: messageTokens, kept_tokens: keptTokens });
}

onmessage = (event) => {
  const message = event.data;
  if (message?.type === "count") {
    count(message).catch((error) =>
      postMessage({ type: "error", id: message.id, message: String(error?.message ?? error) }),
    );
    return;
  }
  if (message?.type !== "preview") return;
  preview(message).catch((error) =>
    postMessage({ type: "error", id: message.id, message: String(error?.message ?? error) }),
  );
};
