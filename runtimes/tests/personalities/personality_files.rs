//! Personality files: the example in `docs/` loads and behaves as it
//! says; a bad file is refused with an error naming the file and the field.

use crate::support::{Client, Target, asserted_states};
use TaskState::*;
use meshsim_protocol::clock::Clock;
use meshsim_protocol::{Dialect, ErrorCode, StreamEvent, TaskState};
use meshsim_runtimes::{Fate, Personality, PersonalityError, Runtime, resolve};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn example_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/example-forgetful-replayer.json")
}

/// A clock that moves with tokio's (paused) clock, from a fixed epoch.
fn moving_clock() -> Clock {
    let start = tokio::time::Instant::now();
    Clock::from_fn(move || Duration::from_secs(1_800_000_000) + start.elapsed())
}

fn timestamps(events: &[StreamEvent]) -> Vec<Option<String>> {
    events
        .iter()
        .filter_map(|event| match event {
            StreamEvent::StatusUpdate(update) => Some(update.status.timestamp.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test(start_paused = true)]
async fn the_example_file_loads_and_behaves_as_documented() {
    let personality = Personality::load(&example_path()).unwrap();
    assert_eq!(personality.name, "example-forgetful-replayer");
    // `--runtime FILE` resolves the same way.
    assert_eq!(
        resolve(example_path().to_str().unwrap()).unwrap(),
        personality
    );

    let runtime = Runtime::new(personality, Dialect::V0_3, moving_clock(), 1);
    let truth = runtime.truth();
    let client = Client::new(Target::Router(runtime.router()), Dialect::V0_3);
    assert_eq!(client.card().await.version, "3.1.0");

    // `working` is sent twice.
    let first = client
        .send_streaming(client.message("plan", None))
        .await
        .stream()
        .rest()
        .await;
    assert_eq!(
        asserted_states(&first),
        [Submitted, Working, Working, InputRequired]
    );
    let id = first[0].task_id().unwrap().to_string();

    // Resubscribe replays everything, re-stamped with the current time.
    meshsim_time::sleep(Duration::from_secs(10)).await;
    let replay = client.resubscribe(&id).await.stream().rest().await;
    assert_eq!(asserted_states(&replay), asserted_states(&first));
    let now = moving_clock_reading(&client, &id).await;
    assert!(
        timestamps(&replay)
            .iter()
            .all(|stamp| stamp.as_deref() == Some(now.as_str()))
    );
    assert_ne!(timestamps(&replay), timestamps(&first));

    // Left at input-required for 30 s, the task is forgotten.
    meshsim_time::sleep(Duration::from_secs(31)).await;
    assert_eq!(client.get(&id).await.error().code, ErrorCode::TaskNotFound);
    let record = truth.task(&id).unwrap();
    assert!(
        matches!(record.fate, Some(Fate::Reaped { ref reason, .. }) if reason == "input-required timeout")
    );
}

/// The timestamp a replay made right now carries: the last status of a fresh replay.
async fn moving_clock_reading(client: &Client, id: &str) -> String {
    let again = client.resubscribe(id).await.stream().rest().await;
    timestamps(&again).last().cloned().flatten().unwrap()
}

fn write(name: &str, json: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, json).unwrap();
    path
}

#[test]
fn a_bad_value_names_the_file_and_the_field() {
    let path = write(
        "bad-value.json",
        r#"{"name": "x", "follow_up": "sometimes"}"#,
    );
    let error = Personality::load(&path).unwrap_err();
    let PersonalityError::Field {
        path: file,
        field,
        problem,
    } = &error
    else {
        panic!("{error}")
    };
    assert!(file.ends_with("bad-value.json"));
    assert_eq!(field, "follow_up");
    assert!(problem.contains("sometimes"), "{problem}");
    let text = error.to_string();
    assert!(
        text.contains("bad-value.json") && text.contains("follow_up"),
        "{text}"
    );
}

#[test]
fn an_unknown_nested_field_is_named_with_its_path() {
    let path = write(
        "bad-field.json",
        r#"{"card": {"streaming": true, "resumable": true}}"#,
    );
    let text = Personality::load(&path).unwrap_err().to_string();
    assert!(
        text.contains("bad-field.json") && text.contains("resumable"),
        "{text}"
    );
}

#[test]
fn a_missing_file_and_broken_json_are_clear_errors() {
    let missing = Personality::load(Path::new("/nonexistent/p.json"))
        .unwrap_err()
        .to_string();
    assert!(missing.contains("/nonexistent/p.json"), "{missing}");
    let path = write("broken.json", "{\"name\": ");
    let broken = Personality::load(&path).unwrap_err().to_string();
    assert!(broken.contains("broken.json"), "{broken}");
}
