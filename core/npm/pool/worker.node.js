// A TokenPool worker in Node (worker_threads): ctxguard-core's Node entry is
// ready on import; counts the ranges it is given.
import { parentPort } from "node:worker_threads";
import { countTokenBytes, nextSplit } from "../node.js";
import { countRange } from "./plan.js";

parentPort.on("message", async ({ blob, range, model }) => {
  try {
    const tokens = await countRange({ countTokenBytes, nextSplit }, blob, range, model, (bytes) => parentPort.postMessage({ type: "progress", bytes }));
    parentPort.postMessage({ type: "tokens", tokens });
  } catch (e) {
    parentPort.postMessage(typeof e?.offset === "number" ? { type: "utf8", offset: e.offset } : { type: "error", message: String(e?.message ?? e) });
  }
});
