//! Value parsers shared by option definitions (sysbench spellings).
//!
//! Each parser checks one option's value where clap reads it, so a bad value
//! stops the command before anything runs. The messages say what the option
//! accepts and leave out the option and the value: `cli::error_line` puts
//! those in front, giving one line of the form `--threads=-1: use ...`.

/// on/off, true/false, yes/no, 1/0.
pub fn parse_bool(s: &str) -> Result<bool, String> {
    match s.to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "1" => Ok(true),
        "off" | "false" | "no" | "0" => Ok(false),
        _ => Err("not a boolean: use on or off".into()),
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
    let bad = || "not a count: use a whole number such as 10000, 10K, 1.5M or 2B".to_string();
    let t = s.trim();
    let (num, mul) = match t.chars().last().map(|c| c.to_ascii_uppercase()) {
        Some('K') => (&t[..t.len() - 1], 1_000f64),
        Some('M') => (&t[..t.len() - 1], 1_000_000f64),
        Some('B') | Some('G') => (&t[..t.len() - 1], 1_000_000_000f64),
        _ => (t, 1f64),
    };
    // Digits and one dot only: f64's parser would also take "inf", "NaN" and "1e3".
    if num.is_empty() || !num.bytes().all(|b| b.is_ascii_digit() || b == b'.') || num.bytes().filter(|&b| b == b'.').count() > 1 {
        return Err(bad());
    }
    let v = num.parse::<f64>().map_err(|_| bad())? * mul;
    if v.fract() != 0.0 || v > MAX_ROWS as f64 {
        return Err(bad());
    }
    Ok(v as u64)
}

/// Rows per table: a count of at least 1.
pub fn table_size(s: &str) -> Result<u64, String> {
    match parse_count(s)? {
        0 => Err("a table needs at least 1 row: use e.g. 10000, 10K or 10M".into()),
        n => Ok(n),
    }
}

/// Thread levels of a sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct Levels(pub Vec<usize>);

/// Most clients of one level: each holds a connection and a stats window, so
/// a typo such as 1000000 would exhaust memory instead of benchmarking.
pub const MAX_THREADS: usize = 100_000;

/// Thread levels: "4", "1,2,4,8", "1..64" (powers of two between).
pub fn parse_levels(s: &str) -> Result<Levels, String> {
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim) {
        if let Some((a, b)) = part.split_once("..") {
            let (a, b) = (level(a)?, level(b)?);
            if a > b {
                return Err(bad_level());
            }
            let mut x = a;
            while x <= b {
                out.push(x);
                x *= 2;
            }
        } else {
            out.push(level(part)?);
        }
    }
    Ok(Levels(out))
}

fn level(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (1..=MAX_THREADS).contains(&n) => Ok(n),
        _ => Err(bad_level()),
    }
}

fn bad_level() -> String {
    format!("use a thread count from 1 to {MAX_THREADS}, a list such as 1,2,4,8 or a range such as 1..64")
}

/// A whole number within `min..=max`, of any unsigned type.
pub fn whole<T: TryFrom<u64>>(s: &str, min: u64, max: u64) -> Result<T, String> {
    let n = s.trim().parse::<u64>().ok().filter(|n| (min..=max).contains(n));
    match n.and_then(|n| T::try_from(n).ok()) {
        Some(v) => Ok(v),
        None if max >= u32::MAX as u64 && max != MAX_ROWS => Err(format!("use a whole number, {min} or more")),
        None => Err(format!("use a whole number from {min} to {max}")),
    }
}

/// Counts where 0 means none (queries per event, sleeps, partitions ...).
pub fn uint32(s: &str) -> Result<u32, String> {
    whole(s, 0, u32::MAX as u64)
}

pub fn uint64(s: &str) -> Result<u64, String> {
    whole(s, 0, u64::MAX)
}

/// A share of events to log, above 0 and at most 1 (pgbench's --sampling-rate).
pub fn sampling_rate(s: &str) -> Result<f64, String> {
    finite(s).filter(|v| *v > 0.0 && *v <= 1.0).ok_or_else(|| "use a share above 0 and at most 1 (e.g. 0.01 for one event in a hundred)".to_string())
}

/// A latency limit in milliseconds, above 0 (pgbench's -L).
pub fn latency_limit(s: &str) -> Result<f64, String> {
    finite(s).filter(|v| *v > 0.0 && *v <= MAX_SECONDS * 1e3).ok_or_else(|| "use a number of milliseconds above 0 (e.g. 50 or 2.5)".to_string())
}

