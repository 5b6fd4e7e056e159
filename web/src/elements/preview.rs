//! `<ctxguard-attachment-preview>`'s controller: reads `model`, `limit`,
//! `lang` (and takes the budget of the toolbar named by `for` when the entry
//! script relays it), mounts [`AttachmentPanel`] with an [`EnginePreviewer`]
//! (the tokenizer module loads the first time files are given), and reports
//! every computed preview as `ctxguard-preview`.

use super::dom;
use crate::attachment_budget::AttachmentBudget;
use crate::attachments::{PickedFile, PreviewReport};
use crate::components::{read_files, AttachmentPanel};
use crate::config::PreviewConfig;
use crate::preview_engine::{EnginePreviewer, Previewer};
use leptos::prelude::*;
use send_wrapper::SendWrapper;
use std::any::Any;
use std::cell::RefCell;
use std::rc::{Rc, Weak};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{HtmlElement, ShadowRoot};

const CSS: &str = concat!(
    include_str!("../../css/base.css"),
    include_str!("../../css/preview.css")
);

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
    files: RwSignal<Vec<PickedFile>>,
    previewer: Rc<dyn Previewer>,
    view: RefCell<Option<Box<dyn Any>>>,
    report: RefCell<Option<String>>,
    /// `resolve` functions of `previewFiles` promises waiting for the next preview.
    waiting: RefCell<Vec<js_sys::Function>>,
}

#[wasm_bindgen]
impl PreviewController {
    /// The controller of `host`, rendering into `root`; `load_engine()` resolves to the
    /// engine's `previewAttachments(requestJson) → reportJson`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        host: HtmlElement,
        root: ShadowRoot,
        load_engine: js_sys::Function,
    ) -> Result<PreviewController, JsValue> {
        let mount_point = dom::prepare_shadow(&root, CSS)?;
        let owner = Owner::new();
        let (config, linked, files) = owner.with(|| {
            (
                RwSignal::new(read_config(&host)),
                RwSignal::new(None),
                RwSignal::new(Vec::new()),
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
                previewer: Rc::new(EnginePreviewer::new(load_engine)),
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

    /// The element was removed: unmount (the files are kept).
    pub fn disconnected(&self) {
        self.inner.view.borrow_mut().take();
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
            .and_then(|text| serde_json::from_str::<AttachmentBudget>(&text).ok());
        if self.inner.linked.get_untracked() != linked {
            self.inner.linked.set(linked);
        }
    }

    /// Id of the toolbar to take the budget from (the `for` attribute).
    #[wasm_bindgen(js_name = toolbarId)]
    pub fn toolbar_id(&self) -> Option<String> {
        self.inner.config.with_untracked(|c| c.toolbar_id.clone())
    }

    /// Previews `files` (a `FileList` or an array of `File`s) instead of the current ones;
    /// resolves to the report (`null` for no files).
    #[wasm_bindgen(js_name = previewFiles)]
    pub fn preview_files(&self, files: JsValue) -> js_sys::Promise {
        let handles = file_handles(&files);
        let weak = Rc::downgrade(&self.inner);
        js_sys::Promise::new(&mut |resolve, _reject| {
            let weak = weak.clone();
            let handles = handles.clone();
            leptos::task::spawn_local(async move {
                let picked = read_files(handles).await;
                let Some(inner) = weak.upgrade() else { return };
                if picked.is_empty() {
                    inner.files.set(Vec::new());
                    let _ = resolve.call1(&JsValue::NULL, &JsValue::NULL);
                    return;
                }
                inner.waiting.borrow_mut().push(resolve);
                inner.files.set(picked);
            });
        })
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
        let (config, linked, files) = (self.config, self.linked, self.files);
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
        let weak = SendWrapper::new(Rc::downgrade(self));
        let on_report = Callback::new(move |outcome: Result<PreviewReport, String>| {
            if let Some(inner) = Weak::upgrade(&weak) {
                inner.reported(outcome);
            }
        });
        let previewer = Rc::clone(&self.previewer);
        let handle = self.owner.with(|| {
            leptos::mount::mount_to(self.mount_point.clone(), move || {
                view! {
                    <AttachmentPanel budget=budget lang=lang previewer=previewer files=files on_report=on_report />
                }
            })
        });
        *self.view.borrow_mut() = Some(Box::new(handle));
    }

    fn reported(&self, outcome: Result<PreviewReport, String>) {
        let detail = match &outcome {
            Ok(report) => {
                let json = serde_json::to_string(report).unwrap_or_default();
                *self.report.borrow_mut() = Some(json.clone());
                dom::json_value(&json)
            }
            Err(_) => JsValue::NULL,
        };
        if outcome.is_ok() {
            dom::dispatch(&self.host, "ctxguard-preview", &detail);
        }
        let waiting: Vec<js_sys::Function> = self.waiting.borrow_mut().drain(..).collect();
        for resolve in waiting {
            let _ = resolve.call1(&JsValue::NULL, &detail);
        }
    }
}
