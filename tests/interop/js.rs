//! meshsim against the real JavaScript SDK, @a2a-js/sdk 1.3.0 (with express) from npm,
//! installed by `interop/install.sh` into `target/interop/node`, running
//! `interop/js/agent.mjs` (the origin incident's script) on loopback: `meshsim probe` measures it; the client decodes everything
//! it sends in v1.0 and, through the SDK's compatibility layer, v0.3; the reconciling
//! consumer completes a task through `input-required`; and the `a2a-js-1.3`
//! personality, served by `meshsim serve`, measures the same profile in both dialects. The
//! SDK's own client (`interop/js/client.mjs`) is the witness of every built-in personality
//! in v1.0 and v0.3.
//!
//! One agent process serves every step and is killed when the test ends, pass or fail.

use crate::support::calibration::{assert_calibrated, assert_documented_lifecycle};
use crate::support::decoding::{play_script, raw_error, reasons, reconciling_completes};
use crate::support::process::{probe, start_agent, start_mock};
use crate::support::witness::witness_every_personality;
use crate::support::{Sdk, install, runtime};
use meshsim_protocol::{Dialect, ErrorCode, Method};
use serde_json::json;

const SDK: Sdk = Sdk::Js;

#[test]
fn a2a_js_sdk_interop_and_calibration() {
    let Some(()) = install(&[SDK]) else { return };
    let (agent, base) = start_agent(SDK);
    // The same agent for a client that speaks only v0.3 (its Card there declares v0.3).
    let v03 = format!("{base}/v03");

    // The client decodes every event and error of the script, in both dialects.
    let runtime = runtime();
    runtime.block_on(play_script(SDK, &base, Dialect::V1_0));
    runtime.block_on(play_script(SDK, &v03, Dialect::V0_3));

    // The version must match exactly: 1.1 is refused, with ErrorInfo.
    let get = json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "x"}});
    let newer = [("A2A-Version", "1.1")];
    let refused = raw_error(&base, &newer, &get, Dialect::V1_0, Method::GetTask);
    assert_eq!(refused.code, ErrorCode::VersionNotSupported, "{refused:?}");
    assert_eq!(reasons(&refused), ["VERSION_NOT_SUPPORTED"], "{refused:?}");
    // Without the header the call goes to the v0.3 layer, which has no `GetTask`.
    let legacy = raw_error(&base, &[], &get, Dialect::V0_3, Method::GetTask);
    assert_eq!(legacy.code, ErrorCode::MethodNotFound, "{legacy:?}");

    runtime.block_on(reconciling_completes(SDK, &base));

    // Calibration: the probe measures the personality as it measures the SDK.
    for (dialect, url) in [(Dialect::V1_0, &base), (Dialect::V0_3, &v03)] {
        let real = probe(url);
        assert_documented_lifecycle(&format!("meshsim probe {url}"), &real);
        let (_mock, mock_url) = start_mock(SDK.personality(), dialect.name());
        let personality = probe(&mock_url);
        assert_calibrated(
            &format!(
                "{} against @a2a-js/sdk 1.3.0 in {dialect}",
                SDK.personality()
            ),
            &real,
            &personality,
        );
    }
    drop(agent);
}

/// The official @a2a-js/sdk client as a witness of every built-in personality in each dialect
/// it speaks (v1.0, and v0.3 through its compatibility layer, chosen from the Card): it
/// parses the documented lifecycle, and after it exactly what the runtime serves for each
/// task it read back (`support::witness`).
#[test]
fn the_official_js_client_reads_back_every_personality() {
    let Some(()) = install(&[SDK]) else { return };
    witness_every_personality(SDK);
}
