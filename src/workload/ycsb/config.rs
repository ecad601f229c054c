//! The core workload's configuration, resolved from the properties once:
//! the operation mix, the key space and how keys are chosen, the fields
//! and their lengths, the load's batches.

use super::gen::{KeyChooser, Length, ScrambledZipfian, Zipfian};
use super::props::Props;
use crate::error::Result;
use crate::usage;

/// The operations in YCSB's order (its DiscreteGenerator's bands).
pub const OPS: [&str; 5] = ["READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE"];
pub const READ: usize = 0;
pub const UPDATE: usize = 1;
pub const INSERT: usize = 2;
pub const SCAN: usize = 3;
pub const RMW: usize = 4;

/// The proportion keys of the operations, same order.
pub const MIX_KEYS: [&str; 5] = ["readproportion", "updateproportion", "insertproportion", "scanproportion", "readmodifywriteproportion"];

/// The request distributions YCSB knows.
pub const DISTRIBUTIONS: [&str; 6] = ["uniform", "zipfian", "latest", "hotspot", "exponential", "sequential"];

#[derive(Clone, Debug)]
pub struct Config {
    pub table: String,
    pub fieldcount: usize,
    pub fieldlength: u64,
    pub minfieldlength: u64,
    pub fieldlengthdistribution: String,
    pub readallfields: bool,
    pub writeallfields: bool,
    /// Proportions as given, in [`OPS`] order.
    pub mix: [f64; 5],
    pub requestdistribution: String,
    pub zipfianconstant: f64,
    pub recordcount: u64,
    pub operationcount: u64,
    pub insertstart: u64,
    /// Records this client inserts when loading, and the key range reads
    /// draw from: `insertcount`, else `recordcount - insertstart`.
    pub insertcount: u64,
    pub ordered: bool,
    pub zeropadding: usize,
    pub minscanlength: u64,
    pub maxscanlength: u64,
    pub scanlengthdistribution: String,
    pub hotspotdatafraction: f64,
    pub hotspotopnfraction: f64,
    pub exponential_percentile: f64,
    pub exponential_frac: f64,
    /// Rows per INSERT when loading (`db.batchsize`; 0 or 1: one row each).
    pub batch: usize,
    pub threadcount: usize,
    /// Operations per second over all threads (`target`; 0: no limit).
    pub target: f64,
    pub maxexecutiontime: f64,
    /// op, intended or both: which latencies YCSB's block shows.
    pub measurement_interval: String,
    pub percentiles: Vec<f64>,
    /// YCSB's status line on stderr (`-s`) every `status_interval` seconds.
    pub status: bool,
    pub status_interval: f64,
}

impl Config {
    pub fn new(p: &Props) -> Result<Config> {
        Config::read(p, true)
    }

    /// For `cleanup`, which drops the table: no records nor operations needed
    /// (a workload file's are still read and checked when given).
    pub fn for_cleanup(p: &Props) -> Result<Config> {
        Config::read(p, false)
    }

