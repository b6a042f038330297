//! Times: the wire counts seconds since 2001-01-01T00:00:00Z (Foundation's reference date); what
//! the plugin shows and stores is ISO 8601 UTC with whole seconds, "2026-03-02T08:00:00Z".
//! std has no calendar, so the civil date comes from Howard Hinnant's days-from-civil algorithm
//! (http://howardhinnant.github.io/date_algorithms.html), exact for the proleptic Gregorian calendar.

/// Unix seconds at the wire's zero, 2001-01-01T00:00:00Z.
pub const WIRE_EPOCH_UNIX: i64 = 978_307_200;

/// Wire seconds at 0001-01-01T00:00:00Z and at 10000-01-01T00:00:00Z: ISO 8601's four-digit
/// years are all the format can show (the C plugin keeps to the same range).
const WIRE_MIN: f64 = -62_135_596_800.0 - WIRE_EPOCH_UNIX as f64;
const WIRE_END: f64 = 253_402_300_800.0 - WIRE_EPOCH_UNIX as f64;

/// `wire` (seconds since 2001) as "YYYY-MM-DDTHH:MM:SSZ", or None outside the years 1 to 9999
/// (and for NaN). The fraction of a second is dropped towards the past (floor), so a time never
/// shows as a second it has not reached yet.
pub fn iso_from_wire(wire: f64) -> Option<String> {
    if !(WIRE_MIN..WIRE_END).contains(&wire) {
        // NaN is in no range, so it is refused here too.
        return None;
    }
    Some(iso_from_unix(wire.floor() as i64 + WIRE_EPOCH_UNIX))
}

/// Unix seconds as "YYYY-MM-DDTHH:MM:SSZ".
pub fn iso_from_unix(unix: i64) -> String {
    let days = unix.div_euclid(86_400);
    let second_of_day = unix.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
        year,
        month,
        day,
        second_of_day / 3600,
        second_of_day / 60 % 60,
        second_of_day % 60
    )
}

/// Days since 1970-01-01 of a proleptic Gregorian date (month 1…12, day 1…31). Kept beside its
/// inverse so the tests can check one against the other.
#[cfg_attr(not(test), allow(dead_code))]
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    // Counting years from March puts the leap day last, so a year's length never matters mid-year.
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400; // [0, 399]
    let m = month as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + day as i64 - 1; // [0, 365]
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy; // [0, 146096]
    era * 146_097 + doe - 719_468
}

/// The inverse of `days_from_civil`: (year, month 1…12, day 1…31) of a day count since 1970-01-01.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468; // days since 0000-03-01
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097; // [0, 146096]
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365; // [0, 399]
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100); // [0, 365]
    let mp = (5 * doy + 2) / 153; // [0, 11], March first
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = (if mp < 10 { mp + 3 } else { mp - 9 }) as u32;
    let year = yoe + era * 400 + if month <= 2 { 1 } else { 0 };
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_times() {
        let iso = |wire: f64| iso_from_wire(wire).unwrap();
        assert_eq!(iso(0.0), "2001-01-01T00:00:00Z");
        assert_eq!(iso(796_694_400.0), "2026-04-01T00:00:00Z");
        assert_eq!(iso(796_809_600.0), "2026-04-02T08:00:00Z");
        assert_eq!(iso(796_809_600.999), "2026-04-02T08:00:00Z");
        assert_eq!(iso(794_131_200.0), "2026-03-02T08:00:00Z");
        assert_eq!(iso(-0.5), "2000-12-31T23:59:59Z");
        assert_eq!(iso(WIRE_MIN), "0001-01-01T00:00:00Z");
        assert_eq!(iso(WIRE_END - 0.5), "9999-12-31T23:59:59Z");
        assert_eq!(iso_from_unix(0), "1970-01-01T00:00:00Z");
        assert_eq!(iso_from_unix(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(iso_from_unix(4_107_542_399), "2100-02-28T23:59:59Z");
        assert_eq!(iso_from_unix(4_107_542_400), "2100-03-01T00:00:00Z");
        assert_eq!(iso_from_wire(WIRE_END), None);
        assert_eq!(iso_from_wire(WIRE_MIN - 1.0), None);
        assert_eq!(iso_from_wire(f64::NAN), None);
        assert_eq!(iso_from_wire(f64::INFINITY), None);
        assert_eq!(iso_from_wire(-1e300), None);
    }

    #[test]
    fn round_trip() {
        let mut d = -800_000;
        while d < 800_000 {
            let (y, m, day) = civil_from_days(d);
            assert_eq!(days_from_civil(y, m, day), d);
            d += 7;
        }
        assert_eq!(days_from_civil(2026, 4, 1) * 86_400 - WIRE_EPOCH_UNIX, 796_694_400);
        assert_eq!(days_from_civil(2001, 1, 1) * 86_400, WIRE_EPOCH_UNIX);
    }
}
