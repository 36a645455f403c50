//! Decimal digits appended to a string without `fmt`: timestamps and JSON paths are written
//! on every message, and a `format!` or `write!` per number cost several times the copying.

/// Appends `value` in decimal, zero-padded to `width` digits (as `{value:0width$}`).
pub(crate) fn push_padded(text: &mut String, value: u64, width: usize) {
    let mut digits = [b'0'; 20];
    let mut first = digits.len();
    let mut rest = value;
    loop {
        first -= 1;
        digits[first] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    let first = first.min(digits.len().saturating_sub(width));
    text.extend(digits[first..].iter().map(|&digit| char::from(digit)));
}

#[cfg(test)]
mod tests {
    use super::push_padded;

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
}
