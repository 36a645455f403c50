//! Per task, the consumer's view of its state against the runtime's ground truth, and the
//! spans where they differ.
//!
//! The view is what the consumer applied (its `applied` trace events); the truth is the
//! runtime's record of the task (every transition, and whether it was reaped or lost).
//! A span where the view holds a state the runtime really was in when the consumer
//! applied it (give or take [`PROPAGATION_MS`]) but has left since, or the consumer has
//! not yet heard of a task it will learn of, is a lag: the news has not reached the
//! consumer. Any other difference is a divergence: the consumer believes in a state the
//! runtime was not in (a replayed or misattributed event), or in a task the runtime no
//! longer has. Once the consumer abandons a task its view claims nothing and is not
//! compared. An application of a state more times than the runtime entered it by then is
//! a double count.

use meshsim_protocol::TaskState;
use meshsim_runtimes::{Fate, TaskTruth};
use meshsim_trace::{Applied as AppliedEvent, TraceEvent, TraceLine};
use std::collections::BTreeMap;
use std::time::Duration;

/// How long before the consumer applied a state the runtime may have left it for the
/// application still to count as news that was true when sent (the simulated network's
/// latency is at most 20 ms a message; a resubscribe's replay takes a few messages).
pub const PROPAGATION_MS: f64 = 100.0;

/// What one side holds about a task at some moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Held {
    /// Not (yet) known on this side.
    Absent,
    In(TaskState),
    /// Left the runtime's store alive: reaped or lost.
    Gone(&'static str),
    /// The consumer stopped following the task.
    Abandoned,
}

impl Held {
    /// How the state is named on the page.
    pub fn name(&self) -> &'static str {
        match self {
            Held::Absent => "none",
            Held::In(state) => state.name(),
            Held::Gone(why) => why,
            Held::Abandoned => "abandoned",
        }
    }
}

/// A stretch of time during which one side holds one thing.
#[derive(Debug, Clone)]
pub struct Step {
    pub from_ms: f64,
    pub to_ms: f64,
    pub held: Held,
}

/// How the view compares with the truth over a span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Judgement {
    Agree,
    Lag,
    Diverge,
}

/// A span where view and truth differ.
#[derive(Debug, Clone)]
pub struct Span {
    pub from_ms: f64,
    pub to_ms: f64,
    pub judgement: Judgement,
    pub view: Held,
    pub truth: Held,
}

/// One application of a state beyond the times the runtime entered it.
#[derive(Debug, Clone)]
pub struct DoubleCount {
    pub at_ms: f64,
    pub state: TaskState,
    /// How many times the consumer has now applied it.
    pub applied: usize,
    /// How many times the runtime had entered it by then.
    pub entered: usize,
}

/// The two bands of one task.
#[derive(Debug, Clone)]
pub struct TaskBands {
    pub task: String,
    /// The runtime hosts that held a task with this id.
    pub hosts: Vec<String>,
    /// The consumer's jobs that applied states to it.
    pub jobs: Vec<String>,
    pub view: Vec<Step>,
    pub truth: Vec<Step>,
    /// Only the spans that are not agreement.
    pub spans: Vec<Span>,
    pub double_counts: Vec<DoubleCount>,
}

/// One state the consumer applied (`None`: it abandoned the task).
struct Applied {
    at_ms: f64,
    state: Option<TaskState>,
    job: String,
}

/// The bands of every task the consumer applied a state to or a runtime held, ordered by
/// when the task was first seen. `epoch` is subtracted from ground-truth times.
pub fn build(
    events: &[TraceLine],
    truths: &BTreeMap<String, Vec<TaskTruth>>,
    epoch: Duration,
    end_ms: f64,
) -> Vec<TaskBands> {
    let mut applied: BTreeMap<String, Vec<Applied>> = BTreeMap::new();
    let mut first_seen: Vec<(f64, String)> = Vec::new();
    for line in events {
        let (job, task, state) = match &line.event {
            TraceEvent::Applied(AppliedEvent {
                job, task, state, ..
            }) => (job, task, Some(*state)),
            TraceEvent::Abandoned { job, task, .. } => (job, task, None),
            _ => continue,
        };
        first_seen.push((line.at_ms(), task.to_string()));
        applied.entry(task.to_string()).or_default().push(Applied {
            at_ms: line.at_ms(),
            state,
            job: job.to_string(),
        });
    }
    let mut records: BTreeMap<String, Vec<(String, TaskTruth)>> = BTreeMap::new();
    for (host, tasks) in truths {
        for task in tasks {
            first_seen.push((since(task.created_at, epoch), task.id.clone()));
            records
                .entry(task.id.clone())
                .or_default()
                .push((host.clone(), task.clone()));
        }
    }
    first_seen.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut order: Vec<String> = Vec::new();
    for (_, task) in first_seen {
        if !order.contains(&task) {
            order.push(task);
        }
    }
    order
        .into_iter()
        .map(|task| {
            let mut held = records.remove(&task).unwrap_or_default();
            held.sort_by_key(|(_, record)| record.created_at);
            let applied = applied.remove(&task).unwrap_or_default();
            bands(task, &applied, &held, epoch, end_ms)
        })
        .collect()
}

fn since(at: Duration, epoch: Duration) -> f64 {
    at.saturating_sub(epoch).as_micros() as f64 / 1000.0
}

