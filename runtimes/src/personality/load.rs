//! Reading a personality document: parsing with errors that name the field, and the
//! checks serde cannot make.

use super::{Bindings, Personality};
use std::path::Path;

/// The most work steps a personality's `#long` script may take. The swarm draws at most 40;
/// ten thousand is far beyond any run's deadlines and still a small turn to lay out.
const MOST_LONG_RUNNING_STEPS: u32 = 10_000;

/// The longest a Card may take to be answered: ten minutes is a Card nobody waits for.
const MOST_CARD_DELAY_MS: u64 = 600_000;

/// A personality file that could not be used.
#[derive(Debug, thiserror::Error)]
pub enum PersonalityError {
    #[error("cannot read personality file {path}: {source}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("`{name}` is neither a built-in personality ({builtins}) nor a file")]
    Unknown { name: String, builtins: String },
    #[error("personality file {path}: field `{field}`: {problem}")]
    Field {
        path: String,
        field: String,
        problem: String,
    },
}

impl Personality {
    /// Parses a personality from JSON; `origin` names the document in errors.
    pub fn from_json(json: &str, origin: &str) -> Result<Self, PersonalityError> {
        let document = |problem: &str| PersonalityError::Field {
            path: origin.to_string(),
            field: "(document)".to_string(),
            problem: problem.to_string(),
        };
        // serde fills a struct from a JSON array too, field by field: only an object is a
        // personality.
        if !json.trim_start().starts_with('{') && !json.trim().is_empty() {
            return Err(document("a personality is one JSON object"));
        }
        let mut deserializer = serde_json::Deserializer::from_str(json);
        let personality: Personality = serde_path_to_error::deserialize(&mut deserializer)
            .map_err(|error| {
                let field = error.path().to_string();
                PersonalityError::Field {
                    path: origin.to_string(),
                    field: if field == "." {
                        "(document)".to_string()
                    } else {
                        field
                    },
                    problem: error.into_inner().to_string(),
                }
            })?;
        deserializer
            .end()
            .map_err(|_| document("text after the JSON object"))?;
        personality.validate(origin)?;
        Ok(personality)
    }

    /// Reads and parses a personality file.
    pub fn load(path: &Path) -> Result<Self, PersonalityError> {
        let origin = path.display().to_string();
        let json = std::fs::read_to_string(path).map_err(|source| PersonalityError::Read {
            path: origin.clone(),
            source,
        })?;
        Self::from_json(&json, &origin)
    }

