//! The traffic drawn on the lanes: every request, response, stream event and close as an
//! arrow from sender to receiver, and the marks beside them.

use super::axis::Axis;
use super::draw::{Rows, Svg, esc, num, width};
use super::layout::{LABEL_ROW, LABEL_ROWS};
use super::traffic::{ArrowKind, Traffic};
use std::collections::BTreeMap;

pub(super) fn draw_traffic(
    svg: &mut Svg,
    axis: &Axis,
    traffic: &Traffic,
    lane_y: &BTreeMap<String, f64>,
) {
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
