//! When a cluster is ready: each node as its PostgreSQL sees itself and
//! the members as Patroni sees them.

use super::super::super::client::psql_at;
use super::super::super::common::{same_dir, Bins};
use super::super::super::daemon::http_get;
use super::super::super::StartOpts;
use super::{Cluster, Node};

/// The running members as Patroni sees them: (name, role: `leader`,
/// `sync_standby` or `replica`), from the first REST API that answers.
fn members(c: &Cluster) -> Vec<(String, String)> {
    let Some(body) = c.nodes.iter().find_map(|n| http_get(n.api_port, "/cluster")) else { return vec![] };
    let v: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
    v["members"].as_array().into_iter().flatten().filter(|m| m["state"] == "running").filter_map(|m| Some((m["name"].as_str()?.to_string(), m["role"].as_str()?.to_string()))).collect()
}

/// One node as its PostgreSQL sees itself.
#[derive(Clone, Debug)]
pub(super) struct NodeHealth {
    pub(super) in_recovery: bool,
    /// A replica's WAL receiver: `streaming` once it follows the leader.
    pub(super) receiver: String,
    /// A leader's replicas that stream from it (base backups' WAL streams aside).
    pub(super) streaming: u32,
    /// A leader's synchronous standbys.
    pub(super) sync_standbys: u32,
}

#[derive(Clone, Debug, Default)]
pub(super) struct Health {
    /// Per node; None when it does not answer (yet), or another server does.
    pub(super) nodes: Vec<Option<NodeHealth>>,
    /// Patroni's view: the running members' roles.
    pub(super) roles: Vec<String>,
}

impl Health {
    /// One leader, every other node a streaming replica, each running for
    /// Patroni; with sync, a synchronous standby on the leader and in
    /// Patroni's view (which `patronictl list` shows).
    pub(super) fn ready(&self, sync: bool) -> bool {
        let Some(all) = self.nodes.iter().cloned().collect::<Option<Vec<_>>>() else { return false };
        let leaders: Vec<&NodeHealth> = all.iter().filter(|h| !h.in_recovery).collect();
        let role = |r: &str| self.roles.iter().filter(|x| *x == r).count();
        leaders.len() == 1
            && all.iter().filter(|h| h.in_recovery).all(|h| h.receiver == "streaming")
            && leaders[0].streaming as usize == all.len() - 1
            && self.roles.len() == all.len()
            && role("leader") == 1
            && (!sync || (leaders[0].sync_standbys > 0 && role("sync_standby") > 0))
    }

    /// The first node that does not answer or does not stream.
    pub(super) fn waiting_for<'a>(&self, c: &'a Cluster) -> Option<&'a Node> {
        c.nodes.iter().zip(&self.nodes).find(|(_, h)| h.as_ref().is_none_or(|h| h.in_recovery && h.receiver != "streaming")).map(|(n, _)| n)
    }

    pub(super) fn summary(&self, c: &Cluster) -> String {
        let each: Vec<String> = c
            .nodes
            .iter()
            .zip(self.nodes.iter().chain(std::iter::repeat(&None)))
            .map(|(n, h)| match h {
                None => format!("{} not answering", n.name),
                Some(h) if !h.in_recovery => format!("{} leader ({} replicas streaming, {} sync standbys)", n.name, h.streaming, h.sync_standbys),
                Some(h) => format!("{} replica ({})", n.name, if h.receiver.is_empty() { "not streaming" } else { &h.receiver }),
            })
            .collect();
        format!("{}; Patroni: {}", each.join(", "), if self.roles.is_empty() { "no member running".to_string() } else { self.roles.join(", ") })
    }
}

/// Each node asked over TCP; an answer counts only from the node's own data directory.
pub(super) fn health(o: &StartOpts, c: &Cluster, b: &Bins) -> Health {
    // Patroni names each replica's connection after its node.
    let names: Vec<String> = c.nodes.iter().map(|n| format!("'{}'", n.name)).collect();
    let q = format!(
        "SELECT pg_is_in_recovery(), current_setting('data_directory'), coalesce((SELECT status FROM pg_stat_wal_receiver), ''), \
         (SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming' AND application_name IN ({})), \
         (SELECT count(*) FROM pg_stat_replication WHERE sync_state IN ('sync', 'quorum'))",
        names.join(", ")
    );
    let nodes = c
        .nodes
        .iter()
        .map(|n| {
            // Each probe may take a moment on a busy machine: a Ctrl-C ends the round.
            if crate::model::interrupted() {
                return None;
            }
            let out = psql_at(&b.client, n.port, &o.user, &o.password, "postgres", &q).ok()?;
            let f: Vec<&str> = out.trim().split('|').collect();
            if f.len() != 5 || !same_dir(f[1], &n.dir.join("data")) {
                return None;
            }
            Some(NodeHealth { in_recovery: f[0] == "t", receiver: f[2].to_string(), streaming: f[3].parse().unwrap_or(0), sync_standbys: f[4].parse().unwrap_or(0) })
        })
        .collect();
    Health { nodes, roles: members(c).into_iter().map(|(_, r)| r).collect() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readiness_needs_one_leader_and_streaming_replicas() {
        let h = |r: bool, s: &str, streaming: u32, sync: u32| Some(NodeHealth { in_recovery: r, receiver: s.into(), streaming, sync_standbys: sync });
        let ready = |nodes: Vec<Option<NodeHealth>>, roles: &[&str], sync: bool| Health { nodes, roles: roles.iter().map(|s| s.to_string()).collect() }.ready(sync);
        let both = ["leader", "sync_standby"];
        assert!(ready(vec![h(false, "", 1, 0), h(true, "streaming", 0, 0)], &["leader", "replica"], false));
        assert!(!ready(vec![h(false, "", 1, 0), h(true, "streaming", 0, 0)], &both, true));
        assert!(ready(vec![h(false, "", 1, 1), h(true, "streaming", 0, 0)], &both, true));
        // Patroni has not named the sync standby yet, or sees a member not running.
        assert!(!ready(vec![h(false, "", 1, 1), h(true, "streaming", 0, 0)], &["leader", "replica"], true));
        assert!(!ready(vec![h(false, "", 1, 0), h(true, "streaming", 0, 0)], &["leader"], false));
        // The replica streams, the leader does not see it yet (catching up).
        assert!(!ready(vec![h(false, "", 0, 0), h(true, "streaming", 0, 0)], &both, false));
        assert!(!ready(vec![h(false, "", 1, 0), h(true, "starting", 0, 0)], &both, false));
        assert!(!ready(vec![h(false, "", 1, 0), None], &both, false));
        assert!(!ready(vec![h(false, "", 1, 0), h(false, "", 1, 0)], &both, false));
    }
}
