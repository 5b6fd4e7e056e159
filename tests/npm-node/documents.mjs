// ctxguard-core/documents in Node, from the installed tarball: every recorded
// document_parse case through parseDocument (tests/support/document-cases.mjs).
// run.sh copies this file into the project.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const root = process.env.CTXGUARD_ROOT;
const docs = await import("ctxguard-core/documents");
const { runDocumentCasesThroughJs } = await import(pathToFileURL(join(root, "tests/support/document-cases.mjs")).href);
const { passed, failures } = runDocumentCasesThroughJs(docs, readFileSync(join(root, "tests/conformance/documents.jsonl"), "utf8"));
const byFormat = {};
for (const [id] of failures) byFormat[id.split("-")[1]] = (byFormat[id.split("-")[1]] ?? 0) + 1;
for (const [id, why] of failures.slice(0, 20)) console.log(`FAIL ${id}: ${why}`);
if (failures.length) console.log(`failures by format: ${JSON.stringify(byFormat)}`);
console.log(`documents through parseDocument (node): ${passed} passed, ${failures.length} failed of ${passed + failures.length}`);
if (passed + failures.length < 624) console.log("FAIL fewer than the 624 recorded document cases ran");
console.log(`${passed} passed, ${failures.length + (passed + failures.length < 624 ? 1 : 0)} failed`);
process.exitCode = failures.length === 0 && passed >= 624 ? 0 : 1;
