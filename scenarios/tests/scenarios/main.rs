//! Scenario-level outputs: the self-contained timeline page of a run.

mod timeline;
