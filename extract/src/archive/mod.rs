//! `.zip` uploads: no text extraction, a description of the archive and its
//! first ten member names, as `_parse_archive` writes it.

pub(crate) mod zipfile;

use crate::error::{DocumentError, Subject};
use crate::limits::Limits;
use crate::record::Extracted;
use std::fmt::Write;
use zipfile::{ZipDir, ZipError};

/// Names the listing shows before it says how many more there are.
const PREVIEW: usize = 10;

/// Describes a zip upload: `[压缩文件]`, its size, and when `zipfile` can
/// read its central directory the member count and the first ten names;
/// an unreadable one (`BadZipFile`) is said so in the text, any other
/// failure of `zipfile` refuses the upload.
pub(crate) fn parse(bytes: &[u8], _limits: &Limits) -> Result<Extracted, DocumentError> {
    let mut text = format!("[压缩文件]\n格式: ZIP\n文件大小: {} 字节", bytes.len());
    match ZipDir::open(bytes) {
        Ok(dir) => {
            let names: Vec<&str> = dir.names().collect();
            let _ = write!(text, "\n包含文件数: {}", names.len());
            if !names.is_empty() {
                let shown = names.len().min(PREVIEW);
                let _ = write!(text, "\n\n文件列表 (前 {shown} 个):");
                for name in &names[..shown] {
                    let _ = write!(text, "\n  - {name}");
                }
                if names.len() > shown {
                    let _ = write!(text, "\n  ... 还有 {} 个文件", names.len() - shown);
                }
            }
        }
        Err(ZipError::BadZip(_)) => text.push_str("\n(无法读取压缩包内容)"),
        Err(ZipError::Other(reason)) => {
            return Err(DocumentError::failed(Subject::Archive, reason))
        }
        Err(ZipError::TooLarge(limit)) => {
            return Err(DocumentError::failed(
                Subject::Archive,
                format!("too large to preview: past {limit} bytes"),
            ))
        }
    }
    Ok(Extracted::text(text))
}
