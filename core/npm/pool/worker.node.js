// A TokenPool worker in Node (worker_threads): ctxguard-core's Node entry is
// ready on import; counts the ranges it is handed (plan.js's `serve`).
import { parentPort } from "node:worker_threads";
import { countTokenBytes, nextSplit } from "../node.js";
import { serve } from "./plan.js";

/**
 * Bytes [start, end) of `blob`, copied once: Node's `Blob.arrayBuffer()` copies them twice
 * (each part it pulls, then all of them into one buffer), which cost a worker a tenth of
 * its time on a 100 MB count; its stream yields the parts as they are pulled (an
 * in-memory slice in one part).
 */
async function read(blob, start, end) {
  const parts = [];
  for await (const part of blob.slice(start, end).stream()) parts.push(part);
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(end - start);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return at === out.length ? out : out.subarray(0, at);
}

parentPort.on("message", serve({ countTokenBytes, nextSplit, read }, (m) => parentPort.postMessage(m)));
