//! One test per bug that was fixed, named after what broke, with a comment saying how it
//! showed. Each needs the test servers (`bash scripts/servers.sh start`).

mod common;

use common::*;

// --- TLS on the built-in wire clients ---

/// A default Debian PostgreSQL offers TLS, so a plain `postgres://` URL (sslmode=prefer)
/// negotiated TLS and the run was handed to the general driver without a word: 1.2-1.3x the
/// client CPU per query. `ssl-mode=REQUIRED` on MariaDB did the same. FAIRBENCH_WIRE=fast
/// refuses that hand-over, so these runs now fail if it comes back.
#[test]
fn tls_run_silently_fell_back_to_the_general_driver() {
    let (my, pg) = (mysql_url(), pg_url());
    for url in [pg.clone(), format!("{pg}?sslmode=require"), format!("{my}?ssl-mode=PREFERRED"), format!("{my}?ssl-mode=REQUIRED")] {
        let mut cmd = fairbench();
        cmd.env("FAIRBENCH_WIRE", "fast")
            .args(["run", "oltp_point_select", "--target", &url, "--table-name", "reg_tls_fallback_"])
            .args(["--table-size", "100", "--time", "1", "--no-save"]);
        let out = run_ok(&mut cmd);
        let so = stdout(&out);
        assert!(so.contains("queries:"), "{url}: no run summary\n{so}");
    }
}
