//! The `in` of a reminder: "30m", "2h", "1d", "1h30m", "45s" — one or more groups of ASCII digits
//! followed by a unit (d, h, m or s), nothing else, not even spaces.

/// The longest wait a reminder may ask for: 366 days, in seconds.
pub const MAX_SECONDS: i64 = 366 * 86_400;

/// The seconds `text` stands for, if it is well formed and its total is more than 0 and at most
/// 366 days; `None` otherwise. Sums are checked, so "99999999999999999999d" is refused, not wrapped.
pub fn parse_seconds(text: &str) -> Option<i64> {
    let mut total: i64 = 0;
    let mut number: Option<i64> = None; // digits read since the last unit
    for c in text.chars() {
        if let Some(digit) = c.to_digit(10) {
            // to_digit(10) takes only '0'…'9', so other scripts' digits are refused here.
            let so_far = number.unwrap_or(0);
            number = Some(so_far.checked_mul(10)?.checked_add(digit as i64)?);
            continue;
        }
        let unit = match c {
            'd' => 86_400,
            'h' => 3_600,
            'm' => 60,
            's' => 1,
            _ => return None,
        };
        // A unit needs digits in front of it ("h" or "1hm" is not a duration).
        let n = number.take()?;
        total = total.checked_add(n.checked_mul(unit)?)?;
    }
    // Digits without a unit at the end ("30") and an empty text are refused.
    if number.is_some() || total <= 0 || total > MAX_SECONDS {
        return None;
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts() {
        assert_eq!(parse_seconds("30m"), Some(1800));
        assert_eq!(parse_seconds("2h"), Some(7200));
        assert_eq!(parse_seconds("1d"), Some(86_400));
        assert_eq!(parse_seconds("1h30m"), Some(5400));
        assert_eq!(parse_seconds("45s"), Some(45));
        assert_eq!(parse_seconds("0h5m"), Some(300));
        assert_eq!(parse_seconds("366d"), Some(MAX_SECONDS));
        assert_eq!(parse_seconds("1m1m"), Some(120));
    }

    #[test]
    fn refuses() {
        for bad in [
            "", "0m", "0d0h", "30", "m", "1hm", "1x", " 30m", "30m ", "1.5h", "-1h", "367d", "366d1s",
            "99999999999999999999d", "9223372036854775807d", "３０m", "30M",
        ] {
            assert_eq!(parse_seconds(bad), None, "{:?}", bad);
        }
    }
}
