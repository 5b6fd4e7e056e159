// Server rendering with the packages as installed (run from this folder, where
// run.sh installs the two tarballs beside the pinned react and react-dom): in Node,
// with no DOM, importing ctxguard-toolbar and ctxguard-core reads and sets no
// global and throws nothing, `ready` resolves with nothing defined, and
// react-dom/server renders a component holding <ctxguard-toolbar> and
// <ctxguard-attachment-preview> to the markup a browser then upgrades.
import { Tally, assert } from "../../support/net.mjs";

const tally = new Tally();
const DOM_GLOBALS = ["window", "document", "customElements", "HTMLElement", "EventSource"];

const namesBefore = new Set(Object.getOwnPropertyNames(globalThis));
const symbolsBefore = new Set(Object.getOwnPropertySymbols(globalThis));
// Reading a DOM global would find nothing; a getter on each records any attempt.
const touched = [];
for (const name of DOM_GLOBALS) {
  Object.defineProperty(globalThis, name, { configurable: true, get: () => (touched.push(name), undefined) });
}
let toolbar, core;
await tally.check("importing ctxguard-toolbar and ctxguard-core without a DOM throws nothing", async () => {
  toolbar = await import("ctxguard-toolbar");
  core = await import("ctxguard-core");
});
for (const name of DOM_GLOBALS) delete globalThis[name];

await tally.check("…reads no DOM global beyond asking whether one exists, and sets no global", () => {
  // `typeof window` goes through the getter too: the entry asks once per global whether it is there.
  const reads = touched.filter((n) => n !== "window" && n !== "customElements" && n !== "HTMLElement");
  assert(reads.length === 0, `read: ${touched.join(", ")}`);
  const added = Object.getOwnPropertyNames(globalThis).filter((n) => !namesBefore.has(n));
  const addedSymbols = Object.getOwnPropertySymbols(globalThis).filter((s) => !symbolsBefore.has(s));
  assert(added.length === 0 && addedSymbols.length === 0, `globals set: ${[...added, ...addedSymbols.map(String)].join(", ")}`);
});

await tally.check("ready resolves on the server, defining nothing; the core API works", async () => {
  assert(toolbar.ready instanceof Promise, typeof toolbar.ready);
  const settled = await Promise.race([toolbar.ready.then(() => "resolved"), new Promise((r) => setTimeout(r, 1_000, "pending"))]);
  assert(settled === "resolved", `ready is ${settled}`);
  assert(typeof globalThis.customElements === "undefined", "customElements appeared");
  assert(core.countTokens("hello world", "gpt-4o") === 2, `countTokens: ${core.countTokens("hello world", "gpt-4o")}`);
});

await tally.check("react-dom/server renders a component holding the elements (renderToString and the stream renderer)", async () => {
  const { createElement: h, Fragment } = await import("react");
  const { renderToString, renderToReadableStream } = await import("react-dom/server");
  const Status = ({ session }) =>
    h(Fragment, null,
      h("ctxguard-toolbar", { id: "tb", session, server: "https://chat.example", source: "sse", compact: true, "stale-after-ms": 60000 }),
      h("ctxguard-attachment-preview", { for: "tb", "max-upload-bytes": 1024 }));
  const html = renderToString(h(Status, { session: "task-7" }));
  const want = '<ctxguard-toolbar id="tb" session="task-7" server="https://chat.example" source="sse" compact="" stale-after-ms="60000"></ctxguard-toolbar><ctxguard-attachment-preview for="tb" max-upload-bytes="1024"></ctxguard-attachment-preview>';
  assert(html === want, html);
  const streamed = await new Response(await renderToReadableStream(h(Status, { session: "task-7" }))).text();
  assert(streamed === want, streamed);
});

process.exit(tally.finish());
