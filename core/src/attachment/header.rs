//! The attachment header line a client writes before each attachment body,
//! and the MIME classification that decides which hint a cut body gets.

use serde::{Deserialize, Serialize};

/// Inputs of [`build_header`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeaderArgs {
    /// Attachment id, as `read_attachment` takes it.
    pub attachment_id: i64,
    /// The uploaded file name (any path; only its last part is shown).
    #[serde(default)]
    pub filename: String,
    /// MIME type, when known.
    #[serde(default)]
    pub mime_type: Option<String>,
    /// File size in bytes.
    #[serde(default)]
    pub file_size: i64,
    /// Where the file sits in the agent's sandbox, when it was copied there.
    #[serde(default)]
    pub sandbox_path: Option<String>,
    /// Whether the attachment is an image.
    #[serde(default)]
    pub is_image: bool,
}

/// Application MIME subtypes whose bytes are readable text.
const TEXT_APPLICATION_TYPES: &[&str] = &[
    "json",
    "xml",
    "javascript",
    "x-javascript",
    "ecmascript",
    "x-sh",
    "x-bash",
    "x-csh",
    "x-zsh",
    "x-python",
    "x-ruby",
    "x-perl",
    "x-php",
    "sql",
    "graphql",
    "toml",
    "x-yaml",
    "yaml",
    "x-httpd-php",
    "x-typescript",
    "typescript",
    "x-tex",
    "x-latex",
    "x-troff",
    "x-troff-man",
    "x-ndjson",
    "x-www-form-urlencoded",
    "x-subrip",
    "x-wine-extension-ini",
];

/// Whether a file of this MIME type can be read as text (so its sandbox copy can be grepped).
pub fn is_text_readable_mime(mime: &str) -> bool {
    let essence = mime.split(';').next().unwrap_or("").trim().to_lowercase();
    if essence.starts_with("text/") || essence.ends_with("+json") || essence.ends_with("+xml") {
        return true;
    }
    essence
        .strip_prefix("application/")
        .is_some_and(|sub| TEXT_APPLICATION_TYPES.contains(&sub))
}

/// The displayed name: backslashes as `/`, the last path part, control characters dropped,
/// and `document` for an empty, `.` or `..` name.
pub fn display_name(filename: &str) -> String {
    let unified = filename.replace('\\', "/");
    let last = unified.rsplit('/').next().unwrap_or("");
    let clean: String = last.chars().filter(|c| !c.is_control()).collect();
    if clean.is_empty() || clean == "." || clean == ".." {
        "document".into()
    } else {
        clean
    }
}

/// `N bytes`, `X.Y KB` from 1024 bytes, `X.Y MB` from 1 MiB.
pub fn format_size(bytes: i64) -> String {
    const KIB: i64 = 1024;
    const MIB: i64 = 1024 * 1024;
    if bytes < KIB {
        format!("{bytes} bytes")
    } else if bytes < MIB {
        format!("{:.1} KB", bytes as f64 / KIB as f64)
    } else {
        format!("{:.1} MB", bytes as f64 / MIB as f64)
    }
}

/// The header line of one attachment, exactly as the reference's clients write it.
pub fn build_header(args: &HeaderArgs) -> String {
    let kind = if args.is_image {
        "Image Attachment"
    } else {
        "Attachment"
    };
    let mime = args
        .mime_type
        .as_deref()
        .filter(|m| !m.is_empty())
        .unwrap_or("unknown");
    let id = args.attachment_id;
    let mut header = format!(
        "[{kind}: {} | ID: {id} | Type: {mime} | Size: {} | URL: /api/attachments/{id}/download",
        display_name(&args.filename),
        format_size(args.file_size),
    );
    if let Some(path) = args.sandbox_path.as_deref().filter(|p| !p.is_empty()) {
        if args.is_image {
            header.push_str(&format!(" | File Path in Sandbox: {path}"));
        } else {
            header.push_str(&format!(" | File Path(already in sandbox): {path}"));
        }
    }
    header.push(']');
    header
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mime_classes() {
        assert!(is_text_readable_mime("  Text/CSV ; charset=utf-8"));
        assert!(is_text_readable_mime("application/+json"));
        assert!(!is_text_readable_mime("application/json5"));
        assert!(!is_text_readable_mime(";"));
    }

    #[test]
    fn names_and_sizes() {
        assert_eq!(display_name("../../etc/passwd"), "passwd");
        assert_eq!(display_name("a\\b\\c.txt"), "c.txt");
        assert_eq!(display_name(".."), "document");
        assert_eq!(format_size(1023), "1023 bytes");
        assert_eq!(format_size(1280), "1.2 KB");
        assert_eq!(format_size(1_000_000_000), "953.7 MB");
    }
}