/// Most rows a count or a width of rows may name: 2^53, where f64 (sizes
/// such as 1.5M) stops holding every whole number and far below where the
/// id arithmetic (`id + width - 1` on i64) could overflow.
pub const MAX_ROWS: u64 = 1 << 53;

/// A number of rows, 0 allowed (range widths, ids per update).
pub fn rows(s: &str) -> Result<u64, String> {
    whole(s, 0, MAX_ROWS)
}

/// Counts that make no sense at 0 (tables, warehouses, ids per query ...).
pub fn positive32(s: &str) -> Result<u32, String> {
    whole(s, 1, u32::MAX as u64)
}

pub fn positive_usize(s: &str) -> Result<usize, String> {
    whole(s, 1, usize::MAX as u64)
}

/// A threshold percentage as a fraction: "5%" or "5" is 0.05.
pub fn threshold(s: &str) -> Result<f64, String> {
    let v: f64 = s.trim().trim_end_matches('%').trim().parse().map_err(|_| format!("'{s}' is not a percentage: give one such as 5% or 2.5"))?;
    if !(0.0..100.0).contains(&v) {
        return Err(format!("'{s}': give a percentage from 0 to 100"));
    }
    Ok(v / 100.0)
}

/// A p-value threshold, strictly between 0 and 1.
pub fn alpha(s: &str) -> Result<f64, String> {
    finite(s).filter(|v| *v > 0.0 && *v < 1.0).ok_or_else(|| "use a p-value between 0 and 1 (both excluded), e.g. 0.01".to_string())
}

pub fn gate_metric(s: &str) -> Result<String, String> {
    choice(s, &["throughput", "p99", "both"], "use throughput, p99 or both").map(|o| o.to_ascii_lowercase())
}

pub fn compare_format(s: &str) -> Result<crate::output::CompareFormat, String> {
    variant(s, true)
}

/// A rendering of stored runs by its key; whether it renders what the
/// command prints is the registry's to say (`view::format`).
pub fn format_key(s: &str) -> Result<crate::output::FormatKey, String> {
    variant(s, true)
}

/// Repetitions of each level: a series longer than a thousand runs is a typo.
pub fn repetitions(s: &str) -> Result<usize, String> {
    whole(s, 1, 1000)
}

/// The order of a series' repetitions (`--repeat-order`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
pub enum RepeatOrder {
    /// 1,2,4,1,2,4: the machine's drift falls on every level alike.
    #[default]
    Interleaved,
    /// 1,1,2,2,4,4.
    Grouped,
}

impl RepeatOrder {
    /// As the command line writes it (and the store records it).
    pub fn name(self) -> String {
        crate::output::keys::name(&self)
    }
}

pub fn repeat_order(s: &str) -> Result<RepeatOrder, String> {
    variant(s, true)
}

pub fn arrivals(s: &str) -> Result<crate::model::Arrivals, String> {
    variant(s, true)
}

/// OS threads for network clients: each is a real thread, so a typo must not ask for millions.
pub fn client_threads(s: &str) -> Result<usize, String> {
    whole(s, 1, 4096)
}

/// Iterations of sysbench's "special" distribution, run for every random
/// number: beyond a few hundred it only slows the client down.
pub fn spec_iter(s: &str) -> Result<u32, String> {
    whole(s, 1, 1000)
}

pub fn percentile(s: &str) -> Result<u32, String> {
    whole(s, 1, 100)
}

/// A whole percentage, 0 to 100.
pub fn percent8(s: &str) -> Result<u8, String> {
    whole(s, 0, 100)
}

/// A table name base (`--table-name`): it goes into SQL unquoted on every
/// engine, followed by the table's number, so only a plain identifier of
/// at most 54 characters (MySQL's limit is 64, PostgreSQL's 63) is taken.
pub fn table_base(s: &str) -> Result<String, String> {
    let plain = s.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_') && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !plain {
        return Err(format!("'{s}' is not a plain table name: use letters, digits and _ (starting with a letter or _)"));
    }
    if s.len() > 54 {
        return Err(format!("'{s}' is {} characters long: at most 54 leave room for the table's number", s.len()));
    }
    Ok(s.to_string())
}

pub fn port(s: &str) -> Result<u16, String> {
    whole(s, 1, u16::MAX as u64)
}

/// An address to serve on (`--live`, `--metrics-addr`, `results serve
/// --addr`): HOST:PORT, or a bare port on loopback, so nothing is opened
/// to the network unless an address says so.
pub fn listen_addr(s: &str) -> Result<std::net::SocketAddr, String> {
    if let Ok(port) = s.parse::<u16>() {
        return Ok(std::net::SocketAddr::from(([127, 0, 0, 1], port)));
    }
    s.parse().map_err(|_| "use HOST:PORT with a numeric host (127.0.0.1:8080, 0.0.0.0:8080, [::1]:8080) or a port number (on 127.0.0.1)".to_string())
}

