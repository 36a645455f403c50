//! Build script: records the git commit this meshsim is built from as `MESHSIM_COMMIT`, so
//! that a sweep's output and `meshsim --version` name its build and `meshsim merge` refuses
//! shards of different builds. A build whose sources differ from the commit (edited, staged
//! or not) is `<commit>-dirty`: its runs need not replay on the commit. Without git (a
//! source tarball, a container build without `.git`) the commit is the `MESHSIM_COMMIT`
//! environment variable at build time, or `unknown`.

use std::path::Path;
use std::process::Command;

/// What the meshsim binary is built from, relative to the package: a change to any of them
/// reruns this script and marks the build dirty.
const SOURCES: [&str; 12] = [
    "src",
    "protocol",
    "time",
    "trace",
    "sim",
    "runtimes",
    "consumer",
    "scenarios",
    "vendor",
    "build.rs",
    "Cargo.toml",
    "Cargo.lock",
];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=MESHSIM_COMMIT");
    let commit = git_commit()
        .or_else(|| std::env::var("MESHSIM_COMMIT").ok())
        .filter(|commit| !commit.trim().is_empty())
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=MESHSIM_COMMIT={}", commit.trim());
}

/// The checked-out commit, `-dirty` when the sources differ from it, and the files whose
/// change means another commit (HEAD, the branch it names, packed refs) or another state of
/// the sources marked for a rebuild; `None` without git or a repository.
fn git_commit() -> Option<String> {
    let commit = git(&["rev-parse", "HEAD"])?;
    for source in SOURCES {
        println!("cargo:rerun-if-changed={source}");
    }
    let mut status = vec!["status", "--porcelain", "--untracked-files=no", "--"];
    status.extend(SOURCES);
    // Empty when the sources are the commit's (and `None` then, as when git fails).
    let dirty = git(&status).is_some();
    let mut watched = vec!["HEAD".to_string(), "packed-refs".to_string()];
    watched.extend(git(&["symbolic-ref", "-q", "HEAD"]));
    for name in watched {
        if let Some(path) = git(&["rev-parse", "--git-path", &name])
            && Path::new(&path).exists()
        {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    Some(if dirty {
        format!("{commit}-dirty")
    } else {
        commit
    })
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
