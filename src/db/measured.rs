//! Settings that change what a run measures, beyond durability and the
//! common settings compared by aspect: the isolation level the run's
//! sessions ran at, result and plan caches, instrumentation, and the like.
//! Each engine keeps its list in its folder; the audit compares every
//! entry across runs of one engine and names the one that differs.

use super::facts::Server;

pub struct Measured {
    /// As users know it (the finding names it).
    pub name: &'static str,
    /// The variables it is read from, the first present winning (a setting
    /// renamed between versions); a session's own value before the global.
    pub vars: &'static [&'static str],
    /// What it changes in what a run measures.
    pub why: &'static str,
    /// Two values it takes, for the test that flips it on one side.
    pub flip: [&'static str; 2],
}

impl Measured {
    /// Its value in force for the run's sessions, as the snapshot's
    /// connection (made like the benchmark's) saw it; case is not a difference.
    pub fn value(&self, s: &Server) -> Option<String> {
        self.vars.iter().find_map(|v| s.session.get(*v).or_else(|| s.variables.get(*v))).map(|v| v.trim().to_ascii_lowercase())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sessions_own_value_wins_and_the_first_name_present_is_read() {
        let m = Measured { name: "isolation", vars: &["transaction_isolation", "tx_isolation"], why: "", flip: ["a", "b"] };
        let mut s = Server::default();
        assert_eq!(m.value(&s), None);
        s.variables.insert("tx_isolation".into(), "REPEATABLE-READ".into());
        assert_eq!(m.value(&s).as_deref(), Some("repeatable-read"));
        s.session.insert("tx_isolation".into(), "READ-COMMITTED".into());
        assert_eq!(m.value(&s).as_deref(), Some("read-committed"));
    }
}
