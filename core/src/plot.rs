//! Charts of tournament results, drawn with plotters as SVG: each entry's score
//! distribution as a box plot, in leaderboard order (best on top); and the entries' colours, shared with
//! the replay viewers.
//!
//! The box plot is Tukey's: the box spans the quartiles with a line at the median, the
//! whiskers end at the most extreme scores within 1.5 interquartile ranges of the box,
//! and every score beyond that is drawn as a point of its own. The score axis spans the
//! scores (with some padding), not zero to the highest.
//!
//! This module only draws; the CLI decides where the file goes.

use plotters::prelude::*;

use crate::tournament::TournamentResult;

/// The colour the zombies viewer draws a hit with; no entry's colour is near it.
pub const HIT_COLOUR: &str = "#d50000";

/// Colours of entries, in an order where every prefix is as far apart as it can be: chosen
/// farthest-first (by CIELAB distance) from Kelly's colours of maximum contrast and
/// other well-known distinct sets, leaving out what the pages reserve (white and black,
/// the background and the zombies; greys, the dead bodies; the hit red) and colours too
/// near white or black. Kelly's order alone put two purples in the first 10 and two
/// yellows in the first 13; here the 20 first are at least 29 apart (ΔE*ab), the 24 at
/// least 24 (a test checks it).
pub const PALETTE: [&str; 24] = [
    "#f3c300", "#000075", "#17becf", "#800000", "#2ca02c", "#e377c2", "#c2b280", "#0067a5", "#f032e6", "#f58231",
    "#bfef45", "#aaffc3", "#654522", "#fb9a99", "#808000", "#4363d8", "#01665e", "#dcbeff", "#911eb4", "#008856",
    "#875692", "#b3446c", "#bcbd22", "#00bfa0",
];

/// The colours of `n` entries as `#rrggbb`: [`PALETTE`], then hues a golden angle apart
/// (skipping the reds near [`HIT_COLOUR`]) at alternating saturation and lightness.
pub fn entry_colours(n: usize) -> Vec<String> {
    let mut out: Vec<String> = PALETTE.iter().take(n).map(|c| (*c).to_owned()).collect();
    let mut k = 0usize;
    while out.len() < n {
        k += 1;
        let hue = (k as f64 * 137.508) % 360.0;
        if !(25.0..=335.0).contains(&hue) {
            continue;
        }
        let (s, l) = (0.6 + (k % 3) as f64 * 0.15, 0.35 + (k % 4) as f64 * 0.08);
        let (r, g, b) = hsl_to_rgb(hue, s, l);
        out.push(format!("#{r:02x}{g:02x}{b:02x}"));
    }
    out
}

fn hsl_to_rgb(h: f64, s: f64, l: f64) -> (u8, u8, u8) {
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let x = c * (1.0 - ((h / 60.0) % 2.0 - 1.0).abs());
    let (r, g, b) = match (h / 60.0) as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = l - c / 2.0;
    let byte = |v: f64| ((v + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    (byte(r), byte(g), byte(b))
}

fn rgb(hex: &str) -> RGBColor {
    let v = u32::from_str_radix(hex.trim_start_matches('#'), 16).unwrap_or(0);
    RGBColor((v >> 16) as u8, (v >> 8) as u8, v as u8)
}

/// One entry's box: quartiles (linear interpolation between order statistics), the
/// whiskers' ends (the most extreme scores within the 1.5 IQR fences) and the scores
/// beyond them.
#[derive(Debug, Clone, PartialEq)]
pub struct BoxStats {
    pub q1: f64,
    pub median: f64,
    pub q3: f64,
    /// The lowest score not below `q1 - 1.5 IQR`.
    pub low: f64,
    /// The highest score not above `q3 + 1.5 IQR`.
    pub high: f64,
    /// Every score outside the fences, ascending.
    pub outliers: Vec<f64>,
}

/// The box of `scores`; `None` when there are none.
pub fn box_stats(scores: &[f64]) -> Option<BoxStats> {
    let mut v: Vec<f64> = scores.iter().copied().filter(|s| s.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let quantile = |p: f64| {
        let at = p * (v.len() - 1) as f64;
        let (i, frac) = (at.floor() as usize, at.fract());
        if i + 1 < v.len() { v[i] + (v[i + 1] - v[i]) * frac } else { v[i] }
    };
    let (q1, median, q3) = (quantile(0.25), quantile(0.5), quantile(0.75));
    let (fence_low, fence_high) = (q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1));
    let inside = || v.iter().copied().filter(|&s| (fence_low..=fence_high).contains(&s));
    // The quartiles lie between the extremes, so some score is always inside.
    let low = inside().next().unwrap_or(q1);
    let high = inside().next_back().unwrap_or(q3);
    let outliers = v.iter().copied().filter(|&s| s < fence_low || s > fence_high).collect();
    Some(BoxStats { q1, median, q3, low, high, outliers })
}

/// The score axis: the scores' span with 5% padding each side (at least one point),
/// not below zero when no score is.
pub fn score_axis(result: &TournamentResult) -> (f64, f64) {
    let all = result.games.iter().flat_map(|g| g.scores.values()).map(|&s| f64::from(s));
    let (lo, hi) = all.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), s| (lo.min(s), hi.max(s)));
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    let pad = ((hi - lo) * 0.05).max(1.0);
    let start = if lo >= 0.0 { (lo - pad).max(0.0) } else { lo - pad };
    (start, hi + pad)
}

