//! The clock that stamps task statuses. A host receives one: in the simulation it reads
//! simulated time from a pinned epoch, on real TCP it reads the wall clock. Code that puts
//! a time on the wire takes a [`Clock`] and never reads the system clock itself.

use crate::digits::push_padded;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// A source of "time since the Unix epoch". Cheap to clone.
#[derive(Clone)]
pub struct Clock {
    since_epoch: Arc<dyn Fn() -> Duration + Send + Sync>,
}

impl Clock {
    /// A clock reading from `since_epoch` (the simulation passes simulated time here).
    pub fn from_fn(since_epoch: impl Fn() -> Duration + Send + Sync + 'static) -> Self {
        Self {
            since_epoch: Arc::new(since_epoch),
        }
    }

    /// The wall clock. Only for real TCP (`meshsim serve`, `meshsim probe`): never inside a
    /// simulation, where it would break determinism.
    pub fn wall() -> Self {
        Self::from_fn(|| {
            std::time::SystemTime::now() // wall-clock-ok: Clock::wall serves real TCP only
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default()
        })
    }

    /// A clock frozen at `since_epoch`, for tests and golden vectors.
    pub fn fixed(since_epoch: Duration) -> Self {
        Self::from_fn(move || since_epoch)
    }

    /// Time since the Unix epoch.
    pub fn now(&self) -> Duration {
        (self.since_epoch)()
    }

    /// Now as an RFC 3339 UTC timestamp with millisecond precision, the form A2A uses.
    pub fn now_rfc3339(&self) -> String {
        rfc3339(self.now())
    }
}

impl fmt::Debug for Clock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Clock").field("now", &self.now()).finish()
    }
}

/// Formats a duration since the Unix epoch as `YYYY-MM-DDTHH:MM:SS.mmmZ` (a year past 9999
/// takes more digits). The digits are written one by one: every status a runtime stamps is
/// formatted here, and `format!` with its seven fields was 0.5% of a simulated run.
pub fn rfc3339(since_epoch: Duration) -> String {
    let secs = since_epoch.as_secs();
    let rem = secs % 86_400;
    let (year, month, day) = civil_from_days((secs / 86_400) as i64);
    let mut text = String::with_capacity(24);
    push_padded(&mut text, year.unsigned_abs(), 4);
    text.push('-');
    push_padded(&mut text, u64::from(month), 2);
    text.push('-');
    push_padded(&mut text, u64::from(day), 2);
    text.push('T');
    push_padded(&mut text, rem / 3600, 2);
    text.push(':');
    push_padded(&mut text, (rem % 3600) / 60, 2);
    text.push(':');
    push_padded(&mut text, rem % 60, 2);
    text.push('.');
    push_padded(&mut text, u64::from(since_epoch.subsec_millis()), 3);
    text.push('Z');
    text
}

/// Reads an RFC 3339 timestamp (`2026-11-13T00:00:00.123Z`, any number of fractional
/// digits, `Z` or a `±HH:MM` offset) as a duration since the Unix epoch; `None` for
/// anything else or a time before the epoch. Peers stamp statuses in this form, with
/// their own precision and zone.
pub fn parse_rfc3339(text: &str) -> Option<Duration> {
    Stamp::in_written_form(text)
        .or_else(|| Stamp::read(text))?
        .since_epoch()
}

/// The fields of an RFC 3339 timestamp as read, before their ranges are checked.
#[derive(Debug, PartialEq, Eq)]
struct Stamp {
    year: i64,
    month: i64,
    day: i64,
    hour: i64,
    minute: i64,
    second: i64,
    nanos: u32,
    offset_secs: i64,
}

impl Stamp {
    /// The form [`rfc3339`] writes (`2026-11-13T00:00:00.123Z`), read by position: the
    /// stamps of a run are in it, and [`Stamp::read`] takes ten times as long to read them
    /// the same; `None` for any other form.
    fn in_written_form(text: &str) -> Option<Stamp> {
        let bytes: &[u8; 24] = text.as_bytes().try_into().ok()?;
        let separators = [
            (4, b'-'),
            (7, b'-'),
            (10, b'T'),
            (13, b':'),
            (16, b':'),
            (19, b'.'),
            (23, b'Z'),
        ];
        if separators
            .iter()
            .any(|&(at, separator)| bytes[at] != separator)
        {
            return None;
        }
        let number = |from: usize, to: usize| {
            bytes[from..to].iter().try_fold(0, |value: i64, &digit| {
                digit
                    .is_ascii_digit()
                    .then(|| value * 10 + i64::from(digit - b'0'))
            })
        };
        Some(Stamp {
            year: number(0, 4)?,
            month: number(5, 7)?,
            day: number(8, 10)?,
            hour: number(11, 13)?,
            minute: number(14, 16)?,
            second: number(17, 19)?,
            nanos: u32::try_from(number(20, 23)?).ok()? * 1_000_000,
            offset_secs: 0,
        })
    }

