//! The backend's refusals: an error code the frontend localises and the
//! message the upload stores, word for word.

use serde::Serialize;
use std::fmt;
use thiserror::Error;

/// The parser's error codes (`DocumentParseError` in the reference), which
/// Wegent's frontend maps to `attachment.errors.<code>` strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// A known extension without a parser (unreachable with the reference's table, kept for parity).
    UnsupportedType,
    /// An unknown extension whose content libmagic does not call text.
    UnrecognizedType,
    /// The dedicated parser failed on the file.
    ParseFailed,
    /// An encrypted PDF.
    EncryptedPdf,
    /// A legacy Word `.doc`.
    LegacyDoc,
    /// A legacy PowerPoint `.ppt`.
    LegacyPpt,
    /// A legacy Excel `.xls`.
    LegacyXls,
    /// Over the upload cap (`MAX_UPLOAD_FILE_SIZE_MB`): refused before any parsing.
    FileTooLarge,
}

impl ErrorCode {
    /// The code as the reference spells it (`"parse_failed"`).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::UnsupportedType => "unsupported_type",
            ErrorCode::UnrecognizedType => "unrecognized_type",
            ErrorCode::ParseFailed => "parse_failed",
            ErrorCode::EncryptedPdf => "encrypted_pdf",
            ErrorCode::LegacyDoc => "legacy_doc",
            ErrorCode::LegacyPpt => "legacy_ppt",
            ErrorCode::LegacyXls => "legacy_xls",
            ErrorCode::FileTooLarge => "file_too_large",
        }
    }

    /// Every code, in the reference's order.
    pub const ALL: [ErrorCode; 8] = [
        ErrorCode::UnsupportedType,
        ErrorCode::UnrecognizedType,
        ErrorCode::ParseFailed,
        ErrorCode::EncryptedPdf,
        ErrorCode::LegacyDoc,
        ErrorCode::LegacyPpt,
        ErrorCode::LegacyXls,
        ErrorCode::FileTooLarge,
    ];
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a failing parser says it was parsing: the `Failed to parse <what>: `
/// prefix of a `parse_failed` message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subject {
    /// `Failed to parse PDF: `
    Pdf,
    /// `Failed to parse Word document: `
    Word,
    /// `Failed to parse PowerPoint: `
    PowerPoint,
    /// `Failed to parse Excel: `
    Excel,
    /// `Failed to parse CSV: `
    Csv,
    /// `Failed to parse text file: `
    Text,
    /// `Failed to parse image: `
    Image,
    /// `Failed to parse archive: `
    Archive,
    /// `Failed to parse XMind file: `
    XMind,
    /// `Failed to parse document: ` (an error no dedicated parser caught)
    Document,
}

impl Subject {
    /// The words after "Failed to parse ".
    pub fn name(self) -> &'static str {
        match self {
            Subject::Pdf => "PDF",
            Subject::Word => "Word document",
            Subject::PowerPoint => "PowerPoint",
            Subject::Excel => "Excel",
            Subject::Csv => "CSV",
            Subject::Text => "text file",
            Subject::Image => "image",
            Subject::Archive => "archive",
            Subject::XMind => "XMind file",
            Subject::Document => "document",
        }
    }
}

/// The backend's refusal of an upload: its code and its message, which the
/// upload stores as `error_message`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{message}")]
pub struct DocumentError {
    /// The reference's error code.
    pub code: ErrorCode,
    /// The reference's message (for `parse_failed`: its prefix, then ctxguard's own reason).
    pub message: String,
}

impl DocumentError {
    /// A refusal with a code and a message given whole.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        DocumentError {
            code,
            message: message.into(),
        }
    }

    /// `parse_failed`: `Failed to parse <subject>: <reason>`.
    pub fn failed(subject: Subject, reason: impl fmt::Display) -> Self {
        DocumentError::new(
            ErrorCode::ParseFailed,
            format!("Failed to parse {}: {reason}", subject.name()),
        )
    }

    /// The prefix of a `parse_failed` message that the reference fixes
    /// (`Failed to parse Word document: `), or the whole message for other codes.
    pub fn fixed_part(&self) -> &str {
        fixed_part(self.code, &self.message)
    }
}

/// The part of a message that must equal the reference's: for `parse_failed`
/// everything up to and including the first `": "`, else all of it.
pub fn fixed_part(code: ErrorCode, message: &str) -> &str {
    if code != ErrorCode::ParseFailed {
        return message;
    }
    match message.find(": ") {
        Some(i) => &message[..i + 2],
        None => message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_failed_messages_carry_the_subject_prefix() {
        let e = DocumentError::failed(Subject::Word, "File is not a zip file");
        assert_eq!(e.code, ErrorCode::ParseFailed);
        assert_eq!(
            e.message,
            "Failed to parse Word document: File is not a zip file"
        );
        assert_eq!(e.fixed_part(), "Failed to parse Word document: ");
        let legacy = DocumentError::new(ErrorCode::LegacyDoc, "Legacy .doc: x");
        assert_eq!(legacy.fixed_part(), "Legacy .doc: x");
    }

    #[test]
    fn codes_serialise_as_the_reference_spells_them() {
        for code in ErrorCode::ALL {
            assert_eq!(
                serde_json::to_value(code).expect("a unit variant serialises"),
                serde_json::Value::String(code.as_str().into())
            );
        }
    }
}
