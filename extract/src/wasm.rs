//! The JavaScript API of ctxguard-extract (feature `wasm`), the npm subpath
//! `ctxguard-core/documents`: `parseDocument(bytes | blob, filename, options?)`
//! answers as a `document_parse` case's `expected` (with the real text and
//! image in `record`), or throws an `Error` whose `code` is the reference's
//! error code and whose `message` is its message; `runDocumentCases(jsonl)`
//! runs recorded cases in the browser. Nothing of the tokenizer is linked.

use crate::blob::BlobSource;
use crate::conformance;
use crate::{upload_source, Options, Source, DEFAULT_MAX_TEXT_LENGTH};
use wasm_bindgen::prelude::*;

/// An `Error` with a message (and, for refusals, `code` and `record`).
fn error(message: &str) -> JsValue {
    js_sys::Error::new(message).into()
}

fn json(value: &serde_json::Value) -> Result<JsValue, JsValue> {
    js_sys::JSON::parse(&value.to_string())
}

/// `options.max_text_length`: a whole number, or the default when absent.
fn max_text_length(options: &JsValue) -> Result<i64, JsValue> {
    if options.is_undefined() || options.is_null() {
        return Ok(DEFAULT_MAX_TEXT_LENGTH);
    }
    if !options.is_object() {
        return Err(error(
            "options: expected an object like {max_text_length: 500000}",
        ));
    }
    let value = js_sys::Reflect::get(options, &"max_text_length".into())?;
    if value.is_undefined() || value.is_null() {
        return Ok(DEFAULT_MAX_TEXT_LENGTH);
    }
    match value.as_f64() {
        Some(n) if n.fract() == 0.0 && n.abs() <= 9_007_199_254_740_991.0 => Ok(n as i64),
        _ => Err(error(
            "options.max_text_length: expected a whole number of characters",
        )),
    }
}

/// The answer for one upload read from `source`: the `expected` object, or the refusal thrown.
fn answer(source: &dyn Source, filename: &str, options: &Options) -> Result<JsValue, JsValue> {
    let up = upload_source(source, filename, options);
    let answer = up.to_json(false);
    match &up.outcome {
        Ok(_) => json(&answer),
        Err(refusal) => {
            let e = error(&refusal.message);
            js_sys::Reflect::set(&e, &"code".into(), &refusal.code.as_str().into())?;
            js_sys::Reflect::set(&e, &"record".into(), &json(&answer["record"])?)?;
            Err(e)
        }
    }
}

/// Parses an upload as Wegent's backend does: `input` is the bytes (a
/// `Uint8Array`), or a `Blob`/`File` — read where it lies by slices in a
/// dedicated worker (`FileReaderSync`, the answer returned at once), read
/// asynchronously elsewhere (the main thread, Node: a `Promise` of the answer).
#[wasm_bindgen(js_name = parseDocument, skip_typescript)]
pub fn parse_document(
    input: JsValue,
    filename: &str,
    options: JsValue,
) -> Result<JsValue, JsValue> {
    let options = Options {
        max_text_length: max_text_length(&options)?,
        ..Options::default()
    };
    if let Some(bytes) = input.dyn_ref::<js_sys::Uint8Array>() {
        return answer(&bytes.to_vec(), filename, &options);
    }
    // What a `&[u8]` parameter took before Blobs: an ArrayBuffer or an array of bytes.
    if input.is_instance_of::<js_sys::ArrayBuffer>() || js_sys::Array::is_array(&input) {
        return answer(
            &js_sys::Uint8Array::new(&input).to_vec(),
            filename,
            &options,
        );
    }
    let Some(blob) = input.dyn_ref::<web_sys::Blob>() else {
        return Err(error(
            "parseDocument: expected the upload as a Uint8Array, a Blob or a File",
        ));
    };
    if let Ok(source) = BlobSource::new(blob.clone(), None) {
        return answer(&source, filename, &options);
    }
    // No FileReaderSync here: read the Blob asynchronously, then parse its bytes.
    let filename = filename.to_string();
    let parse = Closure::once_into_js(move |buffer: JsValue| -> Result<JsValue, JsValue> {
        answer(
            &js_sys::Uint8Array::new(&buffer).to_vec(),
            &filename,
            &options,
        )
    });
    let read = blob.array_buffer();
    let then: js_sys::Function = js_sys::Reflect::get(&read, &"then".into())?.dyn_into()?;
    then.call1(&read, &parse)
}

