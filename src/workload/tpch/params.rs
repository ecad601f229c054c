//! The queries' substitution parameters (TPC-H clause 2.4, each query's
//! "Substitution Parameters" and "Query Validation"): drawn from a seeded
//! generator per stream the way qgen draws them, or the spec's validation
//! values. Dates come out as literals, their arithmetic done here, so every
//! engine reads the same text whatever its interval syntax.

use crate::rand::Rng;
use tpchgen::distribution::{Distribution, Distributions};

/// One query's values, in the order its text takes them.
pub type Values = Vec<String>;

fn dists() -> &'static Distributions {
    Distributions::static_default()
}

/// Days since 1970-01-01 of a civil date (H. Hinnant's algorithm).
pub fn days(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn date(y: i64, m: i64, d: i64) -> String {
    crate::db::date_text(days(y, m, d))
}

/// The first of the month `months` after (y, m).
fn month_after(y: i64, m: i64, months: i64) -> String {
    let k = y * 12 + (m - 1) + months;
    date(k.div_euclid(12), k.rem_euclid(12) + 1, 1)
}

fn pick<'a>(rng: &mut Rng, d: &'a Distribution) -> &'a str {
    d.get_value(rng.uniform(0, d.size() as u64 - 1) as usize)
}

fn int(rng: &mut Rng, lo: u64, hi: u64) -> u64 {
    rng.uniform(lo, hi)
}

/// A nation's name and its region's.
fn nation(rng: &mut Rng) -> (String, String) {
    let n = dists().nations();
    let k = rng.uniform(0, n.size() as u64 - 1) as usize;
    (n.get_value(k).to_string(), dists().regions().get_value(n.get_weight(k) as usize).to_string())
}

