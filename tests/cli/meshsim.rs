//! The `meshsim` binary run once with arguments, as the tests that only read its output and
//! exit code need it.

use std::process::Command;

/// `meshsim ARGS`: its exit code (-1 if a signal ended it), standard output and standard error.
pub fn meshsim(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_meshsim"))
        .args(args)
        .output()
        .expect("meshsim runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}
