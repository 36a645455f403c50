//! The shards `meshsim merge` was given, read and checked: one sweep's identity throughout,
//! every shard of it present once, and each shard's runs covering its seeds times the
//! matrix's cells exactly once (less the runs its summary lists as could not run). The
//! runs are tallied as the sweep tallies them, and the swarm's coverage counted as it
//! counts it; none is kept.

use super::source::Source;
use crate::cli::cautions::Cautions;
use crate::cli::identity::SweepIdentity;
use crate::cli::shard::Shard;
use crate::cli::swarm_coverage::SwarmCoverage;
use crate::cli::sweep_output::Summary;
use meshsim_protocol::Dialect;
use meshsim_scenarios::{CellKey, Expect, Invariant, Scenario, Tally, Verdict};
use serde::Deserialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// Every shard of one sweep, checked, and the tally of all their runs.
pub struct ShardSet {
    /// The identity of the first line read (its shard aside, every line's).
    pub identity: SweepIdentity,
    pub tally: Tally,
    /// The cautions the shards' summaries carry (the same runtimes, so the same cautions).
    pub cautions: Cautions,
    /// With `--runtime swarm`, the knob values the runs' personalities covered, drawn again
    /// from their seeds (a shard's summary counts distinct values, which do not add up).
    pub coverage: SwarmCoverage,
    /// By shard index: which source holds the shard.
    sources: BTreeMap<u64, usize>,
}

/// The fields of a run line the merge reads.
#[derive(Deserialize)]
struct RunLine {
    seed: u64,
    scenario: String,
    faults: String,
    runtime: String,
    consumer: String,
    dialect: String,
    verdict: String,
    expect: Value,
    matches_expectation: bool,
    sweep: SweepIdentity,
}

/// What has been read of one shard so far.
struct Part {
    source: usize,
    runs: usize,
    summary: Option<Summary>,
    /// The seed of the last run read, and the cells already seen for it.
    seed: Option<u64>,
    cells_of_seed: BTreeSet<CellKey>,
}

impl ShardSet {
    /// Reads every line of `sources`, or says in one line what is wrong with them.
    pub fn read(sources: &[Source]) -> Result<ShardSet, String> {
        let mut first: Option<(SweepIdentity, usize)> = None;
        let mut parts: BTreeMap<u64, Part> = BTreeMap::new();
        let mut tally = Tally::default();
        let mut coverage = SwarmCoverage::default();
        for (source_index, source) in sources.iter().enumerate() {
            let name = source.name();
            for line in source.lines()? {
                let (at, text) = line?;
                let here = |problem: String| format!("{name} line {at}: {problem}");
                let value: Value = serde_json::from_str(&text)
                    .map_err(|error| here(format!("not JSON ({error})")))?;
                let line = Line::parse(value).map_err(here)?;
                let identity = line.identity();
                let (reference, reference_source) =
                    first.get_or_insert((identity.clone(), source_index));
                if let Some(difference) = reference.difference(identity) {
                    return Err(format!(
                        "{name} is a shard of {difference} than {} (line {at})",
                        sources[*reference_source].name()
                    ));
                }
                let shard = identity.shard;
                let part = parts
                    .entry(shard.index)
                    .or_insert_with(|| Part::new(source_index));
                if part.source != source_index {
                    let first = sources[part.source].name();
                    return Err(if first == name {
                        format!("shard {shard} is doubled: {name} is given twice")
                    } else {
                        format!("shard {shard} is doubled: it is in {first} and in {name}")
                    });
                }
                if part.summary.is_some() {
                    return Err(format!(
                        "shard {shard} is doubled: {name} holds it twice (line {at})"
                    ));
                }
                match line {
                    Line::Run(run) => {
                        part.add_run(&run, &mut tally).map_err(here)?;
                        coverage.add_line(&run.runtime, run.seed);
                    }
                    Line::Summary(summary) => part.end(*summary).map_err(here)?,
                }
            }
        }
        let Some((identity, _)) = first else {
            return Err("the files hold no `meshsim sweep --json` output".to_string());
        };
        let count = identity.shard.count;
        let missing: Vec<String> = (0..count)
            .filter(|index| !parts.contains_key(index))
            .map(|index| format!("{index}/{count}"))
            .collect();
        if !missing.is_empty() {
            let given: Vec<String> = parts
                .keys()
                .map(|index| format!("{index}/{count}"))
                .collect();
            let (shards, are) = if missing.len() == 1 {
                ("shard", "is")
            } else {
                ("shards", "are")
            };
            return Err(format!(
                "{shards} {} of the sweep {are} missing (given: {})",
                missing.join(", "),
                given.join(", ")
            ));
        }
        let mut sources_by_shard = BTreeMap::new();
        let mut cautions = Cautions::new();
        for (index, part) in parts {
            let shard_identity = SweepIdentity {
                shard: Shard { index, count },
                ..identity.clone()
            };
            let source = part.source;
            let summary = part
                .complete(&shard_identity)
                .map_err(|problem| format!("{}: {problem}", sources[source].name()))?;
            tally.errors.extend(summary.errors);
            cautions.extend(summary.cautions);
            sources_by_shard.insert(index, source);
        }
        Ok(ShardSet {
            identity,
            tally,
            cautions,
            coverage,
            sources: sources_by_shard,
        })
    }

