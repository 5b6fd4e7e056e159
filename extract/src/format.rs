//! How the upload path picks a parser: the extension as
//! `os.path.splitext(filename)[1].lower()` gives it, the parser's table of
//! known extensions and their MIME types, and the video extensions that
//! `context_service.py` stores without parsing.

/// The format a file is parsed as, chosen by its extension alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// `.pdf`
    Pdf,
    /// `.docx`
    Docx,
    /// `.pptx`
    Pptx,
    /// `.xlsx`
    Xlsx,
    /// `.doc`, refused as legacy.
    LegacyDoc,
    /// `.ppt`, refused as legacy.
    LegacyPpt,
    /// `.xls`, refused as legacy.
    LegacyXls,
    /// `.csv`
    Csv,
    /// `.xmind`
    Xmind,
    /// `.jpg .jpeg .png .gif .bmp .webp .tif .tiff`
    Image,
    /// Video and audio extensions: no text.
    Media,
    /// `.zip`: a listing of the archive.
    Zip,
    /// `.txt .md`
    Text,
    /// Any other extension: sniffed, then text or refused.
    Unknown,
}

/// The reference's `SUPPORTED_EXTENSIONS`, in its order: extension → MIME type.
pub const KNOWN_EXTENSIONS: [(&str, &str); 32] = [
    (".pdf", "application/pdf"),
    (".doc", "application/msword"),
    (
        ".docx",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ),
    (".ppt", "application/vnd.ms-powerpoint"),
    (
        ".pptx",
        "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    ),
    (".xls", "application/vnd.ms-excel"),
    (
        ".xlsx",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ),
    (".csv", "text/csv"),
    (".xmind", "application/vnd.xmind.workbook"),
    (".txt", "text/plain"),
    (".md", "text/markdown"),
    (".jpg", "image/jpeg"),
    (".jpeg", "image/jpeg"),
    (".png", "image/png"),
    (".gif", "image/gif"),
    (".bmp", "image/bmp"),
    (".webp", "image/webp"),
    (".tif", "image/tiff"),
    (".tiff", "image/tiff"),
    (".mp4", "video/mp4"),
    (".mov", "video/quicktime"),
    (".avi", "video/x-msvideo"),
    (".webm", "video/webm"),
    (".mkv", "video/x-matroska"),
    (".m4v", "video/x-m4v"),
    (".mp3", "audio/mpeg"),
    (".wav", "audio/wav"),
    (".m4a", "audio/mp4"),
    (".aac", "audio/aac"),
    (".ogg", "audio/ogg"),
    (".flac", "audio/flac"),
    (".zip", "application/zip"),
];

/// Video extensions (without the dot) that the upload stores unparsed
/// (`shared/utils/multimodal_ext.py`).
const VIDEO_EXTENSIONS: [&str; 8] = ["mp4", "avi", "mov", "mkv", "webm", "flv", "wmv", "m4v"];

/// `os.path.splitext(filename)[1].lower()`: the last `.suffix` of the last
/// path component, leading dots not counting (`.bashrc` has none).
pub fn extension(filename: &str) -> String {
    let name_start = filename.rfind('/').map_or(0, |i| i + 1);
    let name = &filename[name_start..];
    let Some(dot) = name.rfind('.') else {
        return String::new();
    };
    if name[..dot].bytes().all(|b| b == b'.') {
        return String::new();
    }
    name[dot..].to_lowercase()
}

/// The parser's MIME type for an extension (`get_mime_type`):
/// `application/octet-stream` for extensions it does not know.
pub fn mime_type(extension: &str) -> &'static str {
    KNOWN_EXTENSIONS
        .iter()
        .find(|(ext, _)| *ext == extension)
        .map_or("application/octet-stream", |(_, mime)| mime)
}

/// Whether the upload skips parsing for this extension (video files).
pub fn is_video(extension: &str) -> bool {
    let bare = extension.trim().trim_start_matches('.').to_lowercase();
    VIDEO_EXTENSIONS.contains(&bare.as_str())
}

impl Format {
    /// The format of a lower-cased extension (`.docx`), as the parser dispatches.
    pub fn of_extension(extension: &str) -> Format {
        match extension {
            ".pdf" => Format::Pdf,
            ".docx" => Format::Docx,
            ".pptx" => Format::Pptx,
            ".xlsx" => Format::Xlsx,
            ".doc" => Format::LegacyDoc,
            ".ppt" => Format::LegacyPpt,
            ".xls" => Format::LegacyXls,
            ".csv" => Format::Csv,
            ".xmind" => Format::Xmind,
            ".jpg" | ".jpeg" | ".png" | ".gif" | ".bmp" | ".webp" | ".tif" | ".tiff" => {
                Format::Image
            }
            ".mp4" | ".mov" | ".avi" | ".webm" | ".mkv" | ".m4v" | ".mp3" | ".wav" | ".m4a"
            | ".aac" | ".ogg" | ".flac" => Format::Media,
            ".zip" => Format::Zip,
            ".txt" | ".md" => Format::Text,
            _ => Format::Unknown,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_follow_python_splitext() {
        for (name, ext) in [
            ("report.PDF", ".pdf"),
            ("archive.tar.gz", ".gz"),
            ("Makefile", ""),
            (".bashrc", ""),
            ("..hidden", ""),
            ("a..b", ".b"),
            ("dir.d/file", ""),
            ("dir/.x.Y", ".y"),
            ("trailing.", "."),
            ("...", ""),
        ] {
            assert_eq!(extension(name), ext, "{name}");
        }
    }

    #[test]
    fn mime_types_come_from_the_table() {
        assert_eq!(mime_type(".docx"), KNOWN_EXTENSIONS[2].1);
        assert_eq!(mime_type(".py"), "application/octet-stream");
        assert_eq!(mime_type(""), "application/octet-stream");
        assert!(is_video(".MP4") && is_video(".flv") && !is_video(".mp3"));
        assert_eq!(Format::of_extension(".tiff"), Format::Image);
        assert_eq!(Format::of_extension(".flv"), Format::Unknown);
    }
}
