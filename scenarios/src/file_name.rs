//! Names of the files a run leaves (reports, logs, timelines, traces) made from what names
//! the run: a personality file's path, with anything a file name should not hold replaced,
//! and then a hash of the label, so that two labels written alike (`a b.json` and
//! `a_b.json`) never name the same file.

/// `text` with anything but ASCII letters, digits, `.`, `_` and `-` made `_`.
pub fn file_safe(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// A runtime's label for a file name: itself when it is file-safe, else its file-safe form
/// and a hash of the label.
pub fn label_in_file_name(label: &str) -> String {
    match file_safe(label) {
        kept if kept == label => kept,
        changed => format!("{changed}-{:016x}", fnv1a(label.as_bytes())),
    }
}

/// The 64-bit FNV-1a hash of `bytes`: stable across builds and machines.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_written_alike_get_names_of_their_own_and_a_plain_one_keeps_its_own() {
        assert_ne!(
            label_in_file_name("pp/a b.json"),
            label_in_file_name("pp/a_b.json")
        );
        assert!(label_in_file_name("pp/a b.json").starts_with("pp_a_b.json-"));
        assert_eq!(label_in_file_name("python-correct"), "python-correct");
        assert_eq!(file_safe("it's <here>"), "it_s__here_");
    }
}
