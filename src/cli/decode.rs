//! `meshsim decode [--dialect v0.1|v0.3|v1.0] [FILE|-]`: reads one JSON document (a Card, a
//! JSON-RPC request, a response, an error, or the payload of one SSE `data:` line), detects
//! its dialect unless told, and prints the normalised model as JSON. Undecodable input exits
//! with status 2 and a message naming the dialect and the field at fault. Enum values outside
//! the spec (a role, task state, part kind or protocol binding, e.g. @a2a-js/sdk's `UNRECOGNIZED`) are
//! read as unknown, as proto3 JSON readers do: each is a warning on stderr and an entry of the
//! report's `warnings`, and the document still decodes.

use crate::cli::output;
use clap::Args;
use meshsim_protocol::detect::{self, Detection};
use meshsim_protocol::unrecognised;
use meshsim_protocol::{DecodeError, Dialect, RpcResponse, RpcResult, StreamEvent};
use serde_json::{Map, Value, json};
use std::io::Read;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct DecodeArgs {
    /// The dialect to read; detected from the document when omitted.
    #[arg(long)]
    dialect: Option<Dialect>,
    /// The document to read (at most 4 MiB), or `-` for standard input.
    #[arg(default_value = "-")]
    input: String,
}

/// Why decoding stopped: the input (file or standard input) is unreadable or not a
/// document of the dialect. Bad input, status 2.
struct Failure(String);

pub fn run(args: DecodeArgs) -> ExitCode {
    match decode(&args) {
        Ok((report, detection)) => {
            if let Some(detection) = detection {
                eprintln!(
                    "meshsim decode: detected {} ({})",
                    detection.dialect, detection.reason
                );
            }
            for warning in report["warnings"].as_array().into_iter().flatten() {
                eprintln!(
                    "meshsim decode: warning: {}",
                    warning.as_str().unwrap_or_default()
                );
            }
            output::print_line(
                &serde_json::to_string_pretty(&report).expect("JSON values serialise"),
            );
            ExitCode::SUCCESS
        }
        Err(Failure(message)) => {
            eprintln!("meshsim decode: {message}");
            ExitCode::from(2)
        }
    }
}

/// The largest document decoded: four times what `meshsim serve` takes as a request body
/// by default. Decoding holds several trees of a document at once, and one of millions of
/// tiny parts took over a hundred times its size in memory.
const MOST_INPUT_BYTES: u64 = 4 << 20;

fn read_input(input: &str) -> Result<String, Failure> {
    let (source, shown): (Box<dyn Read>, String) = if input == "-" {
        (Box::new(std::io::stdin()), "stdin".to_string())
    } else {
        // A file that cannot be read is a bad argument, like any other.
        let file = std::fs::File::open(input)
            .map_err(|error| Failure(format!("cannot read {input}: {error}")))?;
        (Box::new(file), input.to_string())
    };
    let mut text = String::new();
    source
        .take(MOST_INPUT_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|error| Failure(format!("cannot read {shown}: {error}")))?;
    if text.len() as u64 > MOST_INPUT_BYTES {
        return Err(Failure(format!(
            "{shown} is larger than the {MOST_INPUT_BYTES} bytes decode reads"
        )));
    }
    Ok(text)
}

fn decode(args: &DecodeArgs) -> Result<(Value, Option<Detection>), Failure> {
    let text = read_input(&args.input)?;
    // Accept a whole SSE line as well as its payload.
    let payload = text.trim();
    let payload = payload.strip_prefix("data:").unwrap_or(payload).trim();
    let json: Value = serde_json::from_str(payload)
        .map_err(|error| Failure(format!("input is not JSON: {error}")))?;
    let (dialect, detection) = match args.dialect {
        Some(dialect) => (dialect, None),
        None => {
            let detection = detect::detect(&json).ok_or_else(|| {
                Failure(
                    "cannot tell the dialect of this document; pass --dialect v0.1|v0.3|v1.0"
                        .to_string(),
                )
            })?;
            (detection.dialect, Some(detection))
        }
    };
    let how = match &detection {
        Some(detection) => format!(" (detected: {})", detection.reason),
        None => String::new(),
    };
    let undecodable = |error: DecodeError| {
        Failure(format!(
            "not a valid {} document{how}: field `{}`: {}",
            error.dialect, error.field, error.problem
        ))
    };
    let codec = dialect.codec();
    let mut report = Map::new();
    report.insert("dialect".into(), json!(dialect.name()));
    if let Some(detection) = &detection {
        report.insert("detected_from".into(), json!(detection.reason));
    }
    let warnings: Vec<String> = unrecognised::scan(dialect, &json)
        .iter()
        .map(ToString::to_string)
        .collect();
    if !warnings.is_empty() {
        report.insert("warnings".into(), json!(warnings));
    }
    if detect::is_card(&json) {
        let card = codec.decode_card(&json).map_err(undecodable)?;
        report.insert("kind".into(), json!("card"));
        report.insert("model".into(), json!(card));
    } else if json.get("method").is_some() {
        let request = codec.decode_request(&json).map_err(undecodable)?;
        report.insert("kind".into(), json!("request"));
        report.insert("method".into(), json!(request.request.method()));
        report.insert("model".into(), json!(request));
    } else {
        let response = codec.decode_response(&json, None).map_err(undecodable)?;
        describe_response(&response, &mut report);
        report.insert("model".into(), json!(response));
    }
    Ok((Value::Object(report), detection))
}

/// `kind`, and the task `state` or error `code` where there is one.
fn describe_response(response: &RpcResponse, report: &mut Map<String, Value>) {
    let (kind, state, task_id) = match &response.outcome {
        Err(error) => {
            report.insert("code".into(), json!(error.code.code()));
            report.insert("reason".into(), json!(error.code.reason()));
            report.insert("message".into(), json!(error.message));
            ("error", None, None)
        }
        Ok(RpcResult::Task(task)) => ("result", Some(task.status.state), Some(task.id.as_str())),
        Ok(RpcResult::Message(message)) => ("result", None, message.task_id.as_deref()),
        Ok(RpcResult::TaskList(_)) => ("result", None, None),
        Ok(RpcResult::Event(event)) => {
            let name = match event {
                StreamEvent::Task(_) => "task",
                StreamEvent::Message(_) => "message",
                StreamEvent::StatusUpdate(update) => {
                    if let Some(is_final) = update.is_final {
                        report.insert("final".into(), json!(is_final));
                    }
                    "status-update"
                }
                StreamEvent::ArtifactUpdate(_) => "artifact-update",
            };
            report.insert("event".into(), json!(name));
            ("event", event.state(), event.task_id())
        }
    };
    report.insert("kind".into(), json!(kind));
    if let Some(task_id) = task_id {
        report.insert("task_id".into(), json!(task_id));
    }
    if let Some(state) = state {
        report.insert("state".into(), json!(state.name()));
    }
}
