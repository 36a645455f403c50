//! A picture of a run: one self-contained HTML page (inline SVG and CSS, a few lines of
//! inline script to zoom, nothing fetched) with a lane per host, every request, response,
//! stream event and stream close as an arrow in simulated time, the fault windows shaded,
//! each invariant violation marked where it happened, and per task two bands (the
//! consumer's view and the runtime's truth) with the spans where they diverge in red.
//!
//! [`render`] is a pure function of a [`RunResult`] that kept its trace: the same run
//! gives the same bytes.

mod axis;
mod bands;
mod draw;
mod faults;
mod page;
mod traffic;

use crate::run::{RunResult, Verdict};
use axis::Axis;
use bands::{Held, Judgement, TaskBands};
pub(crate) use draw::esc;
use draw::{Rows, Svg, num, time, width};
use faults::Window;
use meshsim_trace::TraceLine;
use std::collections::BTreeMap;
use traffic::{ArrowKind, Traffic, short_id};

/// Why a run cannot be drawn.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TimelineError {
    #[error("the run kept no trace (run it with RunOptions {{ keep_trace: true, .. }})")]
    NoTrace,
}

/// Where the page puts things, in px.
const LEFT: f64 = 190.0;
const RIGHT_MARGIN: f64 = 260.0;
const AXIS_Y: f64 = 24.0;
const VIOLATION_ROWS_Y: f64 = 40.0;
const LANE_TOP: f64 = 140.0;
const LANE_GAP: f64 = 200.0;
const LABEL_ROW: f64 = 11.0;
const LABEL_ROWS: usize = 7;
const BAND_BLOCK: f64 = 88.0;
const BAND_H: f64 = 16.0;

/// The timeline of `result` as an HTML page.
pub fn render(result: &RunResult) -> Result<String, TimelineError> {
    let trace = result.trace.as_ref().ok_or(TimelineError::NoTrace)?;
    let events = trace.events();
    let mut traffic = traffic::read(&events);
    let end_ms = traffic.end_ms.max(result.elapsed_ms as f64);
    let mut hosts: Vec<String> = traffic.hosts.clone();
    hosts.extend(result.truths.keys().cloned());
    for timed in &result.plan.faults {
        hosts.extend(
            timed
                .fault
                .link()
                .map(|(a, b)| vec![a.to_string(), b.to_string()])
                .unwrap_or_default(),
        );
        hosts.extend(timed.fault.host().map(str::to_string));
    }
    traffic.hosts = traffic::lane_order(hosts);
    let epoch = meshsim_sim::epoch()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let tasks = bands::build(&events, &result.truths, epoch, end_ms);
    let windows = faults::windows(&result.plan, end_ms);

    let mut moments = vec![end_ms];
    for arrow in &traffic.arrows {
        moments.extend([arrow.from_ms, arrow.to_ms]);
    }
    moments.extend(traffic.marks.iter().map(|mark| mark.at_ms));
    for window in &windows {
        moments.extend([window.from_ms, window.to_ms]);
    }
    moments.extend(result.violations.iter().map(|v| v.at_ms as f64));
    for task in &tasks {
        for step in task.view.iter().chain(&task.truth) {
            moments.extend([step.from_ms, step.to_ms]);
        }
    }
    let axis = Axis::new(moments, LEFT);

    let lane_y: BTreeMap<String, f64> = traffic
        .hosts
        .iter()
        .enumerate()
        .map(|(i, host)| (host.clone(), LANE_TOP + i as f64 * LANE_GAP))
        .collect();
    let lanes_bottom = LANE_TOP + (traffic.hosts.len().saturating_sub(1)) as f64 * LANE_GAP + 60.0;
    let bands_top = lanes_bottom + 30.0;
    let height = bands_top + tasks.len() as f64 * BAND_BLOCK + 20.0;
    let svg_width = axis.right() + RIGHT_MARGIN;

    let mut svg = Svg::default();
    draw_axis(&mut svg, &axis, height);
    let personalities = personalities(&events);
    draw_lanes(
        &mut svg,
        &traffic,
        &lane_y,
        &result.truths,
        &personalities,
        svg_width,
    );
    draw_faults(&mut svg, &axis, &windows, &lane_y);
    draw_traffic(&mut svg, &axis, &traffic, &lane_y);
    draw_bands(&mut svg, &axis, &tasks, bands_top, result);
    draw_violations(&mut svg, &axis, result, height);

    Ok(page::page(
        result, &tasks, &windows, svg_width, height, &svg.body,
    ))
}

