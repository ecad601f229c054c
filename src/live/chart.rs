//! Line charts as SVG, built by hand so a report needs nothing at view time:
//! no script library, no fonts beyond the reader's, no network.
//!
//! Every style is an attribute, not a stylesheet class, so a chart written
//! alone (`report --charts DIR`) looks as it does inside the page. Classes
//! and `data-` attributes only name things: the page's hover script and the
//! tests read them (`svg.chart[data-chart]`, `g.series[data-name]`,
//! `polyline[data-n]`).

use std::fmt::Write;

/// How the x axis maps values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scale {
    Linear,
    /// Thread counts: 1, 2, 4 ... evenly spaced.
    Log2,
    /// Percentiles on the "nines" axis: x is -log10(1 - p), so 90%, 99%,
    /// 99.9% are evenly spaced (HdrHistogram's percentile plots).
    Nines,
}

#[derive(Clone, Debug)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    /// Drawn dashed (a second metric of the same run, e.g. p99 beside p95).
    pub dashed: bool,
    /// (x, low, high) of points that have a 95% interval (a series'
    /// repetitions), drawn as error bars.
    pub errors: Vec<(f64, f64, f64)>,
}

/// A shaded span of x: warmup, a stall, or the level's longest gap without a completed event.
#[derive(Clone, Debug)]
pub struct Band {
    pub from: f64,
    pub to: f64,
    pub kind: BandKind,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BandKind {
    Warmup,
    Stall,
    Gap,
}

impl BandKind {
    fn name(self) -> &'static str {
        match self {
            BandKind::Warmup => "warmup",
            BandKind::Stall => "stall",
            BandKind::Gap => "gap",
        }
    }
    fn fill(self) -> &'static str {
        match self {
            BandKind::Warmup => "#9aa3ad",
            BandKind::Stall => "#e0483e",
            BandKind::Gap => "#7b3fc4",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Chart {
    /// File name for `--charts` and the `data-chart` attribute.
    pub id: String,
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub x_scale: Scale,
    pub series: Vec<Series>,
    pub bands: Vec<Band>,
    /// Dots on every point (few points: the scaling curve).
    pub markers: bool,
    /// Names of the x values 0, 1, 2 ... (versions side by side): the axis
    /// shows them instead of numbers.
    pub x_names: Vec<String>,
}

/// Colours told apart by readers with the common forms of colour blindness.
pub const PALETTE: [&str; 8] = ["#4269d0", "#ef8a18", "#3ca951", "#e0483e", "#a463f2", "#6cc5b0", "#ff8ab7", "#9c6b4e"];

/// Width of every chart, and of the bar charts (bars.rs).
pub(super) const W: f64 = 760.0;
const H: f64 = 300.0;
const LEFT: f64 = 66.0;
const RIGHT: f64 = 30.0;
/// Room above the plot for the title and one row of legend.
pub(super) const TOP: f64 = 46.0;
const LEGEND_ROW: f64 = 17.0;
const BOTTOM: f64 = 46.0;
pub(super) const FONT: &str = "system-ui, -apple-system, 'Segoe UI', 'DejaVu Sans', sans-serif";

/// Text for HTML and SVG alike: everything a server or a user wrote goes
/// through here, so a value like `<script>` shows as text.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// A number for axis labels and hover values: short, no needless zeros.
pub fn num(v: f64) -> String {
    let a = v.abs();
    if a < 1e-9 {
        return "0".into();
    }
    if a >= 1e6 {
        format!("{:.2}M", v / 1e6).replace(".00M", "M")
    } else if a >= 1e4 {
        format!("{:.1}k", v / 1e3).replace(".0k", "k")
    } else if a >= 100.0 || v == v.trunc() {
        format!("{v:.0}")
    } else if a >= 1.0 {
        format!("{v:.2}").trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        format!("{v:.3}").trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// A percentile (as the nines axis's x) for labels: 90%, 99.9%.
pub fn nines_label(x: f64) -> String {
    let p = 100.0 * (1.0 - 10f64.powf(-x));
    let digits = (x.round() as usize).saturating_sub(2);
    let s = format!("{p:.digits$}");
    format!("{s}%")
}

fn nice_step(range: f64, ticks: f64) -> f64 {
    let raw = (range / ticks).max(1e-12);
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    let m = if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 2.5 {
        2.5
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    };
    m * mag
}

struct Axis {
    lo: f64,
    hi: f64,
    ticks: Vec<(f64, String)>,
    scale: Scale,
}

impl Axis {
    fn map(&self, v: f64) -> f64 {
        let f = |v: f64| match self.scale {
            Scale::Log2 => v.max(1e-9).log2(),
            _ => v,
        };
        let (lo, hi) = (f(self.lo), f(self.hi));
        if hi - lo <= 0.0 {
            0.5
        } else {
            (f(v) - lo) / (hi - lo)
        }
    }

    /// A y axis starts at zero and ends on a tick; an x axis (`from_zero`
    /// false) spans the data exactly, so a time series fills the plot.
    fn linear(lo: f64, hi: f64, from_zero: bool) -> Axis {
        let lo = if from_zero { lo.min(0.0) } else { lo };
        let hi = if hi <= lo { lo + 1.0 } else { hi };
        let step = nice_step(hi - lo, if from_zero { 5.0 } else { 8.0 });
        let (lo, hi) = if from_zero { ((lo / step).floor() * step, (hi / step).ceil() * step) } else { (lo, hi) };
        let mut ticks = Vec::new();
        let mut v = (lo / step - 1e-9).ceil() * step;
        while v <= hi + step * 1e-6 {
            ticks.push((v, num(v)));
            v += step;
        }
        Axis { lo, hi, ticks, scale: Scale::Linear }
    }

    /// One tick per name at 0, 1, 2 ..., with half a step of room at each end.
    fn named(names: &[String]) -> Axis {
        let ticks = names.iter().enumerate().map(|(i, n)| (i as f64, n.clone())).collect();
        Axis { lo: -0.5, hi: names.len() as f64 - 0.5, ticks, scale: Scale::Linear }
    }

    fn log2(xs: &[f64]) -> Axis {
        let lo = xs.iter().cloned().fold(f64::INFINITY, f64::min).max(1.0);
        let hi = xs.iter().cloned().fold(0.0, f64::max).max(lo * 2.0);
        let mut distinct: Vec<f64> = xs.to_vec();
        distinct.sort_by(|a, b| a.total_cmp(b));
        distinct.dedup();
        let ticks = if distinct.len() <= 12 {
            distinct.iter().map(|v| (*v, num(*v))).collect()
        } else {
            let mut t = Vec::new();
            let mut p = 1.0;
            while p <= hi {
                if p >= lo {
                    t.push((p, num(p)));
                }
                p *= 2.0;
            }
            t
        };
        Axis { lo, hi, ticks, scale: Scale::Log2 }
    }

    fn nines(hi: f64) -> Axis {
        let hi = hi.ceil().max(1.0);
        let ticks = (0..=hi as usize).map(|k| (k as f64, nines_label(k as f64))).collect();
        Axis { lo: 0.0, hi, ticks, scale: Scale::Nines }
    }
}

/// Where each legend entry goes: (x, row), rows wrapping at the chart's width.
fn legend_layout(series: &[Series]) -> Vec<(f64, usize)> {
    let mut out = Vec::new();
    let (mut x, mut row) = (LEFT, 0);
    for s in series {
        let width = 6.6 * s.name.chars().count() as f64 + 34.0;
        if x + width > W - RIGHT && x > LEFT {
            x = LEFT;
            row += 1;
        }
        out.push((x, row));
        x += width;
    }
    out
}

impl Chart {
    /// Each series' colour: a dashed series is a second metric of the one
    /// before it (a run's p99 beside its p95), so it keeps that colour.
    fn colours(&self) -> Vec<&'static str> {
        let mut next = 0;
        let mut out: Vec<&'static str> = Vec::with_capacity(self.series.len());
        for s in &self.series {
            match out.last() {
                Some(&c) if s.dashed => out.push(c),
                _ => {
                    out.push(PALETTE[next % PALETTE.len()]);
                    next += 1;
                }
            }
        }
        out
    }

    pub fn point_count(&self) -> usize {
        self.series.iter().map(|s| s.points.len()).sum()
    }

    pub fn svg(&self) -> String {
        let xs: Vec<f64> = self.series.iter().flat_map(|s| s.points.iter().map(|p| p.0)).chain(self.bands.iter().flat_map(|b| [b.from, b.to])).collect();
        let ys: Vec<f64> = self.series.iter().flat_map(|s| s.points.iter().map(|p| p.1).chain(s.errors.iter().map(|e| e.2))).filter(|y| y.is_finite()).collect();
        let xmin = xs.iter().cloned().fold(f64::INFINITY, f64::min);
        let xmax = xs.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let (xmin, xmax) = if xmin.is_finite() { (xmin, xmax) } else { (0.0, 1.0) };
        let xa = match self.x_scale {
            _ if !self.x_names.is_empty() => Axis::named(&self.x_names),
            Scale::Linear => Axis::linear(xmin, xmax, false),
            Scale::Log2 => Axis::log2(&xs),
            Scale::Nines => Axis::nines(xmax),
        };
        let ymax = ys.iter().cloned().fold(0.0, f64::max);
        let ya = Axis::linear(0.0, if ymax > 0.0 { ymax * 1.05 } else { 1.0 }, true);
        let legend = legend_layout(&self.series);
        let rows = legend.iter().map(|l| l.1 + 1).max().unwrap_or(1);
        let top = TOP + LEGEND_ROW * (rows - 1) as f64;
        let h = H + LEGEND_ROW * (rows - 1) as f64;
        let pw = W - LEFT - RIGHT;
        let ph = h - top - BOTTOM;
        let px = |x: f64| LEFT + xa.map(x) * pw;
        let py = |y: f64| top + ph - ya.map(y) * ph;

        let mut o = String::new();
        let _ = write!(
            o,
            r#"<svg xmlns="http://www.w3.org/2000/svg" class="chart" data-chart="{}" data-series="{}" data-top="{top}" data-bottom="{:.1}" viewBox="0 0 {W} {h}" width="{W}" height="{h}" font-family="{}" font-size="12" role="img" aria-label="{}">"#,
            esc(&self.id),
            self.series.len(),
            top + ph,
            esc(FONT),
            esc(&self.title)
        );
        let _ = write!(o, r##"<rect width="{W}" height="{h}" fill="#ffffff"/>"##);
        let _ = write!(o, r##"<text x="{LEFT}" y="19" font-size="14" font-weight="600" fill="#1d2733">{}</text>"##, esc(&self.title));
        // Bands under everything else.
        for b in &self.bands {
            let (x0, x1) = (px(b.from.max(xa.lo)), px(b.to.min(xa.hi)));
            let _ = write!(
                o,
                r#"<rect class="band" data-kind="{}" x="{x0:.1}" y="{top}" width="{:.1}" height="{ph}" fill="{}" fill-opacity="{}"><title>{} {}..{} s</title></rect>"#,
                b.kind.name(),
                // A stall of seconds in a day is a sliver: kept wide enough to see.
                (x1 - x0).max(if b.kind == BandKind::Warmup { 1.5 } else { 3.0 }),
                b.kind.fill(),
                if b.kind == BandKind::Warmup { 0.16 } else { 0.3 },
                b.kind.name(),
                num(b.from),
                num(b.to)
            );
        }
        // Grid and y ticks.
        for (v, label) in &ya.ticks {
            let y = py(*v);
            let _ = write!(o, r##"<line x1="{LEFT}" x2="{:.1}" y1="{y:.1}" y2="{y:.1}" stroke="#e3e7ec" stroke-width="1"/>"##, LEFT + pw);
            let _ = write!(o, r##"<text x="{:.1}" y="{:.1}" text-anchor="end" fill="#5b6673">{}</text>"##, LEFT - 6.0, y + 4.0, esc(label));
        }
        for (v, label) in &xa.ticks {
            let x = px(*v);
            let _ = write!(o, r##"<line x1="{x:.1}" x2="{x:.1}" y1="{top}" y2="{:.1}" stroke="#f0f2f5" stroke-width="1"/>"##, top + ph);
            let _ = write!(o, r##"<text x="{x:.1}" y="{:.1}" text-anchor="middle" fill="#5b6673">{}</text>"##, top + ph + 16.0, esc(label));
        }
        let _ = write!(o, r##"<line x1="{LEFT}" x2="{:.1}" y1="{:.1}" y2="{:.1}" stroke="#8a95a3" stroke-width="1"/>"##, LEFT + pw, top + ph, top + ph);
        let _ = write!(o, r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" fill="#5b6673">{}</text>"##, LEFT + pw / 2.0, h - 8.0, esc(&self.x_label));
        let _ = write!(o, r##"<text transform="translate(16 {:.1}) rotate(-90)" text-anchor="middle" fill="#5b6673">{}</text>"##, top + ph / 2.0, esc(&self.y_label));
        // Series.
        let x_text = |x: f64| match self.x_scale {
            _ if !self.x_names.is_empty() => self.x_names.get(x as usize).cloned().unwrap_or_else(|| num(x)),
            Scale::Nines => nines_label(x),
            _ => num(x),
        };
        let colours = self.colours();
        for (s, colour) in self.series.iter().zip(&colours) {
            let pts: Vec<String> = s.points.iter().map(|(x, y)| format!("{:.1},{:.1}", px(*x), py(*y))).collect();
            let vals: Vec<String> = s.points.iter().map(|(x, y)| format!("{}|{}", x_text(*x), num(*y))).collect();
            let dash = if s.dashed { r#" stroke-dasharray="5 3""# } else { "" };
            let _ = write!(o, r#"<g class="series" data-name="{}">"#, esc(&s.name));
            let _ = write!(
                o,
                r#"<polyline data-n="{}" data-v="{}" points="{}" fill="none" stroke="{colour}" stroke-width="1.8" stroke-linejoin="round"{dash}/>"#,
                s.points.len(),
                esc(&vals.join(";")),
                pts.join(" ")
            );
            for (x, lo, hi) in &s.errors {
                let (cx, y0, y1) = (px(*x), py(*lo), py(*hi));
                let _ = write!(
                    o,
                    r#"<g class="errorbar" data-v="{}|{}..{}" stroke="{colour}" stroke-width="1.2"><line x1="{cx:.1}" x2="{cx:.1}" y1="{y0:.1}" y2="{y1:.1}"/><line x1="{:.1}" x2="{:.1}" y1="{y0:.1}" y2="{y0:.1}"/><line x1="{:.1}" x2="{:.1}" y1="{y1:.1}" y2="{y1:.1}"/></g>"#,
                    x_text(*x),
                    num(*lo),
                    num(*hi),
                    cx - 4.0,
                    cx + 4.0,
                    cx - 4.0,
                    cx + 4.0
                );
            }
            if self.markers {
                for (x, y) in &s.points {
                    let _ = write!(o, r##"<circle cx="{:.1}" cy="{:.1}" r="3.2" fill="{colour}" stroke="#ffffff" stroke-width="1"/>"##, px(*x), py(*y));
                }
            }
            o.push_str("</g>");
        }
        // Legend under the title, one entry per series.
        for ((s, (x, row)), colour) in self.series.iter().zip(&legend).zip(&colours) {
            let y = 36.0 + LEGEND_ROW * *row as f64;
            let dash = if s.dashed { r#" stroke-dasharray="5 3""# } else { "" };
            let _ = write!(o, r#"<line x1="{x:.1}" x2="{:.1}" y1="{:.1}" y2="{:.1}" stroke="{colour}" stroke-width="2.5"{dash}/>"#, x + 18.0, y - 4.0, y - 4.0);
            let _ = write!(o, r##"<text x="{:.1}" y="{y:.1}" fill="#1d2733">{}</text>"##, x + 23.0, esc(&s.name));
        }
        o.push_str("</svg>");
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nines_labels_read_as_percentiles() {
        assert_eq!(nines_label(0.0), "0%");
        assert_eq!(nines_label(1.0), "90%");
        assert_eq!(nines_label(2.0), "99%");
        assert_eq!(nines_label(3.0), "99.9%");
        assert_eq!(nines_label(5.0), "99.999%");
    }

    #[test]
    fn text_is_escaped_everywhere() {
        let c = Chart {
            id: "x".into(),
            title: "<b>t</b>".into(),
            x_label: "a&b".into(),
            y_label: "\"y\"".into(),
            x_scale: Scale::Linear,
            series: vec![Series { name: "<script>alert(1)</script>".into(), points: vec![(0.0, 1.0), (1.0, 2.0)], dashed: false, errors: vec![] }],
            bands: vec![],
            markers: true,
            x_names: vec![],
        };
        let s = c.svg();
        assert!(!s.contains("<script>") && !s.contains("<b>"), "{s}");
        assert!(s.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    }

    /// Regression: the scaling chart drew a run's p95 and its dashed p99 in
    /// two colours, so two compared runs read as four.
    #[test]
    fn a_runs_p95_and_p99_were_drawn_in_different_colours() {
        let line = |name: &str, dashed| Series { name: name.into(), points: vec![(1.0, 1.0), (2.0, 2.0)], dashed, errors: vec![] };
        let c = Chart {
            id: "x".into(),
            title: "t".into(),
            x_label: "threads".into(),
            y_label: "ms".into(),
            x_scale: Scale::Log2,
            series: vec![line("a p95", false), line("a p99", true), line("b p95", false), line("b p99", true)],
            bands: vec![],
            markers: true,
            x_names: vec![],
        };
        let svg = c.svg();
        let strokes: Vec<&str> = svg.split("<polyline").skip(1).map(|p| p.split("stroke=\"").nth(1).unwrap().split('"').next().unwrap()).collect();
        assert_eq!(strokes.len(), 4);
        assert_eq!(strokes[0], strokes[1], "run a's p95 and p99");
        assert_eq!(strokes[2], strokes[3], "run b's p95 and p99");
        assert_ne!(strokes[0], strokes[2], "the two runs");
    }

    #[test]
    fn numbers_are_short() {
        assert_eq!(num(1500000.0), "1.50M");
        assert_eq!(num(25000.0), "25k");
        assert_eq!(num(12.5), "12.5");
        assert_eq!(num(3.0), "3");
        assert_eq!(num(0.125), "0.125");
        assert_eq!(num(-0.0), "0");
    }
}
