//! Text tables that fit a terminal: 80 columns unless `COLUMNS` says otherwise (`COLUMNS=0`:
//! one line per row however wide). Columns that do not fit go into a further block below, and
//! every block repeats the key columns (threads, run), so a row reads across blocks. Cells are
//! right-aligned under their headings, each column as wide as its widest cell, two spaces apart.

/// The width tables fit: `COLUMNS` when it is a number (0 for no limit), else 80.
pub fn width() -> usize {
    width_from(std::env::var("COLUMNS").ok().as_deref())
}

fn width_from(columns: Option<&str>) -> usize {
    match columns.map(str::trim).and_then(|v| v.parse::<usize>().ok()) {
        Some(0) => usize::MAX,
        // Narrower than this, a block could not hold its keys and one figure.
        Some(n) => n.max(40),
        None => 80,
    }
}

/// Each line of `text` longer than [`width`] wrapped at its spaces, the lines it continues on
/// indented four spaces past its own indentation. Lines that fit, tables among them, and
/// sysbench's interval lines stay as they are.
pub fn wrap(text: &str) -> String {
    wrap_at(text, width())
}

fn wrap_at(text: &str, width: usize) -> String {
    let mut o = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let (body, end) = line.strip_suffix('\n').map_or((line, ""), |b| (b, "\n"));
        // sysbench's interval lines ("[ 1s ] thds: ...") stay whole: scripts parse them.
        if body.chars().count() <= width || body.trim_start().starts_with("[ ") {
            o.push_str(line);
            continue;
        }
        let indent = body.len() - body.trim_start().len();
        let more = " ".repeat(indent + 4);
        let mut current = body[..indent].to_string();
        let mut fresh = true;
        for word in body[indent..].split(' ') {
            let len = current.chars().count();
            if !fresh && len + 1 + word.chars().count() > width {
                o.push_str(current.trim_end());
                o.push('\n');
                current = more.clone();
                fresh = true;
            }
            if !fresh {
                current.push(' ');
            }
            current.push_str(word);
            fresh = false;
        }
        o.push_str(current.trim_end());
        o.push_str(end);
    }
    o
}

pub struct Table {
    indent: usize,
    keys: usize,
    head: Vec<String>,
    rows: Vec<Vec<String>>,
    /// Columns kept in the block of the column before them (a difference beside its figure).
    glued: Vec<usize>,
}

const GAP: usize = 2;

impl Table {
    /// A table whose first `keys` columns are repeated in every block, each line indented.
    pub fn new<S: Into<String>>(indent: usize, keys: usize, head: impl IntoIterator<Item = S>) -> Table {
        Table { indent, keys, head: head.into_iter().map(Into::into).collect(), rows: Vec::new(), glued: Vec::new() }
    }

    /// Keeps each of `columns` in the same block as the column before it.
    pub fn glue(mut self, columns: impl IntoIterator<Item = usize>) -> Table {
        self.glued.extend(columns);
        self
    }

    /// A row; missing cells at its end are left blank.
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// Whether it has no rows.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The table at the width of [`width`].
    pub fn text(&self) -> String {
        self.fit(width())
    }