    /// Each shard's index and the source that holds it, in shard order (which is seed
    /// order: shard I's seeds all come before shard I+1's).
    pub fn in_order(&self) -> impl Iterator<Item = (u64, usize)> + '_ {
        self.sources.iter().map(|(index, source)| (*index, *source))
    }
}

/// A line of a shard output.
enum Line {
    Run(Box<RunLine>),
    Summary(Box<Summary>),
}

impl Line {
    fn parse(value: Value) -> Result<Line, String> {
        match value.get("summary") {
            Some(summary) => Summary::deserialize(summary)
                .map(|summary| Line::Summary(Box::new(summary)))
                .map_err(|error| format!("not the summary of a `meshsim sweep --json` ({error})")),
            None => RunLine::deserialize(&value)
                .map(|run| Line::Run(Box::new(run)))
                .map_err(|error| format!("not a run of a `meshsim sweep --json` ({error})")),
        }
    }

    fn identity(&self) -> &SweepIdentity {
        match self {
            Line::Run(run) => &run.sweep,
            Line::Summary(summary) => &summary.sweep,
        }
    }
}

impl Part {
    fn new(source: usize) -> Part {
        Part {
            source,
            runs: 0,
            summary: None,
            seed: None,
            cells_of_seed: BTreeSet::new(),
        }
    }

    /// Counts a run: in the shard's seeds, in sweep order, not seen before.
    fn add_run(&mut self, run: &RunLine, tally: &mut Tally) -> Result<(), String> {
        let shard = run.sweep.shard;
        let seeds = run.sweep.slice();
        if !seeds.contains(&run.seed) {
            return Err(format!(
                "seed {} is not among shard {shard}'s seeds {}..{}",
                run.seed, seeds.start, seeds.end
            ));
        }
        match self.seed {
            Some(last) if run.seed < last => {
                return Err(format!(
                    "seed {} comes after seed {last}: not in sweep order",
                    run.seed
                ));
            }
            Some(last) if run.seed == last => {}
            _ => {
                self.seed = Some(run.seed);
                self.cells_of_seed.clear();
            }
        }
        let key = cell_key(run)?;
        let described = format!(
            "{} {} {} {} {}",
            run.scenario, run.faults, run.runtime, run.consumer, run.dialect
        );
        if !self.cells_of_seed.insert(key.clone()) {
            return Err(format!(
                "the run of seed {} in cell {described} is doubled",
                run.seed
            ));
        }
        let verdict = match run.verdict.as_str() {
            "holds" => Verdict::Holds,
            "violated" => Verdict::Violated,
            other => return Err(format!("unknown verdict `{other}`")),
        };
        tally.count(
            key,
            verdict,
            expectation(&run.expect)?,
            run.matches_expectation,
        );
        self.runs += 1;
        Ok(())
    }

    /// Takes the shard's summary, which must count the runs read.
    fn end(&mut self, summary: Summary) -> Result<(), String> {
        if summary.runs != self.runs {
            return Err(format!(
                "the summary counts {} runs but shard {} has {} before it",
                summary.runs, summary.sweep.shard, self.runs
            ));
        }
        self.summary = Some(summary);
        Ok(())
    }

    /// The shard's summary, once its runs (and those it could not run) cover its seeds
    /// times the matrix's cells.
    fn complete(self, identity: &SweepIdentity) -> Result<Summary, String> {
        let shard = identity.shard;
        let summary = self.summary.ok_or_else(|| {
            format!("shard {shard} has no summary line (its output was cut short)")
        })?;
        let seeds = identity.slice();
        let cells = identity.cells.count as u64;
        let expected = (seeds.end - seeds.start).saturating_mul(cells);
        let covered = (self.runs + summary.errors.len()) as u64;
        if covered != expected {
            return Err(format!(
                "shard {shard} has {} runs and {} that could not run, but its seeds {}..{} \
                 times {cells} cells make {expected}",
                self.runs,
                summary.errors.len(),
                seeds.start,
                seeds.end
            ));
        }
        Ok(summary)
    }
}

/// The tally's key for a run line's cell.
fn cell_key(run: &RunLine) -> Result<CellKey, String> {
    let faults = ["none", "swarm", "plan"]
        .into_iter()
        .find(|name| *name == run.faults)
        .ok_or_else(|| format!("unknown faults `{}`", run.faults))?;
    Ok(CellKey {
        scenario: run.scenario.parse::<Scenario>()?,
        faults,
        runtime: run.runtime.clone(),
        consumer: run.consumer.clone(),
        dialect: run.dialect.parse::<Dialect>()?,
    })
}

/// A run line's `expect`, as `Expect` serialises it.
fn expectation(expect: &Value) -> Result<Expect, String> {
    let unknown = || format!("unknown expectation {expect}");
    match expect.get("expect").and_then(Value::as_str) {
        Some("holds") => Ok(Expect::Holds),
        Some("unspecified") => Ok(Expect::Unspecified),
        Some("violates") => {
            let invariant = expect
                .get("invariant")
                .and_then(Value::as_str)
                .ok_or_else(unknown)?;
            Ok(Expect::Violates(invariant.parse::<Invariant>()?))
        }
        _ => Err(unknown()),
    }
}
