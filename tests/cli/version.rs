//! `meshsim --version` names the build: the package version and the commit it was built
//! from, the one a sweep's output carries (`-dirty` when the sources differed from it).

use crate::meshsim::meshsim;
use crate::pipes::ONE_SWEEP_JSON;
use std::process::Command;

#[test]
fn version_names_the_commit_a_sweep_carries() {
    let (code, stdout, _) = meshsim(&["--version"]);
    assert_eq!(code, 0, "{stdout}");
    let version = stdout.trim();
    let prefix = concat!("meshsim ", env!("CARGO_PKG_VERSION"), " (");
    let commit = version
        .strip_prefix(prefix)
        .and_then(|rest| rest.strip_suffix(')'))
        .unwrap_or_else(|| panic!("{version:?} is not `{prefix}COMMIT)`"));

    let (code, stdout, _) = meshsim(&ONE_SWEEP_JSON);
    assert_eq!(code, 0, "{stdout}");
    let summary: serde_json::Value =
        serde_json::from_str(stdout.lines().last().expect("a summary line")).expect("JSON");
    assert_eq!(summary["summary"]["sweep"]["commit"], commit);

    // Built from a git checkout, it is the checked-out commit.
    let head = Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|output| output.status.success())
        .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_string());
    if let Some(head) = head {
        assert!(
            commit == head || commit == format!("{head}-dirty"),
            "{commit} is not {head}"
        );
    }
}
