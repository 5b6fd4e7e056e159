//! Browser tests of the toolbar: events in → DOM out, for every state it can
//! show. Each test mounts into a detached element, acts on the state signal,
//! lets the reactive system run, then reads the DOM.
//!
//! Run: `wasm-pack test --headless --chrome --chromedriver /usr/bin/chromedriver --mode no-install web`
//! (or `tests/web/run.sh`).
#![cfg(target_arch = "wasm32")]

use ctxguard_core::protocol::EVENT_NAME;
use ctxguard_web::attachment_budget::AttachmentBudget;
use ctxguard_web::browser::live::LiveToolbar;
use ctxguard_web::browser::previewer::LocalPreviewer;
use ctxguard_web::browser::sse::use_status_stream;
use ctxguard_web::browser::storage;
use ctxguard_web::components::{
    use_now_ms, AttachmentPanel, SendFile, StatusToolbar, UploadLimits,
};
use ctxguard_web::config::Endpoints;
use ctxguard_web::i18n::{group_thousands, Lang};
use ctxguard_web::machine::state::Toolbar;
use ctxguard_web::saved::{self, SavedToolbar};
use leptos::prelude::*;
use send_wrapper::SendWrapper;
use serde_json::{json, Value};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlElement};

wasm_bindgen_test_configure!(run_in_browser);

const T0: f64 = 1_782_226_534_000.0; // 2026-06-23T14:55:34Z

// ---------- fixtures ----------

fn metrics(used: i64) -> Value {
    let (window, reserved) = (128_000i64, 16_000i64);
    let available = window - reserved;
    json!({
        "context_window": window, "reserved_output_tokens": reserved, "available_input_tokens": available,
        "used_input_tokens": used, "remaining_input_tokens": (available - used).max(0),
        "remaining_percent": (available - used).max(0) * 100 / available,
        "display_remaining_tokens": (window - used).max(0),
        "display_remaining_percent": (window - used).max(0) * 100 / window,
        "trigger_limit": 100_800, "target_limit": 89_600, "is_over_trigger": used >= 100_800
    })
}

fn event(used: i64) -> Value {
    json!({"type": "response.status.updated", "response_id": "resp_1", "phase": "after_tool_end",
           "context_metrics": metrics(used)})
}

fn compaction(status: &str, extra: Value) -> Value {
    let mut c = json!({"type": "summary_compact", "status": status, "before_tokens": 110_000,
        "trigger_limit": 100_800, "target_limit": 89_600, "used_legacy_fallback": false,
        "created_at": "2026-06-23T14:55:34.000000+00:00"});
    for (k, v) in extra.as_object().expect("object") {
        c[k] = v.clone();
    }
    json!({"type": "response.status.updated", "response_id": "resp_1", "phase": "summary_compact",
           "context_metrics": metrics(110_000), "context_compaction": c})
}

// ---------- harness ----------

struct Mounted {
    root: HtmlElement,
    state: RwSignal<Toolbar>,
    now: RwSignal<f64>,
    _handle: Box<dyn std::any::Any>,
}

fn detached() -> HtmlElement {
    document()
        .create_element("div")
        .expect("create div")
        .unchecked_into::<HtmlElement>()
}

fn mount_toolbar_with(toolbar: Toolbar, lang: Lang) -> Mounted {
    let root = detached();
    let state = RwSignal::new(toolbar);
    let now = RwSignal::new(T0);
    let handle = leptos::mount::mount_to(root.clone(), move || {
        view! { <StatusToolbar state=state now_ms=now lang=lang session="demo" /> }
    });
    Mounted {
        root,
        state,
        now,
        _handle: Box::new(handle),
    }
}

fn mount_toolbar() -> Mounted {
    mount_toolbar_with(Toolbar::new(), Lang::En)
}

async fn settle() {
    for _ in 0..3 {
        leptos::task::tick().await;
    }
}

impl Mounted {
    async fn push(&self, id: &str, data: &str) {
        let now = self.now.get_untracked();
        self.state.update(|t| {
            t.apply_event(Some(id), EVENT_NAME, data, now);
        });
        settle().await;
    }

    async fn push_json(&self, id: u64, data: &Value) {
        self.push(&id.to_string(), &data.to_string()).await;
    }

    async fn act(&self, f: impl FnOnce(&mut Toolbar)) {
        self.state.update(f);
        settle().await;
    }

    fn find(&self, testid: &str) -> Option<Element> {
        self.root
            .query_selector(&format!("[data-testid=\"{testid}\"]"))
            .expect("valid selector")
    }

    fn get(&self, testid: &str) -> Element {
        self.find(testid)
            .unwrap_or_else(|| panic!("no [data-testid={testid}] in {}", self.root.inner_html()))
    }

    fn text(&self, testid: &str) -> String {
        self.get(testid).text_content().unwrap_or_default()
    }

    fn attr(&self, testid: &str, name: &str) -> Option<String> {
        self.get(testid).get_attribute(name)
    }

    fn shown(&self) -> String {
        [
            "ctxguard-remaining",
            "ctxguard-usage",
            "ctxguard-compaction",
            "ctxguard-bar",
        ]
        .iter()
        .map(|id| self.get(id).outer_html())
        .collect::<Vec<_>>()
        .join("\n")
            + &self
                .find("ctxguard-over-trigger")
                .map(|e| e.outer_html())
                .unwrap_or_default()
    }
}

// ---------- the toolbar ----------

