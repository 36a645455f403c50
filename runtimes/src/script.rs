//! Executor scripts: what a task does, turn by turn.
//!
//! The message that creates a task picks its script: a TCK message id (`tck-…`, see
//! [`crate::tck`]) picks a TCK script; else if its text starts with a directive word
//! (`#complete`, `#fail`, `#long`, `#ask-twice`) that script runs, otherwise the origin incident's
//! default, [`Script::AskOnce`]. Selection lives only in [`Script::for_message`] and, for
//! follow-ups, [`Script::for_follow_up`].

use crate::step::TurnStep;
use crate::tck::TckScript;
use meshsim_protocol::{Message, Part, TaskState};

/// A task's behaviour across its turns. Turn 0 starts with the creating message; each
/// follow-up to an interrupted task starts the next turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Script {
    /// The origin incident's: `working → input-required` (a question), then on the answer
    /// `working → completed` with an artifact.
    AskOnce,
    /// `working → completed` with an artifact, no question.
    CompleteAtOnce,
    /// `working → failed`.
    Fail,
    /// `working`, then many work steps each producing an artifact chunk, then `completed`.
    LongRunning,
    /// Two questions before completing.
    AskTwice,
    /// What the A2A TCK asks for in the message id.
    Tck(TckScript),
}

impl Script {
    /// Every script a directive word selects, default first.
    pub const ALL: [Script; 5] = [
        Script::AskOnce,
        Script::CompleteAtOnce,
        Script::Fail,
        Script::LongRunning,
        Script::AskTwice,
    ];

