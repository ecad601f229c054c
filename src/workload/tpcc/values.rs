//! TPC-C's option values: each parser checks one value where clap reads it
//! (see `crate::values` for the shared ones and the message style).

use crate::values::{choice, exact, finite, whole};

/// TPC-C warehouses per dataset: w_id is a SMALLINT.
pub fn warehouses(s: &str) -> Result<u32, String> {
    whole(s, 1, 32_767)
}

/// TPC-C spec mode's factor on keying and think times.
pub fn time_scale(s: &str) -> Result<f64, String> {
    finite(s).filter(|v| *v > 0.0 && *v <= 100.0).ok_or_else(|| "use a number above 0 and at most 100 (e.g. 0.01 for a short test)".to_string())
}

pub fn fk(s: &str) -> Result<String, String> {
    choice(s, &["fk", "on", "1", "nofk", "off", "0", "nofk2", "2"], "use fk, nofk or nofk2 (BMK-kit's --use-fk: 1 foreign keys, 0 none but their indexes, 2 neither)")
}

pub fn isolation(s: &str) -> Result<String, String> {
    let levels = ["", "RR", "REPEATABLE-READ", "REPEATABLE READ", "RC", "READ-COMMITTED", "READ COMMITTED", "SER", "SERIALIZABLE"];
    choice(s, &levels, "use RR, RC or SER")
}

pub fn terminals(s: &str) -> Result<String, String> {
    exact(s, &["stress", "spec"], "use stress or spec")
}

pub fn tpcc_format(s: &str) -> Result<super::options::Console, String> {
    crate::values::variant(s, false)
}

/// TPC-C transaction names, `_` or `-` between words.
/// `--trx-debug`: a transaction's name, or BMK-kit's number for it (1 to
/// 5 in the order below; 0 runs the mix), read as the name.
pub fn trx_debug(s: &str) -> Result<String, String> {
    let kinds = ["new_order", "payment", "order_status", "delivery", "stock_level"];
    if let Ok(n) = s.trim().parse::<usize>() {
        return match n {
            0 => Ok(String::new()),
            1..=5 => Ok(kinds[n - 1].to_string()),
            _ => Err("use 0 (the mix) or 1 to 5 (new_order, payment, order_status, delivery, stock_level), or a transaction's name".into()),
        };
    }
    if s.is_empty() || kinds.contains(&s.replace('-', "_").as_str()) {
        Ok(s.to_string())
    } else {
        Err(format!("use one of {}", kinds.join(", ")))
    }
}

/// TPC-C mix: five whole percentages that sum to 100.
pub fn tpcc_mix(s: &str) -> Result<String, String> {
    let v: Option<Vec<u32>> = s.split(',').map(|x| x.trim().parse::<u32>().ok().filter(|p| *p <= 100)).collect();
    match v {
        Some(v) if v.len() == 5 && v.iter().sum::<u32>() == 100 => Ok(s.to_string()),
        _ => Err("give five whole percentages (New-Order,Payment,Order-Status,Delivery,Stock-Level) that sum to 100, e.g. 45,43,4,4,4".into()),
    }
}

/// `--tpcc-shape`: per-item, go-tpc or procedures.
pub fn tpcc_shape(s: &str) -> Result<super::shape::Shape, String> {
    crate::values::variant(s, false)
}
