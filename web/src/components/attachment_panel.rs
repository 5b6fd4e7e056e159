//! The attachment budget preview: a drop zone and file picker. The picked
//! `File`s go to a [`Previewer`] (in the element, the package's worker),
//! which parses them as the backend will and answers with core's report:
//! one row per file (what the server keeps, refuses or cuts) and the block as
//! the model will see it. While it works, each file shows a progress bar, and
//! a Cancel button (or a new pick, or removing a file) stops it. The chat
//! input's refusals (`admission`) are judged before any file is read.

use super::report_dom;
use crate::attachment_budget::AttachmentBudget;
use crate::browser::previewer::{Cancel, PreviewRequest, Previewer, Report, Running};
use crate::config::AdmissionAttributes;
use crate::i18n::{Lang, Text};
use ctxguard_core::attachment::{PreviewOptions, PreviewReport};
use leptos::prelude::*;
use send_wrapper::SendWrapper;
use std::rc::Rc;
use wasm_bindgen::JsCast;

/// The files of a `FileList`.
pub fn files_of(list: Option<web_sys::FileList>) -> Vec<web_sys::File> {
    let Some(list) = list else { return Vec::new() };
    (0..list.length()).filter_map(|i| list.item(i)).collect()
}

/// The backend's limits a preview applies before composing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UploadLimits {
    /// `MAX_EXTRACTED_TEXT_LENGTH`.
    pub max_text_length: i64,
    /// The upload cap in bytes.
    pub max_upload_bytes: u64,
}

/// A browser `File` in a signal (the page is single-threaded; the wrapper only
/// satisfies the reactive graph's thread-safe storage, which the rest of the
/// toolbar uses, so the module carries one storage kind).
pub type SendFile = SendWrapper<web_sys::File>;

/// The picked files, as the panel and its host share them.
pub type FileList = RwSignal<Vec<SendFile>>;

/// What the panel shows under the drop zone.
#[derive(Debug, Clone, PartialEq)]
enum Status {
    Empty,
    Working,
    Done(PreviewReport),
    Cancelled,
    Failed(String),
}

