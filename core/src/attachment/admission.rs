//! The chat input's refusals before upload, as Wegent's frontend makes them
//! (`frontend/src/hooks/useMultiAttachment.ts`, the checks it calls in
//! `apis/attachments.ts` and `ChatArea.tsx`'s `validateAttachmentFile`, and
//! `useBatchAttachment.ts`'s video-uploader gate). A selection of files is
//! judged against the files already attached, in this order:
//!
//! 1. **count**: when `maxAttachments` is set and attached + selected exceeds
//!    it, the whole selection is refused (`chat:generate.attachment_limit_reached`
//!    / `chat:generate.max_attachments`), as the hook returns before any upload;
//! 2. **per media type** (image, video, audio by extension): a video while more
//!    images than `imageWithVideo` are attached; an image while a video is
//!    attached against `imageWithVideo` (else `image`); any typed file once its
//!    type's count reached its limit (`chat:generate.max_material_type`);
//! 3. **the model's size per media type** (`image_max_size_mb`,
//!    `video_max_size_mb`, `audio_max_size_mb`; a missing or zero limit is none:
//!    `chat:generate.material_errors.max_size`);
//! 4. **size**: a video needs a registered uploader
//!    (`common:attachment.errors.video_upload_unavailable`) and is held to its
//!    `maxSizeBytes` (`common:attachment.errors.file_too_large`); any other file
//!    to the generic 100 MB (`file_too_large` with `file_too_large_hint`).
//!
//! An admitted file counts towards its type for the files after it (the hook
//! counts a file once its upload succeeds; a preview assumes it does). The
//! reference has no duplicate-file rule: two files of one name both upload.

use super::message_params::MessageParams;
use serde::{Deserialize, Serialize};

/// Bytes in the reference's megabyte (`1024 * 1024`).
const MIB: u64 = 1024 * 1024;

/// The frontend's generic cap, `MAX_FILE_SIZE = 100 * 1024 * 1024`.
pub const DEFAULT_MAX_FILE_SIZE_BYTES: u64 = 100 * MIB;

/// `IMAGE_EXTENSIONS` of `apis/attachments.ts` (keep in sync).
const IMAGE_EXTENSIONS: &[&str] = &[
    ".jpg", ".jpeg", ".png", ".gif", ".bmp", ".webp", ".tif", ".tiff",
];
/// `VIDEO_EXTENSIONS` of `apis/attachments.ts` (keep in sync).
const VIDEO_EXTENSIONS: &[&str] = &[
    ".mp4", ".avi", ".mkv", ".mov", ".flv", ".wmv", ".webm", ".m4v",
];
/// `AUDIO_EXTENSIONS` of `apis/attachments.ts` (keep in sync).
const AUDIO_EXTENSIONS: &[&str] = &[".mp3", ".wav", ".m4a", ".aac", ".ogg", ".flac"];

/// The media types the frontend counts separately.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MediaType {
    /// An image extension.
    Image,
    /// A video extension.
    Video,
    /// An audio extension.
    Audio,
}

/// The media type of `filename` as the hook's `getMediaType` finds it: image,
/// then video, then audio, by the extension `getFileExtension` returns (the
/// lowercased name from its last `.`, or the whole name when it has none, so a
/// file named `mp4` is a video, as the reference's dot-prefixing check makes it).
pub fn media_type(filename: &str) -> Option<MediaType> {
    let extension = file_extension(filename);
    let dotted = if extension.starts_with('.') {
        extension.clone()
    } else {
        format!(".{extension}")
    };
    if IMAGE_EXTENSIONS.contains(&extension.as_str()) {
        Some(MediaType::Image)
    } else if VIDEO_EXTENSIONS.contains(&dotted.as_str()) {
        Some(MediaType::Video)
    } else if AUDIO_EXTENSIONS.contains(&dotted.as_str()) {
        Some(MediaType::Audio)
    } else {
        None
    }
}

