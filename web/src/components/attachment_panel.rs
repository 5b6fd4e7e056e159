//! The attachment budget preview: a drop zone and file picker; the files are
//! read here in the browser (nothing is uploaded) and previewed with core
//! under the session's model and budget, one row per file.

use crate::attachments::{self, FileBody, PickedFile, PreviewReport, PreviewRow, MAX_READ_BYTES};
use crate::i18n::{group_thousands, Lang, Text};
use crate::state::AttachmentBudget;
use ctxguard_core::attachment::format_size;
use leptos::prelude::*;
use wasm_bindgen_futures::JsFuture;

/// Reads one browser file: text when it is UTF-8, else binary; big files are not read.
pub async fn read_file(file: web_sys::File) -> PickedFile {
    let size = file.size();
    let mime = Some(file.type_()).filter(|m| !m.is_empty());
    let body = if size > MAX_READ_BYTES as f64 {
        FileBody::TooLarge
    } else {
        match JsFuture::from(file.array_buffer()).await {
            Ok(buffer) => FileBody::classify(js_sys::Uint8Array::new(&buffer).to_vec()),
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

fn files_of(list: Option<web_sys::FileList>) -> Vec<web_sys::File> {
    let Some(list) = list else { return Vec::new() };
    (0..list.length()).filter_map(|i| list.item(i)).collect()
}

/// The panel. `files` may be passed in (tests do); otherwise the panel keeps its own.
#[component]
pub fn AttachmentPanel(
    #[prop(into)] budget: Signal<AttachmentBudget>,
    lang: Lang,
    #[prop(optional)] files: Option<RwSignal<Vec<PickedFile>>>,
) -> impl IntoView {
    let files = files.unwrap_or_else(|| RwSignal::new(Vec::new()));
    let reading = RwSignal::new(0usize);
    let dragging = RwSignal::new(false);
    let text = Text(lang);

    let report: Memo<Option<PreviewReport>> = Memo::new(move |_| {
        let budget = budget.get();
        files.with(|f| {
            (!f.is_empty()).then(|| attachments::preview(f, &budget.model, budget.limit_tokens))
        })
    });

    let add_files = move |picked: Vec<web_sys::File>| {
        if picked.is_empty() {
            return;
        }
        reading.update(|n| *n += picked.len());
        leptos::task::spawn_local(async move {
            for file in picked {
                let file = read_file(file).await;
                files.update(|f| f.push(file));
                reading.update(|n| *n = n.saturating_sub(1));
            }
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

    view! {
        <section class="panel" data-testid="ctxguard-attachments">
            <div class="panel-head">
                <h2>{text.attach_title()}</h2>
                {move || {
                    (files.with(|f| !f.is_empty())).then(|| view! {
                        <button class="btn-ghost" data-testid="ctxguard-attachments-clear" on:click=move |_| files.set(Vec::new())>
                            {Text(lang).clear()}
                        </button>
                    })
                }}
            </div>
            <p class="hint">{move || budget.with(|b| Text(lang).attach_hint(&b.model, b.limit_tokens))}</p>
            <label
                class="dropzone"
                class:dragging=move || dragging.get()
                data-testid="ctxguard-dropzone"
                on:dragover=on_drag_over
                on:dragleave=move |_| dragging.set(false)
                on:drop=on_drop
            >
                <span class="dz-icon" aria-hidden="true"></span>
                <span>{text.drop_here()} " " <span class="linklike">{text.choose_files()}</span></span>
                <input type="file" multiple class="visually-hidden" data-testid="ctxguard-file-input" on:change=on_change />
            </label>
            {move || (reading.get() > 0).then(|| view! { <p class="reading">{Text(lang).reading()}</p> })}
            {move || report.get().map(|r| view! { <PreviewTable report=r lang=lang /> })}
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
        .rows
        .into_iter()
        .map(|row| view! { <PreviewRowView row=row lang=lang /> })
        .collect_view();
    view! {
        <p class="summary" data-testid="ctxguard-attachments-summary">{summary}</p>
        <table class="files" data-testid="ctxguard-attachments-table">
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
        <details class="rendered" data-testid="ctxguard-rendered">
            <summary>{text.show_rendered()}</summary>
            <pre>{report.rendered}</pre>
        </details>
    }
}

#[component]
fn PreviewRowView(row: PreviewRow, lang: Lang) -> impl IntoView {
    let text = Text(lang);
    let (state, status) = match (&row.no_body, row.truncated) {
        (Some(FileBody::TooLarge), _) => ("too-large", text.too_large()),
        (Some(_), _) => ("binary", text.binary()),
        (None, true) => ("cut", text.will_be_cut()),
        (None, false) => ("fits", text.fits()),
    };
    let has_body = row.no_body.is_none();
    let dash = || "—".to_string();
    view! {
        <tr data-testid="ctxguard-attachment-row" data-state=state data-attachment-id=row.attachment_id.to_string()>
            <td class="name">
                <span class="fname">{row.name}</span>
                <span class="mime">{row.mime_type.unwrap_or_else(|| "unknown".into())}</span>
            </td>
            <td class="num">{format_size(row.size_bytes)}</td>
            <td class="num" data-field="tokens">{if has_body { group_thousands(row.tokens) } else { dash() }}</td>
            <td class="num" data-field="allocation">{if has_body { group_thousands(row.allocation) } else { dash() }}</td>
            <td><span class=format!("tag tag-{state}")>{status}</span></td>
        </tr>
    }
}
