//! A picture of a run: one self-contained HTML page (inline SVG and CSS, a few lines of
//! inline script to zoom, nothing fetched) with a lane per host, every request, response,
//! stream event and stream close as an arrow in simulated time, the fault windows shaded,
//! each invariant violation marked where it happened, and per task two bands (the
//! consumer's view and the runtime's truth) with the spans where they diverge in red.
//!
//! [`render`] is a pure function of a [`RunResult`] that kept its trace: the same run
//! gives the same bytes.

mod arrows;
mod axis;
mod band_rows;
mod bands;
mod connections;
mod draw;
mod faults;
mod handling;
mod lanes;
mod layout;
mod marks;
mod page;
mod traffic;
mod violations;

use crate::run::RunResult;
use arrows::draw_traffic;
use axis::Axis;
use band_rows::draw_bands;
use draw::Svg;
pub(crate) use draw::esc;
use faults::draw_faults;
use lanes::{draw_axis, draw_lanes, personalities};
use layout::{BAND_BLOCK, LANE_GAP, LANE_TOP, LEFT, RIGHT_MARGIN};
use std::collections::BTreeMap;
use violations::draw_violations;

/// Why a run cannot be drawn.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TimelineError {
    #[error("the run kept no trace (run it with RunOptions {{ keep_trace: true, .. }})")]
    NoTrace,
}

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
    let (applied, healed_ms) = faults::applied(&events);
    let windows = faults::windows(&applied, healed_ms, end_ms);

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
