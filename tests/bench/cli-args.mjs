// The command line the big-text builders share: `node SCRIPT OUT_DIR [--mb N]`.

/** `{out, mb}` from `argv` (after the script), or a usage line and exit 2 naming `script`. */
export function outDirAndMegabytes(argv, script) {
  const i = argv.indexOf("--mb");
  const mb = i >= 0 ? Number(argv[i + 1]) : 100;
  const out = argv.find((a, j) => !a.startsWith("--") && (i < 0 || j !== i + 1));
  if (!out || !(mb > 0)) {
    console.error(`usage: node ${script} OUT_DIR [--mb 100]`);
    process.exit(2);
  }
  return { out, mb };
}
