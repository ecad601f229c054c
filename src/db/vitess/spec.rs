//! Vitess as it describes itself. vtgate speaks MySQL's protocol and
//! routes every statement to the shards of a keyspace, each a MySQL server
//! behind a vttablet; what a commit guarantees is the weakest shard's, and
//! the transaction mode decides whether a commit over several shards is
//! atomic. Its facts come from vtgate's own variables and `SHOW VITESS_*`,
//! each shard's server read by targeting the shard, and the status APIs
//! of vtgate and the tablets (cluster.rs, vars.rs).

use super::admin::Vtctld;
use super::cluster;
use super::vars::{self, CONNECTIONS};
use crate::db::engines::{self, Aspect, Common, Deviations, DurClass, Durability, Engine, Listen, LocalFuture, Part, Routing, SendFuture, Sharded};
use crate::db::facts::{DatasetTables, Server};
use crate::db::sharding::vschema::{self, DeclareReference};
use crate::db::sharding::{Copies, ShardPlan};
use crate::db::{Conn, ConnConfig, Dialect, Protocol};
use std::collections::BTreeMap;

pub struct Vitess;
pub static VITESS: Vitess = Vitess;

/// Vitess's answers to "try again": a tablet's transaction pool full
/// (`RESOURCE_EXHAUSTED`, sent as 1203); a statement the tablet killed at
/// its query timeout (3024) and a transaction it killed at its transaction
/// timeout (`ABORTED`, 1317), which is how a deadlock between two shards
/// ends: each shard's InnoDB sees only its own half of it. (In transaction
/// mode SINGLE, a transaction that reaches a second shard is refused with
/// 1317 too: counted under its code like the others.)
const RETRYABLE: &[&str] = &["1203", "3024", "1317"];
const GAUGES: &[&str] = &[CONNECTIONS];

/// What vtgate says, under its generic code 1105, when a shard is briefly
/// out of reach (its server restarting, its tablet not serving) or a
/// transaction broke on the way: each tells the client to try again.
const TRANSIENT: &[&str] = &[
    // "transaction error, issue ROLLBACK and retry the transaction"
    "VT15001",
    // the tablet's connection failed (VT14001 ... VT14005)
    "VT1400",
    "no healthy tablet available",
    "operation not allowed in state",
    "code = Unavailable",
];

/// vtgate's transaction mode when neither the session nor its flags say.
const DEFAULT_MODE: &str = "MULTI";

/// The engine of the shards' servers: MySQL's protocol's first, the MySQL family.
fn shard_engine() -> &'static dyn Engine {
    engines::recognized(Protocol::Mysql, "")
}

/// One shard's server as the MySQL engine reads a server: its `shard.X.`
/// settings without the prefix.
fn shard_server(s: &Server, shard: &str) -> Server {
    let prefix = format!("shard.{shard}.");
    let strip = |m: &BTreeMap<String, String>| -> BTreeMap<String, String> { m.iter().filter_map(|(k, v)| Some((k.strip_prefix(&prefix)?.to_string(), v.clone()))).collect() };
    Server { engine: shard_engine().name().into(), variables: strip(&s.variables), session: strip(&s.session), ..Server::default() }
}

/// Each shard with what its primary's settings guarantee, in the order vtgate lists them.
fn shard_durability(s: &Server) -> Vec<(String, Durability)> {
    cluster::shards(s).into_iter().map(|sh| (sh.clone(), shard_engine().durability(&shard_server(s, &sh)))).collect()
}

