//! deploy/kubernetes run for real on the one-node cluster scripts/kubernetes-node.sh starts
//! (scripts/test.sh brings it up and exports KUBECONFIG and FAIRBENCH_TEST_KUBECTL): the
//! image deploy/image.sh makes from this build, the manifests applied with `kubectl apply -k`
//! through deploy/kubernetes-one-node (on MariaDB after deploy/kubernetes/prepare-job.yaml
//! loaded the tables in the cluster), groups of 3 pods on MariaDB and on PostgreSQL merged
//! to the sum of their members, members retried until the server answers, a pod deleted
//! mid-run (its container's exit code as the kubelet records it), a wrong command line, a
//! group that does not gather. Each test works in a
//! namespace of its own and deletes it afterwards.

mod common;

use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn kubectl() -> Command {
    let k = std::env::var("FAIRBENCH_TEST_KUBECTL").expect("FAIRBENCH_TEST_KUBECTL is not set: scripts/test.sh starts the Kubernetes node (scripts/kubernetes-node.sh up) and sets it");
    assert!(std::env::var_os("KUBECONFIG").is_some(), "KUBECONFIG is not set: scripts/kubernetes-node.sh up prints it");
    Command::new(k)
}

fn kube(args: &[&str]) -> String {
    stdout(&run_ok(kubectl().args(args)))
}

/// fairbench's image, made once per test binary from the binary under test and loaded into
/// the node.
fn image() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        let tar = scratch_dir("kube_image").join("fairbench-image.tar");
        run_ok(Command::new("bash").arg(repo().join("deploy/image.sh")).arg(env!("CARGO_BIN_EXE_fairbench")).arg(&tar));
        let node = std::env::var("FAIRBENCH_TEST_KUBE_DIR").expect("FAIRBENCH_TEST_KUBE_DIR is not set: scripts/kubernetes-node.sh up prints it");
        run_ok(Command::new("bash").arg(repo().join("scripts/kubernetes-node.sh")).args(["load", &node]).arg(&tar));
    });
}

/// A namespace of the test's own, deleted when the test ends however it ends.
struct Namespace(String);

impl Namespace {
    fn new(name: &str) -> Namespace {
        image();
        let ns = format!("fb-{name}");
        let _ = kubectl().args(["delete", "namespace", &ns, "--wait=true", "--timeout=60s", "--ignore-not-found"]).output();
        kube(&["create", "namespace", &ns]);
        // Pods need the namespace's service account, which the controller manager adds.
        let t = Instant::now();
        while !kubectl().args(["-n", &ns, "get", "serviceaccount", "default"]).output().unwrap().status.success() {
            assert!(t.elapsed() < Duration::from_secs(30), "namespace {ns} got no default service account");
            std::thread::sleep(Duration::from_millis(200));
        }
        Namespace(ns)
    }

    fn kube(&self, args: &[&str]) -> String {
        stdout(&run_ok(kubectl().args(["-n", &self.0]).args(args)))
    }

    /// Applies deploy/kubernetes-one-node with the target and these ConfigMap values.
    fn apply(&self, target: &str, config: &[(&str, &str)]) {
        self.kube(&["create", "secret", "generic", "fairbench-target", &format!("--from-literal=url={target}")]);
        self.apply_group(config);
    }