fn draw_axis(svg: &mut Svg, axis: &Axis, height: f64) {
    svg.line(
        LEFT,
        AXIS_Y,
        axis.right(),
        AXIS_Y,
        "axis",
        "",
        "simulated time",
    );
    let mut free_from = f64::MIN;
    for t in axis.moments() {
        let x = axis.x(t);
        let label = time(t);
        if x < free_from {
            continue;
        }
        free_from = x + width(&label) + 10.0;
        svg.line(x, AXIS_Y - 4.0, x, height, "grid", "", &label);
        svg.text(x + 2.0, AXIS_Y - 8.0, "tick", &label, &label);
    }
    for gap in axis.compressed() {
        let x = (axis.x(gap.from_ms) + axis.x(gap.to_ms)) / 2.0;
        let tip = format!(
            "{} of quiet drawn short ({} → {})",
            time(gap.to_ms - gap.from_ms),
            time(gap.from_ms),
            time(gap.to_ms)
        );
        svg.text(x - 6.0, AXIS_Y + 4.0, "gap", "≈", &tip);
    }
}

fn draw_lanes(
    svg: &mut Svg,
    traffic: &Traffic,
    lane_y: &BTreeMap<String, f64>,
    truths: &BTreeMap<String, Vec<meshsim_runtimes::TaskTruth>>,
    personalities: &BTreeMap<String, String>,
    svg_width: f64,
) {
    for host in &traffic.hosts {
        let y = lane_y[host];
        let role = if host == crate::scenario::CONSUMER_HOST {
            "consumer".to_string()
        } else if host == crate::scenario::SIDECAR_HOST {
            "sidecar proxy".to_string()
        } else if let Some(name) = personalities.get(host) {
            format!("runtime ({name})")
        } else if truths.contains_key(host) {
            "runtime".to_string()
        } else {
            "host".to_string()
        };
        svg.raw(&format!(
            r#"<g class="lane" data-host="{}"><line class="lane-line" x1="{}" y1="{}" x2="{}" y2="{}"/><text class="lane-name" x="8" y="{}">{}</text><text class="lane-role" x="8" y="{}">{}</text></g>"#,
            esc(host),
            num(LEFT - 10.0),
            num(y),
            num(svg_width - 20.0),
            num(y),
            num(y - 3.0),
            esc(host),
            num(y + 12.0),
            esc(&role)
        ));
    }
}

/// Each runtime host's personality, as its runtime events name it.
fn personalities(events: &[TraceLine]) -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    for line in events {
        if let Some(name) = line.event.runtime() {
            names
                .entry(line.host.clone())
                .or_insert_with(|| name.to_string());
        }
    }
    names
}

fn draw_faults(svg: &mut Svg, axis: &Axis, windows: &[Window], lane_y: &BTreeMap<String, f64>) {
    let mut rows = Rows::new(3);
    for window in windows {
        let ys: Vec<f64> = window
            .hosts
            .iter()
            .filter_map(|h| lane_y.get(h).copied())
            .collect();
        let (top, bottom) = match (
            ys.iter().copied().reduce(f64::min),
            ys.iter().copied().reduce(f64::max),
        ) {
            (Some(top), Some(bottom)) => (top - 85.0, bottom + 85.0),
            _ => (LANE_TOP - 85.0, LANE_TOP + 85.0),
        };
        let x0 = axis.x(window.from_ms);
        let x1 = axis.x(window.to_ms);
        let tip = format!(
            "{}: {} → {}{}",
            window.label,
            time(window.from_ms),
            time(window.to_ms),
            if window.ended { "" } else { " (never ended)" }
        );
        let attrs = format!(
            r#" data-kind="{}" data-from-ms="{}" data-to-ms="{}""#,
            esc(window.kind),
            num(window.from_ms),
            num(window.to_ms)
        );
        if window.to_ms > window.from_ms {
            svg.rect(
                x0,
                top,
                x1 - x0,
                bottom - top,
                &format!("fault fault-{}", window.kind),
                &attrs,
                &tip,
            );
        } else {
            svg.line(
                x0,
                top,
                x0,
                bottom,
                &format!("fault-instant fault-{}", window.kind),
                &attrs,
                &tip,
            );
        }
        let row = rows.place(x0, width(&window.label));
        svg.text(
            x0 + 3.0,
            top + 11.0 + row as f64 * LABEL_ROW,
            "fault-label",
            &window.label,
            &tip,
        );
    }
}

