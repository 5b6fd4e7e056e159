// ctxguard-core/documents in Node, from the installed tarball: every recorded
// document_parse case through parseDocument (tests/support/document-cases.mjs).
// run.sh copies this file into the project. `--only TEXT`: the cases whose id holds TEXT.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const root = process.env.CTXGUARD_ROOT;
const docs = await import("ctxguard-core/documents");
const { runDocumentCasesThroughJs } = await import(pathToFileURL(join(root, "tests/support/document-cases.mjs")).href);
const { onlyText, wanted } = await import(pathToFileURL(join(root, "tests/support/net.mjs")).href);
const cases = readFileSync(join(root, "tests/conformance/documents.jsonl"), "utf8")
  .split("\n")
  .filter((line) => line.trim() && wanted(JSON.parse(line).id))
  .join("\n");
// Every recorded case must run, unless --only picked some.
const least = onlyText === null ? 624 : 0;
const { passed, failures } = runDocumentCasesThroughJs(docs, cases);
const byFormat = {};
for (const [id] of failures) byFormat[id.split("-")[1]] = (byFormat[id.split("-")[1]] ?? 0) + 1;
for (const [id, why] of failures.slice(0, 20)) console.log(`FAIL ${id}: ${why}`);
if (failures.length) console.log(`failures by format: ${JSON.stringify(byFormat)}`);
console.log(`documents through parseDocument (node): ${passed} passed, ${failures.length} failed of ${passed + failures.length}`);
const tooFew = passed + failures.length < least;
if (tooFew) console.log(`FAIL ${passed + failures.length} document cases ran, expected at least ${least}`);

// The same uploads as Blobs: Node has no FileReaderSync, so parseDocument reads the Blob
// asynchronously and returns a Promise, which must settle to what the bytes give.
const settle = async (f) => {
  try {
    return { ok: JSON.stringify(await f()) };
  } catch (e) {
    return { code: e?.code, message: e?.message, record: JSON.stringify(e?.record) };
  }
};
let blobSame = 0;
const blobDiffer = [];
let promised = true;
for (const line of readFileSync(join(root, "tests/conformance/documents.jsonl"), "utf8").split("\n")) {
  if (!line.trim()) continue;
  const c = JSON.parse(line);
  if (c.kind !== "document_parse" || !wanted(c.id)) continue;
  const bytes = new Uint8Array(Buffer.from(c.data_base64, "base64"));
  const options = c.max_text_length === undefined ? undefined : { max_text_length: c.max_text_length };
  const fromBytes = await settle(() => docs.parseDocument(bytes, c.filename, options));
  const pending = docs.parseDocument(new Blob([bytes]), c.filename, options);
  promised &&= typeof pending?.then === "function";
  const fromBlob = await settle(() => pending);
  if (JSON.stringify(fromBlob) === JSON.stringify(fromBytes)) blobSame += 1;
  else blobDiffer.push(c.id);
}
for (const id of blobDiffer.slice(0, 10)) console.log(`FAIL ${id}: parseDocument(Blob) differs from parseDocument(bytes)`);
if (!promised) console.log("FAIL parseDocument(Blob) in Node did not return a Promise");
console.log(`documents through parseDocument(Blob) (node): ${blobSame} the same as the bytes, ${blobDiffer.length} differ`);
const failed = failures.length + (tooFew ? 1 : 0) + blobDiffer.length + (promised ? 0 : 1);
console.log(`${passed + blobSame} passed, ${failed} failed`);
process.exitCode = failed === 0 ? 0 : 1;
