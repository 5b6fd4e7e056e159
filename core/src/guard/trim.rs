//! Making the summariser's input fit: the one-pass trim to the input budget
//! (kind `summary_trim`) and the shedding after a context-too-long error (kind
//! `summary_shed`). Both drop the oldest messages first and never a system
//! message or the current user message.

use super::counting::GuardCounter;
use super::instruction::instruction_turn;
use super::markers::is_summary;
use crate::message::Message;
use crate::tokens::Tokens;

/// Share of the removable messages each overflow retry sheds (rounded up, at least one).
pub const OVERFLOW_TRIM_FRACTION: f64 = 0.25;
/// The current user message: the last user message that is not a summary.
pub fn current_user_index(messages: &[Message]) -> Option<usize> {
    messages.iter().rposition(|m| m.is_user() && !is_summary(m))
}

/// What a trim kept.
#[derive(Debug, Clone, PartialEq)]
pub struct Trimmed {
    /// The kept messages, in order.
    pub messages: Vec<Message>,
    /// How many messages went.
    pub removed: usize,
}

/// Trims the summariser's working list to `budget_tokens` (SPEC §8 b):
/// total = Σ cost(m) + `count_messages([instruction turn])`; walking oldest
/// → newest until the total fits, every message but the system messages and
/// the current user message goes. `None` (not applicable, nothing removed)
/// when it is still over at the end.
///
/// Counts each message once and walks the list once: O(n).
pub fn summary_trim(
    messages: Vec<Message>,
    budget_tokens: Tokens,
    counter: &GuardCounter,
) -> Option<Trimmed> {
    let costs: Vec<Tokens> = messages.iter().map(|m| counter.cost(m)).collect();
    let framing = counter.count(&[instruction_turn()]);
    let mut total = costs.iter().sum::<Tokens>() + framing;
    let current = current_user_index(&messages);
    let mut keep = vec![true; messages.len()];
    let mut removed = 0;
    for (i, message) in messages.iter().enumerate() {
        if total <= budget_tokens {
            break;
        }
        if message.is_system() || Some(i) == current {
            continue;
        }
        keep[i] = false;
        removed += 1;
        total -= costs[i];
    }
    if total > budget_tokens {
        return None;
    }
    let messages = messages
        .into_iter()
        .zip(keep)
        .filter_map(|(m, keep)| keep.then_some(m))
        .collect();
    Some(Trimmed { messages, removed })
}

/// Indices an overflow retry may drop, oldest first: all but the system
/// messages and the current user message; without a current user message,
/// all but the system messages and the newest of the rest.
pub fn removable_indices(messages: &[Message]) -> Vec<usize> {
    let current = current_user_index(messages);
    let mut out: Vec<usize> = messages
        .iter()
        .enumerate()
        .filter(|(i, m)| !m.is_system() && Some(*i) != current)
        .map(|(i, _)| i)
        .collect();
    if current.is_none() {
        out.pop();
    }
    out
}

