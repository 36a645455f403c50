//! The wire format against its references: the golden vectors decode and re-encode, satisfy the
//! official JSON Schemas and the v1.0 proto (`spec/` at the repository root), round-trip under
//! generated documents, and survive mutation fuzzing without a panic; values outside the
//! spec that real peers send are kept as unknown.

mod support;

mod fuzz_golden_mutations;
mod golden_vectors;
mod proto_conformance;
mod robustness_properties;
mod round_trip_properties;
mod schema_conformance;
mod unknown_values;
