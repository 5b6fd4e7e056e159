//! The embedded extractive summariser: the leading sentence of each turn and
//! the key line of each tool output, newest first, within a token budget.

use super::calls::call_parts;
use ctxguard_core::attachment::find_blocks;
use ctxguard_core::guard::{is_summary, SummaryError, SUMMARY_INSTRUCTION, SUMMARY_PREFIX};
use ctxguard_core::tokens::{TokenCounter, Tokens};
use ctxguard_core::tool_output::HEADER_PREFIX;
use ctxguard_core::{Message, Role};

/// Default budget of an extractive summary, in tokens.
pub const DEFAULT_SUMMARY_TOKENS: Tokens = 800;
/// Most words of one extracted line.
const LINE_WORDS: usize = 24;

/// The embedded extractive summariser (see the module docs).
#[derive(Debug, Clone, Copy)]
pub struct ExtractiveSummarizer {
    counter: TokenCounter,
    budget_tokens: Tokens,
}

impl ExtractiveSummarizer {
    /// A summariser whose summaries stay within `budget_tokens` (counted with `counter`).
    pub fn new(counter: TokenCounter, budget_tokens: Tokens) -> Self {
        ExtractiveSummarizer {
            counter,
            budget_tokens: budget_tokens.max(64),
        }
    }

    /// Summarises a summariser request: an objective (the latest user turn),
    /// the progress so far as one line per turn (an earlier summary's lines
    /// carried over first), and the next step. Empty when there is nothing
    /// but system messages and the instruction.
    pub fn summarize(&self, messages: &[Message]) -> Result<String, SummaryError> {
        let turns: Vec<&Message> = messages
            .iter()
            .filter(|m| !m.is_system())
            .filter(|m| m.text() != Some(SUMMARY_INSTRUCTION))
            .collect();
        let Some(objective) = turns
            .iter()
            .rev()
            .find(|m| m.is_user() && !is_summary(m))
            .map(|m| leading_sentence(&without_blocks(&m.content_as_text())))
        else {
            return Ok(String::new());
        };
        let mut points = Vec::new();
        for m in &turns {
            points.extend(key_lines(m));
        }
        let head = format!("Objective: {objective}\n\nProgress so far (oldest first):");
        let tail = format!("\n\nNext step: answer \"{objective}\"");
        let mut spent = self.counter.count_text(&head) + self.counter.count_text(&tail);
        let mut kept = Vec::new();
        for point in points.iter().rev() {
            let cost = self.counter.count_text(point) + 1;
            if spent + cost > self.budget_tokens {
                break;
            }
            spent += cost;
            kept.push(point.as_str());
        }
        let omitted = points.len() - kept.len();
        let mut out = head;
        if omitted > 0 {
            out.push_str(&format!("\n- ({omitted} earlier points left out)"));
        }
        for point in kept.iter().rev() {
            out.push('\n');
            out.push_str(point);
        }
        out.push_str(&tail);
        Ok(out)
    }
}

/// The lines a message contributes to the progress list.
fn key_lines(m: &Message) -> Vec<String> {
    let text = m.content_as_text();
    if is_summary(m) || text.starts_with(SUMMARY_PREFIX) {
        // Carry an earlier summary's progress forward.
        return text
            .lines()
            .filter(|l| l.starts_with("- ") && !l.ends_with("points left out)"))
            .map(str::to_string)
            .collect();
    }
    match m.role_kind() {
        Some(Role::User) => {
            let mut line = format!("- user asked: {}", leading_sentence(&without_blocks(&text)));
            let files = attachment_names(&text);
            if !files.is_empty() {
                line.push_str(&format!(" (attached: {})", files.join(", ")));
            }
            vec![line]
        }
        Some(Role::Assistant) => match &m.tool_calls {
            Some(calls) if !calls.is_empty() => calls
                .iter()
                .map(|c| {
                    let (name, args) = call_parts(c);
                    format!("- assistant ran {name} {}", clip_words(&args, 12))
                })
                .collect(),
            _ if text.trim().is_empty() => Vec::new(),
            _ => vec![format!("- assistant answered: {}", leading_sentence(&text))],
        },
        Some(Role::Tool) => {
            let name = m.name.as_deref().unwrap_or("tool");
            let line = tool_key_line(&text);
            vec![format!("- {name} output: {line}")]
        }
        _ => Vec::new(),
    }
}

/// `text` without its `<attachment>` blocks (a user turn's words, not its files).
fn without_blocks(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    for block in find_blocks(text) {
        out.push_str(&text[from..block.outer.start]);
        from = block.outer.end;
    }
    out.push_str(&text[from..]);
    out
}

/// The first sentence of `text`, at most [`LINE_WORDS`] words, on one line.
fn leading_sentence(text: &str) -> String {
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('<'))
        .unwrap_or("");
    let end = first
        .char_indices()
        .find(|&(i, c)| {
            matches!(c, '.' | '?' | '!') && first[i + c.len_utf8()..].starts_with([' ', '\t'])
        })
        .map(|(i, c)| i + c.len_utf8())
        .unwrap_or(first.len());
    clip_words(&first[..end], LINE_WORDS)
}

