//! The views. Each takes signals and a language and renders text only (never
//! HTML from event strings or file names).

mod attachment_panel;
mod breakdown;
mod clock;
mod history;
mod projection;
mod report_dom;
mod toolbar;
mod usage_bar;

pub use attachment_panel::{files_of, AttachmentPanel, FileList, SendFile, UploadLimits};
pub use breakdown::Breakdown;
pub use clock::use_now_ms;
pub use history::HistoryList;
pub use projection::SendProjection;
pub use toolbar::StatusToolbar;
pub use usage_bar::UsageBar;
