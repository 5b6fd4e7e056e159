//! The strings of the send being written: what it leaves, and what the guard
//! will do with it (SPEC §8), in words a person understands.

use super::{group_thousands, Lang, Text};
use ctxguard_core::projection::Outcome;

impl Text {
    /// "After sending: N% left", with the headline's rounding.
    pub fn after_sending(&self, percent: i64) -> String {
        match self.0 {
            Lang::En => format!("After sending: {percent}% left"),
            Lang::ZhCn => format!("发送后：剩余 {percent}%"),
        }
    }

    /// What the guard will do on the turn the send starts.
    pub fn send_consequence(&self, outcome: &Outcome) -> String {
        match (self.0, outcome) {
            (Lang::En, Outcome::Fits) => "Fits: it is sent as it is.".to_string(),
            (Lang::ZhCn, Outcome::Fits) => "放得下：按原样发送。".to_string(),
            (
                Lang::En,
                Outcome::Compacts {
                    expected_after_tokens,
                    expected_after_percent,
                },
            ) => format!(
                "Crosses the compaction trigger: before the reply, older messages are summarized, bringing the context down to about {} tokens ({expected_after_percent}% left).",
                group_thousands(*expected_after_tokens)
            ),
            (
                Lang::ZhCn,
                Outcome::Compacts {
                    expected_after_tokens,
                    expected_after_percent,
                },
            ) => format!(
                "超过压缩触发线：回复前会先把较早的消息总结压缩，上下文降到约 {} tokens（剩余 {expected_after_percent}%）。",
                group_thousands(*expected_after_tokens)
            ),
            (Lang::En, Outcome::TooLarge { exceeds_input: false }) => "Too large to compact: summarizing older messages cannot make room for it, so the longest tool outputs are cut short and it is sent over the compaction trigger.".to_string(),
            (Lang::ZhCn, Outcome::TooLarge { exceeds_input: false }) => "压缩也腾不出空间：总结较早的消息放不下它，最长的工具输出会被截短，并在超过压缩触发线的情况下发送。".to_string(),
            (Lang::En, Outcome::TooLarge { exceeds_input: true }) => "Larger than the model's input limit: even compaction cannot fit it, and the model will refuse the request. Shorten the message or remove attachments.".to_string(),
            (Lang::ZhCn, Outcome::TooLarge { exceeds_input: true }) => "超过模型的输入上限：压缩也放不下，模型会拒绝这次请求。请缩短消息或移除附件。".to_string(),
        }
    }

    /// The ghost segment's title.
    pub fn send_adds(&self, tokens: i64) -> String {
        match self.0 {
            Lang::En => format!("This message adds {} tokens", group_thousands(tokens)),
            Lang::ZhCn => format!("这条消息将增加 {} tokens", group_thousands(tokens)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_outcome_reads_in_both_languages() {
        let compacts = Outcome::Compacts {
            expected_after_tokens: 78_400,
            expected_after_percent: 38,
        };
        let en = Text(Lang::En).send_consequence(&compacts);
        assert!(en.contains("78,400 tokens (38% left)"), "{en}");
        let zh = Text(Lang::ZhCn).send_consequence(&compacts);
        assert!(zh.contains("约 78,400 tokens（剩余 38%）"), "{zh}");
        assert_eq!(Text(Lang::En).after_sending(21), "After sending: 21% left");
        assert_eq!(Text(Lang::ZhCn).after_sending(21), "发送后：剩余 21%");
        let refused = Outcome::TooLarge {
            exceeds_input: true,
        };
        assert!(Text(Lang::En)
            .send_consequence(&refused)
            .contains("will refuse"));
    }
}
