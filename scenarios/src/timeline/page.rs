//! The HTML around the timeline's SVG: what the run was, its verdict and violations, a
//! legend, the inline style sheet and the few lines of script that zoom.

use super::bands::{Judgement, TaskBands};
use super::draw::{esc, num, time};
use super::faults::Window;
use crate::run::{RunResult, Verdict};
use std::fmt::Write;

const STYLE: &str = r#"
body { font: 13px/1.4 system-ui, sans-serif; margin: 12px 16px; color: #222; background: #fff; }
h1 { font-size: 17px; margin: 0 0 4px; }
code { background: #f3f3f3; padding: 1px 4px; }
.verdict-violated { color: #b00; font-weight: bold; }
.verdict-holds { color: #070; font-weight: bold; }
table.violations { border-collapse: collapse; margin: 6px 0; }
table.violations td, table.violations th { border: 1px solid #ddd; padding: 2px 6px; text-align: left; vertical-align: top; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 14px; margin: 6px 0; font-size: 12px; }
.legend span { display: inline-flex; align-items: center; gap: 4px; }
.swatch { display: inline-block; width: 18px; height: 10px; border: 1px solid #999; }
.controls { margin: 6px 0; }
.scroll { overflow: auto; border: 1px solid #ccc; max-height: 85vh; }
svg.timeline { display: block; font-family: ui-monospace, monospace; font-size: 10px; }
svg .axis { stroke: #444; }
svg .grid { stroke: #eee; }
svg .tick { fill: #666; }
svg .gap { fill: #a00; font-size: 14px; font-weight: bold; }
svg .lane-line { stroke: #888; stroke-width: 2; }
svg .lane-name { font-size: 13px; font-weight: bold; fill: #111; }
svg .lane-role { fill: #666; }
svg .section { font-size: 12px; font-weight: bold; fill: #333; }
svg .arrow { stroke-width: 1.3; }
svg .request { stroke: #1f6fb4; }
svg .response { stroke: #2a9a2a; }
svg .stream-event { stroke: #8a4fc0; }
svg .stream-close { stroke: #8c564b; stroke-dasharray: 4 2; }
svg .connect-failed { stroke: #d62728; stroke-dasharray: 2 2; }
svg .label-request { fill: #1f6fb4; }
svg .label-response { fill: #2a7a2a; }
svg .label-stream-event { fill: #7a3fb0; }
svg .label-stream-close { fill: #8c564b; }
svg .label-connect-failed { fill: #d62728; }
svg circle.mark { fill: #555; }
svg circle.alarm { fill: #e07000; }
svg text.mark { fill: #333; }
svg text.alarm { fill: #c05000; font-weight: bold; }
svg .fault { stroke: none; }
svg .fault-partition, svg .fault-partition_oneway { fill: url(#hatch-partition); }
svg .fault-hold { fill: url(#hatch-hold); }
svg .fault-crash { fill: rgba(60,60,60,0.22); }
svg .fault-latency, svg .fault-loss { fill: rgba(230,180,0,0.15); }
svg .fault-instant { stroke: #444; stroke-width: 2; stroke-dasharray: 6 3; }
svg .fault-label { fill: #333; font-weight: bold; }
svg .task-name { font-size: 12px; font-weight: bold; fill: #111; }
svg .task-where { fill: #666; }
svg .band-name { fill: #666; text-anchor: end; }
svg .step { stroke: #fff; stroke-width: 0.5; }
svg .step-name { fill: #222; pointer-events: none; }
svg .state-submitted { fill: #c6dbef; }
svg .state-working { fill: #6baed6; }
svg .state-input-required, svg .state-auth-required { fill: #fdae6b; }
svg .state-completed { fill: #74c476; }
svg .state-failed, svg .state-rejected { fill: #bdbdbd; }
svg .state-canceled { fill: #dadaeb; }
svg .state-unknown { fill: #eeeeee; }
svg .state-reaped, svg .state-lost { fill: url(#hatch-gone); }
svg .state-abandoned { fill: #f0f0f0; stroke: #bbb; stroke-dasharray: 2 2; }
svg .divergence { fill: rgba(220,0,0,0.55); stroke: #c00; stroke-width: 1; }
svg .lag { fill: rgba(255,190,0,0.30); stroke: none; }
svg .double-count { stroke: #c00; stroke-width: 3; }
svg .double-count-label { fill: #c00; font-weight: bold; }
svg .violation-line { stroke: #d00; stroke-width: 1.5; stroke-dasharray: 5 3; }
svg .violation-name { fill: #d00; font-weight: bold; font-size: 11px; }
svg .violation-pin { fill: #d00; }
svg .holds { fill: #070; font-weight: bold; }
"#;

const DEFS: &str = r##"<defs>
<marker id="head-request" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0 L8 4 L0 8 z" fill="#1f6fb4"/></marker>
<marker id="head-response" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0 L8 4 L0 8 z" fill="#2a9a2a"/></marker>
<marker id="head-stream-event" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0 L8 4 L0 8 z" fill="#8a4fc0"/></marker>
<marker id="head-stream-close" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0 L8 4 L0 8 z" fill="#8c564b"/></marker>
<marker id="head-connect-failed" viewBox="0 0 8 8" refX="4" refY="4" markerWidth="8" markerHeight="8"><path d="M0 0 L8 8 M8 0 L0 8" stroke="#d62728" stroke-width="2"/></marker>
<pattern id="hatch-partition" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="8" height="8" fill="rgba(255,140,0,0.10)"/><line x1="0" y1="0" x2="0" y2="8" stroke="rgba(230,110,0,0.45)" stroke-width="3"/></pattern>
<pattern id="hatch-hold" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(-45)"><rect width="8" height="8" fill="rgba(0,120,255,0.08)"/><line x1="0" y1="0" x2="0" y2="8" stroke="rgba(0,100,230,0.35)" stroke-width="3"/></pattern>
<pattern id="hatch-gone" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#f4f4f4"/><line x1="0" y1="0" x2="0" y2="6" stroke="#999" stroke-width="2"/></pattern>
</defs>"##;

const SCRIPT: &str = r#"
(function () {
  var svg = document.getElementById('timeline');
  var w = +svg.getAttribute('width'), h = +svg.getAttribute('height'), zoom = 1;
  function apply() { svg.setAttribute('width', w * zoom); svg.setAttribute('height', h * zoom); document.getElementById('zoom-level').textContent = Math.round(zoom * 100) + '%'; }
  document.getElementById('zoom-in').onclick = function () { zoom *= 1.25; apply(); };
  document.getElementById('zoom-out').onclick = function () { zoom /= 1.25; apply(); };
  document.getElementById('zoom-reset').onclick = function () { zoom = 1; apply(); };
})();
"#;

/// The whole page.
pub fn page(
    result: &RunResult,
    tasks: &[TaskBands],
    windows: &[Window],
    width: f64,
    height: f64,
    svg_body: &str,
) -> String {
    let command = result.spec.replay_command();
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>meshsim timeline: seed {} {} {} {} {}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        result.spec.seed.value(),
        esc(&result.spec.scenario.to_string()),
        esc(&result.spec.runtime.label),
        esc(result.spec.consumer.name()),
        result.spec.dialect
    );
    let _ = writeln!(
        out,
        "<h1>{} consumer against {} — seed {}, {}, {}</h1>",
        esc(result.spec.consumer.name()),
        esc(&result.spec.runtime.label),
        result.spec.seed.value(),
        esc(&result.spec.scenario.to_string()),
        result.spec.dialect
    );
    let _ = writeln!(out, "<p>replay: <code>{}</code></p>", esc(&command));
    let (class, verdict) = match result.verdict {
        Verdict::Holds => ("verdict-holds", "holds"),
        Verdict::Violated => ("verdict-violated", "VIOLATED"),
    };
    let diverging = tasks
        .iter()
        .filter(|task| task.spans.iter().any(|s| s.judgement == Judgement::Diverge))
        .count();
    let doubles: usize = tasks.iter().map(|task| task.double_counts.len()).sum();
    let _ = writeln!(
        out,
        "<p>verdict: <span class=\"{class}\" id=\"verdict\">{verdict}</span> after {} simulated ({}); {} task(s), {} diverging, {} double count(s); {} fault window(s); trace hash <code>{}</code></p>",
        time(result.elapsed_ms as f64),
        if result.converged {
            "converged"
        } else {
            "did not converge"
        },
        tasks.len(),
        diverging,
        doubles,
        windows.len(),
        esc(&result.trace_hash)
    );
    if !result.violations.is_empty() {
        out.push_str("<table class=\"violations\"><tr><th>invariant</th><th>at</th><th>job</th><th>task</th><th>detail</th></tr>\n");
        for violation in &result.violations {
            let _ = writeln!(
                out,
                "<tr class=\"violation-row\"><td>{}</td><td>{} ms</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                violation.invariant,
                violation.at_ms,
                esc(&violation.job),
                esc(violation.task.as_deref().unwrap_or("-")),
                esc(&violation.detail)
            );
        }
        out.push_str("</table>\n");
    }
    out.push_str(LEGEND);
    out.push_str("<div class=\"controls\"><button id=\"zoom-out\" type=\"button\">−</button> <button id=\"zoom-reset\" type=\"button\">100%</button> <button id=\"zoom-in\" type=\"button\">+</button> <span id=\"zoom-level\">100%</span> · hover anything for details · the time axis is piecewise: bursts are spread out, quiet stretches drawn short (≈)</div>\n");
    let _ = writeln!(
        out,
        "<div class=\"scroll\"><svg id=\"timeline\" class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\">\n{DEFS}",
        num(width),
        num(height),
        num(width),
        num(height)
    );
    out.push_str(svg_body);
    out.push_str("</svg></div>\n<script>");
    out.push_str(SCRIPT);
    out.push_str("</script>\n</body>\n</html>\n");
    out
}

const LEGEND: &str = r##"<div class="legend">
<span><svg width="22" height="10"><line x1="0" y1="5" x2="22" y2="5" stroke="#1f6fb4" stroke-width="2"/></svg>request (method)</span>
<span><svg width="22" height="10"><line x1="0" y1="5" x2="22" y2="5" stroke="#2a9a2a" stroke-width="2"/></svg>response</span>
<span><svg width="22" height="10"><line x1="0" y1="5" x2="22" y2="5" stroke="#8a4fc0" stroke-width="2"/></svg>stream event (state)</span>
<span><svg width="22" height="10"><line x1="0" y1="5" x2="22" y2="5" stroke="#8c564b" stroke-width="2" stroke-dasharray="4 2"/></svg>stream close</span>
<span><svg width="22" height="10"><line x1="0" y1="5" x2="22" y2="5" stroke="#d62728" stroke-width="2" stroke-dasharray="2 2"/></svg>failed connect</span>
<span><i class="swatch" style="background:repeating-linear-gradient(45deg,rgba(230,110,0,.45) 0 3px,rgba(255,140,0,.1) 3px 8px)"></i>partition</span>
<span><i class="swatch" style="background:repeating-linear-gradient(-45deg,rgba(0,100,230,.35) 0 3px,rgba(0,120,255,.08) 3px 8px)"></i>hold</span>
<span><i class="swatch" style="background:rgba(60,60,60,.22)"></i>crashed</span>
<span><i class="swatch" style="background:#c6dbef"></i>submitted</span>
<span><i class="swatch" style="background:#6baed6"></i>working</span>
<span><i class="swatch" style="background:#fdae6b"></i>input-required</span>
<span><i class="swatch" style="background:#74c476"></i>completed</span>
<span><i class="swatch" style="background:repeating-linear-gradient(45deg,#999 0 2px,#f4f4f4 2px 6px)"></i>reaped / lost</span>
<span><i class="swatch" style="background:rgba(220,0,0,.55)"></i>view diverges from truth</span>
<span><i class="swatch" style="background:rgba(255,190,0,.3)"></i>view lags truth</span>
<span><i class="swatch" style="background:#c00;width:3px"></i>double count (state ×n)</span>
<span style="color:#d00;font-weight:bold">✖ invariant violated</span>
<span>Answers are drawn at the server's send time (arrival is not traced).</span>
</div>
"##;
