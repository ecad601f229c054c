//! Column values from templates, as sysbench's `sysbench.rand.string()`, and
//! BMK-kit's partly fixed variant that makes the data compressible.

use super::Rng;

/// sysbench's `c` value: 10 groups of 11 '#' joined by '-' (119 bytes).
pub const C_TEMPLATE: &str = concat!("###########-###########-###########-###########-###########-", "###########-###########-###########-###########-###########");

/// sysbench's `pad` value: 5 groups of 11 '#' joined by '-' (59 bytes).
pub const PAD_TEMPLATE: &str = "###########-###########-###########-###########-###########";

/// What BMK-kit writes in place of each group of '#'.
const FIXED_GROUP: &[u8; 11] = b"1234567890X";

/// Append the template to `out`: '#' -> random digit, '@' -> random letter
/// a-z, any other byte copied. One uniform draw per placeholder, exactly as
/// sysbench's `sb_rand_str`, so a seeded run produces sysbench's strings.
#[inline]
pub fn fill_template(rng: &mut Rng, template: &[u8], out: &mut Vec<u8>) {
    // Work on a local copy: the compiler cannot rule out that bytes written
    // to `out` alias `*rng`, and would store the state after every byte.
    let mut r = rng.clone();
    out.extend(template.iter().map(|&c| match c {
        b'#' => r.uniform(u64::from(b'0'), u64::from(b'9')) as u8,
        b'@' => r.uniform(u64::from(b'a'), u64::from(b'z')) as u8,
        _ => c,
    }));
    *rng = r;
}

/// BMK-kit's `--rand-data=PCT`: only the first `PCT`% of the template (by
/// length, rounded down) is random; the remainder is the *start* of the
/// template with every run of placeholders spelled "1234567890X..". For the
/// sysbench templates that is the beginning of
/// "1234567890X-1234567890X-..", exactly what BMK-kit's oltp_common.lua
/// appends, so the fixed part restarts its pattern at the split point instead
/// of continuing the template's own grouping. `pct` above 100 counts as 100,
/// which is identical to [`fill_template`].
#[inline]
pub fn fill_template_rnd_data(rng: &mut Rng, template: &[u8], pct: u8, out: &mut Vec<u8>) {
    fill_partly(fill_template, rng, template, pct, out)
}

/// [`fill_template_rnd_data`] with the random part written by `fill`.
#[inline]
fn fill_partly(fill: impl Fn(&mut Rng, &[u8], &mut Vec<u8>), rng: &mut Rng, template: &[u8], pct: u8, out: &mut Vec<u8>) {
    let random_len = random_len(template, pct);
    fill(rng, &template[..random_len], out);
    let mut run = 0;
    out.extend(template[..template.len() - random_len].iter().map(|&c| {
        if c == b'#' || c == b'@' {
            let v = FIXED_GROUP[run % FIXED_GROUP.len()];
            run += 1;
            v
        } else {
            run = 0;
            c
        }
    }));
}

/// How many leading bytes of `template` are random under `--rand-data=pct`.
fn random_len(template: &[u8], pct: u8) -> usize {
    template.len() * usize::from(pct.min(100)) / 100
}

/// A template compiled once for loading tables: the same shape and
/// distribution as [`fill_template`] (every '#' a uniform digit, every '@'
/// a uniform letter) at a fraction of the cost. The text is kept with its
/// fixed part already written (BMK-kit's `--rand-data`), and filling a row
/// is one copy plus one 64-bit draw per run of up to 19 '#' (the draw
/// scaled to [0, 10^run) and written two digits at a time) instead of one
/// draw and one float conversion per byte, with no scan of the template.
/// Prepare needs sysbench's data shape, not its byte stream (its rows are
/// seeded per chunk, not per sysbench thread), and generating row text was
/// most of the client's CPU while loading.
pub struct BulkTemplate {
    text: Vec<u8>,
    /// (start, end, digits?) of each run to draw; '@' runs are one byte.
    runs: Vec<(usize, usize, bool)>,
}

impl BulkTemplate {
    /// `template` with its first `pct`% random, as [`fill_template_rnd_data`].
    pub fn new(template: &[u8], pct: u8) -> Self {
        let mut text = Vec::with_capacity(template.len());
        fill_partly(|_, random, out| out.extend_from_slice(random), &mut Rng::from_seed(0, 0), template, pct, &mut text);
        let random_len = random_len(template, pct);
        let mut runs = Vec::new();
        let mut i = 0;
        while i < random_len {
            match text[i] {
                b'#' => {
                    let mut j = i + 1;
                    while j < random_len && text[j] == b'#' && j - i < 19 {
                        j += 1;
                    }
                    runs.push((i, j, true));
                    i = j;
                }
                b'@' => {
                    runs.push((i, i + 1, false));
                    i += 1;
                }
                _ => i += 1,
            }
        }
        BulkTemplate { text, runs }
    }

