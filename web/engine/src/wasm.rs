//! `PreviewSession` for JavaScript: the [`Session`] with JS-cased methods;
//! numbers arrive as JS numbers, options and the report as JSON text.

use crate::Session;
use ctxguard_core::attachment::{AdmissionLimits, Candidate, PreviewOptions};
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

    /// Judges the files about to be begun as the chat input does before upload:
    /// `selectionJson` `[{name, size_bytes}]`, `limitsJson` core's `AdmissionLimits`.
    pub fn admit(&mut self, selection_json: &str, limits_json: &str) -> Result<(), JsError> {
        let selection: Vec<Candidate> = serde_json::from_str(selection_json)
            .map_err(|e| JsError::new(&format!("admission files: {e}")))?;
        let limits: AdmissionLimits = serde_json::from_str(limits_json)
            .map_err(|e| JsError::new(&format!("admission limits: {e}")))?;
        self.0.admit(&selection, &limits);
        Ok(())
    }

    /// Starts an upload; false (and refused with the backend's message) when over `maxUploadBytes`.
    pub fn begin(&mut self, filename: &str, size: f64, max_upload_bytes: f64) -> bool {
        self.0.begin(filename, whole(size), whole(max_upload_bytes))
    }

    /// Appends bytes of the upload begun last.
    pub fn append(&mut self, chunk: &[u8]) -> bool {
        self.0.append(chunk)
    }

    /// Parses the upload begun last under `maxTextLength` (`MAX_EXTRACTED_TEXT_LENGTH`).
    pub fn finish(&mut self, max_text_length: f64) -> bool {
        let max = if max_text_length.is_finite() {
            max_text_length.clamp(i64::MIN as f64, i64::MAX as f64) as i64
        } else {
            ctxguard_extract::DEFAULT_MAX_TEXT_LENGTH
        };
        self.0.finish(max)
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
