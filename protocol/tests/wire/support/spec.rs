//! Where the official A2A specs are and how to read them. Shared with the runtime tests that
//! check served bytes (`runtimes/tests/personalities/served_shapes.rs` includes this file).

use serde_json::Value;
use std::path::PathBuf;

/// The official specs, copied into `spec/` at the repository root (see its README).
pub fn spec_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../spec")
}

/// A file of the spec directory, as text.
pub fn spec_text(file: &str) -> String {
    let path = spec_dir().join(file);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("reading {}: {error}", path.display()))
}

/// A file of the spec directory, as JSON.
pub fn spec_json(file: &str) -> Value {
    serde_json::from_str(&spec_text(file))
        .unwrap_or_else(|error| panic!("parsing spec/{file}: {error}"))
}

/// A validator for one definition of an official JSON Schema (draft-07): the schema document
/// re-rooted at `#/{definitions}/{name}`.
pub fn schema_validator(schema: &Value, definitions: &str, name: &str) -> jsonschema::Validator {
    assert!(
        schema[definitions].get(name).is_some(),
        "the schema has no {definitions}/{name}"
    );
    let mut rooted = schema.clone();
    rooted["$ref"] = Value::String(format!("#/{definitions}/{name}"));
    jsonschema::draft7::new(&rooted).unwrap_or_else(|error| panic!("schema {name}: {error}"))
}
