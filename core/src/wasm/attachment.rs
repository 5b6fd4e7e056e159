//! Attachments for JS hosts: the `<attachment>` block the backend composes
//! for a user message, the header line, the shared preview budget and its
//! water-filling, and the `read_attachment` tool's pages (SPEC §6, §7).

use super::args::{
    counter_arg, describe, fail, int_arg, is_array, is_nullish, json_arg, map_array, messages_arg,
    non_negative, non_negative_int_arg, object_arg, string_arg, to_js, typed, JsResult,
};
use crate::attachment::{
    allocate_budget, build_header, compose_message, is_text_readable_mime, preview_messages,
    Attachment, ComposeOptions, HeaderArgs,
};
use crate::read_attachment::{read_page, Document};
use serde_json::Value;
use wasm_bindgen::prelude::*;

/// Bounds every `<attachment>` block of `messages` to `limit` tokens (0 turns the pass off);
/// returns the new messages, the trace records and a report per attachment.
#[wasm_bindgen(js_name = previewAttachments, unchecked_return_type = "AttachmentPreview")]
pub fn preview_attachments(
    #[wasm_bindgen(unchecked_param_type = "Message[]")] messages: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] model: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] limit: JsValue,
) -> JsResult<JsValue> {
    let messages = messages_arg(&messages, "messages")?;
    let counter = counter_arg(&model)?;
    let limit = non_negative_int_arg(&limit, "limit")?;
    to_js(&preview_messages(&messages, &counter, limit))
}

/// Splits `budget` tokens over bodies of `sizes` tokens, smallest first (water-filling).
#[wasm_bindgen(js_name = allocateBudget, unchecked_return_type = "number[]")]
pub fn allocate_budget_js(
    #[wasm_bindgen(unchecked_param_type = "number[]")] sizes: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] budget: JsValue,
) -> JsResult<JsValue> {
    if !is_array(&sizes) {
        return Err(fail(
            "sizes",
            format!("expected an array of integers, got {}", describe(&sizes)),
        ));
    }
    let sizes = map_array(&sizes, "sizes", |i, v| {
        non_negative_int_arg(v, &format!("sizes[{i}]"))
    })?;
    let budget = non_negative_int_arg(&budget, "budget")?;
    to_js(&allocate_budget(&sizes, budget))
}

/// Drops `key` from a JSON object when it is `null` (for fields where null means the default).
fn null_is_absent(value: &mut Value, keys: &[&str]) {
    if let Some(obj) = value.as_object_mut() {
        for key in keys {
            if obj.get(*key).is_some_and(Value::is_null) {
                obj.shift_remove(*key);
            }
        }
    }
}

/// The header line a client writes before an attachment body.
#[wasm_bindgen(js_name = buildAttachmentHeader)]
pub fn build_attachment_header(
    #[wasm_bindgen(unchecked_param_type = "HeaderArgs")] args: JsValue,
) -> JsResult<String> {
    let shape = "{attachment_id, filename, mime_type?, file_size, sandbox_path?, is_image?}";
    let mut value = object_arg(
        &args,
        "args",
        shape,
        &["attachment_id", "filename", "file_size"],
    )?;
    // `is_image: null` means not an image, as an absent field does.
    null_is_absent(&mut value, &["is_image"]);
    let header: HeaderArgs = typed(value, "args")?;
    non_negative(header.file_size, "args.file_size")?;
    Ok(build_header(&header))
}

/// One attachment of `composeAttachmentBlock`, at `attachments[i]`.
fn attachment_arg(mut value: Value, arg: &str) -> JsResult<Attachment> {
    if !value.is_object() {
        return Err(fail(
            arg,
            "expected an attachment object {attachment_id, filename, …}",
        ));
    }
    if value.get("attachment_id").is_none_or(Value::is_null) {
        return Err(fail(arg, "missing required field \"attachment_id\""));
    }
    null_is_absent(&mut value, &["filename", "is_truncated", "is_image"]);
    let attachment: Attachment = typed(value, arg)?;
    if let Some(size) = attachment.file_size {
        non_negative(size, &format!("{arg}.file_size"))?;
    }
    Ok(attachment)
}

