//! `meshsim probe URL [--json] [--personality-out FILE]`: runs the fixed lifecycle probe
//! against a real agent over TCP, over the binding its Card prefers (the first it lists that
//! meshsim speaks: JSON-RPC, or v1.0's HTTP+JSON), and prints the measured profile beside
//! the Card's claims, each contradiction named; optionally writes the personality that reproduces it.
//! The probe itself lives in `meshsim_consumer::probe`; this only prints.

use crate::cli::output;
use crate::cli::replay::personality_file;
use clap::Args;
use meshsim_consumer::probe::{ProbeConfig, ProbeReport, probe};
use meshsim_consumer::{ClientConfig, ClientError, TcpConnector};
use meshsim_protocol::TaskState;
use meshsim_scenarios::{probed_personality, unmeasured_knobs};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Debug, Args)]
pub struct ProbeArgs {
    /// The agent's base URL, e.g. http://127.0.0.1:9000 (its Card is read under
    /// /.well-known/).
    url: String,
    /// Print the report as one JSON object.
    #[arg(long)]
    json: bool,
    /// How long (ms) a quiet stream is watched before it counts as staying open (up to ten
    /// minutes).
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u64).range(0..=600_000))]
    settle_ms: u64,
    /// Longest wait (s) for an answer, and for a whole read of a stream: a turn to reach
    /// the state the probe waits for, keep-alives and progress events or not (1 s to a day).
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    timeout_s: u64,
    /// Also write the personality that reproduces what the probe measured (the Card's
    /// claims, stream closing, reaping, resubscribe, follow-up, repeated states, cancel;
    /// other knobs at their defaults) to this file, ready for `serve --runtime FILE`. What
    /// the probe could not measure (all of the lifecycle, when the agent never asked for
    /// input) keeps its default, and the file's description and a note say which.
    #[arg(long, value_name = "FILE")]
    personality_out: Option<PathBuf>,
}

pub fn run(args: ProbeArgs) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("meshsim probe: cannot start the async runtime: {error}");
            return ExitCode::from(1);
        }
    };
    let wait = Duration::from_secs(args.timeout_s);
    let config = ProbeConfig {
        client: ClientConfig {
            request_timeout: wait,
            idle_timeout: wait,
            ..ClientConfig::default()
        },
        settle: Duration::from_millis(args.settle_ms),
        ..ProbeConfig::default()
    };
    let connector = TcpConnector::new(Duration::from_secs(5));
    let measured = runtime.block_on(probe(connector, &args.url, &config));
    let nothing_measured = measured.as_ref().ok().and_then(nothing_measured);
    if let (Ok(report), Some(path), None) = (&measured, &args.personality_out, nothing_measured) {
        let personality = personality_file(&probed_personality(report)) + "\n";
        if let Err(error) = std::fs::write(path, personality) {
            eprintln!(
                "meshsim probe: cannot write the personality to {}: {error}",
                path.display()
            );
            return ExitCode::from(2);
        }
        let unmeasured = unmeasured_knobs(report);
        if !unmeasured.is_empty() {
            eprintln!(
                "meshsim probe: {} leaves {} at their defaults: the probe could not measure them \
                 (see the notes)",
                path.display(),
                unmeasured.join(", ")
            );
        }
    }
    match measured {
        Ok(report) => {
            if args.json {
                match serde_json::to_string_pretty(&report) {
                    Ok(json) => output::print_line(&json),
                    Err(error) => {
                        eprintln!("meshsim probe: cannot print the report: {error}");
                        return ExitCode::from(1);
                    }
                }
            } else {
                output::print(&render(&report));
            }
            match nothing_measured {
                None => ExitCode::SUCCESS,
                Some(why) => {
                    let unwritten = match &args.personality_out {
                        Some(path) => format!(", and {} was not written", path.display()),
                        None => String::new(),
                    };
                    eprintln!(
                        "meshsim probe: {why} (see the notes): nothing was measured{unwritten}"
                    );
                    ExitCode::from(1)
                }
            }
        }
        Err(error @ ClientError::Url { .. }) => {
            eprintln!("meshsim probe: {error}");
            ExitCode::from(2)
        }
        Err(error) => {
            eprintln!("meshsim probe: {error}");
            ExitCode::from(1)
        }
    }
}

/// Why the probe measured nothing at all, when it did not: the endpoint never answered, or
/// answered without a task state (an HTTP error, an error event, an empty stream).
fn nothing_measured(report: &ProbeReport) -> Option<&'static str> {
    if !report.endpoint_answered {
        Some("the agent's Card was read, but the endpoint it names did not answer")
    } else if report.first_turn.is_empty() {
        Some("the agent's endpoint answered, but its first turn reported no task state")
    } else {
        None
    }
}

