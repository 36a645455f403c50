//! The v0.1 and v0.3 golden vectors satisfy the official JSON Schemas (draft-07) in
//! `spec/`, each against the definition its index names.

use crate::support::spec::{schema_validator, spec_json};
use crate::support::vectors;
use meshsim_protocol::Dialect;

fn check(dialect: Dialect, schema_file: &str, definitions: &str) {
    let schema = spec_json(schema_file);
    let mut failures = Vec::new();
    let all = vectors(dialect);
    assert!(!all.is_empty());
    for vector in all {
        let name = vector
            .schema
            .as_deref()
            .unwrap_or_else(|| panic!("{} names no schema", vector.name()));
        let validator = schema_validator(&schema, definitions, name);
        for error in validator.iter_errors(&vector.document) {
            failures.push(format!(
                "{} against {name}: {error} at {}",
                vector.name(),
                error.instance_path
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "schema violations:\n{}",
        failures.join("\n")
    );
}

#[test]
fn v0_1_vectors_satisfy_the_v0_1_schema() {
    check(Dialect::V0_1, "a2a-v0.1.0.schema.json", "$defs");
}

#[test]
fn v0_3_vectors_satisfy_the_v0_3_schema() {
    check(Dialect::V0_3, "a2a-v0.3.0.schema.json", "definitions");
}