#[wasm_bindgen_test]
async fn remaining_usage_and_bar() {
    let m = mount_toolbar();
    settle().await;
    assert_eq!(
        m.attr("ctxguard-connection", "data-state").as_deref(),
        Some("connecting")
    );
    assert_eq!(
        m.attr("ctxguard-compaction", "data-state").as_deref(),
        Some("idle")
    );

    m.push_json(1, &event(32_000)).await;
    assert_eq!(m.text("ctxguard-remaining"), "Context 75% left");
    assert_eq!(m.text("ctxguard-usage"), "32,000 / 128,000 tokens");
    assert!(m.find("ctxguard-over-trigger").is_none());
    assert_eq!(m.text("ctxguard-compaction"), "Compacts at 100,800");

    let bar = m.get("ctxguard-bar");
    assert_eq!(bar.get_attribute("role").as_deref(), Some("progressbar"));
    assert_eq!(bar.get_attribute("aria-valuemin").as_deref(), Some("0"));
    assert_eq!(
        bar.get_attribute("aria-valuemax").as_deref(),
        Some("128000")
    );
    assert_eq!(bar.get_attribute("aria-valuenow").as_deref(), Some("32000"));
    assert!(bar.get_attribute("aria-label").is_some());
    let style = |id: &str| m.attr(id, "style").unwrap_or_default();
    assert!(
        style("ctxguard-bar-used").contains("width: 25%"),
        "{}",
        style("ctxguard-bar-used")
    );
    assert!(
        style("ctxguard-trigger-mark").contains("left: 78.75%"),
        "{}",
        style("ctxguard-trigger-mark")
    );
    assert!(
        style("ctxguard-target-mark").contains("left: 70%"),
        "{}",
        style("ctxguard-target-mark")
    );
    assert_eq!(
        m.attr("ctxguard-trigger-mark", "data-tokens").as_deref(),
        Some("100800")
    );
    assert!(m.find("ctxguard-breakdown").is_none());
}

#[wasm_bindgen_test]
async fn remaining_is_clamped() {
    let m = mount_toolbar();
    let mut e = event(1_000);
    e["context_metrics"]["display_remaining_percent"] = json!(250);
    m.push_json(1, &e).await;
    assert_eq!(m.text("ctxguard-remaining"), "Context 100% left");
    e["context_metrics"]["display_remaining_percent"] = json!(0);
    m.push_json(2, &e).await;
    assert_eq!(m.text("ctxguard-remaining"), "Context 0% left");
}

#[wasm_bindgen_test]
async fn over_trigger_badge_comes_and_goes() {
    let m = mount_toolbar();
    m.push_json(1, &event(120_000)).await;
    assert!(m.find("ctxguard-over-trigger").is_some());
    assert_eq!(m.text("ctxguard-remaining"), "Context 6% left");
    assert_eq!(
        m.attr("ctxguard-bar", "data-level").as_deref(),
        Some("over-trigger")
    );
    m.push_json(2, &event(20_000)).await;
    assert!(m.find("ctxguard-over-trigger").is_none());
}

#[wasm_bindgen_test]
async fn compaction_states() {
    let m = mount_toolbar();
    m.push_json(1, &compaction("started", json!({}))).await;
    assert_eq!(
        m.attr("ctxguard-compaction", "data-state").as_deref(),
        Some("compacting")
    );
    m.now.set(T0 + 12_300.0);
    settle().await;
    assert_eq!(m.text("ctxguard-compaction"), "Compacting… 12s");

    m.push_json(2, &compaction("in_progress", json!({}))).await;
    m.now.set(T0 + 75_000.0);
    settle().await;
    assert_eq!(
        m.attr("ctxguard-compaction", "data-state").as_deref(),
        Some("compacting")
    );
    assert_eq!(m.text("ctxguard-compaction"), "Compacting… 1m 15s");

    m.push_json(
        3,
        &compaction(
            "completed",
            json!({"after_tokens": 40_000, "summary_message_id": "m"}),
        ),
    )
    .await;
    assert_eq!(
        m.attr("ctxguard-compaction", "data-state").as_deref(),
        Some("completed")
    );
    let text = m.text("ctxguard-compaction");
    assert!(text.contains("110,000 → 40,000"), "{text}");
    assert!(text.contains("saved 70,000"), "{text}");

    m.push_json(
        4,
        &compaction(
            "fallback",
            json!({"failure_reason": "summary_compact_not_applicable"}),
        ),
    )
    .await;
    assert_eq!(
        m.attr("ctxguard-compaction", "data-state").as_deref(),
        Some("fallback")
    );
    let text = m.text("ctxguard-compaction");
    assert!(text.contains("summary_compact_not_applicable"), "{text}");
}

#[wasm_bindgen_test]
async fn reconnect_that_first_sees_in_progress_shows_compacting() {
    let m = mount_toolbar();
    m.push_json(57, &compaction("in_progress", json!({}))).await;
    m.now.set(T0 + 30_000.0);
    settle().await;
    assert_eq!(
        m.attr("ctxguard-compaction", "data-state").as_deref(),
        Some("compacting")
    );
    assert_eq!(m.text("ctxguard-compaction"), "Compacting… 30s");
    assert_eq!(
        m.attr("ctxguard-toolbar", "data-compaction").as_deref(),
        Some("compacting")
    );
}

#[wasm_bindgen_test]
async fn event_strings_render_as_text_never_html() {
    let m = mount_toolbar();
    let evil = "<img src=x onerror=\"window.__pwned=1\"><b>bold</b>";
    m.push_json(1, &compaction("fallback", json!({"failure_reason": evil})))
        .await;
    let chip = m.get("ctxguard-compaction");
    assert!(chip.text_content().unwrap_or_default().contains(evil));
    assert!(chip.query_selector("img").expect("selector").is_none());
    assert!(chip.query_selector("b").expect("selector").is_none());
    assert!(m.root.query_selector("img").expect("selector").is_none());
}

