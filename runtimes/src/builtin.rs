//! The built-in personalities: one JSON file each in `runtimes/personalities/`, embedded at
//! build time (see `build.rs`), so that adding a built-in is adding a file. They are the
//! origin incident's three runtimes, exactly as its step table has them, and runtimes calibrated
//! against real SDKs (docs/personalities.md says where each comes from).

use crate::personality::{Personality, PersonalityError};
use std::path::Path;

include!(concat!(env!("OUT_DIR"), "/builtin_personalities.rs"));

/// A built-in personality by name.
///
/// The files are part of the program, so a broken one is a build defect: this names the
/// file and the field and stops (every file is parsed by this crate's unit tests, so
/// `cargo test -p meshsim-runtimes` catches it first).
pub fn builtin(name: &str) -> Option<Personality> {
    let index = BUILTIN_NAMES.iter().position(|builtin| *builtin == name)?;
    Some(parse_file(index).unwrap_or_else(|error| panic!("{error}")))
}

/// Every built-in personality, in [`BUILTIN_NAMES`] order.
pub fn builtins() -> Vec<Personality> {
    BUILTIN_NAMES
        .iter()
        .filter_map(|name| builtin(name))
        .collect()
}

/// A built-in by name, or else a personality file at that path.
pub fn resolve(name_or_path: &str) -> Result<Personality, PersonalityError> {
    if let Some(index) = BUILTIN_NAMES.iter().position(|name| *name == name_or_path) {
        return parse_file(index);
    }
    let path = Path::new(name_or_path);
    if !path.exists() {
        return Err(PersonalityError::Unknown {
            name: name_or_path.to_string(),
            builtins: BUILTIN_NAMES.join(", "),
        });
    }
    Personality::load(path)
}

/// The built-in at `index` of [`BUILTIN_NAMES`], which must carry its file's name.
fn parse_file(index: usize) -> Result<Personality, PersonalityError> {
    let name = BUILTIN_NAMES[index];
    let origin = format!("runtimes/personalities/{name}.json");
    let personality = Personality::from_json(BUILTIN_FILES[index], &origin)?;
    if personality.name != name {
        return Err(PersonalityError::Field {
            path: origin,
            field: "name".to_string(),
            problem: format!(
                "is `{}`, but a built-in carries its file's name, `{name}`",
                personality.name
            ),
        });
    }
    Ok(personality)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_parses_and_is_named_after_itself() {
        assert!(!BUILTIN_NAMES.is_empty());
        for (index, name) in BUILTIN_NAMES.iter().enumerate() {
            let personality = parse_file(index).unwrap_or_else(|error| panic!("{error}"));
            assert_eq!(&personality.name, name);
            assert_eq!(resolve(name).unwrap(), personality);
            assert_eq!(builtin(name).unwrap(), personality);
        }
        assert_eq!(builtins().len(), BUILTIN_NAMES.len());
    }

    #[test]
    fn the_origin_incidents_runtimes_are_built_in() {
        for name in ["python-correct", "go-replaying", "jvm-reaping"] {
            assert!(BUILTIN_NAMES.contains(&name), "{name}");
        }
    }

    #[test]
    fn builtins_survive_a_json_round_trip() {
        for personality in builtins() {
            let json = serde_json::to_string(&personality).unwrap();
            assert_eq!(
                Personality::from_json(&json, "roundtrip").unwrap(),
                personality
            );
        }
    }

    #[test]
    fn unknown_name_lists_the_builtins() {
        let error = resolve("no-such-runtime").unwrap_err().to_string();
        assert!(
            error.contains("no-such-runtime") && error.contains("go-replaying"),
            "{error}"
        );
    }
}
