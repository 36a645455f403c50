//! The README's `git bisect run meshsim replay ...` example works: `scripts/bisect-demo.sh`
//! builds a throwaway repository whose third commit breaks a runtime personality, and git
//! bisect, driven by replay's exit status, names exactly that commit.

use std::process::Command;

#[test]
fn git_bisect_run_finds_the_commit_that_broke_a_run() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/bisect-demo.sh");
    let output = Command::new("bash")
        .args([script, env!("CARGO_BIN_EXE_meshsim")])
        .output()
        .expect("bash runs the demo");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("is the first bad commit"), "{stdout}");
    assert!(stdout.contains("found the breaking commit"), "{stdout}");
}