/// The options of `composeAttachmentBlock`: how to compose, and the user message.
fn compose_options_arg(v: &JsValue) -> JsResult<(ComposeOptions, String)> {
    let mut options = ComposeOptions::default();
    if is_nullish(v) {
        return Ok((options, String::new()));
    }
    let shape = "{inline_attachment_content?, inject_max_chars?, message?}";
    let Value::Object(given) = object_arg(v, "options", shape, &[])? else {
        return Err(fail("options", format!("expected an object {shape}")));
    };
    let mut message = String::new();
    for (key, value) in given {
        let at = format!("options.{key}");
        if value.is_null() {
            continue;
        }
        match key.as_str() {
            "inline_attachment_content" => {
                options.inline_attachment_content = value
                    .as_bool()
                    .ok_or_else(|| fail(&at, format!("expected a boolean, got {value}")))?;
            }
            // Any safe integer: 0 or less turns the cap off, as the backend's setting does.
            "inject_max_chars" => {
                // Safe integers arrive as JSON integers; fractions and larger numbers do not.
                options.inject_max_chars = value
                    .as_i64()
                    .ok_or_else(|| fail(&at, format!("expected a safe integer, got {value}")))?;
            }
            "message" => {
                message = value
                    .as_str()
                    .ok_or_else(|| fail(&at, format!("expected a string, got {value}")))?
                    .to_string();
            }
            _ => {
                let known = "`inline_attachment_content`, `inject_max_chars`, `message`";
                return Err(fail(
                    "options",
                    format!("unknown field `{key}`, expected one of {known}"),
                ));
            }
        }
    }
    Ok((options, message))
}

/// The user message `options.message` as Wegent's backend sends it with `attachments`: the
/// `<attachment>` text block, one image block per inlined image and the message as blocks, or
/// the message string itself when no attachment adds anything (SPEC §6, block composition).
#[wasm_bindgen(js_name = composeAttachmentBlock, unchecked_return_type = "ComposedMessage")]
pub fn compose_attachment_block(
    #[wasm_bindgen(unchecked_param_type = "Attachment[]")] attachments: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "ComposeOptions | null")] options: JsValue,
) -> JsResult<JsValue> {
    if !is_array(&attachments) {
        return Err(fail(
            "attachments",
            format!(
                "expected an array of attachment objects, got {}",
                describe(&attachments)
            ),
        ));
    }
    let Value::Array(items) = json_arg(&attachments, "attachments")? else {
        return Err(fail(
            "attachments",
            "expected an array of attachment objects",
        ));
    };
    let attachments = items
        .into_iter()
        .enumerate()
        .map(|(i, item)| attachment_arg(item, &format!("attachments[{i}]")))
        .collect::<JsResult<Vec<_>>>()?;
    let (options, message) = compose_options_arg(&options)?;
    to_js(&compose_message(&attachments, &message, options))
}

/// Whether a file of this MIME type is readable text (`text/*`, `+json`, `+xml`, and known application types).
#[wasm_bindgen(js_name = isTextReadableMime)]
pub fn is_text_readable_mime_js(
    #[wasm_bindgen(unchecked_param_type = "string")] mime: JsValue,
) -> JsResult<bool> {
    Ok(is_text_readable_mime(&string_arg(&mime, "mime")?))
}

/// One `read_attachment` call: the page of `doc` from `offset` (negative reads from 0), at most `limit`
/// characters (0 = default) and `pageTokenLimit` tokens (0 = 15000); `doc` is null when it cannot be read.
#[wasm_bindgen(js_name = readAttachmentPage, unchecked_return_type = "ReadResult")]
pub fn read_attachment_page(
    #[wasm_bindgen(unchecked_param_type = "AttachmentDocument | null")] doc: JsValue,
    #[wasm_bindgen(js_name = attachmentId, unchecked_param_type = "number")] attachment_id: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] offset: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] limit: JsValue,
    #[wasm_bindgen(js_name = pageTokenLimit, unchecked_param_type = "number")]
    page_token_limit: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] model: JsValue,
) -> JsResult<JsValue> {
    let doc: Option<Document> = if is_nullish(&doc) {
        None
    } else {
        let shape = "{text, name, mime_type, source_truncated?}";
        let mut value = object_arg(&doc, "doc", shape, &["text", "name", "mime_type"])?;
        null_is_absent(&mut value, &["source_truncated"]);
        Some(typed(value, "doc")?)
    };
    let attachment_id = int_arg(&attachment_id, "attachmentId")?;
    let offset = int_arg(&offset, "offset")?;
    let limit = non_negative_int_arg(&limit, "limit")?;
    let page_token_limit = non_negative_int_arg(&page_token_limit, "pageTokenLimit")?;
    let counter = counter_arg(&model)?;
    to_js(&read_page(
        doc.as_ref(),
        attachment_id,
        offset,
        limit,
        page_token_limit,
        &counter,
    ))
}
