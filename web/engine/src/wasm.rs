//! `PreviewSession` for JavaScript: the [`Session`] with JS-cased methods;
//! numbers arrive as JS numbers, options and the report as JSON text; a
//! file arrives as the `Blob` itself and is read where it lies.

use crate::Session;
use ctxguard_core::attachment::{AdmissionLimits, Candidate, PreviewOptions};
use ctxguard_extract::blob::{js_reason, BlobSource};
use wasm_bindgen::prelude::*;

/// A JS number as a count of bytes or characters (negative and NaN as 0, capped).
fn whole(n: f64) -> u64 {
    if n.is_finite() && n > 0.0 {
        n.min(u64::MAX as f64) as u64
    } else {
        0
    }
}

/// The uploads of one message, for the preview worker.
#[wasm_bindgen(js_name = PreviewSession)]
pub struct PreviewSession(Session);

#[wasm_bindgen(js_class = PreviewSession)]
impl PreviewSession {
    /// An empty session.
    #[wasm_bindgen(constructor)]
    pub fn new() -> PreviewSession {
        PreviewSession(Session::new())
    }

    /// Judges the files about to be added as the chat input does before upload:
    /// `selectionJson` `[{name, size_bytes}]`, `attributesJson` the element's admission
    /// attributes `[[name, value], …]` (see `AdmissionLimits::from_attributes`), under the
    /// generic cap `maxUploadBytes`.
    pub fn admit(
        &mut self,
        selection_json: &str,
        attributes_json: &str,
        max_upload_bytes: f64,
    ) -> Result<(), JsError> {
        let selection: Vec<Candidate> = serde_json::from_str(selection_json)
            .map_err(|e| JsError::new(&format!("admission files: {e}")))?;
        let attributes: Vec<(String, String)> = serde_json::from_str(attributes_json)
            .map_err(|e| JsError::new(&format!("admission attributes: {e}")))?;
        let limits = AdmissionLimits::from_attributes(
            |name| {
                attributes
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, v)| v.clone())
            },
            whole(max_upload_bytes),
        );
        self.0.admit(&selection, &limits);
        Ok(())
    }

    /// Parses `file` (a `Blob` or `File`, read by slices through
    /// `FileReaderSync`: call it in a dedicated worker) uploaded as `filename`,
    /// under `maxTextLength` (`MAX_EXTRACTED_TEXT_LENGTH`); false (refused with
    /// the backend's message, unread) when over `maxUploadBytes`.
    /// `onProgress(bytesRead)` is called after each read.
    #[wasm_bindgen(js_name = addFile)]
    pub fn add_file(
        &mut self,
        file: web_sys::Blob,
        filename: &str,
        max_upload_bytes: f64,
        max_text_length: f64,
        on_progress: Option<js_sys::Function>,
    ) -> Result<bool, JsError> {
        let max = if max_text_length.is_finite() {
            max_text_length.clamp(i64::MIN as f64, i64::MAX as f64) as i64
        } else {
            ctxguard_extract::DEFAULT_MAX_TEXT_LENGTH
        };
        let source = BlobSource::new(file, on_progress).map_err(|e| {
            JsError::new(&format!(
                "the preview reads files in a dedicated worker (FileReaderSync): {}",
                js_reason(&e)
            ))
        })?;
        Ok(self.0.add(filename, &source, whole(max_upload_bytes), max))
    }

    /// The report (JSON) under `optionsJson` (`{model, limit_tokens, inject_max_chars, sandbox_dir}`).
    pub fn report(&self, options_json: &str) -> Result<String, JsError> {
        let options: PreviewOptions = serde_json::from_str(options_json)
            .map_err(|e| JsError::new(&format!("preview options: {e}")))?;
        serde_json::to_string(&self.0.report(&options))
            .map_err(|e| JsError::new(&format!("preview report: {e}")))
    }
}

impl Default for PreviewSession {
    fn default() -> Self {
        PreviewSession::new()
    }
}