    /// Any form [`parse_rfc3339`] takes.
    fn read(text: &str) -> Option<Stamp> {
        let all_digits = |text: &str| !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
        let number = |text: &str| -> Option<i64> { all_digits(text).then(|| text.parse().ok())? };
        let (date, rest) = text.split_at_checked(10)?;
        let rest = rest.strip_prefix(['T', 't', ' '])?;
        let mut fields = date.split('-');
        let (year, month, day) = (
            number(fields.next()?)?,
            number(fields.next()?)?,
            number(fields.next()?)?,
        );
        let (time, offset) = match rest.find(['Z', 'z', '+', '-']) {
            Some(at) => rest.split_at(at),
            None => return None,
        };
        let offset_secs = match offset {
            "Z" | "z" => 0,
            signed => {
                let (sign, hours_minutes) = signed.split_at(1);
                let (hours, minutes) = hours_minutes.split_once(':')?;
                let (hours, minutes) = (number(hours)?, number(minutes)?);
                if hours >= 24 || minutes >= 60 {
                    return None;
                }
                let secs = hours * 3600 + minutes * 60;
                if sign == "-" { -secs } else { secs }
            }
        };
        let (clock, fraction) = match time.split_once('.') {
            Some((clock, fraction)) => (clock, Some(fraction)),
            None => (time, None),
        };
        let mut hms = clock.split(':');
        let (hour, minute, second) = (
            number(hms.next()?)?,
            number(hms.next()?)?,
            number(hms.next()?)?,
        );
        let well_formed =
            hms.next().is_none() && fields.next().is_none() && fraction.is_none_or(all_digits);
        if !well_formed {
            return None;
        }
        let nanos = fraction
            .unwrap_or_default()
            .bytes()
            .chain(std::iter::repeat(b'0'))
            .take(9)
            .fold(0u32, |nanos, digit| nanos * 10 + u32::from(digit - b'0'));
        Some(Stamp {
            year,
            month,
            day,
            hour,
            minute,
            second,
            nanos,
            offset_secs,
        })
    }

    /// The instant, if every field is in its range and it is not before the epoch.
    fn since_epoch(&self) -> Option<Duration> {
        let in_range = (1..=12).contains(&self.month)
            && (1..=31).contains(&self.day)
            && self.hour < 24
            && self.minute < 60
            && self.second <= 60;
        if !in_range {
            return None;
        }
        let secs = days_from_civil(self.year, self.month as u32, self.day as u32) * 86_400
            + self.hour * 3600
            + self.minute * 60
            + self.second
            - self.offset_secs;
        Some(Duration::new(u64::try_from(secs).ok()?, self.nanos))
    }
}