#[wasm_bindgen_test]
async fn malformed_and_unknown_events_change_nothing() {
    let m = mount_toolbar();
    m.push_json(1, &compaction("started", json!({}))).await;
    let before = m.shown();
    m.push("2", "{ nope").await;
    m.push("3", "<script>alert(1)</script>").await;
    m.push("", &event(5).to_string()).await;
    m.push(
        "4",
        &json!({"type": "response.status.updated", "phase": "final"}).to_string(),
    )
    .await;
    let mut bad_phase = event(5);
    bad_phase["phase"] = json!(5);
    m.push_json(5, &bad_phase).await;
    m.act(|t| {
        t.apply_event(Some("6"), "message", &event(5).to_string(), T0);
    })
    .await;
    assert_eq!(m.shown(), before);
    assert_eq!(
        m.attr("ctxguard-ignored", "data-count").as_deref(),
        Some("6")
    );
    // Still applies the next good event.
    m.push_json(2, &event(5_000)).await;
    assert_eq!(m.text("ctxguard-usage"), "5,000 / 128,000 tokens");
}

#[wasm_bindgen_test]
async fn older_ids_are_ignored() {
    let m = mount_toolbar();
    m.push_json(10, &event(50_000)).await;
    m.push_json(9, &event(120_000)).await;
    m.push_json(10, &event(120_000)).await;
    assert_eq!(m.text("ctxguard-usage"), "50,000 / 128,000 tokens");
    assert!(m.find("ctxguard-over-trigger").is_none());
    assert!(
        m.find("ctxguard-ignored").is_none(),
        "stale events are normal, not flagged"
    );
    assert_eq!(
        m.attr("ctxguard-toolbar", "data-last-event-id").as_deref(),
        Some("10")
    );
}

#[wasm_bindgen_test]
async fn connection_states_and_restored_flag() {
    let mut live = Toolbar::new();
    live.apply_event(Some("7"), EVENT_NAME, &event(64_000).to_string(), T0);
    let saved = live.saved().expect("state to save");

    let m = mount_toolbar_with(Toolbar::restored_from(Some(saved.clone()), T0), Lang::En);
    settle().await;
    assert_eq!(
        m.attr("ctxguard-connection", "data-restored").as_deref(),
        Some("true")
    );
    assert_eq!(
        m.attr("ctxguard-connection", "data-state").as_deref(),
        Some("connecting")
    );
    assert_eq!(m.text("ctxguard-remaining"), "Context 50% left");

    m.act(Toolbar::connection_lost).await;
    assert_eq!(
        m.attr("ctxguard-connection", "data-state").as_deref(),
        Some("reconnecting")
    );
    assert_eq!(
        m.attr("ctxguard-connection", "data-restored").as_deref(),
        Some("true")
    );

    let mut confirmed = saved.state;
    confirmed.event_id = 8;
    confirmed.context_metrics = serde_json::from_value(metrics(70_400)).ok();
    m.act(|t| t.apply_context(confirmed, T0)).await;
    m.act(Toolbar::stream_opened).await;
    assert_eq!(
        m.attr("ctxguard-connection", "data-state").as_deref(),
        Some("live")
    );
    assert_eq!(m.attr("ctxguard-connection", "data-restored"), None);
    assert_eq!(m.text("ctxguard-remaining"), "Context 45% left");

    m.act(Toolbar::connection_lost).await;
    assert_eq!(
        m.attr("ctxguard-connection", "data-state").as_deref(),
        Some("reconnecting")
    );
    m.act(|t| t.set_browser_offline(true)).await;
    assert_eq!(
        m.attr("ctxguard-connection", "data-state").as_deref(),
        Some("offline")
    );
    m.act(|t| t.set_browser_offline(false)).await;
    m.act(Toolbar::stream_opened).await;
    assert_eq!(
        m.attr("ctxguard-connection", "data-state").as_deref(),
        Some("live")
    );
    m.act(Toolbar::session_not_found).await;
    assert_eq!(
        m.attr("ctxguard-connection", "data-state").as_deref(),
        Some("offline")
    );
    assert!(m.text("ctxguard-connection").contains("Unknown session"));
}

#[wasm_bindgen_test]
async fn breakdown_when_events_carry_it() {
    let m = mount_toolbar();
    let mut e = event(12_800);
    e["context_metrics"]["breakdown"] = json!({"system": 1_280, "user": 2_560, "assistant": 3_840,
        "tool_outputs": 2_560, "attachments": 0, "overhead": 2_560});
    m.push_json(1, &e).await;
    let legend = m.get("ctxguard-breakdown");
    let items = legend
        .query_selector_all("[data-source]")
        .expect("selector");
    assert_eq!(items.length(), 6);
    let tool = legend
        .query_selector("[data-source=\"tool_outputs\"]")
        .expect("selector")
        .expect("tool outputs item");
    assert!(tool.text_content().unwrap_or_default().contains("2,560"));
    let segs = m
        .get("ctxguard-bar-used")
        .query_selector_all(".bar-seg")
        .expect("selector");
    assert_eq!(segs.length(), 5, "zero-token sources get no segment");
    // Without a breakdown the legend goes away.
    m.push_json(2, &event(12_800)).await;
    assert!(m.find("ctxguard-breakdown").is_none());
}

#[wasm_bindgen_test]
async fn simplified_chinese() {
    let m = mount_toolbar_with(Toolbar::new(), Lang::ZhCn);
    m.push_json(1, &event(120_000)).await;
    assert_eq!(m.text("ctxguard-remaining"), "上下文剩余 6%");
    assert_eq!(m.text("ctxguard-usage"), "120,000 / 128,000 tokens");
    assert!(m.text("ctxguard-over-trigger").contains("压缩阈值"));
    m.push_json(2, &compaction("in_progress", json!({}))).await;
    assert!(m.text("ctxguard-compaction").starts_with("正在压缩"));
    m.act(Toolbar::stream_opened).await;
    assert_eq!(m.text("ctxguard-connection"), "实时");
}

