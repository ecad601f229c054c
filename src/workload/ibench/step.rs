//! The steps of the Insert Benchmark as Small Datum's scripts run them, by
//! the names its reports give them.

/// One step of the sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// `l.i0`: the tables (re)created and loaded in key order, no secondary index.
    Load,
    /// `l.x`: a batch of rows, then the three secondary indexes.
    Index,
    /// `l.i1` (50 rows a batch) and `l.i2` (5): inserts, each batch matched
    /// by a delete of as many of the oldest rows, so the tables keep their size.
    Change { batch: u32 },
    /// `qrN` (range queries) and `qpN` (point queries) from the clients while
    /// a writer per client inserts and deletes N rows a second.
    Query { point: bool, rate: u32 },
}

/// The sequence Small Datum runs, in its order.
pub const SEQUENCE: &str = "l.i0,l.x,l.i1,l.i2,qr100,qp100,qr500,qp500,qr1000,qp1000";

/// Rows per batch of l.i0 and l.x, and of the query steps' writers.
pub const LOAD_BATCH: u32 = 100;
pub const WRITER_BATCH: u32 = 50;

impl Step {
    pub fn parse(s: &str) -> Result<Step, String> {
        let s = s.trim();
        Ok(match s {
            "l.i0" => Step::Load,
            "l.x" => Step::Index,
            "l.i1" => Step::Change { batch: 50 },
            "l.i2" => Step::Change { batch: 5 },
            _ => {
                let (point, rate) = match (s.strip_prefix("qr"), s.strip_prefix("qp")) {
                    (Some(r), _) => (false, r),
                    (_, Some(r)) => (true, r),
                    _ => return Err(format!("'{s}' is not a step: use l.i0, l.x, l.i1, l.i2, qrN or qpN (N rows a second per writer, e.g. qr100)")),
                };
                match rate.parse::<u32>() {
                    Ok(rate) if rate > 0 => Step::Query { point, rate },
                    _ => return Err(format!("'{s}': the writer's rate after qr/qp is a whole number of rows a second above 0 (e.g. qr100)")),
                }
            }
        })
    }

    pub fn name(&self) -> String {
        match self {
            Step::Load => "l.i0".into(),
            Step::Index => "l.x".into(),
            Step::Change { batch: 5 } => "l.i2".into(),
            Step::Change { .. } => "l.i1".into(),
            Step::Query { point, rate } => format!("{}{rate}", if *point { "qp" } else { "qr" }),
        }
    }

    /// Rows per insert (and per delete) of the step's writes.
    pub fn batch(&self) -> u32 {
        match self {
            Step::Load | Step::Index => LOAD_BATCH,
            Step::Change { batch } => *batch,
            Step::Query { .. } => WRITER_BATCH,
        }
    }
}

/// A `--steps` list: the names in order, each at most once.
pub fn parse_list(s: &str) -> Result<Vec<Step>, String> {
    let mut out: Vec<Step> = Vec::new();
    for part in s.split(',').filter(|p| !p.trim().is_empty()) {
        let step = Step::parse(part)?;
        if out.contains(&step) {
            return Err(format!("step {} is listed twice: each step runs once in a sequence", step.name()));
        }
        out.push(step);
    }
    if out.is_empty() {
        return Err(format!("no step given: name some of {SEQUENCE}"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sequence_reads_back_with_its_names() {
        let steps = parse_list(SEQUENCE).unwrap();
        assert_eq!(steps.len(), 10);
        assert_eq!(steps.iter().map(Step::name).collect::<Vec<_>>().join(","), SEQUENCE);
        assert_eq!(steps[3].batch(), 5);
        assert_eq!(Step::parse("qp1000").unwrap(), Step::Query { point: true, rate: 1000 });
        assert!(Step::parse("qx10").unwrap_err().contains("not a step"));
        assert!(Step::parse("qr0").is_err());
        assert!(parse_list("l.i1,l.i1").unwrap_err().contains("twice"));
    }
}
