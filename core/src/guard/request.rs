//! The summariser's request (kind `summary_request`): the working list with
//! its tool pairs sanitised, then the reference's instruction turn, word for
//! word. A trim can orphan tool results: they leave the request, not the
//! working list, which the overflow retries keep shedding from.

use super::counting::GuardCounter;
use super::instruction::instruction_turn;
use super::sanitize::sanitize_tool_pairs;
use super::trim::summary_trim;
use crate::message::Message;
use crate::tokens::Tokens;

/// The request for a working list: its tool pairs sanitised, the instruction turn last.
pub fn request_messages(working: &[Message]) -> Vec<Message> {
    let mut request = sanitize_tool_pairs(working.to_vec());
    request.push(instruction_turn());
    request
}

/// The start of a compaction: the working list and the first request made from it.
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryInput {
    /// The sanitised and trimmed history the summary is made from (orphans a trim left included).
    pub working: Vec<Message>,
    /// The exact messages to send to the summariser.
    pub request: Vec<Message>,
    /// How many messages the trim removed.
    pub removed: usize,
}

/// Prepares a compaction of `messages` (SPEC §8 a–c): sanitises the tool
/// pairs, trims to `budget_tokens` (`None`: no trim), and builds the request.
/// `None` when the trim is not applicable, so that nothing is sent.
pub fn summary_request(
    messages: Vec<Message>,
    budget_tokens: Option<Tokens>,
    counter: &GuardCounter,
) -> Option<SummaryInput> {
    let mut working = sanitize_tool_pairs(messages);
    let mut removed = 0;
    if let Some(budget) = budget_tokens {
        let trimmed = summary_trim(working, budget, counter)?;
        working = trimmed.messages;
        removed = trimmed.removed;
    }
    let request = request_messages(&working);
    Some(SummaryInput {
        working,
        request,
        removed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guard::instruction::SUMMARY_INSTRUCTION;
    use crate::message::ToolCall;
    use serde_json::json;

    #[test]
    fn the_instruction_turn_counts_as_the_reference_measured_it() {
        let turn = [instruction_turn()];
        assert_eq!(GuardCounter::for_model("gpt-4o").count(&turn), 154);
        assert_eq!(GuardCounter::for_model("gpt-4").count(&turn), 152);
        assert!(SUMMARY_INSTRUCTION.ends_with("continue the work."));
        assert_eq!(SUMMARY_INSTRUCTION.matches('\u{2026}').count(), 2);
    }

    /// A trim can orphan a tool result: it stays in the working list and leaves the request.
    #[test]
    fn orphans_of_a_trim_leave_the_request_only() {
        let counter = GuardCounter::for_model("gpt-4o");
        let mut call = Message::assistant("x ".repeat(400));
        let spec = json!({"id": "c1", "type": "function", "function": {"name": "grep", "arguments": "{}"}});
        call.tool_calls = Some(vec![serde_json::from_value::<ToolCall>(spec).expect("call")]);
        let mut result = Message::tool("found it");
        result.tool_call_id = Some("c1".into());
        let question = Message::user("and now?");
        let budget = counter.count(&[result.clone(), question.clone(), instruction_turn()]);
        let input = summary_request(
            vec![call, result.clone(), question.clone()],
            Some(budget),
            &counter,
        )
        .expect("fits after the trim");
        assert_eq!(input.removed, 1);
        assert_eq!(input.working, [result, question.clone()]);
        assert_eq!(input.request, [question, instruction_turn()]);
        assert_eq!(summary_request(vec![], Some(0), &counter), None);
        let untrimmed = summary_request(vec![], None, &counter).expect("no budget, no trim");
        assert_eq!(untrimmed.request, [instruction_turn()]);
    }
}
