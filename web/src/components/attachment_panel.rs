//! The attachment budget preview: a drop zone and file picker. The picked
//! `File`s go to a [`Previewer`] (in the element, the package's worker),
//! which parses them as the backend will and answers with core's report:
//! one row per file (what the server keeps, refuses or cuts) and the block as
//! the model will see it. While it works, each file shows a progress bar, and
//! a Cancel button (or a new pick, or removing a file) stops it.

use crate::attachment_budget::AttachmentBudget;
use crate::i18n::{group_thousands, Lang, Text};
use crate::previewer::{Cancel, PreviewRequest, Previewer, Running};
use ctxguard_core::attachment::{format_size, PreviewOptions, PreviewReport, PreviewRow, RowState};
use leptos::callback::UnsyncCallback;
use leptos::prelude::*;
use std::rc::Rc;

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

/// The picked files, as the panel and its host share them.
pub type FileList = RwSignal<Vec<web_sys::File>, LocalStorage>;

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
    #[prop(optional)] on_report: Option<UnsyncCallback<Result<Option<PreviewReport>, String>>>,
    #[prop(optional)] on_progress: Option<UnsyncCallback<(usize, f64, f64)>>,
    /// Each change cancels the running preview (the element's `cancel()`).
    #[prop(optional, into)]
    cancel_requests: Option<Signal<u64>>,
) -> impl IntoView {
    let files = files.unwrap_or_else(|| RwSignal::new_local(Vec::new()));
    let status = RwSignal::new(Status::Empty);
    let progress: RwSignal<Vec<(f64, f64)>> = RwSignal::new(Vec::new());
    let dragging = RwSignal::new(false);
    let running: StoredValue<Option<Cancel>, LocalStorage> = StoredValue::new_local(None);
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
            progress.set(Vec::new());
            return;
        }
        progress.set(picked.iter().map(|f| (0.0, f.size())).collect());
        status.set(Status::Working);
        let request = PreviewRequest {
            options: PreviewOptions {
                model: budget.model,
                limit_tokens: budget.limit_tokens,
                ..PreviewOptions::default()
            },
            max_text_length: limits.max_text_length,
            max_upload_bytes: limits.max_upload_bytes,
        };
        let on_bytes = Rc::new(move |i: usize, done: f64, total: f64| {
            if generation.get_value() != current {
                return;
            }
            progress.update(|p| {
                if let Some(slot) = p.get_mut(i) {
                    *slot = (done, total);
                }
            });
            if let Some(cb) = on_progress {
                cb.run((i, done, total));
            }
        });
        let Running { outcome, cancel } = previewer.start(&picked, &request, on_bytes);
        running.set_value(Some(cancel));
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
                Ok(Some(report)) => Status::Done(report),
                Ok(None) => Status::Cancelled,
                Err(why) => Status::Failed(why),
            });
        });
    });
    on_cleanup(stop);

    let add_files = move |picked: Vec<web_sys::File>| {
        if !picked.is_empty() {
            files.update(|f| f.extend(picked));
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
    if let Some(requests) = cancel_requests {
        Effect::new(move |seen: Option<u64>| {
            let now = requests.get();
            if seen.is_some_and(|s| s != now) && status.with_untracked(|s| *s == Status::Working) {
                cancel(());
            }
            now
        });
    }
    let remove = move |index: usize| {
        files.update(|f| {
            if index < f.len() {
                f.remove(index);
            }
        })
    };

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
            {move || match status.get() {
                Status::Empty => ().into_any(),
                Status::Working => view! {
                    <div class="working" data-testid="ctxguard-preview-busy">
                        <div class="working-head">
                            <p class="reading">{Text(lang).parsing()}</p>
                            <button type="button" class="btn-ghost" part="cancel" data-testid="ctxguard-preview-cancel" on:click=move |_| cancel(())>
                                {Text(lang).cancel()}
                            </button>
                        </div>
                        <ul class="progress-list">
                            {move || files.with(|f| f.iter().map(|f| f.name()).collect::<Vec<_>>()).into_iter().enumerate().map(|(i, name)| {
                                let pct = move || progress.with(|p| p.get(i).map_or(0, |&(done, total)| if total > 0.0 { ((done / total) * 100.0).clamp(0.0, 100.0) as u32 } else { 100 }));
                                view! {
                                    <li>
                                        <span class="fname">{name.clone()}</span>
                                        <div class="bar" data-testid="ctxguard-preview-progress" role="progressbar" aria-label=name
                                            aria-valuemin="0" aria-valuemax="100" aria-valuenow=move || pct().to_string() data-file-index=i.to_string()>
                                            <div class="fill" style:width=move || format!("{}%", pct())></div>
                                        </div>
                                    </li>
                                }
                            }).collect_view()}
                        </ul>
                    </div>
                }.into_any(),
                Status::Cancelled => view! { <p class="reading" data-testid="ctxguard-preview-cancelled">{Text(lang).cancelled()}</p> }.into_any(),
                Status::Failed(why) => view! { <p class="error" data-testid="ctxguard-preview-error">{Text(lang).preview_failed(&why)}</p> }.into_any(),
                Status::Done(report) => {
                    let max_mb = limits.with_untracked(|l| l.max_upload_bytes / (1024 * 1024));
                    view! { <PreviewTable report=report lang=lang max_upload_mb=max_mb remove=remove /> }.into_any()
                }
            }}
        </section>
    }
}

