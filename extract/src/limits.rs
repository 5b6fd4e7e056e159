//! The bounds every parser works within, so a hostile file costs time linear
//! in the bytes it makes us decode and memory below a documented figure,
//! and is refused with a clear reason past them.

/// Resource limits of one parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Bytes all decompression of one document may produce together (zip
    /// members, PDF streams, image pixels count separately): past it the
    /// document is "too large to preview".
    pub max_inflated_bytes: u64,
    /// Element nesting any XML part may reach.
    pub max_xml_depth: usize,
    /// Pixels an image may have before it is refused as a decompression bomb
    /// (Pillow refuses past twice `MAX_IMAGE_PIXELS`, 357 913 940).
    pub max_image_pixels: u64,
    /// Bytes the pixels of one decoded image may take when the prepared
    /// image is made; past it a blank canvas of the right size stands in.
    pub max_image_decode_bytes: u64,
}

/// The backend's upload cap (`MAX_UPLOAD_FILE_SIZE_MB` = 100).
pub const MAX_UPLOAD_BYTES: u64 = 100 * 1024 * 1024;

impl Default for Limits {
    /// 1 GiB inflated (ten times the upload cap), 1 024 levels of XML,
    /// Pillow's pixel limit, and 1 GiB of decoded pixels.
    fn default() -> Self {
        Limits {
            max_inflated_bytes: 1024 * 1024 * 1024,
            max_xml_depth: 1024,
            max_image_pixels: 2 * (1024 * 1024 * 1024 / 4 / 3),
            max_image_decode_bytes: 1024 * 1024 * 1024,
        }
    }
}
