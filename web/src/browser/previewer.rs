//! Who computes an attachment preview: a [`Previewer`] takes the picked
//! `File`s and answers with core's [`PreviewReport`], reporting progress and
//! cancellable at any time. The custom element uses [`WorkerPreviewer`]: the
//! package's module Worker reads, parses, composes and counts, so the page
//! never holds a file's contents and the toolbar's own module ships no parser
//! or vocabulary. A Rust host that links them anyway can use `LocalPreviewer`
//! (feature `local-preview`), which runs the same engine in this thread.

use crate::config::AdmissionAttributes;
use ctxguard_core::attachment::{PreviewOptions, PreviewReport};
use serde::Serialize;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// What one preview is asked to do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PreviewRequest {
    /// Model, budget, inline cap.
    pub options: PreviewOptions,
    /// The backend's `MAX_EXTRACTED_TEXT_LENGTH`.
    pub max_text_length: i64,
    /// The backend's upload cap: larger files get its refusal, unread.
    pub max_upload_bytes: u64,
    /// The chat input's refusals before upload, applied (by the engine) before any file
    /// is read.
    pub admission: AdmissionAttributes,
}

/// Bytes of file `file_index` read so far, of its total.
pub type Progress = Rc<dyn Fn(usize, f64, f64)>;

/// A report as the engine wrote it: the parsed rows, and the JSON text itself,
/// which the element hands to the page as it came (never serialised again).
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The report.
    pub report: PreviewReport,
    /// Its JSON.
    pub json: std::sync::Arc<str>,
}

/// The outcome of a preview: its report, `None` once cancelled, or why it failed.
pub type PreviewFuture = Pin<Box<dyn Future<Output = Result<Option<Report>, String>>>>;

/// Stops a preview under way.
pub struct Cancel(Box<dyn Fn()>);

impl Cancel {
    /// Stops the work at once; its outcome resolves to `Ok(None)`.
    pub fn cancel(&self) {
        (self.0)();
    }
}

/// A preview under way.
pub struct Running {
    /// Resolves when it ends.
    pub outcome: PreviewFuture,
    /// Stops it.
    pub cancel: Cancel,
}

/// Computes previews.
pub trait Previewer {
    /// Starts the preview of `files`.
    fn start(
        &self,
        files: &[web_sys::File],
        request: &PreviewRequest,
        progress: Progress,
    ) -> Running;
}

fn js_error(e: JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "unknown error".into())
}

/// Runs previews in the package's worker through the entry script's
/// `start(files, requestJson, onProgress) → {promise, cancel}`.
pub struct WorkerPreviewer {
    start: js_sys::Function,
}

impl WorkerPreviewer {
    /// A previewer over the entry script's `start` function.
    pub fn new(start: js_sys::Function) -> Self {
        WorkerPreviewer { start }
    }
}

impl Previewer for WorkerPreviewer {
    fn start(
        &self,
        files: &[web_sys::File],
        request: &PreviewRequest,
        progress: Progress,
    ) -> Running {
        let array: js_sys::Array = files.iter().collect();
        let request = crate::json::to_text(request);
        let on_progress =
            Closure::<dyn Fn(f64, f64, f64)>::new(move |i: f64, done: f64, total: f64| {
                progress(i.max(0.0) as usize, done, total);
            });
        let started = self.start.call3(
            &JsValue::NULL,
            &array,
            &JsValue::from_str(&request),
            on_progress.as_ref().unchecked_ref(),
        );
        let (promise, cancel) = match started {
            Ok(job) => (
                js_sys::Reflect::get(&job, &"promise".into()).ok(),
                js_sys::Reflect::get(&job, &"cancel".into())
                    .ok()
                    .and_then(|c| c.dyn_into::<js_sys::Function>().ok()),
            ),
            Err(e) => {
                let why = js_error(e);
                return Running {
                    outcome: Box::pin(async move { Err(why) }),
                    cancel: Cancel(Box::new(|| {})),
                };
            }
        };
        let outcome = Box::pin(async move {
            // The progress callback lives as long as the job.
            let _keep = on_progress;
            let promise = promise.ok_or("the preview worker gave no promise")?;
            let reply = JsFuture::from(js_sys::Promise::resolve(&promise))
                .await
                .map_err(js_error)?;
            if reply.is_null() || reply.is_undefined() {
                return Ok(None);
            }
            let json = reply
                .as_string()
                .ok_or("the preview worker answered with no text")?;
            let report = crate::json::preview_report(&json)
                .ok_or("the preview worker answered with no readable report")?;
            Ok(Some(Report {
                report,
                json: json.into(),
            }))
        });
        Running {
            outcome,
            cancel: Cancel(Box::new(move || {
                if let Some(cancel) = &cancel {
                    let _ = cancel.call0(&JsValue::NULL);
                }
            })),
        }
    }
}

