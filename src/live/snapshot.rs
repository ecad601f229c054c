//! The text of an environment snapshot (`fairbench env`).

use crate::env::durability::durability;
use crate::env::{standby_text, tls_text, Snapshot};
use crate::units::human_bytes;

/// `fairbench env`: a snapshot now, as text.
pub fn snapshot_text(s: &Snapshot) -> String {
    let mut o = String::new();
    let mut p = |l: String| {
        o.push_str(&l);
        o.push('\n');
    };
    p(format!("Snapshot taken at {}", s.taken_at));
    p(format!("Server: {} {} ({})", s.server.engine, s.server.version, if s.server.local { "local" } else { "remote" }));
    if let Some(o) = &s.server.origin {
        p(format!("  build: {o}"));
    }
    if let Some(b) = &s.server.binary {
        p(format!("  executable: {b}"));
    }
    for t in crate::db::catalog::lines(&s.server.tables) {
        p(format!("  {t}"));
    }
    if let Some(b) = s.server.dataset_bytes {
        let how = if s.server.dataset_estimated { " (an estimate from table statistics)" } else { "" };
        p(format!("  dataset on disk: {}{how}", human_bytes(b as f64)));
    }
    for m in &s.server.members {
        p(format!("  cluster member: {m}"));
    }
    if let Some(sh) = &s.server.sharding {
        p(format!("  sharding: {sh}"));
    }
    if let Some(u) = &s.server.metrics_url {
        p(format!("  counters from: {u}"));
    }
    if let Some(b) = s.server.cache_bytes {
        p(format!("  page cache of the engine: {}", human_bytes(b as f64)));
    }
    if let Some(b) = s.server.os_cache_bytes {
        p(format!("  memory available to the OS page cache: {}", human_bytes(b as f64)));
    }
    if let Some(t) = tls_text(&s.server) {
        p(format!("  connection: {t}"));
    }
    if let Some(pl) = &s.server.pooler {
        p(format!("  {pl}"));
    }
    if let Some(sb) = standby_text(&s.server) {
        p(format!("  {sb}"));
    }
    let d = durability(&s.server);
    p(format!("  durability: {} ({})", d.class.name(), d.evidence.join(", ")));
    let commit = crate::db::engines::named(&s.server.engine).map(|e| e.commit_settings(&s.server)).unwrap_or_default();
    if !commit.is_empty() {
        p(format!("  commit: {}", commit.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(", ")));
    }
    p(format!("  status counters: {}", s.server.status.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" ")));
    p(format!("  variables: {} (session overrides: {})", s.server.variables.len(), s.server.session.len()));
    for (k, v) in &s.server.session {
        p(format!("    session {k} = {v}"));
    }
    for (k, v) in &s.server.variables {
        match s.server.units.get(k) {
            Some(u) => p(format!("    {k} = {v} {u}")),
            None => p(format!("    {k} = {v}")),
        }
    }
    let h = &s.host;
    p(format!("Client host: {} kernel {}", h.hostname, h.kernel));
    p(format!("  CPU: {} x {} ({} available to fairbench)", h.cpus, h.cpu_model, h.cpus_available));
    p(format!("  memory: {}", human_bytes(h.mem_total_bytes as f64)));
    for (k, v) in &h.settings {
        p(format!("  {k} = {v}"));
    }
    for e in &s.errors {
        p(format!("Not captured: {e}"));
    }
    o
}
