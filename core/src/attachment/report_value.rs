//! [`PreviewReport::from_value`]: a preview report read from a
//! [`serde_json::Value`] field by field, without serde's derived visitors.
//!
//! The toolbar's module reads every report its preview worker sends; the
//! derived `Deserialize` of the report's nine types (a visitor, an
//! `Option<T>` reader and a field matcher each, monomorphised for the `Value`
//! deserializer) is most of the code that reading costs there, against the
//! first load's 200 KB brotli budget. A lookup by name and a typed accessor
//! per field ([`crate::value_fields`]) is a fraction of that. The derive stays the contract: every
//! other host reads reports with it, and the tests pin this reader to it (the
//! same report from the same JSON, refused where it refuses). One form the
//! derive takes is refused here: a struct written as an array of its fields in
//! order, which no writer of reports produces.

use super::admission::{MessageRef, RefusalMessage};
use super::block::Inlined;
use super::files::{FileError, PreviewReport, PreviewRow, RowState, UploadTruncation};
use super::message_params::MessageParams;
use crate::value_fields::{items, variant, Fields};
use serde_json::Value;

fn row_state(value: &Value) -> Option<RowState> {
    let name = variant(value)?;
    [
        RowState::Fits,
        RowState::Cut,
        RowState::Image,
        RowState::Binary,
        RowState::Rejected,
        RowState::TruncatedOnUpload,
        RowState::Scanned,
    ]
    .into_iter()
    .find(|s| s.as_str() == name)
}

fn inlined(value: &Value) -> Option<Inlined> {
    Some(match variant(value)? {
        "text" => Inlined::Text,
        "image" => Inlined::Image,
        "header" => Inlined::Header,
        "nothing" => Inlined::Nothing,
        _ => return None,
    })
}

fn params(value: &Value) -> Option<MessageParams> {
    let mut params = MessageParams::default();
    for (name, value) in value.as_object()? {
        params.insert(name.clone(), value.as_str()?.to_string());
    }
    Some(params)
}

fn message_ref(value: &Value) -> Option<MessageRef> {
    let f = Fields::of(value)?;
    Some(MessageRef {
        key: f.string("key")?,
        params: f.defaulted("params", params)?,
    })
}

fn refusal_message(value: &Value) -> Option<RefusalMessage> {
    let f = Fields::of(value)?;
    Some(RefusalMessage {
        title: message_ref(f.get("title")?)?,
        description: f.optional("description", message_ref)?,
    })
}

fn file_error(value: &Value) -> Option<FileError> {
    let f = Fields::of(value)?;
    Some(FileError {
        code: f.string("code")?,
        message: f.string("message")?,
        admission: f.optional("admission", refusal_message)?,
    })
}

fn upload_truncation(value: &Value) -> Option<UploadTruncation> {
    let f = Fields::of(value)?;
    Some(UploadTruncation {
        summary_message: f.string("summary_message")?,
        original_length: f.integer("original_length")?,
        truncated_length: f.integer("truncated_length")?,
    })
}

fn row(value: &Value) -> Option<PreviewRow> {
    let f = Fields::of(value)?;
    Some(PreviewRow {
        attachment_id: f.integer("attachment_id")?,
        name: f.string("name")?,
        mime_type: f.optional("mime_type", |v| v.as_str().map(str::to_string))?,
        size_bytes: f.integer("size_bytes")?,
        state: row_state(f.get("state")?)?,
        error: f.optional("error", file_error)?,
        upload_truncation: f.optional("upload_truncation", upload_truncation)?,
        inlined: inlined(f.get("inlined")?)?,
        stored_chars: f.count("stored_chars")?,
        injected_chars: f.count("injected_chars")?,
        capped: f.flag("capped")?,
        tokens: f.integer("tokens")?,
        allocation: f.integer("allocation")?,
        truncated: f.flag("truncated")?,
    })
}

impl PreviewReport {
    /// `value` read as a report, as its derived `Deserialize` reads it (`None` where that
    /// refuses it), with none of the derive's code: for the toolbar's module.
    pub fn from_value(value: &Value) -> Option<PreviewReport> {
        let f = Fields::of(value)?;
        Some(PreviewReport {
            model: f.string("model")?,
            limit_tokens: f.integer("limit_tokens")?,
            block_tokens_before: f.integer("block_tokens_before")?,
            block_tokens_after: f.integer("block_tokens_after")?,
            attachments: items(f.get("attachments")?, row)?,
            rendered: f.string("rendered")?,
        })
    }
}

#[cfg(test)]
mod tests;
