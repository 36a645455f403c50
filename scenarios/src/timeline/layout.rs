//! Where the page puts things, in px.

pub(super) const LEFT: f64 = 190.0;
pub(super) const RIGHT_MARGIN: f64 = 260.0;
pub(super) const AXIS_Y: f64 = 24.0;
pub(super) const VIOLATION_ROWS_Y: f64 = 40.0;
pub(super) const LANE_TOP: f64 = 140.0;
pub(super) const LANE_GAP: f64 = 200.0;
pub(super) const LABEL_ROW: f64 = 11.0;
pub(super) const LABEL_ROWS: usize = 7;
pub(super) const BAND_BLOCK: f64 = 88.0;
pub(super) const BAND_H: f64 = 16.0;
