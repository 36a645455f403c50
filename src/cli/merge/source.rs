//! Where `meshsim merge` reads shard outputs from: files, read twice (once to check them,
//! once to print their runs, so that a merge holds no run in memory), or standard input,
//! held in memory since it can be read only once.

use crate::cli::identity::SweepIdentity;
use serde_json::Value;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};

/// One input of the merge.
pub enum Source {
    File(String),
    Stdin(String),
}

/// A line of a source, numbered from 1, or why it could not be read.
pub type Numbered = Result<(usize, String), String>;

impl Source {
    /// The sources `names` name (`-` is standard input, at most once), each checked readable.
    pub fn open_all(names: &[String]) -> Result<Vec<Source>, String> {
        if names.iter().filter(|name| *name == "-").count() > 1 {
            return Err("`-` (standard input) is given more than once".to_string());
        }
        names
            .iter()
            .map(|name| {
                if name == "-" {
                    let mut text = String::new();
                    std::io::stdin()
                        .read_to_string(&mut text)
                        .map_err(|error| format!("cannot read standard input: {error}"))?;
                    Ok(Source::Stdin(text))
                } else {
                    File::open(name).map_err(|error| format!("cannot read {name}: {error}"))?;
                    Ok(Source::File(name.clone()))
                }
            })
            .collect()
    }

    /// The name errors give the source: its path, or `standard input`.
    pub fn name(&self) -> &str {
        match self {
            Source::File(path) => path,
            Source::Stdin(_) => "standard input",
        }
    }

    /// The source's non-blank lines with their numbers.
    pub fn lines(&self) -> Result<Box<dyn Iterator<Item = Numbered> + '_>, String> {
        let lines: Box<dyn Iterator<Item = Result<String, String>>> =
            match self {
                Source::File(path) => {
                    let file =
                        File::open(path).map_err(|error| format!("cannot read {path}: {error}"))?;
                    Box::new(BufReader::new(file).lines().map(move |line| {
                        line.map_err(|error| format!("cannot read {path}: {error}"))
                    }))
                }
                Source::Stdin(text) => Box::new(text.lines().map(|line| Ok(line.to_string()))),
            };
        Ok(Box::new(
            lines
                .enumerate()
                .map(|(at, line)| line.map(|line| (at + 1, line)))
                .filter(|line| !matches!(line, Ok((_, text)) if text.trim().is_empty())),
        ))
    }

    /// The run lines (not summaries) of shard `index` in this source, in their order.
    pub fn run_lines_of_shard(
        &self,
        index: u64,
    ) -> Result<impl Iterator<Item = Result<Value, String>> + '_, String> {
        let name = self.name();
        Ok(self.lines()?.filter_map(move |line| {
            let parsed = line.and_then(|(at, text)| {
                let value: Value = serde_json::from_str(&text)
                    .map_err(|error| format!("{name} line {at}: not JSON ({error})"))?;
                let identity = value
                    .get("sweep")
                    .cloned()
                    .map(serde_json::from_value::<SweepIdentity>);
                Ok((value, identity))
            });
            match parsed {
                Err(problem) => Some(Err(problem)),
                Ok((value, Some(Ok(identity)))) if identity.shard.index == index => Some(Ok(value)),
                Ok(_) => None,
            }
        }))
    }
}
