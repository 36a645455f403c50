//! [`ErrorKind`]: what went wrong, in the project's own words. A trace line names an error by
//! its kind, never by a dependency's message: hyper's or the simulated network's wording can
//! change with a `cargo update`, and with it every hash of a run that met the error.

use std::error::Error;
use std::io;

/// The kind of a failure a trace line reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The peer refused the connection (no listener, a partition).
    Refused,
    /// The peer reset the connection.
    Reset,
    /// The connection was aborted.
    Aborted,
    /// A timeout ran out.
    TimedOut,
    /// Writing to a connection the peer had closed.
    BrokenPipe,
    /// The socket was not connected.
    NotConnected,
    /// The connection closed before a message was complete.
    ClosedEarly,
    /// The connection was already closed.
    Closed,
    /// The exchange was canceled (its connection went away first).
    Canceled,
    /// The peer sent HTTP that does not parse.
    Malformed,
    /// A body failed while it was being sent.
    BodyFailed,
    /// Another I/O failure.
    Io,
    /// The host's software panicked.
    Panicked,
    /// Nothing above: a failure the project names no further.
    Other,
}

impl ErrorKind {
    /// Every kind, in declaration order.
    pub const ALL: [ErrorKind; 14] = [
        ErrorKind::Refused,
        ErrorKind::Reset,
        ErrorKind::Aborted,
        ErrorKind::TimedOut,
        ErrorKind::BrokenPipe,
        ErrorKind::NotConnected,
        ErrorKind::ClosedEarly,
        ErrorKind::Closed,
        ErrorKind::Canceled,
        ErrorKind::Malformed,
        ErrorKind::BodyFailed,
        ErrorKind::Io,
        ErrorKind::Panicked,
        ErrorKind::Other,
    ];

    /// The kind of `error`: an I/O error anywhere in its chain of sources decides (it is the
    /// most precise), else what hyper says of its own errors, else [`ErrorKind::Other`].
    pub fn of(error: &(dyn Error + 'static)) -> ErrorKind {
        chain(error)
            .find_map(|error| error.downcast_ref::<io::Error>())
            .map(|io| ErrorKind::of_io(io.kind()))
            .or_else(|| {
                chain(error)
                    .filter_map(|error| error.downcast_ref::<hyper::Error>())
                    .find_map(ErrorKind::of_hyper)
            })
            .unwrap_or(ErrorKind::Other)
    }

    /// The kind of an I/O error.
    pub fn of_io(kind: io::ErrorKind) -> ErrorKind {
        match kind {
            io::ErrorKind::ConnectionRefused => ErrorKind::Refused,
            io::ErrorKind::ConnectionReset => ErrorKind::Reset,
            io::ErrorKind::ConnectionAborted => ErrorKind::Aborted,
            io::ErrorKind::TimedOut => ErrorKind::TimedOut,
            io::ErrorKind::BrokenPipe => ErrorKind::BrokenPipe,
            io::ErrorKind::NotConnected => ErrorKind::NotConnected,
            io::ErrorKind::UnexpectedEof => ErrorKind::ClosedEarly,
            _ => ErrorKind::Io,
        }
    }

    fn of_hyper(error: &hyper::Error) -> Option<ErrorKind> {
        if error.is_timeout() {
            Some(ErrorKind::TimedOut)
        } else if error.is_incomplete_message() {
            Some(ErrorKind::ClosedEarly)
        } else if error.is_closed() {
            Some(ErrorKind::Closed)
        } else if error.is_canceled() {
            Some(ErrorKind::Canceled)
        } else if error.is_parse() || error.is_parse_status() || error.is_parse_too_large() {
            Some(ErrorKind::Malformed)
        } else if error.is_user() || error.is_body_write_aborted() {
            Some(ErrorKind::BodyFailed)
        } else {
            None
        }
    }

    /// The name a trace line carries.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Refused => "refused",
            ErrorKind::Reset => "reset",
            ErrorKind::Aborted => "aborted",
            ErrorKind::TimedOut => "timed-out",
            ErrorKind::BrokenPipe => "broken-pipe",
            ErrorKind::NotConnected => "not-connected",
            ErrorKind::ClosedEarly => "closed-early",
            ErrorKind::Closed => "closed",
            ErrorKind::Canceled => "canceled",
            ErrorKind::Malformed => "malformed",
            ErrorKind::BodyFailed => "body-failed",
            ErrorKind::Io => "io",
            ErrorKind::Panicked => "panicked",
            ErrorKind::Other => "other",
        }
    }

    /// The kind named `name`, as [`ErrorKind::name`] writes it.
    pub fn from_name(name: &str) -> Option<ErrorKind> {
        ErrorKind::ALL.into_iter().find(|kind| kind.name() == name)
    }
}

/// `error` and its sources, outermost first.
fn chain<'e>(error: &'e (dyn Error + 'static)) -> impl Iterator<Item = &'e (dyn Error + 'static)> {
    std::iter::successors(Some(error), |error: &&'e (dyn Error + 'static)| {
        let error: &'e (dyn Error + 'static) = *error;
        error.source()
    })
}

impl std::fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fmt;

    #[derive(Debug)]
    struct Wrapper(io::Error);

    impl fmt::Display for Wrapper {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "wrapped: {}", self.0)
        }
    }

    impl Error for Wrapper {
        fn source(&self) -> Option<&(dyn Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn an_io_error_anywhere_in_the_chain_names_the_kind_whatever_its_message() {
        let refused = io::Error::new(io::ErrorKind::ConnectionRefused, "192.168.0.1:9000");
        assert_eq!(ErrorKind::of(&refused), ErrorKind::Refused);
        let wrapped = Wrapper(io::Error::new(io::ErrorKind::TimedOut, "anything at all"));
        assert_eq!(ErrorKind::of(&wrapped), ErrorKind::TimedOut);
        let eof = io::Error::from(io::ErrorKind::UnexpectedEof);
        assert_eq!(ErrorKind::of(&eof), ErrorKind::ClosedEarly);
        let other = io::Error::other("disk on fire");
        assert_eq!(ErrorKind::of(&other), ErrorKind::Io);
    }

    #[test]
    fn an_error_the_project_does_not_know_is_other() {
        let text: Box<dyn Error + Send + Sync> = "gave up".into();
        assert_eq!(ErrorKind::of(text.as_ref()), ErrorKind::Other);
    }

    #[test]
    fn every_name_reads_back_as_its_kind() {
        for kind in ErrorKind::ALL {
            assert_eq!(ErrorKind::from_name(kind.name()), Some(kind));
        }
        assert_eq!(ErrorKind::from_name("connection reset by peer"), None);
    }
}
