//! The v0.1 and v0.3 golden vectors satisfy the official JSON Schemas (draft-07) in
//! `spec/`, each against the definition its index names.

use crate::support::{spec_json, vectors};
use meshsim_protocol::Dialect;
use serde_json::Value;

/// The schema document re-rooted at one of its definitions.
fn validator_for(schema: &Value, definitions: &str, name: &str) -> jsonschema::Validator {
    assert!(
        schema[definitions].get(name).is_some(),
        "the schema has no {definitions}/{name}"
    );
    let mut rooted = schema.clone();
    rooted["$ref"] = Value::String(format!("#/{definitions}/{name}"));
    jsonschema::draft7::new(&rooted).unwrap_or_else(|error| panic!("schema {name}: {error}"))
}

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
        let validator = validator_for(&schema, definitions, name);
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