fn draw_traffic(svg: &mut Svg, axis: &Axis, traffic: &Traffic, lane_y: &BTreeMap<String, f64>) {
    // Label rows above and below each lane.
    let mut above: BTreeMap<&str, Rows> = BTreeMap::new();
    let mut below: BTreeMap<&str, Rows> = BTreeMap::new();
    // Arrows leaving one host for another at the same moment sit side by side.
    let mut ties: BTreeMap<(String, String, i64), usize> = BTreeMap::new();
    for arrow in &traffic.arrows {
        let (Some(&y_from), Some(&y_to)) = (lane_y.get(&arrow.from), lane_y.get(&arrow.to)) else {
            continue;
        };
        let tie = ties
            .entry((
                arrow.from.clone(),
                arrow.to.clone(),
                (arrow.from_ms * 1000.0) as i64,
            ))
            .or_default();
        let offset = *tie as f64 * 5.0;
        *tie += 1;
        let x1 = axis.x(arrow.from_ms) + offset;
        let mut x2 = axis.x(arrow.to_ms) + offset;
        let mut y2 = y_to;
        let down = y_to > y_from;
        if arrow.kind == ArrowKind::ConnectFailed {
            y2 = (y_from + y_to) / 2.0;
            x2 = x1 + 8.0;
        }
        // Stop short of the lane line so the head shows.
        let head_gap = if down { -3.0 } else { 3.0 };
        let class = arrow.kind.class();
        svg.line(
            x1,
            y_from,
            x2,
            y2 + head_gap,
            &format!("arrow {class}"),
            &format!(
                r#" marker-end="url(#head-{class})" data-from="{}" data-to="{}""#,
                esc(&arrow.from),
                esc(&arrow.to)
            ),
            &arrow.detail,
        );
        // Requests are labelled where they arrive, answers where they are delivered.
        let (lane, lane_line, side_below) = match arrow.kind {
            ArrowKind::ConnectFailed => (arrow.from.as_str(), y_from, down),
            _ => (arrow.to.as_str(), y_to, !down),
        };
        let rows = if side_below {
            below.entry(lane)
        } else {
            above.entry(lane)
        }
        .or_insert_with(|| Rows::new(LABEL_ROWS));
        let row = rows.place(x2, width(&arrow.label)) as f64;
        let y = if side_below {
            lane_line + 24.0 + row * LABEL_ROW
        } else {
            lane_line - 8.0 - row * LABEL_ROW
        };
        svg.text(
            x2 + 1.0,
            y,
            &format!("label label-{class}"),
            &arrow.label,
            &arrow.detail,
        );
    }
    for mark in &traffic.marks {
        let Some(&y) = lane_y.get(&mark.host) else {
            continue;
        };
        let x = axis.x(mark.at_ms);
        let class = if mark.alarm { "mark alarm" } else { "mark" };
        svg.raw(&format!(
            r#"<circle class="{class}" cx="{}" cy="{}" r="3.5"><title>{}</title></circle>"#,
            num(x),
            num(y),
            esc(&mark.detail)
        ));
        let rows = above
            .entry(mark.host.as_str())
            .or_insert_with(|| Rows::new(LABEL_ROWS));
        let row = rows.place(x, width(&mark.label)) as f64;
        svg.text(
            x + 1.0,
            y - 8.0 - row * LABEL_ROW,
            &format!("label {class}"),
            &mark.label,
            &mark.detail,
        );
    }
}

fn held_class(held: &Held) -> String {
    match held {
        Held::Absent => "state-none".to_string(),
        Held::In(state) => format!("state-{}", state.name()),
        Held::Gone(why) => format!("state-{why}"),
        Held::Abandoned => "state-abandoned".to_string(),
    }
}