    /// Append one value to `out`.
    #[inline]
    pub fn fill(&self, rng: &mut Rng, out: &mut Vec<u8>) {
        let start = out.len();
        out.extend_from_slice(&self.text);
        let buf = &mut out[start..];
        for &(i, j, digits) in &self.runs {
            if digits {
                write_digits(&mut buf[i..j], rng.next_u64());
            } else {
                buf[i] = b'a' + ((u128::from(rng.next_u64()) * 26) >> 64) as u8;
            }
        }
    }
}

/// `dst.len()` (at most 19) decimal digits of `x` scaled to [0, 10^len).
#[inline]
fn write_digits(dst: &mut [u8], x: u64) {
    const PAIRS: &[u8; 200] = b"00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899";
    const POW10: [u64; 20] = {
        let mut t = [1u64; 20];
        let mut i = 1;
        while i < 20 {
            t[i] = t[i - 1] * 10;
            i += 1;
        }
        t
    };
    let mut v = ((u128::from(x) * u128::from(POW10[dst.len()])) >> 64) as u64;
    let mut end = dst.len();
    while end >= 2 {
        let p = (v % 100) as usize * 2;
        v /= 100;
        dst[end - 2..end].copy_from_slice(&PAIRS[p..p + 2]);
        end -= 2;
    }
    if end == 1 {
        dst[0] = b'0' + v as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXED_C: &str = concat!("1234567890X-1234567890X-1234567890X-1234567890X-1234567890X-", "1234567890X-1234567890X-1234567890X-1234567890X-1234567890X");

    fn is_group_layout(s: &[u8], groups: usize, is_body: impl Fn(u8) -> bool) -> bool {
        s.len() == groups * 12 - 1 && s.iter().enumerate().all(|(i, &c)| if i % 12 == 11 { c == b'-' } else { is_body(c) })
    }

    #[test]
    fn templates_layout() {
        assert!(is_group_layout(C_TEMPLATE.as_bytes(), 10, |c| c == b'#'));
        assert!(is_group_layout(PAD_TEMPLATE.as_bytes(), 5, |c| c == b'#'));
        assert_eq!((C_TEMPLATE.len(), PAD_TEMPLATE.len()), (119, 59));
    }

    #[test]
    fn fill_classes_and_appends() {
        let mut r = Rng::from_seed(31, 0);
        let mut out = b"x".to_vec();
        fill_template(&mut r, C_TEMPLATE.as_bytes(), &mut out);
        assert_eq!(out[0], b'x');
        assert!(is_group_layout(&out[1..], 10, |c| c.is_ascii_digit()));
        out.clear();
        fill_template(&mut r, b"@@@@-#-ab", &mut out);
        assert!(out[..4].iter().all(u8::is_ascii_lowercase));
        assert_eq!(&out[4..5], b"-");
        assert!(out[5].is_ascii_digit());
        assert_eq!(&out[6..], b"-ab");
    }

    #[test]
    fn every_digit_and_letter_appears_evenly() {
        let mut r = Rng::from_seed(32, 0);
        let mut out = Vec::new();
        for _ in 0..2000 {
            fill_template(&mut r, b"##########@@@@@@@@@@@@@", &mut out);
        }
        let count = |c: u8| out.iter().filter(|&&x| x == c).count() as f64;
        for c in b'0'..=b'9' {
            assert!((count(c) / 2000.0 - 1.0).abs() < 0.1, "digit {}", c as char);
        }
        for c in b'a'..=b'z' {
            assert!((count(c) / (2000.0 * 13.0 / 26.0) - 1.0).abs() < 0.15, "letter {}", c as char);
        }
    }

    #[test]
    fn matches_sysbench_digit_formula() {
        let mut r = Rng::from_seed(1, 0);
        let mut c = r.clone();
        let mut out = Vec::new();
        fill_template(&mut r, PAD_TEMPLATE.as_bytes(), &mut out);
        for (i, &b) in out.iter().enumerate() {
            if i % 12 != 11 {
                assert_eq!(b, (48.0 + c.uniform_double() * 10.0) as u8);
            }
        }
    }

    #[test]
    fn rnd_data_zero_is_fixed_and_draws_nothing() {
        let mut r = Rng::from_seed(33, 0);
        let before = r.clone().next_u64();
        let mut out = Vec::new();
        fill_template_rnd_data(&mut r, C_TEMPLATE.as_bytes(), 0, &mut out);
        assert_eq!(out, FIXED_C.as_bytes());
        out.clear();
        fill_template_rnd_data(&mut r, PAD_TEMPLATE.as_bytes(), 0, &mut out);
        assert_eq!(out, &FIXED_C.as_bytes()[..59]);
        assert_eq!(r.next_u64(), before);
    }

    #[test]
    fn rnd_data_half() {
        let mut r = Rng::from_seed(34, 0);
        let mut outs = Vec::new();
        for _ in 0..50 {
            let mut out = Vec::new();
            fill_template_rnd_data(&mut r, C_TEMPLATE.as_bytes(), 50, &mut out);
            assert_eq!(out.len(), 119);
            // floor(50 * 119 / 100) = 59 random bytes, then the fixed pattern from its start.
            assert!(is_group_layout(&out[..59], 5, |c| c.is_ascii_digit()));
            assert_eq!(&out[59..], &FIXED_C.as_bytes()[..60]);
            outs.push(out);
        }
        // Positions that change between rows: 55 of the 110 digits.
        let varying = (0..119).filter(|&i| outs.iter().any(|o| o[i] != outs[0][i])).count();
        assert_eq!(varying, 55);
    }

    #[test]
    fn rnd_data_full_equals_fill_template() {
        let mut r1 = Rng::from_seed(35, 0);
        let mut r2 = r1.clone();
        for pct in [100u8, 200] {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            fill_template_rnd_data(&mut r1, C_TEMPLATE.as_bytes(), pct, &mut a);
            fill_template(&mut r2, C_TEMPLATE.as_bytes(), &mut b);
            assert_eq!(a, b);
        }
    }

    #[test]
    fn bulk_fill_has_the_template_shape_and_uniform_digits() {
        let mut r = Rng::from_seed(7, 0);
        let c = BulkTemplate::new(C_TEMPLATE.as_bytes(), 100);
        let mut counts = [0u32; 10];
        let mut first = [0u32; 10];
        for _ in 0..20_000 {
            let mut out = Vec::new();
            c.fill(&mut r, &mut out);
            assert!(is_group_layout(&out, 10, |b| b.is_ascii_digit()), "{}", String::from_utf8_lossy(&out));
            for &b in out.iter().filter(|b| b.is_ascii_digit()) {
                counts[(b - b'0') as usize] += 1;
            }
            first[(out[0] - b'0') as usize] += 1;
        }
        // 2.2M digits: each within 1% of a tenth; the leading digit within 10%.
        let total: u32 = counts.iter().sum();
        for (d, &c) in counts.iter().enumerate() {
            let share = f64::from(c) / f64::from(total);
            assert!((share - 0.1).abs() < 0.001, "digit {d}: {share}");
        }
        for (d, &c) in first.iter().enumerate() {
            assert!((f64::from(c) / 20_000.0 - 0.1).abs() < 0.01, "leading digit {d}: {c}");
        }
        let mut out = Vec::new();
        BulkTemplate::new(b"@@@@-x#", 100).fill(&mut r, &mut out);
        assert!(out[..4].iter().all(|b| b.is_ascii_lowercase()) && &out[4..6] == b"-x" && out[6].is_ascii_digit(), "{out:?}");
    }

    #[test]
    fn bulk_template_keeps_the_fixed_part_of_rand_data() {
        let mut r = Rng::from_seed(8, 0);
        let half = BulkTemplate::new(C_TEMPLATE.as_bytes(), 50);
        let mut outs = Vec::new();
        for _ in 0..50 {
            let mut out = Vec::new();
            half.fill(&mut r, &mut out);
            assert!(is_group_layout(&out[..59], 5, |c| c.is_ascii_digit()));
            assert_eq!(&out[59..], &FIXED_C.as_bytes()[..60]);
            outs.push(out);
        }
        let varying = (0..119).filter(|&i| outs.iter().any(|o| o[i] != outs[0][i])).count();
        assert_eq!(varying, 55);
        let before = r.clone().next_u64();
        let mut out = Vec::new();
        BulkTemplate::new(PAD_TEMPLATE.as_bytes(), 0).fill(&mut r, &mut out);
        assert_eq!((out.as_slice(), r.next_u64()), (&FIXED_C.as_bytes()[..59], before));
    }
}
