//! Property tests of the parsers that read user input: BMK labels, target URLs
//! and option values. Any input must give a value or a one-line error, never a
//! panic; what a parser accepts must come back unchanged through its printer.
//!
//! Case counts are set per block so that the whole file runs in a few seconds
//! on two cores (debug build): the suite runs on every CI push. Every failure
//! found here becomes a named test in tests/regression.rs.

use fairbench::db::url::{mask_url, Target};
use fairbench::db::{Protocol, SslMode};
use fairbench::label::Decoded;
use fairbench::values;
use fairbench::workload::family as label;
use proptest::prelude::*;
use proptest::test_runner::Config;

fn config(cases: u32) -> Config {
    // No failure files: a failure is turned into a regression test by hand.
    Config { cases, failure_persistence: None, ..Config::default() }
}

/// Printable text with the characters the parsers split on, plus anything else.
fn text() -> impl Strategy<Value = String> {
    prop_oneof!["[-_=,.:/@?&%+xXkKmMbBwW0-9a-zA-Z \n\t]{0,40}", any::<String>(), "[%a-f0-9é\u{fffd}]{0,12}",]
}

fn one_line(s: &str) -> bool {
    !s.is_empty() && !s.contains('\n') && !s.contains('\r')
}

// ---------------------------------------------------------------------------------------------
// Labels

const OLTP_SCENARIOS: &[&str] = &["OLTP_RO", "OLTP_RW", "OLTP_WO", "OLTP_RW+", "OLTP_RW++", "oltp_update_index", "oltp_point_select", "oltp_delete", "bulk_insert"];
const ENGINES: &[&str] = &["InnoDB", "MyISAM", "RocksDB", "engine=Spider"];

fn size() -> impl Strategy<Value = String> {
    (1u64..2000, prop::sample::select(vec!["", "K", "M", "B"])).prop_map(|(n, u)| format!("{n}{u}"))
}

fn optional(s: impl Strategy<Value = String>) -> impl Strategy<Value = Option<String>> {
    prop::option::of(s)
}

fn oltp_label() -> impl Strategy<Value = String> {
    let mix = prop_oneof![
        (0u64..20).prop_map(|n| format!("p_sel{n}")),
        (1u64..20).prop_map(|n| format!("upd_noidx{n}")),
        (1u64..20).prop_map(|n| format!("upd_idx{n}")),
        (1u64..20).prop_map(|n| format!("upd_insdel{n}")),
        (prop::sample::select(vec!["s_ranges", "sum_ranges", "ord_ranges", "dst_ranges"]), 1u64..9).prop_map(|(t, n)| format!("{t}{n}")),
        (prop::sample::select(vec!["point_selects", "simple_ranges", "index_updates", "delete_inserts", "reconnect"]), 0u64..30).prop_map(|(t, n)| format!("{t}={n}")),
    ];
    (
        prop::sample::select(OLTP_SCENARIOS),
        (size(), 1u64..64, any::<bool>()).prop_map(|(r, t, x)| if x { format!("{r}x{t}tab") } else { format!("{r}_{t}tab") }),
        optional(prop::sample::select(vec!["uniform", "gaussian", "special", "pareto", "zipfian"]).prop_map(String::from)),
        any::<bool>(),
        optional(mix),
        optional((1u64..1000).prop_map(|n| format!("Rsize{n}"))),
        any::<bool>(),
        optional(prop::sample::select(vec!["trx", "notrx"]).prop_map(String::from)),
        any::<bool>(),
        optional(prop::sample::select(ENGINES).prop_map(String::from)),
    )
        .prop_map(|(scenario, data, dist, ps, mix, rsize, reconnect, trx, socket, engine)| {
            let mut parts = vec![scenario.to_string(), data];
            parts.extend(engine);
            parts.extend(dist);
            if ps {
                parts.push("ps".into());
            }
            parts.extend(mix);
            parts.extend(rsize);
            if reconnect {
                parts.push("reconnect".into());
            }
            parts.extend(trx);
            if socket {
                parts.push("socket".into());
            }
            parts.join("-")
        })
}