// ---------- history, forecast, compact ----------

#[wasm_bindgen_test]
async fn history_opens_from_the_count_newest_first() {
    let m = mount_toolbar();
    m.push_json(1, &compaction("started", json!({}))).await;
    assert!(m.find("ctxguard-compaction-count").is_none());
    m.now.set(T0 + 42_000.0);
    m.push_json(2, &compaction("completed", json!({"after_tokens": 40_000})))
        .await;
    let mut fell = compaction("fallback", json!({"failure_reason": "<i>x</i>"}));
    fell["context_compaction"]["created_at"] = json!("2026-06-23T15:10:00Z");
    m.push_json(3, &fell).await;
    assert_eq!(
        m.attr("ctxguard-compaction-count", "data-count").as_deref(),
        Some("2")
    );
    assert!(m.find("ctxguard-history").is_none());
    m.get("ctxguard-compaction-count")
        .unchecked_into::<HtmlElement>()
        .click();
    settle().await;
    let items = m
        .get("ctxguard-history")
        .query_selector_all("[data-testid=\"ctxguard-history-item\"]")
        .expect("selector");
    assert_eq!(items.length(), 2);
    let item = |i: u32| items.item(i).expect("item").unchecked_into::<Element>();
    assert_eq!(
        item(0).get_attribute("data-status").as_deref(),
        Some("fallback")
    );
    assert!(item(0)
        .text_content()
        .unwrap_or_default()
        .contains("<i>x</i>"));
    assert!(item(0).query_selector("i").expect("selector").is_none());
    assert_eq!(
        item(1).get_attribute("data-status").as_deref(),
        Some("completed")
    );
    let done = item(1).text_content().unwrap_or_default();
    assert!(
        done.contains("110,000 → 40,000") && done.contains("ran 42s"),
        "{done}"
    );
}

#[wasm_bindgen_test]
async fn forecast_appears_after_two_turn_differences() {
    let m = mount_toolbar();
    let turn = |used: i64| {
        let mut e = event(used);
        e["phase"] = json!("build_messages");
        e
    };
    m.push_json(1, &turn(60_000)).await;
    m.push_json(2, &turn(70_000)).await;
    assert!(m.find("ctxguard-forecast").is_none());
    m.push_json(3, &turn(80_000)).await;
    assert_eq!(
        m.attr("ctxguard-forecast", "data-turns").as_deref(),
        Some("3")
    );
    assert_eq!(m.text("ctxguard-forecast"), "≈ 3 turns until compaction");
    m.push_json(4, &event(100_700)).await;
    assert_eq!(m.text("ctxguard-forecast"), "≈ 1 turn until compaction");
    // At the trigger the over-trigger chip says it; the forecast steps aside.
    m.push_json(5, &event(100_800)).await;
    assert!(m.find("ctxguard-over-trigger").is_some());
    assert!(m.find("ctxguard-forecast").is_none());
}

#[wasm_bindgen_test]
async fn compact_has_no_legend_or_scale() {
    let root = detached();
    let state = RwSignal::new(Toolbar::new());
    let _handle = leptos::mount::mount_to(root.clone(), move || {
        view! { <StatusToolbar state=state now_ms=Signal::derive(|| T0) lang=Lang::En compact=true /> }
    });
    let mut e = event(12_800);
    e["context_metrics"]["breakdown"] = json!({"system": 1_280, "user": 2_560, "assistant": 3_840,
        "tool_outputs": 2_560, "attachments": 0, "overhead": 2_560});
    state.update(|t| {
        t.apply_event(Some("1"), EVENT_NAME, &e.to_string(), T0);
    });
    settle().await;
    let q = |sel: &str| root.query_selector(sel).expect("selector");
    assert!(q("[data-testid=\"ctxguard-bar\"]").is_some());
    assert!(q("[data-testid=\"ctxguard-breakdown\"]").is_none());
    assert!(q(".bar-scale").is_none());
    assert!(q(".toolbar.is-compact").is_some());
}

// ---------- storage and a Rust host ----------

fn saved_state(used: i64, id: u64) -> SavedToolbar {
    let mut t = Toolbar::new();
    t.apply_event(
        Some(&id.to_string()),
        EVENT_NAME,
        &event(used).to_string(),
        T0,
    );
    t.saved().expect("state to save")
}

fn local_storage() -> web_sys::Storage {
    window()
        .local_storage()
        .expect("storage")
        .expect("storage present")
}

/// The Rust host of the crate docs: the components a Leptos app mounts.
#[component]
fn ChatStatus(session: String) -> impl IntoView {
    let live = LiveToolbar::restore(&session);
    let endpoints = Endpoints {
        server: String::new(),
        session: session.clone(),
        token: None,
    };
    use_status_stream(endpoints, live.clone());
    let state = live.state();
    let budget = Signal::derive(move || state.with(|t| t.attachment_budget()));
    view! {
        <StatusToolbar state=state now_ms=use_now_ms(1_000) lang=Lang::En session=session />
        <AttachmentPanel budget=budget limits=LIMITS lang=Lang::En previewer=Rc::new(LocalPreviewer) />
    }
}

/// The backend's defaults.
const LIMITS: UploadLimits = UploadLimits {
    max_text_length: 500_000,
    max_upload_bytes: 100 << 20,
};

