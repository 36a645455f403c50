//! Which test is sweeping: its source file, its name, its test binary and package, and the
//! target directory, so that a failure can print a line that reruns exactly one of its
//! runs, write that run's files under `target/meshsim/`, and keep a regressions file
//! beside the test.

use crate::run_spec::RunSpec;
use crate::shell_word;
use std::panic::Location;
use std::path::{Path, PathBuf};

/// The test that called [`Matrix::run`](crate::Matrix::run), as far as it can be known.
#[derive(Debug, Clone, Default)]
pub struct TestCaller {
    /// The source file of the call, when it can be found on disk.
    pub source: Option<PathBuf>,
    /// The test function, from the name libtest gives its thread.
    pub test: Option<String>,
    /// The test binary (`--test NAME`).
    pub binary: Option<String>,
    /// The package (`-p NAME`), which cargo sets while it runs tests.
    pub package: Option<String>,
    /// Where `target/meshsim/` goes.
    pub target_dir: Option<PathBuf>,
}

impl TestCaller {
    /// The test around `location` (the caller of `Matrix::run`).
    pub fn here(location: &Location<'_>) -> Self {
        let exe = std::env::current_exe().ok();
        let binary = exe
            .as_deref()
            .and_then(Path::file_stem)
            .and_then(|stem| stem.to_str())
            .map(|stem| match stem.rsplit_once('-') {
                // cargo names test binaries NAME-HASH.
                Some((name, hash)) if hash.chars().all(|c| c.is_ascii_hexdigit()) => name,
                _ => stem,
            })
            .map(str::to_string);
        let target_dir = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .or_else(|| {
                // target/PROFILE/deps/BINARY
                exe.as_deref()
                    .and_then(|exe| exe.ancestors().nth(3))
                    .map(Path::to_path_buf)
            });
        let test = std::thread::current()
            .name()
            .filter(|name| *name != "main")
            .map(str::to_string);
        TestCaller {
            source: source_file(location.file()),
            test,
            binary,
            package: std::env::var("CARGO_PKG_NAME").ok(),
            target_dir,
        }
    }

    /// The command that reruns exactly `spec`'s run of this test.
    pub fn rerun_line(&self, spec: &RunSpec) -> String {
        let mut line = format!(
            "MESHSIM_SEED={} MESHSIM_RUNTIME={} MESHSIM_SCENARIO={} MESHSIM_DIALECT={} MESHSIM_FAULTS={} cargo test",
            spec.seed.value(),
            shell_word::quote(&spec.runtime.label),
            spec.scenario,
            spec.dialect,
            spec.faults.name()
        );
        if let Some(package) = &self.package {
            line.push_str(&format!(" -p {package}"));
        }
        if let Some(binary) = &self.binary {
            line.push_str(&format!(" --test {binary}"));
        }
        match &self.test {
            Some(test) => line.push_str(&format!(" {test} -- --exact --include-ignored")),
            None => line.push_str(" -- --include-ignored"),
        }
        line
    }

    /// Where the files of `spec`'s run go: `target/meshsim/BINARY/TEST/`, named after the
    /// run.
    pub fn run_files(&self, spec: &RunSpec) -> Option<(PathBuf, PathBuf)> {
        let dir = self
            .target_dir
            .as_ref()?
            .join("meshsim")
            .join(self.binary.as_deref().unwrap_or("tests"))
            .join(self.test.as_deref().unwrap_or("test").replace("::", "-"));
        let stem: String = format!(
            "seed-{}-{}-{}-{}-{}",
            spec.seed.value(),
            spec.scenario,
            spec.faults.name(),
            spec.runtime.label,
            spec.dialect
        )
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || ".-_".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
        Some((
            dir.join(format!("{stem}.trace.jsonl")),
            dir.join(format!("{stem}.timeline.html")),
        ))
    }
}

/// The file a `file!()`-style path names: relative to the package (outside a workspace)
/// or to the workspace root, which is an ancestor of the package.
fn source_file(file: &str) -> Option<PathBuf> {
    let path = Path::new(file);
    if path.is_absolute() {
        return path.exists().then(|| path.to_path_buf());
    }
    let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR")?);
    manifest_dir
        .ancestors()
        .map(|dir| dir.join(path))
        .find(|candidate| candidate.exists())
}
