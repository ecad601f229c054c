//! Many generator processes, one start (`--group`), their HDR interval logs
//! (`--hdr-log`) and the exact merge of those logs (`fairbench merge`).

mod common;

use common::*;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

fn spawn(args: &[String]) -> Child {
    fairbench().args(args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("fairbench starts")
}

fn finish(c: Child) -> std::process::Output {
    c.wait_with_output().expect("fairbench ends")
}

fn run_args(target: &str, group: &str, size: usize, extra: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = ["run", "oltp_read_only", "--target", target, "--table-size=100", "--time=2.5", "--report-interval=1", "--no-save", "--group", group, "--group-size", &size.to_string()]
        .iter()
        .map(|s| s.to_string())
        .collect();
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

/// The instant (database clock, ms) a member's line says it started at.
fn started_at(out: &std::process::Output) -> f64 {
    let err = stderr(out);
    let line = err.lines().find(|l| l.contains(" started at ")).unwrap_or_else(|| panic!("no start line\n{}", show(out)));
    line.split(" started at ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap()
}

/// `n` members started together: every one ran, and their starts lie
/// within `spread_ms` of each other.
fn members_start_together(target: &str, group: &str, n: usize) {
    members_arriving_every(target, group, n, 150);
}

/// Members arriving `gap_ms` apart (0: all at once) start together.
fn members_arriving_every(target: &str, group: &str, n: usize, gap_ms: u64) {
    let mut prep = fairbench();
    run_ok(prep.args(["prepare", "oltp_read_only", "--target", target, "--table-size=100", "--no-save"]));
    let dir = scratch_dir(&format!("group_logs_{group}"));
    let logs: Vec<String> = (0..n).map(|i| dir.join(format!("m{i}.hlog")).display().to_string()).collect();
    let kids: Vec<Child> = (0..n)
        .map(|i| {
            // Members arrive at different times; the group still starts at one instant.
            std::thread::sleep(Duration::from_millis(gap_ms * i as u64));
            spawn(&run_args(target, group, n, &["--hdr-log", &logs[i]]))
        })
        .collect();
    let outs: Vec<_> = kids.into_iter().map(finish).collect();
    for o in &outs {
        assert!(o.status.success(), "{}", show(o));
    }
    let starts: Vec<f64> = outs.iter().map(started_at).collect();
    let spread = starts.iter().cloned().fold(f64::MIN, f64::max) - starts.iter().cloned().fold(f64::MAX, f64::min);
    // A few ms on an idle machine; the bound leaves room for a loaded one.
    assert!(spread < 50.0, "members started {spread:.1} ms apart: {starts:?}");
    let mut members: Vec<String> =
        outs.iter().map(|o| stderr(o).lines().find(|l| l.contains(" started at ")).unwrap().split(" member ").nth(1).unwrap().split(' ').next().unwrap().to_string()).collect();
    members.sort();
    assert_eq!(members, (1..=n).map(|i| i.to_string()).collect::<Vec<_>>());
    assert_merge_is_exact(&logs, &dir);
    let mut clean = fairbench();
    run_ok(clean.args(["cleanup", "oltp_read_only", "--target", target]));
}

#[test]
fn bad_merge_files_are_one_line_and_exit_2() {
    let dir = scratch_dir("group_bad_merge");
    let garbage = dir.join("garbage.hlog");
    std::fs::write(&garbage, "#fairbench-member group=g member=1 size=1\nTag=threads=1,0.000,1.000,1.0,NOT-BASE64!!\n").unwrap();
    let empty = dir.join("empty.hlog");
    std::fs::write(&empty, "").unwrap();
    let missing = dir.join("missing.hlog");
    for f in [&garbage, &empty, &missing] {
        let mut c = fairbench();
        let out = run_fail(c.arg("merge").arg(f).arg("--no-save"));
        assert_eq!(out.status.code(), Some(2), "{}", show(&out));
        assert_one_line_error(&out, &[f.file_name().unwrap().to_str().unwrap()]);
    }
}

fn sqlite_target(name: &str) -> String {
    format!("sqlite:{}", scratch_dir(name).join("g.sqlite").display())
}

#[test]
fn two_sqlite_members_start_together() {
    members_start_together(&sqlite_target("group_two_sqlite"), "two", 2);
}

#[test]
fn three_sqlite_members_start_together() {
    members_start_together(&sqlite_target("group_three_sqlite"), "three", 3);
}

// One test per server: the members of two tests would share its tables.
#[test]
fn two_then_three_mariadb_members_start_together() {
    members_start_together(&mysql_url(), "two-my", 2);
    members_start_together(&mysql_url(), "three-my", 3);
    let db = parse_url(&mysql_url()).database;
    assert_eq!(mysql_admin(&format!("SELECT COUNT(*) FROM information_schema.tables WHERE table_name = 'fairbench_group' AND table_schema = '{db}'")).trim(), "0", "cleanup drops the barrier table");
}

#[test]
fn two_then_three_postgres_members_start_together() {
    members_start_together(&pg_url(), "two-pg", 2);
    members_start_together(&pg_url(), "three-pg", 3);
    // Members arriving at once all created the missing barrier table, and
    // PostgreSQL failed some of them on its catalog (23505 on
    // pg_type_typname_nsp_index): `duplicate key value` and exit 4.
    members_arriving_every(&pg_url(), "four-pg-at-once", 4, 0);
    assert_eq!(pg_admin("SELECT COUNT(*) FROM pg_tables WHERE tablename = 'fairbench_group'").trim(), "0", "cleanup drops the barrier table");
}

/// A member that never comes: the others stop after --group-timeout with
/// one line and exit 7.
#[test]
fn missing_member_times_out_with_one_line() {
    let target = sqlite_target("group_timeout");
    let mut prep = fairbench();
    run_ok(prep.args(["prepare", "oltp_read_only", "--target", &target, "--table-size=100", "--no-save"]));
    let t0 = Instant::now();
    let out = finish(spawn(&run_args(&target, "lonely", 2, &["--group-timeout=1"])));
    assert_eq!(out.status.code(), Some(7), "{}", show(&out));
    assert!(t0.elapsed() < Duration::from_secs(10));
    assert_one_line_error(&out, &["group lonely", "1 of 2", "--group-timeout"]);
}

/// Ctrl-C while a member waits for its group ends it within 2 s.
#[test]
fn interrupt_while_waiting_for_the_group_ends_quickly() {
    let target = sqlite_target("group_interrupt");
    let mut prep = fairbench();
    run_ok(prep.args(["prepare", "oltp_read_only", "--target", &target, "--table-size=100", "--no-save"]));
    let child = spawn(&run_args(&target, "waiting", 2, &["--group-timeout=60"]));
    // Signalled once its registration is in the group's table: it is waiting for the other.
    let db = target.strip_prefix("sqlite:").unwrap().to_string();
    let registered = || {
        let Ok(c) = rusqlite::Connection::open_with_flags(&db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY) else { return false };
        c.query_row(&format!("SELECT COUNT(*) FROM {} WHERE grp = 'waiting'", fairbench::runner::group::TABLE), [], |r| r.get::<_, i64>(0)).is_ok_and(|n| n == 1)
    };
    assert!(eventually(Duration::from_secs(60), registered), "the member never registered in its group");
    // SAFETY: signals our own child process by its id.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let t0 = Instant::now();
    let out = finish(child);
    assert!(t0.elapsed() < Duration::from_secs(2), "took {:?} to stop", t0.elapsed());
    assert_eq!(out.status.code(), Some(130), "{}", show(&out));
}

#[test]
fn bad_group_options_are_one_line_and_exit_2() {
    for args in [
        vec!["--group", "a b", "--group-size", "2"],
        vec!["--group", "g", "--group-size", "0"],
        vec!["--group", "g"],
        vec!["--group-member", "0"],
        vec!["--group", "g", "--group-size", "2", "--group-member", "a/b"],
    ] {
        let mut c = fairbench();
        let out = run_fail(c.args(["run", "oltp_read_only", "--target", "sqlite:/nonexistent/x"]).args(&args));
        assert_eq!(out.status.code(), Some(2), "{}", show(&out));
        assert_no_panic(&out);
        assert_eq!(stderr(&out).trim().lines().count(), 1, "{}", show(&out));
    }
}

/// The sum of `key: N` over the merge's interval lines.
fn interval_sum(merged: &str, key: &str) -> u64 {
    merged.lines().filter(|l| l.starts_with("[ ")).map(|l| l.split(&format!(" {key}: ")).nth(1).unwrap().split(' ').next().unwrap().parse::<u64>().unwrap()).sum()
}

/// As a Kubernetes Indexed Job runs the members: options from the
/// environment, members named by their index, `--hdr-log -` on standard
/// output captured with standard error (as `kubectl logs` gives it). The
/// merge names the members, reads the captures, and its intervals carry
/// the query counts and client CPU, adding up to the members' totals.
#[test]
fn members_named_from_the_environment_log_to_stdout_and_merge() {
    let target = sqlite_target("group_env_members");
    let mut prep = fairbench();
    run_ok(prep.args(["prepare", "oltp_read_only", "--target", &target, "--table-size=100", "--no-save"]));
    let dir = scratch_dir("group_env_logs");
    let kids: Vec<Child> = (0..2)
        .map(|i| {
            let mut c = fairbench();
            c.args(["run", "oltp_read_only", "--table-size=100", "--time=2.5", "--no-save"])
                .env("FAIRBENCH_TARGET", &target)
                .env("FAIRBENCH_GROUP", "indexed")
                .env("FAIRBENCH_GROUP_SIZE", "2")
                .env("FAIRBENCH_GROUP_MEMBER", i.to_string())
                .env("FAIRBENCH_HDR_LOG", "-")
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            c.spawn().unwrap()
        })
        .collect();
    let mut logs = Vec::new();
    let (mut reads, mut other) = (0u64, 0u64);
    for (i, k) in kids.into_iter().enumerate() {
        let out = finish(k);
        assert!(out.status.success(), "{}", show(&out));
        let text = stdout(&out);
        // Members are listed in the order they registered, which the two processes race for.
        let line = text.lines().find(|l| l.starts_with("#fairbench-member ")).unwrap_or_else(|| panic!("{text}"));
        assert!(line.starts_with(&format!("#fairbench-member group=indexed member={i} members=")), "{line}");
        let members = line.split(" members=").nth(1).unwrap().split(' ').next().unwrap();
        assert!(members == "0,1" || members == "1,0", "{line}");
        assert!(text.contains("SQL statistics:"), "the report still goes to stdout: {text}");
        let summary = text.lines().find(|l| l.starts_with("#fairbench-summary ")).unwrap();
        let field = |k: &str| summary.split(&format!(" {k}=")).nth(1).unwrap().split(' ').next().unwrap().parse::<u64>().unwrap();
        reads += field("reads");
        other += field("other");
        let path = dir.join(format!("pod-{i}.log"));
        std::fs::write(&path, format!("{}{}", stderr(&out), text)).unwrap();
        logs.push(path.display().to_string());
    }
    assert!(reads > 0 && other > 0);
    let mut m = fairbench();
    let merged = stdout(&run_ok(m.arg("merge").args(&logs).arg("--no-save")));
    assert!(merged.contains("Member 0 on ") && merged.contains("Member 1 on "), "{merged}");
    assert!(!merged.contains("missing"), "{merged}");
    assert_eq!(interval_sum(&merged, "reads"), reads, "{merged}");
    assert_eq!(interval_sum(&merged, "other"), other, "{merged}");
    assert!(merged.lines().filter(|l| l.starts_with("[ ")).any(|l| !l.ends_with("client cpu: 0.00 s")), "{merged}");
    let mut part = fairbench();
    let one = stdout(&run_ok(part.args(["merge", &logs[1], "--no-save"])));
    assert!(one.contains("member(s) 0 missing"), "{one}");
}

/// The target URL may come from the environment (a Kubernetes Secret); its
/// password must not show in --help, which prints environment values.
#[test]
fn target_from_the_environment_stays_out_of_help() {
    let mut c = fairbench();
    let out = run_ok(c.args(["run", "--help"]).env("FAIRBENCH_TARGET", "postgres://u:s3cretpw@127.0.0.1:1/db"));
    assert!(stdout(&out).contains("FAIRBENCH_TARGET"), "{}", show(&out));
    assert!(!stdout(&out).contains("s3cretpw"), "{}", show(&out));
}

/// A merged interval as it must be: its members, its length, one
/// histogram fed every value, the counts (reads, writes, other, errors,
/// reconnects) and the client CPU.
struct ExpectedSlot {
    members: usize,
    secs: f64,
    h: hdrhistogram::Histogram<u64>,
    counts: [u64; 5],
    cpu: (f64, f64),
}

/// What `fairbench merge` must give for one level.
struct ExpectedLevel {
    threads: usize,
    slots: Vec<ExpectedSlot>,
    total: hdrhistogram::Histogram<u64>,
    elapsed_s: f64,
    cpu: (f64, f64),
}

fn expected_levels(members: &[SyntheticMember]) -> Vec<ExpectedLevel> {
    let mut out: Vec<ExpectedLevel> = Vec::new();
    for li in 0..members[0].levels.len() {
        let threads = members[0].levels[li].0;
        let mut lv = ExpectedLevel { threads: 0, slots: Vec::new(), total: fairbench::stats::new_hist(), elapsed_s: 0.0, cpu: (0.0, 0.0) };
        for m in members {
            let (t, parts, tail) = &m.levels[li];
            assert_eq!(*t, threads);
            lv.threads += t;
            // The members started a few ms apart: interval i of each lands in slot i,
            // and a tail in the slot after its member's last interval.
            for (k, p) in parts.iter().chain(tail).enumerate() {
                if lv.slots.len() <= k {
                    lv.slots.push(ExpectedSlot { members: 0, secs: 0.0, h: fairbench::stats::new_hist(), counts: [0; 5], cpu: (0.0, 0.0) });
                }
                let s = &mut lv.slots[k];
                s.members += 1;
                s.secs = f64::max(s.secs, p.secs);
                for &v in &p.values {
                    s.h.record(v).unwrap();
                    lv.total.record(v).unwrap();
                }
                (0..5).for_each(|i| s.counts[i] += p.counts[i]);
                s.cpu.0 += p.cpu.0;
                s.cpu.1 += p.cpu.1;
                lv.cpu.0 += p.cpu.0;
                lv.cpu.1 += p.cpu.1;
            }
            lv.elapsed_s = f64::max(lv.elapsed_s, parts.len() as f64 + tail.as_ref().map_or(0.0, |p| p.secs));
        }
        out.push(lv);
    }
    out
}

/// The figures of a merge, line by line, as they must read when every
/// interval's histogram is exactly the sum of the members' at that instant.
fn expected_merge_lines(levels: &[ExpectedLevel]) -> Vec<String> {
    let pct = fairbench::stats::pct_ms;
    let mut lines = Vec::new();
    for lv in levels {
        for (k, ExpectedSlot { members: n, secs, h, counts: c, cpu }) in lv.slots.iter().enumerate() {
            lines.push(format!(
                "[ {:.0}s ] members: {n} events: {} tps: {:.2} lat (ms,95%): {:.2} max: {:.2} reads: {} writes: {} other: {} errors: {} client cpu: {:.2} s",
                k as f64 + secs,
                h.len(),
                h.len() as f64 / secs,
                pct(h, 95.0),
                h.max() as f64 / 1000.0,
                c[0],
                c[1],
                c[2],
                c[3],
                cpu.0 + cpu.1
            ));
        }
        let h = &lv.total;
        lines.push(format!(
            "Total at {} threads: events: {} tps: {:.2} latency (ms): min {:.2} avg {:.2} p50 {:.2} p95 {:.2} p99 {:.2} max {:.2}",
            lv.threads,
            h.len(),
            h.len() as f64 / lv.elapsed_s,
            h.min() as f64 / 1000.0,
            h.mean() / 1000.0,
            pct(h, 50.0),
            pct(h, 95.0),
            pct(h, 99.0),
            h.max() as f64 / 1000.0
        ));
    }
    lines
}

/// Synthetic logs of three members (a few ms apart; one ends a second
/// early; tails shorter than an interval; one level without a tail): every
/// merged interval and total, printed and stored, is that of one histogram
/// fed all the members' values at that instant, with the counts and CPU
/// added; a log read from a pipe merges the same.
#[test]
fn merged_intervals_equal_one_histogram_fed_every_members_values() {
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let mut level = |threads: usize, n: usize, tail: Option<f64>| (threads, (0..n).map(|_| part(&mut rng, 1.0)).collect::<Vec<_>>(), tail.map(|s| part(&mut rng, s)));
    let members = vec![
        SyntheticMember { name: "a", late_ms: 0, levels: vec![level(2, 6, Some(0.4)), level(4, 4, Some(0.25))] },
        SyntheticMember { name: "b", late_ms: 7, levels: vec![level(2, 6, Some(0.5)), level(4, 4, None)] },
        SyntheticMember { name: "c", late_ms: -4, levels: vec![level(2, 5, Some(0.7)), level(4, 4, Some(0.1))] },
    ];
    let names: Vec<&str> = members.iter().map(|m| m.name).collect();
    let dir = scratch_dir("group_synthetic_merge");
    let logs: Vec<String> = members
        .iter()
        .map(|m| {
            let path = dir.join(format!("{}.hlog", m.name));
            write_synthetic_log(&path, m, &names, 1_800_000_000_000);
            path.display().to_string()
        })
        .collect();
    let want = expected_levels(&members);
    let store = dir.join("store.sqlite");
    let merged = stdout(&run_ok(fairbench().arg("merge").args(&logs).arg("--results").arg(&store)));
    let figures: Vec<&str> = merged.lines().filter(|l| l.starts_with("[ ") || l.starts_with("Total at ")).collect();
    assert_eq!(figures, expected_merge_lines(&want), "{merged}");
    for m in &members {
        let events: usize = m.levels.iter().flat_map(|(_, parts, tail)| parts.iter().chain(tail)).map(|p| p.values.len()).sum();
        assert!(merged.contains(&format!("Member {} on host-{}: events: {events} clock offset: +0.250 ms", m.name, m.name)), "{merged}");
    }
    assert!(!merged.contains("missing"), "{merged}");

    // The stored record holds the same figures and the merged histograms themselves.
    let db = rusqlite::Connection::open(&store).unwrap();
    let mut q = db
        .prepare("SELECT level_no, t, secs, events, reads, writes, other, errors, reconnects, p50_ms, p95_ms, p99_ms, max_ms, cpu_user_s, cpu_sys_s, histogram FROM intervals ORDER BY level_no, seq")
        .unwrap();
    // (level_no, t, secs), the counts, (p50, p95, p99, max, cpu user, cpu sys), the histogram
    type Row = ((i64, f64, f64), [i64; 6], [f64; 6], Vec<u8>);
    let rows: Vec<Row> = q
        .query_map([], |r| {
            Ok((
                (r.get(0)?, r.get(1)?, r.get(2)?),
                [r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?, r.get(7)?, r.get(8)?],
                [r.get(9)?, r.get(10)?, r.get(11)?, r.get(12)?, r.get(13)?, r.get(14)?],
                r.get(15)?,
            ))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let slots: Vec<(usize, usize)> = want.iter().enumerate().flat_map(|(li, lv)| (0..lv.slots.len()).map(move |k| (li, k))).collect();
    assert_eq!(rows.len(), slots.len());
    let first_level = rows[0].0 .0;
    for ((at, counts, figures, histogram), &(li, k)) in rows.iter().zip(&slots) {
        let ExpectedSlot { secs, h, counts: c, cpu, .. } = &want[li].slots[k];
        let what = format!("level {li} slot {k}");
        assert_eq!(at.0, first_level + li as i64, "{what}");
        assert!((at.1 - (k as f64 + secs)).abs() < 1e-9 && (at.2 - secs).abs() < 1e-9, "{what}: t {} secs {}", at.1, at.2);
        assert_eq!(*counts, [h.len() as i64, c[0] as i64, c[1] as i64, c[2] as i64, c[3] as i64, c[4] as i64], "{what}");
        let pct = |p| fairbench::stats::pct_ms(h, p);
        assert_eq!(figures[..4], [pct(50.0), pct(95.0), pct(99.0), h.max() as f64 / 1000.0], "{what}");
        assert!((figures[4] - cpu.0).abs() < 1e-9 && (figures[5] - cpu.1).abs() < 1e-9, "{what}: cpu {:?} vs {cpu:?}", &figures[4..]);
        assert!(fairbench::store::hist_from_bytes(histogram).unwrap() == *h, "{what}: the stored histogram");
    }
    let mut q = db.prepare("SELECT threads, events, elapsed_s, p95_ms, p99_ms, cpu_user_s, cpu_sys_s, histogram FROM levels ORDER BY level_no").unwrap();
    let levels: Vec<(i64, i64, [f64; 5], Vec<u8>)> =
        q.query_map([], |r| Ok((r.get(0)?, r.get(1)?, [r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?], r.get(7)?))).unwrap().map(Result::unwrap).collect();
    assert_eq!(levels.len(), want.len());
    for (got, lv) in levels.iter().zip(&want) {
        let h = &lv.total;
        assert_eq!((got.0, got.1), (lv.threads as i64, h.len() as i64));
        assert_eq!(got.2[1..3], [fairbench::stats::pct_ms(h, 95.0), fairbench::stats::pct_ms(h, 99.0)]);
        assert!((got.2[0] - lv.elapsed_s).abs() < 1e-6 && (got.2[3] - lv.cpu.0).abs() < 1e-6 && (got.2[4] - lv.cpu.1).abs() < 1e-6, "{got:?}");
        assert!(fairbench::store::hist_from_bytes(&got.3).unwrap() == *h, "the stored level histogram");
    }

    // `merge <(kubectl logs ...)`: a log that can be read only once.
    let mut c = fairbench();
    c.arg("merge").arg("/dev/stdin").args(&logs[1..]).arg("--no-save").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    let text = std::fs::read(&logs[0]).unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || std::io::Write::write_all(&mut pipe, &text));
    let out = finish(child);
    writer.join().unwrap().unwrap();
    assert!(out.status.success(), "{}", show(&out));
    let piped = stdout(&out);
    assert_eq!(piped.lines().filter(|l| l.starts_with("[ ") || l.starts_with("Total at ")).collect::<Vec<_>>(), figures, "{piped}");
}