    fn read(p: &Props, operates: bool) -> Result<Config> {
        let recordcount = p.u64("recordcount")?;
        let insertstart = p.u64("insertstart")?;
        let insertcount = match p.opt_u64("insertcount")? {
            Some(n) => n,
            None => recordcount.checked_sub(insertstart).ok_or_else(|| usage!("insertstart={insertstart} is beyond recordcount={recordcount}: give insertcount, or a smaller insertstart"))?,
        };
        if insertcount == 0 && operates {
            return Err(usage!("recordcount is 0: there are no records to load or read; give a workload file (-P workloads/workloada) or -p recordcount=N"));
        }
        let mut mix = [0.0; 5];
        for (m, k) in mix.iter_mut().zip(MIX_KEYS) {
            *m = p.f64(k)?;
        }
        if mix.iter().sum::<f64>() <= 0.0 && operates {
            return Err(usage!("every operation proportion is 0: give readproportion, updateproportion, insertproportion, scanproportion or readmodifywriteproportion"));
        }
        let fieldcount = p.u64("fieldcount")?;
        if fieldcount == 0 || fieldcount > 1000 {
            return Err(usage!("fieldcount={fieldcount}: use 1 to 1000 fields"));
        }
        let percentiles = p
            .get("hdrhistogram.percentiles")
            .unwrap_or_default()
            .split(',')
            .map(|s| s.trim().parse::<f64>().ok().filter(|v| (0.0..=100.0).contains(v)))
            .collect::<Option<Vec<f64>>>()
            .ok_or_else(|| usage!("hdrhistogram.percentiles={}: use percentiles separated by commas, e.g. 95,99", p.get("hdrhistogram.percentiles").unwrap_or_default()))?;
        let c = Config {
            table: p.get("table").unwrap_or("usertable").to_string(),
            fieldcount: fieldcount as usize,
            fieldlength: p.u64("fieldlength")?,
            minfieldlength: p.u64("minfieldlength")?,
            fieldlengthdistribution: p.choice("fieldlengthdistribution", &["constant", "uniform", "zipfian"])?,
            readallfields: p.bool("readallfields")?,
            writeallfields: p.bool("writeallfields")?,
            mix,
            requestdistribution: p.choice("requestdistribution", &DISTRIBUTIONS)?,
            zipfianconstant: p.f64("zipfianconstant")?,
            recordcount,
            operationcount: p.u64("operationcount")?,
            insertstart,
            insertcount,
            ordered: p.choice("insertorder", &["hashed", "ordered"])? == "ordered",
            zeropadding: p.u64("zeropadding")?.min(64) as usize,
            minscanlength: p.u64("minscanlength")?,
            maxscanlength: p.u64("maxscanlength")?,
            scanlengthdistribution: p.choice("scanlengthdistribution", &["uniform", "zipfian"])?,
            hotspotdatafraction: p.f64("hotspotdatafraction")?,
            hotspotopnfraction: p.f64("hotspotopnfraction")?,
            exponential_percentile: p.f64("exponential.percentile")?,
            exponential_frac: p.f64("exponential.frac")?,
            batch: p.u64("db.batchsize")?.clamp(1, 100_000) as usize,
            threadcount: p.u64("threadcount")?.max(1) as usize,
            target: p.f64("target")?,
            maxexecutiontime: p.f64("maxexecutiontime")?,
            measurement_interval: p.choice("measurement.interval", &["op", "intended", "both"])?,
            percentiles,
            status: p.bool("status")?,
            status_interval: p.f64("status.interval")?.max(0.1),
        };
        if !(0.0..1.0).contains(&c.zipfianconstant) || c.zipfianconstant == 0.0 {
            return Err(usage!("zipfianconstant={}: use a constant above 0 and below 1 (YCSB's is 0.99)", c.zipfianconstant));
        }
        if c.fieldlength == 0 || c.minfieldlength > c.fieldlength {
            return Err(usage!("fieldlength={} minfieldlength={}: use a field length of 1 or more, not below minfieldlength", c.fieldlength, c.minfieldlength));
        }
        if c.minscanlength == 0 || c.minscanlength > c.maxscanlength {
            return Err(usage!("minscanlength={} maxscanlength={}: use scan lengths of 1 or more, the minimum not above the maximum", c.minscanlength, c.maxscanlength));
        }
        if c.requestdistribution == "hotspot" && !((0.0..=1.0).contains(&c.hotspotdatafraction) && (0.0..=1.0).contains(&c.hotspotopnfraction)) {
            return Err(usage!("hotspotdatafraction={} hotspotopnfraction={}: use fractions from 0 to 1", c.hotspotdatafraction, c.hotspotopnfraction));
        }
        Ok(c)
    }

    /// The operation for a uniform draw `u` in [0, 1): YCSB's
    /// DiscreteGenerator over the proportions, normalised.
    pub fn op_for(&self, u: f64) -> usize {
        let sum: f64 = self.mix.iter().sum();
        let mut v = u;
        for (i, w) in self.mix.iter().enumerate() {
            if *w <= 0.0 {
                continue;
            }
            let share = w / sum;
            if v < share {
                return i;
            }
            v -= share;
        }
        self.mix.iter().rposition(|w| *w > 0.0).unwrap_or(READ)
    }

    /// YCSB's key name of key number `n`: `user` and the number (FNV-hashed
    /// unless inserts are ordered), zero-padded to `zeropadding` digits.
    pub fn key_into(&self, n: u64, out: &mut String) {
        let v = if self.ordered { n } else { super::gen::fnvhash64(n as i64) as u64 };
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        let mut x = v;
        loop {
            i -= 1;
            digits[i] = b'0' + (x % 10) as u8;
            x /= 10;
            if x == 0 {
                break;
            }
        }
        out.clear();
        out.push_str("user");
        for _ in (digits.len() - i)..self.zeropadding {
            out.push('0');
        }
        out.extend(digits[i..].iter().map(|&d| char::from(d)));
    }

