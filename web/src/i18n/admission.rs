//! The chat input's refusals before upload, in the reference frontend's own
//! words (`frontend/src/i18n/locales/{en,zh-CN}/{chat,common}.json`), by key.

use super::{Lang, Text};
use ctxguard_core::attachment::{interpolate, MessageRef};

/// The reference's text of `key` in `lang`, with `{{name}}` placeholders.
fn template(key: &str, lang: Lang) -> Option<&'static str> {
    Some(match (key, lang) {
        ("chat:generate.attachment_limit_reached", Lang::En) => "Material limit reached",
        ("chat:generate.attachment_limit_reached", Lang::ZhCn) => "已达到素材数量上限",
        ("chat:generate.max_attachments", Lang::En) => "Upload up to {{count}} reference materials",
        ("chat:generate.max_attachments", Lang::ZhCn) => "最多可上传 {{count}} 个参考素材",
        ("chat:generate.max_material_type", Lang::En) => {
            "Upload up to {{count}} materials of this type"
        }
        ("chat:generate.max_material_type", Lang::ZhCn) => "此类参考素材最多可上传 {{count}} 个",
        ("chat:generate.material_errors.max_size", Lang::En) => {
            "File size is {{current}} MB; this model allows up to {{max}} MB"
        }
        ("chat:generate.material_errors.max_size", Lang::ZhCn) => {
            "文件大小为 {{current}} MB，超过当前模型 {{max}} MB 限制"
        }
        ("common:attachment.errors.video_upload_unavailable", Lang::En) => {
            "Video upload is not configured; video files are not supported"
        }
        ("common:attachment.errors.video_upload_unavailable", Lang::ZhCn) => {
            "视频上传未配置，暂不支持上传视频文件"
        }
        ("common:attachment.errors.file_too_large", Lang::En) => "File is too large",
        ("common:attachment.errors.file_too_large", Lang::ZhCn) => "文件太大了",
        ("common:attachment.errors.file_too_large_hint", Lang::En) => {
            "File size cannot exceed {{size}} MB. Please compress and try again"
        }
        ("common:attachment.errors.file_too_large_hint", Lang::ZhCn) => {
            "文件大小不能超过 {{size}} MB，请压缩后重试"
        }
        _ => return None,
    })
}

impl Text {
    /// A refusal message of the chat input, localised (its key when unknown).
    pub fn admission(&self, message: &MessageRef) -> String {
        template(&message.key, self.0)
            .map_or_else(|| message.key.clone(), |t| interpolate(t, &message.params))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctxguard_core::attachment::{english_template, Refusal, SizeMb};

    const KEYS: [&str; 7] = [
        "chat:generate.attachment_limit_reached",
        "chat:generate.max_attachments",
        "chat:generate.max_material_type",
        "chat:generate.material_errors.max_size",
        "common:attachment.errors.video_upload_unavailable",
        "common:attachment.errors.file_too_large",
        "common:attachment.errors.file_too_large_hint",
    ];

    #[test]
    fn every_refusal_key_has_both_languages_and_english_matches_core() {
        for key in KEYS {
            assert!(template(key, Lang::ZhCn).is_some(), "{key}");
            assert_eq!(template(key, Lang::En), english_template(key), "{key}");
        }
    }

    #[test]
    fn refusals_read_in_chinese_with_their_values() {
        let zh = Text(Lang::ZhCn);
        let m = Refusal::TooManyAttachments { max_attachments: 3 }.message();
        assert_eq!(zh.admission(&m.title), "已达到素材数量上限");
        let d = m.description.expect("description");
        assert_eq!(zh.admission(&d), "最多可上传 3 个参考素材");
        let m = Refusal::OverModelSize {
            size_bytes: 3 << 20,
            max: SizeMb::new(2.0).expect("positive"),
        }
        .message();
        assert_eq!(
            zh.admission(&m.title),
            "文件大小为 3 MB，超过当前模型 2 MB 限制"
        );
        assert_eq!(
            Text(Lang::En).admission(&m.title),
            "File size is 3 MB; this model allows up to 2 MB"
        );
    }
}
