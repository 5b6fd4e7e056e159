//! Trimming the summariser's input: the oldest removable messages go first,
//! in one pass over per-message counts taken once; system messages and the
//! current user message are never removed.

use super::is_summary;
use crate::message::Message;

/// Which messages a trim keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrimPlan {
    /// `keep[i]`: whether message `i` stays.
    pub keep: Vec<bool>,
    /// How many messages were dropped.
    pub removed: usize,
    /// Tokens of the kept messages plus the fixed tokens.
    pub total_tokens: usize,
}

impl TrimPlan {
    /// The kept messages, in order.
    pub fn apply(&self, messages: Vec<Message>) -> Vec<Message> {
        messages
            .into_iter()
            .zip(&self.keep)
            .filter_map(|(m, keep)| keep.then_some(m))
            .collect()
    }
}

/// Index of the current user message: the last user message that is not a summary.
pub fn current_user_index(messages: &[Message]) -> Option<usize> {
    messages.iter().rposition(|m| m.is_user() && !is_summary(m))
}

/// Plans dropping the oldest removable messages until `Σ cost + fixed_tokens ≤ budget_tokens`.
///
/// Calls `cost` exactly once per message and walks the list once: O(n).
/// `None` when even the protected floor (system messages and the current
/// user message) is over the budget.
pub fn trim_oldest(
    messages: &[Message],
    budget_tokens: i64,
    fixed_tokens: usize,
    mut cost: impl FnMut(&Message) -> usize,
) -> Option<TrimPlan> {
    let counts: Vec<usize> = messages.iter().map(&mut cost).collect();
    let mut total = counts.iter().sum::<usize>() + fixed_tokens;
    let mut keep = vec![true; messages.len()];
    let mut removed = 0;
    let current = current_user_index(messages);
    let fits = |total: usize| (total as i64) <= budget_tokens;
    for (i, message) in messages.iter().enumerate() {
        if fits(total) {
            break;
        }
        if message.is_system() || Some(i) == current {
            continue;
        }
        keep[i] = false;
        removed += 1;
        total -= counts[i];
    }
    fits(total).then_some(TrimPlan {
        keep,
        removed,
        total_tokens: total,
    })
}

/// Indices an overflow retry may drop, oldest first: neither system messages
/// nor the current user message; without a current user message the newest
/// candidate is kept too, so one non-system message always survives.
pub(crate) fn removable_indices(messages: &[Message]) -> Vec<usize> {
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

/// Drops the oldest quarter (rounded up, at least one) of the removable messages; returns how many went.
pub(crate) fn shed_oldest_quarter(messages: &mut Vec<Message>, fraction: f64) -> usize {
    let removable = removable_indices(messages);
    if removable.is_empty() {
        return 0;
    }
    let step = ((removable.len() as f64 * fraction).ceil() as usize).clamp(1, removable.len());
    let mut drop = vec![false; messages.len()];
    for &i in &removable[..step] {
        drop[i] = true;
    }
    let mut i = 0;
    messages.retain(|_| {
        let keep = !drop[i];
        i += 1;
        keep
    });
    step
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::TokenCounter;

    fn history(n: usize) -> Vec<Message> {
        let mut msgs = vec![Message::new("system", "rules")];
        for i in 0..n {
            let role = if i % 2 == 0 { "user" } else { "assistant" };
            msgs.push(Message::new(role, format!("message number {i}")));
        }
        msgs.push(Message::new("user", "the current question"));
        msgs
    }

    #[test]
    fn drops_oldest_first_and_never_the_floor() {
        let msgs = history(6);
        let plan = trim_oldest(&msgs, 5, 0, |_| 1).expect("the floor of 2 fits 5");
        // 8 messages of 1 token: three oldest non-system ones go.
        assert_eq!(
            plan.keep,
            [true, false, false, false, true, true, true, true]
        );
        assert_eq!((plan.removed, plan.total_tokens), (3, 5));
        assert!(
            trim_oldest(&msgs, 1, 0, |_| 1).is_none(),
            "system + current user need 2"
        );
        let fits = trim_oldest(&msgs, 100, 0, |_| 1).expect("fits");
        assert_eq!(fits.removed, 0);
    }

    #[test]
    fn summaries_are_not_the_current_user_message() {
        let mut msgs = history(2);
        let mut summary = Message::new("user", "summary");
        summary.set_kwarg(super::super::SUMMARY_FLAG, true.into());
        msgs.push(summary);
        assert_eq!(current_user_index(&msgs), Some(3));
    }

    /// Trimming 100 000 messages costs one count per message and one walk:
    /// counted operations, not time.
    #[test]
    fn trimming_a_huge_history_is_linear() {
        let counter = TokenCounter::for_model("gpt-4o");
        for n in [10_000usize, 100_000] {
            let msgs = history(n);
            let mut cost_calls = 0usize;
            let plan = trim_oldest(&msgs, 1_000, 50, |m| {
                cost_calls += 1;
                counter.count_message(m)
            })
            .expect("the floor is small");
            assert_eq!(
                cost_calls,
                msgs.len(),
                "each message is counted exactly once"
            );
            assert!(plan.total_tokens <= 1_000);
            assert!(plan.keep[0] && plan.keep[msgs.len() - 1]);
            // The kept suffix is contiguous: the walk stopped at the first fit.
            let first_kept = plan.keep[1..].iter().position(|k| *k).map(|p| p + 1);
            let kept = first_kept.map(|f| plan.keep[f..].iter().all(|k| *k));
            assert_eq!(kept, Some(true));
        }
    }

    #[test]
    fn shedding_takes_a_quarter_rounded_up() {
        let mut msgs = history(7); // 7 removable
        assert_eq!(shed_oldest_quarter(&mut msgs, 0.25), 2);
        assert_eq!(msgs.len(), 7);
        let mut tiny = vec![
            Message::new("system", "s"),
            Message::new("assistant", "a"),
            Message::new("user", "q"),
        ];
        assert_eq!(shed_oldest_quarter(&mut tiny, 0.25), 1);
        assert_eq!(
            shed_oldest_quarter(&mut tiny, 0.25),
            0,
            "only the floor is left"
        );
        let mut no_user = vec![
            Message::new("assistant", "a"),
            Message::new("assistant", "b"),
        ];
        assert_eq!(shed_oldest_quarter(&mut no_user, 0.25), 1);
        assert_eq!(
            shed_oldest_quarter(&mut no_user, 0.25),
            0,
            "the newest survives without a user message"
        );
    }
}