/// The report as a table of claims beside measurements, then the contradictions.
fn render(report: &ProbeReport) -> String {
    let card = &report.card;
    let claim =
        |value: Option<bool>| value.map_or("(absent)".to_string(), |value| value.to_string());
    let measured_bool = |value: Option<bool>| {
        value.map_or("unknown".to_string(), |value| {
            if value { "yes" } else { "no" }.to_string()
        })
    };
    let label = |value: Option<String>| value.unwrap_or_else(|| "unknown".to_string());
    let no_field = "(no Card field)".to_string();
    let rows = [
        ("streaming", claim(card.streaming), "-".to_string()),
        (
            "stateTransitionHistory",
            claim(card.state_transition_history),
            "-".to_string(),
        ),
        (
            "stream closes on input-required",
            no_field.clone(),
            measured_bool(report.stream_closes_on_input_required),
        ),
        (
            "task survives stream close",
            no_field.clone(),
            measured_bool(report.task_survives_stream_close),
        ),
        (
            "resubscribe after input-required",
            no_field.clone(),
            label(report.resubscribe_after_input_required.map(|b| b.label())),
        ),
        (
            "follow-up with same taskId",
            no_field,
            label(report.followup_same_task.map(|b| b.label().to_string())),
        ),
    ];
    let tenant = card
        .tenant
        .as_ref()
        .map(|tenant| format!(" as tenant {}", shown(tenant)))
        .unwrap_or_default();
    let mut out = format!(
        "meshsim probe {} ({} Card: {} {}; probed over {}{tenant})\n\n",
        report.url,
        card.dialect,
        shown(&card.name),
        shown(&card.version),
        report.binding
    );
    out.push_str(&format!(
        "{:<34} {:<18} {}\n",
        "", "Card claims", "measured"
    ));
    for (name, claimed, measured) in rows {
        out.push_str(&format!("{name:<34} {claimed:<18} {measured}\n"));
    }
    out.push('\n');
    out.push_str(&format!("first turn: {}\n", path(&report.first_turn)));
    if !report.reached_input_required {
        out.push_str("the agent never reached input-required: resumption was not measured\n");
    }
    if !report.followup_turn.is_empty() {
        out.push_str(&format!(
            "follow-up turn: {}\n",
            path(&report.followup_turn)
        ));
    }
    if let Some(get) = &report.get_after_followup {
        out.push_str(&format!("get after follow-up: {}\n", shown(get)));
    }
    if let Some(cancel) = &report.cancel {
        out.push_str(&format!("cancel at the end: {}\n", shown(cancel)));
    }
    out.push('\n');
    if report.contradictions.is_empty() {
        out.push_str("contradictions: none\n");
    } else {
        out.push_str(&format!(
            "contradictions ({}):\n",
            report.contradictions.len()
        ));
        for contradiction in &report.contradictions {
            out.push_str(&format!(
                "  - {}, but {}\n",
                contradiction.claim,
                shown(&contradiction.observed)
            ));
        }
    }
    for note in &report.notes {
        out.push_str(&format!("note: {}\n", shown(note)));
    }
    out
}

/// Text the agent chose (its Card's name and version, its error messages in the notes),
/// with control characters escaped: a line break or a terminal escape in it must not
/// forge a line of the report or repaint the terminal.
fn shown(text: &str) -> String {
    text.chars()
        .map(|character| {
            if character.is_control() {
                character.escape_default().to_string()
            } else {
                character.to_string()
            }
        })
        .collect()
}

fn path(states: &[TaskState]) -> String {
    if states.is_empty() {
        return "(no state)".to_string();
    }
    states
        .iter()
        .map(|state| state.name())
        .collect::<Vec<_>>()
        .join(" -> ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use meshsim_consumer::probe::CardClaims;
    use meshsim_protocol::{Binding, Dialect};

    #[test]
    fn what_the_agent_wrote_cannot_forge_a_line_or_repaint_the_terminal() {
        let forged = "evil\u{1b}[31mRED\ncontradictions: none\nnote: all good";
        let card = CardClaims {
            name: forged.to_string(),
            version: "1.0\r\n".to_string(),
            dialect: Dialect::V1_0,
            bindings: vec![Binding::JsonRpc],
            streaming: Some(true),
            push_notifications: None,
            state_transition_history: None,
            tenant: None,
        };
        let mut report =
            ProbeReport::unmeasured("http://agent:9000".to_string(), card, Binding::JsonRpc);
        report.endpoint_answered = true;
        report.cancel = Some(format!("failed: {forged}"));
        report.notes = vec![format!("first turn: {forged}")];
        let text = render(&report);
        assert!(!text.contains('\u{1b}') && !text.contains('\r'), "{text}");
        assert_eq!(
            text.lines()
                .filter(|line| line.starts_with("contradictions") || line.starts_with("note"))
                .count(),
            2,
            "{text}"
        );
        assert!(
            text.contains("evil\\u{1b}[31mRED\\ncontradictions: none\\nnote: all good 1.0\\r\\n"),
            "{text}"
        );
    }
}
