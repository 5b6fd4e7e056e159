// The TokenPool's plan, shared by its browser and Node entries and their workers:
// how an input is cut into ranges (`Schedule`, on the pool's side), how a range is
// counted (`countRange`) and a worker's side of the messages (`serve`). Counts are
// exact: ranges are counted from and to offsets where the model's pre-tokenizer
// always splits (`nextSplit`, one rule in ctxguard-core), so the sum of the ranges'
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

/** The smallest range a worker is handed (the last ones of a count), so that every worker ends within about one. */
export const MIN_RANGE_BYTES = 128 * 1024;

/**
 * The ranges of a count of `size` bytes on `workers` workers, handed out in order as
 * workers ask (guided self-scheduling): each is the remaining bytes ÷ (8 × workers), at
 * most READ_BYTES and at least MIN_RANGE_BYTES, so the first ones are long (few
 * messages, one read each) and the last ones short, and the workers end together
 * whatever the text's speed in each part (Chinese counts several times slower per byte
 * than English; halves fixed in advance left one of two workers idle for up to a sixth
 * of a 100 MB count of mixed text). Input under SPLIT_FROM_BYTES is one range.
 */
export class Schedule {
  #size;
  #workers;
  #at = 0;
  #started = false;

  constructor(size, workers) {
    this.#size = size;
    this.#workers = size < SPLIT_FROM_BYTES ? 1 : Math.max(1, Math.min(workers, Math.ceil(size / SPLIT_FROM_BYTES)));
  }

  /** Workers worth starting for this input. */
  get workers() {
    return this.#workers;
  }

  /** The next nominal range [start, end), or null when every byte is handed out. */
  next() {
    // An empty input is one empty range, so that a worker still checks the model.
    if (this.#started && this.#at >= this.#size) return null;
    this.#started = true;
    const remaining = this.#size - this.#at;
    let bytes = this.#size < SPLIT_FROM_BYTES ? remaining : Math.min(READ_BYTES, Math.max(MIN_RANGE_BYTES, Math.ceil(remaining / (8 * this.#workers))));
    if (remaining - bytes < MIN_RANGE_BYTES) bytes = remaining;
    const range = [this.#at, this.#at + bytes];
    this.#at += bytes;
    return range;
  }

  /** Hands out nothing more (a worker failed: the ranges before it are what decides the error). */
  stop() {
    this.#started = true;
    this.#at = this.#size;
  }
}

/** Reads bytes [start, end) of `blob` (a worker may bring a faster way: `api.read`). */
async function readWhole(blob, start, end) {
  return new Uint8Array(await blob.slice(start, end).arrayBuffer());
}

/** The reader of `api`'s worker. */
const readerOf = (api) => api.read ?? readWhole;

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
    const bytes = await readerOf(api)(blob, from, end);
    const at = api.nextSplit(bytes, model, offset - from, end === blob.size);
    if (at >= 0) return from + at;
    if (end === blob.size) return blob.size;
  }
}

/** A worker reads its range in chunks of this many bytes, the next while it counts one (ranges are at most this long). */
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
 * Starts reading a range whose nominal bounds are [start, end): its bytes from 16 before
 * `start` to a window past `end` (at most READ_BYTES and a window), so that both its sure
 * splits are usually found in what is read. A worker opens its next range while it counts
 * the current one.
 */
export function openRange(api, blob, [start, end]) {
  const from = Math.max(0, start - LOOKBEHIND_BYTES);
  const to = Math.min(blob.size, end + WINDOW_BYTES, from + READ_BYTES + WINDOW_BYTES);
  const bytes = readerOf(api)(blob, from, to);
  bytes.catch(() => {});
  return { range: [start, end], from, bytes };
}