    /// The docs' first step on this node: deploy/kubernetes's ConfigMap and prepare-job.yaml,
    /// as they are, with the same patches the one-node overlay gives the group's Job (the
    /// node's network, the image loaded by hand, a small CPU request); waits for the prepare
    /// Job to complete.
    fn prepare(&self, target: &str, config: &[(&str, &str)]) {
        self.kube(&["create", "secret", "generic", "fairbench-target", &format!("--from-literal=url={target}")]);
        let dir = scratch_dir(&format!("kube_prepare_{}", self.0));
        for f in ["configmap.yaml", "prepare-job.yaml"] {
            std::fs::copy(repo().join("deploy/kubernetes").join(f), dir.join(f)).unwrap();
        }
        let mut k = format!("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: {}\nresources:\n  - configmap.yaml\n  - prepare-job.yaml\npatches:\n", self.0);
        k.push_str("  - target:\n      kind: ConfigMap\n      name: fairbench\n    patch: |-\n");
        for (key, value) in config {
            k.push_str(&format!("      - op: replace\n        path: /data/{key}\n        value: \"{value}\"\n"));
        }
        k.push_str(
            "  - target:\n      kind: Job\n      name: fairbench-prepare\n    patch: |-\n      - op: replace\n        path: /spec/template/spec/containers/0/imagePullPolicy\n        value: Never\n      - op: replace\n        path: /spec/template/spec/containers/0/resources/requests\n        value: {cpu: 100m, memory: 64Mi}\n      - op: add\n        path: /spec/template/spec/hostNetwork\n        value: true\n      - op: add\n        path: /spec/template/spec/dnsPolicy\n        value: Default\n",
        );
        std::fs::write(dir.join("kustomization.yaml"), k).unwrap();
        run_ok(kubectl().arg("apply").arg("-k").arg(&dir));
        let waited = kubectl().args(["-n", &self.0, "wait", "--for=condition=complete", "--timeout=180s", "job/fairbench-prepare"]).output().unwrap();
        assert!(waited.status.success(), "the prepare Job did not complete: {}\n{}", String::from_utf8_lossy(&waited.stderr), self.kube(&["logs", "job/fairbench-prepare"]));
    }

    /// deploy/kubernetes-one-node with these ConfigMap values, the Secret already there.
    fn apply_group(&self, config: &[(&str, &str)]) {
        let dir = scratch_dir(&format!("kube_{}", self.0));
        let mut k = format!(
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: {}\nresources:\n  - {}\npatches:\n  - target:\n      kind: ConfigMap\n      name: fairbench\n    patch: |-\n",
            self.0,
            relative(&dir, &repo().join("deploy/kubernetes-one-node")).display()
        );
        for (key, value) in config {
            k.push_str(&format!("      - op: replace\n        path: /data/{key}\n        value: \"{value}\"\n"));
        }
        std::fs::write(dir.join("kustomization.yaml"), k).unwrap();
        run_ok(kubectl().arg("apply").arg("-k").arg(&dir));
    }

    /// Waits for the Job to end: Complete or Failed, whichever it reaches.
    fn finish(&self, limit: Duration) -> String {
        let t = Instant::now();
        loop {
            let c = self.kube(&["get", "job", "fairbench", "-o", "jsonpath={range .status.conditions[?(@.status==\"True\")]}{.type}:{.reason} {end}"]);
            if c.contains("Complete:") || c.contains("Failed:") {
                return c;
            }
            assert!(t.elapsed() < limit, "job fairbench in {} did not finish within {limit:?}: {c}\n{}", self.0, self.kube(&["get", "pods", "-o", "wide"]));
            std::thread::sleep(Duration::from_millis(500));
        }
    }

    /// (completion index, pod name, phase) of the Job's pods.
    fn pods(&self) -> Vec<(String, String, String)> {
        let out = self.kube(&[
            "get",
            "pods",
            "-l",
            "job-name=fairbench",
            "-o",
            "jsonpath={range .items[*]}{.metadata.annotations.batch\\.kubernetes\\.io/job-completion-index} {.metadata.name} {.status.phase}{\"\\n\"}{end}",
        ]);
        let mut pods: Vec<(String, String, String)> = out
            .lines()
            .filter_map(|l| {
                let mut w = l.split_whitespace();
                Some((w.next()?.to_string(), w.next()?.to_string(), w.next()?.to_string()))
            })
            .collect();
        pods.sort();
        pods
    }

