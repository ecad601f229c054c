//! Values as the wire's text: integers, scaled decimals and timestamps
//! written into a reused buffer without allocating, and parameters
//! interpolated into SQL for the text protocol.

use super::Param;

/// Decimal digits of `n` appended to `buf`, without formatting machinery
/// (hot paths: statement names, rows for LOAD DATA).
pub(crate) fn push_decimal(buf: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    buf.extend_from_slice(&digits[i..]);
}

/// Decimal text of `v`, sign included.
pub(crate) fn push_int(buf: &mut Vec<u8>, v: i64) {
    if v < 0 {
        buf.push(b'-');
    }
    push_decimal(buf, v.unsigned_abs());
}

/// `n` as exactly `width` digits, zero-padded (n < 10^width).
fn push_padded(buf: &mut Vec<u8>, mut n: u64, width: usize) {
    let start = buf.len();
    buf.resize(start + width, b'0');
    for d in buf[start..].iter_mut().rev() {
        *d = b'0' + (n % 10) as u8;
        n /= 10;
    }
}

/// `v / 10^scale` as decimal text (1234, 2 -> "12.34"), written in place:
/// rows for LOAD DATA carry several per row.
pub(crate) fn push_scaled(buf: &mut Vec<u8>, v: i64, scale: u8) {
    if scale == 0 {
        return push_int(buf, v);
    }
    let p = 10u64.pow(scale as u32);
    if v < 0 {
        buf.push(b'-');
    }
    let a = v.unsigned_abs();
    push_decimal(buf, a / p);
    buf.push(b'.');
    push_padded(buf, a % p, scale as usize);
}

/// Unix seconds as `YYYY-MM-DD HH:MM:SS` (UTC), written in place.
pub(crate) fn push_timestamp(buf: &mut Vec<u8>, secs: i64) {
    push_date(buf, secs.div_euclid(86400));
    let rem = secs.rem_euclid(86400) as u64;
    for (sep, v) in [(b' ', rem / 3600), (b':', rem / 60 % 60), (b':', rem % 60)] {
        buf.push(sep);
        push_padded(buf, v, 2);
    }
}

/// Days since 1970-01-01 as `YYYY-MM-DD`, written in place.
pub(crate) fn push_date(buf: &mut Vec<u8>, days: i64) {
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    if (0..10_000).contains(&y) {
        push_padded(buf, y as u64, 4);
    } else {
        push_int(buf, y);
    }
    for v in [m as u64, d as u64] {
        buf.push(b'-');
        push_padded(buf, v, 2);
    }
}

fn ascii_string(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_default()
}

/// `v / 10^scale` as decimal text (1234, 2 -> "12.34").
pub fn decimal_text(v: i64, scale: u8) -> String {
    let mut b = Vec::with_capacity(24);
    push_scaled(&mut b, v, scale);
    ascii_string(b)
}

/// Unix seconds as `YYYY-MM-DD HH:MM:SS` (UTC).
pub fn timestamp_text(secs: i64) -> String {
    let mut b = Vec::with_capacity(19);
    push_timestamp(&mut b, secs);
    ascii_string(b)
}

/// Days since 1970-01-01 as `YYYY-MM-DD`.
pub fn date_text(days: i64) -> String {
    let mut b = Vec::with_capacity(10);
    push_date(&mut b, days);
    ascii_string(b)
}

/// Render `?` placeholders with literal values (text protocol, `--db-ps-mode=disable`).
pub fn interpolate(sql: &str, params: &[Param<'_>], out: &mut String, quote_backslash: bool) {
    use std::fmt::Write;
    out.clear();
    let mut it = params.iter();
    for ch in sql.chars() {
        if ch == '?' {
            match it.next() {
                Some(Param::Int(v)) => {
                    let _ = write!(out, "{v}");
                }
                Some(Param::Text(s)) => {
                    out.push('\'');
                    for c in s.chars() {
                        match c {
                            '\'' => out.push_str("''"),
                            '\\' if quote_backslash => out.push_str("\\\\"),
                            c => out.push(c),
                        }
                    }
                    out.push('\'');
                }
                None => out.push('?'),
            }
        } else {
            out.push(ch);
        }
    }
}

/// Rewrite `?` to `$1, $2, ...` for PostgreSQL.
pub fn dollar_params(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 8);
    let mut n = 0;
    for ch in sql.chars() {
        if ch == '?' {
            n += 1;
            out.push('$');
            out.push_str(&n.to_string());
        } else {
            out.push(ch);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_and_timestamps_are_written_in_place() {
        for (v, scale, want) in [(1234, 2, "12.34"), (-5, 2, "-0.05"), (7, 4, "0.0007"), (-1000, 0, "-1000"), (3_000_000, 2, "30000.00"), (i64::MIN, 2, "-92233720368547758.08")] {
            assert_eq!(decimal_text(v, scale), want);
        }
        for (secs, want) in
            [(0, "1970-01-01 00:00:00"), (951_782_400, "2000-02-29 00:00:00"), (1_700_000_000, "2023-11-14 22:13:20"), (-1, "1969-12-31 23:59:59"), (253_402_300_799, "9999-12-31 23:59:59")]
        {
            assert_eq!(timestamp_text(secs), want);
        }
        for (days, want) in [(0, "1970-01-01"), (8035, "1992-01-01"), (10_957, "2000-01-01"), (10_561, "1998-12-01"), (-1, "1969-12-31")] {
            assert_eq!(date_text(days), want);
        }
    }
}
