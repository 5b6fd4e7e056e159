// A TokenPool worker in browsers and bundlers (a module Worker): loads
// ctxguard-core once, then counts the ranges it is handed (plan.js's `serve`).
import init, { countTokenBytes, nextSplit } from "../ctxguard_core.js";
import { serve } from "./plan.js";

const ready = init();
const handle = serve({ countTokenBytes, nextSplit }, (m) => postMessage(m));

onmessage = async ({ data }) => {
  try {
    await ready;
  } catch (e) {
    postMessage({ type: "error", message: String(e?.message ?? e) });
    return;
  }
  handle(data);
};