    /// The chooser of read, update, scan and read-modify-write keys, as
    /// CoreWorkload builds it; `expected_ops` sizes the zipfian's key space
    /// for the inserts the run will make (YCSB's "fudge factor" of 2).
    pub fn key_chooser(&self) -> KeyChooser {
        let (lo, n) = (self.insertstart, self.insertcount.max(1));
        let hi = lo + n - 1;
        match self.requestdistribution.as_str() {
            "zipfian" => {
                let expected_new = (self.operationcount as f64 * self.mix[INSERT] / self.mix.iter().sum::<f64>() * 2.0) as u64;
                KeyChooser::Zipfian(ScrambledZipfian::new(lo, lo + n + expected_new, self.zipfianconstant))
            }
            "latest" => {
                let items = self.recordcount.saturating_sub(1).max(1);
                KeyChooser::Latest(Zipfian::new(0, items - 1, self.zipfianconstant))
            }
            "hotspot" => KeyChooser::hotspot(lo, hi, self.hotspotdatafraction, self.hotspotopnfraction),
            "exponential" => KeyChooser::exponential(self.exponential_percentile, self.recordcount as f64 * self.exponential_frac),
            "sequential" => KeyChooser::Sequential { lo, span: n, counter: Default::default() },
            _ => KeyChooser::Uniform { lo, hi },
        }
    }

    pub fn field_length(&self) -> Length {
        match self.fieldlengthdistribution.as_str() {
            "uniform" => Length::Uniform(self.minfieldlength, self.fieldlength),
            "zipfian" => Length::Zipfian(Zipfian::new(self.minfieldlength, self.fieldlength, super::gen::ZIPFIAN_CONSTANT)),
            _ => Length::Constant(self.fieldlength),
        }
    }

    pub fn scan_length(&self) -> Length {
        match self.scanlengthdistribution.as_str() {
            "zipfian" => Length::Zipfian(Zipfian::new(self.minscanlength, self.maxscanlength, super::gen::ZIPFIAN_CONSTANT)),
            _ => Length::Uniform(self.minscanlength, self.maxscanlength),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(sets: &[&str]) -> Config {
        let mut p = Props::defaults();
        p.set_override("recordcount=1000").unwrap();
        for s in sets {
            p.set_override(s).unwrap();
        }
        Config::new(&p).unwrap()
    }

    #[test]
    fn keys_are_named_as_ycsb_names_them() {
        let mut s = String::new();
        let c = cfg(&["insertorder=ordered", "zeropadding=6"]);
        c.key_into(42, &mut s);
        assert_eq!(s, "user000042");
        let c = cfg(&[]);
        c.key_into(0, &mut s);
        assert_eq!(s, "user6284781860667377211");
    }

    #[test]
    fn the_mix_is_ycsb_discrete_bands() {
        let c = cfg(&["readproportion=0.5", "updateproportion=0", "readmodifywriteproportion=0.5"]);
        assert_eq!(c.op_for(0.0), READ);
        assert_eq!(c.op_for(0.49), READ);
        assert_eq!(c.op_for(0.51), RMW);
        assert_eq!(c.op_for(0.999_999), RMW);
        // Proportions need not add to 1: YCSB normalises them.
        let c = cfg(&["readproportion=3", "updateproportion=1"]);
        assert_eq!(c.op_for(0.74), READ);
        assert_eq!(c.op_for(0.76), UPDATE);
    }

    #[test]
    fn bad_settings_are_refused_in_one_line() {
        let mut p = Props::defaults();
        assert!(Config::new(&p).unwrap_err().to_string().contains("recordcount is 0"));
        // Cleanup drops the table: it needs no records.
        assert_eq!(Config::for_cleanup(&p).unwrap().table, "usertable");
        p.set_override("recordcount=10").unwrap();
        p.set_override("requestdistribution=pareto").unwrap();
        let e = Config::new(&p).unwrap_err().to_string();
        assert!(e.contains("requestdistribution=pareto") && e.contains("zipfian") && !e.contains('\n'), "{e}");
        let mut p = Props::defaults();
        p.set_override("recordcount=10").unwrap();
        p.set_override("readproportion=0").unwrap();
        p.set_override("updateproportion=0").unwrap();
        assert!(Config::new(&p).is_err());
    }
}
