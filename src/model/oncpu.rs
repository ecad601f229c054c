//! A server's on-CPU profile as stored with a level (`--profile-server`):
//! perf's stacks folded, "frame;frame;frame samples" a line; what the text
//! summary and the report read of it.

use std::collections::HashMap;

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
pub fn stack_count(line: &str) -> Option<(&str, f64)> {
    let (stack, count) = line.trim().rsplit_once(' ')?;
    let count = count.parse::<f64>().ok().filter(|c| c.is_finite() && *c >= 0.0)?;
    let stack = stack.trim_end();
    (!stack.is_empty()).then_some((stack, count))
}

pub fn samples(folded: &str) -> f64 {
    folded.lines().filter_map(stack_count).map(|(_, count)| count).sum()
}

/// One line: the leaf frames that took the most samples, with their shares.
pub fn line(folded: &str, n: usize) -> String {
    top(folded, n).iter().map(|(f, s)| format!("{f} {:.0}%", s * 100.0)).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(top("", 3).is_empty());
        assert_eq!(line(folded, 2), "hot 75%, warm 20%");
    }
}
