//! One test per bug fixed, named after what broke; each says what it was.

mod common;

use common::*;
use serde_json::Value;

// Records that mislead, rate mode, and TPC-C interop wording.

/// A SQLite target in a temp dir of its own, with a results store beside it.
struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    fn new(name: &str) -> Scratch {
        Scratch { dir: tempfile::Builder::new().prefix(&format!("fb-reg-{name}-")).tempdir().expect("cannot create a temp dir") }
    }

    fn target(&self, file: &str) -> String {
        format!("sqlite:{}", self.dir.path().join(file).display())
    }

    fn store(&self) -> std::path::PathBuf {
        self.dir.path().join("results.sqlite")
    }

    /// `fairbench ARGS... --results STORE`, run inside the temp dir.
    fn run(&self, args: &[&str]) -> String {
        let mut c = fairbench();
        c.current_dir(self.dir.path()).args(args).arg("--results").arg(self.store());
        stdout(&run_ok(&mut c))
    }

    /// The stored runs, as `results export --json` gives them.
    fn export(&self) -> Vec<Value> {
        let v: Value = serde_json::from_str(&self.run(&["results", "export", "--json"])).expect("export is JSON");
        v["runs"].as_array().cloned().unwrap_or_default()
    }
}

/// `results show` printed `--workload-args=OltpArgs { tables: 1, table_size:
/// 10000, ... }`: the recorder stored the workload's Rust structure as one
/// option. Every effective option must be its own `--name=value`, in the
/// store, `results show` and the JSON export.
#[test]
fn results_show_prints_options_not_a_debug_structure() {
    let s = Scratch::new("options");
    let t = s.target("db.sqlite");
    s.run(&["run", "oltp_point_select", "--target", &t, "--table-size", "2000", "--time", "1", "--extra-cols-type", "VARCHAR(40)"]);
    let show = s.run(&["results", "show", "last"]);
    let options = show.lines().find(|l| l.starts_with("Options: ")).unwrap_or_else(|| panic!("no Options line:\n{show}"));
    assert!(!show.contains("OltpArgs") && !show.contains("workload-args") && !options.contains(" {"), "{options}");
    for want in ["--table-size=2000", "--tables=1", "--range-size=100", "--table-name=sbtest", "--load-mode=auto", "--extra-cols-type='VARCHAR(40)'"] {
        assert!(options.split(' ').any(|w| w == want), "{want} missing from: {options}");
    }
    let runs = s.export();
    let opts = runs[0]["options"].as_object().expect("options object");
    assert!(opts.keys().all(|k| !k.contains('_') && !k.contains(' ')), "{opts:?}");
    assert!(opts.values().all(|v| v.as_str().is_some_and(|v| !v.contains("{ "))), "{opts:?}");
    assert_eq!(opts["table-size"], "2000");
}
