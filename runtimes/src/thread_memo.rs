//! A few answers a thread remembers, for work whose answer depends only on values that a
//! sweep meets run after run (a runtime's probed lifecycle, its Card's text). Per thread,
//! so that sweeps on several threads take no lock; bounded, the least recently used answer
//! dropped first, so that a sweep meeting a new value every run (a swarm draws a
//! personality per seed) holds no more than the capacity.

use std::cell::RefCell;
use std::thread::LocalKey;

/// Answers under their keys, the most recently used last.
pub(crate) struct ThreadMemo<Key, Answer> {
    capacity: usize,
    entries: Vec<(Key, Answer)>,
}

impl<Key, Answer: Clone> ThreadMemo<Key, Answer> {
    /// An empty memo that keeps at most `capacity` answers.
    pub(crate) const fn new(capacity: usize) -> Self {
        Self {
            capacity,
            entries: Vec::new(),
        }
    }

    /// The answer under the key `picks` accepts, which becomes the most recently used.
    fn recall(&mut self, picks: impl Fn(&Key) -> bool) -> Option<Answer> {
        let index = self.entries.iter().rposition(|(key, _)| picks(key))?;
        let entry = self.entries.remove(index);
        let answer = entry.1.clone();
        self.entries.push(entry);
        Some(answer)
    }

    /// Keeps `answer` under `key`, dropping the least recently used answer when full.
    fn remember(&mut self, key: Key, answer: Answer) {
        if self.entries.len() == self.capacity {
            self.entries.remove(0);
        }
        self.entries.push((key, answer));
    }

    /// How many answers are kept.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }
}

/// The answer `memo` keeps under the key `picks` accepts; otherwise `compute`'s, kept under
/// `key()`. `compute` runs with the memo released, so it may use memos itself.
pub(crate) fn recall_or<Key: 'static, Answer: Clone + 'static>(
    memo: &'static LocalKey<RefCell<ThreadMemo<Key, Answer>>>,
    picks: impl Fn(&Key) -> bool,
    key: impl FnOnce() -> Key,
    compute: impl FnOnce() -> Answer,
) -> Answer {
    if let Some(answer) = memo.with_borrow_mut(|memo| memo.recall(picks)) {
        return answer;
    }
    let answer = compute();
    memo.with_borrow_mut(|memo| memo.remember(key(), answer.clone()));
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        static SQUARES: RefCell<ThreadMemo<u32, u32>> = const { RefCell::new(ThreadMemo::new(3)) };
    }

    fn square(n: u32, computed: &mut Vec<u32>) -> u32 {
        recall_or(
            &SQUARES,
            |key| *key == n,
            || n,
            || {
                computed.push(n);
                n * n
            },
        )
    }

    #[test]
    fn computes_each_key_once_while_it_is_kept() {
        let mut computed = Vec::new();
        for n in [2, 3, 2, 3] {
            assert_eq!(square(n, &mut computed), n * n);
        }
        assert_eq!(computed, [2, 3]);
    }

    #[test]
    fn drops_the_least_recently_used_answer_when_full() {
        let mut computed = Vec::new();
        for n in [1, 2, 3, 1, 4] {
            square(n, &mut computed);
        }
        assert_eq!(SQUARES.with_borrow(ThreadMemo::len), 3);
        // 2 was the least recently used when 4 came: computed again; 1 was kept.
        for n in [1, 2] {
            square(n, &mut computed);
        }
        assert_eq!(computed, [1, 2, 3, 4, 2]);
    }
}
