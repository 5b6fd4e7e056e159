//! A browser `Blob` (a picked `File`) as a [`Source`]: each read is a
//! `Blob.slice` read synchronously by `FileReaderSync`, which exists in
//! dedicated workers only, so the upload is never copied whole into the
//! module's memory: one read's bytes at a time (the parsers read through
//! [`crate::source::READ_BUFFER_BYTES`] buffers). Feature `blob`, wasm32 only.

use crate::source::{Source, SourceError};
use std::cell::Cell;
use wasm_bindgen::{JsCast, JsValue};

/// A `Blob` read at offsets; progress (bytes read so far, at most its size) told to an optional callback.
pub struct BlobSource {
    blob: web_sys::Blob,
    reader: web_sys::FileReaderSync,
    len: u64,
    read_bytes: Cell<u64>,
    on_progress: Option<js_sys::Function>,
}

/// A JS exception's own words.
pub fn js_reason(e: &JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "the browser refused the read".into())
}

impl BlobSource {
    /// Reads `blob` through a `FileReaderSync`; an error outside a dedicated
    /// worker, where the browser has none.
    pub fn new(
        blob: web_sys::Blob,
        on_progress: Option<js_sys::Function>,
    ) -> Result<Self, JsValue> {
        let reader = web_sys::FileReaderSync::new()?;
        let size = blob.size();
        let len = if size.is_finite() && size > 0.0 {
            size as u64
        } else {
            0
        };
        Ok(BlobSource {
            blob,
            reader,
            len,
            read_bytes: Cell::new(0),
            on_progress,
        })
    }
}

impl Source for BlobSource {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize, SourceError> {
        if offset >= self.len || buf.is_empty() {
            return Ok(0);
        }
        let end = offset.saturating_add(buf.len() as u64).min(self.len);
        let failed = |e: JsValue| SourceError::Read {
            offset,
            reason: js_reason(&e),
        };
        let slice = self
            .blob
            .slice_with_f64_and_f64(offset as f64, end as f64)
            .map_err(failed)?;
        let buffer: JsValue = self
            .reader
            .read_as_array_buffer(&slice)
            .map_err(failed)?
            .into();
        let bytes = js_sys::Uint8Array::new(&buffer);
        let n = (bytes.length() as usize).min(buf.len());
        bytes.subarray(0, n as u32).copy_to(&mut buf[..n]);
        let done = (self.read_bytes.get() + n as u64).min(self.len);
        self.read_bytes.set(done);
        if let Some(on_progress) = &self.on_progress {
            // A progress callback that throws does not stop the parse.
            let _ = on_progress.call1(&JsValue::NULL, &JsValue::from_f64(done as f64));
        }
        Ok(n)
    }
}
