//! Unit tests of the bands: how the consumer's view and the runtime's truth become spans.

use super::*;

fn applied(at_ms: f64, state: TaskState) -> Applied {
    Applied {
        at_ms,
        state: Some(state),
        job: "job".to_string(),
    }
}

fn record(transitions: &[(u64, TaskState)], fate: Option<Fate>) -> (String, TaskTruth) {
    let transitions: Vec<meshsim_runtimes::Transition> = transitions
        .iter()
        .enumerate()
        .map(|(i, (at, to))| meshsim_runtimes::Transition {
            at: Duration::from_millis(*at),
            from: i.checked_sub(1).map(|p| transitions[p].1),
            to: *to,
        })
        .collect();
    (
        "agent".to_string(),
        TaskTruth {
            id: "t".to_string(),
            context_id: "c".to_string(),
            instance: 0,
            origin: meshsim_runtimes::Origin::New,
            created_at: transitions[0].at,
            state: transitions
                .last()
                .map(|t| t.to)
                .unwrap_or(TaskState::Submitted),
            transitions,
            fate,
            cancel_refused: false,
            artifact_text: String::new(),
        },
    )
}

use TaskState::{InputRequired, Submitted, Working};

#[test]
fn a_replayed_history_is_a_double_count_and_a_divergence() {
    let truth = [record(
        &[(22, Submitted), (83, Working), (331, InputRequired)],
        None,
    )];
    let view = [
        applied(24.0, Submitted),
        applied(93.0, Working),
        applied(335.0, InputRequired),
        applied(354.0, Submitted),
        applied(354.0, Working),
        applied(354.0, InputRequired),
    ];
    let bands = bands("t".into(), &view, &truth, Duration::ZERO, 400.0);
    let red: Vec<&Span> = bands
        .spans
        .iter()
        .filter(|s| s.judgement == Judgement::Diverge)
        .collect();
    assert_eq!(red.len(), 1, "{:?}", bands.spans);
    assert_eq!(
        (red[0].from_ms, red[0].view.clone()),
        (354.0, Held::In(Submitted))
    );
    let lags = bands
        .spans
        .iter()
        .filter(|s| s.judgement == Judgement::Lag)
        .count();
    assert!(lags >= 3, "the consumer hears of each step a little late");
    let doubled: Vec<TaskState> = bands.double_counts.iter().map(|d| d.state).collect();
    assert_eq!(doubled, vec![Submitted, Working, InputRequired]);
}

#[test]
fn a_reaped_task_the_consumer_still_believes_in_diverges_to_the_end() {
    let reaped = Fate::Reaped {
        at: Duration::from_millis(331),
        reason: "stream closed".into(),
    };
    let truth = [record(
        &[(22, Submitted), (83, Working), (331, InputRequired)],
        Some(reaped),
    )];
    let view = [
        applied(24.0, Submitted),
        applied(93.0, Working),
        applied(335.0, InputRequired),
    ];
    let bands = bands("t".into(), &view, &truth, Duration::ZERO, 1000.0);
    let last = bands.spans.last().expect("a span");
    assert_eq!(last.judgement, Judgement::Diverge);
    assert_eq!(
        (last.to_ms, last.truth.clone()),
        (1000.0, Held::Gone("reaped"))
    );
    assert_eq!(
        bands
            .spans
            .iter()
            .filter(|s| s.judgement == Judgement::Diverge)
            .count(),
        2
    );
}

#[test]
fn a_view_the_runtime_moved_on_from_is_a_lag_and_an_abandoned_one_is_not_compared() {
    let truth = [record(
        &[
            (22, Submitted),
            (83, InputRequired),
            (358, Submitted),
            (598, Working),
        ],
        None,
    )];
    let mut view = vec![applied(24.0, Submitted), applied(90.0, InputRequired)];
    let bands = bands("t".into(), &view, &truth, Duration::ZERO, 700.0);
    assert!(
        bands.spans.iter().all(|s| s.judgement == Judgement::Lag),
        "the runtime really was at input-required when the consumer heard so: {:?}",
        bands.spans
    );
    assert_eq!(bands.spans.last().map(|s| s.to_ms), Some(700.0));
    view.push(Applied {
        at_ms: 400.0,
        state: None,
        job: "job".to_string(),
    });
    let bands = bands_of(&view, &truth);
    assert!(
        bands.spans.iter().all(|s| s.to_ms <= 400.0),
        "{:?}",
        bands.spans
    );
    assert_eq!(
        bands.view.last().map(|s| s.held.clone()),
        Some(Held::Abandoned)
    );
}

fn bands_of(view: &[Applied], truth: &[(String, TaskTruth)]) -> TaskBands {
    bands("t".into(), view, truth, Duration::ZERO, 700.0)
}
