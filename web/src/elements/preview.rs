//! `<ctxguard-attachment-preview>`'s controller: reads `model`, `limit`,
//! `lang`, `max-upload-bytes`, `max-text-length`, the chat input's limits
//! (`max-attachments` and its siblings, see [`PreviewConfig`]) (and takes the budget of the
//! toolbar named by `for` when the entry script relays it), mounts
//! [`AttachmentPanel`] with a [`WorkerPreviewer`] (the package's worker, which
//! loads the parsers and the tokenizer the first time files are given), and
//! reports every preview as `ctxguard-preview` and its progress as
//! `ctxguard-preview-progress`.

use super::dom;
use crate::attachment_budget::AttachmentBudget;
use crate::browser::previewer::{Previewer, Report, WorkerPreviewer};
use crate::components::{AttachmentPanel, FileList, UploadLimits};
use crate::config::PreviewConfig;
use leptos::prelude::*;
use send_wrapper::SendWrapper;
use std::any::Any;
use std::cell::RefCell;
use std::rc::{Rc, Weak};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{HtmlElement, ShadowRoot};

/// css/base.css and css/preview.css, minified by build.rs.
const CSS: &str = include_str!(concat!(env!("OUT_DIR"), "/preview.css"));

/// The Rust half of one `<ctxguard-attachment-preview>`.
#[wasm_bindgen]
pub struct PreviewController {
    inner: Rc<Inner>,
}

struct Inner {
    host: HtmlElement,
    mount_point: HtmlElement,
    owner: Owner,
    config: RwSignal<PreviewConfig>,
    linked: RwSignal<Option<AttachmentBudget>>,
    files: FileList,
    /// Bumped by `cancel()`: the panel stops its running preview.
    cancels: RwSignal<u64>,
    previewer: Rc<dyn Previewer>,
    view: RefCell<Option<Box<dyn Any>>>,
    report: RefCell<Option<String>>,
    /// `resolve` functions of `previewFiles` promises waiting for the next preview.
    waiting: RefCell<Vec<js_sys::Function>>,
}

#[wasm_bindgen]
impl PreviewController {
    /// The controller of `host`, rendering into `root`; `start(files, requestJson, onProgress)`
    /// runs a preview in the package's worker and returns `{promise, cancel}`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        host: HtmlElement,
        root: ShadowRoot,
        start: js_sys::Function,
    ) -> Result<PreviewController, JsValue> {
        let mount_point = dom::prepare_shadow(&root, CSS)?;
        let owner = Owner::new();
        let (config, linked, files, cancels) = owner.with(|| {
            (
                RwSignal::new(read_config(&host)),
                RwSignal::new(None),
                RwSignal::new(Vec::new()),
                RwSignal::new(0),
            )
        });
        Ok(PreviewController {
            inner: Rc::new(Inner {
                host,
                mount_point,
                owner,
                config,
                linked,
                files,
                cancels,
                previewer: Rc::new(WorkerPreviewer::new(start)),
                view: RefCell::new(None),
                report: RefCell::new(None),
                waiting: RefCell::new(Vec::new()),
            }),
        })
    }

    /// The element was inserted: render.
    pub fn connected(&self) {
        self.inner.mount_view();
    }

    /// The element was removed: unmount, which cancels a running preview (the files are kept).
    pub fn disconnected(&self) {
        self.inner.view.borrow_mut().take();
        self.inner.resolve_waiting(&JsValue::NULL);
    }

    /// An observed attribute changed.
    #[wasm_bindgen(js_name = attributeChanged)]
    pub fn attribute_changed(&self) {
        let next = read_config(&self.inner.host);
        let lang_changed = self.inner.config.with_untracked(|c| c.lang != next.lang);
        self.inner.config.set(next);
        if lang_changed && self.inner.view.borrow().is_some() {
            self.inner.mount_view();
        }
    }

    /// The `attachment_budget` of the toolbar named by `for` (`null`: none).
    #[wasm_bindgen(js_name = setLinkedBudget)]
    pub fn set_linked_budget(&self, budget: JsValue) {
        let linked = dom::json_text(&budget)
            .and_then(|text| crate::json::from_text::<AttachmentBudget>(&text));
        if self.inner.linked.get_untracked() != linked {
            self.inner.linked.set(linked);
        }
    }

    /// Previews `files` (an array of `File`s) instead of the current ones; resolves to the
    /// report (`null` for no files, or when the preview is cancelled or superseded).
    #[wasm_bindgen(js_name = previewFiles)]
    pub fn preview_files(&self, files: JsValue) -> js_sys::Promise {
        let handles = file_handles(&files);
        let inner = Rc::clone(&self.inner);
        js_sys::Promise::new(&mut |resolve, _reject| {
            // A preview still running for earlier files is superseded: its promise gets null.
            inner.resolve_waiting(&JsValue::NULL);
            if handles.is_empty() {
                inner.files.set(Vec::new());
                let _ = resolve.call1(&JsValue::NULL, &JsValue::NULL);
                return;
            }
            inner.waiting.borrow_mut().push(resolve);
            inner
                .files
                .set(handles.iter().cloned().map(SendWrapper::new).collect());
        })
    }

    /// The files the preview lists, in order (what the user sees).
    pub fn files(&self) -> js_sys::Array {
        self.inner
            .files
            .with_untracked(|f| f.iter().map(|f| JsValue::from(&**f)).collect())
    }

    /// Cancels the running preview, if any.
    pub fn cancel(&self) {
        self.inner.cancels.update(|n| *n += 1);
    }

    /// The latest report (`null` before the first).
    pub fn report(&self) -> JsValue {
        self.inner
            .report
            .borrow()
            .as_deref()
            .map_or(JsValue::NULL, dom::json_value)
    }
}

