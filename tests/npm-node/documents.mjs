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
console.log(`${passed} passed, ${failures.length + (tooFew ? 1 : 0)} failed`);
process.exitCode = failures.length === 0 && !tooFew ? 0 : 1;
