//! `meshsim consume`: a built-in consumer as a program that follows the check contract,
//! so that `meshsim check` judges it like any other program (and its verdicts can be
//! compared with the simulation's).

use super::contract::{Order, report_lines};
use crate::consumer_choice::{BuiltinConsumer, builtin_over};
use meshsim_consumer::TcpConnector;
use std::io::Write;
use std::time::Duration;

/// Runs `kind` on the job of `order` over real TCP and writes its report where the order
/// says.
pub fn consume(kind: BuiltinConsumer, order: &Order) -> Result<(), String> {
    let executor = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| format!("cannot start the async runtime: {error}"))?;
    let consumer = builtin_over(kind, TcpConnector::new(Duration::from_secs(1)), order.seed);
    let report = executor.block_on(consumer.run(order.job.clone()));
    let mut text = Vec::new();
    for line in report_lines(&report) {
        serde_json::to_writer(&mut text, &line).map_err(|error| error.to_string())?;
        text.push(b'\n');
    }
    std::fs::File::create(&order.report)
        .and_then(|mut file| file.write_all(&text))
        .map_err(|error| {
            format!(
                "cannot write the report {}: {error}",
                order.report.display()
            )
        })
}
