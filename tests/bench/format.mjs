// Number helpers shared by the bench's report modules (report.mjs, bounds.mjs). Node built-ins only.

/** A figure with three significant digits or so: 123, 12.3, 1.23. */
export const f1 = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));

/** The median of a list (the upper one of an even count). */
export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
