//! Water-filling one token budget over several attachment bodies.

use crate::tokens::{tokens_of_len, Tokens};

/// Splits `budget` over bodies of `sizes` tokens: smallest first, each takes
/// min(size, remaining ÷ bodies left), so small bodies stay whole and the
/// large ones share what they leave. O(n log n); the result never exceeds a
/// size and sums to at most the budget.
pub fn allocate_budget(sizes: &[Tokens], budget: Tokens) -> Vec<Tokens> {
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by_key(|&i| sizes[i]); // stable: equal sizes keep their order
    let mut allocations = vec![0; sizes.len()];
    let mut remaining = budget.max(0);
    let n = tokens_of_len(sizes.len());
    for (rank, &idx) in order.iter().enumerate() {
        let share = remaining.div_euclid(n - tokens_of_len(rank));
        let take = sizes[idx].max(0).min(share);
        allocations[idx] = take;
        remaining = (remaining - take).max(0);
    }
    allocations
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_bodies_free_budget_for_large_ones() {
        assert_eq!(
            allocate_budget(&[1, 90000, 90000, 1, 7], 4000),
            [1, 1995, 1996, 1, 7]
        );
        assert_eq!(allocate_budget(&[0, 0, 400], 0), [0, 0, 0]);
        assert!(allocate_budget(&[], 10).is_empty());
    }
}
