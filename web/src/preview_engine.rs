//! Who computes an attachment preview: [`Previewer`]. A Rust host that links
//! the tokenizer anyway uses [`LocalPreviewer`] (core, here); the custom
//! element uses [`EnginePreviewer`], which loads a second WebAssembly module
//! (the `engine` build of this crate: core's tokenizer, composition and
//! preview, nothing else) the first time it is given files, so the toolbar's
//! own module ships no vocabulary. Both answer with the same
//! [`PreviewReport`], computed by the same Rust code.

use crate::attachments::{self, PreviewReport, PreviewRequest};
use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// A preview computed later.
pub type PreviewFuture = Pin<Box<dyn Future<Output = Result<PreviewReport, String>>>>;

/// Computes previews.
pub trait Previewer {
    /// The report for `request`.
    fn preview(&self, request: PreviewRequest) -> PreviewFuture;

    /// Whether the first preview has to load something first.
    fn needs_loading(&self) -> bool {
        false
    }
}

/// Runs core in this module (which then links the tokenizer).
pub struct LocalPreviewer;

impl Previewer for LocalPreviewer {
    fn preview(&self, request: PreviewRequest) -> PreviewFuture {
        Box::pin(async move {
            Ok(attachments::preview(
                &request.files,
                &request.model,
                request.limit_tokens,
            ))
        })
    }
}

/// Runs core in the engine module, loaded on first use by a JavaScript
/// function that resolves to `previewAttachments(requestJson) → reportJson`.
pub struct EnginePreviewer {
    loader: js_sys::Function,
    engine: Rc<RefCell<Option<js_sys::Function>>>,
}

impl EnginePreviewer {
    /// A previewer that calls `loader()` once, when first needed.
    pub fn new(loader: js_sys::Function) -> Self {
        EnginePreviewer {
            loader,
            engine: Rc::new(RefCell::new(None)),
        }
    }
}

fn js_error(e: JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "unknown error".into())
}

impl Previewer for EnginePreviewer {
    fn preview(&self, request: PreviewRequest) -> PreviewFuture {
        let loader = self.loader.clone();
        let cache = Rc::clone(&self.engine);
        Box::pin(async move {
            let loaded = cache.borrow().clone();
            let engine = match loaded {
                Some(engine) => engine,
                None => {
                    let promise = loader.call0(&JsValue::NULL).map_err(js_error)?;
                    let engine: js_sys::Function =
                        JsFuture::from(js_sys::Promise::resolve(&promise))
                            .await
                            .map_err(js_error)?
                            .dyn_into()
                            .map_err(|_| "the engine loader did not give a function".to_string())?;
                    *cache.borrow_mut() = Some(engine.clone());
                    engine
                }
            };
            let request = serde_json::to_string(&request).map_err(|e| e.to_string())?;
            let reply = engine
                .call1(&JsValue::NULL, &JsValue::from_str(&request))
                .map_err(js_error)?;
            let reply = reply
                .as_string()
                .ok_or_else(|| "the engine answered with no text".to_string())?;
            serde_json::from_str(&reply).map_err(|e| format!("engine report: {e}"))
        })
    }

    fn needs_loading(&self) -> bool {
        self.engine.borrow().is_none()
    }
}
