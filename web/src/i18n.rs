//! English and Simplified Chinese strings (the attachment preview's in
//! `i18n/preview.rs`, the chat input's refusals in `i18n/admission.rs`), reading a language tag and picking one (a `lang`
//! attribute or `?lang=` over the browser's languages), and number formatting
//! with thousands separators.

mod admission;
mod preview;
mod projection;

use crate::machine::connection::{Connection, OfflineReason};
use crate::machine::turn_end::TurnEnd;
use crate::text_bound::shown;
use crate::view::{CompactionView, Source};
use std::borrow::Cow;

/// A UI language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Lang {
    /// English.
    #[default]
    En,
    /// Simplified Chinese.
    ZhCn,
}

impl Lang {
    /// Reads a language tag: `zh`, `zh-CN`, `zh-Hans…` are Chinese, `en…` English, others none.
    pub fn from_tag(tag: &str) -> Option<Lang> {
        let tag = tag.trim().to_ascii_lowercase().replace('_', "-");
        let primary = tag.split('-').next().unwrap_or("");
        match primary {
            "zh" => Some(Lang::ZhCn),
            "en" => Some(Lang::En),
            _ => None,
        }
    }

    /// `?lang=` wins; then the first browser language we speak; then English.
    pub fn pick<'a>(query: Option<&str>, browser: impl IntoIterator<Item = &'a str>) -> Lang {
        query
            .and_then(Lang::from_tag)
            .or_else(|| browser.into_iter().find_map(Lang::from_tag))
            .unwrap_or_default()
    }

    /// The `lang` attribute value.
    pub fn tag(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::ZhCn => "zh-CN",
        }
    }
}

