//! meshsim against the real Python SDK, a2a-sdk[http-server] 1.3.0 from PyPI, installed by
//! `interop/install.sh` into `target/interop/venv`, running `interop/python/agent.py` (the
//! origin incident's script) on loopback: `meshsim probe` measures it; the client decodes everything
//! it sends in v1.0 and, through the SDK's compatibility layer, v0.3; the reconciling
//! consumer completes a task through `input-required`; and the `a2a-python-1.3`
//! personality, served by `meshsim serve`, measures the same profile in both dialects, as
//! does the personality file `meshsim probe --personality-out` writes of the SDK. The
//! SDK's own client (`interop/python/client.py`) is the witness of every built-in
//! personality in v1.0 and v0.3, and over the v1.0 HTTP+JSON binding. A `ListTasks` status
//! outside the proto is read as the SDK reads it.
//!
//! One agent process serves every step and is killed when the test ends, pass or fail.

use crate::support::calibration::{assert_calibrated, assert_documented_lifecycle};
use crate::support::decoding::{play_script, raw_error, reasons, reconciling_completes};
use crate::support::list_filter::{one_task, status_filter_counts};
use crate::support::process::{probe, probe_into_personality, start_agent, start_mock};
use crate::support::witness::{
    witness_every_personality, witness_every_personality_over_http_json,
};
use crate::support::{Sdk, install, install_dir, runtime};
use meshsim_protocol::{Dialect, ErrorCode, Method};
use serde_json::json;

const SDK: Sdk = Sdk::Python;

#[test]
fn a2a_python_sdk_interop_and_calibration() {
    let Some(()) = install(&[SDK]) else { return };
    let (agent, base) = start_agent(SDK);
    // The same agent for a client that speaks only v0.3 (its Card there declares v0.3).
    let v03 = format!("{base}/v03");

    // The client decodes every event and error of the script, in both dialects.
    let runtime = runtime();
    runtime.block_on(play_script(SDK, &base, Dialect::V1_0));
    runtime.block_on(play_script(SDK, &v03, Dialect::V0_3));

    // A v1.0 call without `A2A-Version` is taken for 0.3 and refused with ErrorInfo.
    let get = json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "x"}});
    let refused = raw_error(&base, &[], &get, Dialect::V1_0, Method::GetTask);
    assert_eq!(refused.code, ErrorCode::VersionNotSupported, "{refused:?}");
    assert_eq!(reasons(&refused), ["VERSION_NOT_SUPPORTED"], "{refused:?}");
    // v0.1 method names are unknown to it.
    let send = json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/send", "params": {}});
    let header = [("A2A-Version", "1.0")];
    let unknown = raw_error(&base, &header, &send, Dialect::V1_0, Method::SendMessage);
    assert_eq!(unknown.code, ErrorCode::MethodNotFound, "{unknown:?}");

    runtime.block_on(reconciling_completes(SDK, &base));

    // A `ListTasks` status outside the proto (what @a2a-js/sdk's client sends for no
    // filter) is read as the real SDK reads it: a name is dropped, so every task is listed;
    // a number filters on a state no task is in.
    let real = status_filter_counts(&base);
    assert!(real[0] > 0, "the script left tasks: {real:?}");
    assert_eq!(real, [real[0], real[0], real[0], 0], "a2a-sdk 1.3.0");
    let (_mock, mock_url) = start_mock(SDK.personality(), "v1.0");
    one_task(&mock_url);
    assert_eq!(
        status_filter_counts(&mock_url),
        [1, 1, 1, 0],
        "{}",
        SDK.personality()
    );

    // Calibration: the probe measures the personality as it measures the SDK; and the
    // personality file the probe writes of the SDK, served, probes the same.
    for (dialect, url) in [(Dialect::V1_0, &base), (Dialect::V0_3, &v03)] {
        let learned = install_dir().join(format!("{}-{dialect}-probed.json", SDK.name()));
        let real = probe_into_personality(url, &learned);
        assert_documented_lifecycle(&format!("meshsim probe {url}"), &real);
        let (_mock, mock_url) = start_mock(SDK.personality(), dialect.name());
        let personality = probe(&mock_url);
        assert_calibrated(
            &format!("{} against a2a-sdk 1.3.0 in {dialect}", SDK.personality()),
            &real,
            &personality,
        );
        let learned_path = learned.to_str().expect("a UTF-8 path");
        let (_served, served_url) = start_mock(learned_path, dialect.name());
        assert_calibrated(
            &format!(
                "the personality `meshsim probe {url} --personality-out` wrote, served in {dialect}"
            ),
            &real,
            &probe(&served_url),
        );
    }
    drop(agent);
}

/// The official a2a-sdk client as a witness of every built-in personality in each dialect
/// it speaks (v1.0, and v0.3 through its compatibility layer, chosen from the Card): it
/// parses the documented lifecycle, and after it exactly what the runtime serves for each
/// task it read back (`support::witness`).
#[test]
fn the_official_python_client_reads_back_every_personality() {
    let Some(()) = install(&[SDK]) else { return };
    witness_every_personality(SDK);
}

/// The same witness over the v1.0 HTTP+JSON binding: the client, allowed only that binding,
/// finds it in the Card of every built-in personality and reads back the completed
/// lifecycle through it.
#[test]
fn the_official_python_client_reads_back_every_personality_over_http_json() {
    let Some(()) = install(&[SDK]) else { return };
    witness_every_personality_over_http_json();
}
