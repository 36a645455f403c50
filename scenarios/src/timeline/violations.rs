//! Each invariant violation marked where it happened, above the lanes.

use super::axis::Axis;
use super::draw::{Rows, Svg, width};
use super::layout::{LABEL_ROW, LEFT, VIOLATION_ROWS_Y};
use crate::{run::RunResult, run::Verdict};

pub(super) fn draw_violations(svg: &mut Svg, axis: &Axis, result: &RunResult, height: f64) {
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
