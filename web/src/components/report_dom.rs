//! The preview's report and progress as DOM, built directly rather than as
//! Leptos views: a table of rows is rebuilt whole on each report, so a plain
//! builder costs the toolbar's module a fraction of what per-row views do
//! (the module stays within its size budget). Every string goes in as text
//! (`set_text_content`), never as HTML.

use crate::i18n::{group_thousands, Lang, Text};
use ctxguard_core::attachment::{format_size, Inlined, PreviewReport, PreviewRow, RowState};
use web_sys::{Document, Element};

/// An element with a class, in `parent`.
fn child(doc: &Document, parent: &Element, tag: &str, class: &str) -> Option<Element> {
    let el = doc.create_element(tag).ok()?;
    if !class.is_empty() {
        el.set_class_name(class);
    }
    parent.append_child(&el).ok()?;
    Some(el)
}

/// An element with a class and text, in `parent`.
fn text(
    doc: &Document,
    parent: &Element,
    tag: &str,
    class: &str,
    content: &str,
) -> Option<Element> {
    let el = child(doc, parent, tag, class)?;
    el.set_text_content(Some(content));
    Some(el)
}

fn status(t: Text, state: RowState) -> &'static str {
    match state {
        RowState::Fits => t.fits(),
        RowState::Cut => t.will_be_cut(),
        RowState::Image => t.image(),
        RowState::Binary => t.binary(),
        RowState::Rejected => t.rejected(),
        RowState::TruncatedOnUpload => t.truncated_on_upload(),
        RowState::Scanned => t.scanned(),
    }
}

/// The detail under a row's name: the refusal (Wegent's title and hint, the
/// backend's message; the chat input's own toast for a file it refuses), what an upload keeps, or the OCR note.
fn detail(
    doc: &Document,
    cell: &Element,
    row: &PreviewRow,
    t: Text,
    max_upload_mb: u64,
) -> Option<()> {
    if let Some(e) = &row.error {
        let box_ = child(doc, cell, "div", "detail")?;
        box_.set_attribute("data-testid", "ctxguard-attachment-error")
            .ok()?;
        box_.set_attribute("data-code", &e.code).ok()?;
        if let Some(m) = &e.admission {
            // Refused by the chat input before upload: the frontend's toast, localised.
            box_.set_attribute("data-key", &m.title.key).ok()?;
            text(doc, &box_, "strong", "", &t.admission(&m.title))?;
            if let Some(d) = &m.description {
                text(doc, &box_, "span", "hint", &t.admission(d))?;
            }
            return Some(());
        }
        text(doc, &box_, "strong", "", t.error_title(&e.code))?;
        text(
            doc,
            &box_,
            "span",
            "hint",
            &t.error_hint(&e.code, max_upload_mb),
        )?;
        text(doc, &box_, "code", "message", &e.message)?;
    } else if let Some(u) = &row.upload_truncation {
        let box_ = child(doc, cell, "div", "detail")?;
        box_.set_attribute("data-testid", "ctxguard-upload-truncation")
            .ok()?;
        text(doc, &box_, "strong", "", t.content_truncated())?;
        text(
            doc,
            &box_,
            "span",
            "hint",
            &t.kept_of(u.truncated_length, u.original_length),
        )?;
        text(doc, &box_, "pre", "message", &u.summary_message)?;
    } else if row.state == RowState::Scanned {
        let box_ = child(doc, cell, "div", "detail")?;
        box_.set_attribute("data-testid", "ctxguard-scanned-note")
            .ok()?;
        text(doc, &box_, "span", "hint", t.scanned_note())?;
    }
    Some(())
}

/// One `<tr>`: name (and detail), size, tokens, allocation, status, remove.
fn row_dom(
    doc: &Document,
    body: &Element,
    index: usize,
    row: &PreviewRow,
    t: Text,
    max_upload_mb: u64,
) -> Option<()> {
    let tr = child(doc, body, "tr", "")?;
    let state = row.state.as_str();
    tr.set_attribute("data-testid", "ctxguard-attachment-row")
        .ok()?;
    tr.set_attribute("data-state", state).ok()?;
    tr.set_attribute("data-attachment-id", &row.attachment_id.to_string())
        .ok()?;
    let name = child(doc, &tr, "td", "name")?;
    text(doc, &name, "span", "fname", &row.name)?;
    text(
        doc,
        &name,
        "span",
        "mime",
        row.mime_type.as_deref().unwrap_or("unknown"),
    )?;
    detail(doc, &name, row, t, max_upload_mb)?;
    text(doc, &tr, "td", "num", &format_size(row.size_bytes))?;
    let has_text = row.inlined == Inlined::Text;
    for (field, value) in [("tokens", row.tokens), ("allocation", row.allocation)] {
        let shown = if has_text {
            group_thousands(value)
        } else {
            "—".to_string()
        };
        text(doc, &tr, "td", "num", &shown)?
            .set_attribute("data-field", field)
            .ok()?;
    }
    let tag_cell = child(doc, &tr, "td", "")?;
    text(
        doc,
        &tag_cell,
        "span",
        &format!("tag tag-{state}"),
        status(t, row.state),
    )?;
    let remove_cell = child(doc, &tr, "td", "remove")?;
    let button = text(doc, &remove_cell, "button", "btn-icon", "×")?;
    let label = t.remove_file(&row.name);
    for (name, value) in [
        ("type", "button"),
        ("data-testid", "ctxguard-attachment-remove"),
        ("aria-label", label.as_str()),
        ("title", label.as_str()),
    ] {
        button.set_attribute(name, value).ok()?;
    }
    button
        .set_attribute("data-index", &index.to_string())
        .ok()?;
    Some(())
}

