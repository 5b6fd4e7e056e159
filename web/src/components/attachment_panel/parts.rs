//! The panel's pieces, one component each: its head (title, clear), the
//! budget hint, the drop zone and picker, the note while a preview works
//! (progress bars, cancel), and the note of how the last one ended.

use super::{files_of, FileList, Status};
use crate::attachment_budget::AttachmentBudget;
use crate::i18n::{Lang, Text};
use leptos::prelude::*;

/// The title, and a button that clears the picked files.
#[component]
pub(super) fn PanelHead(files: FileList, lang: Lang) -> impl IntoView {
    view! {
        <div class="panel-head">
            <h2>{Text(lang).attach_title()}</h2>
            {move || {
                (files.with(|f| !f.is_empty())).then(|| view! {
                    <button type="button" class="btn-ghost" part="clear" data-testid="ctxguard-attachments-clear" on:click=move |_| files.set(Vec::new())>
                        {Text(lang).clear()}
                    </button>
                })
            }}
        </div>
    }
}

/// The model and token budget the preview counts against.
#[component]
pub(super) fn BudgetHint(budget: Signal<AttachmentBudget>, lang: Lang) -> impl IntoView {
    view! {
        <p class="hint" part="hint" data-testid="ctxguard-preview-budget" data-model=move || budget.with(|b| b.model.clone()) data-limit=move || budget.with(|b| b.limit_tokens.to_string())>
            {move || budget.with(|b| Text(lang).attach_hint(&b.model, b.limit_tokens))}
        </p>
    }
}

/// Where files are dropped or picked; each pick or drop is handed to `on_files`.
#[component]
pub(super) fn DropZone(on_files: Callback<Vec<web_sys::File>>, lang: Lang) -> impl IntoView {
    let dragging = RwSignal::new(false);
    let on_change = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        on_files.run(files_of(input.files()));
        input.set_value("");
    };
    let on_drop = move |ev: leptos::ev::DragEvent| {
        ev.prevent_default();
        dragging.set(false);
        on_files.run(files_of(ev.data_transfer().and_then(|d| d.files())));
    };
    let on_drag_over = move |ev: leptos::ev::DragEvent| {
        ev.prevent_default();
        dragging.set(true);
    };
    let text = Text(lang);
    view! {
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
    }
}

/// While a preview works: what it does, a Cancel button, one progress bar a
/// file (drawn into `progress_list` as bytes are read).
#[component]
pub(super) fn WorkingNote(
    progress_list: NodeRef<leptos::html::Ul>,
    on_cancel: Callback<()>,
    lang: Lang,
) -> impl IntoView {
    view! {
        <div class="working" data-testid="ctxguard-preview-busy">
            <div class="working-head">
                <p class="reading">{Text(lang).parsing()}</p>
                <button type="button" class="btn-ghost" part="cancel" data-testid="ctxguard-preview-cancel" on:click=move |_| on_cancel.run(())>
                    {Text(lang).cancel()}
                </button>
            </div>
            <ul class="progress-list" node_ref=progress_list></ul>
        </div>
    }
}

/// How the last preview ended when it did not end with a report.
#[component]
pub(super) fn EndNote(status: RwSignal<Status>, lang: Lang) -> impl IntoView {
    move || {
        match status.get() {
        Status::Cancelled => Some(view! { <p class="reading" data-testid="ctxguard-preview-cancelled">{Text(lang).cancelled().to_string()}</p> }.into_any()),
        Status::Failed(why) => Some(view! { <p class="error" data-testid="ctxguard-preview-error">{Text(lang).preview_failed(&why)}</p> }.into_any()),
        _ => None,
    }
    }
}
