//! Which host of a PostgreSQL host list a connection ends on, as libpq
//! chooses: the hosts in the order given (or shuffled, with
//! `load_balance_hosts=random`), the first one that accepts the connection
//! and whose session fits `target_session_attrs`.
//!
//! A host's state comes from what PostgreSQL 14 and later report at
//! startup (`in_hot_standby`, `default_transaction_read_only`), so no
//! extra round trip is needed; older servers and poolers that do not pass
//! those on are asked with one query.

use crate::error::{one_line, Error};
use std::sync::atomic::{AtomicU64, Ordering};

/// libpq's `target_session_attrs`: what a session must be for the
/// connection to keep it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SessionAttrs {
    /// The first host that accepts the connection.
    #[default]
    Any,
    /// Transactions are read-write by default (not a standby, and
    /// `default_transaction_read_only` off).
    ReadWrite,
    /// Transactions are read-only by default (a standby, or
    /// `default_transaction_read_only` on).
    ReadOnly,
    /// Not in hot standby (recovery).
    Primary,
    /// In hot standby.
    Standby,
    /// A standby if any host is one, else any host.
    PreferStandby,
}

/// The values `target_session_attrs` takes, as an error message lists them.
pub const SESSION_ATTRS: &str = "any, read-write, read-only, primary, standby or prefer-standby";

impl SessionAttrs {
    pub fn parse(s: &str) -> Result<SessionAttrs, Error> {
        Ok(match s {
            "any" => SessionAttrs::Any,
            "read-write" => SessionAttrs::ReadWrite,
            "read-only" => SessionAttrs::ReadOnly,
            "primary" => SessionAttrs::Primary,
            "standby" => SessionAttrs::Standby,
            "prefer-standby" => SessionAttrs::PreferStandby,
            _ => return Err(Error::Usage(one_line(&format!("invalid target_session_attrs value '{s}': use {SESSION_ATTRS}")).into_owned())),
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            SessionAttrs::Any => "any",
            SessionAttrs::ReadWrite => "read-write",
            SessionAttrs::ReadOnly => "read-only",
            SessionAttrs::Primary => "primary",
            SessionAttrs::Standby => "standby",
            SessionAttrs::PreferStandby => "prefer-standby",
        }
    }

    /// Whether a host's state must be known to keep its connection.
    pub fn checks(self) -> bool {
        self != SessionAttrs::Any
    }

    /// Whether a session in `state` fits on the first pass over the hosts
    /// (prefer-standby looks for a standby first, then takes any host).
    pub fn fits(self, state: HostState) -> bool {
        match self {
            SessionAttrs::Any => true,
            SessionAttrs::ReadWrite => !state.read_only,
            SessionAttrs::ReadOnly => state.read_only,
            SessionAttrs::Primary => !state.in_recovery,
            SessionAttrs::Standby | SessionAttrs::PreferStandby => state.in_recovery,
        }
    }
}

/// libpq's `load_balance_hosts`.
pub fn parse_load_balance(s: &str) -> Result<bool, Error> {
    match s {
        "disable" => Ok(false),
        "random" => Ok(true),
        _ => Err(Error::Usage(one_line(&format!("invalid load_balance_hosts value '{s}': use disable or random")).into_owned())),
    }
}

/// What a host's session is, as far as `target_session_attrs` cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostState {
    /// Transactions are read-only by default (`transaction_read_only`).
    pub read_only: bool,
    /// The server is a hot standby (`pg_is_in_recovery()`).
    pub in_recovery: bool,
}

impl HostState {
    /// From the startup ParameterStatus values, when the server sent both
    /// (PostgreSQL 14 and later): a standby's sessions are read-only too.
    pub fn reported(in_hot_standby: Option<&str>, default_read_only: Option<&str>) -> Option<HostState> {
        let on = |v: &str| v == "on";
        let standby = on(in_hot_standby?);
        Some(HostState { read_only: standby || on(default_read_only?), in_recovery: standby })
    }

    /// The query older servers are asked instead; its one row is read by [`HostState::from_row`].
    pub const QUERY: &'static str = "SELECT pg_catalog.pg_is_in_recovery(), pg_catalog.current_setting('transaction_read_only')";

    pub fn from_row(row: &[Option<String>]) -> Option<HostState> {
        let flag = |v: &Option<String>| matches!(v.as_deref(), Some("t" | "true" | "on"));
        match row {
            [rec, ro] => Some(HostState { read_only: flag(ro), in_recovery: flag(rec) }),
            _ => None,
        }
    }

    /// Why a host was passed over, for the error that names every host.
    pub fn describe(self) -> &'static str {
        match (self.in_recovery, self.read_only) {
            (true, _) => "is a standby (in recovery, read-only)",
            (false, true) => "is a primary whose sessions are read-only (default_transaction_read_only=on)",
            (false, false) => "is a primary (read-write)",
        }
    }
}

/// The order hosts are tried in: as listed, or shuffled once per
/// connection attempt (libpq's `load_balance_hosts=random`).
pub fn order(n: usize, random: bool) -> Vec<usize> {
    let mut v: Vec<usize> = (0..n).collect();
    if random {
        let mut r = seed();
        for i in (1..n).rev() {
            r = splitmix(r);
            v.swap(i, (r % (i as u64 + 1)) as usize);
        }
    }
    v
}