#[cfg(feature = "local-preview")]
pub use local::LocalPreviewer;

#[cfg(feature = "local-preview")]
mod local {
    //! The engine in this thread, for Rust hosts and the DOM tests.
    use super::{Cancel, PreviewRequest, Previewer, Progress, Running};
    use std::cell::Cell;
    use std::rc::Rc;
    use wasm_bindgen_futures::JsFuture;

    /// A file over the upload cap, as the engine sees it: its size, and no bytes
    /// (the engine refuses it by its size before reading any).
    struct Unread(u64);

    impl ctxguard_preview_engine::Source for Unread {
        fn len(&self) -> u64 {
            self.0
        }

        fn read_at(
            &self,
            _: u64,
            _: &mut [u8],
        ) -> Result<usize, ctxguard_preview_engine::SourceError> {
            Ok(0)
        }
    }

    /// Reads, parses and counts in this thread with the preview engine.
    pub struct LocalPreviewer;

    impl Previewer for LocalPreviewer {
        fn start(
            &self,
            files: &[web_sys::File],
            request: &PreviewRequest,
            progress: Progress,
        ) -> Running {
            let files = files.to_vec();
            let request = request.clone();
            let cancelled = Rc::new(Cell::new(false));
            let flag = Rc::clone(&cancelled);
            let outcome = Box::pin(async move {
                let mut session = ctxguard_preview_engine::Session::new();
                let selection: Vec<_> = files
                    .iter()
                    .map(|f| ctxguard_core::attachment::Candidate {
                        name: f.name(),
                        size_bytes: f.size().max(0.0) as u64,
                    })
                    .collect();
                let limits = ctxguard_core::attachment::AdmissionLimits::from_attributes(
                    |name| request.admission.get(name),
                    request.max_upload_bytes,
                );
                session.admit(&selection, &limits);
                for (i, file) in files.iter().enumerate() {
                    let size = file.size();
                    progress(i, 0.0, size);
                    let claimed = size.max(0.0) as u64;
                    if claimed > request.max_upload_bytes {
                        // Refused by its size alone: the engine never reads it.
                        session.add(
                            &file.name(),
                            &Unread(claimed),
                            request.max_upload_bytes,
                            request.max_text_length,
                        );
                    } else {
                        let buffer = JsFuture::from(file.array_buffer())
                            .await
                            .map_err(super::js_error)?;
                        let bytes = js_sys::Uint8Array::new(&buffer).to_vec();
                        session.add(
                            &file.name(),
                            &bytes.as_slice(),
                            request.max_upload_bytes,
                            request.max_text_length,
                        );
                    }
                    progress(i, size, size);
                    if flag.get() {
                        return Ok(None);
                    }
                }
                let report = session.report(&request.options);
                let json = serde_json::to_string(&report).map_err(|e| e.to_string())?;
                Ok(Some(super::Report {
                    report,
                    json: json.into(),
                }))
            });
            Running {
                outcome,
                cancel: Cancel(Box::new(move || cancelled.set(true))),
            }
        }
    }
}
