// ctxguard-toolbar: importing this module in a browser defines
// <ctxguard-toolbar> and <ctxguard-attachment-preview> (once per page, however
// many copies of the package are imported) and exports `ready`, resolved once
// both are defined. Imported where there is no DOM (a server rendering the
// page, a test in Node) it touches nothing: no global is read or set, no
// module is loaded, and `ready` resolves at once with nothing defined.
//
// Each element is a thin HTMLElement subclass: it opens a shadow root and
// hands attributes, methods and lifecycle to its controller in the toolbar's
// WebAssembly module (./wasm/), which renders, keeps the state and
// dispatches the DOM events. The preview's parsers and tokenizer are a second
// module (./engine/), run in a module Worker (./preview-worker.js) started the
// first time the preview is given files.
import init, { PreviewController, ToolbarController } from "./wasm/ctxguard_toolbar.js";

const TOOLBAR = "ctxguard-toolbar";
const PREVIEW = "ctxguard-attachment-preview";

/** A browser (or a DOM that can define elements): the elements are defined only there. */
const IN_BROWSER =
  typeof window !== "undefined" && typeof customElements !== "undefined" && typeof HTMLElement !== "undefined";

// contract: generated from ctxguard-core and ctxguard-web (web/src/js_contract.rs); do not edit
const LONG_STRING = 4096;
const PLACEHOLDER = "\uF8FFctxguard-long:";
const MAX_SESSIONS = 100;
const SESSION_TAG = "{\"session\":\"";
const CURSOR_PAIRS = ",";
const CURSOR_ID = ":";
// contract: end

// Strings of at least LONG_STRING characters cross into the module as themselves, not inside its
// JSON text, so a 10 MB failure_reason is copied once, not five times (the Rust side,
// js_text.rs, hands the same string back in `title`, the events and `state`).

/**
 * `{text, long}`: the event's JSON text (as JSON.stringify makes it) with each long string
 * replaced by PLACEHOLDER + its index in `long`; null when it has no JSON text (a cycle, a
 * BigInt). Ill-formed strings (a lone surrogate) stay in the text, which refuses them.
 */
function eventParts(event) {
  const long = [];
  const aside = (_key, value) =>
    typeof value === "string" &&
    (value.length >= LONG_STRING || value.startsWith(PLACEHOLDER)) &&
    value.isWellFormed?.() !== false
      ? PLACEHOLDER + (long.push(value) - 1)
      : value;
  try {
    const text = JSON.stringify(event, aside);
    return typeof text === "string" ? { text, long } : null;
  } catch {
    return null;
  }
}

/** A preview worker unused this long is closed (its memory goes back); the next preview starts one. */
const IDLE_CLOSE_MS = 60_000;

/**
 * One element's preview worker (./preview-worker.js, which loads the engine on its first
 * preview). `start(files, request, onProgress)` returns `{promise, cancel}`: the promise
 * resolves to the report's JSON, or to null once cancelled (the worker is terminated, so a
 * cancel takes effect at once, whatever it was doing).
 */
class PreviewWorker {
  #worker = null;
  #next = 0;
  #pending = new Map();
  #idle = null;

