//! The attachment budget preview: a drop zone and file picker; the files are
//! read here in the browser (nothing is uploaded) and previewed by a
//! [`Previewer`] under the session's model and budget: one row per file and
//! the block as the model will see it.

use crate::attachment_budget::AttachmentBudget;
use crate::attachments::{
    FileBody, PickedFile, PreviewReport, PreviewRequest, PreviewRow, RowState, MAX_READ_BYTES,
};
use crate::i18n::{group_thousands, Lang, Text};
use crate::preview_engine::Previewer;
use ctxguard_core::attachment::format_size;
use leptos::prelude::*;
use send_wrapper::SendWrapper;
use std::rc::Rc;
use wasm_bindgen_futures::JsFuture;

/// Reads one browser file: an image as base64, else text when it is UTF-8, else binary; big files are not read.
pub async fn read_file(file: web_sys::File) -> PickedFile {
    let size = file.size();
    let mime = Some(file.type_()).filter(|m| !m.is_empty());
    let body = if size > MAX_READ_BYTES as f64 {
        FileBody::TooLarge
    } else {
        match JsFuture::from(file.array_buffer()).await {
            Ok(buffer) => {
                FileBody::classify(js_sys::Uint8Array::new(&buffer).to_vec(), mime.as_deref())
            }
            Err(_) => FileBody::Binary,
        }
    };
    PickedFile {
        name: file.name(),
        mime_type: mime,
        size_bytes: size as i64,
        body,
    }
}

/// Reads every file, in order.
pub async fn read_files(files: Vec<web_sys::File>) -> Vec<PickedFile> {
    let mut picked = Vec::with_capacity(files.len());
    for file in files {
        picked.push(read_file(file).await);
    }
    picked
}

/// The files of a `FileList`.
pub fn files_of(list: Option<web_sys::FileList>) -> Vec<web_sys::File> {
    let Some(list) = list else { return Vec::new() };
    (0..list.length()).filter_map(|i| list.item(i)).collect()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Busy {
    Idle,
    Reading,
    LoadingTokenizer,
    Computing,
}

/// The panel. `files` may be passed in (hosts set them); otherwise the panel keeps its own.
/// `on_report` is called with every preview computed (or why it could not be).
#[component]
pub fn AttachmentPanel(
    #[prop(into)] budget: Signal<AttachmentBudget>,
    lang: Lang,
    previewer: Rc<dyn Previewer>,
    #[prop(optional)] files: Option<RwSignal<Vec<PickedFile>>>,
    #[prop(optional, into)] on_report: Option<Callback<Result<PreviewReport, String>>>,
) -> impl IntoView {
    let files = files.unwrap_or_else(|| RwSignal::new(Vec::new()));
    let report: RwSignal<Option<Result<PreviewReport, String>>> = RwSignal::new(None);
    let busy = RwSignal::new(Busy::Idle);
    let dragging = RwSignal::new(false);
    let generation = StoredValue::new(0u64);
    let previewer = SendWrapper::new(previewer);
    let text = Text(lang);

    Effect::new(move |_| {
        let budget = budget.get();
        let picked = files.get();
        let current = generation.get_value() + 1;
        generation.set_value(current);
        if picked.is_empty() {
            report.set(None);
            busy.set(Busy::Idle);
            return;
        }
        busy.set(if previewer.needs_loading() {
            Busy::LoadingTokenizer
        } else {
            Busy::Computing
        });
        let pending = previewer.preview(PreviewRequest {
            files: picked,
            model: budget.model,
            limit_tokens: budget.limit_tokens,
        });
        leptos::task::spawn_local(async move {
            let outcome = pending.await;
            if generation.get_value() != current {
                return;
            }
            if let Some(callback) = on_report {
                callback.run(outcome.clone());
            }
            report.set(Some(outcome));
            busy.set(Busy::Idle);
        });
    });

    let add_files = move |picked: Vec<web_sys::File>| {
        if picked.is_empty() {
            return;
        }
        busy.set(Busy::Reading);
        leptos::task::spawn_local(async move {
            let mut read = read_files(picked).await;
            files.update(|f| f.append(&mut read));
        });
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
    let busy_line = move || {
        let t = Text(lang);
        match busy.get() {
            Busy::Idle => None,
            Busy::Reading => Some(t.reading()),
            Busy::LoadingTokenizer => Some(t.loading_tokenizer()),
            Busy::Computing => None,
        }
        .map(|line| view! { <p class="reading" data-testid="ctxguard-preview-busy">{line}</p> })
    };

    view! {
        <section class="panel" part="panel" data-testid="ctxguard-attachments" data-busy=move || (busy.get() != Busy::Idle).to_string()>
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
            {busy_line}
            {move || report.get().map(|r| match r {
                Ok(r) => view! { <PreviewTable report=r lang=lang /> }.into_any(),
                Err(why) => view! { <p class="error" data-testid="ctxguard-preview-error">{Text(lang).preview_failed(&why)}</p> }.into_any(),
            })}
        </section>
    }
}

#[component]
fn PreviewTable(report: PreviewReport, lang: Lang) -> impl IntoView {
    let text = Text(lang);
    let [c_file, c_size, c_tokens, c_alloc, c_status] = text.columns();
    let summary = text.attach_summary(
        report.block_tokens_before,
        report.block_tokens_after,
        report.cut_count(),
    );
    let rows = report
        .attachments
        .into_iter()
        .map(|row| view! { <PreviewRowView row=row lang=lang /> })
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
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
        {rendered}
    }
}

#[component]
fn PreviewRowView(row: PreviewRow, lang: Lang) -> impl IntoView {
    let text = Text(lang);
    let status = match row.state {
        RowState::Fits => text.fits(),
        RowState::Cut => text.will_be_cut(),
        RowState::Image => text.image(),
        RowState::Binary => text.binary(),
        RowState::TooLarge => text.too_large(),
    };
    let has_text = matches!(row.state, RowState::Fits | RowState::Cut);
    let dash = || "—".to_string();
    let state = row.state.as_str();
    view! {
        <tr data-testid="ctxguard-attachment-row" data-state=state data-attachment-id=row.attachment_id.to_string()>
            <td class="name">
                <span class="fname">{row.name}</span>
                <span class="mime">{row.mime_type.unwrap_or_else(|| "unknown".into())}</span>
            </td>
            <td class="num">{format_size(row.size_bytes)}</td>
            <td class="num" data-field="tokens">{if has_text { group_thousands(row.tokens) } else { dash() }}</td>
            <td class="num" data-field="allocation">{if has_text { group_thousands(row.allocation) } else { dash() }}</td>
            <td><span class=format!("tag tag-{state}")>{status}</span></td>
        </tr>
    }
}