/// Locking-read levels (`--for-update`): 0, 1 or 2.
/// BMK-kit's rand_loop: 0 to 3.
pub fn rand_loop(s: &str) -> Result<u8, String> {
    whole(s, 0, 3).map_err(|_| "use 0 (the distribution), 1 (chunk per client), 2 (shift) or 3 (loop)".to_string())
}

/// sysbench's --verbosity: 0 (critical only) to 5 (debug).
pub fn verbosity(s: &str) -> Result<u8, String> {
    whole(s, 0, 5)
}

/// sysbench's --forced-shutdown: off, a number of seconds after the
/// --time limit, or a percentage of --time.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub enum ForcedShutdown {
    Off,
    Seconds(f64),
    PercentOfTime(f64),
}

impl ForcedShutdown {
    /// How long after the time limit a run still going is stopped.
    pub fn grace(self, time_s: f64) -> Option<f64> {
        match self {
            ForcedShutdown::Off => None,
            ForcedShutdown::Seconds(s) => Some(s),
            ForcedShutdown::PercentOfTime(p) => Some(time_s * p / 100.0),
        }
    }
}

pub fn forced_shutdown(s: &str) -> Result<ForcedShutdown, String> {
    let bad = || "use off, a number of seconds after --time (e.g. 5) or a percentage of --time (e.g. 10%)".to_string();
    let t = s.trim();
    if t.eq_ignore_ascii_case("off") {
        return Ok(ForcedShutdown::Off);
    }
    match t.strip_suffix('%') {
        Some(p) => finite(p).filter(|v| (0.0..=10_000.0).contains(v)).map(ForcedShutdown::PercentOfTime).ok_or_else(bad),
        None => finite(t).filter(|v| (0.0..=MAX_SECONDS).contains(v)).map(ForcedShutdown::Seconds).ok_or_else(bad),
    }
}

/// `--for-update`: 0, 1 or 2 (TPC-C's levels), or on/off (BMK-kit's
/// OLTP and dbSTRESS scripts), on being 1.
pub fn for_update(s: &str) -> Result<u8, String> {
    if let Ok(b) = parse_bool(s) {
        if !s.trim().chars().all(|c| c.is_ascii_digit()) {
            return Ok(b as u8);
        }
    }
    whole(s, 0, 2).map_err(|_| "use 0, 1 or 2 (TPC-C's levels), or on or off".to_string())
}

/// A finite number parsed as f64 (not "inf", "NaN").
pub fn finite(s: &str) -> Option<f64> {
    s.trim().parse::<f64>().ok().filter(|v| v.is_finite())
}

/// Longest duration option, about three years: far beyond any benchmark, and
/// well within what `Duration` and `Instant` arithmetic can hold.
pub const MAX_SECONDS: f64 = 1e8;

/// Durations (0 means "none" or "no limit" for these options).
pub fn seconds(s: &str) -> Result<f64, String> {
    finite(s).filter(|v| (0.0..=MAX_SECONDS).contains(v)).ok_or_else(|| format!("use a number of seconds from 0 to {MAX_SECONDS} (e.g. 10 or 0.5)"))
}

/// A duration as a person writes it: `4h`, `30m`, `90s`, `1h30m`, or plain seconds; above 0.
pub fn span(s: &str) -> Result<f64, String> {
    let bad = || format!("'{s}' is no duration: write it as 4h, 30m, 90s or 1h30m (plain numbers are seconds)");
    let t = s.trim().to_ascii_lowercase();
    if let Some(v) = finite(&t) {
        return Some(v).filter(|v| *v > 0.0 && *v <= MAX_SECONDS).ok_or_else(bad);
    }
    let (mut total, mut num) = (0.0, String::new());
    for c in t.chars() {
        match c {
            '0'..='9' | '.' => num.push(c),
            'h' | 'm' | 's' | 'd' => {
                let v: f64 = num.parse().map_err(|_| bad())?;
                total += v * match c {
                    'd' => 86_400.0,
                    'h' => 3600.0,
                    'm' => 60.0,
                    _ => 1.0,
                };
                num.clear();
            }
            _ => return Err(bad()),
        }
    }
    if !num.is_empty() || total <= 0.0 || total > MAX_SECONDS {
        return Err(bad());
    }
    Ok(total)
}