/// Replaces `container`'s content with the report: summary, table, rendered block.
pub fn render_report(container: &Element, report: &PreviewReport, lang: Lang, max_upload_mb: u64) {
    container.set_text_content(None);
    let _ = build_report(container, report, Text(lang), max_upload_mb);
}

fn build_report(
    container: &Element,
    report: &PreviewReport,
    t: Text,
    max_upload_mb: u64,
) -> Option<()> {
    let doc = container.owner_document()?;
    let summary = t.attach_summary(
        report.block_tokens_before,
        report.block_tokens_after,
        report.cut_count(),
        report.rejected_count(),
    );
    text(&doc, container, "p", "summary", &summary)?
        .set_attribute("data-testid", "ctxguard-attachments-summary")
        .ok()?;
    let wrap = child(&doc, container, "div", "table-wrap")?;
    let table = child(&doc, &wrap, "table", "files")?;
    table.set_attribute("part", "table").ok()?;
    table
        .set_attribute("data-testid", "ctxguard-attachments-table")
        .ok()?;
    let head = child(&doc, &table, "thead", "")?;
    let tr = child(&doc, &head, "tr", "")?;
    let [c_file, c_size, c_tokens, c_alloc, c_status] = t.columns();
    for (label, class) in [
        (c_file, ""),
        (c_size, "num"),
        (c_tokens, "num"),
        (c_alloc, "num"),
        (c_status, ""),
        ("", "remove"),
    ] {
        text(&doc, &tr, "th", class, label)?;
    }
    let body = child(&doc, &table, "tbody", "")?;
    for (i, row) in report.attachments.iter().enumerate() {
        row_dom(&doc, &body, i, row, t, max_upload_mb)?;
    }
    if !report.rendered.is_empty() {
        let details = child(&doc, container, "details", "rendered")?;
        details.set_attribute("part", "rendered").ok()?;
        details
            .set_attribute("data-testid", "ctxguard-rendered")
            .ok()?;
        text(&doc, &details, "summary", "", t.show_rendered())?;
        text(&doc, &details, "pre", "", &report.rendered)?;
    }
    Some(())
}

/// Replaces `list`'s content with one progress bar per file (`names`).
pub fn render_progress(list: &Element, names: &[String]) {
    list.set_text_content(None);
    let Some(doc) = list.owner_document() else {
        return;
    };
    for (i, name) in names.iter().enumerate() {
        let _ = (|| -> Option<()> {
            let li = child(&doc, list, "li", "")?;
            text(&doc, &li, "span", "fname", name)?;
            let bar = child(&doc, &li, "div", "bar")?;
            for (k, v) in [
                ("data-testid", "ctxguard-preview-progress"),
                ("role", "progressbar"),
                ("aria-valuemin", "0"),
                ("aria-valuemax", "100"),
                ("aria-valuenow", "0"),
                ("aria-label", name.as_str()),
            ] {
                bar.set_attribute(k, v).ok()?;
            }
            bar.set_attribute("data-file-index", &i.to_string()).ok()?;
            child(&doc, &bar, "div", "fill")?;
            Some(())
        })();
    }
}

/// Moves bar `index` of `list` to `done` of `total` bytes.
pub fn set_progress(list: &Element, index: usize, done: f64, total: f64) {
    let pct = if total > 0.0 {
        ((done / total) * 100.0).clamp(0.0, 100.0) as u32
    } else {
        100
    };
    let selector = format!("[data-file-index=\"{index}\"]");
    if let Ok(Some(bar)) = list.query_selector(&selector) {
        let _ = bar.set_attribute("aria-valuenow", &pct.to_string());
        if let Some(fill) = bar.first_element_child() {
            let _ = fill.set_attribute("style", &format!("width: {pct}%"));
        }
    }
}