fn clip_words(text: &str, max: usize) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.len() <= max {
        return words.join(" ");
    }
    format!("{} …", words[..max].join(" "))
}

/// File names in `[Attachment: NAME | ...]` headers.
fn attachment_names(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            let rest = l
                .strip_prefix("[Attachment: ")
                .or_else(|| l.strip_prefix("[Image Attachment: "))?;
            Some(rest.split(" | ").next()?.trim().to_string())
        })
        .collect()
}

/// The most telling line of a tool output: the first error, else the first
/// warning, else the first line of the body (a rendered header skipped).
fn tool_key_line(text: &str) -> String {
    let body: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with(HEADER_PREFIX))
        .collect();
    let find = |needles: &[&str]| {
        body.iter()
            .find(|l| {
                let lower = l.to_lowercase();
                needles.iter().any(|n| lower.contains(n))
            })
            .copied()
    };
    let line = find(&["error", "fail", "panic"])
        .or_else(|| find(&["warn"]))
        .or_else(|| body.first().copied())
        .unwrap_or("(empty)");
    clip_words(line, LINE_WORDS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::publishers::summarizer::testing::conversation;
    use serde_json::Value;

    fn counter() -> TokenCounter {
        TokenCounter::for_model("gpt-4o")
    }

    #[test]
    fn extractive_summary_picks_leading_sentences_and_key_lines() {
        let s = ExtractiveSummarizer::new(counter(), DEFAULT_SUMMARY_TOKENS)
            .summarize(&conversation())
            .expect("summary");
        assert!(
            s.starts_with("Objective: Find where the timeout is configured."),
            "{s}"
        );
        assert!(
            s.contains("- user asked: Why does the nightly build fail on ARM?\n"),
            "{s}"
        );
        assert!(
            s.contains("- assistant ran shell {\"cmd\": \"grep -n error build.log\"}"),
            "{s}"
        );
        assert!(
            s.contains("- shell output: 0002 ERROR linker relocation overflow in module a"),
            "{s}"
        );
        assert!(
            s.contains("- assistant answered: The linker overflows."),
            "{s}"
        );
        assert!(
            !s.contains("be brief") && !s.contains("compacting this conversation"),
            "{s}"
        );
    }

    #[test]
    fn extractive_summary_keeps_the_newest_points_within_its_budget() {
        let mut history = vec![Message::system("s")];
        for i in 0..400 {
            history.push(Message::user(format!(
                "Question number {i} about the cache key."
            )));
            history.push(Message::assistant(format!("Answer number {i}.")));
        }
        let budget = 300;
        let s = ExtractiveSummarizer::new(counter(), budget)
            .summarize(&history)
            .expect("summary");
        assert!(
            counter().count_text(&s) <= budget,
            "{}",
            counter().count_text(&s)
        );
        assert!(s.contains("Answer number 399."));
        assert!(!s.contains("Question number 0 "));
        assert!(s.contains("earlier points left out)"));
        // A later summary of that summary carries its points forward.
        let mut summary = Message::user(format!("{SUMMARY_PREFIX}\n\n{s}"));
        summary.set_kwarg("summary_compacted", Value::Bool(true));
        let again = ExtractiveSummarizer::new(counter(), budget)
            .summarize(&[summary, Message::user("And now?")])
            .expect("summary");
        assert!(
            again.contains("- assistant answered: Answer number 399."),
            "{again}"
        );
        assert!(again.starts_with("Objective: And now?"));
    }

    #[test]
    fn a_user_turn_is_summarised_by_its_words_not_its_files() {
        let block = "<attachment>[Attachment 1]\n[Attachment: notes.md | ID: 1 | Type: text/markdown | Size: 1 KB]\nfile body.\n\n</attachment>";
        let mut turn = Message::user("");
        turn.content = Some(ctxguard_core::message::Content::Parts(vec![
            ctxguard_core::message::ContentPart::text(block),
            ctxguard_core::message::ContentPart::text("Summarise the notes. Then stop."),
        ]));
        let s = ExtractiveSummarizer::new(counter(), DEFAULT_SUMMARY_TOKENS)
            .summarize(&[turn, Message::user(SUMMARY_INSTRUCTION)])
            .expect("summary");
        assert!(s.starts_with("Objective: Summarise the notes."), "{s}");
        assert!(
            s.contains("- user asked: Summarise the notes. (attached: notes.md)"),
            "{s}"
        );
    }

    #[test]
    fn nothing_to_summarise_is_empty() {
        let s = ExtractiveSummarizer::new(counter(), 100)
            .summarize(&[Message::system("s"), Message::user(SUMMARY_INSTRUCTION)])
            .expect("ok");
        assert!(s.is_empty());
    }
}