/// Formats a duration since the Unix epoch as an HTTP date (RFC 9110 IMF-fixdate,
/// `Sun, 06 Nov 1994 08:49:37 GMT`), the form of `Last-Modified`.
pub fn http_date(since_epoch: Duration) -> String {
    const WEEKDAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let secs = since_epoch.as_secs();
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let (year, month, day) = civil_from_days(days);
    format!(
        "{}, {day:02} {} {year:04} {:02}:{:02}:{:02} GMT",
        WEEKDAYS[days.rem_euclid(7) as usize],
        MONTHS[(month - 1) as usize],
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

/// Days since 1970-01-01 to a proleptic Gregorian (year, month, day) (H. Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm, the
/// inverse of [`civil_from_days`]).
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let year = year - i64::from(month <= 2);
    let era = year.div_euclid(400);
    let yoe = year.rem_euclid(400);
    let month = i64::from(month);
    let doy = (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(rfc3339(Duration::ZERO), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            rfc3339(Duration::from_millis(1_794_528_000_123)),
            "2026-11-13T00:00:00.123Z"
        );
        assert_eq!(
            rfc3339(Duration::from_secs(951_782_400)),
            "2000-02-29T00:00:00.000Z"
        );
    }

    #[test]
    fn writes_what_format_writes_for_any_instant() {
        let by_format = |since_epoch: Duration| {
            let secs = since_epoch.as_secs();
            let rem = secs % 86_400;
            let (year, month, day) = civil_from_days((secs / 86_400) as i64);
            format!(
                "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
                rem / 3600,
                (rem % 3600) / 60,
                rem % 60,
                since_epoch.subsec_millis()
            )
        };
        let far = Duration::from_secs(253_402_300_800); // 10000-01-01: a fifth year digit
        assert_eq!(rfc3339(far), "10000-01-01T00:00:00.000Z");
        let mut millis: u64 = 1;
        while millis < 400_000_000_000_000 {
            for since_epoch in [millis, millis * 7 + 3, millis * 13 + 999] {
                let since_epoch = Duration::from_millis(since_epoch);
                assert_eq!(rfc3339(since_epoch), by_format(since_epoch));
            }
            millis = millis * 3 + 1;
        }
        assert_eq!(rfc3339(Duration::MAX), by_format(Duration::MAX));
    }

    #[test]
    fn reads_back_what_it_formats() {
        for millis in [0, 951_782_400_000, 1_794_528_000_123, 4_102_444_799_999] {
            let since_epoch = Duration::from_millis(millis);
            assert_eq!(parse_rfc3339(&rfc3339(since_epoch)), Some(since_epoch));
        }
    }

    #[test]
    fn reads_the_written_form_by_position_as_it_reads_any_form() {
        let mut millis: u64 = 1;
        while millis < 253_402_300_800_000 {
            for since_epoch in [millis, millis * 7 + 3, millis * 13 + 999] {
                let text = rfc3339(Duration::from_millis(since_epoch % 253_402_300_800_000));
                let by_position = Stamp::in_written_form(&text);
                assert!(by_position.is_some(), "{text}");
                assert_eq!(by_position, Stamp::read(&text), "{text}");
            }
            millis = millis * 3 + 1;
        }
        for out_of_range in ["2026-13-13T12:00:00.000Z", "2026-11-13T24:00:00.000Z"] {
            assert_eq!(
                Stamp::in_written_form(out_of_range),
                Stamp::read(out_of_range)
            );
            assert_eq!(parse_rfc3339(out_of_range), None);
        }
        for other_form in [
            "2026-11-13T12:00:00.123+00:00",
            "2026-11-13t12:00:00.123Z",
            "2026-11-13T12:00:00.12zZ",
            "2026-11-13T12:00:00,123Z",
        ] {
            assert_eq!(Stamp::in_written_form(other_form), None, "{other_form}");
        }
    }

    #[test]
    fn reads_other_precisions_and_zones() {
        let noon = Duration::from_secs(1_794_571_200);
        assert_eq!(parse_rfc3339("2026-11-13T12:00:00Z"), Some(noon));
        assert_eq!(
            parse_rfc3339("2026-11-13T12:00:00.123456+00:00"),
            Some(noon + Duration::from_micros(123_456))
        );
        assert_eq!(parse_rfc3339("2026-11-13T14:30:00+02:30"), Some(noon));
        assert_eq!(parse_rfc3339("2026-11-13t07:00:00-05:00"), Some(noon));
    }

    #[test]
    fn refuses_what_is_not_a_timestamp() {
        for text in [
            "",
            "2026-11-13",
            "2026-11-13T12:00:00",
            "2026-13-13T12:00:00Z",
            "2026-11-13T12:00Z",
            "2026-11-13T12:00:00.Z",
            "2026-11-13T12:00:0xZ",
            "1969-12-31T23:59:59Z",
            "2026-11-13T12:00:00+0200",
            "2026-11-13T12:00:00+99999999999999:00",
            "２０２６-11-13T12:00:00Z",
        ] {
            assert_eq!(parse_rfc3339(text), None, "{text:?}");
        }
    }

    #[test]
    fn formats_http_dates() {
        assert_eq!(http_date(Duration::ZERO), "Thu, 01 Jan 1970 00:00:00 GMT");
        assert_eq!(
            http_date(Duration::from_secs(784_111_777)),
            "Sun, 06 Nov 1994 08:49:37 GMT"
        );
    }

    #[test]
    fn fixed_clock_does_not_move() {
        let clock = Clock::fixed(Duration::from_secs(5));
        assert_eq!(clock.now(), clock.now());
    }
}