/// The words at `at` of the part types ("STANDARD ANODIZED TIN"), once each.
fn type_words(at: std::ops::Range<usize>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in dists().part_types().get_values() {
        let w: Vec<&str> = t.split(' ').collect();
        let s = w[at.clone()].join(" ");
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

fn brand(rng: &mut Rng) -> String {
    format!("Brand#{}{}", int(rng, 1, 5), int(rng, 1, 5))
}

/// `n` distinct values from lo..=hi.
fn distinct(rng: &mut Rng, n: usize, lo: u64, hi: u64) -> Vec<u64> {
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let v = int(rng, lo, hi);
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// Query `q`'s values drawn from `rng`, at scale factor `sf`.
pub fn random(q: u8, rng: &mut Rng, sf: f64) -> Values {
    let s = |v: &str| v.to_string();
    match q {
        1 => vec![crate::db::date_text(days(1998, 12, 1) - int(rng, 60, 120) as i64)],
        2 => {
            let t3 = type_words(2..3);
            let size = int(rng, 1, 50).to_string();
            let ty = t3[int(rng, 0, t3.len() as u64 - 1) as usize].clone();
            vec![size, ty, s(pick(rng, dists().regions()))]
        }
        3 => {
            let seg = s(pick(rng, dists().market_segments()));
            vec![seg, date(1995, 3, int(rng, 1, 31) as i64)]
        }
        4 | 15 => {
            let k = int(rng, 0, 57) as i64;
            vec![month_after(1993, 1, k), month_after(1993, 1, k + 3)]
        }
        5 => {
            let r = s(pick(rng, dists().regions()));
            let y = int(rng, 1993, 1997) as i64;
            vec![r, date(y, 1, 1), date(y + 1, 1, 1)]
        }
        6 => {
            let y = int(rng, 1993, 1997) as i64;
            let disc = int(rng, 2, 9) as i64;
            let qty = int(rng, 24, 25);
            vec![date(y, 1, 1), date(y + 1, 1, 1), format!("0.{:02}", disc - 1), format!("0.{:02}", disc + 1), qty.to_string()]
        }
        7 => {
            let (a, _) = nation(rng);
            let b = loop {
                let (b, _) = nation(rng);
                if b != a {
                    break b;
                }
            };
            vec![a, b]
        }
        8 => {
            let (n, r) = nation(rng);
            vec![n, r, s(pick(rng, dists().part_types()))]
        }
        9 => vec![s(pick(rng, dists().part_colors()))],
        10 => {
            let k = int(rng, 0, 23) as i64;
            vec![month_after(1993, 2, k), month_after(1993, 2, k + 3)]
        }
        11 => vec![nation(rng).0, fraction(sf)],
        12 => {
            let modes = dists().ship_modes();
            let a = s(pick(rng, modes));
            let b = loop {
                let b = s(pick(rng, modes));
                if b != a {
                    break b;
                }
            };
            let y = int(rng, 1993, 1997) as i64;
            vec![a, b, date(y, 1, 1), date(y + 1, 1, 1)]
        }
        13 => {
            const W1: [&str; 4] = ["special", "pending", "unusual", "express"];
            const W2: [&str; 4] = ["packages", "requests", "accounts", "deposits"];
            vec![s(W1[int(rng, 0, 3) as usize]), s(W2[int(rng, 0, 3) as usize])]
        }
        14 => {
            let k = int(rng, 0, 59) as i64;
            vec![month_after(1993, 1, k), month_after(1993, 1, k + 1)]
        }
        16 => {
            let t2 = type_words(0..2);
            let mut v = vec![brand(rng), t2[int(rng, 0, t2.len() as u64 - 1) as usize].clone()];
            v.extend(distinct(rng, 8, 1, 50).into_iter().map(|n| n.to_string()));
            v
        }
        17 => vec![brand(rng), s(pick(rng, dists().part_containers()))],
        18 => vec![int(rng, 312, 315).to_string()],
        19 => vec![int(rng, 1, 10).to_string(), int(rng, 10, 20).to_string(), int(rng, 20, 30).to_string(), brand(rng), brand(rng), brand(rng)],
        20 => {
            let color = s(pick(rng, dists().part_colors()));
            let y = int(rng, 1993, 1997) as i64;
            vec![color, date(y, 1, 1), date(y + 1, 1, 1), nation(rng).0]
        }
        21 => vec![nation(rng).0],
        22 => distinct(rng, 7, 10, 34).into_iter().map(|n| n.to_string()).collect(),
        _ => Vec::new(),
    }
}

/// Q11's FRACTION: 0.0001 / SF.
fn fraction(sf: f64) -> String {
    format!("{:.10}", 0.0001 / sf)
}

/// The spec's validation values of query `q` (each query's clause
/// 2.4.N.4), FRACTION scaled as the spec scales it.
pub fn validation(q: u8, sf: f64) -> Values {
    let v = |xs: &[&str]| xs.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    match q {
        1 => v(&["1998-09-02"]),
        2 => v(&["15", "BRASS", "EUROPE"]),
        3 => v(&["BUILDING", "1995-03-15"]),
        4 => v(&["1993-07-01", "1993-10-01"]),
        5 => v(&["ASIA", "1994-01-01", "1995-01-01"]),
        6 => v(&["1994-01-01", "1995-01-01", "0.05", "0.07", "24"]),
        7 => v(&["FRANCE", "GERMANY"]),
        8 => v(&["BRAZIL", "AMERICA", "ECONOMY ANODIZED STEEL"]),
        9 => v(&["green"]),
        10 => v(&["1993-10-01", "1994-01-01"]),
        11 => vec!["GERMANY".to_string(), fraction(sf)],
        12 => v(&["MAIL", "SHIP", "1994-01-01", "1995-01-01"]),
        13 => v(&["special", "requests"]),
        14 => v(&["1995-09-01", "1995-10-01"]),
        15 => v(&["1996-01-01", "1996-04-01"]),
        16 => v(&["Brand#45", "MEDIUM POLISHED", "49", "14", "23", "45", "19", "3", "36", "9"]),
        17 => v(&["Brand#23", "MED BOX"]),
        18 => v(&["300"]),
        19 => v(&["1", "10", "20", "Brand#12", "Brand#23", "Brand#34"]),
        20 => v(&["forest", "1994-01-01", "1995-01-01", "CANADA"]),
        21 => v(&["SAUDI ARABIA"]),
        22 => v(&["13", "31", "23", "29", "30", "18", "17"]),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_months_are_the_calendars() {
        assert_eq!(crate::db::date_text(days(1998, 12, 1) - 90), "1998-09-02");
        assert_eq!(month_after(1993, 1, 57), "1997-10-01");
        assert_eq!(month_after(1993, 2, 23 + 3), "1995-04-01");
        assert_eq!(month_after(1995, 12, 1), "1996-01-01");
    }

    #[test]
    fn random_values_stay_in_the_specs_domains() {
        let mut rng = Rng::from_seed(7, 1);
        for _ in 0..200 {
            let q1 = random(1, &mut rng, 1.0);
            assert!(q1[0].as_str() >= "1998-08-03" && q1[0].as_str() <= "1998-10-02", "{q1:?}");
            let q2 = random(2, &mut rng, 1.0);
            assert!(["TIN", "NICKEL", "BRASS", "STEEL", "COPPER"].contains(&q2[1].as_str()), "{q2:?}");
            let q7 = random(7, &mut rng, 1.0);
            assert_ne!(q7[0], q7[1]);
            let q8 = random(8, &mut rng, 1.0);
            assert_eq!(q8[2].split(' ').count(), 3, "{q8:?}");
            let q16 = random(16, &mut rng, 1.0);
            assert_eq!(q16.len(), 10);
            assert_eq!(q16[1].split(' ').count(), 2);
            let q22 = random(22, &mut rng, 1.0);
            assert!(q22.iter().all(|c| (10..=34).contains(&c.parse::<u32>().unwrap())));
        }
        // A nation's region is the one the spec gives it.
        let mut found = false;
        for _ in 0..500 {
            let q8 = random(8, &mut rng, 1.0);
            if q8[0] == "BRAZIL" {
                assert_eq!(q8[1], "AMERICA");
                found = true;
            }
        }
        assert!(found);
        assert_eq!(validation(11, 10.0)[1], "0.0000100000");
    }
}