    /// The word that selects this script at the start of the first message (the default
    /// has none).
    pub fn directive(self) -> Option<&'static str> {
        match self {
            Script::AskOnce => None,
            Script::CompleteAtOnce => Some("#complete"),
            Script::Fail => Some("#fail"),
            Script::LongRunning => Some("#long"),
            Script::AskTwice => Some("#ask-twice"),
            Script::Tck(_) => None,
        }
    }

    /// The script a task created by `message` runs.
    pub fn for_message(message: &Message) -> Script {
        if let Some(tck) = TckScript::for_message(message) {
            return Script::Tck(tck);
        }
        Script::for_text(&message.text_content())
    }

    /// The script a (non-TCK) message with this text picks: by its first word.
    pub fn for_text(text: &str) -> Script {
        let first = text.split_whitespace().next().unwrap_or("");
        Script::ALL
            .into_iter()
            .find(|script| script.directive() == Some(first))
            .unwrap_or(Script::AskOnce)
    }

    /// The script of the turn a follow-up `message` starts: a TCK message picks its own
    /// (the TCK steers each turn by its message id); any other keeps the task's.
    pub fn for_follow_up(self, message: &Message) -> Script {
        TckScript::for_message(message).map_or(self, Script::Tck)
    }

    /// Whether the task asks for input (so its job needs a follow-up to finish).
    pub fn asks(self) -> bool {
        self.questions() > 0
    }

    /// How many turns the script runs when every question is answered: one more than its
    /// questions.
    pub fn turns(self) -> u32 {
        self.questions() + 1
    }

    /// How many work steps its first `turns` turns take: the shortest run of those turns
    /// takes this many `work.min_ms`, the longest this many `work.max_ms`.
    pub fn work_steps(self, turns: u32, long_steps: u32) -> u32 {
        let steps = (0..turns)
            .flat_map(|turn| self.turn(turn, "", long_steps))
            .filter(|step| matches!(step, TurnStep::Work))
            .count();
        u32::try_from(steps).unwrap_or(u32::MAX)
    }

    /// How many questions the script asks before it ends.
    fn questions(self) -> u32 {
        match self {
            Script::AskOnce => 1,
            Script::AskTwice => 2,
            Script::CompleteAtOnce | Script::Fail | Script::LongRunning | Script::Tck(_) => 0,
        }
    }

    /// The steps of turn `turn`; `input` is the text of the message that started it.
    /// `long_steps` sizes the long-running script.
    pub fn turn(self, turn: u32, input: &str, long_steps: u32) -> Vec<TurnStep> {
        if let Script::Tck(tck) = self {
            return tck.turn();
        }
        let mut steps = vec![
            TurnStep::Work,
            TurnStep::status(TaskState::Working, None),
            TurnStep::Work,
        ];
        if turn < self.questions() {
            let question = match turn {
                0 => "Which format do you want the result in?".to_string(),
                n => format!("Question {}: anything else to add?", n + 1),
            };
            steps.push(TurnStep::status(TaskState::InputRequired, Some(question)));
            return steps;
        }
        match self {
            Script::Fail => {
                steps.push(TurnStep::status(
                    TaskState::Failed,
                    Some(format!("cannot do `{input}`")),
                ));
            }
            Script::LongRunning => {
                steps.pop();
                let total = long_steps.max(1);
                for chunk in 0..total {
                    steps.push(TurnStep::Work);
                    steps.push(TurnStep::Artifact {
                        part: Part::text(format!("chunk {} of {total}", chunk + 1)),
                        chunk,
                        last: chunk + 1 == total,
                    });
                }
                steps.push(TurnStep::status(TaskState::Completed, None));
            }
            Script::AskOnce | Script::AskTwice | Script::CompleteAtOnce | Script::Tck(_) => {
                steps.push(TurnStep::Artifact {
                    part: Part::text(format!("result for: {input}")),
                    chunk: 0,
                    last: true,
                });
                steps.push(TurnStep::status(TaskState::Completed, None));
            }
        }
        steps
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use meshsim_protocol::{PartContent, Role};

    fn states(steps: &[TurnStep]) -> Vec<TaskState> {
        steps
            .iter()
            .filter_map(|step| match step {
                TurnStep::Status { state, .. } => Some(*state),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn work_steps_count_the_work_of_the_turns_asked_for() {
        let every_turn = |script: Script| script.work_steps(script.turns(), 7);
        assert_eq!(every_turn(Script::CompleteAtOnce), 2);
        assert_eq!(every_turn(Script::Fail), 2);
        assert_eq!(every_turn(Script::AskOnce), 4);
        assert_eq!(every_turn(Script::AskTwice), 6);
        assert_eq!(every_turn(Script::LongRunning), 8);
        assert_eq!(Script::AskTwice.work_steps(1, 7), 2);
    }

    #[test]
    fn directives_select_scripts() {
        let pick = |text: &str| Script::for_message(&Message::text(Role::User, None, text));
        assert_eq!(pick("book a flight"), Script::AskOnce);
        assert_eq!(pick("#complete now"), Script::CompleteAtOnce);
        assert_eq!(pick("#fail"), Script::Fail);
        assert_eq!(pick("  #long job"), Script::LongRunning);
        assert_eq!(pick("#ask-twice x"), Script::AskTwice);
        assert_eq!(pick("please #fail"), Script::AskOnce);
        let tck = Message::text(Role::User, Some("tck-input-required-9f".into()), "#fail");
        assert_eq!(
            Script::for_message(&tck),
            Script::Tck(TckScript::InputRequired)
        );
    }

    #[test]
    fn tck_follow_ups_pick_their_own_turn() {
        let finish = Message::text(Role::User, Some("tck-complete-task-9f".into()), "go");
        let answer = Message::text(Role::User, Some("m-2".into()), "json");
        let waiting = Script::Tck(TckScript::InputRequired);
        assert_eq!(
            waiting.for_follow_up(&finish),
            Script::Tck(TckScript::CompleteTask)
        );
        assert_eq!(waiting.for_follow_up(&answer), waiting);
        assert_eq!(Script::AskOnce.for_follow_up(&answer), Script::AskOnce);
    }

    #[test]
    fn default_script_asks_then_completes() {
        let first = Script::AskOnce.turn(0, "hi", 3);
        assert_eq!(
            states(&first),
            vec![TaskState::Working, TaskState::InputRequired]
        );
        assert!(matches!(
            &first[3],
            TurnStep::Status {
                question: Some(_),
                ..
            }
        ));
        let second = Script::AskOnce.turn(1, "json", 3);
        assert_eq!(
            states(&second),
            vec![TaskState::Working, TaskState::Completed]
        );
        assert!(
            second
                .iter()
                .any(|step| matches!(step, TurnStep::Artifact { part: Part { content: PartContent::Text(text), .. }, .. } if text.contains("json")))
        );
    }

    #[test]
    fn ask_twice_asks_two_questions() {
        assert_eq!(
            states(&Script::AskTwice.turn(1, "a", 3)).last(),
            Some(&TaskState::InputRequired)
        );
        assert_eq!(
            states(&Script::AskTwice.turn(2, "b", 3)).last(),
            Some(&TaskState::Completed)
        );
    }

    #[test]
    fn long_running_emits_chunks() {
        let steps = Script::LongRunning.turn(0, "x", 4);
        let chunks = steps
            .iter()
            .filter(|step| matches!(step, TurnStep::Artifact { .. }))
            .count();
        assert_eq!(chunks, 4);
        assert_eq!(
            steps.iter().filter(|step| **step == TurnStep::Work).count(),
            5
        );
        assert!(matches!(
            steps.last(),
            Some(TurnStep::Status {
                state: TaskState::Completed,
                ..
            })
        ));
    }

    #[test]
    fn fail_and_complete_at_once() {
        assert_eq!(
            states(&Script::Fail.turn(0, "x", 1)),
            vec![TaskState::Working, TaskState::Failed]
        );
        assert_eq!(
            states(&Script::CompleteAtOnce.turn(0, "x", 1)),
            vec![TaskState::Working, TaskState::Completed]
        );
    }
}
