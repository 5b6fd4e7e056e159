// The attachment preview's worker: every picked file is read here, slice by
// slice, into the preview engine (./engine/, loaded on the first preview),
// which parses it as Wegent's backend does and composes and counts the block;
// the page receives progress and the report only, never the files' contents.
//
// Messages in:  {type: "preview", id, files: File[], options, maxTextLength, maxUploadBytes, admission}
// (`admission`: core's AdmissionLimits; the chat input's refusals are judged before any file is read)
// Messages out: {type: "progress", id, file_index, done_bytes, total_bytes}
//               {type: "report", id, report, memory_bytes} | {type: "error", id, message}
// (`memory_bytes`: the engine's wasm memory after the preview, which is its peak:
// wasm memory never shrinks, so the page closes an idle worker instead.)
import init, { PreviewSession } from "./engine/ctxguard_preview.js";

/** Bytes read per slice: small enough to report progress often, large enough to stay fast. */
const CHUNK_BYTES = 4 * 1024 * 1024;
/** Progress is posted at least this often while a file is read. */
const PROGRESS_MS = 50;

let ready;
let engine;

async function preview({ id, files, options, maxTextLength, maxUploadBytes, admission }) {
  ready ??= init();
  engine = await ready;
  const session = new PreviewSession();
  try {
    if (admission) session.admit(JSON.stringify(files.map((f) => ({ name: f.name, size_bytes: f.size }))), JSON.stringify(admission));
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

onmessage = (event) => {
  const message = event.data;
  if (message?.type !== "preview") return;
  preview(message).catch((error) =>
    postMessage({ type: "error", id: message.id, message: String(error?.message ?? error) }),
  );
};