fn draw_bands(svg: &mut Svg, axis: &Axis, tasks: &[TaskBands], top: f64, result: &RunResult) {
    svg.text(
        8.0,
        top - 8.0,
        "section",
        "tasks: consumer's view / runtime's truth",
        "",
    );
    for (index, task) in tasks.iter().enumerate() {
        let y0 = top + index as f64 * BAND_BLOCK;
        let view_y = y0 + 42.0;
        let truth_y = view_y + BAND_H + 2.0;
        let where_ = if task.hosts.is_empty() {
            "no runtime".to_string()
        } else {
            task.hosts.join(", ")
        };
        let jobs = if task.jobs.is_empty() {
            "unknown to the consumer".to_string()
        } else {
            format!("job {}", task.jobs.join(", "))
        };
        svg.raw(&format!(
            r#"<g class="task" data-task="{}">"#,
            esc(&task.task)
        ));
        svg.text(
            8.0,
            y0 + 12.0,
            "task-name",
            &format!("task {}", short_id(&task.task)),
            &task.task,
        );
        svg.text(
            8.0,
            y0 + 23.0,
            "task-where",
            &format!("on {where_}; {jobs}"),
            &task.task,
        );
        svg.text(
            LEFT - 8.0,
            view_y + 12.0,
            "band-name",
            "view",
            "the consumer's view (states it applied)",
        );
        svg.text(
            LEFT - 8.0,
            truth_y + 12.0,
            "band-name",
            "truth",
            "the runtime's ground truth",
        );
        for (steps, y, band) in [
            (&task.view, view_y, "view"),
            (&task.truth, truth_y, "truth"),
        ] {
            for step in steps.iter() {
                if step.held == Held::Absent || step.to_ms <= step.from_ms {
                    continue;
                }
                let x0 = axis.x(step.from_ms);
                let x1 = axis.x(step.to_ms);
                let name = step.held.name();
                let tip = format!(
                    "{band}: {name} from {} to {}",
                    time(step.from_ms),
                    time(step.to_ms)
                );
                svg.rect(
                    x0,
                    y,
                    x1 - x0,
                    BAND_H,
                    &format!("step {band}-step {}", held_class(&step.held)),
                    "",
                    &tip,
                );
                if x1 - x0 > width(name) + 6.0 {
                    svg.text(x0 + 3.0, y + 12.0, "step-name", name, &tip);
                }
            }
        }
        for span in &task.spans {
            let (class, what) = match span.judgement {
                Judgement::Diverge => ("divergence", "diverges"),
                Judgement::Lag => ("lag", "lags"),
                Judgement::Agree => continue,
            };
            let x0 = axis.x(span.from_ms);
            let x1 = axis.x(span.to_ms);
            let (x0, w) = if x1 - x0 < 4.0 {
                (x0 - 2.0, 4.0)
            } else {
                (x0, x1 - x0)
            };
            let tip = format!(
                "the view {what}: the consumer holds `{}`, the runtime `{}` ({} → {})",
                span.view.name(),
                span.truth.name(),
                time(span.from_ms),
                time(span.to_ms)
            );
            let attrs = format!(
                r#" data-from-ms="{}" data-to-ms="{}" data-view="{}" data-truth="{}""#,
                num(span.from_ms),
                num(span.to_ms),
                span.view.name(),
                span.truth.name()
            );
            svg.rect(x0, view_y - 1.0, w, 2.0 * BAND_H + 4.0, class, &attrs, &tip);
        }
        let mut rows = Rows::new(3);
        let mut previous: Option<(f64, f64)> = None;
        for double in &task.double_counts {
            // Several applications at one moment are drawn a few pixels apart.
            let x = match previous {
                Some((at, x)) if at == double.at_ms => x + 4.0,
                _ => axis.x(double.at_ms),
            };
            previous = Some((double.at_ms, x));
            let label = format!("{} ×{}", double.state, double.applied);
            let tip = format!(
                "double count at {}: the consumer applied `{}` for the {}th time; the runtime had entered it {} time(s)",
                time(double.at_ms),
                double.state,
                double.applied,
                double.entered
            );
            svg.line(
                x,
                view_y - 4.0,
                x,
                view_y + BAND_H,
                "double-count",
                "",
                &tip,
            );
            let row = rows.place(x, width(&label)) as f64;
            svg.text(
                x + 2.0,
                y0 + 12.0 + row * LABEL_ROW,
                "double-count-label",
                &label,
                &tip,
            );
        }
        for violation in result
            .violations
            .iter()
            .filter(|v| v.task.as_deref() == Some(task.task.as_str()))
        {
            let x = axis.x(violation.at_ms as f64);
            let y = truth_y + BAND_H + 5.0;
            svg.raw(&format!(
                r#"<path class="violation-pin" data-invariant="{}" d="M{} {} l4 4 l-4 4 l-4 -4 z"><title>{}</title></path>"#,
                violation.invariant,
                num(x),
                num(y - 4.0),
                esc(&format!("{} at {} ms: {}", violation.invariant, violation.at_ms, violation.detail))
            ));
        }
        svg.raw("</g>");
    }
}

fn draw_violations(svg: &mut Svg, axis: &Axis, result: &RunResult, height: f64) {
    let mut rows = Rows::new(6);
    for violation in &result.violations {
        let x = axis.x(violation.at_ms as f64);
        let name = violation.invariant.to_string();
        let label = format!("✖ {name}");
        let tip = format!(
            "{name} at {} ms (job {}, task {}): {}",
            violation.at_ms,
            violation.job,
            violation.task.as_deref().unwrap_or("-"),
            violation.detail
        );
        let row = rows.place(x, width(&label)) as f64;
        let y = VIOLATION_ROWS_Y + 10.0 + row * (LABEL_ROW + 2.0);
        svg.raw(&format!(
            r#"<g class="violation" data-invariant="{name}" data-at-ms="{}">"#,
            violation.at_ms
        ));
        svg.line(x, y + 2.0, x, height, "violation-line", "", &tip);
        svg.text(x + 2.0, y, "violation-name", &label, &tip);
        svg.raw("</g>");
    }
    if result.verdict == Verdict::Holds {
        svg.text(
            LEFT,
            VIOLATION_ROWS_Y + 10.0,
            "holds",
            "every invariant holds",
            "",
        );
    }
}
