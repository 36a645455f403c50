//! Which test is sweeping: its source file, its name, its test binary and package, and the
//! target directory, so that a failure can print a line that reruns exactly one of its
//! runs, write that run's files under `target/meshsim/`, and keep a regressions file
//! beside the test.

use crate::file_name::{file_safe, label_in_file_name};
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
    /// The cargo target the test is in: `--lib`, or `--test NAME` (its name as cargo
    /// knows it, hyphens kept).
    pub target: Option<TestTarget>,
    /// The package (`-p NAME`), which cargo sets while it runs tests.
    pub package: Option<String>,
    /// Where `target/meshsim/` goes.
    pub target_dir: Option<PathBuf>,
}

/// A cargo test target, as `cargo test` selects it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TestTarget {
    /// The library's unit tests (`--lib`).
    Lib,
    /// An integration test (`--test NAME`).
    Test(String),
}

impl TestTarget {
    /// The target whose test binary is `binary` (cargo's file name: the target's name with
    /// `-` as `_`, then `-HASH`), called from the source file `file`: a file under `tests/`
    /// is the integration test named by the file or folder there (`tests/my-sweep.rs`,
    /// `tests/my-sweep/main.rs`), one under `src/` the library of `package`. A target
    /// named in `Cargo.toml` otherwise is taken by its binary's name.
    fn of(binary: &str, file: &str, package: Option<&str>) -> TestTarget {
        let crate_name = binary
            .rsplit_once('-')
            .filter(|(_, hash)| hash.chars().all(|c| c.is_ascii_hexdigit()))
            .map_or(binary, |(name, _)| name);
        let components: Vec<&str> = Path::new(file)
            .components()
            .filter_map(|component| component.as_os_str().to_str())
            .collect();
        let under = |folder: &str| {
            components
                .iter()
                .position(|component| *component == folder)
                .and_then(|at| components.get(at + 1))
        };
        if let Some(entry) = under("tests") {
            let name = entry.strip_suffix(".rs").unwrap_or(entry);
            if name.replace('-', "_") == crate_name {
                return TestTarget::Test(name.to_string());
            }
        }
        let library = package.is_some_and(|package| package.replace('-', "_") == crate_name);
        if library && under("src").is_some() {
            return TestTarget::Lib;
        }
        TestTarget::Test(crate_name.to_string())
    }

    /// The `cargo test` arguments that select it.
    fn selector(&self) -> String {
        match self {
            TestTarget::Lib => "--lib".to_string(),
            TestTarget::Test(name) => format!("--test {name}"),
        }
    }

    /// The folder under `target/meshsim/` its runs' files go to.
    fn folder(&self) -> &str {
        match self {
            TestTarget::Lib => "lib",
            TestTarget::Test(name) => name,
        }
    }
}

impl TestCaller {
    /// The test around `location` (the caller of `Matrix::run`).
    pub fn here(location: &Location<'_>) -> Self {
        let exe = std::env::current_exe().ok();
        let package = std::env::var("CARGO_PKG_NAME").ok();
        let target = exe
            .as_deref()
            .and_then(Path::file_stem)
            .and_then(|stem| stem.to_str())
            .map(|binary| TestTarget::of(binary, location.file(), package.as_deref()));
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
            target,
            package,
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
        if let Some(target) = &self.target {
            line.push_str(&format!(" {}", target.selector()));
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
            .join(self.target.as_ref().map_or("tests", TestTarget::folder))
            .join(self.test.as_deref().unwrap_or("test").replace("::", "-"));
        let stem = file_safe(&format!(
            "seed-{}-{}-{}-{}-{}",
            spec.seed.value(),
            spec.scenario,
            spec.faults.name(),
            label_in_file_name(&spec.runtime.label),
            spec.dialect
        ));
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

#[cfg(test)]
mod tests {
    use super::TestTarget;

    #[test]
    fn the_target_is_named_as_cargo_test_selects_it() {
        let of = |binary, file| TestTarget::of(binary, file, Some("my-consumer"));
        let test = |name: &str| TestTarget::Test(name.to_string());
        assert_eq!(of("mine-0123abcd", "tests/mine.rs"), test("mine"));
        assert_eq!(
            of("my_sweep-0123abcd", "tests/my-sweep.rs"),
            test("my-sweep")
        );
        assert_eq!(of("cli-0123abcd", "tests/cli/merge.rs"), test("cli"));
        assert_eq!(of("my_consumer-0123abcd", "src/lib.rs"), TestTarget::Lib);
        assert_eq!(
            of("my_consumer-0123abcd", "src/sweep/mod.rs"),
            TestTarget::Lib
        );
        // A target named in Cargo.toml: its binary's name is all there is to go by.
        assert_eq!(of("custom-0123abcd", "checks/run.rs"), test("custom"));
        assert_eq!(TestTarget::Lib.selector(), "--lib");
        assert_eq!(test("my-sweep").selector(), "--test my-sweep");
    }
}
