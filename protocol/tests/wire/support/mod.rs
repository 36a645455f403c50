//! Loading the golden vectors and the official specs they are checked against.

pub mod arbitrary;
pub mod proto;
pub mod spec;

use meshsim_protocol::{Dialect, Method};
use serde_json::Value;
use std::path::PathBuf;

/// What a vector holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Card,
    Request,
    Response,
}

/// One golden vector: a wire document and how to read it.
#[derive(Debug, Clone)]
pub struct Vector {
    pub dialect: Dialect,
    pub file: String,
    pub kind: Kind,
    /// For responses: the method they answer.
    pub method: Option<Method>,
    /// v0.1/v0.3: the schema definition the document must satisfy.
    pub schema: Option<String>,
    /// v1.0: the proto message of the card, the params or the result.
    pub proto: Option<String>,
    /// A real peer's document with enum values outside the spec: the JSON paths
    /// `meshsim_protocol::unrecognised::scan` must name. Empty for the spec's own shapes.
    pub unrecognised: Vec<String>,
    pub document: Value,
}

impl Vector {
    pub fn name(&self) -> String {
        format!("{}/{}", self.dialect, self.file)
    }
}

/// `protocol/tests/vectors`.
pub fn vectors_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("vectors")
}

/// Every vector of `dialect`, as listed in its `index.json`.
pub fn vectors(dialect: Dialect) -> Vec<Vector> {
    let dir = vectors_dir().join(dialect.name());
    let index: Value = read_json(&dir.join("index.json"));
    index
        .as_array()
        .expect("index.json is a list")
        .iter()
        .map(|entry| {
            let file = entry["file"].as_str().expect("file").to_string();
            let kind = match entry["kind"].as_str() {
                Some("card") => Kind::Card,
                Some("request") => Kind::Request,
                Some("response") => Kind::Response,
                other => panic!("{file}: unknown kind {other:?}"),
            };
            let method = entry["method"].as_str().map(|name| {
                Method::ALL
                    .into_iter()
                    .find(|method| format!("{method:?}") == name)
                    .unwrap_or_else(|| panic!("{file}: unknown method {name}"))
            });
            Vector {
                dialect,
                kind,
                method,
                schema: entry["schema"].as_str().map(str::to_string),
                proto: entry["proto"].as_str().map(str::to_string),
                unrecognised: entry["unrecognised"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|path| path.as_str().expect("paths are strings").to_string())
                    .collect(),
                document: read_json(&dir.join(&file)),
                file,
            }
        })
        .collect()
}

fn read_json(path: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|error| panic!("reading {}: {error}", path.display()));
    serde_json::from_str(&text)
        .unwrap_or_else(|error| panic!("parsing {}: {error}", path.display()))
}