  #spawn() {
    const worker = new Worker(new URL("./preview-worker.js", import.meta.url), { type: "module" });
    worker.onmessage = ({ data }) => {
      const job = this.#pending.get(data?.id);
      if (!job) return;
      if (data.type === "progress") {
        job.onProgress(data.file_index, data.done_bytes, data.total_bytes);
        return;
      }
      this.#pending.delete(data.id);
      if (data.type === "report") job.resolve(JSON.stringify(data.report));
      else if (data.type === "error") job.reject(new Error(data.message ?? "the preview worker failed"));
      else job.resolve(data);
      this.#scheduleIdle();
    };
    worker.onerror = (event) => {
      event.preventDefault();
      this.#fail(new Error(event.message || "the preview worker could not start"));
    };
    return worker;
  }

  #fail(error) {
    for (const job of this.#pending.values()) job.reject(error);
    this.#pending.clear();
    this.#worker?.terminate();
    this.#worker = null;
  }

  #scheduleIdle() {
    clearTimeout(this.#idle);
    if (this.#pending.size === 0) {
      this.#idle = setTimeout(() => {
        this.#worker?.terminate();
        this.#worker = null;
      }, IDLE_CLOSE_MS);
    }
  }

  /**
   * Asks the worker `message` (`{type: "count" | "usage" | "project" | "warm", …}`, see
   * ./preview-worker.js) and resolves to its answer.
   */
  ask(message) {
    clearTimeout(this.#idle);
    this.#worker ??= this.#spawn();
    const id = ++this.#next;
    const promise = new Promise((resolve, reject) => this.#pending.set(id, { resolve, reject, onProgress() {} }));
    this.#worker.postMessage({ ...message, id });
    return promise;
  }

  start(files, request, onProgress) {
    clearTimeout(this.#idle);
    this.#worker ??= this.#spawn();
    const id = ++this.#next;
    const { options, max_text_length, max_upload_bytes, admission } = JSON.parse(request);
    const promise = new Promise((resolve, reject) => this.#pending.set(id, { resolve, reject, onProgress }));
    this.#worker.postMessage({ type: "preview", id, files: Array.from(files), options, maxTextLength: max_text_length, maxUploadBytes: max_upload_bytes, admission });
    const cancel = () => {
      const job = this.#pending.get(id);
      if (!job) return;
      this.#pending.delete(id);
      job.resolve(null);
      // Whatever else the worker was doing goes with it: the other jobs of this element
      // were superseded by the one being cancelled.
      this.#fail(new Error("cancelled"));
    };
    return { promise, cancel };
  }
}

// Toolbars of one page that follow the same server share one connection (browsers open at most
// six HTTP/1.1 connections per origin, so a seventh stream would never open). The toolbar's module asks the page's
// registry (`__ctxguardToolbarStream`, shared by every copy of the package) for its session's
// stream, …/api/sessions/ID/events?token=…&last_event_id=N, and gets a member of its server's
// group: an EventTarget with close() that receives its session's events (the session's own
// JSON and id) and the shared stream's open and error, as from an EventSource of its own. A
// group's sessions ride GET /api/events?session=…&token=… (each session with its token),
// reopened with the union REOPEN_MS after the last member joined or left, each session resumed
// from its members' last event id through the cursor `last_event_id=ID:N,…`. On an error the
// shared stream is closed and every member told, so each resyncs and joins again on its own.
const STATUS_EVENT = "response.status.updated";
/** A group's changes within this long of each other cause one reopening (toolbars mounting together join as their /context replies arrive). */
const REOPEN_MS = 150;
/** Query characters per shared stream (the relay takes 8 KiB targets; MAX_SESSIONS bounds its sessions). */
const MAX_QUERY_CHARS = 7000;

/** Closes `group`'s streams and opens new ones for its members' sessions. */
function openGroup(group) {
  for (const source of group.sources) source.close();
  group.sources = [];
  // Each session once: its first member's token, its members' lowest last event id (none lowest).
  const sessions = new Map();
  for (const { session, token, last } of group.members) {
    const s = sessions.get(session);
    if (!s) sessions.set(session, { token, last });
    else if (!(+s.last <= +last)) s.last = last;
  }
  let names = new Set();
  let query = "";
  let cursor = [];
  const flush = () => {
    if (!names.size) return;
    const mine = names;
    const source = new EventSource(
      `${group.server}/api/events?${query}&last_event_id=${encodeURIComponent(cursor.join(CURSOR_PAIRS))}`,
    );
    const tell = (type) => {
      for (const m of [...group.members]) if (mine.has(m.session)) m.dispatchEvent(new Event(type));
    };
    source.onopen = () => tell("open");
    source.onerror = () => {
      source.close();
      tell("error");
    };
    source.addEventListener(STATUS_EVENT, ({ data, lastEventId }) => {
      // SESSION_TAG, the session's id, then the session's own JSON; the cursor's pair for it is
      // `ID:N` (split at its last CURSOR_ID).
      if (!data.startsWith(SESSION_TAG)) return;
      const end = data.indexOf('"', SESSION_TAG.length);
      const name = data.slice(SESSION_TAG.length, end);
      const json = `{${data.slice(end + (data[end + 1] === "," ? 2 : 1))}`;
      const pair =
        lastEventId.split(CURSOR_PAIRS).find((p) => p.slice(0, p.lastIndexOf(CURSOR_ID)) === name) ?? "";
      const id = pair.slice(pair.lastIndexOf(CURSOR_ID) + 1);
      for (const m of group.members) {
        if (m.session !== name) continue;
        if (id) m.last = id;
        m.dispatchEvent(new MessageEvent(STATUS_EVENT, { data: json, lastEventId: id }));
      }
    });
    group.sources.push(source);
    names = new Set();
    query = "";
    cursor = [];
  };
  for (const [name, { token, last }] of sessions) {
    if (names.size >= MAX_SESSIONS || query.length + cursor.join(CURSOR_PAIRS).length > MAX_QUERY_CHARS) flush();
    names.add(name);
    query += `${query && "&"}session=${encodeURIComponent(name)}${token ? `&token=${encodeURIComponent(token)}` : ""}`;
    if (last) cursor.push(`${name}${CURSOR_ID}${last}`);
  }
  flush();
}

const groups = new Map();
if (IN_BROWSER) globalThis.__ctxguardToolbarStream ??= (url) => {
  const [, server, session, search] = /^(.*)\/api\/sessions\/([^/?]+)\/events\??(.*)$/.exec(url) ?? [];
  if (session === undefined) return new EventSource(url);
  const query = new URLSearchParams(search);
  let group = groups.get(server);
  if (!group) groups.set(server, (group = { server, members: new Set(), sources: [] }));
  const reopen = () => {
    clearTimeout(group.timer);
    group.timer = setTimeout(openGroup, REOPEN_MS, group);
  };
  const member = Object.assign(new EventTarget(), {
    session: decodeURIComponent(session),
    token: query.get("token"),
    last: query.get("last_event_id"),
    close: () => group.members.delete(member) && reopen(),
  });
  group.members.add(member);
  reopen();
  return member;
};

/** Typing pauses this long before the draft is counted (the count then lands within a frame). */
const DRAFT_DEBOUNCE_MS = 120;

/**
 * The send being written, for one toolbar, and its `setUsage`. The toolbar's own module has
 * no tokenizer, no model limits and no projection rule (its first load stays small): a worker
 * of the preview's (./preview-worker.js, the engine) counts the draft (debounced, so typing
 * never waits), projects the draft and the block of the previews linked by `for=` onto the
 * toolbar's metrics, and makes a provider's usage into a status event. It starts the first
 * time one of them is needed, or when `model` or `context-window` is set. The answers are
 * handed to the toolbar's controller; `ctxguard-projection` is dispatched from here.
 */
class DraftFeed {
  #toolbar;
  #controller;
  #text = "";
  #timer = 0;
  #latest = 0;
  #worker = null;
  /** The draft's `{message_tokens, kept_tokens}`; null without a draft. */
  #count = null;
  #blockTokens = 0;
  /** The metrics last projected onto (JSON text). */
  #metrics = "null";
  #asked = 0;
  /** The `ctxguard-projection` detail shown (null: nothing is written), and its JSON. */
  #detail = null;
  #shown = "null";
  #onPreview = (event) => {
    const preview = event.target;
    const id = this.#toolbar.id;
    if (!id || !(preview instanceof Element) || preview.localName !== PREVIEW || preview.getAttribute("for") !== id) return;
    this.#blockTokens = Number(event.detail?.block_tokens_after ?? 0);
    this.#project();
  };
  #onChange = (event) => {
    if (event.target !== this.#toolbar) return;
    const metrics = JSON.stringify(event.detail?.metrics ?? null);
    if (metrics !== this.#metrics) this.#project(metrics);
  };

  constructor(toolbar, controller) {
    this.#toolbar = toolbar;
    this.#controller = controller;
  }

  connected() {
    this.#toolbar.ownerDocument.addEventListener("ctxguard-preview", this.#onPreview);
    this.#toolbar.addEventListener("ctxguard-change", this.#onChange);
  }

  disconnected() {
    this.#toolbar.ownerDocument.removeEventListener("ctxguard-preview", this.#onPreview);
    this.#toolbar.removeEventListener("ctxguard-change", this.#onChange);
  }

  #ask(message) {
    this.#worker ??= new PreviewWorker();
    return this.#worker.ask(message);
  }

  /** Starts the worker (and its engine) before it is first needed. */
  warm() {
    this.#ask({ type: "warm" }).catch(() => {});
  }

  get text() {
    return this.#text;
  }

  set text(value) {
    this.#text = value == null ? "" : String(value);
    clearTimeout(this.#timer);
    const ticket = ++this.#latest;
    if (this.#text === "") {
      this.#count = null;
      this.#project();
      return;
    }
    this.#timer = setTimeout(() => {
      this.#ask({ type: "count", model: this.#controller.countingModel(), text: this.#text }).then(
        (counted) => {
          // A later draft supersedes this count.
          if (ticket !== this.#latest) return;
          this.#count = { message_tokens: counted.message_tokens, kept_tokens: counted.kept_tokens };
          this.#project();
        },
        () => {},
      );
    }, DRAFT_DEBOUNCE_MS);
  }

  get projection() {
    return this.#detail;
  }

  /** Projects the send onto `metrics` (JSON text; default the toolbar's own) in the worker, then shows it. */
  #project(metrics = JSON.stringify(this.#toolbar.state?.metrics ?? null)) {
    this.#metrics = metrics;
    const ticket = ++this.#asked;
    if (metrics === "null" || (this.#count === null && !(this.#blockTokens > 0))) {
      this.#show(null);
      return;
    }
    const count = this.#count ?? { message_tokens: -1, kept_tokens: 0 };
    this.#ask({ type: "project", metrics, messageTokens: count.message_tokens, keptTokens: count.kept_tokens, blockTokens: this.#blockTokens }).then(
      (answer) => {
        // A later change supersedes this projection.
        if (ticket === this.#asked) this.#show(answer.projection);
      },
      () => {},
    );
  }

  #show(projection) {
    this.#controller.setProjection(JSON.stringify(projection ?? null));
    const detail = projection?.detail ?? null;
    const text = JSON.stringify(detail);
    if (text === this.#shown) return;
    this.#shown = text;
    this.#detail = detail;
    this.#toolbar.dispatchEvent(new CustomEvent("ctxguard-projection", { detail, bubbles: true, composed: true }));
  }

  /** `setUsage`: the worker makes the usage a status event, which the toolbar applies. */
  usage(usage) {
    let text;
    try {
      text = JSON.stringify(usage ?? null) ?? "null";
    } catch {
      text = "null";
    }
    const model = this.#toolbar.getAttribute("model");
    const contextWindow = this.#toolbar.getAttribute("context-window");
    return this.#ask({ type: "usage", usage: text, model, contextWindow }).then((answer) => {
      if (answer.error !== undefined) throw new TypeError(`setUsage: ${answer.error}`);
      return this.#controller.applyUsage(answer.model, answer.event);
    });
  }
}

