//! The BMK label grammar with every registered family's tokens: labels
//! decode to the options they stand for, canonical labels decode back to the
//! same options, and a bad token is named in a one-line error.

use fairbench::label::{compact, Decoded, LabelError};
use fairbench::workload::family::{canonical_label as canonical, looks_like_label, parse_label as parse};

// Option names, as the command line spells them.
const POINT_SELECTS: &str = "point-selects";
const RANGE_SELECTS: &str = "range-selects";
const RANGE_SIZE: &str = "range-size";
const RECONNECT: &str = "reconnect";
const RANGE_OPTIONS: [&str; 4] = ["simple-ranges", "sum-ranges", "order-ranges", "distinct-ranges"];
const WRITE_OPTIONS: [&str; 3] = ["index-updates", "non-index-updates", "delete-inserts"];
const READ_OPTIONS: [&str; 7] = [POINT_SELECTS, RANGE_SELECTS, "simple-ranges", "sum-ranges", "order-ranges", "distinct-ranges", RANGE_SIZE];

/// The order decoded options come out in.
const OPTION_ORDER: [&str; 22] = [
    "table-size",
    "tables",
    "warehouses",
    "datasets",
    "mysql-storage-engine",
    "rand-type",
    "force-null",
    "fk",
    "db-ps-mode",
    POINT_SELECTS,
    RANGE_SELECTS,
    "simple-ranges",
    "sum-ranges",
    "order-ranges",
    "distinct-ranges",
    "index-updates",
    "non-index-updates",
    "delete-inserts",
    RANGE_SIZE,
    RECONNECT,
    "skip-trx",
    "transport",
];

/// Which part of the query mix a workload lets a label configure.
struct Kind {
    selects: bool,
    writes: bool,
}

impl Kind {
    fn of_workload(workload: &str) -> Kind {
        Kind { selects: matches!(workload, "oltp_read_only" | "oltp_read_write"), writes: matches!(workload, "oltp_write_only" | "oltp_read_write") }
    }

    fn runs_selects(&self) -> bool {
        self.selects
    }

    fn runs_writes(&self) -> bool {
        self.writes
    }
}

/// Expected options, put into `OPTION_ORDER` so that tests can list them freely.
fn opts(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = pairs.iter().map(|(o, v)| (o.to_string(), v.to_string())).collect();
    v.sort_by_key(|(o, _)| OPTION_ORDER.iter().position(|x| x == o).expect("known option"));
    v
}

fn decode(label: &str) -> Decoded {
    parse(label).unwrap_or_else(|e| panic!("{label}: {e}"))
}

fn check(label: &str, workload: &str, command: &str, expected: &[(&str, &str)]) {
    let d = decode(label);
    assert_eq!(d.workload, workload, "{label}");
    assert_eq!(d.command, command, "{label}");
    assert_eq!(d.options, opts(expected), "{label}");
}

fn getter(d: &Decoded) -> impl Fn(&str) -> Option<String> + '_ {
    move |name: &str| {
        if name == "command" {
            return Some(d.command.clone());
        }
        d.options.iter().find(|(o, _)| o == name).map(|(_, v)| v.clone())
    }
}

fn canon(d: &Decoded) -> String {
    canonical(&d.workload, &getter(d))
}

const TEN_M_8: [(&str, &str); 2] = [("table-size", "10000000"), ("tables", "8")];

