//! The timeline page of the origin incident, read back with a real HTML5 parser: a lane
//! per host, arrows between them, the double count and the lost task in red, and every
//! violation marked with its name.

use meshsim_protocol::Dialect;
use meshsim_scenarios::timeline::{self, TimelineError};
use meshsim_scenarios::{
    ConsumerChoice, DEFAULT_TICK, Faults, RunOptions, RunResult, RunSpec, RuntimeChoice, Scenario,
    run,
};
use meshsim_sim::Seed;
use scraper::{ElementRef, Html, Selector};
use std::collections::BTreeSet;

fn incident(runtime: &str, keep_trace: bool) -> RunResult {
    let spec = RunSpec {
        seed: Seed::new(7),
        scenario: Scenario::OriginIncident,
        runtime: RuntimeChoice::resolve(runtime).expect("a built-in runtime"),
        consumer: ConsumerChoice::Naive,
        dialect: Dialect::V1_0,
        faults: Faults::None,
        job_limit: None,
        tick: DEFAULT_TICK,
    };
    let options = RunOptions {
        keep_trace,
        ..RunOptions::default()
    };
    run(&spec, &options).expect("the run is carried out")
}

fn select<'a>(page: &'a Html, css: &str) -> Vec<ElementRef<'a>> {
    let selector = Selector::parse(css).expect("a valid selector");
    page.select(&selector).collect()
}

fn attr<'a>(element: &ElementRef<'a>, name: &str) -> &'a str {
    element.value().attr(name).unwrap_or_default()
}

fn texts(page: &Html, css: &str) -> Vec<String> {
    select(page, css)
        .iter()
        .map(|element| {
            // The element's own text, without its tooltip (`<title>`).
            element
                .children()
                .filter_map(|child| child.value().as_text().map(|text| text.to_string()))
                .collect::<String>()
        })
        .collect()
}

fn parse(html: &str) -> Html {
    let page = Html::parse_document(html);
    assert!(
        page.errors.is_empty(),
        "the page is not clean HTML5: {:?}",
        page.errors
    );
    page
}

#[test]
fn the_naive_consumer_against_go_replaying_shows_the_double_count() {
    let result = incident("go-replaying", true);
    let html = timeline::render(&result).expect("the run kept its trace");
    let page = parse(&html);

    let lanes: Vec<&str> = select(&page, "svg g.lane")
        .iter()
        .map(|g| attr(g, "data-host"))
        .collect();
    assert_eq!(
        lanes,
        ["consumer", "agent"],
        "one lane per host, the consumer first"
    );

    let requests = select(&page, "svg line.arrow.request");
    assert!(
        requests.len() >= 4,
        "card, send, resubscribe, follow-up: {}",
        requests.len()
    );
    for request in &requests {
        assert_eq!(
            (attr(request, "data-from"), attr(request, "data-to")),
            ("consumer", "agent")
        );
    }
    assert!(select(&page, "svg line.arrow.response").len() >= 4);
    assert!(select(&page, "svg line.arrow.stream-event").len() >= 6);
    assert!(select(&page, "svg line.arrow.stream-close").len() >= 2);
    let request_labels = texts(&page, "svg text.label-request");
    for method in ["GET card", "resubscribe (stream)", "follow-up (stream)"] {
        assert!(
            request_labels.iter().any(|label| label.starts_with(method)),
            "no request labelled {method}: {request_labels:?}"
        );
    }

    // The replayed history: the consumer applies `submitted` again while the runtime
    // is at input-required.
    let task = select(&page, "svg g.task");
    assert_eq!(task.len(), 1, "one task");
    let red = select(&page, "svg g.task rect.divergence");
    assert!(
        red.iter().any(|span| attr(span, "data-view") == "submitted"
            && attr(span, "data-truth") == "input-required"),
        "no red span where the view went back to submitted"
    );
    let doubles = texts(&page, "svg text.double-count-label");
    for state in ["submitted ×2", "working ×2", "input-required ×2"] {
        assert!(
            doubles.iter().any(|d| d == state),
            "{state} not marked: {doubles:?}"
        );
    }

    let marked: BTreeSet<String> = select(&page, "svg g.violation")
        .iter()
        .map(|g| attr(g, "data-invariant").to_string())
        .collect();
    let violated: BTreeSet<String> = result
        .violations
        .iter()
        .map(|v| v.invariant.to_string())
        .collect();
    assert!(violated.contains("no-double-apply"), "{violated:?}");
    assert_eq!(marked, violated, "each violation is marked");
    let names = texts(&page, "svg g.violation text.violation-name");
    assert!(
        names.iter().any(|name| name == "✖ no-double-apply"),
        "{names:?}"
    );
}

#[test]
fn the_naive_consumer_against_jvm_reaping_shows_the_lost_task() {
    let result = incident("jvm-reaping", true);
    let page = parse(&timeline::render(&result).expect("the run kept its trace"));
    let first = &result.reports[0].tasks[0].task_id;
    let tasks = select(&page, "svg g.task");
    let believed = tasks
        .iter()
        .find(|g| attr(g, "data-task") == first)
        .expect("the consumer's task has bands");
    let reaped = Selector::parse("rect.truth-step.state-reaped").expect("selector");
    assert!(
        believed.select(&reaped).next().is_some(),
        "the truth band shows it reaped"
    );
    let red = Selector::parse("rect.divergence").expect("selector");
    let end = format!("{:.1}", result.elapsed_ms as f64);
    assert!(
        believed
            .select(&red)
            .any(|span| attr(&span, "data-truth") == "reaped"
                && attr(&span, "data-view") == "input-required"
                && attr(&span, "data-to-ms") == end),
        "the consumer believes in the reaped task until the end, in red"
    );
    assert!(
        tasks.len() > 1,
        "the follow-ups' fresh tasks have bands too"
    );
    assert!(
        select(&page, "svg g.violation")
            .iter()
            .any(|g| attr(g, "data-invariant") == "view-matches-truth")
    );
}

#[test]
fn the_page_is_self_contained_and_the_same_run_draws_the_same_bytes() {
    let html = timeline::render(&incident("go-replaying", true)).expect("trace kept");
    let again = timeline::render(&incident("go-replaying", true)).expect("trace kept");
    assert!(
        html == again,
        "two runs of the same seed drew different pages"
    );
    let page = parse(&html);
    assert!(select(&page, "[src], link, img, iframe, object, embed").is_empty());
    assert!(
        select(&page, "[href]").is_empty(),
        "nothing refers outside the page"
    );
    assert!(select(&page, "svg").len() > 1, "inline SVG");
    assert_eq!(select(&page, "style").len(), 1, "inline CSS");
}

#[test]
fn a_run_without_its_trace_cannot_be_drawn() {
    let result = incident("go-replaying", false);
    assert_eq!(timeline::render(&result), Err(TimelineError::NoTrace));
}