// Every attribute has a property that reflects it (`el.session = "b"` is `setAttribute("session",
// "b")`; null or undefined removes it), so property bindings (Vue, Angular, Lit) and attributes are
// one. Rows: [property, attribute, kind]; a "number" reads as a number (null when absent or not a
// finite number), a "boolean" as present and not "false", as the toolbar reads it (false removes
// it). `lang` is HTMLElement's own.
const TOOLBAR_PROPERTIES = [
  ["session", "session", "string"],
  ["server", "server", "string"],
  ["token", "token", "string"],
  ["source", "source", "string"],
  ["compact", "compact", "boolean"],
  ["staleAfterMs", "stale-after-ms", "number"],
  ["theme", "theme", "string"],
  ["model", "model", "string"],
  ["contextWindow", "context-window", "number"],
];
const PREVIEW_PROPERTIES = [
  ["model", "model", "string"],
  ["limit", "limit", "number"],
  ["for", "for", "string"],
  ["maxUploadBytes", "max-upload-bytes", "number"],
  ["maxTextLength", "max-text-length", "number"],
  ["maxAttachments", "max-attachments", "number"],
  ["maxReferenceImages", "max-reference-images", "number"],
  ["maxReferenceImagesWithVideo", "max-reference-images-with-video", "number"],
  ["maxReferenceVideos", "max-reference-videos", "number"],
  ["maxReferenceAudios", "max-reference-audios", "number"],
  ["imageMaxSizeMb", "image-max-size-mb", "number"],
  ["videoMaxSizeMb", "video-max-size-mb", "number"],
  ["audioMaxSizeMb", "audio-max-size-mb", "number"],
  ["videoUploaderMaxSizeBytes", "video-uploader-max-size-bytes", "number"],
  ["theme", "theme", "string"],
];

