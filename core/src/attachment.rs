//! Attachment governance: the header line clients write, MIME classes,
//! budget water-filling and the preview pass that bounds inline attachment
//! text (SPEC §6).

mod allocate;
mod header;
mod parse;
mod preview;

pub use allocate::allocate_budget;
pub use header::{build_header, display_name, format_size, is_text_readable_mime, HeaderArgs};
pub use preview::{
    default_limit, preview_messages, PreviewOutcome, SegmentReport, DEFAULT_LIMIT_CAP,
};