fn tpcc_label() -> impl Strategy<Value = String> {
    (
        any::<bool>(),
        (1u64..20, 1u64..5000, any::<bool>()),
        any::<bool>(),
        optional(prop::sample::select(ENGINES).prop_map(String::from)),
        optional(prop::sample::select(vec!["NoFK", "NoFK2"]).prop_map(String::from)),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(prepare, (d, w, many), null, engine, fk, ps, socket)| {
            let mut parts = vec![if prepare { "Prepare-TPCC".to_string() } else { "TPCC".to_string() }];
            parts.push(if many { format!("{d}x{w}W") } else { format!("{w}W") });
            if null {
                parts.push("NULL".into());
            }
            parts.extend(engine);
            parts.extend(fk);
            if ps && !prepare {
                parts.push("ps".into());
            }
            if socket {
                parts.push("socket".into());
            }
            parts.join("-")
        })
}

/// A BMK script name around a label: `sb11-`, a directory, `.sh`.
fn decorated(label: impl Strategy<Value = String>) -> impl Strategy<Value = String> {
    (label, any::<bool>(), any::<bool>()).prop_map(|(l, sb, sh)| format!("{}{l}{}", if sb { "sb11-" } else { "" }, if sh { ".sh" } else { "" }))
}

fn getter(d: &Decoded) -> impl Fn(&str) -> Option<String> + '_ {
    move |name: &str| {
        if name == "command" {
            return Some(d.command.clone());
        }
        d.options.iter().find(|(o, _)| o == name).map(|(_, v)| v.clone())
    }
}

fn canonical_of(d: &Decoded) -> String {
    label::canonical_label(&d.workload, &getter(d))
}

/// The settings in effect: options a label may spell out although they equal
/// sysbench's defaults (which canonical() leaves out) are filled in, and
/// range counts are dropped when range selects are off.
fn effective(d: &Decoded) -> Vec<(String, String)> {
    let selects = matches!(d.workload.as_str(), "oltp_read_only" | "oltp_read_write");
    let writes = matches!(d.workload.as_str(), "oltp_write_only" | "oltp_read_write");
    let ranges = ["simple-ranges", "sum-ranges", "order-ranges", "distinct-ranges"];
    let mut all = d.options.clone();
    let mut default = |o: &str, v: &str| {
        if !all.iter().any(|(n, _)| n == o) {
            all.push((o.into(), v.into()));
        }
    };
    if selects {
        default("point-selects", "10");
        default("range-selects", "on");
        for o in ranges {
            default(o, "1");
        }
        default("range-size", "100");
    }
    if writes {
        for o in ["index-updates", "non-index-updates", "delete-inserts"] {
            default(o, "1");
        }
    }
    if d.workload != "tpcc" {
        default("reconnect", "0");
    }
    if d.command == "run" {
        default("mysql-storage-engine", "InnoDB");
    }
    let ranges_off = all.iter().any(|(o, v)| o == "range-selects" && v == "off");
    all.retain(|(o, _)| !(ranges_off && ranges.contains(&o.as_str())));
    all.sort();
    all
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn label_parse_never_panics_and_errors_are_one_line(s in text()) {
        if let Err(e) = label::parse_label(&s) {
            prop_assert!(one_line(&e.to_string()), "{e}");
        }
        let _ = label::looks_like_label(&s);
    }

    /// Whatever the settings in effect, canonical() prints a label that parses.
    #[test]
    fn canonical_of_any_settings_parses(
        workload in prop::sample::select(vec!["oltp_read_write", "oltp_read_only", "oltp_write_only", "oltp_update_index", "tpcc"]),
        prepare in any::<bool>(),
        values in prop::collection::vec(prop_oneof![(0u64..100_000).prop_map(|n| n.to_string()), Just("on".to_string()), Just("off".to_string()), text()], 22),
    ) {
        let names = ["table-size", "tables", "warehouses", "datasets", "mysql-storage-engine", "rand-type", "force-null", "fk", "db-ps-mode",
            "point-selects", "range-selects", "simple-ranges", "sum-ranges", "order-ranges", "distinct-ranges", "index-updates",
            "non-index-updates", "delete-inserts", "range-size", "reconnect", "skip-trx", "transport"];
        let get = |name: &str| {
            if name == "command" {
                return Some(if prepare { "prepare" } else { "run" }.to_string());
            }
            names.iter().position(|n| *n == name).map(|i| values[i].clone())
        };
        // Settings no run accepts (0 warehouses or datasets, refused when the options are
        // read) have no label to print.
        for n in ["warehouses", "datasets", "tables"] {
            prop_assume!(get(n).as_deref() != Some("0"));
        }
        let c = label::canonical_label(workload, &get);
        prop_assert!(label::parse_label(&c).is_ok(), "{} -> {}: {:?}", workload, c, label::parse_label(&c).err());
    }
}

