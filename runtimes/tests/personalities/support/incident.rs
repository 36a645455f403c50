//! The origin incident's five steps (docs/origin-incident.md), played against one of the origin incident's three
//! personalities, checking exactly the responses the origin incident's table gives.

use super::{Client, asserted_states};
use TaskState::*;
use meshsim_protocol::{Dialect, ErrorCode, Role, StreamEvent, Task, TaskState};
use meshsim_runtimes::{Fate, GroundTruth, Origin};
use std::time::Duration;

/// Plays steps 1-5 and checks the personality's column of the origin incident's table; `truth`, when
/// the runtime runs in this process, is checked too.
pub async fn play(client: &Client, personality: &str, truth: Option<&GroundTruth>) {
    // Step 1: the Card claims streaming and (where the dialect has it) state history.
    let card = client.card().await;
    assert_eq!(card.name, personality);
    assert_eq!(card.capabilities.streaming, Some(true));
    let history_claim = (client.dialect != Dialect::V1_0).then_some(true);
    assert_eq!(card.capabilities.state_transition_history, history_claim);

    // Steps 2-3: sendSubscribe; submitted -> working -> input-required, then the server
    // closes the stream.
    let chosen_id = (client.dialect == Dialect::V0_1).then_some("seed-task-1");
    let first = client.message("book a table for two", chosen_id);
    let events = client.send_streaming(first).await.stream().rest().await;
    assert_eq!(
        asserted_states(&events),
        [Submitted, Working, InputRequired],
        "{events:?}"
    );
    let task_id = events[0]
        .task_id()
        .expect("events name their task")
        .to_string();
    let StreamEvent::StatusUpdate(question) = events.last().unwrap() else {
        panic!("input-required arrives as a status update")
    };
    let question_text = question
        .status
        .message
        .as_ref()
        .expect("a question")
        .text_content();
    assert!(question_text.ends_with('?'), "{question_text}");
    let final_flag = (client.dialect != Dialect::V1_0).then_some(true);
    assert_eq!(question.is_final, final_flag);

    let answer = client.message("json please", Some(&task_id));
    match personality {
        "python-correct" => {
            // Step 4: resubscribe reattaches: the current snapshot, and the stream stays open.
            let mut resubscribed = client.resubscribe(&task_id).await.stream();
            let snapshot = resubscribed.next_event().await;
            assert_eq!(snapshot.state(), Some(InputRequired));
            assert_eq!(snapshot.task_id(), Some(task_id.as_str()));
            // Step 5: the answer resumes the task in place.
            let task = client.send(answer).await.task();
            assert_eq!(task.id, task_id);
            assert_eq!(task.status.state, Completed);
            assert_result_mentions(&task, "json please");
            // The reattached stream sees the resumption and then closes.
            let tail = resubscribed.rest().await;
            assert_eq!(asserted_states(&tail), [Working, Completed], "{tail:?}");
            assert!(
                tail.iter()
                    .any(|event| matches!(event, StreamEvent::ArtifactUpdate(_)))
            );
            if let Some(truth) = truth {
                let record = truth.task(&task_id).unwrap();
                assert_eq!(
                    record.states(),
                    [Submitted, Working, InputRequired, Working, Completed]
                );
                assert_eq!(record.fate, None);
                assert_eq!(truth.tasks().len(), 1);
            }
        }
        "go-replaying" => {
            // Step 4: the task comes back with ALL prior events, `working` included.
            let replay = client.resubscribe(&task_id).await.stream().rest().await;
            assert_eq!(
                asserted_states(&replay),
                [Submitted, Working, InputRequired],
                "{replay:?}"
            );
            assert_eq!(
                replay, events,
                "the replay repeats the first stream's events"
            );
            // Step 5: the answer resumes the task, but first a second `submitted`.
            let task = client.send(answer).await.task();
            assert_eq!(task.id, task_id);
            assert_eq!(task.status.state, Submitted);
            let done = wait_for(client, &task_id, Completed).await;
            assert_result_mentions(&done, "json please");
            if let Some(truth) = truth {
                let record = truth.task(&task_id).unwrap();
                assert_eq!(
                    record.states(),
                    [
                        Submitted,
                        Working,
                        InputRequired,
                        Submitted,
                        Working,
                        Completed
                    ]
                );
                assert_eq!(truth.tasks().len(), 1);
            }
        }
        "jvm-reaping" => {
            // Step 4: the task was reaped when its stream closed.
            let error = client.resubscribe(&task_id).await.error();
            assert_eq!(error.code, ErrorCode::TaskNotFound);
            // Step 5: the answer starts a NEW task, which asks its question again.
            let task = client.send(answer).await.task();
            assert_eq!(task.status.state, InputRequired);
            let user_messages = task.history.iter().filter(|m| m.role == Role::User).count();
            assert_eq!(user_messages, 1, "the new task knows only the answer");
            match client.dialect {
                // v0.1 clients choose ids: the new task carries the same one.
                Dialect::V0_1 => assert_eq!(task.id, task_id),
                Dialect::V0_3 | Dialect::V1_0 => assert_ne!(task.id, task_id),
            }
            if let Some(truth) = truth {
                let records = truth.tasks();
                assert_eq!(records.len(), 2);
                assert_eq!(records[0].id, task_id);
                assert_eq!(records[0].states(), [Submitted, Working, InputRequired]);
                assert!(
                    matches!(&records[0].fate, Some(Fate::Reaped { reason, .. }) if reason == "stream closed")
                );
                assert_eq!(records[1].id, task.id);
                assert_eq!(
                    records[1].origin,
                    Origin::FollowUpCreated {
                        requested_task_id: task_id.clone()
                    }
                );
                assert_eq!(records[1].state, InputRequired);
            }
        }
        other => panic!("{other} is not one of the origin incident's runtimes"),
    }
}

fn assert_result_mentions(task: &Task, text: &str) {
    let found = task.artifacts.iter().flat_map(|artifact| &artifact.parts).any(|part| {
        matches!(&part.content, meshsim_protocol::PartContent::Text(content) if content.contains(text))
    });
    assert!(found, "no artifact mentions `{text}`: {:?}", task.artifacts);
}

/// Polls `GetTask` until the task is in `state` (bounded).
pub async fn wait_for(client: &Client, id: &str, state: TaskState) -> Task {
    for _ in 0..500 {
        let task = client.get(id).await.task();
        if task.status.state == state {
            return task;
        }
        meshsim_time::sleep(Duration::from_millis(20)).await;
    }
    panic!("task {id} never reached {state}");
}