/// `getFileExtension`: `filename.toLowerCase().substring(filename.lastIndexOf('.'))`,
/// in UTF-16 units as JavaScript counts them (a `-1` index is 0).
fn file_extension(filename: &str) -> String {
    let original: Vec<u16> = filename.encode_utf16().collect();
    let dot = original.iter().rposition(|&u| u == u16::from(b'.'));
    let lower: Vec<u16> = filename.to_lowercase().encode_utf16().collect();
    let start = dot.unwrap_or(0).min(lower.len());
    String::from_utf16_lossy(&lower[start..])
}

/// A size limit in the reference's megabytes, finite and positive by construction.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "f64", into = "f64")]
pub struct SizeMb(f64);

impl Eq for SizeMb {}

impl SizeMb {
    /// `mb` when finite and above zero (the reference treats 0 as no limit).
    pub fn new(mb: f64) -> Option<SizeMb> {
        (mb.is_finite() && mb > 0.0).then_some(SizeMb(mb))
    }

    /// The limit in megabytes.
    pub fn get(self) -> f64 {
        self.0
    }

    /// Whether `size_bytes` is over it (`file.size > maxSizeMb * 1024 * 1024`).
    fn exceeded_by(self, size_bytes: u64) -> bool {
        size_bytes as f64 > self.0 * MIB as f64
    }
}

impl TryFrom<f64> for SizeMb {
    type Error = &'static str;
    fn try_from(mb: f64) -> Result<Self, Self::Error> {
        SizeMb::new(mb).ok_or("a size limit in MB must be finite and above zero")
    }
}

impl From<SizeMb> for f64 {
    fn from(mb: SizeMb) -> f64 {
        mb.0
    }
}

/// The limits a chat input applies; [`Default`] is the reference's chat mode
/// (no count or type limits, no registered video uploader, 100 MB).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct AdmissionLimits {
    /// `maxAttachments`: files per message (the model's `max_reference_materials`).
    pub max_attachments: Option<u64>,
    /// `maxByType.image` (`max_reference_images`).
    pub max_reference_images: Option<u64>,
    /// `maxByType.imageWithVideo` (`max_reference_images_with_video`).
    pub max_reference_images_with_video: Option<u64>,
    /// `maxByType.video` (`max_reference_videos`).
    pub max_reference_videos: Option<u64>,
    /// `maxByType.audio` (`max_reference_audios`).
    pub max_reference_audios: Option<u64>,
    /// The model's `image_max_size_mb`.
    pub image_max_size_mb: Option<SizeMb>,
    /// The model's `video_max_size_mb`.
    pub video_max_size_mb: Option<SizeMb>,
    /// The model's `audio_max_size_mb`.
    pub audio_max_size_mb: Option<SizeMb>,
    /// The registered video uploader's `maxSizeBytes`; `None`: no uploader (the
    /// open-source default), so videos are refused.
    pub video_uploader_max_size_bytes: Option<u64>,
    /// `MAX_FILE_SIZE`, the cap of every file but videos.
    pub max_file_size_bytes: u64,
}

impl Default for AdmissionLimits {
    fn default() -> Self {
        AdmissionLimits {
            max_attachments: None,
            max_reference_images: None,
            max_reference_images_with_video: None,
            max_reference_videos: None,
            max_reference_audios: None,
            image_max_size_mb: None,
            video_max_size_mb: None,
            audio_max_size_mb: None,
            video_uploader_max_size_bytes: None,
            max_file_size_bytes: DEFAULT_MAX_FILE_SIZE_BYTES,
        }
    }
}

/// The chat input's limits as element attributes (`<ctxguard-attachment-preview>`), in the
/// order of [`AdmissionLimits`]' fields; the generic cap is the element's `max-upload-bytes`.
pub const ADMISSION_ATTRIBUTES: [&str; 9] = [
    "max-attachments",
    "max-reference-images",
    "max-reference-images-with-video",
    "max-reference-videos",
    "max-reference-audios",
    "image-max-size-mb",
    "video-max-size-mb",
    "audio-max-size-mb",
    "video-uploader-max-size-bytes",
];

