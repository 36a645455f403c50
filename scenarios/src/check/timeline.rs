//! A check run that did not hold, as one self-contained HTML page (no script, nothing
//! fetched): the verdict and how to rerun it, the faults that struck, every call the proxy
//! relayed and how it ended, and per task the runtime's own record beside what the
//! consumer program reported applying.

use super::run::CheckResult;
use crate::timeline::esc;
use meshsim_runtimes::Fate;
use std::fmt::Write;

const STYLE: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:2em;max-width:70em}\
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:.2em .6em;\
text-align:left;vertical-align:top}th{background:#f3f3f3}.bad{color:#b00}code{font-size:13px}\
.tasks{display:flex;gap:2em;flex-wrap:wrap}";

/// The page of `result`.
pub fn render(result: &CheckResult) -> String {
    let spec = &result.spec;
    let title = format!(
        "{} seed {} {} {} ({})",
        spec.name,
        spec.seed.value(),
        spec.scenario,
        spec.runtime.label,
        spec.dialect
    );
    let mut page = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>{}</title><style>{STYLE}</style></head><body>\n<h1>{}: <span class=\"bad\">{}</span></h1>\n<p>rerun: <code>{}</code></p>\n<p>{}</p>\n",
        esc(&title),
        esc(&title),
        result.verdict.name(),
        esc(&spec.rerun_command()),
        esc(&result.machine_line())
    );
    page.push_str("<h2>Problems</h2><ul>\n");
    for problem in result.problems() {
        let _ = writeln!(page, "<li class=\"bad\">{}</li>", esc(&problem));
    }
    page.push_str("</ul>\n<h2>Faults struck</h2>\n");
    if result.strikes.is_empty() {
        page.push_str("<p>none</p>\n");
    } else {
        page.push_str("<ul>\n");
        for strike in &result.strikes {
            let _ = writeln!(page, "<li>{}</li>", esc(&strike.to_string()));
        }
        page.push_str("</ul>\n");
    }
    page.push_str(
        "<h2>What the proxy relayed</h2>\n<table><tr><th>ended at (ms)</th><th>agent</th><th>job</th><th>call</th><th>request</th><th>answer</th><th>events</th><th>how it ended</th></tr>\n",
    );
    for exchange in &result.exchanges {
        let _ = writeln!(
            page,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{} {}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            exchange.at_ms,
            esc(&exchange.agent),
            esc(&exchange.job),
            exchange
                .call
                .map(|call| call.to_string())
                .unwrap_or_default(),
            esc(&exchange.method),
            esc(&exchange.path),
            match (&exchange.refusal, exchange.streamed) {
                (Some(refusal), _) => format!("<span class=\"bad\">{}</span>", esc(refusal)),
                (None, true) => "stream".to_string(),
                (None, false) => "answer".to_string(),
            },
            exchange.events,
            esc(&exchange.end)
        );
    }
    page.push_str("</table>\n<h2>Tasks: the runtime's record and the consumer's report</h2>\n");
    page.push_str(&tasks(result));
    page.push_str("</body></html>\n");
    page
}

/// Per task the runtime knows or the consumer reported: its transitions (ms since the run
/// started) and fate, beside the states the consumer applied and where each came from.
fn tasks(result: &CheckResult) -> String {
    let mut ids: Vec<(String, String)> = Vec::new();
    for (host, records) in &result.truths {
        for record in records {
            let key = (host.clone(), record.id.clone());
            if !ids.contains(&key) {
                ids.push(key);
            }
        }
    }
    for report in &result.reports {
        for view in &report.tasks {
            if !ids.iter().any(|(_, id)| *id == view.task_id) {
                ids.push(("?".to_string(), view.task_id.clone()));
            }
        }
    }
    let mut out = String::new();
    for (host, id) in ids {
        let _ = writeln!(
            out,
            "<h3>{} on {}</h3><div class=\"tasks\">",
            esc(&id),
            esc(&host)
        );
        out.push_str("<table><tr><th colspan=\"2\">runtime</th></tr>\n");
        let records = result.truths.get(&host).into_iter().flatten();
        for record in records.filter(|record| record.id == id) {
            for transition in &record.transitions {
                let _ = writeln!(
                    out,
                    "<tr><td>{} ms</td><td>{}</td></tr>",
                    transition.at.as_millis(),
                    transition.to
                );
            }
            match &record.fate {
                Some(Fate::Reaped { at, reason }) => {
                    let _ = writeln!(
                        out,
                        "<tr class=\"bad\"><td>{} ms</td><td>reaped ({})</td></tr>",
                        at.as_millis(),
                        esc(reason)
                    );
                }
                Some(Fate::Lost { at }) => {
                    let _ = writeln!(
                        out,
                        "<tr class=\"bad\"><td>{} ms</td><td>lost in a restart</td></tr>",
                        at.as_millis()
                    );
                }
                None => {}
            }
        }
        out.push_str("</table>\n<table><tr><th colspan=\"2\">consumer</th></tr>\n");
        for report in &result.reports {
            let Some(view) = report.task(&id) else {
                continue;
            };
            for applied in &view.applied {
                let _ = writeln!(
                    out,
                    "<tr><td>call {}, event {}</td><td>{}</td></tr>",
                    applied.at.connection, applied.at.index, applied.to
                );
            }
            if let Some(abandoned) = &view.abandoned {
                let _ = writeln!(
                    out,
                    "<tr><td>abandoned</td><td>{}</td></tr>",
                    esc(&abandoned.reason)
                );
            }
        }
        out.push_str("</table></div>\n");
    }
    out
}
