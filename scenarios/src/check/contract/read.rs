//! Reading a report file from disk as a program left it: a program can leave anything at
//! `MESHSIM_REPORT`, so the file must be a regular file (a FIFO would block the read for
//! good, a link to `/dev/zero` never end), of a bounded size, in UTF-8.

use super::parse::ReportInvalid;
use std::io::Read;
use std::path::Path;

/// The largest report read: a report is a few lines a state, so a run's is kilobytes.
pub const MOST_REPORT_BYTES: u64 = 16 * 1024 * 1024;

/// The text of the report at `path`, or why it cannot be read as one.
pub fn read_report(path: &Path) -> Result<String, ReportInvalid> {
    let whole = |problem: String| ReportInvalid {
        line: None,
        field: None,
        problem,
    };
    let shown = path.display();
    let metadata =
        std::fs::metadata(path).map_err(|error| whole(format!("no report at {shown}: {error}")))?;
    if !metadata.is_file() {
        return Err(whole(format!(
            "the report at {shown} is not a regular file (a directory, a FIFO or a device)"
        )));
    }
    if metadata.len() > MOST_REPORT_BYTES {
        return Err(whole(format!(
            "the report at {shown} is {} bytes, more than the {MOST_REPORT_BYTES} a report may be",
            metadata.len()
        )));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|file| file.take(MOST_REPORT_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|error| whole(format!("cannot read the report at {shown}: {error}")))?;
    if bytes.len() as u64 > MOST_REPORT_BYTES {
        return Err(whole(format!(
            "the report at {shown} grew past the {MOST_REPORT_BYTES} bytes a report may be"
        )));
    }
    String::from_utf8(bytes).map_err(|error| {
        let valid = &error.as_bytes()[..error.utf8_error().valid_up_to()];
        let line = valid.iter().filter(|byte| **byte == b'\n').count() + 1;
        ReportInvalid {
            line: Some(line),
            field: None,
            problem: "not UTF-8".to_string(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("meshsim-read-report-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }

    #[test]
    fn a_report_that_is_not_a_regular_file_is_refused_without_reading_it() {
        let fifo = scratch("report.fifo");
        let _ = std::fs::remove_file(&fifo);
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let refused = read_report(&fifo).unwrap_err();
        assert!(refused.problem.contains("not a regular file"), "{refused}");
        let device = read_report(Path::new("/dev/zero")).unwrap_err();
        assert!(device.problem.contains("not a regular file"), "{device}");
        std::fs::remove_file(&fifo).unwrap();
    }

    #[test]
    fn a_report_too_large_is_refused_and_one_not_in_utf8_names_its_line() {
        let large = scratch("large.jsonl");
        let file = std::fs::File::create(&large).unwrap();
        file.set_len(MOST_REPORT_BYTES + 1).unwrap();
        let refused = read_report(&large).unwrap_err();
        assert!(refused.problem.contains("more than"), "{refused}");
        std::fs::remove_file(&large).unwrap();

        let latin1 = scratch("latin1.jsonl");
        std::fs::write(
            &latin1,
            b"{\"kind\":\"task\",\"task\":\"a\"}\n{\"task\":\"caf\xe9\"}\n",
        )
        .unwrap();
        let refused = read_report(&latin1).unwrap_err();
        assert_eq!(
            (refused.line, refused.problem.as_str()),
            (Some(2), "not UTF-8")
        );
        std::fs::remove_file(&latin1).unwrap();
    }
}