impl AdmissionLimits {
    /// The limits named by [`ADMISSION_ATTRIBUTES`] (`attribute(name)`: its value, when
    /// present), read as the reference normalises them: a count is a whole number of files,
    /// a size in MB a number above zero (0 is no limit); anything else is absent, the
    /// reference's chat default. `max_file_size_bytes` is the generic cap.
    pub fn from_attributes(
        attribute: impl Fn(&str) -> Option<String>,
        max_file_size_bytes: u64,
    ) -> AdmissionLimits {
        let count = |name: &str| attribute(name).and_then(|v| v.trim().parse::<u64>().ok());
        let mb = |name: &str| {
            attribute(name)
                .and_then(|v| v.trim().parse::<f64>().ok())
                .and_then(SizeMb::new)
        };
        AdmissionLimits {
            max_attachments: count("max-attachments"),
            max_reference_images: count("max-reference-images"),
            max_reference_images_with_video: count("max-reference-images-with-video"),
            max_reference_videos: count("max-reference-videos"),
            max_reference_audios: count("max-reference-audios"),
            image_max_size_mb: mb("image-max-size-mb"),
            video_max_size_mb: mb("video-max-size-mb"),
            audio_max_size_mb: mb("audio-max-size-mb"),
            video_uploader_max_size_bytes: count("video-uploader-max-size-bytes"),
            max_file_size_bytes,
        }
    }

    fn max_of_type(&self, media: MediaType) -> Option<u64> {
        match media {
            MediaType::Image => self.max_reference_images,
            MediaType::Video => self.max_reference_videos,
            MediaType::Audio => self.max_reference_audios,
        }
    }

    fn model_size_of_type(&self, media: MediaType) -> Option<SizeMb> {
        match media {
            MediaType::Image => self.image_max_size_mb,
            MediaType::Video => self.video_max_size_mb,
            MediaType::Audio => self.audio_max_size_mb,
        }
    }
}

/// A file offered to the chat input: its name and size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Candidate {
    /// The file name.
    pub name: String,
    /// Its size in bytes.
    pub size_bytes: u64,
}

/// Why the chat input refuses a file before uploading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Attached + selected is over `maxAttachments`.
    TooManyAttachments {
        /// The limit.
        max_attachments: u64,
    },
    /// Its media type's limit is reached.
    TooManyOfType {
        /// The limit that applied.
        max: u64,
    },
    /// Over the model's size for its media type.
    OverModelSize {
        /// The file's size.
        size_bytes: u64,
        /// The model's limit.
        max: SizeMb,
    },
    /// A video with no uploader registered.
    VideoUploadUnavailable,
    /// A video over the uploader's `maxSizeBytes`.
    VideoOverUploaderLimit,
    /// Over the generic cap.
    FileTooLarge {
        /// The cap.
        max_file_size_bytes: u64,
    },
}

/// One message of the frontend's i18n: its key and interpolated values.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageRef {
    /// The i18n key with its namespace, e.g. `chat:generate.max_attachments`.
    pub key: String,
    /// The values interpolated into it, as the frontend prints them.
    #[serde(default, skip_serializing_if = "MessageParams::is_empty")]
    pub params: MessageParams,
}

/// A refusal as the frontend shows it: a toast's title and description.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefusalMessage {
    /// The title.
    pub title: MessageRef,
    /// The description, when the toast has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<MessageRef>,
}

fn message(key: &str, params: &[(&str, String)]) -> MessageRef {
    MessageRef {
        key: key.to_string(),
        params: params
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
    }
}

/// A number as JavaScript's `String(n)` prints a finite one in the range used here.
fn js_number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e21 {
        format!("{n:.0}")
    } else {
        format!("{n}")
    }
}