/// Runs the `document_parse` lines of a JSONL text (other kinds are counted as
/// failures: this module has no tokenizer); `{passed, failures: [[id, reason]]}`.
#[wasm_bindgen(
    js_name = runDocumentCases,
    unchecked_return_type = "{ passed: number; failures: [string, string][] }"
)]
pub fn run_document_cases(jsonl: &str) -> Result<JsValue, JsValue> {
    let mut passed = 0usize;
    let mut failures = Vec::new();
    for (i, line) in jsonl.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let case: serde_json::Value = match serde_json::from_str(line) {
            Ok(case) => case,
            Err(e) => {
                failures.push(serde_json::json!([
                    format!("line {}", i + 1),
                    e.to_string()
                ]));
                continue;
            }
        };
        let id = case["id"]
            .as_str()
            .map_or_else(|| format!("line {}", i + 1), str::to_string);
        if case["kind"].as_str() != Some(conformance::KIND) {
            failures.push(serde_json::json!([id, "not a document_parse case"]));
            continue;
        }
        match conformance::check(&case) {
            Ok(()) => passed += 1,
            Err(e) => failures.push(serde_json::json!([id, e.to_string()])),
        }
    }
    json(&serde_json::json!({"passed": passed, "failures": failures}))
}

/// The package's TypeScript declarations of this module.
#[wasm_bindgen(typescript_custom_section)]
const TS: &str = r#"
/** The image the backend hands to vision models. */
export interface DocumentImage { mime_type: string; width: number; height: number; resized: boolean; }
/** How the backend's smart truncation cut the text. */
export interface DocumentTruncation {
  truncation_type: "smart" | "simple";
  original_length: number | null;
  truncated_length: number | null;
  summary_message: string;
  original_structure: Record<string, unknown>;
  kept_structure: Record<string, unknown>;
}
/** The attachment record the backend stores (with the real text and image). */
export interface DocumentRecord {
  status: "ready" | "failed";
  error_message: string;
  extracted_text: string;
  text_length: number;
  image_base64: string;
  type_data: { original_filename: string; file_extension: string; file_size: number; mime_type: string; is_truncated?: boolean };
  truncation_info: { is_truncated: true; original_length: number | null; truncated_length: number | null; truncation_message_key: "content_truncated" } | null;
  parsed: boolean;
}
/** What `parseDocument` returns. */
export interface ParsedDocument {
  text: string;
  text_length: number;
  is_truncated: boolean;
  truncation: DocumentTruncation | null;
  image: DocumentImage | null;
  record: DocumentRecord;
}
/** The backend's refusal codes. */
export type DocumentErrorCode = "unsupported_type" | "unrecognized_type" | "parse_failed" | "encrypted_pdf" | "legacy_doc" | "legacy_ppt" | "legacy_xls" | "file_too_large";
/** What `parseDocument` throws for a file the backend refuses. */
export interface DocumentError extends Error { code: DocumentErrorCode; record: DocumentRecord; }
/** `parseDocument`'s options: `MAX_EXTRACTED_TEXT_LENGTH` (default 500 000). */
export interface ParseDocumentOptions { max_text_length?: number; }
/**
 * Parses an upload held in memory as Wegent's backend does; throws a
 * `DocumentError` for a file the backend refuses.
 */
export function parseDocument(bytes: Uint8Array, filename: string, options?: ParseDocumentOptions): ParsedDocument;
/**
 * Parses a `Blob` or `File` where it lies. In a dedicated worker it is read
 * synchronously by slices (`FileReaderSync`), never copied whole into the
 * module's memory, and the answer is returned at once; elsewhere (the main
 * thread, Node) it is read asynchronously and a `Promise` of the answer is
 * returned (rejected with the `DocumentError`).
 */
export function parseDocument(file: Blob, filename: string, options?: ParseDocumentOptions): ParsedDocument | Promise<ParsedDocument>;
"#;