impl Engine for Vitess {
    fn name(&self) -> &'static str {
        "vitess"
    }

    fn protocol(&self) -> Protocol {
        Protocol::Mysql
    }

    fn dialect(&self) -> &'static dyn Dialect {
        &crate::db::mysql::dialect::MysqlDialect
    }

    /// vtgate reports a MySQL version with `-Vitess` after it: `8.4.6-Vitess`.
    fn recognizes(&self, version: &str) -> bool {
        version.contains("-Vitess")
    }

    fn capture<'a>(&'a self, c: &'a mut Conn, cfg: &'a ConnConfig, tables: &'a DatasetTables, s: &'a mut Server, errors: &'a mut Vec<String>) -> LocalFuture<'a, ()> {
        Box::pin(cluster::capture(c, cfg, tables, s, errors))
    }

    fn counters<'a>(&'a self, _c: &'a mut Conn, start: &'a Server, errors: &'a mut Vec<String>) -> LocalFuture<'a, BTreeMap<String, f64>> {
        Box::pin(cluster::sample(start, errors))
    }

    fn gauges(&self) -> &'static [&'static str] {
        GAUGES
    }

    /// The weakest shard's: a cluster keeps a commit only as well as the
    /// shard it landed on, and a transaction may land on any.
    fn durability(&self, s: &Server) -> Durability {
        let shards = shard_durability(s);
        let n = shards.len();
        let alike = shards.windows(2).all(|w| w[0].1.class == w[1].1.class);
        let Some((shard, d)) = shards.into_iter().reduce(|a, b| if b.1.class > a.1.class { b } else { a }) else {
            return Durability { class: DurClass::Unknown, evidence: vec!["no shard's settings were read".into()], torn_pages: None };
        };
        let which = match n {
            1 => "the only shard".to_string(),
            _ if alike => format!("all {n} shards alike"),
            _ => format!("the weakest of {n} shards"),
        };
        let mut evidence = vec![format!("shard {shard}, {which}")];
        evidence.extend(d.evidence.iter().map(|e| format!("shard.{shard}.{e}")));
        let torn = cluster::shards(s).iter().map(|sh| shard_engine().durability(&shard_server(s, sh)).torn_pages).try_fold(true, |all, t| t.map(|t| all && t));
        Durability { class: d.class, evidence, torn_pages: torn }
    }

    fn cache_setting(&self) -> &'static str {
        "innodb_buffer_pool_size (the shards' primaries together)"
    }

    /// vtgate (where the target points), each tablet by its status port,
    /// and each shard's server by its socket or port: those on this host
    /// are measured apart.
    fn parts(&self, s: &Server) -> Vec<Part> {
        let mut v = vec![Part { name: "vtgate".into(), at: Listen::Target }];
        let port = |addr: &str| addr.rsplit_once(':').and_then(|(_, p)| p.parse::<u16>().ok());
        for (k, addr) in &s.variables {
            if k.starts_with("tablet.") && k.ends_with(".status") {
                v.extend(port(addr).map(|p| Part { name: "vttablet".into(), at: Listen::Port(p) }));
            }
        }
        for shard in cluster::shards(s) {
            let Some(addr) = s.var(&format!("shard.{shard}.db_address")) else { continue };
            let at = if addr.starts_with('/') { Some(Listen::Socket(addr.into())) } else { port(addr).map(Listen::Port) };
            v.extend(at.map(|at| Part { name: "mysqld".into(), at }));
        }
        v
    }

    /// The first shard's server's data directory (the sandbox keeps every
    /// shard's on one disk).
    fn data_dir(&self, s: &Server) -> Option<String> {
        cluster::shards(s).iter().find_map(|sh| s.var(&format!("shard.{sh}.datadir")).map(str::to_string))
    }

    fn os_cache_holds_data(&self) -> bool {
        false
    }

    /// The transaction mode: SINGLE refuses a transaction over several
    /// shards, MULTI commits them shard after shard (not atomic), TWOPC
    /// commits them atomically at a cost.
    fn commit_settings(&self, s: &Server) -> Vec<(&'static str, String)> {
        let mode = [s.var("transaction_mode"), s.var("vtgate.transaction-mode")].into_iter().flatten().find(|v| !v.is_empty()).unwrap_or(DEFAULT_MODE);
        vec![("transaction_mode", mode.to_ascii_uppercase())]
    }

    fn common_settings(&self, s: &Server) -> Vec<(Aspect, Common)> {
        let shards = cluster::shards(s);
        let each: Vec<(String, Vec<(Aspect, Common)>)> = shards.iter().map(|sh| (sh.clone(), shard_engine().common_settings(&shard_server(s, sh)))).collect();
        let mut out = Vec::new();
        let aspects = each.first().map(|(_, c)| c.iter().map(|(a, _)| *a).collect::<Vec<_>>()).unwrap_or_default();
        for aspect in aspects.into_iter().filter(|a| *a != Aspect::Connections) {
            let found: Vec<(&str, &Common)> = each.iter().filter_map(|(sh, cs)| cs.iter().find(|(a, _)| *a == aspect).map(|(_, c)| (sh.as_str(), c))).collect();
            let alike = found.len() == each.len() && found.windows(2).all(|w| w[0].1.key == w[1].1.key);
            let c = if alike {
                let first = found[0].1;
                Common::new(first.key.clone(), if each.len() > 1 { format!("every shard: {}", first.shown) } else { first.shown.clone() })
            } else {
                let shown: Vec<String> = found.iter().map(|(sh, c)| format!("shard {sh}: {}", c.shown)).collect();
                Common::new("differs between shards", shown.join("; "))
            };
            out.push((aspect, c));
        }
        let pool = |n: &str| {
            let v: Vec<String> = shards.iter().filter_map(|sh| s.var(&format!("shard.{sh}.vttablet.queryserver-config-{n}")).map(String::from)).collect();
            v.first().cloned().unwrap_or_else(|| "default".into())
        };
        let shown = format!("vtgate multiplexes the client connections onto each tablet's pools (queryserver-config-pool-size = {}, transaction-cap = {})", pool("pool-size"), pool("transaction-cap"));
        out.push((Aspect::Connections, Common::new("pooled by a proxy", shown)));
        out
    }

    fn deviations(&self) -> Option<&dyn Deviations> {
        Some(self)
    }

    fn sharded(&self) -> Option<&dyn Sharded> {
        Some(self)
    }
}