impl Drop for PreviewController {
    fn drop(&mut self) {
        self.inner.view.borrow_mut().take();
        self.inner.owner.cleanup();
    }
}

fn read_config(host: &HtmlElement) -> PreviewConfig {
    let langs = dom::browser_langs();
    PreviewConfig::from_attributes(
        |name| dom::attribute(host, name),
        dom::inherited_lang(host).as_deref(),
        langs.iter().map(String::as_str),
    )
}

/// The `File`s of a `FileList`, an array, or any iterable of them.
fn file_handles(files: &JsValue) -> Vec<web_sys::File> {
    if let Some(list) = files.dyn_ref::<web_sys::FileList>() {
        return crate::components::files_of(Some(list.clone()));
    }
    js_sys::Array::from(files)
        .iter()
        .filter_map(|v| v.dyn_into::<web_sys::File>().ok())
        .collect()
}

impl Inner {
    fn mount_view(self: &Rc<Self>) {
        if !self.host.is_connected() {
            return;
        }
        self.view.borrow_mut().take();
        let (config, linked, files, cancels) = (self.config, self.linked, self.files, self.cancels);
        let lang = config.with_untracked(|c| c.lang);
        let budget = Signal::derive(move || {
            config.with(|c| {
                AttachmentBudget::for_preview(
                    c.model.as_deref(),
                    c.limit_tokens,
                    linked.get().as_ref(),
                )
            })
        });
        let limits = Signal::derive(move || {
            config.with(|c| UploadLimits {
                max_text_length: c.max_text_length,
                max_upload_bytes: c.max_upload_bytes,
            })
        });
        let admission = Signal::derive(move || config.with(|c| c.admission.clone()));
        let weak = SendWrapper::new(Rc::downgrade(self));
        let on_report = Callback::new(move |outcome: Result<Option<Report>, String>| {
            if let Some(inner) = Weak::upgrade(&weak) {
                inner.reported(outcome);
            }
        });
        let weak = SendWrapper::new(Rc::downgrade(self));
        let on_progress = Callback::new(move |(index, done, total): (usize, f64, f64)| {
            if let Some(inner) = Weak::upgrade(&weak) {
                inner.progressed(index, done, total);
            }
        });
        let previewer = Rc::clone(&self.previewer);
        let handle = self.owner.with(|| {
            leptos::mount::mount_to(self.mount_point.clone(), move || {
                view! {
                    <AttachmentPanel budget=budget limits=limits lang=lang previewer=previewer files=files admission=admission
                        on_report=on_report on_progress=on_progress cancel_requests=cancels />
                }
            })
        });
        *self.view.borrow_mut() = Some(Box::new(handle));
    }

    /// `ctxguard-preview-progress`: `{file_index, done_bytes, total_bytes}`.
    fn progressed(&self, index: usize, done: f64, total: f64) {
        let detail = js_sys::Object::new();
        for (key, value) in [
            ("file_index", index as f64),
            ("done_bytes", done),
            ("total_bytes", total),
        ] {
            let _ = js_sys::Reflect::set(&detail, &key.into(), &value.into());
        }
        dom::dispatch(&self.host, "ctxguard-preview-progress", &detail);
    }

    /// A preview ended: `ctxguard-preview` with its report (none when it was
    /// cancelled or failed), and the waiting `previewFiles` promises resolved.
    fn reported(&self, outcome: Result<Option<Report>, String>) {
        let detail = match &outcome {
            Ok(Some(report)) => {
                *self.report.borrow_mut() = Some(report.json.to_string());
                let detail = dom::json_value(&report.json);
                dom::dispatch(&self.host, "ctxguard-preview", &detail);
                detail
            }
            Ok(None) | Err(_) => JsValue::NULL,
        };
        self.resolve_waiting(&detail);
    }

    /// Resolves every waiting `previewFiles` promise with `value`.
    fn resolve_waiting(&self, value: &JsValue) {
        let waiting: Vec<js_sys::Function> = self.waiting.borrow_mut().drain(..).collect();
        for resolve in waiting {
            let _ = resolve.call1(&JsValue::NULL, value);
        }
    }
}
