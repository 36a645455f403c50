//! Each task's two bands drawn as rows under the lanes: the consumer's view above the
//! runtime's truth, the spans where they diverge in red.

use super::axis::Axis;
use super::bands::{Held, Judgement, TaskBands};
use super::draw::short_id;
use super::draw::{Rows, Svg, esc, num, time, width};
use super::layout::{BAND_BLOCK, BAND_H, LABEL_ROW, LEFT};
use crate::run::RunResult;

fn held_class(held: &Held) -> String {
    match held {
        Held::Absent => "state-none".to_string(),
        Held::In(state) => format!("state-{}", state.name()),
        Held::Gone(why) => format!("state-{why}"),
        Held::Abandoned => "state-abandoned".to_string(),
    }
}

pub(super) fn draw_bands(
    svg: &mut Svg,
    axis: &Axis,
    tasks: &[TaskBands],
    top: f64,
    result: &RunResult,
) {
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
