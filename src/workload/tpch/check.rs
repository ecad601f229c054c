//! `check tpch`: the tables hold the scale factor's rows, every order has
//! its lines and no refresh left rows behind; then every query runs with
//! the spec's validation parameters and its answer is compared, value by
//! value as the spec allows (clause 2.1.3.5: text equal, numbers within 1%
//! once rounded to cents), with the TPC's answer set at scale factor 1 or a
//! directory of answers another server gave (`--answers`), and written out
//! with `--save-answers`.

use super::schema;
use super::{params, queries, Tpch};
use crate::db::Conn;
use crate::error::{Error, Result};
use crate::workload::common::count;
use std::path::Path;

/// A query's answer: its rows, every value as text.
pub type Answer = Vec<Vec<String>>;

/// An answer file: a header line, then rows of values separated by `|`
/// (the TPC's answer set's form, and what `--save-answers` writes).
pub fn parse(text: &str) -> Answer {
    text.lines().filter(|l| !l.trim().is_empty()).skip(1).map(|l| l.split('|').map(|v| v.trim().to_string()).collect()).collect()
}

pub fn render(header: &str, rows: &Answer) -> String {
    let mut out = format!("{header}\n");
    for r in rows {
        out.push_str(&r.join("|"));
        out.push('\n');
    }
    out
}

/// Whether two values agree as the spec allows.
pub fn same(got: &str, want: &str) -> bool {
    let (a, b) = (got.trim(), want.trim());
    if a == b {
        return true;
    }
    match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(x), Ok(y)) => {
            let (x, y) = ((x * 100.0).round() / 100.0, (y * 100.0).round() / 100.0);
            (x - y).abs() <= 0.01 + y.abs() * 0.01
        }
        _ => false,
    }
}

/// How `got` differs from `want`, or None.
pub fn difference(got: &Answer, want: &Answer) -> Option<String> {
    if got.len() != want.len() {
        return Some(format!("{} rows where {} were expected", got.len(), want.len()));
    }
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if g.len() != w.len() {
            return Some(format!("row {} has {} values where {} were expected", i + 1, g.len(), w.len()));
        }
        if let Some(k) = (0..g.len()).find(|&k| !same(&g[k], &w[k])) {
            return Some(format!("row {}, column {}: {} where {} was expected", i + 1, k + 1, g[k], w[k]));
        }
    }
    None
}

impl Tpch {
    /// The consistency conditions that fail, as sentences.
    async fn table_conditions(&self, conn: &mut Conn) -> Result<Vec<String>> {
        let mut failed = Vec::new();
        let max = super::refresh::max_loaded_key(self.sf);
        for t in schema::TABLES.iter().filter(|t| t.name != "lineitem") {
            let sql = if t.name == "orders" { format!("SELECT COUNT(*) FROM orders WHERE o_orderkey <= {max}") } else { format!("SELECT COUNT(*) FROM {}", t.name) };
            let n = count(conn, &sql).await?;
            let want = super::load::rows(t, self.sf);
            if n != want {
                failed.push(format!("{} holds {n} rows, scale factor {} has {want}", t.name, super::metrics::number(self.sf)));
            }
        }
        let sql = format!("SELECT COUNT(DISTINCT l_orderkey) FROM lineitem WHERE l_orderkey <= {max}");
        let with_lines = count(conn, &sql).await?;
        let orders = super::load::rows(&schema::ORDERS, self.sf);
        if with_lines != orders {
            failed.push(format!("{with_lines} of the {orders} orders have lines"));
        }
        for (t, col) in [("orders", "o_orderkey"), ("lineitem", "l_orderkey")] {
            let sql = format!("SELECT COUNT(*) FROM {t} WHERE {col} > {max}");
            let n = count(conn, &sql).await?;
            if n > 0 {
                failed.push(format!("{t} holds {n} rows of an unfinished refresh (the next run removes them)"));
            }
        }
        Ok(failed)
    }

    /// Query `q`'s answer with the validation parameters.
    async fn answer(&self, conn: &mut Conn, q: u8) -> Result<Answer> {
        let sqls = queries::statements(q, &params::validation(q, self.sf), 0, self.dialect());
        let mut answer = Vec::new();
        for (i, sql) in sqls.iter().enumerate() {
            let rows = conn.query_strings(sql).await.map_err(|e| Error::Sql(format!("Q{q}: {e}")))?;
            if i == queries::answer_index(q) {
                // NULL spelled out: a row of one empty value would be an empty line.
                answer = rows.into_iter().map(|r| r.into_iter().map(|v| v.map_or_else(|| "NULL".to_string(), |v| v.trim().to_string())).collect()).collect();
            }
        }
        Ok(answer)
    }

    /// Whether the answers are compared with the TPC's set: at scale
    /// factor 1, when no other server's are given.
    fn against_the_tpcs_set(&self) -> bool {
        self.args.answers.is_none() && self.sf == 1.0
    }