/**
 * Counts the tokens of an opened range (`openRange`): from the first sure split at or after
 * its start (0 for the first) to the first at or after its end (the blob's end for the
 * last), so that consecutive ranges count every byte once; in steps of about STEP_BYTES cut
 * at sure splits, `progress(bytes)` after each. A range longer than what was read (the
 * Schedule hands out none; a caller may) goes on in READ_BYTES chunks, the next read while
 * this one is counted (a browser reads a large Blob through its own process: serial
 * step-sized reads left a worker idle for a fifth of a 100 MB count). A worker holds at
 * most its range's bytes, the next range's read and a step's copy in the engine: about
 * 18 MiB. Throws `{offset}` on invalid UTF-8 (the blob's offset).
 */
export async function countRange(api, blob, opened, model, progress) {
  const read = readerOf(api);
  const [start, end] = opened.range;
  // buf holds the blob's bytes [base, readEnd); the next chunk, from readEnd, may be on its way.
  let buf = await opened.bytes;
  let base = opened.from;
  let readEnd = base + buf.length;
  /** The sure split at or after `offset`, from what is read when its window is there. */
  const splitNear = async (offset) => {
    const from = offset - LOOKBEHIND_BYTES;
    if (from >= base && offset <= readEnd) {
      const to = Math.min(readEnd, offset + WINDOW_BYTES);
      const k = api.nextSplit(buf.subarray(from - base, to - base), model, LOOKBEHIND_BYTES, to === blob.size);
      if (k >= 0) return from + k;
    }
    // No sure split in the window read: look further in the blob itself (rare: one long piece).
    return splitAtOrAfter(api, blob, offset, model);
  };
  const first = start <= 0 ? 0 : await splitNear(start);
  const last = end >= blob.size ? blob.size : await splitNear(end);
  const readFrom = (at) => {
    if (at >= last) return null;
    const p = read(blob, at, Math.min(last, at + READ_BYTES));
    p.catch(() => {});
    return p;
  };
  let pending = readFrom(readEnd);
  let tokens = 0;
  for (let at = first; at < last; ) {
    while (readEnd < last && readEnd - at < STEP_BYTES + WINDOW_BYTES) {
      const chunk = await pending;
      buf = concat(buf.subarray(at - base), chunk);
      base = at;
      readEnd += chunk.length;
      pending = readFrom(readEnd);
    }
    const next = at + STEP_BYTES < last ? Math.min(last, await splitNear(at + STEP_BYTES)) : last;
    if (next > readEnd) {
      // The split lies past what is read (a piece longer than a chunk): count up to it whole.
      buf = concat(buf.subarray(at - base), await read(blob, readEnd, next));
      base = at;
      readEnd = next;
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
  return tokens;
}

/**
 * A pool worker's side of the protocol, over `api` (`countTokenBytes`, `nextSplit`, and
 * optionally `read(blob, start, end)` → Promise<Uint8Array>) and
 * `post(message)`; returns the handler of the messages it receives.
 *
 *   in:  {blob, model, range}  a new count and its first range;  {range}  the next range
 *        it asked for (null: no more)
 *   out: {type: "next"}  asks for the range after the one it starts counting, so that the
 *        next read is under way while it counts;  {type: "progress", bytes};  {type:
 *        "tokens", tokens}  this worker's total, once no range is left;  {type: "utf8",
 *        offset} or {type: "error", message}  when a range could not be counted
 */
export function serve(api, post) {
  let answer = null;
  /** Asks for the next range; opens it (its read starts) as soon as the answer comes. */
  const following = (blob) =>
    new Promise((resolve) => {
      answer = (range) => resolve(range && openRange(api, blob, range));
      post({ type: "next" });
    });
  const loop = async ({ blob, model, range }) => {
    let tokens = 0;
    for (let opened = openRange(api, blob, range); opened; ) {
      const next = following(blob);
      tokens += await countRange(api, blob, opened, model, (bytes) => post({ type: "progress", bytes }));
      opened = await next;
    }
    post({ type: "tokens", tokens });
  };
  return (message) => {
    if (!message.blob) {
      const resolve = answer;
      answer = null;
      resolve?.(message.range);
      return;
    }
    loop(message).catch((e) =>
      post(typeof e?.offset === "number" ? { type: "utf8", offset: e.offset } : { type: "error", message: String(e?.message ?? e) }),
    );
  };
}
