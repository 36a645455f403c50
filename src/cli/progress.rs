//! The progress bar of a long command (`sweep`, `check`): runs done of all, their rate, the
//! time left, and a note of how many went wrong. indicatif draws it on standard error only
//! when that is a terminal, so piped and `--json` output carries none of it; whatever else
//! the command prints while it runs goes through [`ProgressBar::suspend`].

use indicatif::{ProgressBar, ProgressStyle};

/// A bar for `runs` runs.
pub fn runs_bar(runs: usize) -> ProgressBar {
    let bar = ProgressBar::new(runs as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} runs, {per_sec}, eta {eta} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}
