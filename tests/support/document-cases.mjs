// The recorded `document_parse` cases through ctxguard-core/documents'
// `parseDocument`, as a JS host calls it, compared as the conformance README
// says: every field of `expected` exactly, the record's `"<text>"` and
// `"<image>"` standing for the real text and image, `parse_failed` messages up
// to the parser's own prefix, `0x<addr>` for any Python object address.
// Environment-free: `runDocumentCasesThroughJs(docs, jsonl)` → {passed, failures}.

const bytesOf = (b64) => {
  if (typeof Buffer !== "undefined") return new Uint8Array(Buffer.from(b64, "base64"));
  return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
};

/** `Failed to parse <what>: ` of a parse_failed message (the compared part). */
const prefix = (m) => {
  const at = m.indexOf(": ");
  return at >= 0 ? m.slice(0, at + 2) : m;
};

const addresses = (s) => s.replace(/0x[0-9a-fA-F]+/g, "0x<addr>");

/** Deep equality of JSON values; the first difference's path, or null. */
function diff(a, b, path = "$") {
  if (a === b) return null;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return `${path}: expected ${JSON.stringify(b)?.slice(0, 120)}, got ${JSON.stringify(a)?.slice(0, 120)}`;
  if (Array.isArray(a) !== Array.isArray(b)) return `${path}: array vs object`;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) {
    if (!(k in a)) return `${path}.${k}: missing`;
    if (!(k in b)) return `${path}.${k}: not expected`;
    const d = diff(a[k], b[k], `${path}.${k}`);
    if (d) return d;
  }
  return null;
}

/** What a host sees, in the recorded form. */
function answer(docs, c) {
  const options = c.max_text_length === undefined ? undefined : { max_text_length: c.max_text_length };
  let out;
  try {
    const d = docs.parseDocument(bytesOf(c.data_base64), c.filename, options);
    const record = { ...d.record };
    if (record.extracted_text !== "") {
      if (record.extracted_text !== d.text) return { mismatch: "record.extracted_text differs from text" };
      record.extracted_text = "<text>";
    }
    if (record.image_base64 !== "") record.image_base64 = "<image>";
    out = { text: d.text, text_length: d.text_length, is_truncated: d.is_truncated, truncation: d.truncation, image: d.image, record };
  } catch (e) {
    if (typeof e?.code !== "string") return { mismatch: `threw a non-refusal: ${e?.stack ?? e}` };
    out = { error: { code: e.code, message: e.message }, record: e.record };
  }
  return { out };
}

/** Runs every `document_parse` line of `jsonl` through `docs.parseDocument`. */
export function runDocumentCasesThroughJs(docs, jsonl) {
  let passed = 0;
  const failures = [];
  for (const line of jsonl.split("\n")) {
    if (!line.trim()) continue;
    const c = JSON.parse(line);
    if (c.kind !== "document_parse") continue;
    const { out, mismatch } = answer(docs, c);
    let expected = c.expected;
    let actual = out;
    if (!mismatch && expected.error && actual?.error) {
      const loose = expected.error.code === "parse_failed";
      const norm = (m) => addresses(loose ? prefix(m) : m);
      expected = { ...expected, error: { ...expected.error, message: norm(expected.error.message) }, record: { ...expected.record, error_message: norm(expected.record.error_message) } };
      actual = { ...actual, error: { ...actual.error, message: norm(actual.error.message) }, record: { ...actual.record, error_message: norm(actual.record.error_message) } };
    }
    const d = mismatch ?? diff(actual, expected);
    if (d) failures.push([c.id, d]);
    else passed += 1;
  }
  return { passed, failures };
}
