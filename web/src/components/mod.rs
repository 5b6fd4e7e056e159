//! The views. Each takes signals and a language and renders text only (never
//! HTML from event strings).

mod attachment_panel;
mod breakdown;
mod clock;
mod toolbar;
mod usage_bar;

pub use attachment_panel::{read_file, AttachmentPanel};
pub use breakdown::Breakdown;
pub use clock::use_now_ms;
pub use toolbar::StatusToolbar;
pub use usage_bar::UsageBar;
