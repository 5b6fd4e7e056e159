// ctxguard-toolbar: importing this module defines <ctxguard-toolbar> and
// <ctxguard-attachment-preview> (once per page, however many copies of the
// package are imported) and exports `ready`, resolved once both are defined.
//
// Each element is a thin HTMLElement subclass: it opens a shadow root and
// hands attributes, methods and lifecycle to its controller in the toolbar's
// WebAssembly module (./wasm/), which renders, keeps the state and
// dispatches the DOM events. The preview's tokenizer is a second module
// (./engine/), imported the first time the preview is given files.
import init, { PreviewController, ToolbarController } from "./wasm/ctxguard_toolbar.js";

const TOOLBAR = "ctxguard-toolbar";
const PREVIEW = "ctxguard-attachment-preview";

let engine;
/** Loads the preview engine once; resolves to `previewAttachments(requestJson) → reportJson`. */
function loadEngine() {
  engine ??= import("./engine/ctxguard_preview.js").then(async (m) => {
    await m.default();
    return (request) => m.previewAttachments(request);
  });
  return engine;
}

function defineElements() {
  class CtxguardToolbarElement extends HTMLElement {
    static observedAttributes = ["session", "server", "token", "lang", "source", "compact"];
    #controller;

    constructor() {
      super();
      const root = this.shadowRoot ?? this.attachShadow({ mode: "open" });
      this.#controller = new ToolbarController(this, root);
    }

    connectedCallback() {
      this.#controller.connected();
    }

    disconnectedCallback() {
      this.#controller.disconnected();
    }

    attributeChangedCallback(_name, before, after) {
      if (before !== after) this.#controller.attributeChanged();
    }

    /** Applies one status event; returns "applied" | "stale" | "malformed" | "unknown". */
    pushEvent(event, id) {
      return this.#controller.pushEvent(event, id);
    }

    /** Applies a /context body (the server's word); returns "applied" | "malformed". */
    applyContext(state) {
      return this.#controller.applyContext(state);
    }

    /** Forgets the saved state and the history of this session. */
    clear() {
      this.#controller.clear();
    }

    /** A JSON-safe snapshot: {session, connection, restored, metrics, compaction, history, forecast, …}. */
    get state() {
      return this.#controller.state();
    }
  }

  class CtxguardAttachmentPreviewElement extends HTMLElement {
    static observedAttributes = ["model", "limit", "lang", "for"];
    #controller;
    #files = [];
    #linked = null;
    #onToolbarChange = (event) => {
      const id = this.getAttribute("for");
      if (id && event.target instanceof Element && event.target.id === id) {
        this.#controller.setLinkedBudget(event.detail?.attachment_budget ?? null);
      }
    };

    constructor() {
      super();
      const root = this.shadowRoot ?? this.attachShadow({ mode: "open" });
      this.#controller = new PreviewController(this, root, loadEngine);
    }

    connectedCallback() {
      this.ownerDocument.addEventListener("ctxguard-change", this.#onToolbarChange);
      this.#link();
      this.#controller.connected();
    }

    disconnectedCallback() {
      this.ownerDocument.removeEventListener("ctxguard-change", this.#onToolbarChange);
      this.#controller.disconnected();
    }

    attributeChangedCallback(name, before, after) {
      if (before === after) return;
      this.#controller.attributeChanged();
      if (name === "for") this.#link();
    }

    /** Takes the budget of the toolbar named by `for`, if it is on the page. */
    #link() {
      const id = this.getAttribute("for");
      const toolbar = id ? this.ownerDocument.getElementById(id) : null;
      this.#linked = toolbar && toolbar.localName === TOOLBAR ? toolbar : null;
      this.#controller.setLinkedBudget(this.#linked?.state?.attachment_budget ?? null);
    }

    /** The files last given through this property or `previewFiles`. */
    get files() {
      return [...this.#files];
    }

    set files(files) {
      this.previewFiles(files);
    }

    /** Previews `files` (a FileList or File[]); resolves to the report (null for none). */
    previewFiles(files) {
      this.#files = Array.from(files ?? []);
      return this.#controller.previewFiles(this.#files);
    }

    /** The latest report (null before the first). */
    get report() {
      return this.#controller.report();
    }
  }

  for (const [name, element] of [
    [TOOLBAR, CtxguardToolbarElement],
    [PREVIEW, CtxguardAttachmentPreviewElement],
  ]) {
    // A second copy of the package finds the tags taken and keeps the first definitions.
    if (!customElements.get(name)) customElements.define(name, element);
  }
}

// Shared by every copy of the package on the page: the first one loads its module and
// defines the elements; later copies (another URL, another bundle) wait for that.
const LOADING = Symbol.for("ctxguard-toolbar.ready");

/** Resolves once both elements are defined (by this copy of the package or another). */
export const ready = (globalThis[LOADING] ??= (
  customElements.get(TOOLBAR) && customElements.get(PREVIEW) ? Promise.resolve() : init().then(defineElements)
).then(() => Promise.all([customElements.whenDefined(TOOLBAR), customElements.whenDefined(PREVIEW)])).then(() => {}));