/// How many generated labels the round trip must have exercised: a label the parser refuses
/// (a token a scenario does not take) is passed over, and a generator that drifted into
/// making only those would pass while testing nothing.
const ROUND_TRIPS_AT_LEAST: usize = 128;

#[test]
fn label_round_trips_through_canonical() {
    let exercised = std::sync::atomic::AtomicUsize::new(0);
    let mut runner = proptest::test_runner::TestRunner::new(config(256));
    let labels = prop_oneof![decorated(oltp_label()), decorated(tpcc_label())];
    let result = runner.run(&labels, |l| {
        // Tokens a scenario does not take are errors; the round trip is about the rest.
        if let Ok(d1) = label::parse_label(&l) {
            exercised.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let c1 = canonical_of(&d1);
            let d2 = label::parse_label(&c1).map_err(|e| TestCaseError::fail(format!("{l} -> {c1}: {e}")))?;
            prop_assert_eq!((&d2.workload, &d2.command), (&d1.workload, &d1.command), "{} -> {}", l, c1);
            prop_assert_eq!(effective(&d2), effective(&d1), "{} -> {}", l, c1);
            prop_assert_eq!(canonical_of(&d2), c1.clone(), "{}: canonical is not a fixpoint", l);
            prop_assert!(label::looks_like_label(&c1), "{}", c1);
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let n = exercised.into_inner();
    assert!(n >= ROUND_TRIPS_AT_LEAST, "only {n} of 256 generated labels parsed: the round trip was exercised {n} times, at least {ROUND_TRIPS_AT_LEAST} wanted");
    eprintln!("label round trip: {n} of 256 generated labels exercised");
}

// ---------------------------------------------------------------------------------------------
// Target URLs

fn url_part() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9_.~!$*;@:/?#&=+, %-]{1,16}"
}

/// Percent-encodes everything but unreserved characters, as a user quoting a URL part would.
fn encode(s: &str) -> String {
    s.bytes().map(|b| if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) { (b as char).to_string() } else { format!("%{b:02X}") }).collect()
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn url_parse_never_panics_nor_shows_the_password(s in text(), password in "[a-z]{6}[A-Z0-9]{6}") {
        let _ = Target::parse(&s);
        // The same text carrying a password, however the rest is mangled.
        for u in [format!("mysql://u:{password}@{s}"), format!("postgres://u:{password}@h/{s}"), format!("mysql://{s}:{password}@h"), format!("mysql://h/db?password={password}&{s}")] {
            if let Err(e) = Target::parse(&u) {
                let msg = e.to_string();
                prop_assert!(one_line(&msg), "{}", msg);
                prop_assert!(!msg.contains(&password), "{} -> {}", u, msg);
            }
            prop_assert!(!mask_url(&u).contains(&password), "{}", mask_url(&u));
        }
    }

    #[test]
    fn url_fields_round_trip(
        pg in any::<bool>(),
        user in url_part(),
        password in url_part(),
        host in "[a-z][a-z0-9.-]{0,15}",
        port in 1u16..,
        db in url_part(),
        ssl in prop::sample::select(vec![SslMode::Disabled, SslMode::Preferred, SslMode::Required, SslMode::VerifyCa, SslMode::VerifyIdentity]),
    ) {
        let scheme = if pg { "postgres" } else { "mysql" };
        let url = format!("{scheme}://{}:{}@{host}:{port}/{}?ssl-mode={}", encode(&user), encode(&password), encode(&db), ssl.name());
        let t = Target::parse(&url).map_err(|e| TestCaseError::fail(format!("{url}: {e}")))?;
        prop_assert_eq!(t.protocol, if pg { Protocol::Postgres } else { Protocol::Mysql });
        prop_assert_eq!(&t.user, &user);
        prop_assert_eq!(t.password.as_deref(), Some(password.as_str()));
        prop_assert_eq!(&t.hosts, &vec![(host.clone(), port)]);
        prop_assert_eq!(&t.database, &db);
        prop_assert_eq!(t.ssl_mode, ssl);
        prop_assert!(!t.to_string().contains(&encode(&password)) || password.len() < 4);
    }

    #[test]
    fn sqlite_paths_round_trip(path in "/?[a-zA-Z0-9_.-][a-zA-Z0-9_./-]{0,29}") {
        let t = Target::parse(&format!("sqlite:{path}")).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(t.path.as_deref(), Some(path.as_str()));
    }
}

// ---------------------------------------------------------------------------------------------
// Option values

type StrParser = fn(&str) -> Result<String, String>;
/// A value parser with its value thrown away: only accepted or refused matters here.
type Check = Box<dyn Fn(&str) -> Result<(), String>>;

/// Every shared value parser, by the option it serves (a family's own are fuzzed through
/// the command line below, as private to its folder).
fn parsers() -> Vec<(&'static str, Check)> {
    fn erase<T: 'static>(f: fn(&str) -> Result<T, String>) -> Check {
        Box::new(move |s| f(s).map(|_| ()))
    }
    let strings: [(&str, StrParser); 13] = [
        ("db-driver", values::db_driver),
        ("db-ps-mode", values::db_ps_mode),
        ("transport", values::transport),
        ("mysql-ssl", values::ssl_mode),
        ("rand-type", values::rand_type),
        ("load-mode", values::load_mode),
        ("table-pick", values::table_pick),
        ("fail-on", values::fail_on),
        ("tpcc-prefix", values::identifier_prefix),
        ("mysql-ignore-errors", values::mysql_error_codes),
        ("pgsql-ignore-errors", values::sqlstates),
        ("tables", |s| values::positive32(s).map(|n| n.to_string())),
        ("percentile", |s| values::percentile(s).map(|n| n.to_string())),
    ];
    let mut v: Vec<(&'static str, Check)> = strings.into_iter().map(|(n, f)| (n, erase(f))).collect();
    v.push(("output", erase(values::output)));
    v.push(("threads", erase(values::parse_levels)));
    v.push(("table-size", erase(values::table_size)));
    v.push(("live", erase(values::listen_addr)));
    v.push(("skip-trx", erase(values::parse_bool)));
    v.push(("events", erase(values::uint64)));
    v.push(("point-selects", erase(values::uint32)));
    v.push(("client-threads", erase(values::positive_usize)));
    v.push(("rand-data", erase(values::percent8)));
    v.push(("mysql-port", erase(values::port)));
    v.push(("for-update", erase(values::for_update)));
    v.push(("time", erase(values::seconds)));
    v.push(("rate", erase(values::rate)));
    v.push(("rand-spec-pct", erase(values::percent)));
    v.push(("rand-pareto-h", erase(values::pareto_h)));
    v.push(("rand-zipfian-exp", erase(values::zipfian_exp)));
    v
}

/// Option names of `fairbench run` that take a value, as typed on the command line.
fn run_options() -> Vec<String> {
    let cmd = fairbench::cli::command();
    let run = cmd.find_subcommand("run").expect("run subcommand");
    run.get_arguments().filter(|a| a.get_action().takes_values()).filter_map(|a| a.get_long().map(|l| format!("--{l}"))).collect()
}

proptest! {
    #![proptest_config(config(128))]

    #[test]
    fn value_parsers_never_panic_and_say_what_they_accept_in_one_line(s in text()) {
        for (name, parse) in parsers() {
            if let Err(why) = parse(&s) {
                prop_assert!(one_line(&why), "--{}={:?}: {:?}", name, s, why);
            }
        }
    }

    /// Through clap: any value of any option of `run` is either taken or
    /// refused in one line naming the option; never a panic.
    #[test]
    fn any_value_of_any_option_gives_one_line(s in text()) {
        // One built command for all options: building it is most of the cost of a parse.
        let mut cmd = fairbench::cli::command();
        for opt in run_options() {
            let argv = ["fairbench", "run", opt.as_str(), s.as_str()];
            if let Err(e) = cmd.try_get_matches_from_mut(argv) {
                let line = fairbench::cli::error_line(&e);
                prop_assert!(one_line(&line), "{} {:?}: {:?}", opt, s, line);
                // An empty value may be read as a missing one; anything else names the option.
                prop_assert!(line.contains(opt.as_str()) || line.starts_with("unexpected argument") || s.is_empty(), "{} {:?}: {}", opt, s, line);
            }
        }
    }

    #[test]
    fn whole_numbers_round_trip(n in any::<u64>(), m in any::<u32>(), p in 1u32..=100, port in 1u16..) {
        prop_assert_eq!(values::uint64(&n.to_string()), Ok(n));
        prop_assert_eq!(values::uint32(&m.to_string()), Ok(m));
        prop_assert_eq!(values::percentile(&p.to_string()), Ok(p));
        prop_assert_eq!(values::port(&port.to_string()), Ok(port));
        let negative = format!("-{}", m.max(1));
        prop_assert!(values::uint32(&negative).is_err());
    }

    #[test]
    fn seconds_and_rates_round_trip(f in 0.0f64..=values::MAX_SECONDS, r in values::MIN_RATE..=values::MAX_RATE) {
        prop_assert_eq!(values::seconds(&f.to_string()), Ok(f));
        prop_assert_eq!(values::rate(&r.to_string()), Ok(r));
        prop_assert!(values::seconds(&(-f - 0.5).to_string()).is_err());
        prop_assert!(values::rate(&(-r).to_string()).is_err());
    }

    #[test]
    fn counts_round_trip(n in 1u64..1_000_000, unit in prop::sample::select(vec![("", 1u64), ("K", 1_000), ("M", 1_000_000), ("B", 1_000_000_000)])) {
        prop_assert_eq!(values::table_size(&format!("{n}{}", unit.0)), Ok(n * unit.1));
    }

    #[test]
    fn thread_lists_round_trip(levels in prop::collection::vec(1usize..=values::MAX_THREADS, 1..8)) {
        let s = levels.iter().map(|l| l.to_string()).collect::<Vec<_>>().join(",");
        prop_assert_eq!(values::parse_levels(&s), Ok(values::Levels(levels.clone())));
        let (trailing, leading) = (format!("{s},"), format!(",{s}"));
        prop_assert!(values::parse_levels(&trailing).is_err());
        prop_assert!(values::parse_levels(&leading).is_err());
    }

    #[test]
    fn ignore_lists_round_trip(codes in prop::collection::vec(1000u32..99999, 1..5), states in prop::collection::vec("[0-9A-Z]{5}", 1..5)) {
        let my = codes.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(",");
        prop_assert_eq!(values::mysql_error_codes(&my), Ok(my.clone()));
        let pg = states.join(",");
        prop_assert_eq!(values::sqlstates(&pg), Ok(pg.clone()));
        let list = fairbench::db::IgnoreList::parse(&pg);
        prop_assert!(states.iter().all(|s| list.contains(s)));
    }
}