/// Durations that must be more than zero.
pub fn positive_seconds(s: &str) -> Result<f64, String> {
    finite(s).filter(|v| *v > 0.0 && *v <= MAX_SECONDS).ok_or_else(|| format!("use a number of seconds above 0, up to {MAX_SECONDS} (e.g. 30 or 0.5)"))
}

/// `--find-max`'s objective.
pub fn objective(s: &str) -> Result<crate::model::capacity::Objective, String> {
    s.parse()
}

/// `--find-max-precision`: a percent above 0 and below 100.
pub fn precision_pct(s: &str) -> Result<f64, String> {
    finite(s).filter(|v| *v > 0.0 && *v < 100.0).ok_or_else(|| "use a percent above 0 and below 100 (e.g. 5)".into())
}

/// Open-loop rate bounds: the gap between arrivals, drawn from an
/// exponential distribution, stays a representable duration at the low end;
/// at the high end no client could keep up anyway.
pub const MIN_RATE: f64 = 0.001;
pub const MAX_RATE: f64 = 1e9;

pub fn rate(s: &str) -> Result<f64, String> {
    finite(s).filter(|v| *v == 0.0 || (MIN_RATE..=MAX_RATE).contains(v)).ok_or_else(|| format!("use events per second from {MIN_RATE} to {MAX_RATE}, or 0 for a closed loop"))
}

/// A percentage as a real number, 0 to 100.
pub fn percent(s: &str) -> Result<f64, String> {
    finite(s).filter(|v| (0.0..=100.0).contains(v)).ok_or_else(|| "use a percentage from 0 to 100".to_string())
}

/// sysbench's pareto h: strictly between 0 and 1.
pub fn pareto_h(s: &str) -> Result<f64, String> {
    finite(s).filter(|v| *v > 0.0 && *v < 1.0).ok_or_else(|| "use a number between 0 and 1 (both excluded), e.g. 0.2".to_string())
}

/// Zipfian exponent: 0 (uniform) or more.
pub fn zipfian_exp(s: &str) -> Result<f64, String> {
    finite(s).filter(|v| *v >= 0.0).ok_or_else(|| "use a number, 0 or more (e.g. 0.8)".to_string())
}

/// Items of a comma list; an empty item (`1,,2`, a trailing comma) is a typo, not "nothing".
fn list_items(s: &str) -> Option<Vec<&str>> {
    let items: Vec<&str> = s.split(',').map(str::trim).collect();
    (!items.iter().any(|i| i.is_empty())).then_some(items)
}

/// Whether `s` is `all`, `none`, or a comma list whose every item passes `ok`.
/// The empty string, like `none`, ignores nothing.
fn ignore_list(s: &str, ok: impl Fn(&str) -> bool) -> bool {
    let t = s.trim();
    t.is_empty() || t.eq_ignore_ascii_case("all") || t.eq_ignore_ascii_case("none") || list_items(t).is_some_and(|items| items.iter().all(|i| ok(i)))
}

/// MySQL error numbers that restart an event (sysbench's --mysql-ignore-errors).
pub fn mysql_error_codes(s: &str) -> Result<String, String> {
    if ignore_list(s, |c| c.len() <= 5 && c.parse::<u32>().is_ok()) {
        Ok(s.to_string())
    } else {
        Err("use a comma list of MySQL error numbers (e.g. 1213,1205), all or none".into())
    }
}

/// PostgreSQL SQLSTATEs that restart an event: five digits or capital letters each.
pub fn sqlstates(s: &str) -> Result<String, String> {
    if ignore_list(s, |c| c.len() == 5 && c.bytes().all(|b| b.is_ascii_digit() || b.is_ascii_alphabetic())) {
        Ok(s.to_string())
    } else {
        Err("use a comma list of five-character SQLSTATE codes (e.g. 40001,40P01), all or none".into())
    }
}

/// `s` when it is one of `allowed` (ASCII case ignored), else `hint`.
pub fn choice(s: &str, allowed: &[&str], hint: &str) -> Result<String, String> {
    if allowed.iter().any(|a| a.eq_ignore_ascii_case(s)) {
        Ok(s.to_string())
    } else {
        Err(hint.to_string())
    }
}

/// A value of an option whose values are an enum's variants, exactly or in
/// any case; refused with the same one-line hint as `choice`'s ("use a, b
/// or c"), the names taken from the enum.
pub fn variant<T: clap::ValueEnum>(s: &str, ignore_case: bool) -> Result<T, String> {
    T::from_str(s, ignore_case).map_err(|_| {
        let names: Vec<String> = T::value_variants().iter().filter_map(|v| v.to_possible_value()).filter(|p| !p.is_hide_set()).map(|p| p.get_name().to_string()).collect();
        match names.split_last() {
            Some((last, [])) => format!("use {last}"),
            Some((last, rest)) => format!("use {} or {last}", rest.join(", ")),
            None => "no value is accepted".to_string(),
        }
    })
}

