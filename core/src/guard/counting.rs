//! How the guard counts tokens. The reference hands its counter LangChain
//! tool calls (`{name, args, id}`), which have no `function` object, so inside
//! the guard tool calls count nothing (SPEC §8): in the usage it compares with
//! the trigger, in the trim's costs and in the emergency pass. A guard built
//! with `strict_counting` counts them as [`TokenCounter::count_messages`] does.

use crate::message::Message;
use crate::tokens::{TokenCounter, Tokens, TOKENS_PER_REPLY};

/// The guard's token counter: a [`TokenCounter`] and whether tool calls count.
#[derive(Debug, Clone, Copy)]
pub struct GuardCounter {
    counter: TokenCounter,
    strict_counting: bool,
}

impl GuardCounter {
    /// Counts as the reference's guard does (`strict_counting` false) or as the metrics do (true).
    pub fn new(counter: TokenCounter, strict_counting: bool) -> Self {
        GuardCounter {
            counter,
            strict_counting,
        }
    }

    /// Counts as the reference's guard does: tool calls count nothing.
    pub fn reference(counter: TokenCounter) -> Self {
        Self::new(counter, false)
    }

    /// The reference counter of `model`'s encoding.
    pub fn for_model(model: &str) -> Self {
        Self::reference(TokenCounter::for_model(model))
    }

    /// The underlying token counter.
    pub fn token_counter(&self) -> &TokenCounter {
        &self.counter
    }

    /// Whether tool calls count (and retained users are measured as the metrics measure them).
    pub fn is_strict(&self) -> bool {
        self.strict_counting
    }

    /// cost(m) = `count_messages([m])` − 3: one message without the reply priming.
    pub fn cost(&self, message: &Message) -> Tokens {
        let full = self.counter.count_message(message);
        if self.strict_counting {
            full
        } else {
            full - self.counter.count_tool_calls(message)
        }
    }

    /// `count_messages(messages)`: every message's cost plus the reply priming once.
    pub fn count(&self, messages: &[Message]) -> Tokens {
        messages.iter().map(|m| self.cost(m)).sum::<Tokens>() + TOKENS_PER_REPLY
    }
}

/// A history and the cost of each of its messages, kept in step as the guard
/// rewrites it, so that usage is never recounted from scratch.
#[derive(Debug, Clone, PartialEq)]
pub struct CountedHistory {
    messages: Vec<Message>,
    costs: Vec<Tokens>,
    total: Tokens,
}

impl CountedHistory {
    /// Counts every message once: O(n) counts.
    pub fn new(messages: Vec<Message>, counter: &GuardCounter) -> Self {
        let costs: Vec<Tokens> = messages.iter().map(|m| counter.cost(m)).collect();
        let total = costs.iter().sum();
        CountedHistory {
            messages,
            costs,
            total,
        }
    }

    /// The messages, in order.
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// The guard's usage: `count_messages(messages)`, in O(1).
    pub fn used_tokens(&self) -> Tokens {
        self.total + TOKENS_PER_REPLY
    }

    /// Replaces message `index`, recounting only it; out-of-range indexes are ignored.
    pub fn replace(&mut self, index: usize, message: Message, counter: &GuardCounter) {
        let cost = counter.cost(&message);
        if let (Some(slot), Some(old)) = (self.messages.get_mut(index), self.costs.get_mut(index)) {
            self.total += cost - *old;
            *old = cost;
            *slot = message;
        }
    }

    /// The messages, giving up the counts.
    pub fn into_messages(self) -> Vec<Message> {
        self.messages
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ToolCall;
    use serde_json::json;

    fn calling() -> Message {
        let mut m = Message::assistant("");
        let call = json!({"id": "c1", "type": "function", "function": {"name": "grep", "arguments": "{\"q\": \"needle\"}"}});
        m.tool_calls = Some(vec![
            serde_json::from_value::<ToolCall>(call).expect("valid call")
        ]);
        m
    }

    /// Reference quirk: the guard's counter sees LangChain tool calls, which count nothing.
    #[test]
    fn tool_calls_count_nothing_unless_strict() {
        let tokens = TokenCounter::for_model("gpt-4o");
        let m = calling();
        let with_calls = tokens.count_message(&m);
        assert!(tokens.count_tool_calls(&m) > 0);
        let reference = GuardCounter::reference(tokens);
        assert_eq!(reference.cost(&m), with_calls - tokens.count_tool_calls(&m));
        assert_eq!(
            GuardCounter::new(tokens, true).cost(&m),
            with_calls,
            "strict counting counts as count_messages does"
        );
        assert_eq!(reference.count(&[]), 3);
    }

    #[test]
    fn replacing_keeps_the_total_in_step() {
        let counter = GuardCounter::for_model("gpt-4o");
        let mut history = CountedHistory::new(vec![Message::user("a b c"), calling()], &counter);
        history.replace(0, Message::user("a much longer text than before"), &counter);
        history.replace(9, Message::user("ignored"), &counter);
        assert_eq!(history.used_tokens(), counter.count(history.messages()));
    }
}
