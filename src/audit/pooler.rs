//! A connection pooler on one side of a comparison only, or pooling differently: every query
//! then crosses one more process and hop on one side, and transaction or statement pooling
//! changes what a session keeps (prepared statements, settings) between transactions.

use super::*;

/// The pool mode a run's pooler text names (`pool_mode=transaction`), when it was recorded.
fn mode(pooler: &str) -> Option<&str> {
    let at = pooler.find("pool_mode=")? + "pool_mode=".len();
    pooler[at..].split([',', ';', ' ']).next().filter(|m| !m.is_empty())
}

/// What a run went through, as the finding shows it.
fn shown(r: &RunRecord) -> String {
    match server_of(r).and_then(|s| s.pooler.as_deref()) {
        None => "no pooler: connected to the server itself".into(),
        Some(p) => match mode(p) {
            Some(m) => format!("a pooler, pool_mode={m}"),
            None => "a pooler, pool mode not recorded (not a sandbox of this machine)".into(),
        },
    }
}

/// Runs of which some went through a pooler and some did not, or whose poolers pool in
/// different modes. Runs whose server was not recorded are left out.
pub fn rule_pooler_mismatch(rs: &[&RunRecord]) -> Vec<Finding> {
    let known: Vec<Option<Option<&str>>> = rs.iter().filter_map(|r| server_of(r)).map(|s| s.pooler.as_deref().map(mode)).collect();
    let presence_differs = known.windows(2).any(|w| w[0].is_some() != w[1].is_some());
    let modes: Vec<&str> = known.iter().flatten().flatten().copied().collect();
    let modes_differ = modes.windows(2).any(|w| w[0] != w[1]);
    if !presence_differs && !modes_differ {
        return vec![];
    }
    let what = if presence_differs {
        "a connection pooler is in front of the server on one side only: every query there crosses one more process and hop"
    } else {
        "the poolers pool in different modes: what a server session keeps between transactions differs"
    };
    vec![finding(
        "pooler-mismatch",
        Severity::Warning,
        ids(rs),
        what.into(),
        per_run(rs, shown),
        "connect every side the same way: all through the same pooler in the same pool mode (`fairbench server start pgbouncer --for SANDBOX --pool-mode MODE`), or all to the server itself",
    )]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(id: i64, pooler: Option<&str>) -> RunRecord {
        let mut r = RunRecord { id, status: "completed".into(), engine: "postgres".into(), ..RunRecord::default() };
        let mut env = crate::env::Snapshot::default();
        env.server.pooler = pooler.map(str::to_string);
        r.env_start = Some(env);
        r
    }

    #[test]
    fn a_pooler_on_one_side_or_two_pool_modes_are_flagged_and_alike_sides_are_not() {
        let direct = run(1, None);
        let tx = run(2, Some("PgBouncer 1.18.0 sandbox pgbouncer-16432 for postgres-15432, pool_mode=transaction, default_pool_size=20; pooler in front of the server"));
        let session = run(3, Some("PgBouncer 1.18.0 sandbox pgbouncer-16433 for postgres-15432, pool_mode=session, default_pool_size=20; pooler in front of the server"));
        let unknown = run(4, Some("pooler in front of the server (cancel key pid 1 is not the server process 2)"));
        let f = rule_pooler_mismatch(&[&direct, &tx]);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence, ["run 1 (postgres): no pooler: connected to the server itself", "run 2 (postgres): a pooler, pool_mode=transaction"]);
        assert!(rule_pooler_mismatch(&[&tx, &session])[0].message.contains("different modes"));
        assert!(rule_pooler_mismatch(&[&tx, &tx]).is_empty());
        assert!(rule_pooler_mismatch(&[&direct, &direct]).is_empty());
        // A mode not recorded is not taken for a different one.
        assert!(rule_pooler_mismatch(&[&tx, &unknown]).is_empty());
        assert_eq!(mode("x, pool_mode=statement, default_pool_size=2"), Some("statement"));
    }
}
