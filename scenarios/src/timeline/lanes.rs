//! The page's frame: the time axis's ticks and gaps along the top, and one labelled lane per
//! host (the consumer, the sidecar, each runtime with its personality).

use super::axis::Axis;
use super::draw::{Svg, esc, num, time, width};
use super::layout::{AXIS_Y, LEFT};
use super::traffic::Traffic;
use meshsim_trace::TraceLine;
use std::collections::BTreeMap;

pub(super) fn draw_axis(svg: &mut Svg, axis: &Axis, height: f64) {
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

pub(super) fn draw_lanes(
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
pub(super) fn personalities(events: &[TraceLine]) -> BTreeMap<String, String> {
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
