//! Value parsers shared by option definitions (sysbench spellings).

/// on/off, true/false, yes/no, 1/0.
pub fn parse_bool(s: &str) -> Result<bool, String> {
    match s.to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "1" => Ok(true),
        "off" | "false" | "no" | "0" => Ok(false),
        _ => Err(format!("'{s}' is not a boolean: use on or off")),
    }
}

pub fn bool_str(b: bool) -> &'static str {
    if b {
        "on"
    } else {
        "off"
    }
}

/// 10000, 10K, 1M, 1.5M, 2B (BMK-kit sizes).
pub fn parse_count(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (num, mul) = match t.chars().last().map(|c| c.to_ascii_uppercase()) {
        Some('K') => (&t[..t.len() - 1], 1_000f64),
        Some('M') => (&t[..t.len() - 1], 1_000_000f64),
        Some('B') | Some('G') => (&t[..t.len() - 1], 1_000_000_000f64),
        _ => (t, 1f64),
    };
    let v: f64 = num.parse().map_err(|_| format!("'{s}' is not a count: use e.g. 10000, 10K or 10M"))?;
    if v < 0.0 {
        return Err(format!("'{s}' must not be negative"));
    }
    Ok((v * mul).round() as u64)
}

/// Thread levels of a sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct Levels(pub Vec<usize>);

/// Thread levels: "4", "1,2,4,8", "1..64" (powers of two between).
pub fn parse_levels(s: &str) -> Result<Levels, String> {
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        if let Some((a, b)) = part.split_once("..") {
            let (a, b): (usize, usize) = (a.parse().map_err(|_| bad_level(s))?, b.parse().map_err(|_| bad_level(s))?);
            let mut x = a.max(1);
            while x <= b {
                out.push(x);
                x *= 2;
            }
        } else {
            out.push(part.parse::<usize>().map_err(|_| bad_level(s))?);
        }
    }
    if out.is_empty() || out.contains(&0) {
        return Err(bad_level(s));
    }
    Ok(Levels(out))
}

fn bad_level(s: &str) -> String {
    format!("'{s}' is not a thread count or list: use e.g. 4, or 1,2,4,8, or 1..64")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts() {
        assert_eq!(parse_count("10M"), Ok(10_000_000));
        assert_eq!(parse_count("10k"), Ok(10_000));
        assert_eq!(parse_count("1.5M"), Ok(1_500_000));
        assert_eq!(parse_count("123"), Ok(123));
        assert!(parse_count("x").is_err());
    }

    #[test]
    fn levels() {
        assert_eq!(parse_levels("1,2,4"), Ok(Levels(vec![1, 2, 4])));
        assert_eq!(parse_levels("1..16"), Ok(Levels(vec![1, 2, 4, 8, 16])));
        assert!(parse_levels("0").is_err());
        assert!(parse_levels("a").is_err());
    }

    #[test]
    fn bools() {
        assert_eq!(parse_bool("ON"), Ok(true));
        assert_eq!(parse_bool("off"), Ok(false));
        assert!(parse_bool("maybe").is_err());
    }
}
