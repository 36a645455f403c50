//! The time axis: simulated milliseconds to pixels, piecewise. Every moment something
//! happens gets a point on the axis; the stretch between two neighbouring moments is drawn
//! in proportion to its length, but never narrower than a few pixels (so that bursts stay
//! legible) nor wider than a cap (so that a 60-second run with long idle stretches stays
//! scrollable). Compressed stretches are reported so the page can mark them.

/// Pixels per simulated millisecond where the axis is proportional.
const PX_PER_MS: f64 = 1.0;
/// The least distance between two distinct moments.
const MIN_GAP_PX: f64 = 18.0;
/// The most a quiet stretch may take.
const MAX_GAP_PX: f64 = 90.0;
/// A short run is stretched to at least this width.
const MIN_WIDTH_PX: f64 = 1300.0;

/// A monotone map from simulated time to x.
#[derive(Debug, Clone)]
pub struct Axis {
    /// (time in ms, x in px), strictly increasing in both.
    points: Vec<(f64, f64)>,
}

/// A stretch drawn shorter than its length.
#[derive(Debug, Clone, Copy)]
pub struct Compressed {
    pub from_ms: f64,
    pub to_ms: f64,
}

impl Axis {
    /// The axis through `moments` (any order, duplicates allowed), starting at time 0 at
    /// x = `left`.
    pub fn new(mut moments: Vec<f64>, left: f64) -> Self {
        moments.push(0.0);
        moments.retain(|t| t.is_finite() && *t >= 0.0);
        moments.sort_by(f64::total_cmp);
        moments.dedup();
        let mut points = Vec::with_capacity(moments.len());
        let mut x = left;
        let mut previous: Option<f64> = None;
        for t in moments {
            if let Some(before) = previous {
                x += ((t - before) * PX_PER_MS).clamp(MIN_GAP_PX, MAX_GAP_PX);
            }
            points.push((t, x));
            previous = Some(t);
        }
        let drawn = x - left;
        if drawn > 0.0 && drawn < MIN_WIDTH_PX {
            let stretch = MIN_WIDTH_PX / drawn;
            for point in &mut points {
                point.1 = left + (point.1 - left) * stretch;
            }
        }
        Axis { points }
    }

    /// Where `t` is drawn (interpolated between moments, extrapolated past the ends).
    pub fn x(&self, t: f64) -> f64 {
        let index = self.points.partition_point(|(time, _)| *time <= t);
        match (
            index.checked_sub(1).map(|i| self.points[i]),
            self.points.get(index),
        ) {
            (Some((t0, x0)), Some(&(t1, x1))) => x0 + (t - t0) / (t1 - t0) * (x1 - x0),
            (Some((t0, x0)), None) => x0 + (t - t0) * PX_PER_MS,
            (None, Some(&(t1, x1))) => x1 - (t1 - t) * PX_PER_MS,
            (None, None) => 0.0,
        }
    }

    /// The x of the last moment.
    pub fn right(&self) -> f64 {
        self.points.last().map_or(0.0, |(_, x)| *x)
    }

    /// Every moment on the axis, in order.
    pub fn moments(&self) -> impl Iterator<Item = f64> + '_ {
        self.points.iter().map(|(t, _)| *t)
    }

    /// The stretches drawn shorter than their length.
    pub fn compressed(&self) -> Vec<Compressed> {
        self.points
            .windows(2)
            .filter(|pair| (pair[1].0 - pair[0].0) * PX_PER_MS > MAX_GAP_PX)
            .map(|pair| Compressed {
                from_ms: pair[0].0,
                to_ms: pair[1].0,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn bursts_are_spread_and_idle_stretches_capped() {
        let axis = Axis::new(vec![40.0, 40.5, 5000.0], 100.0);
        assert!(close(axis.x(0.0), 100.0));
        assert!(
            close(axis.right() - 100.0, MIN_WIDTH_PX),
            "a short run fills the page"
        );
        let unit = MIN_WIDTH_PX / (40.0 + MIN_GAP_PX + MAX_GAP_PX);
        assert!(close(axis.x(40.0) - 100.0, 40.0 * unit));
        assert!(close(axis.x(40.5) - axis.x(40.0), MIN_GAP_PX * unit));
        assert!(close(axis.x(5000.0) - axis.x(40.5), MAX_GAP_PX * unit));
        assert!(axis.x(2000.0) > axis.x(40.5) && axis.x(2000.0) < axis.x(5000.0));
        let compressed = axis.compressed();
        assert_eq!(compressed.len(), 1);
        assert_eq!((compressed[0].from_ms, compressed[0].to_ms), (40.5, 5000.0));
    }

    #[test]
    fn a_long_run_is_not_stretched() {
        let axis = Axis::new((0..200).map(|i| f64::from(i) * 50.0).collect(), 0.0);
        assert!(close(axis.x(100.0), 100.0));
        assert!(close(axis.right(), 199.0 * 50.0));
    }
}
