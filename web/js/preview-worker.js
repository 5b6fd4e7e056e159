// The attachment preview's worker: every picked file is handed to the preview
// engine (./engine/, loaded on the first preview) as the File itself, which
// the engine reads where it lies by Blob slices (FileReaderSync, synchronous
// in this dedicated worker), so no upload is ever copied whole into its
// memory; it parses each as Wegent's backend does and composes and counts the
// block. The page receives progress and the report only, never the files'
// contents. A cancel terminates this worker: the parse stops at once and its
// memory goes with it.
//
// Messages in:  {type: "preview", id, files: File[], options, maxTextLength, maxUploadBytes, admission}
// (`admission`: the element's admission attributes [[name, value], …]; the chat input's
// refusals are judged before any file is read)
// The toolbar's, for the send being written and setUsage (its own module has no tokenizer,
// no model limits and no projection rule):
//               {type: "count", id, model, text} (the draft)
//               {type: "project", id, metrics, messageTokens, keptTokens, blockTokens}
//               {type: "usage", id, usage (JSON text), model, contextWindow} (the attributes, or null)
//               {type: "warm", id} (loads the engine)
// Messages out: {type: "progress", id, file_index, done_bytes, total_bytes}
//               {type: "report", id, report, memory_bytes} | {type: "error", id, message}
//               {type: "count", id, message_tokens, kept_tokens}
//               {type: "projection", id, projection: {detail, ghost_start_percent, ghost_width_percent} | null}
//               {type: "usage", id, model, event} | {type: "usage", id, error}
//               {type: "warm", id}
// (`memory_bytes`: the engine's wasm memory after the preview, which is its peak:
// wasm memory never shrinks, so the page closes an idle worker instead.)
import init, { PreviewSession, countDraft, projectSend, usageEvent } from "./engine/ctxguard_preview.js";

/** Progress is posted at least this often while a file is read. */
const PROGRESS_MS = 50;

let ready;
let engine;

async function preview({ id, files, options, maxTextLength, maxUploadBytes, admission }) {
  ready ??= init();
  engine = await ready;
  const session = new PreviewSession();
  try {
    if (admission) {
      session.admit(JSON.stringify(files.map((f) => ({ name: f.name, size_bytes: f.size }))), JSON.stringify(admission), maxUploadBytes);
    }
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
      // The engine reports the bytes it has read; a two-pass format reads some twice, so cap at the size.
      session.addFile(file, file.name, maxUploadBytes, maxTextLength, (done) => progress(Math.min(total, done), false));
      progress(total, true);
    }
    const report = JSON.parse(session.report(JSON.stringify(options)));
    postMessage({ type: "report", id, report, memory_bytes: engine.memory.buffer.byteLength });
  } finally {
    session.free();
  }
}

/** The toolbar's draft, counted as the backend counts a user message (off the page's thread). */
function count({ id, model, text }) {
  const [messageTokens, keptTokens] = countDraft(String(model ?? ""), String(text ?? ""));
  postMessage({ type: "count", id, message_tokens: messageTokens, kept_tokens: keptTokens });
}

/** The send projected onto the toolbar's metrics by core's rule. */
function project({ id, metrics, messageTokens, keptTokens, blockTokens }) {
  const text = projectSend(String(metrics), Number(messageTokens), Number(keptTokens), Number(blockTokens));
  postMessage({ type: "projection", id, projection: text == null ? null : JSON.parse(text) });
}

/** A provider's usage made into the status event the toolbar applies; a usage it cannot read answers why. */
function usage({ id, usage, model, contextWindow }) {
  let made;
  try {
    made = usageEvent(String(usage), model ?? undefined, contextWindow ?? undefined);
  } catch (error) {
    postMessage({ type: "usage", id, error: String(error?.message ?? error) });
    return;
  }
  postMessage({ type: "usage", id, model: made[0], event: made[1] });
}

const TOOLBAR_MESSAGES = { count, project, usage, warm: ({ id }) => postMessage({ type: "warm", id }) };

onmessage = (event) => {
  const message = event.data;
  const fail = (error) => postMessage({ type: "error", id: message?.id, message: String(error?.message ?? error) });
  const answer = TOOLBAR_MESSAGES[message?.type];
  if (answer && Object.hasOwn(TOOLBAR_MESSAGES, message.type)) {
    ready ??= init();
    ready.then((loaded) => {
      engine = loaded;
      answer(message);
    }).catch(fail);
    return;
  }
  if (message?.type !== "preview") return;
  preview(message).catch(fail);
};