fn bands(
    task: String,
    applied: &[Applied],
    records: &[(String, TaskTruth)],
    epoch: Duration,
    end_ms: f64,
) -> TaskBands {
    let view_changes: Vec<(f64, Held)> = applied
        .iter()
        .map(|a| (a.at_ms, a.state.map_or(Held::Abandoned, Held::In)))
        .collect();
    let mut truth_changes: Vec<(f64, Held)> = Vec::new();
    for (_, record) in records {
        for transition in &record.transitions {
            truth_changes.push((since(transition.at, epoch), Held::In(transition.to)));
        }
        match &record.fate {
            Some(Fate::Reaped { at, .. }) => {
                truth_changes.push((since(*at, epoch), Held::Gone("reaped")))
            }
            Some(Fate::Lost { at }) => truth_changes.push((since(*at, epoch), Held::Gone("lost"))),
            None => {}
        }
    }
    let view = steps(&view_changes, end_ms);
    let truth = steps(&truth_changes, end_ms);
    let learns = !applied.is_empty();
    let mut spans: Vec<Span> = Vec::new();
    for step in &view {
        let mut cuts = vec![step.from_ms];
        cuts.extend(
            truth_changes
                .iter()
                .map(|(t, _)| *t)
                .filter(|t| *t > step.from_ms && *t < step.to_ms),
        );
        cuts.push(step.to_ms);
        cuts.dedup();
        let pieces: Vec<(f64, f64)> = if cuts.len() == 1 {
            vec![(cuts[0], cuts[0])]
        } else {
            cuts.windows(2).map(|pair| (pair[0], pair[1])).collect()
        };
        for (from, to) in pieces {
            let (now, _) = held_at(&truth_changes, from);
            let was_true = match &step.held {
                Held::In(_) => held_within(
                    &truth_changes,
                    &step.held,
                    step.from_ms - PROPAGATION_MS,
                    step.from_ms,
                ),
                _ => false,
            };
            let judgement = judge(
                &step.held,
                &now,
                was_true,
                learns && from < applied[0].at_ms,
            );
            if judgement == Judgement::Agree {
                continue;
            }
            match spans.last_mut() {
                Some(last)
                    if last.to_ms == from
                        && last.judgement == judgement
                        && last.view == step.held
                        && last.truth == now
                        && from < to =>
                {
                    last.to_ms = to;
                }
                _ => spans.push(Span {
                    from_ms: from,
                    to_ms: to,
                    judgement,
                    view: step.held.clone(),
                    truth: now,
                }),
            }
        }
    }
    let mut hosts: Vec<String> = records.iter().map(|(host, _)| host.clone()).collect();
    hosts.dedup();
    let mut jobs: Vec<String> = applied.iter().map(|a| a.job.clone()).collect();
    jobs.sort();
    jobs.dedup();
    TaskBands {
        task,
        hosts,
        jobs,
        view,
        truth,
        spans,
        double_counts: double_counts(applied, &truth_changes),
    }
}

/// The steps of a side from its changes (in time order; several at one moment give
/// zero-length steps), starting `Absent` at 0 and running to `end_ms`.
fn steps(changes: &[(f64, Held)], end_ms: f64) -> Vec<Step> {
    let mut out = Vec::new();
    let mut from = 0.0;
    let mut held = Held::Absent;
    for (at, next) in changes {
        out.push(Step {
            from_ms: from,
            to_ms: *at,
            held: std::mem::replace(&mut held, next.clone()),
        });
        from = *at;
    }
    out.push(Step {
        from_ms: from,
        to_ms: end_ms.max(from),
        held,
    });
    out.retain(|step| !(step.held == Held::Absent && step.to_ms == step.from_ms));
    out
}

/// What the truth holds at `t` (the last change at or before it) and what it held
/// before that change.
fn held_at(changes: &[(f64, Held)], t: f64) -> (Held, Held) {
    let index = changes.partition_point(|(at, _)| *at <= t);
    let now = index
        .checked_sub(1)
        .map_or(Held::Absent, |i| changes[i].1.clone());
    let before = index
        .checked_sub(2)
        .map_or(Held::Absent, |i| changes[i].1.clone());
    (now, before)
}

/// Whether the truth held `held` at some moment from `from` to `to`.
fn held_within(changes: &[(f64, Held)], held: &Held, from: f64, to: f64) -> bool {
    held_at(changes, from).0 == *held
        || changes
            .iter()
            .any(|(at, next)| *at > from && *at <= to && next == held)
}

/// `was_true`: the runtime held the view's state when the consumer applied it;
/// `not_yet_told`: the consumer will learn of the task later.
fn judge(view: &Held, truth: &Held, was_true: bool, not_yet_told: bool) -> Judgement {
    match (view, truth) {
        (Held::Abandoned, _) => Judgement::Agree,
        (Held::Absent, Held::In(_)) if not_yet_told => Judgement::Lag,
        (Held::Absent, Held::In(_)) => Judgement::Diverge,
        (Held::Absent, _) => Judgement::Agree,
        (Held::In(seen), Held::In(real)) if seen == real => Judgement::Agree,
        (Held::In(_), Held::In(_)) if was_true => Judgement::Lag,
        _ => Judgement::Diverge,
    }
}

fn double_counts(applied: &[Applied], truth: &[(f64, Held)]) -> Vec<DoubleCount> {
    let mut counts: BTreeMap<TaskState, usize> = BTreeMap::new();
    let mut found = Vec::new();
    for event in applied {
        let Some(state) = event.state else { continue };
        let count = counts.entry(state).or_default();
        *count += 1;
        let entered = truth
            .iter()
            .filter(|(at, held)| *at <= event.at_ms && *held == Held::In(state))
            .count();
        if *count > entered && entered > 0 {
            found.push(DoubleCount {
                at_ms: event.at_ms,
                state,
                applied: *count,
                entered,
            });
        }
    }
    found
}

#[cfg(test)]
mod tests;
