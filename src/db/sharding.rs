//! Sharded schemas. A workload declares how each of its tables spreads
//! over the shards of an engine that shards them ([`ShardPlan`]); the
//! engine, asked through [`super::engines::Engine`], refuses what it cannot
//! route, applies the rest before the workload's prepare creates and loads
//! the tables, and says how the tables are sharded when a run records its
//! environment. Engines that do not shard ignore all of it.
//!
//! [`vschema`] is what a sharding proxy that speaks MySQL's protocol and
//! takes its routing as a VSchema (vtgate) needs: the statements that
//! declare each table's primary vindex, the JSON text of what was applied,
//! and the refusals, as free functions its engine calls from its spec.

use serde_json::{json, Map, Value};

/// How a workload's tables spread over the shards, as the workload knows them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ShardPlan {
    /// Each table of the dataset and how it shards; empty: the workload
    /// does not know its tables (a script's own).
    pub tables: Vec<Sharding>,
    /// Why this configuration cannot run with its rows on several shards,
    /// in one line saying what to change (foreign keys between rows that
    /// land on different shards); None: nothing in it stands in the way.
    pub refused: Option<String>,
}

impl ShardPlan {
    pub fn new(tables: Vec<Sharding>) -> ShardPlan {
        ShardPlan { tables, refused: None }
    }

    /// The plan, refused with `why` when `why` is Some.
    pub fn refused_if(mut self, why: Option<String>) -> ShardPlan {
        self.refused = why;
        self
    }

    /// Whether the workload said nothing about its tables.
    pub fn unknown(&self) -> bool {
        self.tables.is_empty() && self.refused.is_none()
    }
}

/// One table and how its rows spread.
#[derive(Clone, Debug, PartialEq)]
pub enum Sharding {
    /// Rows spread over the shards by the value of `key`: a statement that
    /// names one value of it reaches one shard.
    Sharded { table: String, key: Key },
    /// A small table every shard holds whole (so joins with it stay on one
    /// shard), looked up by `key`.
    Reference { table: String, key: Key },
}

impl Sharding {
    pub fn sharded(table: impl Into<String>, key: Key) -> Sharding {
        Sharding::Sharded { table: table.into(), key }
    }

    pub fn reference(table: impl Into<String>, key: Key) -> Sharding {
        Sharding::Reference { table: table.into(), key }
    }

    pub fn table(&self) -> &str {
        match self {
            Sharding::Sharded { table, .. } | Sharding::Reference { table, .. } => table,
        }
    }

    pub fn key(&self) -> &Key {
        match self {
            Sharding::Sharded { key, .. } | Sharding::Reference { key, .. } => key,
        }
    }
}

/// The column rows are spread (or looked up) by, and what its values are like.
#[derive(Clone, Debug, PartialEq)]
pub struct Key {
    pub column: String,
    pub values: Values,
}

/// What a key's values are like: it decides how an engine hashes them.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    /// Integers over a wide range (row ids): a hash spreads them evenly.
    Int,
    /// A few integers counted from 1 (warehouses): a hash of so few values
    /// may put them all on one shard, an even spread keeps every shard busy.
    Ordinal,
    /// Text.
    Text,
    /// Integers the server assigns to rows the run inserts without them
    /// (an auto-increment column): an engine that routes a row by its key
    /// before any server sees it cannot place those rows. The text says how
    /// to run with the workload giving them instead.
    Assigned(String),
}

impl Key {
    pub fn int(column: &str) -> Key {
        Key { column: column.to_string(), values: Values::Int }
    }

    pub fn ordinal(column: &str) -> Key {
        Key { column: column.to_string(), values: Values::Ordinal }
    }

    pub fn text(column: &str) -> Key {
        Key { column: column.to_string(), values: Values::Text }
    }

    /// A key the server assigns on insert; `instead` says how to give it.
    pub fn assigned(column: &str, instead: impl Into<String>) -> Key {
        Key { column: column.to_string(), values: Values::Assigned(instead.into()) }
    }
}

