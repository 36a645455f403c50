//! Quoting for the commands meshsim prints to rerun a run: each word as one POSIX shell
//! word, so a line pasted into a shell means what was run (a personality file's path with a
//! space, a fault plan given inline as JSON).

/// `word` as one POSIX shell word: as it is when it has nothing a shell reads specially,
/// else in single quotes.
pub(crate) fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::quote;

    #[test]
    fn words_with_spaces_or_quotes_are_quoted_for_the_shell() {
        assert_eq!(quote("naive.py"), "naive.py");
        assert_eq!(quote("it's here"), r"'it'\''s here'");
        assert_eq!(quote(""), "''");
    }
}