    /// The table in blocks no wider than `width` (a block with one figure may be wider).
    pub fn fit(&self, width: usize) -> String {
        let n = self.head.len();
        fn cell(r: &[String], i: usize) -> &str {
            r.get(i).map(String::as_str).unwrap_or("")
        }
        let widths: Vec<usize> = (0..n).map(|i| self.rows.iter().map(|r| cell(r, i).chars().count()).chain([self.head[i].chars().count()]).max().unwrap_or(0)).collect();
        let keys = self.keys.min(n);
        let keys_width: usize = widths[..keys].iter().map(|w| w + GAP).sum();
        // Units of columns that stay together, packed greedily into blocks.
        let mut units: Vec<Vec<usize>> = Vec::new();
        for i in keys..n {
            match units.last_mut() {
                Some(u) if self.glued.contains(&i) => u.push(i),
                _ => units.push(vec![i]),
            }
        }
        let mut blocks: Vec<Vec<usize>> = Vec::new();
        let mut used = usize::MAX;
        for unit in units {
            let w: usize = unit.iter().map(|&i| widths[i] + GAP).sum::<usize>() - GAP;
            let grown = used.saturating_add(GAP + w);
            match blocks.last_mut() {
                Some(b) if grown <= width => {
                    b.extend(unit);
                    used = grown;
                }
                _ => {
                    blocks.push(unit);
                    used = self.indent + keys_width + w;
                }
            }
        }
        if blocks.is_empty() {
            blocks.push(Vec::new());
        }
        let mut o = String::new();
        for (k, block) in blocks.iter().enumerate() {
            if k > 0 {
                o.push('\n');
            }
            let columns: Vec<usize> = (0..keys).chain(block.iter().copied()).collect();
            let line = |cells: &dyn Fn(usize) -> String| {
                let parts: Vec<String> = columns.iter().map(|&i| format!("{:>w$}", cells(i), w = widths[i])).collect();
                format!("{}{}\n", " ".repeat(self.indent), parts.join(&" ".repeat(GAP)).trim_end())
            };
            o.push_str(&line(&|i| self.head[i].clone()));
            for r in &self.rows {
                o.push_str(&line(&|i| cell(r, i).to_string()));
            }
        }
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wide() -> Table {
        let mut t = Table::new(2, 2, ["threads", "run", "tps", "srv cpu/t", "cli cpu/t", "host cpu/t", "rKB/t", "wKB/t", "fsync/t", "a very long heading"]);
        t.row(["2", "1", "54309.5", "32.26", "32.26", "36.76", "0.00", "0.00", "-", "x"].map(String::from).to_vec());
        t.row(["2", "2", "56319.9", "31.97 (0.99)", "31.97 (0.99)", "35.54 (0.97)", "0.00", "0.00", "-", "y"].map(String::from).to_vec());
        t
    }

    #[test]
    fn blocks_fit_the_width_and_repeat_the_keys() {
        let text = wide().fit(80);
        assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
        let blocks: Vec<&str> = text.split("\n\n").collect();
        assert!(blocks.len() >= 2, "{text}");
        for b in &blocks {
            let head = b.lines().next().unwrap();
            assert!(head.starts_with("  threads  run"), "{b}");
            assert_eq!(b.lines().count(), 3, "{b}");
        }
        // Every heading once, in order.
        let heads: Vec<&str> = blocks.iter().map(|b| b.lines().next().unwrap()).collect();
        let all = heads.join(" ");
        for h in ["tps", "srv cpu/t", "host cpu/t", "fsync/t", "a very long heading"] {
            assert_eq!(all.matches(h).count(), 1, "{h}: {text}");
        }
    }

    #[test]
    fn cells_are_right_aligned_under_their_headings() {
        let text = wide().fit(80);
        let lines: Vec<&str> = text.lines().collect();
        let at = lines[0].find("srv cpu/t").unwrap() + "srv cpu/t".len();
        let end = |l: &str, word: &str| l.find(word).map(|p| p + word.len());
        assert_eq!(end(lines[1], "32.26"), Some(at), "{text}");
        assert_eq!(end(lines[2], "31.97 (0.99)"), Some(at), "{text}");
    }

    #[test]
    fn glued_columns_stay_in_their_figure_s_block() {
        let mut t = Table::new(0, 1, ["k", "tps", "diff", "p99 ms", "diff"]).glue([2, 4]);
        t.row(["1", "54309.53", "", "0.06", ""].map(String::from).to_vec());
        t.row(["1", "56319.94", "+3.7%", "0.07", "+16.7%"].map(String::from).to_vec());
        let text = t.fit(25);
        let blocks: Vec<&str> = text.split("\n\n").collect();
        assert_eq!(blocks.len(), 2, "{text}");
        assert!(blocks[0].starts_with("k       tps   diff\n"), "{text}");
        assert!(blocks[1].starts_with("k  p99 ms    diff\n"), "{text}");
    }

    #[test]
    fn no_limit_is_one_line_per_row() {
        let text = wide().fit(usize::MAX);
        assert_eq!(text.lines().count(), 3, "{text}");
        assert!(text.lines().next().unwrap().ends_with("a very long heading"), "{text}");
    }

    #[test]
    fn a_short_row_leaves_its_last_cells_blank() {
        let mut t = Table::new(0, 1, ["k", "a", "b"]);
        t.row(vec!["1".into(), "not run".into()]);
        assert_eq!(t.fit(80), "k        a  b\n1  not run\n");
    }

    #[test]
    fn long_lines_wrap_at_spaces_under_their_indent() {
        let text = "  host CPU at 2 threads: 100% busy (user 88%, system 12%, steal 0%), iowait 0%, idle 0%; fairbench took 83% of the busy CPU\nshort\n";
        let w = wrap_at(text, 40);
        assert!(w.lines().all(|l| l.chars().count() <= 40), "{w}");
        assert_eq!(w.split_whitespace().collect::<Vec<_>>(), text.split_whitespace().collect::<Vec<_>>(), "{w}");
        assert!(w.lines().nth(1).unwrap().starts_with("      ") && !w.lines().nth(1).unwrap().starts_with("       "), "{w}");
        assert!(w.ends_with("\nshort\n"), "{w}");
        let interval = "[ 1s ] thds: 2 tps: 39695.00 qps: 39695.00 (r/w/o: 39695.00/0.00/0.00) lat (ms,95%): 0.04 err/s: 0.00\n";
        assert_eq!(wrap_at(interval, 40), interval);
        // A word longer than the width stays whole, on its own line.
        assert_eq!(wrap_at("a bbbbbbbbbbbb c", 5), "a\n    bbbbbbbbbbbb\n    c");
    }

    #[test]
    fn columns_set_the_width() {
        assert_eq!(width_from(None), 80);
        assert_eq!(width_from(Some("120")), 120);
        assert_eq!(width_from(Some("0")), usize::MAX);
        assert_eq!(width_from(Some("10")), 40);
        assert_eq!(width_from(Some("wide")), 80);
    }
}