    /// Each pod's output (stdout and stderr as the kubelet keeps them) in a file.
    fn logs(&self, pods: &[(String, String, String)]) -> Vec<String> {
        let dir = scratch_dir(&format!("kube_logs_{}", self.0));
        pods.iter()
            .map(|(index, name, _)| {
                let path = dir.join(format!("member-{index}.log"));
                std::fs::write(&path, self.kube(&["logs", name])).unwrap();
                path.display().to_string()
            })
            .collect()
    }
}

impl Drop for Namespace {
    fn drop(&mut self) {
        let out = kubectl().args(["delete", "namespace", &self.0, "--wait=true", "--timeout=120s"]).output().unwrap();
        if !std::thread::panicking() {
            assert!(out.status.success(), "deleting namespace {}: {}", self.0, String::from_utf8_lossy(&out.stderr));
        }
    }
}

/// `to` as a path from `from` (kustomize loads bases by relative path).
fn relative(from: &Path, to: &Path) -> PathBuf {
    let from: Vec<_> = from.components().collect();
    let to: Vec<_> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut p = PathBuf::new();
    for _ in common..from.len() {
        p.push("..");
    }
    for c in &to[common..] {
        p.push(c);
    }
    p
}

/// A database of the test's own on a test server, with the workload's tables loaded;
/// dropped when the test ends.
struct Database {
    engine: &'static str,
    name: String,
    target: String,
}

impl Database {
    fn prepared(engine: &'static str, name: &str, size: &str) -> Database {
        let db = Database::empty(engine, name);
        run_ok(fairbench().args(["prepare", "oltp_read_write", "--tables", "1", "--table-size", size, "--target", &db.target]));
        db
    }

    /// The database without tables, for a prepare Job to load.
    fn empty(engine: &'static str, name: &str) -> Database {
        let base = if engine == "mysql" { mysql_url() } else { pg_url() };
        if engine == "mysql" {
            mysql_admin(&format!("DROP DATABASE IF EXISTS {name}; CREATE DATABASE {name}"));
        } else {
            pg_admin(&format!("DROP DATABASE IF EXISTS {name}"));
            pg_admin(&format!("CREATE DATABASE {name} OWNER {}", parse_url(&base).user));
        }
        let target = format!("{}/{name}", base.rsplit_once('/').unwrap().0);
        Database { engine, name: name.to_string(), target }
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        if self.engine == "mysql" {
            mysql_admin(&format!("DROP DATABASE IF EXISTS {}", self.name));
        } else {
            pg_admin(&format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name));
        }
    }
}

/// The members' start lines lie within the barrier's tolerance of each other.
fn assert_started_together(logs: &[String]) {
    let starts: Vec<f64> = logs.iter().map(|l| started_at(l)).collect();
    let spread = starts.iter().cloned().fold(f64::MIN, f64::max) - starts.iter().cloned().fold(f64::MAX, f64::min);
    assert!(spread < 50.0, "the members started {spread:.1} ms apart: {starts:?}");
}