/// One overflow retry (SPEC §8 e) after `retries_so_far` retries: sheds the
/// oldest max(1, ceil(n × 0.25)) of the n removable messages of the working
/// list and returns how many went; `None` (give up, the error stands) after
/// `max_retries` retries or when nothing is removable.
pub fn summary_shed(
    working: &mut Vec<Message>,
    retries_so_far: u32,
    max_retries: u32,
) -> Option<usize> {
    if retries_so_far >= max_retries {
        return None;
    }
    let removable = removable_indices(working);
    if removable.is_empty() {
        return None;
    }
    let step = ((removable.len() as f64 * OVERFLOW_TRIM_FRACTION).ceil() as usize).max(1);
    let mut drop = vec![false; working.len()];
    for &i in removable.iter().take(step) {
        drop[i] = true;
    }
    let mut flags = drop.iter();
    working.retain(|_| !flags.next().copied().unwrap_or(false));
    Some(step.min(removable.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guard::SUMMARY_FLAG;

    fn history(n: usize) -> Vec<Message> {
        let mut msgs = vec![Message::system("rules")];
        for i in 0..n {
            let role = if i % 2 == 0 { "user" } else { "assistant" };
            msgs.push(Message::new(role, format!("message number {i}")));
        }
        msgs.push(Message::user("the current question"));
        msgs
    }

    fn texts(msgs: &[Message]) -> Vec<&str> {
        msgs.iter().filter_map(Message::text).collect()
    }

    #[test]
    fn drops_oldest_first_and_never_the_floor() {
        let counter = GuardCounter::for_model("gpt-4o");
        let msgs = history(6);
        let floor =
            counter.cost(&msgs[0]) + counter.cost(&msgs[7]) + counter.count(&[instruction_turn()]);
        let trimmed = summary_trim(msgs.clone(), floor, &counter).expect("the floor fits");
        assert_eq!(trimmed.removed, 6);
        assert_eq!(texts(&trimmed.messages), ["rules", "the current question"]);
        assert_eq!(summary_trim(msgs.clone(), floor - 1, &counter), None);
        let all = summary_trim(msgs.clone(), 100_000, &counter).expect("fits");
        assert_eq!((all.removed, all.messages), (0, msgs));
    }

    #[test]
    fn the_walk_stops_as_soon_as_it_fits() {
        let counter = GuardCounter::for_model("gpt-4o");
        let msgs = history(6);
        let total = counter.count(&msgs) - 3 + counter.count(&[instruction_turn()]);
        // Removing the first removable message is enough.
        let budget = total - counter.cost(&msgs[1]);
        let trimmed = summary_trim(msgs.clone(), budget, &counter).expect("fits");
        assert_eq!(trimmed.removed, 1);
        assert_eq!(trimmed.messages[1], msgs[2]);
    }

    /// Reference quirk: without a current user message everything but system messages may go.
    #[test]
    fn without_a_current_user_the_list_can_end_up_empty() {
        let counter = GuardCounter::for_model("gpt-4o");
        let msgs = vec![Message::assistant("a"), Message::assistant("b")];
        let framing = counter.count(&[instruction_turn()]);
        let trimmed = summary_trim(msgs, framing, &counter).expect("fits once empty");
        assert_eq!((trimmed.removed, trimmed.messages.len()), (2, 0));
    }

    #[test]
    fn summaries_are_not_the_current_user_message() {
        let mut msgs = history(2);
        let mut summary = Message::user("summary");
        summary.set_kwarg(SUMMARY_FLAG, true.into());
        msgs.push(summary);
        assert_eq!(current_user_index(&msgs), Some(3));
        let mut not_quite = Message::user("typed flag");
        not_quite.set_kwarg(SUMMARY_FLAG, "true".into());
        msgs.push(not_quite);
        assert_eq!(
            current_user_index(&msgs),
            Some(5),
            "only the JSON value true marks a summary"
        );
    }

    #[test]
    fn shedding_takes_a_quarter_rounded_up() {
        let mut msgs = history(7); // 7 removable
        assert_eq!(summary_shed(&mut msgs, 0, 3), Some(2));
        assert_eq!(msgs.len(), 7);
        assert_eq!(
            summary_shed(&mut msgs, 3, 3),
            None,
            "a fourth failure gives up"
        );
        let mut tiny = vec![
            Message::system("s"),
            Message::assistant("a"),
            Message::user("q"),
        ];
        assert_eq!(summary_shed(&mut tiny, 0, 3), Some(1));
        assert_eq!(
            summary_shed(&mut tiny, 1, 3),
            None,
            "only the floor is left"
        );
        let mut no_user = vec![Message::assistant("a"), Message::assistant("b")];
        assert_eq!(summary_shed(&mut no_user, 0, 3), Some(1));
        assert_eq!(texts(&no_user), ["b"]);
        assert_eq!(
            summary_shed(&mut no_user, 1, 3),
            None,
            "the newest survives without a user message"
        );
    }

    /// Trimming 100 000 messages costs one count per message and one walk.
    #[test]
    fn trimming_a_huge_history_is_linear() {
        let counter = GuardCounter::for_model("gpt-4o");
        let msgs = history(100_000);
        let trimmed = summary_trim(msgs, 1_000, &counter).expect("the floor is small");
        assert!(counter.count(&trimmed.messages) <= 1_000);
        assert_eq!(
            trimmed.messages.last().and_then(Message::text),
            Some("the current question")
        );
    }
}
