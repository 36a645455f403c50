//! Numbers appended to a string as digits, without `fmt`: timestamps and JSON paths are
//! written on every message, trace lines' numbers on every event and ids on every task, and
//! a `format!` or `write!` per number cost several times the copying. Each writes exactly
//! what the `fmt` form it names would.

/// The numbers 00 to 99 as two ASCII digits each, for [`push_padded`] to write two digits
/// a division: a trace line's time has 7 to 9 digits, and a division a digit cost half again.
const PAIRS: [u8; 200] = {
    let mut pairs = [0; 200];
    let mut n = 0;
    while n < 100 {
        pairs[2 * n] = b'0' + (n / 10) as u8;
        pairs[2 * n + 1] = b'0' + (n % 10) as u8;
        n += 1;
    }
    pairs
};

/// Appends `value` in decimal, zero-padded to `width` digits (as `{value:0width$}`).
pub fn push_padded(text: &mut String, value: u64, width: usize) {
    let mut digits = [b'0'; 20];
    let mut first = digits.len();
    let mut rest = value;
    while rest >= 100 {
        let pair = (rest % 100) as usize * 2;
        rest /= 100;
        first -= 2;
        digits[first..first + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
    }
    if rest >= 10 {
        let pair = rest as usize * 2;
        first -= 2;
        digits[first..first + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
    } else {
        first -= 1;
        digits[first] = b'0' + rest as u8;
    }
    let first = first.min(digits.len().saturating_sub(width));
    // One copy of the whole number: pushing digit by digit checked the room and encoded a
    // `char` for each, and `str::from_utf8` cost more than that for a few digits.
    // SAFETY: every byte of `digits` is an ASCII digit: `b'0'`, `b'0'` plus a number below
    // 10, or two bytes of `PAIRS`, each of those.
    text.push_str(unsafe { std::str::from_utf8_unchecked(&digits[first..]) });
}

/// Appends `value` in decimal (as `{value}`).
pub fn push_decimal(text: &mut String, value: u64) {
    push_padded(text, value, 1);
}

/// Appends `value` in decimal with its sign (as `{value}`).
pub fn push_signed(text: &mut String, value: i64) {
    if value < 0 {
        text.push('-');
    }
    push_decimal(text, value.unsigned_abs());
}

/// Appends `byte` as two lowercase hexadecimal digits (as `{byte:02x}`).
pub fn push_hex_byte(text: &mut String, byte: u8) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    text.push(char::from(DIGITS[usize::from(byte >> 4)]));
    text.push(char::from(DIGITS[usize::from(byte & 0xf)]));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pads_to_the_width_and_never_cuts() {
        for (value, width, written) in [
            (0, 1, "0"),
            (7, 3, "007"),
            (2026, 4, "2026"),
            (12345, 2, "12345"),
            (u64::MAX, 1, "18446744073709551615"),
        ] {
            let mut text = String::from(">");
            push_padded(&mut text, value, width);
            assert_eq!(text, format!(">{written}"));
            assert_eq!(text[1..], format!("{value:0width$}"));
        }
    }

    #[test]
    fn decimals_are_written_as_display_writes_them() {
        for value in [0, 1, 9, 10, 99, 100, 4_294_967_296, u64::MAX - 1, u64::MAX] {
            let mut text = String::new();
            push_decimal(&mut text, value);
            assert_eq!(text, value.to_string());
        }
        for value in [
            0,
            1,
            -1,
            10,
            -10,
            1_000_007,
            i64::MAX,
            i64::MIN + 1,
            i64::MIN,
        ] {
            let mut text = String::new();
            push_signed(&mut text, value);
            assert_eq!(text, value.to_string());
        }
    }

    #[test]
    fn every_number_of_up_to_six_digits_and_each_power_of_ten_is_written_as_display_does() {
        let powers = (0..20).flat_map(|exponent| {
            let power = 10u64.pow(exponent);
            [power - 1, power, power + 1]
        });
        for value in (0..1_000_000).chain(powers) {
            for width in [1, 3, 8] {
                let mut text = String::new();
                push_padded(&mut text, value, width);
                assert_eq!(text, format!("{value:0width$}"));
            }
        }
    }

    #[test]
    fn every_byte_is_written_as_lowercase_hex() {
        for byte in 0..=u8::MAX {
            let mut text = String::new();
            push_hex_byte(&mut text, byte);
            assert_eq!(text, format!("{byte:02x}"));
        }
    }
}
