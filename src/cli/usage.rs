//! Argument errors in one line: clap's message without its usage block and hints, then
//! exit status 2. Help and version requests print as clap prints them.

use clap::error::ErrorKind;
use std::process::ExitCode;

/// Reports a command-line parsing error; the exit status.
pub fn report(error: clap::Error) -> ExitCode {
    if matches!(
        error.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        error.exit();
    }
    eprintln!(
        "meshsim: {} (see --help)",
        one_line(&error.render().to_string())
    );
    ExitCode::from(2)
}

/// The first paragraph of clap's message (the usage and tips follow a blank line), its
/// lines joined, without the `error:` prefix.
fn one_line(rendered: &str) -> String {
    let first = rendered.split("\n\n").next().unwrap_or(rendered);
    let words: Vec<&str> = first.split_whitespace().collect();
    let text = words.join(" ");
    text.strip_prefix("error: ").unwrap_or(&text).to_string()
}

#[cfg(test)]
mod tests {
    use super::one_line;

    #[test]
    fn folds_a_multi_line_message_into_its_first_paragraph() {
        let rendered = "error: the following required arguments were not provided:\n  \
                        --seed <SEED>\n  --runtime <RUNTIME>\n\nUsage: meshsim replay\n\n\
                        For more information, try '--help'.\n";
        assert_eq!(
            one_line(rendered),
            "the following required arguments were not provided: --seed <SEED> --runtime <RUNTIME>"
        );
    }
}