/// `1234567` → `1,234,567` (both languages group by thousands with commas).
pub fn group_thousands(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    if n < 0 {
        out.push('-');
    }
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `75` → `1m 15s`; under a minute `42s`.
pub fn format_elapsed(lang: Lang, secs: u64) -> String {
    let (m, s) = (secs / 60, secs % 60);
    match (lang, m) {
        (Lang::En, 0) => format!("{s}s"),
        (Lang::En, _) => format!("{m}m {s:02}s"),
        (Lang::ZhCn, 0) => format!("{s} 秒"),
        (Lang::ZhCn, _) => format!("{m} 分 {s:02} 秒"),
    }
}

/// The UI's strings.
#[derive(Debug, Clone, Copy)]
pub struct Text(pub Lang);

impl Text {
    fn pick(&self, en: &'static str, zh: &'static str) -> &'static str {
        match self.0 {
            Lang::En => en,
            Lang::ZhCn => zh,
        }
    }

    /// "Context N% left".
    pub fn remaining(&self, percent: Option<i64>) -> String {
        let n = percent.map_or_else(|| "–".to_string(), |p| p.to_string());
        match self.0 {
            Lang::En => format!("Context {n}% left"),
            Lang::ZhCn => format!("上下文剩余 {n}%"),
        }
    }

    /// The remaining chip when usage is over the whole window.
    pub fn exceeded(&self) -> &'static str {
        self.pick("Context window exceeded", "已超出上下文窗口")
    }

    /// [`Text::exceeded`] in a narrow box.
    pub fn exceeded_short(&self) -> &'static str {
        self.pick("exceeded", "已超出")
    }

    /// "used / total tokens".
    pub fn usage(&self, used: i64, total: i64) -> String {
        let (used, total) = (group_thousands(used), group_thousands(total));
        match self.0 {
            Lang::En => format!("{used} / {total} tokens"),
            Lang::ZhCn => format!("{used} / {total} tokens"),
        }
    }

    /// Placeholder before any numbers.
    pub fn usage_unknown(&self) -> &'static str {
        self.pick("waiting for usage…", "等待用量数据…")
    }

    /// The over-trigger badge.
    pub fn over_trigger(&self) -> &'static str {
        self.pick("Over compaction trigger", "已超过压缩阈值")
    }

    /// Tooltip of the over-trigger badge.
    pub fn over_trigger_title(&self, trigger: i64) -> String {
        match self.0 {
            Lang::En => format!(
                "Usage is at or above the trigger of {} tokens",
                group_thousands(trigger)
            ),
            Lang::ZhCn => format!(
                "用量已达到或超过 {} tokens 的压缩阈值",
                group_thousands(trigger)
            ),
        }
    }

    /// The compaction chip's label.
    pub fn compaction(&self, view: &CompactionView) -> String {
        let (main, detail) = self.compaction_parts(view);
        main + &detail
    }

    /// The compaction chip's label as its main part and the detail a compact toolbar leaves out.
    pub fn compaction_parts(&self, view: &CompactionView) -> (String, String) {
        let lang = self.0;
        match view {
            CompactionView::Idle {
                trigger_tokens: Some(t),
            } => {
                let t = group_thousands(*t);
                let main = match lang {
                    Lang::En => format!("Compacts at {t}"),
                    Lang::ZhCn => format!("达到 {t} 时压缩"),
                };
                (main, String::new())
            }
            CompactionView::Idle {
                trigger_tokens: None,
            } => (self.pick("No compaction", "未压缩").into(), String::new()),
            CompactionView::Compacting { elapsed_secs, .. } => {
                let elapsed = format_elapsed(lang, *elapsed_secs);
                let main = match lang {
                    Lang::En => format!("Compacting… {elapsed}"),
                    Lang::ZhCn => format!("正在压缩… {elapsed}"),
                };
                (main, String::new())
            }
            CompactionView::Completed {
                before_tokens,
                after_tokens,
                saved_tokens,
            } => {
                let before = group_thousands(*before_tokens);
                match (lang, after_tokens, saved_tokens) {
                    (Lang::En, Some(a), Some(s)) => (
                        format!("Compacted {before} → {}", group_thousands(*a)),
                        format!(" · saved {}", group_thousands(*s)),
                    ),
                    (Lang::ZhCn, Some(a), Some(s)) => (
                        format!("已压缩 {before} → {}", group_thousands(*a)),
                        format!(" · 节省 {}", group_thousands(*s)),
                    ),
                    (Lang::En, _, _) => (format!("Compacted from {before}"), String::new()),
                    (Lang::ZhCn, _, _) => (format!("已从 {before} 压缩"), String::new()),
                }
            }
            CompactionView::Fallback { reason } => self.fallback_parts(reason),
            CompactionView::Interrupted { reason } => {
                let main = self
                    .pick("Compaction interrupted", "压缩已中断")
                    .to_string();
                let detail = match (lang, reason) {
                    (_, None) => String::new(),
                    (Lang::En, Some(r)) => format!(" · {}", self.turn_end(*r)),
                    (Lang::ZhCn, Some(r)) => format!("（{}）", self.turn_end(*r)),
                };
                (main, detail)
            }
            CompactionView::Stalled { quiet_secs, .. } => {
                let quiet = format_elapsed(lang, *quiet_secs);
                let main = self.pick("Compaction stalled?", "压缩无响应？").to_string();
                let detail = match lang {
                    Lang::En => format!(" · no news for {quiet}"),
                    Lang::ZhCn => format!(" · {quiet}无更新"),
                };
                (main, detail)
            }
        }
    }

    /// The label of a fallback: its main part, then the reason (at most
    /// [`crate::text_bound::MAX_SHOWN_CHARS`] characters of it).
    fn fallback_parts(&self, reason: &str) -> (String, String) {
        let main = self.pick("Compaction fell back", "压缩已回退").to_string();
        let detail = match self.fallback_reason(reason) {
            Some(human) => format!(": {human} ({reason})"),
            None if reason.is_empty() => ": ?".to_string(),
            None => format!(": {}", shown(reason)),
        };
        (main, detail)
    }

    /// How a turn ended.
    pub fn turn_end(&self, end: TurnEnd) -> &'static str {
        match end {
            TurnEnd::Done => self.pick("turn ended", "对话已结束"),
            TurnEnd::Error => self.pick("turn failed", "对话出错"),
            TurnEnd::Cancelled => self.pick("turn cancelled", "对话已取消"),
        }
    }

    /// The compaction chip of a compact toolbar in a narrow box.
    pub fn compaction_short(&self, view: &CompactionView) -> String {
        match view {
            CompactionView::Idle {
                trigger_tokens: Some(t),
            } => format!("≤ {}", group_thousands(*t)),
            CompactionView::Idle {
                trigger_tokens: None,
            } => "–".into(),
            CompactionView::Compacting { elapsed_secs, .. } => {
                format_elapsed(self.0, *elapsed_secs)
            }
            CompactionView::Completed {
                saved_tokens: Some(s),
                ..
            } => format!("−{}", group_thousands(*s)),
            CompactionView::Completed { .. } => self.pick("done", "完成").into(),
            CompactionView::Fallback { .. } => self.pick("fell back", "已回退").into(),
            CompactionView::Interrupted { .. } => self.pick("interrupted", "已中断").into(),
            CompactionView::Stalled { .. } => self.pick("stalled?", "无响应？").into(),
        }
    }

    /// A readable form of a known failure reason.
    pub fn fallback_reason(&self, reason: &str) -> Option<&'static str> {
        match reason {
            ctxguard_core::protocol::failure_reason::NOT_APPLICABLE => {
                Some(self.pick("nothing could be trimmed to fit", "无可裁剪的内容"))
            }
            ctxguard_core::protocol::failure_reason::FAILED => {
                Some(self.pick("the summary call failed", "摘要调用失败"))
            }
            _ => None,
        }
    }

    /// Tooltip of the compaction chip.
    pub fn compaction_title<'a>(&self, view: &'a CompactionView) -> Cow<'a, str> {
        // A fallback's reason is borrowed: it may be megabytes.
        if let CompactionView::Fallback { reason } = view {
            return Cow::Borrowed(reason.as_str());
        }
        Cow::Owned(match (self.0, view) {
            (
                Lang::En,
                CompactionView::Compacting {
                    before_tokens,
                    target_tokens,
                    ..
                },
            ) => format!(
                "Summarising {} tokens of history down to {}",
                group_thousands(*before_tokens),
                group_thousands(*target_tokens)
            ),
            (
                Lang::ZhCn,
                CompactionView::Compacting {
                    before_tokens,
                    target_tokens,
                    ..
                },
            ) => format!(
                "正在把 {} tokens 的历史摘要压缩到 {}",
                group_thousands(*before_tokens),
                group_thousands(*target_tokens)
            ),
            (Lang::En, CompactionView::Stalled { elapsed_secs, .. }) => format!(
                "Compacting for {}; no event since, the server may have stopped",
                format_elapsed(Lang::En, *elapsed_secs)
            ),
            (Lang::ZhCn, CompactionView::Stalled { elapsed_secs, .. }) => format!(
                "已压缩 {}，之后没有收到事件，服务器可能已停止",
                format_elapsed(Lang::ZhCn, *elapsed_secs)
            ),
            (_, other) => self.compaction(other),
        })
    }

    /// The connection chip's label.
    pub fn connection(&self, state: Connection, reason: Option<OfflineReason>) -> &'static str {
        match state {
            Connection::Connecting => self.pick("Connecting…", "连接中…"),
            Connection::Live => self.pick("Live", "实时"),
            Connection::Reconnecting => self.pick("Reconnecting…", "重新连接中…"),
            Connection::Host => self.pick("Fed by the page", "由页面推送"),
            Connection::Offline => match reason {
                Some(OfflineReason::UnknownSession) => self.pick("Unknown session", "会话不存在"),
                Some(OfflineReason::BrowserOffline | OfflineReason::HostSaid) => {
                    self.pick("Offline", "离线")
                }
                _ => self.pick("Offline · retrying", "离线 · 重试中"),
            },
        }
    }

    /// The restored marker.
    pub fn restored(&self) -> &'static str {
        self.pick("saved state", "已保存的状态")
    }

    /// Tooltip of the restored marker.
    pub fn restored_title(&self) -> &'static str {
        self.pick(
            "Shown from this browser's saved copy; the server has not confirmed it yet",
            "来自本浏览器保存的副本，服务器尚未确认",
        )
    }

    /// ARIA label of the bar.
    pub fn bar_label(&self) -> &'static str {
        self.pick("Context window usage", "上下文窗口用量")
    }

    /// Legend of the trigger mark.
    pub fn trigger_mark(&self, tokens: i64) -> String {
        match self.0 {
            Lang::En => format!("Compaction trigger: {}", group_thousands(tokens)),
            Lang::ZhCn => format!("压缩阈值：{}", group_thousands(tokens)),
        }
    }

    /// Legend of the target mark.
    pub fn target_mark(&self, tokens: i64) -> String {
        match self.0 {
            Lang::En => format!("Compaction target: {}", group_thousands(tokens)),
            Lang::ZhCn => format!("压缩目标：{}", group_thousands(tokens)),
        }
    }

    /// Name of a usage source.
    pub fn source(&self, source: Source) -> &'static str {
        match source {
            Source::System => self.pick("System", "系统"),
            Source::User => self.pick("User", "用户"),
            Source::Assistant => self.pick("Assistant", "助手"),
            Source::ToolOutputs => self.pick("Tool outputs", "工具输出"),
            Source::Attachments => self.pick("Attachments", "附件"),
            Source::Overhead => self.pick("Overhead", "开销"),
        }
    }

    /// Count of ignored events.
    pub fn ignored(&self, n: u64) -> String {
        match self.0 {
            Lang::En => format!("{n} bad event{} ignored", if n == 1 { "" } else { "s" }),
            Lang::ZhCn => format!("已忽略 {n} 个无效事件"),
        }
    }

    /// Session label.
    pub fn session(&self) -> &'static str {
        self.pick("Session", "会话")
    }

    /// The forecast chip: "≈ T turns until compaction", or "compaction due" at 0.
    pub fn forecast(&self, turns: u64) -> String {
        let (main, detail) = self.forecast_parts(turns);
        main + detail
    }

    /// The forecast chip's label as its main part and the detail a compact toolbar leaves out.
    pub fn forecast_parts(&self, turns: u64) -> (String, &'static str) {
        match (self.0, turns) {
            (Lang::En, 0) => ("compaction due".into(), ""),
            (Lang::En, 1) => ("≈ 1 turn".into(), " until compaction"),
            (Lang::En, n) => (format!("≈ {n} turns"), " until compaction"),
            (Lang::ZhCn, 0) => ("即将压缩".into(), ""),
            (Lang::ZhCn, n) => (format!("约 {n} 轮后压缩"), ""),
        }
    }

    /// The forecast chip of a compact toolbar in a narrow box.
    pub fn forecast_short(&self, turns: u64) -> String {
        match (self.0, turns) {
            (Lang::En, 0) => "due".into(),
            (Lang::En, n) => format!("≈{n} turns"),
            (Lang::ZhCn, 0) => "即将压缩".into(),
            (Lang::ZhCn, n) => format!("约 {n} 轮"),
        }
    }

    /// The remaining share of a compact toolbar in a narrow box.
    pub fn remaining_short(&self, percent: Option<i64>) -> String {
        let n = percent.map_or_else(|| "–".to_string(), |p| p.to_string());
        match self.0 {
            Lang::En => format!("{n}% left"),
            Lang::ZhCn => format!("剩余 {n}%"),
        }
    }

    /// Tooltip of the forecast chip.
    pub fn forecast_title(&self, tokens_per_turn: f64) -> String {
        let g = group_thousands(tokens_per_turn.round() as i64);
        match self.0 {
            Lang::En => format!("Each recent turn added about {g} tokens"),
            Lang::ZhCn => format!("最近每轮约增加 {g} tokens"),
        }
    }

    /// The compaction count that opens the history.
    pub fn compaction_count(&self, n: usize) -> String {
        match self.0 {
            Lang::En => format!("{n} compaction{}", if n == 1 { "" } else { "s" }),
            Lang::ZhCn => format!("{n} 次压缩"),
        }
    }

    /// What follows the number on the count chip (a compact toolbar shows the number alone).
    pub fn compaction_count_noun(&self, n: usize) -> &'static str {
        match (self.0, n) {
            (Lang::En, 1) => " compaction",
            (Lang::En, _) => " compactions",
            (Lang::ZhCn, _) => " 次压缩",
        }
    }

    /// Label of the history.
    pub fn history_title(&self) -> &'static str {
        self.pick("Compaction history", "压缩历史")
    }

    /// What one history entry says happened.
    pub fn history_outcome(&self, entry: &crate::machine::history::HistoryEntry) -> String {
        use ctxguard_core::protocol::CompactionStatus;
        if entry.status == CompactionStatus::Fallback {
            let (main, detail) = self.fallback_parts(entry.reason.as_deref().unwrap_or_default());
            return main + &detail;
        }
        self.compaction(&CompactionView::Completed {
            before_tokens: entry.before_tokens,
            after_tokens: entry.after_tokens,
            saved_tokens: entry.saved_tokens,
        })
    }

    /// How long a compaction ran.
    pub fn ran_for(&self, secs: u64) -> String {
        let d = format_elapsed(self.0, secs);
        match self.0 {
            Lang::En => format!("ran {d}"),
            Lang::ZhCn => format!("用时 {d}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_language() {
        assert_eq!(Lang::pick(Some("zh-CN"), ["en-US"]), Lang::ZhCn);
        assert_eq!(Lang::pick(Some("en"), ["zh-CN"]), Lang::En);
        assert_eq!(Lang::pick(Some("fr"), ["de", "zh_Hans"]), Lang::ZhCn);
        assert_eq!(Lang::pick(None, ["de"]), Lang::En);
        assert_eq!(Lang::ZhCn.tag(), "zh-CN");
    }

    #[test]
    fn groups_thousands() {
        assert_eq!(group_thousands(0), "0");
        assert_eq!(group_thousands(999), "999");
        assert_eq!(group_thousands(1_000), "1,000");
        assert_eq!(group_thousands(128_000), "128,000");
        assert_eq!(group_thousands(1_234_567), "1,234,567");
        assert_eq!(group_thousands(-45_000), "-45,000");
    }

    #[test]
    fn strings() {
        let en = Text(Lang::En);
        let zh = Text(Lang::ZhCn);
        assert_eq!(en.remaining(Some(42)), "Context 42% left");
        assert_eq!(zh.remaining(Some(42)), "上下文剩余 42%");
        assert_eq!(en.usage(32_000, 128_000), "32,000 / 128,000 tokens");
        assert_eq!(format_elapsed(Lang::En, 75), "1m 15s");
        assert_eq!(format_elapsed(Lang::ZhCn, 5), "5 秒");
        let done = CompactionView::Completed {
            before_tokens: 110_000,
            after_tokens: Some(40_000),
            saved_tokens: Some(70_000),
        };
        assert_eq!(
            en.compaction(&done),
            "Compacted 110,000 → 40,000 · saved 70,000"
        );
        assert_eq!(en.forecast(0), "compaction due");
        assert_eq!(en.forecast(1), "≈ 1 turn until compaction");
        assert_eq!(en.forecast(7), "≈ 7 turns until compaction");
        assert_eq!(en.forecast_parts(7).0, "≈ 7 turns");
        assert_eq!(zh.forecast(3), "约 3 轮后压缩");
        assert_eq!(zh.forecast(0), "即将压缩");
        assert_eq!(en.compaction_count(1), "1 compaction");
        assert_eq!(en.compaction_count(2), "2 compactions");
        assert_eq!(zh.compaction_count(2), "2 次压缩");
        assert_eq!(en.ran_for(65), "ran 1m 05s");
        assert_eq!(en.compaction_short(&done), "−70,000");
        assert_eq!(en.forecast_short(3), "≈3 turns");
        assert_eq!(zh.remaining_short(Some(37)), "剩余 37%");
        assert_eq!(
            en.compaction_parts(&done),
            (
                "Compacted 110,000 → 40,000".to_string(),
                " · saved 70,000".to_string()
            )
        );
        let fell = CompactionView::Fallback {
            reason: "<b>boom</b>".into(),
        };
        assert_eq!(en.compaction(&fell), "Compaction fell back: <b>boom</b>");
        let long = CompactionView::Fallback {
            reason: "x".repeat(10_000_000).as_str().into(),
        };
        let (_, detail) = en.compaction_parts(&long);
        assert_eq!(
            detail.chars().count(),
            2 + crate::text_bound::MAX_SHOWN_CHARS + 1
        );
        let cut = CompactionView::Interrupted {
            reason: Some(TurnEnd::Cancelled),
        };
        assert_eq!(
            en.compaction(&cut),
            "Compaction interrupted · turn cancelled"
        );
        assert_eq!(zh.compaction(&cut), "压缩已中断（对话已取消）");
        assert_eq!(
            en.compaction(&CompactionView::Interrupted { reason: None }),
            "Compaction interrupted"
        );
        let stalled = CompactionView::Stalled {
            elapsed_secs: 200,
            quiet_secs: 125,
        };
        assert_eq!(
            en.compaction(&stalled),
            "Compaction stalled? · no news for 2m 05s"
        );
        assert_eq!(zh.compaction(&stalled), "压缩无响应？ · 2 分 05 秒无更新");
        assert_eq!(zh.exceeded(), "已超出上下文窗口");
        let fell = CompactionView::Fallback {
            reason: "summary_compact_failed".into(),
        };
        assert_eq!(
            en.compaction(&fell),
            "Compaction fell back: the summary call failed (summary_compact_failed)"
        );
    }
}
