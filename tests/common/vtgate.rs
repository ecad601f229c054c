//! The test cluster of Vitess as the tests see it behind fairbench's back:
//! SQL through vtgate with the mariadb client, its keyspace and shards.

use super::{mysql_at, parse_url, vitess_url};

/// The keyspace the URL names.
pub fn keyspace() -> String {
    parse_url(&vitess_url()).database
}

/// Runs `sql` through vtgate with the mariadb client (the test's own view).
pub fn vt_sql(sql: &str) -> String {
    mysql_at(&vitess_url(), sql)
}

/// The keyspace's shards (`-80`, `80-`, ...).
pub fn shards() -> Vec<String> {
    let ks = keyspace();
    let all = vt_sql("SHOW VITESS_SHARDS");
    let v: Vec<String> = all.lines().filter_map(|l| l.trim().strip_prefix(&format!("{ks}/")).map(str::to_string)).collect();
    assert!(v.len() >= 2, "keyspace {ks} should have two shards or more: {all}");
    v
}

/// `SELECT COUNT(*) FROM table` on each shard, in the order of [`shards`].
pub fn rows_per_shard(table: &str) -> Vec<u64> {
    let ks = keyspace();
    shards().iter().map(|s| vt_sql(&format!("USE `{ks}:{s}`; SELECT COUNT(*) FROM {table}")).parse().unwrap()).collect()
}
