//! Flame graphs of a server's on-CPU profile (env/profile.rs takes it) from
//! folded stacks ("frame;frame;frame count" lines): one profile's, the
//! difference between two, and the hottest leaf frames as a line of text.
//!
//! The SVGs are inferno's interactive ones: click to zoom, Ctrl-F to search.

use crate::model::oncpu::samples;
use inferno::differential;
use inferno::flamegraph::color::{BasicPalette, Palette};
use inferno::flamegraph::{self, Options};

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
    }
}