/// `Number((size / (1024 * 1024)).toFixed(1))` as JavaScript prints it
/// (`toFixed` rounds exact halves up; a trailing `.0` is dropped).
fn size_mb_one_decimal(size_bytes: u64) -> String {
    let tenths = (u128::from(size_bytes) * 10 + u128::from(MIB / 2)) / u128::from(MIB);
    if tenths % 10 == 0 {
        format!("{}", tenths / 10)
    } else {
        format!("{}.{}", tenths / 10, tenths % 10)
    }
}

impl Refusal {
    /// A short code for the row (the message key's last part).
    pub fn code(&self) -> &'static str {
        match self {
            Refusal::TooManyAttachments { .. } => "attachment_limit_reached",
            Refusal::TooManyOfType { .. } => "max_material_type",
            Refusal::OverModelSize { .. } => "max_size",
            Refusal::VideoUploadUnavailable => "video_upload_unavailable",
            Refusal::VideoOverUploaderLimit | Refusal::FileTooLarge { .. } => "file_too_large",
        }
    }

    /// The reference's toast for this refusal: its keys and values.
    pub fn message(&self) -> RefusalMessage {
        match *self {
            Refusal::TooManyAttachments { max_attachments } => RefusalMessage {
                title: message("chat:generate.attachment_limit_reached", &[]),
                description: Some(message(
                    "chat:generate.max_attachments",
                    &[("count", max_attachments.to_string())],
                )),
            },
            Refusal::TooManyOfType { max } => RefusalMessage {
                title: message(
                    "chat:generate.max_material_type",
                    &[("count", max.to_string())],
                ),
                description: None,
            },
            Refusal::OverModelSize { size_bytes, max } => RefusalMessage {
                title: message(
                    "chat:generate.material_errors.max_size",
                    &[
                        ("current", size_mb_one_decimal(size_bytes)),
                        ("max", js_number(max.get())),
                    ],
                ),
                description: None,
            },
            Refusal::VideoUploadUnavailable => RefusalMessage {
                title: message("common:attachment.errors.video_upload_unavailable", &[]),
                description: None,
            },
            Refusal::VideoOverUploaderLimit => RefusalMessage {
                title: message("common:attachment.errors.file_too_large", &[]),
                description: None,
            },
            Refusal::FileTooLarge {
                max_file_size_bytes,
            } => RefusalMessage {
                title: message("common:attachment.errors.file_too_large", &[]),
                description: Some(message(
                    "common:attachment.errors.file_too_large_hint",
                    // Math.round(MAX_FILE_SIZE / (1024 * 1024))
                    &[(
                        "size",
                        ((u128::from(max_file_size_bytes) + u128::from(MIB / 2)) / u128::from(MIB))
                            .to_string(),
                    )],
                )),
            },
        }
    }
}

/// The reference's English text of `key` (its `en` locale files), with
/// `{{name}}` placeholders; `None` for a key no refusal uses.
pub fn english_template(key: &str) -> Option<&'static str> {
    Some(match key {
        "chat:generate.attachment_limit_reached" => "Material limit reached",
        "chat:generate.max_attachments" => "Upload up to {{count}} reference materials",
        "chat:generate.max_material_type" => "Upload up to {{count}} materials of this type",
        "chat:generate.material_errors.max_size" => {
            "File size is {{current}} MB; this model allows up to {{max}} MB"
        }
        "common:attachment.errors.video_upload_unavailable" => {
            "Video upload is not configured; video files are not supported"
        }
        "common:attachment.errors.file_too_large" => "File is too large",
        "common:attachment.errors.file_too_large_hint" => {
            "File size cannot exceed {{size}} MB. Please compress and try again"
        }
        _ => return None,
    })
}