/// Storage and the Rust host share `localStorage` (and one test replaces it with a throwing
/// one), so they run in one test, in order: async tests otherwise interleave at every await.
#[wasm_bindgen_test]
async fn storage_and_rust_host_restore() {
    storage_round_trip_and_corruption();
    host_renders_saved_state_at_once_marked_restored().await;
    host_survives_corrupt_and_throwing_storage().await;
}

fn storage_round_trip_and_corruption() {
    let s = saved_state(1_000, 3);
    assert!(storage::save("t-storage", &s));
    assert_eq!(storage::load("t-storage"), Some(s));
    let raw = local_storage()
        .get_item(&saved::storage_key("t-storage"))
        .expect("get")
        .expect("saved");
    assert!(raw.contains("\"version\":2"));
    local_storage()
        .set_item(&saved::storage_key("t-storage"), "{{{ corrupt")
        .expect("set");
    assert_eq!(storage::load("t-storage"), None);
    storage::clear("t-storage");
    assert_eq!(storage::load("t-storage"), None);
    assert_eq!(storage::load("never-saved"), None);
}

async fn host_renders_saved_state_at_once_marked_restored() {
    // The test server has no /api, so the server never confirms: the toolbar stays restored.
    local_storage()
        .set_item(
            &saved::storage_key("t-host"),
            &saved::encode("t-host", &saved_state(96_000, 41), T0),
        )
        .expect("set");
    let root = detached();
    let handle = leptos::mount::mount_to(root.clone(), || {
        view! { <ChatStatus session="t-host".to_string() /> }
    });
    let q = |id: &str| {
        root.query_selector(&format!("[data-testid=\"{id}\"]"))
            .expect("selector")
            .unwrap_or_else(|| panic!("no {id}"))
    };
    assert_eq!(
        q("ctxguard-remaining").text_content().as_deref(),
        Some("Context 25% left")
    );
    assert_eq!(
        q("ctxguard-usage").text_content().as_deref(),
        Some("96,000 / 128,000 tokens")
    );
    assert_eq!(
        q("ctxguard-connection")
            .get_attribute("data-restored")
            .as_deref(),
        Some("true")
    );
    assert!(q("ctxguard-attachments")
        .text_content()
        .unwrap_or_default()
        .contains("15,000"));
    // Give the /context fetch time to fail: still restored, state not lost, nothing thrown.
    sleep_ms(300).await;
    assert_eq!(
        q("ctxguard-connection")
            .get_attribute("data-restored")
            .as_deref(),
        Some("true")
    );
    assert_ne!(
        q("ctxguard-connection")
            .get_attribute("data-state")
            .as_deref(),
        Some("live")
    );
    assert_eq!(
        q("ctxguard-remaining").text_content().as_deref(),
        Some("Context 25% left")
    );
    drop(handle);
    storage::clear("t-host");
}

async fn host_survives_corrupt_and_throwing_storage() {
    local_storage()
        .set_item(&saved::storage_key("t-host"), "\u{0}garbage")
        .expect("set");
    let root = detached();
    let handle = leptos::mount::mount_to(root.clone(), || {
        view! { <ChatStatus session="t-host".to_string() /> }
    });
    settle().await;
    let remaining = root
        .query_selector("[data-testid=\"ctxguard-remaining\"]")
        .expect("selector")
        .expect("remaining");
    assert_eq!(remaining.text_content().as_deref(), Some("Context –% left"));
    drop(handle);
    storage::clear("t-host");

    // Storage that throws on every access.
    js_sys::eval(
        "Object.defineProperty(window, 'localStorage', { configurable: true, get() { throw new Error('denied'); } })",
    )
    .expect("install throwing storage");
    assert!(!storage::save("t-host", &saved_state(1, 1)));
    assert_eq!(storage::load("t-host"), None);
    let root = detached();
    let handle = leptos::mount::mount_to(root.clone(), || {
        view! { <ChatStatus session="t-host".to_string() /> }
    });
    settle().await;
    assert!(root
        .query_selector("[data-testid=\"ctxguard-toolbar\"]")
        .expect("selector")
        .is_some());
    drop(handle);
    js_sys::eval("delete window.localStorage").expect("restore storage");
}

// ---------- attachment preview ----------

async fn sleep_ms(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        window()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms)
            .expect("timeout");
    });
    wasm_bindgen_futures::JsFuture::from(promise)
        .await
        .expect("sleep");
}

fn browser_file(name: &str, bytes: &[u8], mime: &str) -> web_sys::File {
    let parts = js_sys::Array::new();
    parts.push(&js_sys::Uint8Array::from(bytes));
    let options = web_sys::FilePropertyBag::new();
    options.set_type(mime);
    web_sys::File::new_with_u8_array_sequence_and_options(&parts, name, &options).expect("file")
}

/// Waits (up to 5 s) until `root` holds `n` rows.
async fn rows_in(root: &HtmlElement, n: u32) -> web_sys::NodeList {
    for _ in 0..500 {
        let rows = root
            .query_selector_all("[data-testid=\"ctxguard-attachment-row\"]")
            .expect("selector");
        if rows.length() == n {
            return rows;
        }
        sleep_ms(10).await;
    }
    panic!("no {n} rows in {}", root.inner_html());
}

/// A valid 1×1 PNG.
const PNG_1X1: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0xf0,
    0x1f, 0x00, 0x05, 0x00, 0x01, 0xff, 0x89, 0x99, 0x3d, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

