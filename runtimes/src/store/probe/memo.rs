//! Probed lifecycles, remembered per thread. Every run asks for the real lifecycle of each
//! of its agents, and probing one costs about a tenth of a fault-free run's instructions,
//! while the answer depends only on the personality and the behaviour: a sweep asks for the
//! same few pairs over and over.
//!
//! An entry answers only the pair it was probed for: the whole personality, compared by
//! value (runs lay their agents' personalities out anew, and a scenario may change a knob,
//! as stuck-in-submitted sets `stalled_first_tasks`), and the behaviour's identity. A
//! behaviour without fields (such as [`Knobs`](crate::Knobs)) has nothing to decide from
//! but its code, so its type names it, and a mesh's peers, which get a new `Arc` each run,
//! share an entry. Any other behaviour is named by its instance, which the entry holds so
//! that no other behaviour can take its address while it is remembered.
//!
//! Each thread keeps its own few entries (the `ThreadMemo` in [`super::lifecycle`]), so that
//! a swarm sweep, which draws a personality per seed, holds no more than [`CAPACITY`] of
//! them. This module says what an entry is kept under ([`ProbedPair`]); the memo itself
//! lives beside the probe it saves.

use crate::behaviour::Behaviour;
use crate::personality::Personality;
use std::any::{Any, TypeId};
use std::sync::Arc;

/// Entries a thread keeps: more than one seed of the default matrix asks for (the
/// built-ins, their stuck-in-submitted variants and the mesh's peers).
pub(super) const CAPACITY: usize = 32;

/// What a probed lifecycle is kept under: the personality and the behaviour's identity.
pub(super) struct ProbedPair {
    personality: Personality,
    behaviour: BehaviourIdentity,
}

impl ProbedPair {
    /// The pair `personality` and `behaviour` make.
    pub(super) fn of(personality: &Personality, behaviour: &Arc<dyn Behaviour>) -> Self {
        Self {
            personality: personality.clone(),
            behaviour: BehaviourIdentity::of(behaviour),
        }
    }

    /// Whether this is the pair `personality` and `behaviour` make.
    pub(super) fn is(&self, personality: &Personality, behaviour: &Arc<dyn Behaviour>) -> bool {
        self.behaviour.names(behaviour) && &self.personality == personality
    }
}

/// What tells behaviours apart: two are the same only if they decide alike.
enum BehaviourIdentity {
    /// A behaviour without fields: every value of its type decides alike.
    Stateless(TypeId),
    /// A behaviour with fields: this instance, held so that its address stays its own.
    Instance(Arc<dyn Behaviour>),
}

impl BehaviourIdentity {
    fn of(behaviour: &Arc<dyn Behaviour>) -> Self {
        match stateless_type(behaviour) {
            Some(type_id) => BehaviourIdentity::Stateless(type_id),
            None => BehaviourIdentity::Instance(Arc::clone(behaviour)),
        }
    }

    fn names(&self, behaviour: &Arc<dyn Behaviour>) -> bool {
        match self {
            BehaviourIdentity::Stateless(type_id) => stateless_type(behaviour) == Some(*type_id),
            BehaviourIdentity::Instance(held) => Arc::ptr_eq(held, behaviour),
        }
    }
}

/// The type of `behaviour` if it has no fields.
fn stateless_type(behaviour: &Arc<dyn Behaviour>) -> Option<TypeId> {
    let behaviour: &dyn Behaviour = behaviour.as_ref();
    let any: &dyn Any = behaviour;
    (size_of_val(behaviour) == 0).then(|| any.type_id())
}

#[cfg(test)]
mod tests {
    use super::super::{REMEMBERED, probed};
    use super::*;
    use crate::behaviour::{Knobs, TaskFacts};
    use crate::builtin::builtin;
    use crate::lifecycle;
    use crate::personality::Resubscribe;
    use crate::thread_memo::ThreadMemo;

    fn knobs() -> Arc<dyn Behaviour> {
        Arc::new(Knobs)
    }

    fn remembered_count() -> usize {
        REMEMBERED.with_borrow(ThreadMemo::len)
    }

    /// Resubscribes as its field says, whatever the personality.
    struct Resubscribing(Resubscribe);

    impl Behaviour for Resubscribing {
        fn resubscribe(&self, _: &Personality, _: &TaskFacts) -> Resubscribe {
            self.0
        }
    }

    /// Replays on every resubscribe, whatever the personality.
    struct Replaying;

    impl Behaviour for Replaying {
        fn resubscribe(&self, _: &Personality, _: &TaskFacts) -> Resubscribe {
            Resubscribe::ReplayFromStart
        }
    }

    #[test]
    fn a_remembered_lifecycle_is_the_probed_one() {
        let correct = Personality::default();
        let replaying = Personality {
            resubscribe: Resubscribe::ReplayFromStart,
            ..Personality::default()
        };
        assert_ne!(
            probed(&correct, knobs()),
            probed(&replaying, knobs()),
            "two personalities that differ only in `resubscribe` have different lifecycles"
        );
        let mut personalities: Vec<Personality> = ["python-correct", "go-replaying", "jvm-reaping"]
            .into_iter()
            .map(|name| builtin(name).expect(name))
            .collect();
        personalities.extend([correct, replaying]);
        for _asked_again in 0..2 {
            for personality in &personalities {
                assert_eq!(
                    lifecycle(personality, knobs()),
                    probed(personality, knobs()),
                    "{personality:?}"
                );
            }
        }
        assert_eq!(remembered_count(), personalities.len());
    }

    #[test]
    fn behaviours_that_decide_differently_never_share_an_entry() {
        let personality = Personality::default();
        let behaviours: [Arc<dyn Behaviour>; 4] = [
            Arc::new(Knobs),
            Arc::new(Replaying),
            Arc::new(Resubscribing(Resubscribe::SnapshotThenTail)),
            Arc::new(Resubscribing(Resubscribe::ReplayFromStart)),
        ];
        let probed_answers = behaviours
            .each_ref()
            .map(|behaviour| probed(&personality, Arc::clone(behaviour)));
        assert_ne!(probed_answers[0], probed_answers[1]);
        assert_ne!(probed_answers[2], probed_answers[3]);
        for _asked_again in 0..2 {
            for (behaviour, probed) in behaviours.iter().zip(probed_answers) {
                assert_eq!(lifecycle(&personality, Arc::clone(behaviour)), probed);
            }
        }
        assert_eq!(remembered_count(), behaviours.len());
    }

    #[test]
    fn a_new_instance_of_a_behaviour_without_fields_shares_its_entry() {
        let personality = builtin("python-correct").expect("python-correct");
        let first = lifecycle(&personality, knobs());
        assert_eq!(lifecycle(&personality, knobs()), first);
        assert_eq!(remembered_count(), 1);
    }

    #[test]
    fn a_thread_remembers_at_most_its_capacity() {
        for index in 0..CAPACITY + 3 {
            let drawn = Personality {
                name: format!("drawn-{index}"),
                ..Personality::default()
            };
            lifecycle(&drawn, knobs());
        }
        assert_eq!(remembered_count(), CAPACITY);
    }
}