fn with(base: &[(&'static str, &'static str)], more: &[(&'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
    base.iter().chain(more).copied().collect()
}

// ---- the guide's canonical examples ----

#[test]
fn canonical_examples_decode() {
    check("OLTP_RW-10Mx8tab-uniform-ps-trx", "oltp_read_write", "run", &with(&TEN_M_8, &[("rand-type", "uniform"), ("db-ps-mode", "auto"), ("skip-trx", "off")]));
    check("OLTP_RW-10Mx8tab-pareto-notrx", "oltp_read_write", "run", &with(&TEN_M_8, &[("rand-type", "pareto"), ("db-ps-mode", "disable"), ("skip-trx", "on")]));
    check(
        "OLTP_RO-10Mx8tab-uniform-ps-p_sel1-notrx",
        "oltp_read_only",
        "run",
        &with(&TEN_M_8, &[("rand-type", "uniform"), ("db-ps-mode", "auto"), ("point-selects", "1"), ("range-selects", "off"), ("skip-trx", "on")]),
    );
}

// ---- BMK script names ----

#[test]
fn script_names_decode() {
    let point_select = with(&TEN_M_8, &[("rand-type", "uniform"), ("db-ps-mode", "auto"), ("point-selects", "1"), ("range-selects", "off"), ("skip-trx", "on")]);
    check("sb11-OLTP_RO_10M_8tab-uniform-ps-p_sel1-notrx.sh", "oltp_read_only", "run", &point_select);
    check("/BMK/sb_exec/sb11-OLTP_RO_10M_8tab-uniform-ps-p_sel1-notrx.sh", "oltp_read_only", "run", &point_select);
    check("OLTP_RO_10M_8tab-uniform-ps-p_sel1-notrx", "oltp_read_only", "run", &point_select);
    check("sb10-oltp_ro_10m_8tab-UNIFORM-PS-P_SEL1-NOTRX.SH", "oltp_read_only", "run", &point_select);

    check("sb11-OLTP_RW_50M_8tab-uniform-ps-trx.sh", "oltp_read_write", "run", &[("table-size", "50000000"), ("tables", "8"), ("rand-type", "uniform"), ("db-ps-mode", "auto"), ("skip-trx", "off")]);
    // The guide's OLTP_RW run without prepared statements.
    check("sb11-OLTP_RW_10M_8tab-uniform-trx.sh", "oltp_read_write", "run", &with(&TEN_M_8, &[("rand-type", "uniform"), ("db-ps-mode", "disable"), ("skip-trx", "off")]));
    check(
        "sb11-OLTP_RW_10M_8tab-uniform-upd_noidx1-notrx.sh",
        "oltp_read_write",
        "run",
        &with(
            &TEN_M_8,
            &[
                ("rand-type", "uniform"),
                ("db-ps-mode", "disable"),
                ("point-selects", "0"),
                ("range-selects", "off"),
                ("index-updates", "0"),
                ("non-index-updates", "1"),
                ("delete-inserts", "0"),
                ("skip-trx", "on"),
            ],
        ),
    );
    check(
        "sb11-OLTP_RW_10M_8tab-uniform-upd_idx1-notrx.sh",
        "oltp_read_write",
        "run",
        &with(
            &TEN_M_8,
            &[
                ("rand-type", "uniform"),
                ("db-ps-mode", "disable"),
                ("point-selects", "0"),
                ("range-selects", "off"),
                ("index-updates", "1"),
                ("non-index-updates", "0"),
                ("delete-inserts", "0"),
                ("skip-trx", "on"),
            ],
        ),
    );
    check(
        "sb11-OLTP_RW_10M_8tab-uniform-upd_insdel1-trx.sh",
        "oltp_read_write",
        "run",
        &with(
            &TEN_M_8,
            &[
                ("rand-type", "uniform"),
                ("db-ps-mode", "disable"),
                ("point-selects", "0"),
                ("range-selects", "off"),
                ("index-updates", "1"),
                ("non-index-updates", "1"),
                ("delete-inserts", "1"),
                ("skip-trx", "off"),
            ],
        ),
    );
    check(
        "sb11-OLTP_RO_10M_8tab-uniform-p_sel1-reconnect-notrx.sh",
        "oltp_read_only",
        "run",
        &with(&TEN_M_8, &[("rand-type", "uniform"), ("db-ps-mode", "disable"), ("point-selects", "1"), ("range-selects", "off"), ("reconnect", "1"), ("skip-trx", "on")]),
    );
    check("sb11-Prepare_10M_8tab-InnoDB.sh", "oltp_read_write", "prepare", &with(&TEN_M_8, &[("mysql-storage-engine", "InnoDB")]));
    check("sb11-Prepare_50M_8tab-InnoDB.sh", "oltp_read_write", "prepare", &[("table-size", "50000000"), ("tables", "8"), ("mysql-storage-engine", "InnoDB")]);
}

#[test]
fn socket_and_distributions() {
    // Real BMK names put socket after trx/notrx.
    check(
        "sb11-OLTP_RO_10M_8tab-pareto-p_sel1-notrx-socket.sh",
        "oltp_read_only",
        "run",
        &with(&TEN_M_8, &[("rand-type", "pareto"), ("db-ps-mode", "disable"), ("point-selects", "1"), ("range-selects", "off"), ("skip-trx", "on"), ("transport", "socket")]),
    );
    check(
        "sb11-OLTP_RO_1M_8tab-pareto-ps-p_sel1-reconnect-notrx-socket.sh",
        "oltp_read_only",
        "run",
        &[
            ("table-size", "1000000"),
            ("tables", "8"),
            ("rand-type", "pareto"),
            ("db-ps-mode", "auto"),
            ("point-selects", "1"),
            ("range-selects", "off"),
            ("reconnect", "1"),
            ("skip-trx", "on"),
            ("transport", "socket"),
        ],
    );
    check("OLTP_RW-10Mx8tab-uniform-ps-socket-trx", "oltp_read_write", "run", &with(&TEN_M_8, &[("rand-type", "uniform"), ("db-ps-mode", "auto"), ("skip-trx", "off"), ("transport", "socket")]));
    for d in ["uniform", "gaussian", "special", "pareto", "zipfian"] {
        let d_up = d.to_ascii_uppercase();
        for label in [format!("OLTP_RW-10Mx8tab-{d}-ps-trx"), format!("sb11-OLTP_RW_10M_8tab-{d_up}-trx.sh")] {
            assert_eq!(decode(&label).options.iter().find(|(o, _)| o == "rand-type").map(|(_, v)| v.as_str()), Some(d), "{label}");
        }
    }
}

#[test]
fn rw_plus_variants_and_other_scenarios() {
    assert_eq!(decode("OLTP_RW+-10Mx8tab-uniform-trx").options, decode("OLTP_RW-10Mx8tab-uniform-p_sel10-trx").options);
    assert_eq!(decode("OLTP_RW++-10Mx8tab-uniform-trx").options, decode("OLTP_RW-10Mx8tab-uniform-p_sel1-trx").options);
    check(
        "sb11-OLTP_RW+_10M_8tab-uniform-trx.sh",
        "oltp_read_write",
        "run",
        &with(&TEN_M_8, &[("rand-type", "uniform"), ("db-ps-mode", "disable"), ("point-selects", "10"), ("range-selects", "off"), ("skip-trx", "off")]),
    );
    check("OLTP_WO-10Mx8tab-uniform-ps-trx", "oltp_write_only", "run", &with(&TEN_M_8, &[("rand-type", "uniform"), ("db-ps-mode", "auto"), ("skip-trx", "off")]));
    // On OLTP_WO a write token only touches the writes.
    check(
        "OLTP_WO-10Mx8tab-uniform-upd_noidx2-notrx",
        "oltp_write_only",
        "run",
        &with(&TEN_M_8, &[("rand-type", "uniform"), ("db-ps-mode", "disable"), ("index-updates", "0"), ("non-index-updates", "2"), ("delete-inserts", "0"), ("skip-trx", "on")]),
    );
    check("oltp_update_index-10Kx1tab-uniform-ps-notrx", "oltp_update_index", "run", &[("table-size", "10000"), ("tables", "1"), ("rand-type", "uniform"), ("db-ps-mode", "auto"), ("skip-trx", "on")]);
    check("bulk_insert-1tab-ps", "bulk_insert", "run", &[("tables", "1"), ("db-ps-mode", "auto")]);
    // Without trx/notrx, skip-trx is left alone.
    check("OLTP_RW-10Mx8tab-uniform", "oltp_read_write", "run", &with(&TEN_M_8, &[("rand-type", "uniform"), ("db-ps-mode", "disable")]));
}

#[test]
fn sizes() {
    let size = |label: &str| {
        let d = decode(label);
        let get = |o: &str| d.options.iter().find(|(n, _)| n == o).map(|(_, v)| v.clone());
        (get("table-size"), get("tables"))
    };
    let s = |a: &str, b: &str| (Some(a.to_string()), Some(b.to_string()));
    assert_eq!(size("OLTP_RW-50Mx1tab-uniform-trx"), s("50000000", "1"));
    assert_eq!(size("OLTP_RW-400Mx1tab-uniform-trx"), s("400000000", "1"));
    assert_eq!(size("OLTP_RW-400M_1tab-uniform-trx"), s("400000000", "1"));
    assert_eq!(size("sb11-OLTP_RW_400M_1tab-uniform-trx.sh"), s("400000000", "1"));
    assert_eq!(size("OLTP_RW-500Kx4tab-uniform-trx"), s("500000", "4"));
    assert_eq!(size("OLTP_RW-1Bx1tab-uniform-trx"), s("1000000000", "1"));
    assert_eq!(size("OLTP_RW-1500x2tab-uniform-trx"), s("1500", "2"));
    assert_eq!(size("OLTP_RW-10mX8TAB-uniform-trx"), s("10000000", "8"));
    assert_eq!(size("OLTP_RW-10M-uniform-trx"), (Some("10000000".into()), None));
    assert_eq!(size("OLTP_RW-8tab-uniform-trx"), (None, Some("8".into())));
    assert_eq!(compact(10_000), "10K");
    assert_eq!(compact(10_000_000), "10M");
    assert_eq!(compact(1500), "1500");
    assert_eq!(compact(1_500_000), "1500K");
    assert_eq!(compact(2_000_000_000), "2B");
    assert_eq!(compact(0), "0");
}

#[test]
fn range_tokens_from_bmk_names() {
    check(
        "sb11-OLTP_RO_10M_8tab-pareto-sum_ranges1-notrx-socket.sh",
        "oltp_read_only",
        "run",
        &with(
            &TEN_M_8,
            &[
                ("rand-type", "pareto"),
                ("db-ps-mode", "disable"),
                ("point-selects", "0"),
                ("range-selects", "on"),
                ("simple-ranges", "0"),
                ("sum-ranges", "1"),
                ("order-ranges", "0"),
                ("distinct-ranges", "0"),
                ("skip-trx", "on"),
                ("transport", "socket"),
            ],
        ),
    );
    check(
        "sb11-OLTP_RO_10M_8tab-uniform-ps-dst_ranges1-Rsize10-notrx.sh",
        "oltp_read_only",
        "run",
        &with(
            &TEN_M_8,
            &[
                ("rand-type", "uniform"),
                ("db-ps-mode", "auto"),
                ("point-selects", "0"),
                ("range-selects", "on"),
                ("simple-ranges", "0"),
                ("sum-ranges", "0"),
                ("order-ranges", "0"),
                ("distinct-ranges", "1"),
                ("range-size", "10"),
                ("skip-trx", "on"),
            ],
        ),
    );
    let d = decode("OLTP_RO-10Mx8tab-pareto-s_ranges2-notrx");
    assert!(d.options.contains(&("simple-ranges".into(), "2".into())));
}

#[test]
fn tpcc_labels() {
    let run_defaults = [("force-null", "off"), ("fk", "fk"), ("db-ps-mode", "disable")];
    check("sb11-TPCC_1000W.sh", "tpcc", "run", &with(&[("warehouses", "1000"), ("datasets", "1")], &run_defaults));
    check("TPCC_1000W", "tpcc", "run", &with(&[("warehouses", "1000"), ("datasets", "1")], &run_defaults));
    check("sb11-TPCC_10x100W.sh", "tpcc", "run", &with(&[("warehouses", "100"), ("datasets", "10")], &run_defaults));
    check("sb11-TPCC_1000W-NULL.sh", "tpcc", "run", &[("warehouses", "1000"), ("datasets", "1"), ("force-null", "on"), ("fk", "fk"), ("db-ps-mode", "disable")]);
    check("sb11-Prepare_TPCC_1000W-NULL-InnoDB-NoFK.sh", "tpcc", "prepare", &[("warehouses", "1000"), ("datasets", "1"), ("mysql-storage-engine", "InnoDB"), ("force-null", "on"), ("fk", "nofk")]);
    check("sb11-Prepare_TPCC_1000W-InnoDB-NoFK.sh", "tpcc", "prepare", &[("warehouses", "1000"), ("datasets", "1"), ("mysql-storage-engine", "InnoDB"), ("force-null", "off"), ("fk", "nofk")]);
    check("sb11-Prepare_TPCC_10x100W-InnoDB-NoFK2.sh", "tpcc", "prepare", &[("warehouses", "100"), ("datasets", "10"), ("mysql-storage-engine", "InnoDB"), ("force-null", "off"), ("fk", "nofk2")]);
    check("TPCC-10x100W-NULL-NoFK2-ps-trx", "tpcc", "run", &[("warehouses", "100"), ("datasets", "10"), ("force-null", "on"), ("fk", "nofk2"), ("db-ps-mode", "auto")]);
    check("Prepare-TPCC-1000W", "tpcc", "prepare", &[("warehouses", "1000"), ("datasets", "1"), ("force-null", "off"), ("fk", "fk")]);
}

#[test]
fn explicit_settings() {
    check(
        "OLTP_RW-10Mx8tab-uniform-p_sel1-index_updates=2-engine=Spider-trx",
        "oltp_read_write",
        "run",
        &with(
            &TEN_M_8,
            &[("mysql-storage-engine", "Spider"), ("rand-type", "uniform"), ("db-ps-mode", "disable"), ("point-selects", "1"), ("range-selects", "off"), ("index-updates", "2"), ("skip-trx", "off")],
        ),
    );
    check("OLTP_RW-range_selects=OFF-reconnect=50", "oltp_read_write", "run", &[("db-ps-mode", "disable"), ("range-selects", "off"), ("reconnect", "50")]);
}

#[test]
fn options_come_in_stable_order() {
    let a = decode("OLTP_RO-10Mx8tab-uniform-ps-p_sel1-notrx");
    let b = decode("OLTP_RO-notrx-p_sel1-ps-uniform-10Mx8tab");
    assert_eq!(a.options, b.options);
    let idx: Vec<usize> = a.options.iter().map(|(o, _)| OPTION_ORDER.iter().position(|x| x == o).unwrap()).collect();
    assert!(idx.windows(2).all(|w| w[0] < w[1]), "{idx:?}");
}

#[test]
fn explanation_covers_every_token() {
    let d = decode("sb11-OLTP_RO_10M_8tab-uniform-p_sel1-reconnect-notrx.sh");
    let tokens: Vec<&str> = d.explanation.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(tokens, ["sb11", "OLTP_RO", "10M", "8tab", "uniform", "p_sel1", "reconnect", "notrx", "(no ps)"]);
    let line = |t: &str| d.explanation.iter().find(|(x, _)| x == t).unwrap().1.clone();
    assert!(line("OLTP_RO").contains("workload oltp_read_only"), "{}", line("OLTP_RO"));
    assert!(line("p_sel1").contains("point-selects=1, range-selects=off"), "{}", line("p_sel1"));
    assert!(line("(no ps)").contains("db-ps-mode=disable"));
    let tpcc = decode("TPCC_10x100W");
    let lines: Vec<&str> = tpcc.explanation.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(lines, ["TPCC", "10x100W", "(no ps)", "(no NULL)", "(no NoFK)"]);
}

// ---- canonical ----

#[test]
fn canonical_from_settings() {
    let settings = |pairs: &'static [(&'static str, &'static str)]| move |name: &str| pairs.iter().find(|(o, _)| *o == name).map(|(_, v)| v.to_string());
    let rw = settings(&[("table-size", "10000000"), ("tables", "8"), ("rand-type", "uniform"), ("db-ps-mode", "auto"), ("skip-trx", "off")]);
    assert_eq!(canonical("oltp_read_write", &rw), "OLTP_RW-10Mx8tab-uniform-ps-trx");
    let ui = settings(&[("table-size", "10000"), ("tables", "1"), ("rand-type", "uniform"), ("db-ps-mode", "auto"), ("skip-trx", "on")]);
    assert_eq!(canonical("oltp_update_index", &ui), "oltp_update_index-10Kx1tab-uniform-ps-notrx");
    let odd = settings(&[("table-size", "1500"), ("tables", "3"), ("rand-type", "zipfian"), ("db-ps-mode", "disable")]);
    assert_eq!(canonical("oltp_read_only", &odd), "OLTP_RO-1500x3tab-zipfian");

    // Effective settings include sysbench's defaults; they print nothing.
    let defaults = settings(&[
        ("table-size", "10000000"),
        ("tables", "8"),
        ("rand-type", "pareto"),
        ("db-ps-mode", "disable"),
        ("point-selects", "10"),
        ("range-selects", "on"),
        ("simple-ranges", "1"),
        ("sum-ranges", "1"),
        ("order-ranges", "1"),
        ("distinct-ranges", "1"),
        ("index-updates", "1"),
        ("non-index-updates", "1"),
        ("delete-inserts", "1"),
        ("range-size", "100"),
        ("reconnect", "0"),
        ("skip-trx", "on"),
        ("transport", "tcp"),
    ]);
    assert_eq!(canonical("oltp_read_write", &defaults), "OLTP_RW-10Mx8tab-pareto-notrx");

    let tpcc = settings(&[("warehouses", "100"), ("datasets", "10"), ("force-null", "on"), ("fk", "nofk"), ("db-ps-mode", "auto"), ("skip-trx", "off")]);
    assert_eq!(canonical("tpcc", &tpcc), "TPCC-10x100W-NULL-NoFK-ps");
    let tpcc1 = settings(&[("warehouses", "1000"), ("datasets", "1"), ("force-null", "off"), ("fk", "fk"), ("db-ps-mode", "disable")]);
    assert_eq!(canonical("tpcc", &tpcc1), "TPCC-1000W");

    let prep = settings(&[("command", "prepare"), ("table-size", "10000000"), ("tables", "8"), ("mysql-storage-engine", "innodb"), ("rand-type", "uniform")]);
    assert_eq!(canonical("oltp_read_write", &prep), "Prepare-10Mx8tab-InnoDB");
    let bmk_order = settings(&[
        ("table-size", "1000000"),
        ("tables", "8"),
        ("rand-type", "pareto"),
        ("db-ps-mode", "auto"),
        ("point-selects", "1"),
        ("range-selects", "off"),
        ("reconnect", "1"),
        ("skip-trx", "on"),
        ("transport", "socket"),
    ]);
    assert_eq!(canonical("oltp_read_only", &bmk_order), "OLTP_RO-1Mx8tab-pareto-ps-p_sel1-reconnect-notrx-socket");
}

/// Every label form the module documents: canonical -> parse gives the
/// same workload, command and options, and canonical is a fixpoint.
const ROUND_TRIP: &[&str] = &[
    "OLTP_RW-10Mx8tab-uniform-ps-trx",
    "OLTP_RW-10Mx8tab-pareto-notrx",
    "OLTP_RO-10Mx8tab-uniform-ps-p_sel1-notrx",
    "sb11-OLTP_RO_10M_8tab-uniform-ps-p_sel1-notrx.sh",
    "sb11-OLTP_RW_50M_8tab-uniform-ps-trx.sh",
    "sb11-OLTP_RW_10M_8tab-uniform-trx.sh",
    "sb11-OLTP_RW_10M_8tab-uniform-p_sel10-trx.sh",
    "sb11-OLTP_RW_10M_8tab-uniform-p_sel1-trx.sh",
    "OLTP_RW+-10Mx8tab-uniform-ps-trx",
    "OLTP_RW++-10Mx8tab-uniform-ps-trx",
    "sb11-OLTP_RW_10M_8tab-uniform-upd_noidx1-notrx.sh",
    "sb11-OLTP_RW_10M_8tab-uniform-upd_idx1-notrx.sh",
    "sb11-OLTP_RW_10M_8tab-uniform-upd_insdel1-trx.sh",
    "sb11-OLTP_RO_10M_8tab-uniform-p_sel1-reconnect-notrx.sh",
    "sb11-OLTP_RO_10M_8tab-pareto-p_sel1-notrx-socket.sh",
    "sb11-OLTP_RO_1M_8tab-pareto-ps-p_sel1-reconnect-notrx-socket.sh",
    "sb11-OLTP_RO_10M_8tab-pareto-trx-socket.sh",
    "sb11-OLTP_RO_10M_8tab-pareto-sum_ranges1-notrx-socket.sh",
    "sb11-OLTP_RO_10M_8tab-pareto-s_ranges1-notrx-socket.sh",
    "sb11-OLTP_RO_10M_8tab-uniform-ps-dst_ranges1-Rsize10-notrx.sh",
    "OLTP_RO-10Mx8tab-uniform-ord_ranges3-notrx",
    "sb11-OLTP_RW_10M_8tab-zipfian-ps-trx.sh",
    "sb11-OLTP_RW_10M_8tab-gaussian-trx.sh",
    "sb11-OLTP_RW_10M_8tab-special-notrx.sh",
    "OLTP_RW-50Mx1tab-uniform-ps-trx",
    "OLTP_RW-400Mx1tab-uniform-ps-trx",
    "OLTP_RW-500Kx2tab-uniform-ps-trx",
    "OLTP_RW-1500x2tab-uniform-ps-trx",
    "OLTP_RW-10Mx8tab-RocksDB-uniform-ps-trx",
    "OLTP_RW-10Mx8tab-uniform",
    "OLTP_WO-10Mx8tab-uniform-ps-trx",
    "OLTP_WO-10Mx8tab-uniform-upd_noidx2-notrx",
    "OLTP_WO-10Mx8tab-uniform-upd_insdel2-trx",
    "OLTP_RW-10Mx8tab-uniform-upd_insdel3-trx",
    "OLTP_RW-10Mx8tab-uniform-p_sel0-notrx",
    "OLTP_RW-10Mx8tab-uniform-p_sel1-index_updates=2-engine=Spider-trx",
    "OLTP_RW-10Mx8tab-uniform-point_selects=5-sum_ranges=0-reconnect=50-notrx",
    "oltp_update_index-10Kx1tab-uniform-ps-notrx",
    "oltp_point_select-10Kx1tab-uniform-ps-notrx",
    "bulk_insert-1tab-ps",
    "sb11-Prepare_10M_8tab-InnoDB.sh",
    "sb11-Prepare_50M_8tab-InnoDB.sh",
    "Prepare-OLTP_RO-10Mx8tab",
    "Prepare-oltp_insert-10Kx1tab-socket",
    "sb11-TPCC_1000W.sh",
    "sb11-TPCC_10x100W.sh",
    "sb11-TPCC_1000W-NULL.sh",
    "TPCC-10x100W-NULL-NoFK2-ps-trx",
    "TPCC-1000W-RocksDB-NoFK-socket",
    "sb11-Prepare_TPCC_1000W-InnoDB-NoFK.sh",
    "sb11-Prepare_TPCC_10x100W-InnoDB-NoFK.sh",
    "sb11-Prepare_TPCC_1000W-NULL-InnoDB-NoFK.sh",
    "sb11-Prepare_TPCC_1000W-InnoDB-NoFK2.sh",
];

#[test]
fn round_trip() {
    for label in ROUND_TRIP {
        let d1 = decode(label);
        let c1 = canon(&d1);
        let d2 = parse(&c1).unwrap_or_else(|e| panic!("{label} -> {c1}: {e}"));
        assert_eq!((&d2.workload, &d2.command), (&d1.workload, &d1.command), "{label} -> {c1}");
        assert_eq!(d2.options, d1.options, "{label} -> {c1}");
        assert_eq!(canon(&d2), c1, "{label}: canonical is not a fixpoint");
        assert!(looks_like_label(label), "{label}");
        assert!(looks_like_label(&c1), "{c1}");
    }
    assert_eq!(canon(&decode("sb11-OLTP_RO_10M_8tab-uniform-ps-p_sel1-notrx.sh")), "OLTP_RO-10Mx8tab-uniform-ps-p_sel1-notrx");
    assert_eq!(canon(&decode("sb11-OLTP_RW_10M_8tab-uniform-upd_noidx1-notrx.sh")), "OLTP_RW-10Mx8tab-uniform-upd_noidx1-notrx");
    assert_eq!(canon(&decode("OLTP_RW++-10Mx8tab-uniform-ps-trx")), "OLTP_RW-10Mx8tab-uniform-ps-p_sel1-trx");
    assert_eq!(canon(&decode("sb11-Prepare_TPCC_1000W-NULL-InnoDB-NoFK.sh")), "Prepare-TPCC-1000W-NULL-InnoDB-NoFK");
    assert_eq!(canon(&decode("sb11-Prepare_10M_8tab-InnoDB.sh")), "Prepare-10Mx8tab-InnoDB");
    assert_eq!(canon(&decode("sb11-TPCC_10x100W.sh")), "TPCC-10x100W");
}

/// Settings in effect, with sysbench's defaults filled in, so that labels
/// that differ only in spelling out a default compare equal.
fn effective(d: &Decoded) -> Vec<(String, String)> {
    let kind = Kind::of_workload(&d.workload);
    let mut all: Vec<(String, String)> = d.options.clone();
    let mut default = |o: &str, v: &str| {
        if !all.iter().any(|(n, _)| n == o) {
            all.push((o.into(), v.into()));
        }
    };
    if kind.runs_selects() {
        default(POINT_SELECTS, "10");
        default(RANGE_SELECTS, "on");
        for o in RANGE_OPTIONS {
            default(o, "1");
        }
        default(RANGE_SIZE, "100");
    }
    if kind.runs_writes() {
        for o in WRITE_OPTIONS {
            default(o, "1");
        }
    }
    default(RECONNECT, "0");
    let ranges_off = all.iter().any(|(o, v)| o == RANGE_SELECTS && v == "off");
    // With range selects off, the range counts do not matter.
    all.retain(|(o, _)| !(ranges_off && RANGE_OPTIONS.contains(&o.as_str())));
    all.sort();
    all
}

/// The one form that does not keep its options word for word:
/// upd_insdel1 is OLTP_WO's own mix, so canonical() has nothing to print
/// for it. The effect is the same.
#[test]
fn write_only_own_mix_round_trips_by_effect() {
    let d1 = decode("OLTP_WO-10Mx8tab-uniform-upd_insdel1-trx");
    let c1 = canon(&d1);
    assert_eq!(c1, "OLTP_WO-10Mx8tab-uniform-trx");
    let d2 = decode(&c1);
    assert_ne!(d2.options, d1.options);
    assert_eq!(effective(&d2), effective(&d1));
}

/// Run labels leave out the default engine, as BMK's run scripts do.
/// Prepare labels keep it.
#[test]
fn innodb_only_in_prepare_labels() {
    let run = decode("OLTP_RW-10Mx8tab-InnoDB-uniform-ps-trx");
    assert_eq!(canon(&run), "OLTP_RW-10Mx8tab-uniform-ps-trx");
    let tpcc = decode("TPCC_1000W-NULL-InnoDB-NoFK");
    assert_eq!(canon(&tpcc), "TPCC-1000W-NULL-NoFK");
    let prep = decode("sb11-Prepare_TPCC_1000W-NULL-InnoDB-NoFK.sh");
    assert_eq!(canon(&prep), "Prepare-TPCC-1000W-NULL-InnoDB-NoFK");
    let myrocks = decode("OLTP_RW-10Mx8tab-MyRocks-uniform-ps-trx");
    assert_eq!(canon(&myrocks), "OLTP_RW-10Mx8tab-RocksDB-uniform-ps-trx");
}

/// What fairbench's own `get` reports: every setting in effect, including
/// the fixed mix of a workload that has no BMK scenario.
#[test]
fn canonical_with_every_setting_reported() {
    let report = |pairs: Vec<(&'static str, &'static str)>| move |name: &str| pairs.iter().find(|(o, _)| *o == name).map(|(_, v)| v.to_string());
    let common =
        [("table-size", "10000"), ("tables", "1"), ("rand-type", "uniform"), ("db-ps-mode", "auto"), ("skip-trx", "on"), ("reconnect", "0"), ("transport", "tcp"), ("mysql-storage-engine", "innodb")];
    let update_index = report(with(
        &common,
        &[
            ("point-selects", "0"),
            ("range-selects", "off"),
            ("simple-ranges", "0"),
            ("sum-ranges", "0"),
            ("order-ranges", "0"),
            ("distinct-ranges", "0"),
            ("index-updates", "1"),
            ("non-index-updates", "0"),
            ("delete-inserts", "0"),
        ],
    ));
    assert_eq!(canonical("oltp_update_index", &update_index), "oltp_update_index-10Kx1tab-uniform-ps-notrx");
    let point_select = report(with(&common, &[("point-selects", "1"), ("range-selects", "off"), ("index-updates", "0")]));
    assert_eq!(canonical("oltp_point_select", &point_select), "oltp_point_select-10Kx1tab-uniform-ps-notrx");
    // The same settings on OLTP_RO are BMK's point-select test.
    assert_eq!(canonical("oltp_read_only", &point_select), "OLTP_RO-10Kx1tab-uniform-ps-p_sel1-notrx");
}

/// canonical() must print a parseable label for any combination of
/// settings, with the same effect.
#[test]
fn canonical_is_total_over_mixes() {
    // Every combination of these values: a mixed-radix walk.
    let axes: [(&str, &[&str]); 10] = [
        ("workload", &["oltp_read_write", "oltp_read_only", "oltp_write_only", "oltp_delete"]),
        ("point-selects", &["0", "1", "2", "10"]),
        ("range-selects", &["on", "off"]),
        ("simple-ranges", &["0", "1", "3"]),
        ("sum-ranges", &["0", "1"]),
        ("index-updates", &["0", "1", "2", "10"]),
        ("non-index-updates", &["0", "1", "2", "10"]),
        ("delete-inserts", &["0", "1", "2"]),
        ("skip-trx", &["on", "off"]),
        ("reconnect", &["0", "1", "7"]),
    ];
    let total: usize = axes.iter().map(|(_, values)| values.len()).product();
    for mut n in 0..total {
        let mut settings: Vec<(&str, &str)> = vec![("table-size", "10000"), ("tables", "2"), ("rand-type", "uniform"), ("db-ps-mode", "auto"), ("order-ranges", "1"), ("distinct-ranges", "1")];
        for (name, values) in axes {
            settings.push((name, values[n % values.len()]));
            n /= values.len();
        }
        let workload = settings.iter().find(|(o, _)| *o == "workload").unwrap().1;
        settings.retain(|(o, _)| *o != "workload");
        let get = |name: &str| settings.iter().find(|(o, _)| *o == name).map(|(_, v)| v.to_string());
        let label = canonical(workload, &get);
        let d = parse(&label).unwrap_or_else(|e| panic!("{workload} {settings:?} -> {label}: {e}"));
        // What the workload actually uses of those settings.
        let kind = Kind::of_workload(workload);
        let applies = |o: &str| (kind.runs_selects() || !READ_OPTIONS.contains(&o)) && (kind.runs_writes() || !WRITE_OPTIONS.contains(&o));
        let expected = Decoded {
            workload: workload.into(),
            command: "run".into(),
            options: settings.iter().filter(|(o, _)| applies(o)).map(|(o, v)| (o.to_string(), v.to_string())).collect(),
            explanation: vec![],
        };
        assert_eq!(effective(&d), effective(&expected), "{workload} {settings:?} -> {label}");
    }
}

// ---- errors ----

fn expect_err(label: &str, token: &str) -> LabelError {
    let e = match parse(label) {
        Ok(d) => panic!("{label} should fail, got {d:?}"),
        Err(e) => e,
    };
    assert_eq!(e.token, token, "{label}: {e}");
    assert_eq!(e.label, label);
    assert!(e.message.contains(&format!("'{token}'")), "{label}: message does not name '{token}': {}", e.message);
    let line = e.to_string();
    assert!(!line.contains('\n') && line.contains(label), "{line}");
    e
}

#[test]
fn errors_name_the_bad_token() {
    let e = expect_err("OLTP_RW-10Mx8tab-unifrom-ps-trx", "unifrom");
    assert!(e.message.contains("uniform, gaussian, special, pareto, zipfian"), "{}", e.message);
    let e = expect_err("OLTP_RW-10Mx8tab-uniform-trx-notrx", "notrx");
    assert!(e.message.contains("'trx'") && e.message.contains("either trx or notrx"), "{}", e.message);
    let e = expect_err("OLTP_RW-10Mx8tab-uniform-pareto-trx", "pareto");
    assert!(e.message.contains("'uniform'") && e.message.contains("one distribution"), "{}", e.message);
    let e = expect_err("OLTP_RW-10Mx8tab-50Mx8tab-uniform-trx", "50Mx8tab");
    assert!(e.message.contains("one dataset size"), "{}", e.message);
    expect_err("sb11-OLTP_RW_10M_8tab-uniform-10M_8tab-trx.sh", "10M_8tab");
    let e = expect_err("sb11-OLTP_RW_10M_8tab-uniform-upd_insdel1-notrx.sh", "notrx");
    assert!(e.message.contains("'upd_insdel1'") && e.message.contains("transactions"), "{}", e.message);
    expect_err("OLTP_RW-10Mx8tab-uniform-ps-ps-trx", "ps");
    expect_err("OLTP_RW-10Mx8tab-uniform-p_sel1-upd_noidx1-trx", "upd_noidx1");
    expect_err("OLTP_RW+-10Mx8tab-uniform-p_sel1-trx", "p_sel1");
    expect_err("OLTP_RW-10Mx8tab-uniform-upd_noidx1-non_index_updates=2-trx", "non_index_updates=2");
    expect_err("OLTP_RW-10Mx8tab-uniform-p_sel-trx", "p_sel");
    expect_err("OLTP_RW-10Mx8tab-uniform-upd_idx0-trx", "upd_idx0");
    expect_err("OLTP_RW-10Mx8tab-uniform-socket-socket", "socket");
    expect_err("OLTP_RW-10Mx8tab-InnoDB-MyISAM", "MyISAM");
    expect_err("OLTP_RW-0tab", "0tab");
    expect_err("OLTP_RW-99999999999999999999M", "99999999999999999999M");
    expect_err("OLTP_RW-colour=blue", "colour=blue");
    expect_err("OLTP_RW-point_selects=many", "point_selects=many");
}

#[test]
fn errors_for_tokens_in_the_wrong_scenario() {
    let e = expect_err("OLTP_RO-10Mx8tab-uniform-upd_noidx1-notrx", "upd_noidx1");
    assert!(e.message.contains("OLTP_RO runs no writes"), "{}", e.message);
    expect_err("OLTP_WO-10Mx8tab-uniform-p_sel1-trx", "p_sel1");
    expect_err("OLTP_WO-10Mx8tab-uniform-Rsize10-trx", "Rsize10");
    let e = expect_err("oltp_update_index-10Kx1tab-upd_idx2", "upd_idx2");
    assert!(e.message.contains("fixed mix"), "{}", e.message);
    expect_err("oltp_point_select-10Kx1tab-point_selects=5", "point_selects=5");
    let e = expect_err("TPCC_1000W-uniform", "uniform");
    assert!(e.message.contains("NoFK"), "{}", e.message);
    expect_err("TPCC_1000W-10Mx8tab", "10Mx8tab");
    expect_err("TPCC_1000W-notrx", "notrx");
    expect_err("TPCC_1000W-trx-trx", "trx");
    expect_err("TPCC_1000W-NoFK-NoFK2", "NoFK2");
    expect_err("OLTP_RW-10Mx8tab-NULL-trx", "NULL");
    expect_err("OLTP_RW-1000W-trx", "1000W");
    let e = expect_err("sb11-Prepare_10M_8tab-uniform.sh", "uniform");
    assert!(e.message.contains("Prepare label names only the dataset"), "{}", e.message);
    expect_err("Prepare_TPCC_1000W-ps", "ps");
    expect_err("Prepare-OLTP_RW+-10Mx8tab", "OLTP_RW+");
}

#[test]
fn errors_in_the_label_shape() {
    let e = expect_err("OLTP_XX-10Mx8tab-uniform-trx", "OLTP_XX");
    assert!(e.message.contains("OLTP_RO, OLTP_RW"), "{}", e.message);
    expect_err("OLTP_PS-10Mx8tab-uniform-trx", "OLTP_PS");
    expect_err("OLTP_RO+-10Mx8tab-uniform-trx", "OLTP_RO+");
    expect_err("sb11-dbBENCH_10M-RO-notrx.sh", "dbBENCH");
    expect_err("uniform-ps-trx", "uniform");
    expect_err("10Mx8tab-uniform-ps-trx", "10Mx8tab");
    expect_err("OLTP_RW-10Mx8tab-OLTP_RO", "OLTP_RO");
    expect_err("OLTP_RW-10Mx8tab-Prepare", "Prepare");
    expect_err("OLTP_RW-sb11", "sb11");
    expect_err("sb11", "sb11");
    let e = parse("").unwrap_err();
    assert!(e.message.contains("empty"), "{e}");
    let e = parse("OLTP_RW--trx").unwrap_err();
    assert_eq!(e.token, "");
    assert!(e.message.contains("empty token"), "{e}");
    assert!(parse("OLTP_RW-10Mx8tab-").is_err());
}

#[test]
fn label_or_workload_name() {
    for name in ["oltp_read_write", "oltp_read_only", "oltp_point_select", "tpcc", "bulk_insert", "select_random_points", "oltp-read-write", ""] {
        assert!(!looks_like_label(name), "{name}");
    }
    for label in [
        "OLTP_RW-10Mx8tab-uniform-ps-trx",
        "sb11-OLTP_RW_50M_8tab-uniform-ps-trx.sh",
        "/BMK/sb_exec/sb11-TPCC_1000W.sh",
        "sb11-Prepare_10M_8tab-InnoDB.sh",
        "OLTP_RW_10M_8tab",
        "OLTP_RW",
        "OLTP_RW++",
        "TPCC",
        "TPCC_1000W",
        "Prepare_TPCC_1000W-NULL-InnoDB-NoFK",
        "oltp_update_index-10Kx1tab-uniform-ps-notrx",
        "oltp_read_write-uniform",
    ] {
        assert!(looks_like_label(label), "{label}");
    }
}
