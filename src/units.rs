//! Units and time formats shared by every part of the house: sizes in
//! binary units and UTC timestamps that sort as text.

use std::time::{SystemTime, UNIX_EPOCH};

/// Bytes in binary units: "512 B", "1.5 KiB", "2.0 GiB".
pub fn human_bytes(b: f64) -> String {
    const U: &[&str] = &["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b;
    let mut i = 0;
    while v >= 1024.0 && i + 1 < U.len() {
        v /= 1024.0;
        i += 1;
    }
    if i == 0 {
        format!("{v:.0} {}", U[i])
    } else {
        format!("{v:.1} {}", U[i])
    }
}

pub fn now_rfc3339() -> String {
    rfc3339(SystemTime::now())
}

/// UTC time as `YYYY-MM-DDTHH:MM:SS.mmmZ` (sortable as text).
pub fn rfc3339(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs() as i64;
    let (days, rem) = (secs.div_euclid(86400), secs.rem_euclid(86400));
    // Howard Hinnant's civil-from-days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!("{y:04}-{m:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z", rem / 3600, rem % 3600 / 60, rem % 60, d.subsec_millis())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn time_format() {
        assert_eq!(rfc3339(UNIX_EPOCH + Duration::from_millis(1_700_000_000_123)), "2023-11-14T22:13:20.123Z");
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
    }

    #[test]
    fn sizes() {
        assert_eq!(human_bytes(512.0), "512 B");
        assert_eq!(human_bytes(1536.0), "1.5 KiB");
        assert_eq!(human_bytes(128.0 * 1048576.0), "128.0 MiB");
    }
}

/// Seconds as a person reads a duration: `45 s`, `12 min`, `3 h 5 min`.
pub fn human_secs(secs: f64) -> String {
    let s = secs.max(0.0).round() as u64;
    match s {
        0..=119 => format!("{s} s"),
        120..=7199 => format!("{} min", (s + 30) / 60),
        _ => {
            let m = (s + 30) / 60;
            format!("{} h {} min", m / 60, m % 60)
        }
    }
}

#[cfg(test)]
mod human_secs_tests {
    #[test]
    fn durations_read_as_a_person_says_them() {
        assert_eq!(super::human_secs(45.2), "45 s");
        assert_eq!(super::human_secs(720.0), "12 min");
        assert_eq!(super::human_secs(6.0 * 1800.0 + 61.0), "3 h 1 min");
    }
}
