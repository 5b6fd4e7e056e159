// The TokenPool's plan, shared by its browser and Node entries and their workers:
// how an input is cut into ranges, and how a range is counted. Counts are exact:
// ranges start and end only at offsets where the model's pre-tokenizer always
// splits (`nextSplit`, one rule in ctxguard-core), so the sum of the ranges'
// counts is the count of the whole.

/** Inputs shorter than this are counted on one worker, whole. */
export const SPLIT_FROM_BYTES = 1024 * 1024;
/** A worker counts its range in steps of about this many bytes (progress at least every 100 ms). */
export const STEP_BYTES = 2 * 1024 * 1024;
/** Bytes read around an offset to find the next sure split (doubled until one is found). */
const WINDOW_BYTES = 64 * 1024;
/** Bytes before an offset the split rule may look at. */
const LOOKBEHIND_BYTES = 16;

/** Any input as a Blob (strings as UTF-8, bytes copied once), so every worker reads its own slices. */
export function asBlob(input) {
  if (typeof Blob !== "undefined" && input instanceof Blob) return input;
  if (typeof input === "string" || input instanceof Uint8Array) return new Blob([input]);
  throw new TypeError("input: expected a string, a Blob or a Uint8Array");
}

/** The nominal ranges of a Blob of `size` bytes over `workers` workers: [start, end) each. */
export function ranges(size, workers) {
  if (size < SPLIT_FROM_BYTES || workers <= 1) return [[0, size]];
  const n = Math.max(1, Math.min(workers, Math.ceil(size / SPLIT_FROM_BYTES)));
  const out = [];
  for (let i = 0; i < n; i++) out.push([Math.floor((size * i) / n), Math.floor((size * (i + 1)) / n)]);
  return out;
}

/** Reads bytes [start, end) of `blob`. */
async function read(blob, start, end) {
  return new Uint8Array(await blob.slice(start, end).arrayBuffer());
}

/**
 * The first offset at or after `offset` where `model`'s pre-tokenizer always splits
 * (the end of the blob when there is none), found by `api.nextSplit` on windows.
 */
export async function splitAtOrAfter(api, blob, offset, model) {
  if (offset <= 0) return 0;
  if (offset >= blob.size) return blob.size;
  const from = Math.max(0, offset - LOOKBEHIND_BYTES);
  for (let window = WINDOW_BYTES; ; window *= 2) {
    const end = Math.min(blob.size, offset + window);
    const bytes = await read(blob, from, end);
    const at = api.nextSplit(bytes, model, offset - from, end === blob.size);
    if (at >= 0) return from + at;
    if (end === blob.size) return blob.size;
  }
}

/** A worker reads its range in chunks of this many bytes, the next while it counts one. */
export const READ_BYTES = 8 * 1024 * 1024;

/** `a` then `b`, in one array. */
function concat(a, b) {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/**
 * Counts the tokens of the range whose nominal bounds are [start, end) (each moved to the
 * next sure split; the first range starts at 0, the last ends at the end), in steps of about
 * STEP_BYTES cut at sure splits; `progress(bytes)` after each step. The range is read in
 * READ_BYTES chunks, the next one while this one is counted (a browser reads a large Blob
 * through its own process: step-sized serial reads left a worker idle for a fifth of a
 * 100 MB count), so a worker holds at most two chunks and a step. Throws `{offset}` on
 * invalid UTF-8 (the blob's offset).
 */
export async function countRange(api, blob, [start, end], model, progress) {
  const first = await splitAtOrAfter(api, blob, start, model);
  const last = end >= blob.size ? blob.size : await splitAtOrAfter(api, blob, end, model);
  const readFrom = (at) => (at < last ? read(blob, at, Math.min(last, at + READ_BYTES)) : null);
  // buf holds the blob's bytes [base, readEnd); the next chunk, from readEnd, is on its way.
  let buf = new Uint8Array(0);
  let base = first;
  let readEnd = first;
  let pending = readFrom(readEnd);
  let tokens = 0;
  try {
    for (let at = first; at < last; ) {
      while (readEnd < last && readEnd - at < STEP_BYTES + WINDOW_BYTES) {
        const chunk = await pending;
        buf = concat(buf.subarray(at - base), chunk);
        base = at;
        readEnd += chunk.length;
        pending = readFrom(readEnd);
      }
      let next = last;
      if (at + STEP_BYTES < last) {
        const from = at + STEP_BYTES - LOOKBEHIND_BYTES;
        const to = Math.min(readEnd, at + STEP_BYTES + WINDOW_BYTES);
        const k = api.nextSplit(buf.subarray(from - base, to - base), model, LOOKBEHIND_BYTES, to === blob.size);
        // No sure split in the window read: look further in the blob itself (rare: one long piece).
        next = k >= 0 ? from + k : Math.min(last, await splitAtOrAfter(api, blob, at + STEP_BYTES, model));
      }
      if (next > readEnd) {
        // The split lies past what is read (a piece longer than a chunk): count up to it whole.
        buf = concat(buf.subarray(at - base), await read(blob, readEnd, next));
        base = at;
        readEnd = next;
        pending?.catch(() => {});
        pending = readFrom(readEnd);
      }
      try {
        tokens += api.countTokenBytes(buf.subarray(at - base, next - base), model);
      } catch (e) {
        if (typeof e?.offset === "number") throw { offset: at + e.offset };
        throw e;
      }
      progress(next - at);
      at = next;
    }
  } finally {
    pending?.catch(() => {});
  }
  return tokens;
}