/// The panel. `files` may be passed in (hosts set them); otherwise the panel keeps its own.
/// `on_report` is called with every preview that ends (`Ok(None)`: cancelled);
/// `on_progress` with `(file_index, done_bytes, total_bytes)` while one runs.
#[component]
pub fn AttachmentPanel(
    #[prop(into)] budget: Signal<AttachmentBudget>,
    #[prop(into)] limits: Signal<UploadLimits>,
    lang: Lang,
    previewer: Rc<dyn Previewer>,
    #[prop(optional)] files: Option<FileList>,
    /// The chat input's refusals before upload, as the element's attributes give them
    /// (default: none, the reference's chat mode); their generic cap is `limits.max_upload_bytes`.
    #[prop(optional, into)]
    admission: Option<Signal<AdmissionAttributes>>,
    #[prop(optional)] on_report: Option<Callback<Result<Option<Report>, String>>>,
    #[prop(optional)] on_progress: Option<Callback<(usize, f64, f64)>>,
    /// Each change cancels the running preview (the element's `cancel()`).
    #[prop(optional, into)]
    cancel_requests: Option<Signal<u64>>,
) -> impl IntoView {
    let files = files.unwrap_or_else(|| RwSignal::new(Vec::new()));
    let previewer = SendWrapper::new(previewer);
    let status = RwSignal::new(Status::Empty);
    let progress_list: NodeRef<leptos::html::Ul> = NodeRef::new();
    let report_box: NodeRef<leptos::html::Div> = NodeRef::new();
    let dragging = RwSignal::new(false);
    let running: StoredValue<Option<SendWrapper<Cancel>>> = StoredValue::new(None);
    let generation = StoredValue::new(0u64);
    let text = Text(lang);

    let stop = move || {
        running.update_value(|r| {
            if let Some(r) = r.take() {
                r.cancel();
            }
        })
    };

    Effect::new(move |_| {
        let budget = budget.get();
        let limits = limits.get();
        let picked = files.get();
        stop();
        let current = generation.get_value() + 1;
        generation.set_value(current);
        if picked.is_empty() {
            status.set(Status::Empty);
            return;
        }
        let picked: Vec<web_sys::File> = picked.iter().map(|f| (**f).clone()).collect();
        status.set(Status::Working);
        let request = PreviewRequest {
            options: PreviewOptions {
                model: budget.model,
                limit_tokens: budget.limit_tokens,
                ..PreviewOptions::default()
            },
            max_text_length: limits.max_text_length,
            max_upload_bytes: limits.max_upload_bytes,
            admission: admission.map(|a| a.get()).unwrap_or_default(),
        };
        let on_bytes = Rc::new(move |i: usize, done: f64, total: f64| {
            if generation.get_value() != current {
                return;
            }
            if let Some(list) = progress_list.get_untracked() {
                report_dom::set_progress(&list, i, done, total);
            }
            if let Some(cb) = on_progress {
                cb.run((i, done, total));
            }
        });
        let Running { outcome, cancel } = previewer.start(&picked, &request, on_bytes);
        running.set_value(Some(SendWrapper::new(cancel)));
        leptos::task::spawn_local(async move {
            let result = outcome.await;
            if generation.get_value() != current {
                return;
            }
            running.set_value(None);
            if let Some(cb) = on_report {
                cb.run(result.clone());
            }
            status.set(match result {
                Ok(Some(report)) => Status::Done(report.report),
                Ok(None) => Status::Cancelled,
                Err(why) => Status::Failed(why),
            });
        });
    });
    on_cleanup(stop);

    let add_files = move |picked: Vec<web_sys::File>| {
        if !picked.is_empty() {
            files.update(|f| f.extend(picked.into_iter().map(SendWrapper::new)));
        }
    };
    let on_change = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        add_files(files_of(input.files()));
        input.set_value("");
    };
    let on_drop = move |ev: leptos::ev::DragEvent| {
        ev.prevent_default();
        dragging.set(false);
        add_files(files_of(ev.data_transfer().and_then(|d| d.files())));
    };
    let on_drag_over = move |ev: leptos::ev::DragEvent| {
        ev.prevent_default();
        dragging.set(true);
    };
    let cancel = move |_: ()| {
        stop();
        generation.update_value(|g| *g += 1);
        status.set(Status::Cancelled);
        if let Some(cb) = on_report {
            cb.run(Ok(None));
        }
    };
    let remove = move |index: usize| {
        files.update(|f| {
            if index < f.len() {
                f.remove(index);
            }
        })
    };
    // The progress bars, once their list is in the page (one per file, in order).
    Effect::new(move |_| {
        if let Some(list) = progress_list.get() {
            let names: Vec<String> = files.with_untracked(|f| f.iter().map(|f| f.name()).collect());
            report_dom::render_progress(&list, &names);
        }
    });
    // The report, rebuilt whole whenever one arrives (and cleared otherwise).
    Effect::new(move |_| {
        let Some(container) = report_box.get() else {
            return;
        };
        status.with(|s| match s {
            Status::Done(report) => {
                let max_mb = limits.with_untracked(|l| l.max_upload_bytes / (1024 * 1024));
                report_dom::render_report(&container, report, lang, max_mb);
            }
            _ => container.set_text_content(None),
        });
    });
    // One listener for every row's remove button.
    let on_report_click = move |ev: leptos::ev::MouseEvent| {
        let index = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|el| {
                el.closest("[data-testid=\"ctxguard-attachment-remove\"]")
                    .ok()
                    .flatten()
            })
            .and_then(|button| button.get_attribute("data-index"))
            .and_then(|i| i.parse::<usize>().ok());
        if let Some(index) = index {
            remove(index);
        }
    };

    if let Some(requests) = cancel_requests {
        Effect::new(move |seen: Option<u64>| {
            let now = requests.get();
            if seen.is_some_and(|s| s != now) && status.with_untracked(|s| *s == Status::Working) {
                cancel(());
            }
            now
        });
    }

    view! {
        <section class="panel" part="panel" data-testid="ctxguard-attachments" data-busy=move || (status.with(|s| *s == Status::Working)).to_string()>
            <div class="panel-head">
                <h2>{text.attach_title()}</h2>
                {move || {
                    (files.with(|f| !f.is_empty())).then(|| view! {
                        <button type="button" class="btn-ghost" part="clear" data-testid="ctxguard-attachments-clear" on:click=move |_| files.set(Vec::new())>
                            {Text(lang).clear()}
                        </button>
                    })
                }}
            </div>
            <p class="hint" part="hint" data-testid="ctxguard-preview-budget" data-model=move || budget.with(|b| b.model.clone()) data-limit=move || budget.with(|b| b.limit_tokens.to_string())>
                {move || budget.with(|b| Text(lang).attach_hint(&b.model, b.limit_tokens))}
            </p>
            <label
                class="dropzone"
                class:dragging=move || dragging.get()
                part="dropzone"
                data-testid="ctxguard-dropzone"
                on:dragover=on_drag_over
                on:dragleave=move |_| dragging.set(false)
                on:drop=on_drop
            >
                <span class="dz-icon" aria-hidden="true"></span>
                <span>{text.drop_here()} " " <span class="linklike">{text.choose_files()}</span></span>
                <input type="file" multiple class="visually-hidden" data-testid="ctxguard-file-input" on:change=on_change />
            </label>
            {move || (status.with(|s| *s == Status::Working)).then(|| view! {
                <div class="working" data-testid="ctxguard-preview-busy">
                    <div class="working-head">
                        <p class="reading">{Text(lang).parsing()}</p>
                        <button type="button" class="btn-ghost" part="cancel" data-testid="ctxguard-preview-cancel" on:click=move |_| cancel(())>
                            {Text(lang).cancel()}
                        </button>
                    </div>
                    <ul class="progress-list" node_ref=progress_list></ul>
                </div>
            })}
            {move || match status.get() {
                Status::Cancelled => Some(view! { <p class="reading" data-testid="ctxguard-preview-cancelled">{Text(lang).cancelled().to_string()}</p> }),
                Status::Failed(why) => Some(view! { <p class="error" data-testid="ctxguard-preview-error">{Text(lang).preview_failed(&why)}</p> }),
                _ => None,
            }}
            <div class="report" node_ref=report_box on:click=on_report_click></div>
        </section>
    }
}
