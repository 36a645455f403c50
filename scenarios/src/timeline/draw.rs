//! SVG primitives for the timeline: escaping, number formatting, and label rows that keep
//! labels from overprinting each other.

use std::fmt::Write;

/// Approximate width of one character of the 10 px monospace labels.
pub const CHAR_PX: f64 = 6.1;

/// Text made safe for HTML and SVG (element content and attribute values).
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A coordinate, with one decimal.
pub fn num(value: f64) -> String {
    format!("{value:.1}")
}

/// A simulated time for people: milliseconds, or seconds from 10 s on.
pub fn time(ms: f64) -> String {
    if ms >= 10_000.0 {
        format!("{:.3} s", ms / 1000.0)
    } else if ms.fract() == 0.0 {
        format!("{ms:.0} ms")
    } else {
        format!("{ms:.3} ms")
    }
}

/// The width a label takes.
pub fn width(text: &str) -> f64 {
    text.chars().count() as f64 * CHAR_PX
}

/// Rows of labels growing away from a line: each label goes to the first row where it
/// does not overlap the previous label; when every row is taken, to the row that frees
/// up first.
#[derive(Debug, Clone)]
pub struct Rows {
    ends: Vec<f64>,
    limit: usize,
}

impl Rows {
    pub fn new(limit: usize) -> Self {
        Rows {
            ends: Vec::new(),
            limit: limit.max(1),
        }
    }

    /// The row for a label spanning `x .. x + w`.
    pub fn place(&mut self, x: f64, w: f64) -> usize {
        let row = match self.ends.iter().position(|end| *end <= x) {
            Some(row) => row,
            None if self.ends.len() < self.limit => {
                self.ends.push(f64::MIN);
                self.ends.len() - 1
            }
            None => self
                .ends
                .iter()
                .enumerate()
                .min_by(|a, b| a.1.total_cmp(b.1))
                .map_or(0, |(row, _)| row),
        };
        self.ends[row] = x + w + 4.0;
        row
    }
}

/// An SVG document being written.
#[derive(Debug, Default)]
pub struct Svg {
    pub body: String,
}

impl Svg {
    /// A text element with a tooltip.
    pub fn text(&mut self, x: f64, y: f64, class: &str, text: &str, tip: &str) {
        let _ = write!(
            self.body,
            r#"<text class="{class}" x="{}" y="{}"><title>{}</title>{}</text>"#,
            num(x),
            num(y),
            esc(tip),
            esc(text)
        );
        self.body.push('\n');
    }

    /// A rectangle with a tooltip and extra attributes (already escaped).
    #[allow(clippy::too_many_arguments)]
    pub fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, class: &str, attrs: &str, tip: &str) {
        let _ = write!(
            self.body,
            r#"<rect class="{class}" x="{}" y="{}" width="{}" height="{}"{attrs}><title>{}</title></rect>"#,
            num(x),
            num(y),
            num(w.max(0.0)),
            num(h.max(0.0)),
            esc(tip)
        );
        self.body.push('\n');
    }

    /// A line with a tooltip and extra attributes (already escaped).
    #[allow(clippy::too_many_arguments)]
    pub fn line(
        &mut self,
        x1: f64,
        y1: f64,
        x2: f64,
        y2: f64,
        class: &str,
        attrs: &str,
        tip: &str,
    ) {
        let _ = write!(
            self.body,
            r#"<line class="{class}" x1="{}" y1="{}" x2="{}" y2="{}"{attrs}><title>{}</title></line>"#,
            num(x1),
            num(y1),
            num(x2),
            num(y2),
            esc(tip)
        );
        self.body.push('\n');
    }

    /// Raw markup (already escaped).
    pub fn raw(&mut self, markup: &str) {
        self.body.push_str(markup);
        self.body.push('\n');
    }
}

/// The first block of a task id, enough to tell tasks apart in a label.
pub fn short_id(id: &str) -> String {
    id.split('-').next().unwrap_or(id).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_that_would_overlap_go_to_new_rows_up_to_the_limit() {
        let mut rows = Rows::new(2);
        assert_eq!(rows.place(0.0, 50.0), 0);
        assert_eq!(rows.place(10.0, 50.0), 1);
        assert_eq!(
            rows.place(20.0, 50.0),
            0,
            "both rows taken: the one that frees first"
        );
        assert_eq!(rows.place(200.0, 10.0), 0);
    }

    #[test]
    fn markup_is_escaped() {
        assert_eq!(
            esc(r#"<a href="x">&'"#),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        assert_eq!(time(354.0), "354 ms");
        assert_eq!(time(12_345.6), "12.346 s");
    }
}