impl Deviations for Vitess {
    fn retryable(&self) -> &'static [&'static str] {
        RETRYABLE
    }

    fn stored_routines(&self) -> bool {
        false
    }

    /// vtgate refuses LOAD DATA on a sharded keyspace.
    /// vtgate's OLAP workload streams a result whole: an OLTP session's
    /// statements stop at the tablets' 10000 rows.
    fn check_session(&self) -> &'static [&'static str] {
        &["SET workload = 'olap'"]
    }

    /// A streaming query inside a transaction is refused ("in use: for streaming query").
    fn whole_reads_in_transactions(&self) -> bool {
        false
    }

    fn transient(&self, code: &str, message: &str) -> bool {
        // Its own code, or a tablet's error it passes on (the errno of the
        // tablet's connection to its server: 2002, 2013).
        (code == "1105" || message.contains("vttablet: ")) && TRANSIENT.iter().any(|t| message.contains(t))
    }

    fn loads_infile(&self) -> bool {
        false
    }
}

impl Sharded for Vitess {
    /// What vtgate cannot route as the workload declares it, before anything changes.
    fn refuse_sharded<'a>(&'a self, c: &'a mut Conn, plan: &'a ShardPlan) -> SendFuture<'a, Option<String>> {
        Box::pin(vschema::refusal(c, plan))
    }

    /// The workload's VSchema, through vtgate (`ALTER VSCHEMA`) and, for
    /// its reference tables, vtctld, before its tables are made.
    fn shard_tables<'a>(&'a self, c: &'a mut Conn, plan: &'a ShardPlan, notes: &'a mut Vec<String>) -> SendFuture<'a, crate::error::Result<Option<String>>> {
        Box::pin(async move {
            let vtctld = Vtctld::of(c.config());
            vschema::apply(c, plan, vtctld.as_ref().map(|v| v as &dyn DeclareReference).map_err(String::clone), notes).await
        })
    }

    /// The dropped tables out of the VSchema.
    fn unshard_tables<'a>(&'a self, c: &'a mut Conn, plan: &'a ShardPlan, notes: &'a mut Vec<String>) -> SendFuture<'a, ()> {
        Box::pin(vschema::remove(c, plan, notes))
    }

    /// A reference table's copy on each shard.
    fn copies<'a>(&'a self, c: &'a mut Conn, table: &'a str) -> SendFuture<'a, Option<Copies>> {
        Box::pin(async move {
            // Most tables are not: the shards are listed only for one that is.
            let ks = vschema::reference_keyspace(c, table).await?;
            let shards = cluster::keyspace_shards(c, &ks, &mut Vec::new()).await;
            vschema::copies(c, &ks, &shards).await
        })
    }

    /// The VSchema of the dataset's tables, as vtgate has it.
    fn sharding<'a>(&'a self, c: &'a mut Conn, tables: &'a DatasetTables, errors: &'a mut Vec<String>) -> LocalFuture<'a, Option<String>> {
        Box::pin(vschema::read(c, tables, errors))
    }

    fn shards(&self, s: &Server) -> Option<u32> {
        Some(cluster::shards(s).len() as u32).filter(|n| *n > 0)
    }

    /// vtgate's queries by routing class (vars.rs): BEGIN, COMMIT, SET and
    /// the like are routed nowhere and left out. The plans vtgate completes
    /// itself (ORDER BY or DISTINCT over shards, joins) are classed by the
    /// shards their routes reached, over the run's keyspace's shards (whose
    /// call counters the level always has).
    fn routing(&self, d: &BTreeMap<String, f64>) -> Option<Routing> {
        let get = |class: &str| d.get(&format!("vtgate.queries{{route={class}}}")).copied();
        let mut r = Routing { single: get("single")?, multi: get("multi").unwrap_or(0.0), scatter: get("scatter").unwrap_or(0.0) };
        let shards = d.keys().filter(|k| k.strip_prefix("vttablet.calls{shard=").is_some_and(|s| !s.contains('/'))).count();
        for (k, executions) in d {
            let Some(plan) = k.strip_prefix("vtgate.queries{plan=").and_then(|p| p.strip_suffix('}')) else { continue };
            if !plan.split('.').nth(1).is_some_and(vars::completed_by_vtgate) {
                continue;
            }
            let routes = d.get(&format!("vtgate.shard_routes{{plan={plan}}}")).copied().unwrap_or(0.0);
            let (single, scatter) = vars::split_completed(*executions, routes, shards);
            r.single += single;
            r.scatter += scatter;
        }
        Some(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(vars: &[(&str, &str)]) -> Server {
        Server { engine: "vitess".into(), variables: vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(), ..Server::default() }
    }

    fn two_shards(second_trx: &str, second_dw: &str) -> Server {
        server(&[
            ("shards", "-80,80-"),
            ("shard.-80.innodb_flush_log_at_trx_commit", "1"),
            ("shard.-80.log_bin", "OFF"),
            ("shard.-80.sync_binlog", "0"),
            ("shard.-80.innodb_doublewrite", "ON"),
            ("shard.-80.innodb_flush_method", "O_DIRECT"),
            ("shard.80-.innodb_flush_log_at_trx_commit", second_trx),
            ("shard.80-.log_bin", "OFF"),
            ("shard.80-.sync_binlog", "0"),
            ("shard.80-.innodb_doublewrite", second_dw),
            ("shard.80-.innodb_flush_method", "O_DIRECT"),
        ])
    }

    #[test]
    fn the_cluster_is_as_durable_as_its_weakest_shard() {
        let d = VITESS.durability(&two_shards("2", "ON"));
        assert_eq!(d.class, DurClass::PerSecond);
        assert_eq!(d.evidence[0], "shard 80-, the weakest of 2 shards");
        assert!(d.evidence.contains(&"shard.80-.innodb_flush_log_at_trx_commit=2".to_string()), "{:?}", d.evidence);
        assert_eq!(d.torn_pages, Some(true));
        let same = VITESS.durability(&two_shards("1", "OFF"));
        assert_eq!(same.class, DurClass::Synced);
        assert_eq!(same.evidence[0], "shard -80, all 2 shards alike");
        assert_eq!(same.torn_pages, Some(false));
        // A shard whose settings were not read leaves the cluster unknown.
        let mut partial = two_shards("1", "ON");
        partial.variables.retain(|k, _| !k.starts_with("shard.80-."));
        assert_eq!(VITESS.durability(&partial).class, DurClass::Unknown);
        assert_eq!(VITESS.durability(&partial).torn_pages, None);
        assert_eq!(VITESS.durability(&server(&[])).class, DurClass::Unknown);
        // The session's value counts, as on the MySQL engine.
        let mut binlog = two_shards("1", "ON");
        binlog.variables.insert("shard.80-.log_bin".into(), "ON".into());
        assert_eq!(VITESS.durability(&binlog).class, DurClass::PerSecond);
        binlog.session.insert("shard.80-.sql_log_bin".into(), "OFF".into());
        assert_eq!(VITESS.durability(&binlog).class, DurClass::Synced);
    }

    #[test]
    fn commit_settings_name_the_transaction_mode() {
        assert_eq!(VITESS.commit_settings(&server(&[("transaction_mode", "twopc")])), vec![("transaction_mode", "TWOPC".to_string())]);
        assert_eq!(VITESS.commit_settings(&server(&[("vtgate.transaction-mode", "SINGLE")])), vec![("transaction_mode", "SINGLE".to_string())]);
        assert_eq!(VITESS.commit_settings(&server(&[])), vec![("transaction_mode", "MULTI".to_string())]);
    }

    #[test]
    fn common_settings_say_whether_the_shards_agree() {
        let s = two_shards("1", "ON");
        let c = VITESS.common_settings(&s);
        let io = c.iter().find(|(a, _)| *a == Aspect::DataFileIo).map(|(_, c)| c).unwrap();
        assert!(io.shown.starts_with("every shard: ") && io.key.starts_with("direct"), "{}", io.shown);
        let mut differ = s.clone();
        differ.variables.insert("shard.80-.innodb_flush_method".into(), "fsync".into());
        let c = VITESS.common_settings(&differ);
        let io = c.iter().find(|(a, _)| *a == Aspect::DataFileIo).map(|(_, c)| c).unwrap();
        assert_eq!(io.key, "differs between shards");
        assert!(io.shown.contains("shard -80: ") && io.shown.contains("shard 80-: "), "{}", io.shown);
        assert!(c.iter().any(|(a, c)| *a == Aspect::Connections && c.key == "pooled by a proxy"));
    }

    #[test]
    fn its_parts_are_vtgate_the_tablets_and_the_shards_servers() {
        let s = server(&[
            ("shards", "-80,80-"),
            ("tablet.zone1-0000000100.status", "127.0.0.1:15317"),
            ("tablet.zone1-0000000101.status", "127.0.0.1:15320"),
            ("shard.-80.db_address", "/tmp/s/shard1/mysqld.sock"),
            ("shard.80-.db_address", "127.0.0.1:15319"),
        ]);
        let parts: Vec<(String, Listen)> = VITESS.parts(&s).into_iter().map(|p| (p.name, p.at)).collect();
        assert_eq!(
            parts,
            vec![
                ("vtgate".into(), Listen::Target),
                ("vttablet".into(), Listen::Port(15317)),
                ("vttablet".into(), Listen::Port(15320)),
                ("mysqld".into(), Listen::Socket("/tmp/s/shard1/mysqld.sock".into())),
                ("mysqld".into(), Listen::Port(15319)),
            ]
        );
        assert_eq!(VITESS.shards(&s), Some(2));
        assert_eq!(VITESS.shards(&server(&[])), None);
        let d: BTreeMap<String, f64> =
            [("vtgate.queries{route=single}", 90.0), ("vtgate.queries{route=scatter}", 10.0), ("vtgate.queries{route=other}", 50.0)].into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        let r = VITESS.routing(&d).unwrap();
        assert_eq!((r.single, r.multi, r.scatter), (90.0, 0.0, 10.0));
        assert_eq!(r.scatter_share(), Some(0.1));
    }

    #[test]
    fn a_shard_out_of_reach_is_tried_again_and_a_wrong_statement_is_not() {
        assert!(VITESS.transient(
            "1105",
            "VT15001: transaction error, issue ROLLBACK and retry the transaction: target: fb.-80.primary: vttablet: rpc error: code = Code(17) desc = operation not allowed in state SHUTTING_DOWN"
        ));
        assert!(VITESS.transient("1105", "target: fb.-80.primary: no healthy tablet available for 'keyspace:\"fb\" shard:\"-80\"'"));
        assert!(!VITESS.transient("1105", "VT03019: column x not found"));
        assert!(!VITESS.transient("1064", "VT15001"));
        assert!(VITESS.transient("2002", "VT15001: transaction error, issue ROLLBACK and retry the transaction: target: fb.-80.primary: vttablet: rpc error: code = Unavailable desc = net.Dial(/s/shard1/mysqld.sock) to local server failed"));
    }

    #[test]
    fn a_vitess_version_is_recognized_and_others_are_not() {
        assert!(VITESS.recognizes("8.4.6-Vitess"));
        assert!(VITESS.recognizes("8.0.40-Vitess"));
        assert!(!VITESS.recognizes("10.11.6-MariaDB-0+deb12u1"));
        assert!(!VITESS.recognizes("8.0.36"));
        assert_eq!(crate::db::engines::recognized(Protocol::Mysql, "8.4.6-Vitess").name(), "vitess");
    }
}
