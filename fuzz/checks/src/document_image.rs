//! `ctxguard_extract::upload` of images: the properties of [`crate::document`],
//! with the extension chosen by the first byte (so every one of the eight
//! image extensions, and so every prepare path, is reached), and what the
//! image parser promises: a parse carries a prepared image and the metadata
//! text names the upload's size; an unchanged image is the upload itself
//! under the extension's MIME type; a changed one is a PNG, JPEG, GIF or
//! WebP (by its magic bytes) whose long edge is at most 1 568 pixels; a
//! refusal has the `Failed to parse image: ` prefix.

use ctxguard_extract::{upload, Options};

/// The eight extensions `_parse_image` handles.
const EXTENSIONS: [&str; 8] = [".png", ".jpg", ".jpeg", ".gif", ".bmp", ".webp", ".tif", ".tiff"];

/// Runs one input: its first byte picks the extension, the rest is the file.
pub fn check(data: &[u8]) {
    let Some((&pick, bytes)) = data.split_first() else {
        crate::document::check_upload(data, "picture.png");
        return;
    };
    let ext = EXTENSIONS[usize::from(pick) % EXTENSIONS.len()];
    let name = format!("picture{ext}");
    crate::document::check_upload(bytes, &name);
    let up = upload(bytes, &name, &Options::default());
    match &up.outcome {
        Ok(parsed) => {
            let image = parsed.image.as_ref().expect("a parsed image carries a prepared image");
            assert!(parsed.text.starts_with("[图片文件]\n格式: "), "{}", parsed.text);
            assert!(
                parsed.text.contains(&format!("文件大小: {} 字节", bytes.len())),
                "{}",
                parsed.text
            );
            assert!(
                parsed
                    .text
                    .contains(&format!("尺寸: {} x {} 像素", image.width, image.height)),
                "{}",
                parsed.text
            );
            if image.resized {
                assert!(image.width.max(image.height) <= 1568, "{}x{}", image.width, image.height);
                assert!(image.width >= 1 && image.height >= 1);
                let magic: &[u8] = match image.mime_type.as_str() {
                    "image/png" => b"\x89PNG",
                    "image/jpeg" => b"\xff\xd8",
                    "image/gif" => b"GIF8",
                    "image/webp" => b"RIFF",
                    other => panic!("a converted image of type {other}"),
                };
                assert!(image.data.starts_with(magic), "{} bytes", image.mime_type);
                assert_eq!(up.record.type_data.mime_type, image.mime_type);
            } else {
                assert_eq!(image.data, bytes, "an unchanged image is the upload");
            }
        }
        Err(e) => assert!(e.message.starts_with("Failed to parse image: "), "{}", e.message),
    }
}
