// The package's custom-elements.json against what it describes, so neither can
// drift: the live elements (observed attributes, reflecting properties,
// methods), the declarations (ctxguard-toolbar.d.ts: members, attributes,
// events), the parts the components render, the CSS custom properties the
// style sheets read and the states the view shows. Then the properties and the
// host's states as a page (Vue, Angular, Lit, plain CSS) uses them.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { root } from "../support/browser.mjs";
import { assert } from "../support/net.mjs";
import { compaction, event } from "./fixtures.mjs";

const read = (path) => readFileSync(join(root, path), "utf8");
const sorted = (list) => JSON.stringify([...new Set(list)].sort());
const sameSet = (what, a, b) => assert(sorted(a) === sorted(b), `${what}: ${sorted(a)} vs ${sorted(b)}`);

/** The body of `kind name { … }` in the declarations (to its closing brace at the line's start). */
function block(dts, head) {
  const start = dts.indexOf(head);
  assert(start >= 0, `no ${head} in the declarations`);
  const end = dts.indexOf("\n}", start);
  return dts.slice(start, end);
}

/** Member names of a declared class: `name(`, `name:` or `readonly name:` at two spaces. */
const declaredMembers = (body) =>
  [...body.matchAll(/^ {2}(?:readonly )?(\w+)[(:?]/gm)].map((m) => m[1]).filter((n) => !/^(add|remove)EventListener$/.test(n));
/** Keys of a declared interface: `name?:` or `"name"?:`. */
const declaredKeys = (body) => [...body.matchAll(/^ {2}"?([\w-]+)"?\??:/gm)].map((m) => m[1]);

/** `part="…"` and `set_attribute("part", "…")` of the given sources. */
const partsIn = (files) => files.flatMap((f) => [...read(f).matchAll(/part="([\w-]+)"|"part", "([\w-]+)"/g)].map((m) => m[1] ?? m[2]));

const ELEMENTS = {
  "ctxguard-toolbar": {
    cls: "CtxguardToolbarElement",
    attributes: "CtxguardToolbarAttributes",
    events: "CtxguardToolbarEventMap",
    parts: ["web/src/elements/dom.rs", ...["toolbar", "usage_bar", "projection", "breakdown", "history"].map((n) => `web/src/components/${n}.rs`)],
  },
  "ctxguard-attachment-preview": {
    cls: "CtxguardAttachmentPreviewElement",
    attributes: "CtxguardAttachmentPreviewAttributes",
    events: "CtxguardAttachmentPreviewEventMap",
    parts: ["web/src/elements/dom.rs", "web/src/components/attachment_panel.rs", "web/src/components/report_dom.rs"],
  },
};

export async function manifestChecks(h, check, { pkg }) {
  const manifest = JSON.parse(readFileSync(join(pkg, "custom-elements.json"), "utf8"));
  const declarations = manifest.modules.flatMap((m) => m.declarations);
  const element = (tag) => declarations.find((d) => d.tagName === tag);

  await check("custom-elements.json ships in the package, is named by package.json and describes both elements", () => {
    const json = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8"));
    assert(json.customElements === "./custom-elements.json" && json.files.includes("custom-elements.json"), JSON.stringify(json.customElements));
    assert(manifest.schemaVersion && manifest.modules[0].path === "ctxguard-toolbar.js", manifest.schemaVersion);
    sameSet("elements", declarations.filter((d) => d.customElement).map((d) => d.tagName), Object.keys(ELEMENTS));
    const defined = manifest.modules[0].exports.filter((e) => e.kind === "custom-element-definition").map((e) => e.name);
    sameSet("definitions", defined, Object.keys(ELEMENTS));
  });

  await check("custom-elements.json matches the declarations: members, attributes, events", () => {
    const dts = readFileSync(join(pkg, "ctxguard-toolbar.d.ts"), "utf8");
    for (const [tag, names] of Object.entries(ELEMENTS)) {
      const e = element(tag);
      assert(e.name === names.cls, `${tag} is ${e.name}`);
      sameSet(`${tag} members`, e.members.map((m) => m.name), declaredMembers(block(dts, `export declare class ${names.cls} `)));
      sameSet(`${tag} attributes`, e.attributes.map((a) => a.name), declaredKeys(block(dts, `export interface ${names.attributes} `)));
      sameSet(`${tag} events`, e.events.map((v) => v.name), declaredKeys(block(dts, `export interface ${names.events} `)));
      for (const f of e.members.filter((m) => m.attribute)) {
        const a = e.attributes.find((x) => x.name === f.attribute);
        assert(a && a.fieldName === f.name, `${tag}: ${f.name} reflects ${f.attribute}, whose fieldName is ${a?.fieldName}`);
      }
    }
  });

  await check("custom-elements.json matches the sources: parts rendered, CSS properties read, states shown", () => {
    const cssProperties = [...read("web/css/base.css").matchAll(/var\((--ctxguard-[\w-]+)/g)].map((m) => m[1]);
    for (const [tag, names] of Object.entries(ELEMENTS)) {
      const e = element(tag);
      sameSet(`${tag} parts`, e.cssParts.map((p) => p.name), partsIn(names.parts));
      sameSet(`${tag} CSS properties`, e.cssProperties.map((p) => p.name), cssProperties);
    }
    // Every component file is claimed by one element (a new one must be listed above).
    const claimed = new Set(Object.values(ELEMENTS).flatMap((n) => n.parts));
    const unclaimed = readdirSync(join(root, "web/src/components")).map((f) => `web/src/components/${f}`).filter((f) => !claimed.has(f) && partsIn([f]).length);
    assert(unclaimed.length === 0, `parts in files no element claims: ${unclaimed}`);
    const view = read("web/src/view.rs");
    const compactionStates = [...view.slice(view.indexOf("pub fn state(&self)")).matchAll(/CompactionView::\w+ \{ \.\. \} => "(\w+)"/g)].map((m) => m[1]);
    const connectionStates = [...read("web/src/machine/connection.rs").matchAll(/Connection::\w+ => "(\w+)"/g)].map((m) => m[1]);
    assert(compactionStates.length === 6 && connectionStates.length === 5, `${compactionStates} ${connectionStates}`);
    sameSet("states", element("ctxguard-toolbar").cssStates.map((s) => s.name), [...compactionStates, ...connectionStates]);
  });

  await check("custom-elements.json matches the live elements: observed attributes, reflecting properties, methods", () =>
    h.with(async ({ page }) => {
      const live = await page.evaluate((tags) => {
        const out = {};
        for (const tag of tags) {
          const cls = customElements.get(tag);
          const proto = cls.prototype;
          const members = Object.getOwnPropertyNames(proto).filter((n) => !/^(constructor|connectedCallback|disconnectedCallback|attributeChangedCallback)$/.test(n));
          out[tag] = { observed: cls.observedAttributes, members, methods: members.filter((n) => typeof Object.getOwnPropertyDescriptor(proto, n).value === "function") };
        }
        return out;
      }, Object.keys(ELEMENTS));
      for (const tag of Object.keys(ELEMENTS)) {
        const e = element(tag);
        sameSet(`${tag} members`, e.members.map((m) => m.name), live[tag].members);
        sameSet(`${tag} methods`, e.members.filter((m) => m.kind === "method").map((m) => m.name), live[tag].methods);
        // Every attribute is observed, but theme, which only the style sheet reads (:host([theme])).
        sameSet(`${tag} attributes`, e.attributes.map((a) => a.name).filter((n) => n !== "theme"), live[tag].observed);
      }
      assert(read("web/css/base.css").includes(':host([theme="dark"])'), "theme is read by the style sheet");
    }),
  );

  await check("every attribute has a property that reflects it: set either, read both; null removes it", () =>
    h.with(async ({ page }) => {
      const fields = Object.fromEntries(Object.keys(ELEMENTS).map((tag) => [tag, element(tag).members.filter((m) => m.attribute)]));
      const bad = await page.evaluate((fields) => {
        const wrong = [];
        for (const [tag, list] of Object.entries(fields)) {
          const el = document.createElement(tag);
          if (tag === "ctxguard-toolbar") el.setAttribute("source", "host");
          for (const { name, attribute, type } of list) {
            const kind = type.text === "boolean" ? "boolean" : type.text.startsWith("number") ? "number" : "string";
            const value = kind === "boolean" ? true : kind === "number" ? 4200 : name === "source" ? "host" : `v-${name}`;
            el[name] = value;
            const seen = el.getAttribute(attribute);
            if (seen !== (kind === "boolean" ? "" : String(value))) wrong.push(`${tag}.${name} = ${value} set ${attribute}=${seen}`);
            el.setAttribute(attribute, kind === "number" ? "17" : "x");
            const back = el[name];
            if (back !== (kind === "boolean" ? true : kind === "number" ? 17 : "x")) wrong.push(`${attribute}="x" reads ${name} ${back}`);
            if (name === "source") el.setAttribute("source", "host");
            else el[name] = kind === "boolean" ? false : null;
            if (name !== "source" && el.hasAttribute(attribute)) wrong.push(`${tag}.${name} = null kept ${attribute}`);
          }
        }
        return wrong;
      }, fields);
      assert(bad.length === 0, bad.join(" | "));
    }),
  );

  await check("a property set before the element is defined (a framework's binding) is applied through the attribute", () =>
    h.with(async ({ page }) => {
      const out = await page.evaluate(async () => {
        // An element of a document without the definitions stays undefined: the properties are its own.
        const el = document.implementation.createHTMLDocument("").createElement("ctxguard-toolbar");
        el.source = "host";
        el.session = "early";
        el.compact = true;
        const own = Object.hasOwn(el, "session");
        document.body.append(document.adoptNode(el));
        await t.settle();
        return [own, el.getAttribute("session"), el.hasAttribute("compact"), el.state.session, el.state.connection];
      });
      assert(JSON.stringify(out) === JSON.stringify([true, "early", true, "early", "host"]), JSON.stringify(out));
    }),
  );

  await check("el.session = … switches the session like setAttribute does", () =>
    h.with(async ({ page }) => {
      const out = await page.evaluate(async () => {
        const el = t.add('<ctxguard-toolbar source="host" session="a"></ctxguard-toolbar>');
        const seen = [];
        el.addEventListener("ctxguard-change", (e) => seen.push(e.detail.session));
        el.session = "b";
        await t.settle();
        return [el.state.session, el.getAttribute("session"), seen.includes("b"), t.q(el, "ctxguard-toolbar") !== null];
      });
      assert(JSON.stringify(out) === JSON.stringify(["b", "b", true, true]), JSON.stringify(out));
    }),
  );

  await check("the toolbar's state is styleable from outside: :state(compacting) and [data-state], :state(live|host) and [data-connection]", () =>
    h.with(async ({ page }) => {
      const out = await page.evaluate(
        async ({ running, done }) => {
          const style = document.createElement("style");
          style.textContent = "ctxguard-toolbar:state(compacting) { outline: 3px solid rgb(1, 2, 3); } ctxguard-toolbar[data-state='completed'] { outline: 3px solid rgb(4, 5, 6); }";
          document.head.append(style);
          const el = t.add('<ctxguard-toolbar source="host" session="styled"></ctxguard-toolbar>');
          await t.settle();
          const look = () => ({
            compacting: el.matches(":state(compacting)"),
            completed: el.matches(":state(completed)"),
            host: el.matches(":state(host)"),
            state: el.dataset.state,
            connection: el.dataset.connection,
            outline: getComputedStyle(el).outlineColor,
          });
          const before = look();
          el.pushEvent(running, 1);
          await t.settle();
          const during = look();
          el.pushEvent(done, 2);
          await t.settle();
          return { before, during, after: look() };
        },
        { running: compaction("in_progress"), done: compaction("completed", { after_tokens: 40_000 }, 40_000) },
      );
      const { before, during, after } = out;
      assert(before.state === "idle" && before.connection === "host" && before.host && !before.compacting, JSON.stringify(before));
      assert(during.compacting && during.state === "compacting" && during.outline === "rgb(1, 2, 3)", JSON.stringify(during));
      assert(!after.compacting && after.completed && after.state === "completed" && after.outline === "rgb(4, 5, 6)", JSON.stringify(after));
    }),
  );

  await check("a status event with no compaction leaves data-state idle", () =>
    h.with(async ({ page }) => {
      const state = await page.evaluate(async (e) => {
        const el = t.add('<ctxguard-toolbar source="host" session="plain"></ctxguard-toolbar>');
        el.pushEvent(e, 1);
        await t.settle();
        return el.dataset.state;
      }, event(1_000));
      assert(state === "idle", state);
    }),
  );
}
