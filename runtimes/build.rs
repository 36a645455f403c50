//! Embeds every `personalities/*.json` file as a built-in personality, so that adding a
//! built-in is adding one file: the build writes the files' names (sorted, which is the
//! order `meshsim list` shows) and their contents, included at compile time, to
//! `$OUT_DIR/builtin_personalities.rs`. The files are parsed and checked by
//! `meshsim_runtimes::builtin` (and every one of them by its unit tests).

use std::fmt::Write as _;
use std::path::PathBuf;

fn main() {
    let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let dir = manifest_dir.join("personalities");
    // A directory here makes cargo rerun the script when any file in it changes or appears.
    println!("cargo::rerun-if-changed={}", dir.display());
    let mut files: Vec<(String, PathBuf)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", dir.display()))
        .map(|entry| entry.expect("a readable directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .map(|path| {
            let stem = path
                .file_stem()
                .and_then(|stem| stem.to_str())
                .unwrap_or_else(|| panic!("{}: the file name is not UTF-8", path.display()))
                .to_string();
            (stem, path)
        })
        .collect();
    files.sort();

    let mut out = String::from(
        "/// The names of every built-in personality (their files' names), in the order \
         `meshsim list` shows them.\n\
         pub const BUILTIN_NAMES: &[&str] = &[\n",
    );
    for (name, _) in &files {
        writeln!(out, "    {name:?},").expect("writing to a String");
    }
    out.push_str("];\n\n/// Each built-in's file, in [`BUILTIN_NAMES`] order.\nconst BUILTIN_FILES: &[&str] = &[\n");
    for (_, path) in &files {
        writeln!(out, "    include_str!({:?}),", path.display().to_string())
            .expect("writing to a String");
    }
    out.push_str("];\n");
    let target = PathBuf::from(std::env::var_os("OUT_DIR").expect("set by cargo"))
        .join("builtin_personalities.rs");
    std::fs::write(&target, out)
        .unwrap_or_else(|error| panic!("cannot write {}: {error}", target.display()));
}