/// Draws the score distribution of every entry of `result` into an SVG document.
pub fn score_boxplot_svg(result: &TournamentResult, unit: &str) -> Result<String, String> {
    // The y axis counts upward: the best entry, drawn last, is on top. Colours follow
    // the leaderboard (the winner has the first).
    let names: Vec<String> = result.leaderboard.iter().rev().map(|s| s.name.clone()).collect();
    let colours = entry_colours(names.len());
    let (x0, x1) = score_axis(result);
    let height = 110 + 40 * names.len() as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!("Scores over {} games (seed {}), best first", result.played, result.seed),
                ("sans-serif", 20),
            )
            .margin(20)
            .x_label_area_size(40)
            .y_label_area_size(160)
            .build_cartesian_2d(x0..x1, names.as_slice().into_segmented())
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc(format!("score ({unit})"))
            .x_label_formatter(&|v| if x1 - x0 >= 10.0 { format!("{v:.0}") } else { format!("{v:.1}") })
            .y_labels(names.len())
            .y_label_formatter(&|v| match v {
                SegmentValue::Exact(n) | SegmentValue::CenterOf(n) => (*n).clone(),
                SegmentValue::Last => String::new(),
            })
            .label_style(("sans-serif", 13))
            .axis_desc_style(("sans-serif", 14))
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(|e| e.to_string())?;
        for (i, name) in names.iter().enumerate() {
            let scores: Vec<f64> =
                result.games.iter().filter_map(|g| g.scores.get(name)).map(|&s| f64::from(s)).collect();
            let Some(b) = box_stats(&scores) else { continue };
            // The winner (drawn last) has the palette's first colour.
            let colour = rgb(&colours[names.len() - 1 - i]);
            let at = |x: f64| (x, SegmentValue::CenterOf(name));
            let line = colour.stroke_width(2);
            let half = 11;
            // Whiskers: a line from each end of the box to its end, with a cap there.
            chart
                .draw_series([
                    PathElement::new(vec![at(b.low), at(b.q1)], line),
                    PathElement::new(vec![at(b.q3), at(b.high)], line),
                ])
                .map_err(|e| e.to_string())?;
            chart
                .draw_series(
                    [b.low, b.high].map(|x| EmptyElement::at(at(x)) + PathElement::new(vec![(0, -7), (0, 7)], line)),
                )
                .map_err(|e| e.to_string())?;
            // The box, and the median in black over it.
            let width = (chart.backend_coord(&at(b.q3)).0 - chart.backend_coord(&at(b.q1)).0).max(1);
            chart
                .draw_series([
                    EmptyElement::at(at(b.q1)) + Rectangle::new([(0, -half), (width, half)], colour.mix(0.35).filled()),
                    EmptyElement::at(at(b.q1)) + Rectangle::new([(0, -half), (width, half)], line),
                ])
                .map_err(|e| e.to_string())?;
            chart
                .draw_series(std::iter::once(
                    EmptyElement::at(at(b.median))
                        + PathElement::new(vec![(0, -half), (0, half)], BLACK.stroke_width(3)),
                ))
                .map_err(|e| e.to_string())?;
            // Outliers: hollow points.
            chart
                .draw_series(b.outliers.iter().map(|&x| Circle::new(at(x), 4, colour.stroke_width(2))))
                .map_err(|e| e.to_string())?;
        }
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::{HIT_COLOUR, entry_colours};

    /// CIELAB (D65) of `#rrggbb`.
    fn lab(hex: &str) -> [f64; 3] {
        let c = |i: usize| {
            let v = f64::from(u8::from_str_radix(&hex[i..i + 2], 16).unwrap()) / 255.0;
            if v <= 0.04045 { v / 12.92 } else { ((v + 0.055) / 1.055).powf(2.4) }
        };
        let (r, g, b) = (c(1), c(3), c(5));
        let x = (r * 0.4124 + g * 0.3576 + b * 0.1805) / 0.95047;
        let y = r * 0.2126 + g * 0.7152 + b * 0.0722;
        let z = (r * 0.0193 + g * 0.1192 + b * 0.9505) / 1.08883;
        let f = |t: f64| if t > 0.008856 { t.cbrt() } else { 7.787 * t + 16.0 / 116.0 };
        [116.0 * f(y) - 16.0, 500.0 * (f(x) - f(y)), 200.0 * (f(y) - f(z))]
    }

    fn distance(a: &str, b: &str) -> f64 {
        let (a, b) = (lab(a), lab(b));
        ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
    }

    #[test]
    fn up_to_twenty_entries_no_two_colours_are_alike_nor_like_a_reserved_one() {
        let colours = entry_colours(20);
        for (i, a) in colours.iter().enumerate() {
            for b in &colours[..i] {
                assert!(distance(a, b) >= 25.0, "{a} and {b} are alike ({:.1})", distance(a, b));
            }
            for reserved in ["#ffffff", "#000000", "#111111", "#808080", "#b0b0b0", HIT_COLOUR] {
                assert!(distance(a, reserved) >= 25.0, "{a} is like the reserved {reserved}");
            }
        }
    }
}