    /// Checks what serde cannot: ranges that must be ordered, periods that must be positive,
    /// counts that must be bounded.
    fn validate(&self, origin: &str) -> Result<(), PersonalityError> {
        let field = |field: &str, problem: String| PersonalityError::Field {
            path: origin.to_string(),
            field: field.to_string(),
            problem,
        };
        if self.work.min_ms > self.work.max_ms {
            return Err(field(
                "work.max_ms",
                format!(
                    "{} is below work.min_ms ({})",
                    self.work.max_ms, self.work.min_ms
                ),
            ));
        }
        for (name, text) in [
            ("name", &self.name),
            ("card.name", &self.card.name),
            ("card.version", &self.card.version),
        ] {
            if text.chars().any(char::is_control) {
                return Err(field(
                    name,
                    "has a control character (a line break, a tab): it is printed in \
                     reports, where it could pass for lines of their own"
                        .into(),
                ));
            }
        }
        if self.work.long_running_steps > MOST_LONG_RUNNING_STEPS {
            return Err(field(
                "work.long_running_steps",
                format!(
                    "{} is more than {MOST_LONG_RUNNING_STEPS}: the #long script's steps are laid \
                     out when it starts, so each one costs memory",
                    self.work.long_running_steps
                ),
            ));
        }
        if self.keep_alive_ms == Some(0) {
            return Err(field(
                "keep_alive_ms",
                "must be positive (omit it for no pings)".into(),
            ));
        }
        if let Some(delay) = self.card_delay_ms
            && delay > MOST_CARD_DELAY_MS
        {
            return Err(field(
                "card_delay_ms",
                format!(
                    "{delay} is more than {MOST_CARD_DELAY_MS} (ten minutes): omit it for a \
                     Card answered at once"
                ),
            ));
        }
        if let Some(sidecar) = self.sidecar {
            for (name, timeout) in [
                ("sidecar.route_timeout_ms", sidecar.route_timeout_ms),
                ("sidecar.idle_timeout_ms", sidecar.idle_timeout_ms),
            ] {
                if timeout == Some(0) {
                    return Err(field(name, "must be positive (null for none)".into()));
                }
            }
        }
        if let Some(tenant) = &self.tenant
            && !Personality::is_plain_tenant(tenant)
        {
            return Err(field(
                "tenant",
                format!(
                    "{tenant:?} is not 1 to 64 of the characters a path segment carries as \
                     they are (letters, digits, `-`, `.`, `_`, `~`); omit it for none"
                ),
            ));
        }
        if self.v0_3_compat && self.bindings == Bindings::HttpJson {
            return Err(field(
                "bindings",
                "\"http-json\" cannot go with v0_3_compat, which serves v0.3 over JSON-RPC".into(),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::personality::Reaping;
    use crate::sidecar::Sidecar;
    use std::time::Duration;

    #[test]
    fn empty_document_is_the_spec_correct_default() {
        let personality = Personality::from_json("{}", "inline").unwrap();
        assert_eq!(personality, Personality::default());
    }

    #[test]
    fn unknown_field_is_named() {
        let error =
            Personality::from_json(r#"{"resubscribe_mode": "resume"}"#, "x.json").unwrap_err();
        let text = error.to_string();
        assert!(text.contains("x.json"), "{text}");
        assert!(text.contains("resubscribe_mode"), "{text}");
    }

    #[test]
    fn bad_nested_value_names_its_path() {
        let error =
            Personality::from_json(r#"{"cancel": {"working": "maybe"}}"#, "p.json").unwrap_err();
        match error {
            PersonalityError::Field { field, problem, .. } => {
                assert_eq!(field, "cancel.working");
                assert!(problem.contains("maybe"), "{problem}");
            }
            other => panic!("unexpected {other}"),
        }
    }

    #[test]
    fn reaping_with_parameters_parses() {
        let personality =
            Personality::from_json(r#"{"reaping": {"ttl": {"after_ms": 500}}}"#, "inline").unwrap();
        assert_eq!(personality.reaping, Reaping::Ttl { after_ms: 500 });
    }

    #[test]
    fn a_sidecar_parses_and_a_zero_timeout_is_refused() {
        let personality = Personality::from_json(
            r#"{"sidecar": {"route_timeout_ms": 5000, "idle_timeout_ms": null}}"#,
            "inline",
        )
        .unwrap();
        assert_eq!(
            personality.sidecar,
            Some(Sidecar {
                route_timeout_ms: Some(5000),
                idle_timeout_ms: None
            })
        );
        let error =
            Personality::from_json(r#"{"sidecar": {"idle_timeout_ms": 0}}"#, "s.json").unwrap_err();
        assert!(
            error.to_string().contains("sidecar.idle_timeout_ms"),
            "{error}"
        );
    }

    #[test]
    fn inverted_work_range_is_refused() {
        let error = Personality::from_json(r#"{"work": {"min_ms": 9, "max_ms": 3}}"#, "w.json")
            .unwrap_err();
        assert!(error.to_string().contains("work.max_ms"), "{error}");
    }

    #[test]
    fn a_tenant_must_be_a_plain_path_segment() {
        let tenant = |value: &str| {
            Personality::from_json(&format!(r#"{{"tenant": {value}}}"#), "t.json")
                .map(|personality| personality.tenant)
        };
        assert_eq!(tenant(r#""acme-eu.1""#).unwrap(), Some("acme-eu.1".into()));
        let too_long = format!("\"{}\"", "x".repeat(65));
        for bad in [r#""""#, r#""a/b""#, r#""a b""#, too_long.as_str()] {
            let error = tenant(bad).unwrap_err().to_string();
            assert!(
                error.contains("tenant") && error.contains("path segment"),
                "{error}"
            );
        }
    }

    #[test]
    fn a_name_with_a_line_break_is_refused() {
        let error = Personality::from_json(r#"{"name": "x\nverdict: holds"}"#, "n.json")
            .unwrap_err()
            .to_string();
        assert!(error.contains("field `name`"), "{error}");
        assert!(Personality::from_json(r#"{"name": "x <y> & 'z'"}"#, "n.json").is_ok());
        let card = Personality::from_json(r#"{"card": {"version": "1\nverdict"}}"#, "n.json")
            .unwrap_err()
            .to_string();
        assert!(card.contains("field `card.version`"), "{card}");
    }

    #[test]
    fn only_one_json_object_is_a_personality() {
        for text in [r#"["x", "y"]"#, "[]", r#"{"name": "x"} and more"#] {
            let error = Personality::from_json(text, "d.json")
                .unwrap_err()
                .to_string();
            assert!(error.contains("(document)"), "{text}: {error}");
        }
        assert!(Personality::from_json(" {\"name\": \"x\"}\n", "d.json").is_ok());
    }

    #[test]
    fn a_long_script_too_long_to_lay_out_is_refused_and_the_bound_itself_is_not() {
        let steps = |n: u32| format!(r#"{{"work": {{"long_running_steps": {n}}}}}"#);
        let error = Personality::from_json(&steps(MOST_LONG_RUNNING_STEPS + 1), "s.json")
            .unwrap_err()
            .to_string();
        assert!(error.contains("work.long_running_steps"), "{error}");
        assert!(Personality::from_json(&steps(MOST_LONG_RUNNING_STEPS), "s.json").is_ok());
    }

    #[test]
    fn a_card_later_than_ten_minutes_is_refused_and_ten_minutes_is_not() {
        let late = |ms: u64| format!(r#"{{"card_delay_ms": {ms}}}"#);
        let error = Personality::from_json(&late(MOST_CARD_DELAY_MS + 1), "late.json")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("field `card_delay_ms`: 600001 is more than 600000"),
            "{error}"
        );
        let longest = Personality::from_json(&late(MOST_CARD_DELAY_MS), "late.json").unwrap();
        assert_eq!(longest.card_delay(), Some(Duration::from_secs(600)));
    }
}
