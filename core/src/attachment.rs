//! Attachment governance: the header line, the `<attachment>` block the
//! backend composes, MIME classes, budget water-filling and the preview pass
//! that bounds inline attachment text (SPEC §6), and the one path from
//! uploads to a preview report ([`preview_files`]), with the chat input's
//! refusals before upload ([`admit`]).

mod admission;
mod allocate;
mod block;
mod files;
mod header;
mod message_params;
mod parse;
mod preview;
mod report_value;

pub use admission::{
    admit, english_template, interpolate, media_type, AdmissionLimits, Candidate, MediaType,
    MessageRef, Refusal, RefusalMessage, SizeMb, ADMISSION_ATTRIBUTES, DEFAULT_MAX_FILE_SIZE_BYTES,
};
pub use allocate::allocate_budget;
pub use block::{
    cap_inline_text, compose_block, compose_message, find_blocks, has_block_marker, Attachment,
    BlockSpan, ComposeOptions, ComposedBlock, ComposedMessage, ComposedPart, InlineText, Inlined,
    InputBlock, CLOSE_TAG, DEFAULT_INJECT_MAX_CHARS, INLINE_CUT_MARKER, OPEN_TAG,
    PARSING_TRUNCATED_NOTE,
};
pub use files::{
    preview_files, FileError, PreviewFile, PreviewOptions, PreviewReport, PreviewRow, RowState,
    Stored, StoredImage, UploadTruncation,
};
pub use header::{build_header, display_name, format_size, is_text_readable_mime, HeaderArgs};
pub use message_params::MessageParams;
pub use preview::{
    default_limit, preview_messages, PreviewOutcome, SegmentReport, DEFAULT_LIMIT_CAP,
};
