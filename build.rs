//! Build script: records the git commit this meshsim is built from as `MESHSIM_COMMIT`, so
//! that a sweep's output names its build and `meshsim merge` refuses shards of different
//! builds. Without git (a source tarball, a container build without `.git`) the commit is
//! the `MESHSIM_COMMIT` environment variable at build time, or `unknown`.

use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=MESHSIM_COMMIT");
    let commit = git_commit()
        .or_else(|| std::env::var("MESHSIM_COMMIT").ok())
        .filter(|commit| !commit.trim().is_empty())
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=MESHSIM_COMMIT={}", commit.trim());
}

/// The checked-out commit, and the files whose change means another commit (HEAD, the
/// branch it names, packed refs) marked for a rebuild; `None` without git or a repository.
fn git_commit() -> Option<String> {
    let commit = git(&["rev-parse", "HEAD"])?;
    let mut watched = vec!["HEAD".to_string(), "packed-refs".to_string()];
    watched.extend(git(&["symbolic-ref", "-q", "HEAD"]));
    for name in watched {
        if let Some(path) = git(&["rev-parse", "--git-path", &name])
            && Path::new(&path).exists()
        {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    Some(commit)
}

/// `git ARGS` in the package's directory: its trimmed output when it succeeds.
fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git")
        .args(args)
        .current_dir(std::env::var_os("CARGO_MANIFEST_DIR")?)
        .output()
        .ok()?;
    let text = String::from_utf8(output.stdout).ok()?;
    (output.status.success() && !text.trim().is_empty()).then(|| text.trim().to_string())
}