#[component]
fn PreviewTable(
    report: PreviewReport,
    lang: Lang,
    max_upload_mb: u64,
    remove: impl Fn(usize) + Copy + 'static,
) -> impl IntoView {
    let text = Text(lang);
    let [c_file, c_size, c_tokens, c_alloc, c_status] = text.columns();
    let summary = text.attach_summary(
        report.block_tokens_before,
        report.block_tokens_after,
        report.cut_count(),
        report.rejected_count(),
    );
    let rows = report
        .attachments
        .into_iter()
        .enumerate()
        .map(|(i, row)| view! { <PreviewRowView row=row lang=lang max_upload_mb=max_upload_mb on_remove=move || remove(i) /> })
        .collect_view();
    let rendered = (!report.rendered.is_empty()).then(|| {
        view! {
            <details class="rendered" part="rendered" data-testid="ctxguard-rendered">
                <summary>{text.show_rendered()}</summary>
                <pre>{report.rendered}</pre>
            </details>
        }
    });
    view! {
        <p class="summary" data-testid="ctxguard-attachments-summary">{summary}</p>
        <div class="table-wrap">
            <table class="files" part="table" data-testid="ctxguard-attachments-table">
                <thead>
                    <tr>
                        <th>{c_file}</th>
                        <th class="num">{c_size}</th>
                        <th class="num">{c_tokens}</th>
                        <th class="num">{c_alloc}</th>
                        <th>{c_status}</th>
                        <th class="remove"></th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
        {rendered}
    }
}

#[component]
fn PreviewRowView(
    row: PreviewRow,
    lang: Lang,
    max_upload_mb: u64,
    on_remove: impl Fn() + 'static,
) -> impl IntoView {
    let text = Text(lang);
    let status = match row.state {
        RowState::Fits => text.fits(),
        RowState::Cut => text.will_be_cut(),
        RowState::Image => text.image(),
        RowState::Binary => text.binary(),
        RowState::Rejected => text.rejected(),
        RowState::TruncatedOnUpload => text.truncated_on_upload(),
        RowState::Scanned => text.scanned(),
    };
    let has_text = row.inlined == ctxguard_core::attachment::Inlined::Text;
    let dash = || "—".to_string();
    let state = row.state.as_str();
    let detail = match (&row.error, &row.upload_truncation, row.state) {
        (Some(e), _, _) => Some(view! {
            <div class="detail" data-testid="ctxguard-attachment-error" data-code=e.code.clone()>
                <strong>{text.error_title(&e.code)}</strong>
                <span class="hint">{text.error_hint(&e.code, max_upload_mb)}</span>
                <code class="message">{e.message.clone()}</code>
            </div>
        }.into_any()),
        (None, Some(t), _) => Some(view! {
            <div class="detail" data-testid="ctxguard-upload-truncation">
                <strong>{text.content_truncated()}</strong>
                <span class="hint">{text.kept_of(t.truncated_length, t.original_length)}</span>
                <pre class="message">{t.summary_message.clone()}</pre>
            </div>
        }.into_any()),
        (None, None, RowState::Scanned) => Some(view! {
            <div class="detail" data-testid="ctxguard-scanned-note"><span class="hint">{text.scanned_note()}</span></div>
        }.into_any()),
        _ => None,
    };
    let name = row.name.clone();
    view! {
        <tr data-testid="ctxguard-attachment-row" data-state=state data-attachment-id=row.attachment_id.to_string()>
            <td class="name">
                <span class="fname">{row.name}</span>
                <span class="mime">{row.mime_type.unwrap_or_else(|| "unknown".into())}</span>
                {detail}
            </td>
            <td class="num">{format_size(row.size_bytes)}</td>
            <td class="num" data-field="tokens">{if has_text { group_thousands(row.tokens) } else { dash() }}</td>
            <td class="num" data-field="allocation">{if has_text { group_thousands(row.allocation) } else { dash() }}</td>
            <td><span class=format!("tag tag-{state}")>{status}</span></td>
            <td class="remove">
                <button type="button" class="btn-icon" data-testid="ctxguard-attachment-remove" aria-label=text.remove_file(&name) title=text.remove_file(&name) on:click=move |_| on_remove()>
                    "×"
                </button>
            </td>
        </tr>
    }
}