/** Defines `properties` on `element`'s prototype, each reflecting its attribute. */
function reflectProperties(element, properties) {
  for (const [property, attribute, kind] of properties) {
    Object.defineProperty(element.prototype, property, {
      configurable: true,
      enumerable: true,
      get() {
        const value = this.getAttribute(attribute);
        if (kind === "boolean") return value !== null && value.trim() !== "false";
        if (kind === "number") return value === null || value.trim() === "" || !Number.isFinite(+value) ? null : +value;
        return value;
      },
      set(value) {
        if (value === null || value === undefined || (kind === "boolean" && value === false)) this.removeAttribute(attribute);
        else this.setAttribute(attribute, kind === "boolean" ? "" : String(value));
      },
    });
  }
}

/** A property a framework set on the element before it was defined shadows the accessor: hand it over. */
function upgradeProperties(element, properties) {
  for (const [property] of properties) {
    if (Object.hasOwn(element, property)) {
      const value = element[property];
      delete element[property];
      element[property] = value;
    }
  }
}

/** The toolbar's states as its view shows them: `data-compaction` and `data-connection` of its `part="toolbar"`. */
const STATE_ATTRIBUTES = ["data-compaction", "data-connection"];

/**
 * Mirrors the view's compaction and connection states onto the host, so a page styles them from
 * outside: CSS custom states (`:state(compacting)`, `:state(live)`, …, where the browser has
 * ElementInternals.states) and, everywhere, the host attributes `data-state` (the compaction's:
 * idle, compacting, stalled, completed, fallback, interrupted) and `data-connection` (connecting,
 * live, reconnecting, offline, host). They follow the view in the same task, before it is painted.
 */
