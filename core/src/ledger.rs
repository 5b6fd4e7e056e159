//! An incremental token ledger: per-message counts cached so that a snapshot
//! after appending messages costs only the new messages, where the reference
//! recounts the whole history every time. It also attributes used tokens to
//! their sources (system, user, assistant, tool outputs, attachments).

use crate::attachment::find_blocks;
use crate::budget::ContextLimits;
use crate::message::{Content, ContentPart, Message, Role};
use crate::metrics::{ContextMetricsSnapshot, UsageBreakdown};
use crate::tokens::{TokenCounter, Tokens, TOKENS_PER_REPLY};

/// Counted tokens of one message, split by source.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MessageTokens {
    /// The message's full count (as `count_message`).
    pub total: Tokens,
    /// The breakdown of `total`.
    pub parts: UsageBreakdown,
}

/// Counts one message and attributes its tokens.
pub fn count_with_breakdown(counter: &TokenCounter, message: &Message) -> MessageTokens {
    let total = counter.count_message(message);
    let mut text_tokens: Tokens = 0;
    let mut attachment_tokens: Tokens = 0;
    let mut visit = |text: &str| {
        let t = counter.count_text(text);
        text_tokens += t;
        attachment_tokens += attachment_block_tokens(counter, text).min(t);
    };
    match &message.content {
        Some(Content::Text(t)) => visit(t),
        Some(Content::Parts(parts)) => {
            for p in parts {
                if let ContentPart::Text { text, .. } | ContentPart::Bare(text) = p {
                    visit(text);
                }
            }
        }
        _ => {}
    }
    let mut parts = UsageBreakdown::default();
    let own = text_tokens - attachment_tokens;
    let tool_calls = counter.count_tool_calls(message);
    match message.role_kind() {
        Some(Role::System) => parts.system = own,
        Some(Role::Assistant) => parts.assistant = own + tool_calls,
        Some(Role::Tool) => parts.tool_outputs = own,
        Some(Role::User) | None => parts.user = own,
    }
    parts.attachments = attachment_tokens;
    let attributed =
        parts.system + parts.user + parts.assistant + parts.tool_outputs + parts.attachments;
    parts.overhead = total - attributed;
    MessageTokens { total, parts }
}

fn attachment_block_tokens(counter: &TokenCounter, text: &str) -> Tokens {
    find_blocks(text)
        .map(|block| counter.count_text(&text[block.outer]))
        .sum()
}

/// A running count of a growing history.
#[derive(Debug, Clone)]
pub struct Ledger {
    counter: TokenCounter,
    entries: Vec<MessageTokens>,
    total: Tokens,
    parts: UsageBreakdown,
}

impl Ledger {
    /// An empty ledger counting with `counter`.
    pub fn new(counter: TokenCounter) -> Self {
        Ledger {
            counter,
            entries: Vec::new(),
            total: 0,
            parts: UsageBreakdown::default(),
        }
    }

    /// A ledger over an existing history (counts every message once).
    pub fn from_messages(counter: TokenCounter, messages: &[Message]) -> Self {
        let mut ledger = Ledger::new(counter);
        for m in messages {
            ledger.push(m);
        }
        ledger
    }

    /// Appends a message; costs only that message.
    pub fn push(&mut self, message: &Message) {
        let entry = count_with_breakdown(&self.counter, message);
        self.total += entry.total;
        add(&mut self.parts, &entry.parts, 1);
        self.entries.push(entry);
    }

    /// Replaces message `index` (after a re-render); out-of-range indexes are ignored.
    pub fn replace(&mut self, index: usize, message: &Message) {
        let entry = count_with_breakdown(&self.counter, message);
        if let Some(old) = self.entries.get_mut(index) {
            self.total = self.total - old.total + entry.total;
            add(&mut self.parts, &old.parts, -1);
            add(&mut self.parts, &entry.parts, 1);
            *old = entry;
        }
    }

    /// Keeps only the first `len` messages.
    pub fn truncate(&mut self, len: usize) {
        for old in self.entries.drain(len.min(self.entries.len())..) {
            self.total -= old.total;
            add(&mut self.parts, &old.parts, -1);
        }
    }

    /// Number of messages counted.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no message is counted.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The cached count of message `index`.
    pub fn message_tokens(&self, index: usize) -> Option<Tokens> {
        self.entries.get(index).map(|e| e.total)
    }

    /// Tokens of the whole history, as `count_messages` would give: O(1).
    pub fn used_tokens(&self) -> Tokens {
        self.total + TOKENS_PER_REPLY
    }

    /// The per-source split of [`Ledger::used_tokens`].
    pub fn breakdown(&self) -> UsageBreakdown {
        let mut b = self.parts;
        b.overhead += TOKENS_PER_REPLY;
        b
    }

    /// The snapshot of the history under `limits`, with its breakdown: O(1).
    pub fn snapshot(&self, limits: &ContextLimits) -> ContextMetricsSnapshot {
        ContextMetricsSnapshot::from_used(self.used_tokens(), limits)
            .with_breakdown(self.breakdown())
    }
}

fn add(into: &mut UsageBreakdown, from: &UsageBreakdown, sign: Tokens) {
    into.system += sign * from.system;
    into.user += sign * from.user;
    into.assistant += sign * from.assistant;
    into.tool_outputs += sign * from.tool_outputs;
    into.attachments += sign * from.attachments;
    into.overhead += sign * from.overhead;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sum(b: &UsageBreakdown) -> Tokens {
        b.system + b.user + b.assistant + b.tool_outputs + b.attachments + b.overhead
    }

    #[test]
    fn ledger_equals_full_recount() {
        let counter = TokenCounter::for_model("gpt-4o");
        let msgs = vec![
            Message::system("You are terse."),
            Message::user(
                "look <attachment>[Attachment: a | ID: 1 | Type: t]\nbody text</attachment> please",
            ),
            Message::assistant("done"),
            Message::tool("output"),
        ];
        let mut ledger = Ledger::new(counter);
        for m in &msgs {
            ledger.push(m);
            assert_eq!(sum(&ledger.breakdown()), ledger.used_tokens());
        }
        assert_eq!(ledger.used_tokens(), counter.count_messages(&msgs));
        assert!(ledger.breakdown().attachments > 0);
        ledger.replace(3, &Message::tool("x"));
        ledger.truncate(2);
        assert_eq!(ledger.used_tokens(), counter.count_messages(&msgs[..2]));
        assert_eq!(sum(&ledger.breakdown()), ledger.used_tokens());
    }
}
