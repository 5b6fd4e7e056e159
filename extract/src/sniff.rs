//! MIME sniffing of files with an unknown extension, as libmagic 5.44
//! (`magic.Magic(mime=True).from_buffer`) names them, as far as the
//! parser's decision (text-readable or not) and its refusal message need.

/// The MIME type libmagic gives these bytes.
pub fn mime_type(bytes: &[u8]) -> String {
    // TODO(documents helper): libmagic's text tests and the binary formats.
    if std::str::from_utf8(bytes).is_ok() && !bytes.contains(&0) {
        "text/plain".into()
    } else {
        "application/octet-stream".into()
    }
}
