// A TokenPool worker in browsers and bundlers (a module Worker): loads
// ctxguard-core once, then counts the ranges it is given.
import init, { countTokenBytes, nextSplit } from "../ctxguard_core.js";
import { countRange } from "./plan.js";

const ready = init();

onmessage = async ({ data: { blob, range, model } }) => {
  try {
    await ready;
    const tokens = await countRange({ countTokenBytes, nextSplit }, blob, range, model, (bytes) => postMessage({ type: "progress", bytes }));
    postMessage({ type: "tokens", tokens });
  } catch (e) {
    postMessage(typeof e?.offset === "number" ? { type: "utf8", offset: e.offset } : { type: "error", message: String(e?.message ?? e) });
  }
};