#[wasm_bindgen_test]
async fn attachment_rows_and_rendered_preview() {
    let root = detached();
    let files = RwSignal::new(Vec::<SendFile>::new());
    let budget = RwSignal::new(AttachmentBudget {
        model: "gpt-4o".into(),
        limit_tokens: 400,
    });
    let _handle = leptos::mount::mount_to(root.clone(), move || {
        view! { <AttachmentPanel budget=budget limits=LIMITS lang=Lang::En files=files previewer=Rc::new(LocalPreviewer) /> }
    });
    settle().await;
    assert!(root
        .query_selector("[data-testid=\"ctxguard-attachment-row\"]")
        .expect("selector")
        .is_none());
    assert!(root
        .query_selector("input[type=file]")
        .expect("selector")
        .is_some());

    let big = "The quick brown fox jumps over the lazy dog. ".repeat(200);
    let picked = [
        ("short.txt", b"hello world".to_vec(), "text/plain"),
        ("long.log", big.clone().into_bytes(), "text/plain"),
        (
            "<img src=x onerror=alert(1)>.png",
            PNG_1X1.to_vec(),
            "image/png",
        ),
        (
            "old.doc",
            vec![0xd0, 0xcf, 0x11, 0xe0],
            "application/msword",
        ),
    ];
    files.set(
        picked
            .iter()
            .map(|(name, bytes, mime)| SendWrapper::new(browser_file(name, bytes, mime)))
            .collect(),
    );
    let rows = rows_in(&root, 4).await;
    let row = |i: u32| rows.item(i).expect("row").unchecked_into::<Element>();
    let field = |i: u32, f: &str| {
        row(i)
            .query_selector(&format!("[data-field=\"{f}\"]"))
            .expect("selector")
            .and_then(|e| e.text_content())
            .unwrap_or_default()
    };
    let states: Vec<String> = (0..4)
        .map(|i| row(i).get_attribute("data-state").unwrap_or_default())
        .collect();
    assert_eq!(states, ["fits", "cut", "image", "rejected"]);
    // The DOM shows what core computes for the same uploads and budget.
    let mut session = ctxguard_preview_engine::Session::new();
    for (name, bytes, _) in &picked {
        assert!(session.add(
            name,
            &bytes.as_slice(),
            LIMITS.max_upload_bytes,
            LIMITS.max_text_length
        ));
    }
    let expected = session.report(&ctxguard_core::attachment::PreviewOptions {
        model: "gpt-4o".into(),
        limit_tokens: 400,
        ..Default::default()
    });
    for (i, r) in expected.attachments.iter().take(2).enumerate() {
        assert_eq!(field(i as u32, "tokens"), group_thousands(r.tokens));
        assert_eq!(field(i as u32, "allocation"), group_thousands(r.allocation));
    }
    assert!(expected.attachments[1].tokens > 400 && expected.attachments[1].truncated);
    assert_eq!(field(2, "tokens"), "—");
    assert!(row(1)
        .text_content()
        .unwrap_or_default()
        .contains("will be cut"));
    assert!(row(2)
        .text_content()
        .unwrap_or_default()
        .contains("<img src=x onerror=alert(1)>.png"));
    let refused = row(3).text_content().unwrap_or_default();
    assert!(refused.contains("Outdated file format"), "{refused}");
    assert!(
        refused.contains("Please save the .doc file as .docx format and upload again"),
        "{refused}"
    );
    assert!(
        root.query_selector("img").expect("selector").is_none(),
        "file names are text"
    );

    let rendered = root
        .query_selector("[data-testid=\"ctxguard-rendered\"]")
        .expect("selector")
        .expect("rendered preview");
    assert_eq!(rendered.tag_name().to_lowercase(), "details");
    let pre = rendered.text_content().unwrap_or_default();
    assert!(pre.contains("[Attachment 1]\n"), "{pre}");
    assert!(
        pre.contains("[Attachment: short.txt | ID: 1 | Type: text/plain"),
        "{pre}"
    );
    assert!(pre.contains("Truncated: yes"));
    assert!(pre.contains("[Image Attachment: <img src=x onerror=alert(1)>.png | ID: 3"));

    // Removing a row previews the rest again.
    row(3)
        .query_selector("[data-testid=\"ctxguard-attachment-remove\"]")
        .expect("selector")
        .expect("a remove button")
        .unchecked_into::<HtmlElement>()
        .click();
    rows_in(&root, 3).await;
    assert_eq!(files.with_untracked(Vec::len), 3);

    // A bigger budget: nothing is cut any more.
    budget.set(AttachmentBudget {
        model: "gpt-4o".into(),
        limit_tokens: 15_000,
    });
    for _ in 0..500 {
        let cut = root
            .query_selector_all("[data-testid=\"ctxguard-attachment-row\"][data-state=\"cut\"]")
            .expect("selector");
        let rows = root
            .query_selector_all("[data-testid=\"ctxguard-attachment-row\"]")
            .expect("selector");
        if cut.length() == 0 && rows.length() == 3 {
            return;
        }
        sleep_ms(10).await;
    }
    panic!("still cut under 15,000 tokens");
}

// ---------- a real Wegent-style host ----------

#[wasm_bindgen_test]
async fn a_late_heartbeat_does_not_reopen_an_ended_compaction() {
    let m = mount_toolbar();
    m.push_json(1, &compaction("started", json!({}))).await;
    m.push_json(2, &compaction("completed", json!({"after_tokens": 40_000})))
        .await;
    m.push_json(3, &compaction("in_progress", json!({}))).await;
    assert_eq!(
        m.attr("ctxguard-compaction", "data-state").as_deref(),
        Some("completed")
    );
    assert!(!m.text("ctxguard-compaction").contains("Compacting"));
    assert_eq!(
        m.attr("ctxguard-compaction-count", "data-count").as_deref(),
        Some("1")
    );
}

