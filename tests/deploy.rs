//! The Kubernetes manifests in deploy/kubernetes: valid against the
//! Kubernetes JSON schemas (offline, with kubernetes-validate, which
//! scripts/test.sh installs), consistent with each other, and their
//! containers' arguments accepted by fairbench as written.

mod common;

use common::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The Kubernetes release the manifests are checked against.
const KUBERNETES: &str = "1.37.0";

fn deploy_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/kubernetes")
}

fn validator() -> PathBuf {
    let path = std::env::var_os("FAIRBENCH_TEST_KUBERNETES_VALIDATE")
        .map(PathBuf::from)
        .or_else(|| {
            let cache = std::env::var_os("XDG_CACHE_HOME").map(PathBuf::from).or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
            Some(cache.join(format!("fairbench/kubernetes-validate-{KUBERNETES}/bin/kubernetes-validate")))
        })
        .expect("set FAIRBENCH_TEST_KUBERNETES_VALIDATE or HOME");
    assert!(path.is_file(), "{} is missing: scripts/test.sh installs kubernetes-validate {KUBERNETES} there", path.display());
    path
}

fn validate(files: &[PathBuf]) -> std::process::Output {
    let mut c = Command::new(validator());
    c.args(["--strict", "--kubernetes-version", KUBERNETES]).args(files);
    c.output().expect("kubernetes-validate runs")
}

fn read(name: &str) -> String {
    std::fs::read_to_string(deploy_dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The files kustomization.yaml applies, and the prepare Job beside them.
fn manifests() -> Vec<PathBuf> {
    let k = read("kustomization.yaml");
    let mut files: Vec<PathBuf> = block(&k, "resources:").iter().map(|f| deploy_dir().join(f)).collect();
    assert!(!files.is_empty(), "kustomization.yaml lists no resources");
    files.push(deploy_dir().join("prepare-job.yaml"));
    files
}

/// The `- item` lines right under `key` (the manifests' lists are plain).
fn block(text: &str, key: &str) -> Vec<String> {
    let mut lines = text.lines().skip_while(|l| l.trim() != key).skip(1);
    let mut out = Vec::new();
    for l in lines.by_ref() {
        let t = l.trim();
        match t.strip_prefix("- ") {
            Some(item) => out.push(item.trim_matches('"').to_string()),
            None if t.is_empty() || t.starts_with('#') => {}
            None => break,
        }
    }
    out
}

/// The value of the first `key: value` line.
fn scalar(text: &str, key: &str) -> String {
    text.lines().find_map(|l| l.trim().strip_prefix(&format!("{key}:"))).map(|v| v.trim().trim_matches('"').to_string()).unwrap_or_else(|| panic!("no {key}: in\n{text}"))
}

/// The ConfigMap's data.
fn config() -> BTreeMap<String, String> {
    let text = read("configmap.yaml");
    text.lines()
        .skip_while(|l| l.trim() != "data:")
        .skip(1)
        .filter(|l| l.starts_with("  ") && !l.trim().starts_with('#'))
        .filter_map(|l| l.trim().split_once(": "))
        .map(|(k, v)| (k.to_string(), v.trim_matches('"').to_string()))
        .collect()
}

#[test]
fn manifests_validate_against_the_kubernetes_schemas() {
    let files = manifests();
    let out = validate(&files);
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{text}");
    for f in &files {
        assert!(text.contains(&format!("{} passed", f.display())), "{} was not validated:\n{text}", f.display());
    }
}

/// The validator does reject what the API server would: a count that is
/// not a number, and (strict) a misspelt field.
#[test]
fn a_broken_job_fails_validation() {
    let dir = scratch_dir("deploy_broken");
    let job = read("job.yaml");
    let breakages = [("completions: 4", "completions: four"), ("parallelism: 4", "paralelism: 4"), ("restartPolicy: Never", "restartPolicy: [Never]")];
    for (good, bad) in breakages {
        assert!(job.contains(good), "job.yaml has no '{good}'");
        let broken = dir.join(format!("{}.yaml", bad.split(':').next().unwrap()));
        std::fs::write(&broken, job.replacen(good, bad, 1)).unwrap();
        let out = validate(std::slice::from_ref(&broken));
        assert!(!out.status.success(), "'{bad}' passed validation:\n{}", String::from_utf8_lossy(&out.stdout));
    }
}

/// One pod per member, all at once: the group waits for as many members as
/// the Job runs together, and the pod index names the member.
#[test]
fn the_group_size_is_the_jobs_parallelism_and_completions() {
    let job = read("job.yaml");
    let size = config()["FAIRBENCH_GROUP_SIZE"].clone();
    assert_eq!(scalar(&job, "completionMode"), "Indexed");
    assert_eq!(scalar(&job, "completions"), size, "completions vs FAIRBENCH_GROUP_SIZE");
    assert_eq!(scalar(&job, "parallelism"), size, "parallelism vs FAIRBENCH_GROUP_SIZE");
    assert!(job.contains("name: FAIRBENCH_GROUP_MEMBER") && job.contains("fieldPath: metadata.annotations['batch.kubernetes.io/job-completion-index']"), "{job}");
    assert!(job.contains("name: FAIRBENCH_TARGET") && job.contains("secretKeyRef:"), "the target comes from a Secret");
    assert!(job.contains("requests:"), "resource requests");
    let image = scalar(&read("kustomization.yaml"), "newTag");
    assert_eq!(scalar(&read("prepare-job.yaml"), "image"), format!("fairbench:{image}"));
    assert_eq!(image, env!("CARGO_PKG_VERSION"), "the image tag follows the crate's version");
}

/// `$(VAR)` in a container's arguments, as Kubernetes expands it.
fn expand(arg: &str, env: &BTreeMap<String, String>) -> String {
    let mut out = arg.to_string();
    for (k, v) in env {
        out = out.replace(&format!("$({k})"), v);
    }
    assert!(!out.contains("$("), "{arg}: a variable the ConfigMap does not define");
    out
}

/// The prepare Job's and the generators' arguments, expanded from the
/// ConfigMap as Kubernetes would and run with the environment the pods
/// get (a smaller run, one member): fairbench accepts them, and the member
/// logs the HdrHistogram log named by its pod index to stdout.
#[test]
fn the_jobs_arguments_run_as_written() {
    let mut env = config();
    for (k, v) in [("FAIRBENCH_TABLE_SIZE", "100"), ("FAIRBENCH_TIME", "1"), ("FAIRBENCH_GROUP_SIZE", "1")] {
        assert!(env.contains_key(k), "configmap.yaml has no {k}");
        env.insert(k.into(), v.into());
    }
    env.insert("FAIRBENCH_TARGET".into(), format!("sqlite:{}", scratch_dir("deploy_args").join("k.sqlite").display()));
    env.insert("FAIRBENCH_GROUP_MEMBER".into(), "0".into());
    for (file, expect) in [("prepare-job.yaml", "Creating table 'sbtest1'"), ("job.yaml", "#fairbench-member group=k8s-run-1 member=0 members=0 size=1 ")] {
        let args: Vec<String> = block(&read(file), "args:").iter().map(|a| expand(a, &env)).collect();
        let mut c = fairbench();
        c.args(&args).envs(&env);
        let out = run_ok(&mut c);
        assert!(stdout(&out).contains(expect), "{file}: {}", show(&out));
    }
}