class HostStates {
  #host;
  #states;
  #shown = [null, null];

  constructor(host, root) {
    this.#host = host;
    try {
      this.#states = host.attachInternals().states;
    } catch {
      this.#states = null;
    }
    new MutationObserver(() => this.update()).observe(root, { subtree: true, childList: true, attributes: true, attributeFilter: STATE_ATTRIBUTES });
  }

  update() {
    const view = this.#host.shadowRoot?.querySelector('[part~="toolbar"]');
    const next = STATE_ATTRIBUTES.map((name) => view?.getAttribute(name) ?? null);
    next.forEach((state, i) => {
      const before = this.#shown[i];
      if (state === before) return;
      this.#shown[i] = state;
      const attribute = i === 0 ? "data-state" : "data-connection";
      if (state === null) this.#host.removeAttribute(attribute);
      else this.#host.setAttribute(attribute, state);
      try {
        if (before) this.#states?.delete(before);
        if (state) this.#states?.add(state);
      } catch {
        // A browser that takes only `--name` states: the host attributes remain.
      }
    });
  }
}

function defineElements() {
  class CtxguardToolbarElement extends HTMLElement {
    static observedAttributes = ["session", "server", "token", "lang", "source", "compact", "stale-after-ms", "model", "context-window"];
    #controller;
    #draft;
    #states;

    constructor() {
      super();
      const root = this.shadowRoot ?? this.attachShadow({ mode: "open" });
      this.#controller = new ToolbarController(this, root);
      this.#draft = new DraftFeed(this, this.#controller);
      this.#states = new HostStates(this, root);
    }

    connectedCallback() {
      upgradeProperties(this, TOOLBAR_PROPERTIES);
      this.#draft.connected();
      this.#controller.connected();
      this.#states.update();
    }

    disconnectedCallback() {
      this.#draft.disconnected();
      this.#controller.disconnected();
    }

    /**
     * Applies a provider's usage ({model, input_tokens, context_window?, max_output_tokens?}, OpenAI,
     * Anthropic or AI SDK shape), read in the toolbar's worker: resolves to "applied" | "stale",
     * rejects with a TypeError saying what to give.
     */
    setUsage(usage) {
      return this.#draft.usage(usage);
    }

    /** The message being written: counted off the main thread, projected as "after sending". */
    setDraft(text) {
      this.#draft.text = text;
    }

    get draft() {
      return this.#draft.text;
    }

    set draft(text) {
      this.#draft.text = text;
    }

    /** What sending the draft (and the linked preview's files) will do; null when nothing is written. */
    get projection() {
      return this.#draft.projection;
    }

    attributeChangedCallback(name, before, after) {
      if (before === after) return;
      this.#controller.attributeChanged();
      if ((name === "model" || name === "context-window") && after !== null) this.#draft.warm();
    }

    /** Applies one status event; returns "applied" | "stale" | "malformed" | "unknown". */
    pushEvent(event, id) {
      const parts = event !== null && typeof event === "object" ? eventParts(event) : null;
      if (parts === null) return this.#controller.pushEvent(event, id);
      if (parts.long.length === 0) return this.#controller.pushEvent(parts.text, id);
      return this.#controller.pushEventParts(parts.text, parts.long, id);
    }

    /** The turn ended ("done" | "error" | "cancelled" | omitted): a running compaction shows as interrupted. */
    turnEnded(reason) {
      return this.#controller.turnEnded(reason);
    }

    /** source="host": the host's own connection, "live" | "reconnecting" | "offline" (null: "Fed by the page"). */
    setConnection(state) {
      this.#controller.setConnection(state);
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
    static observedAttributes = [
      "model", "limit", "lang", "for", "max-upload-bytes", "max-text-length",
      // The chat input's refusals before upload (Wegent's frontend).
      "max-attachments", "max-reference-images", "max-reference-images-with-video", "max-reference-videos",
      "max-reference-audios", "image-max-size-mb", "video-max-size-mb", "audio-max-size-mb", "video-uploader-max-size-bytes",
    ];
    #controller;
    #onToolbarChange = (event) => {
      const id = this.getAttribute("for");
      if (id && event.target instanceof Element && event.target.id === id) {
        this.#controller.setLinkedBudget(event.detail?.attachment_budget ?? null);
      }
    };

    constructor() {
      super();
      const root = this.shadowRoot ?? this.attachShadow({ mode: "open" });
      const worker = new PreviewWorker();
      this.#controller = new PreviewController(this, root, (files, request, onProgress) => worker.start(files, request, onProgress));
    }

    connectedCallback() {
      upgradeProperties(this, PREVIEW_PROPERTIES);
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

    /** Takes the budget of the toolbar named by `for`, if it is on the page (the one place the link is made). */
    #link() {
      const id = this.getAttribute("for");
      const toolbar = id ? this.ownerDocument.getElementById(id) : null;
      const linked = toolbar && toolbar.localName === TOOLBAR ? toolbar : null;
      this.#controller.setLinkedBudget(linked?.state?.attachment_budget ?? null);
    }

    /** The files the preview lists (picked, dropped or given), in order. */
    get files() {
      return this.#controller.files();
    }

    set files(files) {
      this.previewFiles(files);
    }

    /** Previews `files` (a FileList or File[]) instead of the current ones; resolves to the report (null for none, or when cancelled). */
    previewFiles(files) {
      return this.#controller.previewFiles(Array.from(files ?? []));
    }

    /** Cancels the running preview (its promise resolves to null; no ctxguard-preview follows). */
    cancel() {
      this.#controller.cancel();
    }

    /** The latest report (null before the first). */
    get report() {
      return this.#controller.report();
    }
  }

  reflectProperties(CtxguardToolbarElement, TOOLBAR_PROPERTIES);
  reflectProperties(CtxguardAttachmentPreviewElement, PREVIEW_PROPERTIES);
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
export const ready = !IN_BROWSER
  ? Promise.resolve()
  : (globalThis[LOADING] ??= (
      customElements.get(TOOLBAR) && customElements.get(PREVIEW) ? Promise.resolve() : init().then(defineElements)
    ).then(() => Promise.all([customElements.whenDefined(TOOLBAR), customElements.whenDefined(PREVIEW)])).then(() => {}));