#[wasm_bindgen_test]
async fn interrupted_and_stalled_compactions_say_so() {
    use ctxguard_web::machine::turn_end::TurnEnd;
    for (lang, text) in [
        (Lang::En, "Compaction interrupted · turn cancelled"),
        (Lang::ZhCn, "压缩已中断（对话已取消）"),
    ] {
        let m = mount_toolbar_with(Toolbar::new(), lang);
        m.push_json(1, &compaction("in_progress", json!({}))).await;
        m.act(|t| {
            t.turn_ended(Some(TurnEnd::Cancelled));
        })
        .await;
        assert_eq!(
            m.attr("ctxguard-compaction", "data-state").as_deref(),
            Some("interrupted")
        );
        assert_eq!(m.text("ctxguard-compaction"), text);
        assert!(
            m.find("ctxguard-compaction-count").is_none(),
            "not in the history"
        );
    }
    let m = mount_toolbar();
    m.act(|t| t.watch_stalls(Some(120_000.0))).await;
    m.push_json(1, &compaction("started", json!({}))).await;
    m.now.set(T0 + 125_000.0);
    settle().await;
    assert_eq!(
        m.attr("ctxguard-compaction", "data-state").as_deref(),
        Some("stalled")
    );
    assert_eq!(
        m.text("ctxguard-compaction"),
        "Compaction stalled? · no news for 2m 05s"
    );
    m.push_json(2, &compaction("in_progress", json!({}))).await;
    assert_eq!(
        m.attr("ctxguard-compaction", "data-state").as_deref(),
        Some("compacting")
    );
}

#[wasm_bindgen_test]
async fn an_unknown_phase_updates_the_numbers() {
    let m = mount_toolbar();
    m.push_json(1, &event(20_000)).await;
    let mut cold = event(64_000);
    cold["phase"] = json!("persisted");
    m.push_json(2, &cold).await;
    assert_eq!(m.text("ctxguard-usage"), "64,000 / 128,000 tokens");
    assert!(m.find("ctxguard-ignored").is_none());
}

#[wasm_bindgen_test]
async fn over_the_window_the_bar_is_full_and_says_so() {
    let m = mount_toolbar();
    m.push_json(1, &event(90_000)).await;
    let mut over = event(140_000);
    over["context_metrics"]["display_remaining_percent"] = json!(-9);
    over["context_metrics"]["display_remaining_tokens"] = json!(-12_000);
    m.push_json(2, &over).await;
    assert_eq!(m.text("ctxguard-remaining"), "Context window exceeded");
    assert_eq!(m.text("ctxguard-usage"), "140,000 / 128,000 tokens");
    assert_eq!(
        m.attr("ctxguard-toolbar", "data-exceeded").as_deref(),
        Some("true")
    );
    let width = m.attr("ctxguard-bar-used", "style").unwrap_or_default();
    assert!(width.contains("width: 100%"), "{width}");
}

#[wasm_bindgen_test]
async fn a_compaction_is_the_one_signal_of_itself() {
    let m = mount_toolbar();
    for (id, used) in [(1, 70_000), (2, 80_000), (3, 90_000)] {
        let mut e = event(used);
        e["phase"] = json!("build_messages");
        m.push_json(id, &e).await;
    }
    assert!(m.find("ctxguard-forecast").is_some());
    m.push_json(4, &event(101_000)).await;
    assert!(m.find("ctxguard-over-trigger").is_some());
    assert!(
        m.find("ctxguard-forecast").is_none(),
        "over the trigger, one chip says compaction is due"
    );
    m.push_json(5, &compaction("started", json!({}))).await;
    assert!(m.find("ctxguard-over-trigger").is_none());
    assert!(m.find("ctxguard-forecast").is_none());
    assert!(m.text("ctxguard-compaction").starts_with("Compacting…"));
}

#[wasm_bindgen_test]
async fn a_10_mb_reason_is_laid_out_cut() {
    let m = mount_toolbar();
    let reason = "r".repeat(10 << 20);
    m.push_json(
        1,
        &compaction("fallback", json!({"failure_reason": reason})),
    )
    .await;
    let chip = m.get("ctxguard-compaction");
    let shown = chip.text_content().unwrap_or_default();
    assert!(
        shown.chars().count() < 1_100,
        "{} characters laid out",
        shown.len()
    );
    assert!(shown.ends_with('…'));
    assert_eq!(
        chip.get_attribute("title").map(|t| t.len()),
        Some(10 << 20),
        "the whole text in the title"
    );
    m.get("ctxguard-compaction-count")
        .unchecked_into::<HtmlElement>()
        .click();
    settle().await;
    let item = m.text("ctxguard-history-item");
    assert!(
        item.chars().count() < 1_200,
        "{} characters in the history",
        item.len()
    );
}

/// A `<div>` in the document with an open shadow root, driven by the element's controller.
fn element_with(
    attrs: &[(&str, &str)],
) -> (HtmlElement, ctxguard_web::elements::ToolbarController) {
    let host = detached();
    for (k, v) in attrs {
        host.set_attribute(k, v).expect("attribute");
    }
    document()
        .body()
        .expect("body")
        .append_child(&host)
        .expect("append");
    let root = host
        .attach_shadow(&web_sys::ShadowRootInit::new(web_sys::ShadowRootMode::Open))
        .expect("shadow root");
    let controller =
        ctxguard_web::elements::ToolbarController::new(host.clone(), root).expect("controller");
    controller.connected();
    (host, controller)
}

/// Runs the microtasks queued so far (and those they queue), never a task: a timeout set
/// before has not fired when it returns.
async fn drain_microtasks() {
    for _ in 0..20 {
        wasm_bindgen_futures::JsFuture::from(js_sys::Promise::resolve(
            &wasm_bindgen::JsValue::NULL,
        ))
        .await
        .expect("resolved");
    }
}

