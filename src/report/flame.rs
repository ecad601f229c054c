//! Flame graphs of a server's on-CPU profile (env/profile.rs takes it) from
//! folded stacks ("frame;frame;frame count" lines): one profile's, the
//! difference between two, and the hottest leaf frames as a line of text.
//!
//! The SVGs are inferno's interactive ones: click to zoom, Ctrl-F to search.

use inferno::differential;
use inferno::flamegraph::color::{BasicPalette, Palette};
use inferno::flamegraph::{self, Options};
use std::collections::HashMap;

/// Wide enough for a server's deep stacks to keep readable frame names.
const WIDTH: usize = 1200;

/// The flame graph of one profile's folded stacks.
pub fn svg(folded: &str, title: &str) -> Result<String, String> {
    if samples(folded) == 0.0 {
        return Err("no samples".into());
    }
    draw(folded, title)
}

/// The differential flame graph from `before` to `after`: drawn with the
/// shape of `after` (frame widths are its samples), red where `after` has
/// more samples than `before`, blue where it has fewer, the deeper the
/// colour the larger the change. Frames only `before` has are not drawn.
///
/// `before` is first scaled to `after`'s total number of samples: two
/// servers rarely burn the same CPU time in a run, and unscaled the whole
/// graph would turn red or blue with that alone, hiding where the time
/// moved. How much CPU each used is in the run's own figures.
pub fn diff_svg(before: &str, after: &str, title: &str) -> Result<String, String> {
    if samples(before) == 0.0 {
        return Err("no samples before".into());
    }
    if samples(after) == 0.0 {
        return Err("no samples after".into());
    }
    let mut both = Vec::new();
    let opt = differential::Options { normalize: true, ..Default::default() };
    differential::from_readers(opt, before.as_bytes(), after.as_bytes(), &mut both).map_err(|e| format!("differential flame graph: {e}"))?;
    draw(&String::from_utf8_lossy(&both), title)
}

/// The `n` leaf frames (where the CPU was when sampled) with the largest
/// share of all samples, largest first; shares are in 0..1.
pub fn top(folded: &str, n: usize) -> Vec<(String, f64)> {
    let mut by_leaf: HashMap<&str, f64> = HashMap::new();
    let mut total = 0.0;
    for (stack, count) in folded.lines().filter_map(stack_count) {
        let leaf = stack.rsplit(';').next().unwrap_or(stack);
        *by_leaf.entry(leaf).or_insert(0.0) += count;
        total += count;
    }
    if total <= 0.0 {
        return Vec::new();
    }
    let mut shares: Vec<(String, f64)> = by_leaf.into_iter().map(|(leaf, count)| (leaf.to_string(), count / total)).collect();
    // Ties by name, so the same profile always gives the same line.
    shares.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    shares.truncate(n);
    shares
}

/// A folded line's stack and count; None for a line without one (blank,
/// or a comment as some tools write).
fn stack_count(line: &str) -> Option<(&str, f64)> {
    let (stack, count) = line.trim().rsplit_once(' ')?;
    let count = count.parse::<f64>().ok().filter(|c| c.is_finite() && *c >= 0.0)?;
    let stack = stack.trim_end();
    (!stack.is_empty()).then_some((stack, count))
}

fn samples(folded: &str) -> f64 {
    folded.lines().filter_map(stack_count).map(|(_, count)| count).sum()
}

fn draw(lines: &str, title: &str) -> Result<String, String> {
    let mut opt = Options::default();
    opt.title = title.to_string();
    opt.count_name = "samples".into();
    opt.image_width = Some(WIDTH);
    opt.colors = Palette::Basic(BasicPalette::Hot);
    // Colours from the frame's name, not at random: the same profile draws
    // the same SVG twice, and a function keeps its colour across graphs.
    opt.deterministic = true;
    let mut out = Vec::new();
    flamegraph::from_lines(&mut opt, lines.lines(), &mut out).map_err(|e| format!("flame graph: {e}"))?;
    String::from_utf8(out).map_err(|e| format!("flame graph: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const BEFORE: &str = "mysqld;do_command;dispatch_command;row_search_mvcc 60\nmysqld;do_command;dispatch_command;btr_cur_search_to_nth_level 30\nmysqld;do_command;net_read 10\n";
    const AFTER: &str = "mysqld;do_command;dispatch_command;row_search_mvcc 20\nmysqld;do_command;dispatch_command;btr_cur_search_to_nth_level 30\nmysqld;do_command;net_read 50\n";

    #[test]
    fn svg_draws_the_frames() {
        let svg = svg(BEFORE, "mysqld on CPU").expect("drawn");
        assert!(svg.contains("<svg"), "{svg}");
        assert!(svg.contains("row_search_mvcc"));
        assert!(svg.contains("mysqld on CPU"));
        assert!(svg.contains("samples"));
        assert_eq!(svg, super::svg(BEFORE, "mysqld on CPU").expect("drawn"), "the same profile draws differently");
    }

    #[test]
    fn the_title_is_escaped() {
        let svg = svg(BEFORE, "a<b & c").expect("drawn");
        assert!(!svg.contains("a<b"));
        assert!(svg.contains("a&lt;b &amp; c"));
    }

    #[test]
    fn diff_svg_colours_by_change() {
        let svg = diff_svg(BEFORE, AFTER, "before vs after").expect("drawn");
        assert!(svg.contains("<svg") && svg.contains("net_read"));
        // Red for more samples after (net_read), blue for fewer (row_search_mvcc).
        assert!(svg.contains("rgb(255,"), "no red frame");
        assert!(svg.contains(",255)"), "no blue frame");
        assert!(svg.contains("+40.00%"), "net_read's change is not in its tooltip");
    }

    #[test]
    fn no_samples_is_an_error() {
        assert_eq!(svg("", "t"), Err("no samples".to_string()));
        assert_eq!(svg("\n# comment\nfoo;bar 0\n", "t"), Err("no samples".to_string()));
        assert_eq!(diff_svg("", AFTER, "t"), Err("no samples before".to_string()));
        assert_eq!(diff_svg(BEFORE, "", "t"), Err("no samples after".to_string()));
        assert!(top("", 3).is_empty());
    }

    #[test]
    fn top_gives_leaf_shares_largest_first() {
        let folded = "a;b;hot 50\nc;hot 25\na;warm 20\ncold 5\nnot a line\n";
        let top3 = top(folded, 3);
        let names: Vec<&str> = top3.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(names, ["hot", "warm", "cold"]);
        let shares: Vec<f64> = top3.iter().map(|(_, s)| *s).collect();
        assert_eq!(shares, [0.75, 0.20, 0.05]);
        assert!((top(folded, 10).iter().map(|(_, s)| s).sum::<f64>() - 1.0).abs() < 1e-12);
        assert_eq!(top(folded, 1).len(), 1);
        assert!(top(folded, 0).is_empty());
    }
}
