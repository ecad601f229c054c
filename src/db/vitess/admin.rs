//! vtctld, the cluster's control service, reached with vtctldclient at the
//! target's `admin-port`: what SQL through vtgate cannot change, such as a
//! table whole on every shard (a reference table), is changed there.

use crate::db::engines::SendFuture;
use crate::db::sharding::vschema::DeclareReference;
use crate::db::ConnConfig;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::BINDIR_VAR;
/// A change of the topology takes well under a second; past this, vtctld is not answering.
const LIMIT: Duration = Duration::from_secs(30);

/// vtctldclient pointed at one vtctld.
#[derive(Clone)]
pub struct Vtctld {
    program: PathBuf,
    server: String,
}

impl Vtctld {
    /// The target's vtctld; Err: why there is none, as what to give.
    pub fn of(cfg: &ConnConfig) -> Result<Vtctld, String> {
        let port = cfg.target.admin_port.ok_or("add ?admin-port=N (vtctld's gRPC port) to the target URL to have vtctld declare reference tables")?;
        let program = crate::cache::built("vtctldclient", BINDIR_VAR).ok_or_else(|| {
            let looked = std::env::var(BINDIR_VAR).ok().filter(|d| !d.is_empty()).map_or_else(|| format!("on PATH or in {}", crate::cache::bin_dir().display()), |d| format!("in {BINDIR_VAR}={d}"));
            format!("vtctldclient, needed to reach vtctld at admin-port={port}, is not {looked}")
        })?;
        Ok(Vtctld { program, server: cfg.target.status_address(port) })
    }

    /// One vtctldclient command: its output, or why it failed. Ends after
    /// [`LIMIT`], the program killed (Ctrl-C ends the process sooner).
    fn run(&self, args: &[&str]) -> Result<String, String> {
        let mut child = Command::new(&self.program)
            .arg("--server")
            .arg(&self.server)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("{}: {e}", self.program.display()))?;
        let started = Instant::now();
        loop {
            match child.try_wait() {
                Ok(Some(_)) => break,
                Ok(None) if started.elapsed() > LIMIT => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(format!("vtctldclient {} gave no answer from {} (stopped)", args[0], self.server));
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(20)),
                Err(e) => return Err(e.to_string()),
            }
        }
        let out = child.wait_with_output().map_err(|e| e.to_string())?;
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            return Err(format!("vtctldclient {} at {}: {}", args[0], self.server, err.trim().lines().last().unwrap_or("failed")));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// The keyspace's VSchema with `tables` made reference tables, applied
    /// whole (vtctld takes a keyspace's VSchema as one document).
    fn declare_reference(&self, keyspace: &str, tables: &[String]) -> Result<(), String> {
        let text = self.run(&["GetVSchema", keyspace])?;
        let mut vschema: Value = serde_json::from_str(&text).map_err(|e| format!("GetVSchema {keyspace} gave no JSON: {e}"))?;
        with_references(&mut vschema, tables);
        self.run(&["ApplyVSchema", "--vschema", &vschema.to_string(), keyspace]).map(|_| ())
    }
}

impl DeclareReference for Vtctld {
    fn declare<'a>(&'a self, keyspace: &'a str, tables: &'a [String]) -> SendFuture<'a, Result<(), String>> {
        Box::pin(async move {
            let (me, ks, tables) = (self.clone(), keyspace.to_string(), tables.to_vec());
            tokio::task::spawn_blocking(move || me.declare_reference(&ks, &tables)).await.map_err(|e| e.to_string())?
        })
    }
}

/// `vschema` with each of `tables` a reference table (what routed it
/// before replaced).
fn with_references(vschema: &mut Value, tables: &[String]) {
    if !vschema["tables"].is_object() {
        vschema["tables"] = json!({});
    }
    for t in tables {
        vschema["tables"][t] = json!({ "type": "reference" });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_tables_replace_what_routed_them() {
        let mut v = json!({ "sharded": true, "vindexes": { "hash": { "type": "hash" } }, "tables": { "stock1": { "column_vindexes": [{ "column": "s_w_id", "name": "hash" }] }, "item1": { "column_vindexes": [{ "column": "i_id", "name": "hash" }] } } });
        with_references(&mut v, &["item1".into(), "item2".into()]);
        assert_eq!(v["tables"]["item1"], json!({ "type": "reference" }));
        assert_eq!(v["tables"]["item2"], json!({ "type": "reference" }));
        assert_eq!(v["tables"]["stock1"]["column_vindexes"][0]["column"], "s_w_id");
        let mut empty = json!({ "sharded": true });
        with_references(&mut empty, &["item1".into()]);
        assert_eq!(empty["tables"]["item1"]["type"], "reference");
    }
}