/// A flag a zero timeout sets: `true` once the next task has run.
fn next_task_flag() -> Rc<std::cell::Cell<bool>> {
    let flag = Rc::new(std::cell::Cell::new(false));
    let set = flag.clone();
    let cb = wasm_bindgen::closure::Closure::once_into_js(move || set.set(true));
    window()
        .set_timeout_with_callback_and_timeout_and_arguments_0(cb.unchecked_ref(), 0)
        .expect("timeout");
    flag
}

fn shadow_testid(host: &HtmlElement, testid: &str) -> Element {
    host.shadow_root()
        .expect("open")
        .query_selector(&format!("[data-testid=\"{testid}\"]"))
        .expect("selector")
        .unwrap_or_else(|| panic!("no {testid}"))
}

#[wasm_bindgen_test]
async fn the_element_says_why_ends_turns_and_renders_in_the_same_task() {
    use wasm_bindgen::closure::Closure;
    let session = format!("dom-host-{}", js_sys::Math::random());
    let (host, toolbar) = element_with(&[("source", "host"), ("session", &session)]);
    let seen = Rc::new(std::cell::RefCell::new(Vec::<String>::new()));
    let log = seen.clone();
    let listener = Closure::<dyn Fn(web_sys::CustomEvent)>::new(move |e: web_sys::CustomEvent| {
        let detail = js_sys::JSON::stringify(&e.detail()).expect("json");
        log.borrow_mut().push(format!(
            "{}:{}",
            e.bubbles() && e.composed(),
            String::from(detail)
        ));
    });
    host.add_event_listener_with_callback("ctxguard-ignored", listener.as_ref().unchecked_ref())
        .expect("listen");

    // 9: the shadow DOM shows an event in the task pushEvent ran in, once its microtasks ran.
    let next_task = next_task_flag();
    let out = toolbar.push_event(
        wasm_bindgen::JsValue::from_str(&event(42_000).to_string()),
        wasm_bindgen::JsValue::UNDEFINED,
    );
    assert_eq!(out, "applied");
    drain_microtasks().await;
    assert!(!next_task.get(), "the microtasks ran within the task");
    assert_eq!(
        shadow_testid(&host, "ctxguard-usage")
            .text_content()
            .as_deref(),
        Some("42,000 / 128,000 tokens")
    );

    // 5: every ignored event is reported with its field and reason.
    let mut bad = event(1);
    bad["context_metrics"]["used_input_tokens"] = json!("lots");
    assert_eq!(
        toolbar.push_event(bad.to_string().into(), wasm_bindgen::JsValue::UNDEFINED),
        "malformed"
    );
    assert_eq!(
        toolbar.push_event(event(1).to_string().into(), 1.into()),
        "stale"
    );
    let mut other = event(1);
    other["type"] = json!("chat:message");
    assert_eq!(
        toolbar.push_event(other.to_string().into(), wasm_bindgen::JsValue::UNDEFINED),
        "unknown"
    );
    let seen_now: Vec<Value> = seen
        .borrow()
        .iter()
        .map(|s| {
            let (flags, json) = s.split_once(':').expect("flags");
            assert_eq!(flags, "true", "bubbling and composed");
            serde_json::from_str(json).expect("detail")
        })
        .collect();
    assert_eq!(seen_now.len(), 3, "{seen_now:?}");
    assert_eq!(seen_now[0]["outcome"], "malformed");
    assert_eq!(seen_now[0]["field"], "context_metrics.used_input_tokens");
    assert_eq!(seen_now[1]["outcome"], "stale");
    assert_eq!(seen_now[1]["field"], "id");
    assert_eq!(seen_now[2]["outcome"], "unknown");
    assert!(seen_now
        .iter()
        .all(|d| d["reason"].as_str().is_some_and(|r| !r.is_empty())));

    // 2: turnEnded interrupts a running compaction.
    toolbar.push_event(
        compaction("in_progress", json!({})).to_string().into(),
        wasm_bindgen::JsValue::UNDEFINED,
    );
    assert_eq!(toolbar.turn_ended("cancelled".into()).ok(), Some(true));
    drain_microtasks().await;
    assert_eq!(
        shadow_testid(&host, "ctxguard-compaction")
            .get_attribute("data-state")
            .as_deref(),
        Some("interrupted")
    );
    assert!(toolbar.turn_ended("later".into()).is_err());

    // 6: the host's socket state where "Fed by the page" was.
    let connection = || shadow_testid(&host, "ctxguard-connection");
    assert_eq!(
        connection().get_attribute("data-state").as_deref(),
        Some("host")
    );
    assert_eq!(
        connection().text_content().as_deref(),
        Some("Fed by the page")
    );
    toolbar
        .set_connection("reconnecting".into())
        .expect("a host state");
    drain_microtasks().await;
    assert_eq!(
        connection().get_attribute("data-state").as_deref(),
        Some("reconnecting")
    );
    toolbar
        .set_connection("offline".into())
        .expect("a host state");
    drain_microtasks().await;
    assert_eq!(connection().text_content().as_deref(), Some("Offline"));
    assert!(toolbar.set_connection("sideways".into()).is_err());
    toolbar
        .set_connection(wasm_bindgen::JsValue::NULL)
        .expect("back to the default");
    drain_microtasks().await;
    assert_eq!(
        connection().get_attribute("data-state").as_deref(),
        Some("host")
    );

    toolbar.disconnected();
    host.remove();
    storage::clear(&session);
    drop(listener);
    let (sse_host, sse) = element_with(&[("session", "dom-sse"), ("server", "http://127.0.0.1:9")]);
    assert!(
        sse.set_connection("live".into()).is_err(),
        "for source=host only"
    );
    sse.disconnected();
    sse_host.remove();
}
