//! Scenario-level outputs: the self-contained timeline page of a run, and the sameness of
//! every run of the default matrix with idle fast-forward on and off.

mod fast_forward;
mod timeline;
mod wire_against_spec;
