//! The user's own logs during a run. While a run records, its recorder is the thread's
//! `tracing` subscriber, so events of the user's targets (anything not `meshsim*`) reach
//! it; those that `MESHSIM_LOG` (or else `RUST_LOG`) enables are printed to standard error,
//! stamped with simulated time and host, and never enter the trace, so the trace hash stays
//! a function of meshsim's own events. Under `cargo test` the output is captured with the
//! test's and shown when it fails.
//!
//! The filter is the common subset of `RUST_LOG` syntax: comma-separated directives, each
//! `LEVEL`, `TARGET` or `TARGET=LEVEL`; the most specific (longest) matching target wins.

use std::sync::OnceLock;
use tracing::{Level, Metadata};

/// One directive: events of `target` (a prefix; every target when empty) at `level` or
/// more severe.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Directive {
    target: String,
    level: Level,
}

/// Which user events are printed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UserLog {
    directives: Vec<Directive>,
}

impl UserLog {
    /// The filter of this process: `MESHSIM_LOG`, else `RUST_LOG`, else nothing.
    pub fn from_env() -> &'static UserLog {
        static FILTER: OnceLock<UserLog> = OnceLock::new();
        FILTER.get_or_init(|| {
            let spec = std::env::var("MESHSIM_LOG")
                .or_else(|_| std::env::var("RUST_LOG"))
                .unwrap_or_default();
            UserLog::parse(&spec)
        })
    }

    /// A filter from `RUST_LOG`-style text; directives that do not parse are skipped.
    pub fn parse(spec: &str) -> Self {
        let mut directives: Vec<Directive> = spec
            .split(',')
            .map(str::trim)
            .filter(|part| !part.is_empty())
            .filter_map(|part| match part.split_once('=') {
                Some((target, level)) => Some(Directive {
                    target: target.trim().to_string(),
                    level: level.trim().parse().ok()?,
                }),
                None => match part.parse::<Level>() {
                    Ok(level) => Some(Directive {
                        target: String::new(),
                        level,
                    }),
                    Err(_) => Some(Directive {
                        target: part.to_string(),
                        level: Level::TRACE,
                    }),
                },
            })
            .collect();
        directives.sort_by_key(|directive| std::cmp::Reverse(directive.target.len()));
        UserLog { directives }
    }

    /// Whether an event with `meta` is printed.
    pub fn enables(&self, meta: &Metadata<'_>) -> bool {
        self.level_for(meta.target())
            .is_some_and(|level| *meta.level() <= level)
    }

    /// The least severe level printed for `target`, if any.
    fn level_for(&self, target: &str) -> Option<Level> {
        self.directives
            .iter()
            .find(|directive| target.starts_with(&directive.target))
            .map(|directive| directive.level)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_matching_target_decides() {
        let filter = UserLog::parse("warn,my_orchestrator=info,my_orchestrator::noisy=error");
        assert_eq!(filter.level_for("my_orchestrator"), Some(Level::INFO));
        assert_eq!(
            filter.level_for("my_orchestrator::noisy"),
            Some(Level::ERROR)
        );
        assert_eq!(filter.level_for("other"), Some(Level::WARN));
        assert_eq!(UserLog::parse("only_me").level_for("other"), None);
        assert_eq!(
            UserLog::parse("only_me").level_for("only_me"),
            Some(Level::TRACE)
        );
        assert_eq!(UserLog::parse("").level_for("my_orchestrator"), None);
    }
}