    /// The answers this check compares with: another server's, else the
    /// TPC's at scale factor 1, else none.
    fn expected(&self, q: u8) -> Result<Option<Answer>> {
        if let Some(dir) = &self.args.answers {
            let path = dir.join(format!("q{q}.out"));
            let text = std::fs::read_to_string(&path).map_err(|e| Error::Usage(format!("--answers: cannot read {}: {e}", path.display())))?;
            return Ok(Some(parse(&text)));
        }
        if self.against_the_tpcs_set() {
            return Ok(tpchgen::q_and_a::answers_sf1::answer(q as i32).map(parse));
        }
        Ok(None)
    }

    /// Our answer as the TPC's answer set prints it: its Q11 cuts each
    /// ps_partkey short (1 to 4 of its digits; every value column whole),
    /// so a key there is compared as the start of ours.
    fn as_the_answer_set_prints(&self, q: u8, mut got: Answer, want: &Answer) -> Answer {
        if q == 11 && self.against_the_tpcs_set() {
            for (g, w) in got.iter_mut().zip(want) {
                if let (Some(k), Some(cut)) = (g.first_mut(), w.first()) {
                    if k.starts_with(cut.as_str()) {
                        k.truncate(cut.len());
                    }
                }
            }
        }
        got
    }

    pub async fn check_answers(&self, conn: &mut Conn, quiet: bool) -> Result<Vec<String>> {
        let mut failed = Vec::new();
        let mut compared = 0;
        if let Some(dir) = &self.args.save_answers {
            std::fs::create_dir_all(dir).map_err(|e| Error::Usage(format!("--save-answers: cannot create {}: {e}", dir.display())))?;
        }
        for &q in &self.queries {
            let got = self.answer(conn, q).await?;
            if let Some(dir) = &self.args.save_answers {
                save(dir, q, &got)?;
            }
            match self.expected(q)? {
                Some(want) => {
                    compared += 1;
                    let got = self.as_the_answer_set_prints(q, got, &want);
                    match difference(&got, &want) {
                        Some(d) => failed.push(format!("Q{q}'s answer differs: {d}")),
                        None if !quiet => println!("Q{q}: {} row(s), as expected", got.len()),
                        None => {}
                    }
                }
                None if !quiet => println!("Q{q}: {} row(s)", got.len()),
                None => {}
            }
        }
        if !quiet && compared == 0 {
            println!(
                "The answers were not compared: the TPC's answer set is for scale factor 1; give --answers DIR (another server's, from --save-answers) to compare at {}.",
                super::metrics::number(self.sf)
            );
        }
        Ok(failed)
    }
}

fn save(dir: &Path, q: u8, rows: &Answer) -> Result<()> {
    let path = dir.join(format!("q{q}.out"));
    std::fs::write(&path, render(&format!("Q{q}"), rows)).map_err(|e| Error::Usage(format!("--save-answers: cannot write {}: {e}", path.display())))
}

impl crate::workload::Checked for Tpch {
    async fn check(&self, cfg: std::sync::Arc<crate::db::ConnConfig>, quiet: bool) -> Result<()> {
        let mut conn = Conn::admin(&cfg).await?;
        if !quiet {
            println!("Checking the TPC-H tables at scale factor {}...", super::metrics::number(self.sf));
        }
        let mut failed = self.table_conditions(&mut conn).await?;
        if failed.is_empty() {
            failed.extend(self.check_answers(&mut conn, quiet).await?);
        }
        conn.close().await;
        crate::workload::check_verdict("TPC-H", &failed, "; ", quiet)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_agree_as_the_spec_allows() {
        assert!(same("37734107.00", "37734107"));
        assert!(same("0.0500", "0.05") && same("BUILDING  ", "BUILDING"));
        assert!(same("101.0", "100.0") && !same("102.0", "100.0"));
        assert!(!same("1995-03-05", "1995-03-04"));
        let want = parse("a|b\n1|x\n2|y\n");
        assert_eq!(difference(&parse("h\n1|x\n2|y"), &want), None);
        assert_eq!(difference(&parse("h\n1|x\n"), &want).unwrap(), "1 rows where 2 were expected");
        assert_eq!(difference(&parse("h\n1|x\n3|y"), &want).unwrap(), "row 2, column 1: 3 where 2 was expected");
    }

    /// The TPC's answer set parses into rows of the queries' columns.
    #[test]
    fn the_tpcs_answers_parse() {
        let q1 = parse(tpchgen::q_and_a::answers_sf1::answer(1).unwrap());
        assert_eq!(q1.len(), 4);
        assert_eq!(q1[0][..3], ["A".to_string(), "F".to_string(), "37734107.00".to_string()]);
        let q3 = parse(tpchgen::q_and_a::answers_sf1::answer(3).unwrap());
        assert_eq!(q3[2][0], "492164");
    }
}
