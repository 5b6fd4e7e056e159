// The package as a host imports it: `ready`, idempotent definitions (a
// second import, a second copy of the package), and the size budget of the
// toolbar's first load.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { assert } from "../support/net.mjs";
import { measure, TOOLBAR_BUDGET_BYTES } from "./size.mjs";

export async function packageChecks(h, check, { pkg }) {
  await check("importing defines both elements and resolves ready", () =>
    h.with(async ({ page }) => {
      const out = await page.evaluate(async () => {
        const m = await import("/pkg/toolbar/ctxguard-toolbar.js");
        await m.ready;
        const a = customElements.get("ctxguard-toolbar");
        const b = customElements.get("ctxguard-attachment-preview");
        return [typeof a, typeof b, a !== b, typeof a.prototype.pushEvent, typeof b.prototype.previewFiles, m.ready instanceof Promise];
      });
      assert(JSON.stringify(out) === JSON.stringify(["function", "function", true, "function", "function", true]), JSON.stringify(out));
    }),
  );

  await check("a second import and a second copy of the package do not throw and load no second module", () =>
    h.with({ ready: false }, async ({ page, errors, requests }) => {
      // A copy of the package at another URL, as a second bundle or CDN copy would be.
      await page.route("**/copy/**", (route) => {
        const path = new URL(route.request().url()).pathname.replace(/^\/copy\//, "");
        const type = path.endsWith(".wasm") ? "application/wasm" : "text/javascript";
        route.fulfill({ status: 200, contentType: type, body: readFileSync(join(pkg, path)) });
      });
      const out = await page.evaluate(async () => {
        const first = await window.ctxguardReady;
        const defined = customElements.get("ctxguard-toolbar");
        const again = await import("/pkg/toolbar/ctxguard-toolbar.js?again");
        await again.ready;
        const copy = await import("/copy/ctxguard-toolbar.js");
        await copy.ready;
        const el = t.add('<ctxguard-toolbar source="host" session="copy"></ctxguard-toolbar>');
        return [first, customElements.get("ctxguard-toolbar") === defined, typeof el.pushEvent];
      });
      assert(JSON.stringify(out) === JSON.stringify(["ready", true, "function"]), JSON.stringify(out));
      assert(errors.length === 0, errors.join(" | "));
      const wasm = requests.filter((u) => u.endsWith(".wasm"));
      assert(wasm.length === 1 && wasm[0].includes("/pkg/toolbar/wasm/"), `wasm requests: ${wasm}`);
    }),
  );

  await check(`the toolbar's first load (wasm + JS) is within ${TOOLBAR_BUDGET_BYTES / 1000} KB brotli and fetches no tokenizer`, () =>
    h.with(async ({ page, requests }) => {
      await page.evaluate(() => t.add('<ctxguard-toolbar source="host" session="size"></ctxguard-toolbar>'));
      await page.waitForTimeout(300);
      const fetched = requests.filter((u) => u.includes("/pkg/toolbar/")).map((u) => new URL(u).pathname.replace("/pkg/toolbar/", ""));
      const sizes = measure(pkg);
      const expected = sizes.toolbar.files.map((f) => f.file).sort();
      assert(JSON.stringify(fetched.sort()) === JSON.stringify(expected), `fetched ${fetched} vs measured ${expected}`);
      assert(sizes.toolbar.brotli <= TOOLBAR_BUDGET_BYTES, `toolbar ${sizes.toolbar.brotli} B brotli > ${TOOLBAR_BUDGET_BYTES}`);
    }),
  );
}