/// The copies of a table an engine keeps whole on every shard: the
/// statement that points a connection at each, and the one that points it
/// back where it was.
#[derive(Clone, Debug, PartialEq)]
pub struct Copies {
    pub each: Vec<String>,
    pub back: String,
}

/// `name` quoted as a MySQL identifier.
pub fn ident(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// The statements and texts of a VSchema, the routing a sharding proxy on
/// MySQL's protocol (vtgate) takes: each table of a sharded keyspace has a
/// primary vindex, a function from its key to the shard that holds the
/// row; the VSchema is changed with `ALTER VSCHEMA` through the proxy.
/// An engine's spec answers [`Engine::refuse_sharded`], [`Engine::shard_tables`]
/// and [`Engine::sharding`] with [`vschema::refusal`], [`vschema::apply`]
/// and [`vschema::read`].
///
/// [`Engine::refuse_sharded`]: super::engines::Engine::refuse_sharded
/// [`Engine::shard_tables`]: super::engines::Engine::shard_tables
/// [`Engine::sharding`]: super::engines::Engine::sharding
pub mod vschema {
    use super::*;
    use crate::db::{Conn, DatasetTables};
    use crate::error::{Error, Result};

    /// The vindex (name and type alike) a key's values are hashed with:
    /// `hash` for integers, `reverse_bits` for a few consecutive ones (1, 2,
    /// 3 land on alternate halves of the key space, where `hash` puts all
    /// three on one of two shards), `unicode_loose_xxhash` for text (equal
    /// under the column's case-insensitive collation, equal vindex value).
    pub fn vindex(values: &Values) -> &'static str {
        match values {
            Values::Int | Values::Assigned(_) => "hash",
            Values::Ordinal => "reverse_bits",
            Values::Text => "unicode_loose_xxhash",
        }
    }

    /// The statement that gives `table` its primary vindex on `key`.
    pub fn add_vindex_sql(table: &str, key: &Key) -> String {
        let v = vindex(&key.values);
        format!("ALTER VSCHEMA ON {} ADD VINDEX {}({}) USING {v}", ident(table), ident(v), ident(&key.column))
    }

    /// The statement that removes `table`'s vindex `name` (the table leaves
    /// the VSchema with its last one).
    pub fn drop_vindex_sql(table: &str, name: &str) -> String {
        format!("ALTER VSCHEMA ON {} DROP VINDEX {}", ident(table), ident(name))
    }

    /// What the connection's statements go to as vtgate names it
    /// (`ks`, `ks@primary`, `ks:-80`).
    async fn database(c: &mut Conn) -> Option<String> {
        let rows = c.query_strings("SELECT DATABASE()").await.ok()?;
        rows.into_iter().next()?.into_iter().next()?.filter(|d| !d.is_empty())
    }

    /// The keyspace a connection's statements go to (`ks`, `ks@primary`
    /// and `ks:-80` all name `ks`).
    async fn keyspace(c: &mut Conn) -> Option<String> {
        let db = database(c).await?;
        let name = db.split(['@', ':']).next().unwrap_or_default().trim_matches('`').to_string();
        Some(name).filter(|n| !n.is_empty())
    }

    /// Declares tables of a keyspace reference tables, whole on every
    /// shard: what `ALTER VSCHEMA` cannot say, so the engine says it
    /// through the cluster's control service.
    pub trait DeclareReference: Sync {
        fn declare<'a>(&'a self, keyspace: &'a str, tables: &'a [String]) -> crate::db::engines::SendFuture<'a, std::result::Result<(), String>>;
    }

    /// Whether vtgate routes `table` as a reference table: its plan for a
    /// read says so (`SHOW VSCHEMA VINDEXES` shows such a table as one
    /// with no vindex, like a table it does not route at all).
    pub async fn is_reference(c: &mut Conn, table: &str) -> bool {
        let Ok(rows) = c.query_strings(&format!("VEXPLAIN PLAN SELECT 1 FROM {}", ident(table))).await else { return false };
        let plan: String = rows.into_iter().flatten().flatten().collect::<String>().split_whitespace().collect();
        plan.contains(r#""Variant":"Reference""#)
    }

    /// The sharded keyspace `table` is a reference table of; None for any
    /// other table.
    pub async fn reference_keyspace(c: &mut Conn, table: &str) -> Option<String> {
        let ks = sharded_keyspace(c).await?;
        let t = in_keyspace(table, &ks).ok()?;
        is_reference(c, t).await.then_some(ks)
    }

    /// Where a reference table of keyspace `ks` has its copies: one on each
    /// of its `shards` (`-80`, `80-`), written to by naming the shard (`USE
    /// ks:-80`); None without shards.
    pub async fn copies(c: &mut Conn, ks: &str, shards: &[String]) -> Option<Copies> {
        if shards.is_empty() {
            return None;
        }
        let back = database(c).await?;
        Some(Copies { each: shards.iter().map(|s| format!("USE {}", ident(&format!("{ks}:{s}")))).collect(), back: format!("USE {}", ident(&back)) })
    }

    /// Whether keyspace `ks` is sharded (`SHOW VSCHEMA KEYSPACES`); None
    /// when the proxy does not say.
    async fn sharded(c: &mut Conn, ks: &str) -> Option<bool> {
        let rows = c.query_strings("SHOW VSCHEMA KEYSPACES").await.ok()?;
        rows.into_iter().find(|r| r.first().and_then(|v| v.as_deref()) == Some(ks)).map(|r| r.get(1).and_then(|v| v.as_deref()).is_some_and(|v| v.eq_ignore_ascii_case("true") || v == "1"))
    }

    /// The sharded keyspace the connection works in, or None when it is
    /// not sharded (its tables need no VSchema) or cannot be told.
    async fn sharded_keyspace(c: &mut Conn) -> Option<String> {
        let ks = keyspace(c).await?;
        sharded(c, &ks).await.filter(|s| *s).map(|_| ks)
    }

    /// The tables the VSchema of the connection's keyspace lists: those it
    /// routes, and (with schema tracking) tables vtgate found on the shards.
    async fn tables(c: &mut Conn) -> std::result::Result<Vec<String>, String> {
        let rows = c.query_strings("SHOW VSCHEMA TABLES").await.map_err(|e| e.to_string())?;
        Ok(rows.into_iter().filter_map(|r| r.into_iter().next().flatten()).collect())
    }

    /// One vindex of a table: (columns, name, type, params).
    #[derive(Clone, Debug, PartialEq)]
    pub struct ColumnVindex {
        pub columns: String,
        pub name: String,
        pub kind: String,
        pub params: String,
    }

    /// A table's vindexes, the primary first; empty for a table the VSchema
    /// does not route by any: one it does not hold, one vtgate only found
    /// on the shards (listed, but "does not exist" to `SHOW VSCHEMA
    /// VINDEXES`), or a reference table (see [`is_reference`]).
    async fn vindexes_of(c: &mut Conn, table: &str, listed: &[String]) -> std::result::Result<Vec<ColumnVindex>, String> {
        if !listed.iter().any(|t| t == table) {
            return Ok(Vec::new());
        }
        match c.query_strings(&format!("SHOW VSCHEMA VINDEXES ON {}", ident(table))).await {
            Ok(rows) => Ok(rows
                .into_iter()
                .map(|r| {
                    let get = |i: usize| r.get(i).cloned().flatten().unwrap_or_default();
                    ColumnVindex { columns: get(0), name: get(1), kind: get(2), params: get(3) }
                })
                .collect()),
            Err(e) if e.message.contains("does not exist") => Ok(Vec::new()),
            Err(e) => Err(e.to_string()),
        }
    }

    /// How a table routed by `current` (its vindexes) differs from what
    /// `s` declares; None when its primary vindex is the declared one, or
    /// it has none yet. A reference table spread by its key (where it
    /// cannot be declared one) is as declared.
    pub fn conflict(s: &Sharding, current: &[ColumnVindex]) -> Option<String> {
        let key = s.key();
        let want = vindex(&key.values);
        let p = current.first()?;
        if p.columns.eq_ignore_ascii_case(&key.column) && p.kind == want {
            return None;
        }
        Some(format!("{} is in the VSchema already, routed by {}({}) USING {}, not by {want}({}) USING {want}", s.table(), p.name, p.columns, p.kind, key.column))
    }

    /// `table` without its database when that is the keyspace `ks`; Err
    /// (why, in one line) when it names another database.
    pub fn in_keyspace<'a>(table: &'a str, ks: &str) -> std::result::Result<&'a str, String> {
        match table.split_once('.') {
            None => Ok(table),
            Some((db, t)) if db == ks => Ok(t),
            Some((db, _)) => Err(format!("table {table} is in database {db}, but through vtgate a database is a keyspace, made outside SQL: keep the tables in the target's keyspace {ks}")),
        }
    }

    /// Why `plan` cannot be routed by the VSchema of a sharded keyspace, in
    /// one line; None: nothing stands in the way, or the keyspace is not
    /// sharded. Asked before anything is created.
    pub async fn refusal(c: &mut Conn, plan: &ShardPlan) -> Option<String> {
        let ks = sharded_keyspace(c).await?;
        if let Some(why) = &plan.refused {
            return Some(format!("keyspace {ks} is sharded: {why}"));
        }
        for s in &plan.tables {
            if let Err(why) = in_keyspace(s.table(), &ks) {
                return Some(why);
            }
            if let (Sharding::Sharded { table, key }, Values::Assigned(instead)) = (s, &s.key().values) {
                let col = &key.column;
                return Some(format!(
                    "vtgate picks the shard of each {table} row from its {col}, and this run inserts rows without one for the shard's server to assign (auto-increment), which takes a sequence in an unsharded keyspace: {instead}"
                ));
            }
        }
        let listed = tables(c).await.ok()?;
        for s in &plan.tables {
            let t = in_keyspace(s.table(), &ks).ok()?;
            let current = vindexes_of(c, t, &listed).await.ok()?;
            if let Some(why) = conflict(s, &current) {
                return Some(format!("{why}: drop that vindex ({}) or give the tables other names", drop_vindex_sql(t, &current[0].name)));
            }
        }
        None
    }

    /// Gives every table of `plan` the primary vindex it lacks in a sharded
    /// keyspace, before the tables are created (vtgate takes a VSchema entry
    /// for a table that does not exist yet, and sends DDL to every shard
    /// anyway), and has `reference` declare the reference tables: returns
    /// the VSchema JSON of the plan's tables as the keyspace holds them now
    /// ([`read`]); None when the keyspace is not sharded or the workload
    /// declared nothing. When `reference` cannot (Err: why, as a sentence
    /// saying what to give), a reference table is spread by its key
    /// instead, and `notes` says so.
    pub async fn apply(c: &mut Conn, plan: &ShardPlan, reference: std::result::Result<&dyn DeclareReference, String>, notes: &mut Vec<String>) -> Result<Option<String>> {
        let Some(ks) = sharded_keyspace(c).await else { return Ok(None) };
        if plan.tables.is_empty() {
            notes.push(format!("keyspace {ks} is sharded and the workload does not say how its tables shard: they must be in its VSchema before rows go in"));
            return Ok(None);
        }
        let listed = tables(c).await.map_err(|e| Error::Sql(format!("SHOW VSCHEMA TABLES: {e}")))?;
        let (mut names, mut references, mut spread) = (Vec::new(), Vec::new(), Vec::new());
        for s in &plan.tables {
            let t = in_keyspace(s.table(), &ks).map_err(Error::Usage)?;
            names.push(t.to_string());
            if matches!(s, Sharding::Reference { .. }) {
                if reference.is_ok() {
                    // Declared whole, whatever routed it before (a table
                    // spread by its key: its rows are loaded again).
                    references.push(t.to_string());
                    continue;
                }
                if is_reference(c, t).await {
                    // Whole on every shard already (a vindex added now
                    // would not change that).
                    continue;
                }
                spread.push(s);
            }
            let current = vindexes_of(c, t, &listed).await.map_err(|e| Error::Sql(format!("SHOW VSCHEMA VINDEXES ON {t}: {e}")))?;
            if let Some(why) = conflict(s, &current) {
                return Err(Error::Usage(why));
            }
            if current.is_empty() {
                let sql = add_vindex_sql(t, s.key());
                c.query(&sql).await.map_err(crate::db::sql_error(&sql))?;
            }
        }
        match reference {
            Ok(declare) if !references.is_empty() => declare.declare(&ks, &references).await.map_err(|e| Error::Sql(format!("declaring {} a reference table: {e}", references.join(", "))))?,
            Ok(_) => {}
            Err(why) => {
                if !spread.is_empty() {
                    let tables: Vec<&str> = spread.iter().map(|s| s.table()).collect();
                    let mut keys: Vec<&str> = spread.iter().map(|s| s.key().column.as_str()).collect();
                    keys.dedup();
                    notes.push(format!(
                        "{} {} small enough for every shard to hold whole (a reference table), spread by {} instead: {why}",
                        tables.join(", "),
                        if tables.len() == 1 { "is" } else { "are" },
                        keys.join(", ")
                    ));
                }
            }
        }
        let mut errors = Vec::new();
        match read(c, &DatasetTables::Names(names), &mut errors).await {
            Some(text) if errors.is_empty() => Ok(Some(text)),
            _ => Err(Error::Sql(format!("the VSchema just applied cannot be read back: {}", errors.join("; ")))),
        }
    }

    /// Takes the plan's tables out of the VSchema of a sharded keyspace,
    /// once they are dropped: a later prepare of other sizes or options
    /// starts from nothing, and the keyspace keeps no routing for tables it
    /// does not hold. What vtgate refuses goes to `notes`.
    pub async fn remove(c: &mut Conn, plan: &ShardPlan, notes: &mut Vec<String>) {
        let Some(ks) = sharded_keyspace(c).await else { return };
        let Ok(listed) = tables(c).await else { return };
        for s in &plan.tables {
            let Ok(t) = in_keyspace(s.table(), &ks) else { continue };
            if !listed.iter().any(|l| l == t) {
                continue;
            }
            let sql = format!("ALTER VSCHEMA DROP TABLE {}", ident(t));
            if let Err(e) = c.query(&sql).await {
                notes.push(format!("{t} stays in the VSchema of keyspace {ks}: {e} (in: {sql})"));
            }
        }
    }

    /// The VSchema of the dataset's tables as the keyspace holds it now
    /// (JSON, as [`keyspace_json`] writes it): what a run records, and
    /// what [`apply`] reports; `{"sharded":false}` in an unsharded
    /// keyspace. What cannot be read goes to `errors`.
    pub async fn read(c: &mut Conn, dataset: &DatasetTables, errors: &mut Vec<String>) -> Option<String> {
        let ks = keyspace(c).await?;
        match sharded(c, &ks).await {
            Some(true) => {}
            Some(false) => return Some(json!({ "sharded": false }).to_string()),
            None => {
                errors.push(format!("SHOW VSCHEMA KEYSPACES does not list keyspace {ks}"));
                return None;
            }
        }
        let listed = match tables(c).await {
            Ok(t) => t,
            Err(e) => {
                errors.push(format!("SHOW VSCHEMA TABLES: {e}"));
                return None;
            }
        };
        let mut entries = Vec::new();
        for t in listed.iter().filter(|t| holds(dataset, t)) {
            match vindexes_of(c, t, &listed).await {
                Ok(vs) if vs.is_empty() && is_reference(c, t).await => entries.push((t.clone(), Route::Reference)),
                Ok(vs) => entries.push((t.clone(), Route::Vindexes(vs))),
                Err(e) => errors.push(format!("SHOW VSCHEMA VINDEXES ON {t}: {e}")),
            }
        }
        Some(keyspace_json(&entries))
    }

    /// How vtgate routes a table of a sharded keyspace.
    #[derive(Clone, Debug, PartialEq)]
    pub enum Route {
        /// By its vindexes, the primary first (none: listed, but routed by
        /// none: see [`vindexes_of`]).
        Vindexes(Vec<ColumnVindex>),
        /// Whole on every shard.
        Reference,
    }

    /// A sharded keyspace's VSchema in vtctldclient's JSON form, with the
    /// vindexes of each table (`{}`: listed, but routed by none);
    /// compact, keys sorted.
    pub fn keyspace_json(entries: &[(String, Route)]) -> String {
        let mut vindexes = Map::new();
        let mut tables = Map::new();
        for (t, route) in entries {
            let vs = match route {
                Route::Reference => {
                    tables.insert(t.clone(), json!({ "type": "reference" }));
                    continue;
                }
                Route::Vindexes(vs) if vs.is_empty() => {
                    tables.insert(t.clone(), json!({}));
                    continue;
                }
                Route::Vindexes(vs) => vs,
            };
            for v in vs {
                let mut def = json!({ "type": v.kind });
                if !v.params.is_empty() {
                    def["params"] = Value::String(v.params.clone());
                }
                vindexes.insert(v.name.clone(), def);
            }
            let cols: Vec<Value> = vs.iter().map(|v| json!({ "column": v.columns, "name": v.name })).collect();
            tables.insert(t.clone(), json!({ "column_vindexes": cols }));
        }
        json!({ "sharded": true, "vindexes": vindexes, "tables": tables }).to_string()
    }

    /// Whether `table` is one of the dataset's.
    pub fn holds(dataset: &DatasetTables, table: &str) -> bool {
        match dataset {
            DatasetTables::Prefix(p) => table.to_ascii_lowercase().starts_with(&p.to_ascii_lowercase()),
            DatasetTables::Names(names) => names.iter().any(|n| n.eq_ignore_ascii_case(table)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::vschema::*;
    use super::*;
    use crate::db::DatasetTables;

    fn vindex_row(columns: &str, kind: &str) -> ColumnVindex {
        ColumnVindex { columns: columns.into(), name: kind.into(), kind: kind.into(), params: String::new() }
    }

    #[test]
    fn each_kind_of_key_gets_its_vindex() {
        assert_eq!(vindex(&Values::Int), "hash");
        assert_eq!(vindex(&Values::Ordinal), "reverse_bits");
        assert_eq!(vindex(&Values::Text), "unicode_loose_xxhash");
        assert_eq!(vindex(&Key::assigned("id", "give ids").values), "hash");
    }

    #[test]
    fn vschema_statements_quote_what_they_name() {
        assert_eq!(add_vindex_sql("sbtest1", &Key::int("id")), "ALTER VSCHEMA ON `sbtest1` ADD VINDEX `hash`(`id`) USING hash");
        assert_eq!(add_vindex_sql("warehouse1", &Key::ordinal("w_id")), "ALTER VSCHEMA ON `warehouse1` ADD VINDEX `reverse_bits`(`w_id`) USING reverse_bits");
        assert_eq!(add_vindex_sql("OBJECT1", &Key::text("REF")), "ALTER VSCHEMA ON `OBJECT1` ADD VINDEX `unicode_loose_xxhash`(`REF`) USING unicode_loose_xxhash");
        assert_eq!(drop_vindex_sql("we`ird", "hash"), "ALTER VSCHEMA ON `we``ird` DROP VINDEX `hash`");
    }

    /// A table routed as declared (whatever its vindex is called) or not
    /// routed yet is fine; another column or function is a conflict that
    /// names both.
    #[test]
    fn a_table_routed_otherwise_is_a_conflict() {
        let s = Sharding::sharded("sbtest1", Key::int("id"));
        assert_eq!(conflict(&s, &[]), None);
        assert_eq!(conflict(&s, &[vindex_row("id", "hash")]), None);
        assert_eq!(conflict(&s, &[ColumnVindex { name: "my_hash".into(), ..vindex_row("ID", "hash") }]), None);
        let why = conflict(&s, &[vindex_row("k", "hash")]).unwrap();
        assert!(why.contains("hash(k)") && why.contains("hash(id)"), "{why}");
        let why = conflict(&Sharding::sharded("warehouse1", Key::ordinal("w_id")), &[vindex_row("w_id", "hash")]).unwrap();
        assert!(why.contains("USING hash") && why.contains("USING reverse_bits"), "{why}");
        // A reference table spread by its key, where it cannot be declared one: not a conflict.
        assert_eq!(conflict(&Sharding::reference("item1", Key::int("i_id")), &[vindex_row("i_id", "hash")]), None);
    }

    #[test]
    fn tables_stay_in_the_targets_keyspace() {
        assert_eq!(in_keyspace("linktable", "sbtest"), Ok("linktable"));
        assert_eq!(in_keyspace("sbtest.linktable", "sbtest"), Ok("linktable"));
        let why = in_keyspace("linkdb0.linktable", "sbtest").unwrap_err();
        assert!(why.contains("linkdb0") && why.contains("sbtest") && !why.contains('\n'), "{why}");
    }

    /// What a run records: vtctldclient's form, keys sorted, one line; a
    /// table listed without a vindex says so with an empty entry.
    #[test]
    fn the_recorded_vschema_is_vtctld_json() {
        let entries = vec![
            ("warehouse1".to_string(), Route::Vindexes(vec![vindex_row("w_id", "reverse_bits")])),
            ("stock1".to_string(), Route::Vindexes(vec![vindex_row("s_w_id", "reverse_bits")])),
            ("history1".to_string(), Route::Vindexes(vec![vindex_row("h_id", "hash")])),
            ("item1".to_string(), Route::Reference),
            ("stray".to_string(), Route::Vindexes(vec![])),
        ];
        assert_eq!(
            keyspace_json(&entries),
            r#"{"sharded":true,"tables":{"history1":{"column_vindexes":[{"column":"h_id","name":"hash"}]},"item1":{"type":"reference"},"stock1":{"column_vindexes":[{"column":"s_w_id","name":"reverse_bits"}]},"stray":{},"warehouse1":{"column_vindexes":[{"column":"w_id","name":"reverse_bits"}]}},"vindexes":{"hash":{"type":"hash"},"reverse_bits":{"type":"reverse_bits"}}}"#
        );
        let v: serde_json::Value = serde_json::from_str(&keyspace_json(&[])).unwrap();
        assert_eq!(v["sharded"], true);
    }

    #[test]
    fn dataset_tables_are_found_by_prefix_or_name() {
        let p = DatasetTables::Prefix("sbtest".into());
        assert!(holds(&p, "sbtest1") && holds(&p, "SBTEST12") && !holds(&p, "item1"));
        let n = DatasetTables::Names(vec!["OBJECT1".into(), "warehouse1".into()]);
        assert!(holds(&n, "OBJECT1") && holds(&n, "Warehouse1") && !holds(&n, "warehouse10"));
    }

    #[test]
    fn a_plan_says_what_it_knows() {
        assert!(ShardPlan::default().unknown());
        let p = ShardPlan::new(vec![Sharding::reference("item1", Key::int("i_id"))]);
        assert!(!p.unknown() && p.refused.is_none());
        assert_eq!(p.tables[0].table(), "item1");
        assert_eq!(p.tables[0].key(), &Key::int("i_id"));
        assert_eq!(ShardPlan::default().refused_if(Some("why".into())).refused.as_deref(), Some("why"));
        assert!(!ShardPlan::default().refused_if(Some("why".into())).unknown());
    }
}