/// A seed that differs between calls and processes: the clock and a counter.
fn seed() -> u64 {
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0);
    nanos ^ CALLS.fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed) ^ ((std::process::id() as u64) << 32)
}

fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// What happened at each host tried, for the one-line error when none fits.
#[derive(Default)]
pub struct Refusals {
    why: Vec<String>,
}

impl Refusals {
    pub fn add(&mut self, host: &str, why: impl std::fmt::Display) {
        self.why.push(format!("{host}: {why}"));
    }

    pub fn is_empty(&self) -> bool {
        self.why.is_empty()
    }

    /// The message naming every host and why it was passed over.
    pub fn message(&self, attrs: SessionAttrs) -> String {
        let what = match attrs {
            SessionAttrs::Any => "no host accepted a connection".to_string(),
            a => format!("no host fits target_session_attrs={}", a.name()),
        };
        one_line(&format!("{what}: {}", self.why.join("; "))).into_owned()
    }
}

/// `host:port`, an IPv6 address in brackets.
pub fn host_port((h, p): &(String, u16)) -> String {
    address(h, p)
}

/// `host:port` of any port (a status API's, one a flag names), an IPv6
/// address in brackets.
pub fn address(host: &str, port: impl std::fmt::Display) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// Whether a startup error means the other hosts need not be tried:
/// libpq stops at a host that refused the credentials, as the same ones
/// would be refused everywhere.
pub fn stops_the_search(sqlstate: &str) -> bool {
    sqlstate.starts_with("28")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_documented_value_parses_and_names_itself() {
        for v in ["any", "read-write", "read-only", "primary", "standby", "prefer-standby"] {
            assert_eq!(SessionAttrs::parse(v).unwrap().name(), v);
        }
        let e = SessionAttrs::parse("master").unwrap_err().to_string();
        assert!(e.contains("'master'") && e.contains("prefer-standby"), "{e}");
        assert!(SessionAttrs::parse("Read-Write").is_err(), "libpq's values are lower case");
        assert!(parse_load_balance("random").unwrap() && !parse_load_balance("disable").unwrap());
        assert!(parse_load_balance("on").unwrap_err().to_string().contains("disable or random"));
    }

    #[test]
    fn attributes_fit_as_libpq_documents() {
        let primary = HostState { read_only: false, in_recovery: false };
        let ro_primary = HostState { read_only: true, in_recovery: false };
        let standby = HostState { read_only: true, in_recovery: true };
        use SessionAttrs::*;
        let fits = |a: SessionAttrs| [primary, ro_primary, standby].map(|s| a.fits(s));
        assert_eq!(fits(Any), [true, true, true]);
        assert_eq!(fits(ReadWrite), [true, false, false]);
        assert_eq!(fits(ReadOnly), [false, true, true]);
        // default_transaction_read_only makes a primary read-only, not a standby.
        assert_eq!(fits(Primary), [true, true, false]);
        assert_eq!(fits(Standby), [false, false, true]);
        assert_eq!(fits(PreferStandby), [false, false, true]);
    }

    #[test]
    fn state_from_startup_parameters_or_the_query() {
        assert_eq!(HostState::reported(Some("on"), Some("off")), Some(HostState { read_only: true, in_recovery: true }));
        assert_eq!(HostState::reported(Some("off"), Some("on")), Some(HostState { read_only: true, in_recovery: false }));
        assert_eq!(HostState::reported(Some("off"), Some("off")), Some(HostState { read_only: false, in_recovery: false }));
        assert_eq!(HostState::reported(None, Some("off")), None, "before PostgreSQL 14: ask");
        let row = |a: &str, b: &str| vec![Some(a.to_string()), Some(b.to_string())];
        assert_eq!(HostState::from_row(&row("t", "on")), Some(HostState { read_only: true, in_recovery: true }));
        assert_eq!(HostState::from_row(&row("false", "off")), Some(HostState { read_only: false, in_recovery: false }));
        assert_eq!(HostState::from_row(&[]), None);
    }

    #[test]
    fn random_order_is_a_permutation_that_varies() {
        assert_eq!(order(4, false), vec![0, 1, 2, 3]);
        let mut seen = std::collections::HashSet::new();
        for _ in 0..200 {
            let mut o = order(4, true);
            seen.insert(o.clone());
            o.sort();
            assert_eq!(o, vec![0, 1, 2, 3]);
        }
        assert!(seen.len() > 10, "{seen:?}");
        // Every host comes first sometimes.
        let firsts: std::collections::HashSet<usize> = (0..200).map(|_| order(3, true)[0]).collect();
        assert_eq!(firsts.len(), 3);
    }

    #[test]
    fn the_error_names_every_host() {
        let mut r = Refusals::default();
        r.add(&host_port(&("db1".into(), 5432)), HostState { read_only: true, in_recovery: true }.describe());
        r.add(&host_port(&("::1".into(), 5433)), "error connecting to server: Connection refused");
        let m = r.message(SessionAttrs::ReadWrite);
        assert_eq!(m, "no host fits target_session_attrs=read-write: db1:5432: is a standby (in recovery, read-only); [::1]:5433: error connecting to server: Connection refused");
        assert!(stops_the_search("28P01") && !stops_the_search("57P03"));
    }
}