/// `template` with each `{{name}}` replaced by its value, as i18next interpolates.
pub fn interpolate(template: &str, params: &MessageParams) -> String {
    let mut out = template.to_string();
    for (name, value) in params.iter() {
        out = out.replace(&format!("{{{{{name}}}}}"), value);
    }
    out
}

impl MessageRef {
    /// Its English text (the key itself for a key without one).
    pub fn english(&self) -> String {
        english_template(&self.key)
            .map_or_else(|| self.key.clone(), |t| interpolate(t, &self.params))
    }
}

impl RefusalMessage {
    /// Title, then `: ` and the description when there is one (as the
    /// frontend joins a refusal's title and hint).
    pub fn english(&self) -> String {
        match &self.description {
            Some(d) => format!("{}: {}", self.title.english(), d.english()),
            None => self.title.english(),
        }
    }
}

/// Per type, the files attached or admitted so far.
#[derive(Debug, Default, Clone, Copy)]
struct TypeCounts {
    image: u64,
    video: u64,
    audio: u64,
}

impl TypeCounts {
    fn get_mut(&mut self, media: MediaType) -> &mut u64 {
        match media {
            MediaType::Image => &mut self.image,
            MediaType::Video => &mut self.video,
            MediaType::Audio => &mut self.audio,
        }
    }

    fn get(mut self, media: MediaType) -> u64 {
        *self.get_mut(media)
    }
}

/// The verdict on each of `selection` (in order) when `attached` are already
/// on the message: `None` admitted, `Some` refused. O(attached + selection).
pub fn admit(
    attached: &[Candidate],
    selection: &[Candidate],
    limits: &AdmissionLimits,
) -> Vec<Option<Refusal>> {
    if let Some(max_attachments) = limits.max_attachments {
        let total = attached.len() as u64 + selection.len() as u64;
        if total > max_attachments {
            return vec![Some(Refusal::TooManyAttachments { max_attachments }); selection.len()];
        }
    }
    let mut counts = TypeCounts::default();
    for file in attached {
        if let Some(media) = media_type(&file.name) {
            *counts.get_mut(media) += 1;
        }
    }
    selection
        .iter()
        .map(|file| {
            let media = media_type(&file.name);
            let refusal = judge(file, media, counts, limits);
            if let (None, Some(media)) = (refusal, media) {
                *counts.get_mut(media) += 1;
            }
            refusal
        })
        .collect()
}

/// Steps 2–4 of the module doc for one file.
fn judge(
    file: &Candidate,
    media: Option<MediaType>,
    counts: TypeCounts,
    limits: &AdmissionLimits,
) -> Option<Refusal> {
    if let (Some(MediaType::Video), Some(with_video)) =
        (media, limits.max_reference_images_with_video)
    {
        if counts.image > with_video {
            return Some(Refusal::TooManyOfType { max: with_video });
        }
    }
    if let Some(media) = media {
        let maximum = if media == MediaType::Image && counts.video > 0 {
            limits
                .max_reference_images_with_video
                .or(limits.max_reference_images)
        } else {
            limits.max_of_type(media)
        };
        if let Some(max) = maximum {
            if counts.get(media) >= max {
                return Some(Refusal::TooManyOfType { max });
            }
        }
        if let Some(max) = limits.model_size_of_type(media) {
            if max.exceeded_by(file.size_bytes) {
                return Some(Refusal::OverModelSize {
                    size_bytes: file.size_bytes,
                    max,
                });
            }
        }
    }
    if media == Some(MediaType::Video) {
        return match limits.video_uploader_max_size_bytes {
            None => Some(Refusal::VideoUploadUnavailable),
            Some(max) if file.size_bytes > max => Some(Refusal::VideoOverUploaderLimit),
            Some(_) => None,
        };
    }
    (file.size_bytes > limits.max_file_size_bytes).then_some(Refusal::FileTooLarge {
        max_file_size_bytes: limits.max_file_size_bytes,
    })
}

#[cfg(test)]
#[path = "admission_tests.rs"]
mod tests;