fn started_at(log: &str) -> f64 {
    let text = std::fs::read_to_string(log).unwrap();
    let line = text.lines().find(|l| l.contains(" started at ")).unwrap_or_else(|| panic!("{log}: no start line:\n{text}"));
    line.split(" started at ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap()
}

/// A group of three on `engine`; on MariaDB the tables are loaded in the cluster by
/// deploy/kubernetes/prepare-job.yaml first, as docs/many-hosts.md says.
fn group_of_three(engine: &'static str) {
    let ns = Namespace::new(&format!("group-{engine}"));
    let name = format!("fbk8s_{engine}");
    let config = [
        ("FAIRBENCH_GROUP", format!("k8s-{engine}")),
        ("FAIRBENCH_TABLE_SIZE", "1000".into()),
        ("FAIRBENCH_THREADS", "2".into()),
        ("FAIRBENCH_TIME", "4".into()),
        ("FAIRBENCH_GROUP_TIMEOUT", "120".into()),
    ];
    let config: Vec<(&str, &str)> = config.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let _db = if engine == "mysql" {
        let db = Database::empty(engine, &name);
        ns.prepare(&db.target, &config);
        assert_eq!(mysql_admin(&format!("SELECT COUNT(*) FROM {name}.sbtest1")).trim(), "1000", "the prepare Job loaded the table");
        ns.apply_group(&config);
        db
    } else {
        let db = Database::prepared(engine, &name, "1000");
        ns.apply(&db.target, &config);
        db
    };
    let end = ns.finish(Duration::from_secs(240));
    let pods = ns.pods();
    assert!(end.contains("Complete:"), "{end}\n{pods:?}");
    assert_eq!(pods.iter().map(|p| (p.0.as_str(), p.2.as_str())).collect::<Vec<_>>(), vec![("0", "Succeeded"), ("1", "Succeeded"), ("2", "Succeeded")]);
    let logs = ns.logs(&pods);
    assert_started_together(&logs);
    assert_merge_is_exact(&logs, &scratch_dir(&format!("kube_merge_{engine}")));
}

#[test]
fn a_group_of_three_pods_on_mariadb_merges_to_the_sum_of_its_members() {
    group_of_three("mysql");
}

#[test]
fn a_group_of_three_pods_on_postgres_merges_to_the_sum_of_its_members() {
    group_of_three("pg");
}

/// A member whose pod is deleted mid-run stops within its grace period (exit 130), is not
/// started again, and the merge of the others names it missing.
#[test]
fn a_pod_deleted_mid_run_is_a_lost_member_and_not_retried() {
    let ns = Namespace::new("lost-member");
    let db = Database::prepared("mysql", "fbk8s_lost", "1000");
    ns.apply(&db.target, &[("FAIRBENCH_GROUP", "k8s-lost"), ("FAIRBENCH_TABLE_SIZE", "1000"), ("FAIRBENCH_THREADS", "1"), ("FAIRBENCH_TIME", "20"), ("FAIRBENCH_GROUP_TIMEOUT", "120")]);
    // Once every member has started, member 1's pod goes.
    let t = Instant::now();
    loop {
        let pods = ns.pods();
        if pods.len() == 3 && pods.iter().all(|p| p.2 == "Running" && ns.kube(&["logs", &p.1]).contains(" started at ")) {
            // The pod's own record of how its container ended, read as the kubelet writes
            // it (the pod object goes once the Job has counted it).
            let mut watch = watch::Watched::spawn(kubectl().args([
                "-n",
                &ns.0,
                "get",
                "pod",
                &pods[1].1,
                "--watch",
                "-o",
                "jsonpath={.status.containerStatuses[0].state.terminated.exitCode} {.status.containerStatuses[0].state.terminated.reason}{\"\\n\"}",
            ]));
            ns.kube(&["delete", "pod", &pods[1].1, "--wait=false"]);
            let (_, ended) = watch.wait_for(Duration::from_secs(60), |l| l.split_whitespace().next().is_some_and(|w| w.parse::<i32>().is_ok()));
            watch.kill();
            // Ctrl-C's code: the SIGTERM of the deletion stopped the run within its grace
            // period, saying so, rather than the SIGKILL after it (137).
            assert_eq!(ended.split_whitespace().next(), Some("130"), "member 1's container ended: {ended}");
            break;
        }
        assert!(t.elapsed() < Duration::from_secs(120), "the group did not start: {pods:?}");
        std::thread::sleep(Duration::from_millis(300));
    }
    let end = ns.finish(Duration::from_secs(120));
    assert!(end.contains("Failed:FailedIndexes"), "{end}");
    assert_eq!(ns.kube(&["get", "job", "fairbench", "-o", "jsonpath={.status.failedIndexes}"]), "1");
    let pods = ns.pods();
    assert!(!pods.iter().any(|p| p.0 == "1"), "member 1 was started again: {pods:?}");
    assert_eq!(pods.iter().map(|p| p.2.as_str()).collect::<Vec<_>>(), vec!["Succeeded", "Succeeded"], "{pods:?}");
    let logs = ns.logs(&pods);
    let merged = stdout(&run_ok(fairbench().arg("merge").args(&logs).arg("--no-save")));
    assert!(merged.contains("member(s) 1 missing"), "{merged}");
}

/// A usage error (exit 2) fails the Job at once: no index is tried twice, and the pod's
/// log is the one line that says what is wrong.
#[test]
fn a_job_with_a_wrong_command_line_fails_once() {
    let ns = Namespace::new("bad-usage");
    let db = Database::prepared("mysql", "fbk8s_usage", "100");
    ns.apply(&db.target, &[("FAIRBENCH_GROUP", "k8s-usage"), ("FAIRBENCH_THREADS", "-1")]);
    let end = ns.finish(Duration::from_secs(120));
    assert!(end.contains("Failed:PodFailurePolicy"), "{end}");
    let pods = ns.pods();
    let mut indexes: Vec<&str> = pods.iter().map(|p| p.0.as_str()).collect();
    indexes.dedup();
    assert_eq!(indexes.len(), pods.len(), "an index was tried again: {pods:?}");
    let failed = pods.iter().find(|p| p.2 == "Failed").unwrap_or_else(|| panic!("no failed pod: {pods:?}"));
    let log = ns.kube(&["logs", &failed.1]);
    assert!(log.contains("--threads=-1") && log.lines().count() == 1, "{log}");
}

/// A group that cannot gather (a size larger than the Job) gives up after its timeout with
/// a line that counts the members and says where to look.
#[test]
fn a_group_that_does_not_gather_says_how_many_came_and_where_to_look() {
    let ns = Namespace::new("no-gather");
    let db = Database::prepared("mysql", "fbk8s_gather", "100");
    ns.apply(&db.target, &[("FAIRBENCH_GROUP", "k8s-gather"), ("FAIRBENCH_TABLE_SIZE", "100"), ("FAIRBENCH_GROUP_SIZE", "4"), ("FAIRBENCH_GROUP_TIMEOUT", "10"), ("FAIRBENCH_TIME", "1")]);
    let end = ns.finish(Duration::from_secs(120));
    assert!(end.contains("Failed:"), "{end}");
    let pods = ns.pods();
    assert_eq!(pods.len(), 3, "a member was retried: {pods:?}");
    for (_, pod, _) in &pods {
        // Members give up one by one, each leaving the barrier: the first counts the most.
        let log = ns.kube(&["logs", pod]);
        assert!(["1", "2", "3"].iter().any(|n| log.contains(&format!("group k8s-gather: {n} of 4 members arrived within --group-timeout=10s"))) && log.contains("kubectl get pods"), "{log}");
    }
}

/// The image runs `fairbench --version` and a run on SQLite, as deploy/Dockerfile's does.
#[test]
fn the_image_runs_the_version_and_a_sqlite_run() {
    let ns = Namespace::new("image");
    let pod = |name: &str, args: &[&str]| -> String {
        let mut c = kubectl();
        c.args(["-n", &ns.0, "run", name, "--image=fairbench:0.1.0", "--image-pull-policy=Never", "--restart=Never", "--overrides={\"spec\":{\"hostNetwork\":true}}", "--"]).args(args);
        run_ok(&mut c);
        let t = Instant::now();
        loop {
            let phase = ns.kube(&["get", "pod", name, "-o", "jsonpath={.status.phase}"]);
            if phase == "Succeeded" {
                return ns.kube(&["logs", name]);
            }
            assert!(phase != "Failed", "pod {name} failed: {}", ns.kube(&["logs", name]));
            assert!(t.elapsed() < Duration::from_secs(120), "pod {name}: {phase}");
            std::thread::sleep(Duration::from_millis(300));
        }
    };
    let version = pod("version", &["--version"]);
    assert!(version.starts_with("fairbench "), "{version}");
    let run = pod("sqlite", &["run", "oltp_point_select", "--table-size=100", "--time=1"]);
    assert!(run.contains("queries performed:") || run.contains("transactions:"), "{run}");
}

/// A plain TCP relay from `listener` to the MariaDB test server, from now on.
fn relay_to_mariadb(listener: std::net::TcpListener) {
    use std::net::TcpStream;
    std::thread::spawn(move || {
        for client in listener.incoming() {
            let Ok(client) = client else { return };
            let Ok(server) = TcpStream::connect(("127.0.0.1", mysql_port())) else { return };
            for (from, to) in [(client.try_clone().unwrap(), server.try_clone().unwrap()), (server, client)] {
                let (mut from, mut to) = (from, to);
                std::thread::spawn(move || {
                    let _ = std::io::copy(&mut from, &mut to);
                    let _ = to.shutdown(std::net::Shutdown::Write);
                });
            }
        }
    });
}

/// Members that cannot reach the server (exit 3) are tried again as the Job's backoff
/// says, and once the server answers, the retried members gather and run as one group.
#[test]
fn members_that_cannot_reach_the_server_are_retried_and_then_gather() {
    let ns = Namespace::new("retry");
    let db = Database::prepared("mysql", "fbk8s_retry", "1000");
    // A port nothing listens on yet: the first try of every member fails to connect.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let target = db.target.replacen(&format!(":{}/", mysql_port()), &format!(":{port}/"), 1);
    assert_ne!(target, db.target);
    ns.apply(&target, &[("FAIRBENCH_GROUP", "k8s-retry"), ("FAIRBENCH_TABLE_SIZE", "1000"), ("FAIRBENCH_THREADS", "1"), ("FAIRBENCH_TIME", "3"), ("FAIRBENCH_GROUP_TIMEOUT", "120")]);
    let t = Instant::now();
    loop {
        let pods = ns.pods();
        let failed: std::collections::BTreeSet<&str> = pods.iter().filter(|p| p.2 == "Failed").map(|p| p.0.as_str()).collect();
        if failed.len() == 3 {
            break;
        }
        assert!(t.elapsed() < Duration::from_secs(120), "the members did not all fail their first try: {pods:?}");
        std::thread::sleep(Duration::from_millis(300));
    }
    for (_, pod, phase) in ns.pods() {
        if phase == "Failed" {
            let log = ns.kube(&["logs", &pod]);
            assert!(log.contains("fairbench:") && log.contains(&port.to_string()), "{log}");
            let code = ns.kube(&["get", "pod", &pod, "-o", "jsonpath={.status.containerStatuses[0].state.terminated.exitCode}"]);
            assert_eq!(code, "3", "exit code of {pod}: {log}");
        }
    }
    relay_to_mariadb(std::net::TcpListener::bind(("127.0.0.1", port)).unwrap());
    let end = ns.finish(Duration::from_secs(180));
    let pods = ns.pods();
    assert!(end.contains("Complete:"), "{end}\n{pods:?}");
    for index in ["0", "1", "2"] {
        let tries: Vec<&str> = pods.iter().filter(|p| p.0 == index).map(|p| p.2.as_str()).collect();
        assert_eq!(tries.iter().filter(|&&t| t == "Succeeded").count(), 1, "member {index}: {pods:?}");
        assert!(tries.contains(&"Failed"), "member {index} was not retried: {pods:?}");
    }
    let done: Vec<(String, String, String)> = pods.into_iter().filter(|p| p.2 == "Succeeded").collect();
    let logs = ns.logs(&done);
    assert_started_together(&logs);
    assert_merge_is_exact(&logs, &scratch_dir("kube_merge_retry"));
}