/// `s` when it is exactly one of `allowed` (the code compares it as given).
pub fn exact(s: &str, allowed: &[&str], hint: &str) -> Result<String, String> {
    if allowed.contains(&s) {
        Ok(s.to_string())
    } else {
        Err(hint.to_string())
    }
}

/// A plain-HTTP metrics URL: `http://host:port/path` (the path defaults to /metrics).
pub fn metrics_url(s: &str) -> Result<String, String> {
    let rest = s.strip_prefix("http://").ok_or("use an http:// URL of a Prometheus exporter, e.g. http://dbhost:9100/metrics")?;
    let host = rest.split('/').next().unwrap_or("");
    match host.rsplit_once(':') {
        Some((h, p)) if !h.is_empty() && p.parse::<u16>().is_ok_and(|p| p > 0) => Ok(s.to_string()),
        _ => Err("give the exporter's host and port, e.g. http://dbhost:9100/metrics".into()),
    }
}

/// `--output`: as typed (text or json, lower case).
pub fn output(s: &str) -> Result<crate::output::ConsoleFormat, String> {
    variant(s, false)
}

pub fn db_driver(s: &str) -> Result<String, String> {
    choice(s, &["mysql", "mariadb", "pgsql", "postgres", "postgresql", "sqlite", "sqlite3"], "use mysql, pgsql or sqlite")
}

pub fn db_ps_mode(s: &str) -> Result<String, String> {
    choice(s, &["auto", "disable"], "use auto or disable")
}

pub fn transport(s: &str) -> Result<String, String> {
    choice(s, &["socket", "tcp"], "use socket or tcp")
}

pub fn ssl_mode(s: &str) -> Result<String, String> {
    crate::db::SslMode::parse(s).map(|_| s.to_string()).map_err(|_| "use DISABLED, PREFERRED, REQUIRED, VERIFY_CA or VERIFY_IDENTITY (or disable, prefer, require, verify-full)".to_string())
}

pub fn rand_type(s: &str) -> Result<String, String> {
    s.parse::<crate::rand::RandType>().map(|_| s.to_string()).map_err(|_| "use uniform, gaussian, special, pareto or zipfian".to_string())
}

pub fn load_mode(s: &str) -> Result<String, String> {
    crate::db::LoadMode::parse(s).map(|_| s.to_string()).ok_or_else(|| "use auto, infile, insert, copy, or BMK-kit's original, parallel or parallel_ordered".to_string())
}

pub fn table_pick(s: &str) -> Result<String, String> {
    exact(s, &["pinned", "random", "auto"], "use pinned, random or auto")
}

pub fn fail_on(s: &str) -> Result<String, String> {
    choice(s, &["critical", "warning", "never"], "use critical, warning or never")
}

/// Names pasted into SQL: letters, digits and _ only.
pub fn identifier_prefix(s: &str) -> Result<String, String> {
    if s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        Ok(s.to_string())
    } else {
        Err("use letters, digits and _ only".into())
    }
}

/// A `--group` name goes into the barrier table's rows as text.
pub fn group_name(s: &str) -> Result<String, String> {
    if !s.is_empty() && s.len() <= 64 && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')) {
        Ok(s.to_string())
    } else {
        Err("use 1 to 64 letters, digits, '-', '_' or '.'".into())
    }
}

pub fn group_size(s: &str) -> Result<usize, String> {
    s.trim().parse::<usize>().ok().filter(|n| (1..=10000).contains(n)).ok_or_else(|| "use a member count from 1 to 10000".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_base_takes_plain_identifiers_only() {
        assert_eq!(table_base("sbtest").unwrap(), "sbtest");
        assert_eq!(table_base("_t9").unwrap(), "_t9");
        for bad in ["", "9t", "t; DROP TABLE x", "t-1", "t`", "t\"", "é", &"t".repeat(55)] {
            assert!(table_base(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_bare_port_listens_on_loopback_only() {
        assert_eq!(listen_addr("8080"), Ok(std::net::SocketAddr::from(([127, 0, 0, 1], 8080))));
        assert_eq!(listen_addr("0.0.0.0:9"), Ok(std::net::SocketAddr::from(([0, 0, 0, 0], 9))));
        assert!(listen_addr("nowhere").is_err());
        assert!(listen_addr("70000").is_err());
    }

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
