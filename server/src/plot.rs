//! The rating-over-time plot of an entry's page: one inline SVG, a line of mu per
//! version over its games, with a band of mu +- 3 sigma (the conservative rating is the
//! band's lower edge). Built as text from numbers only; the version labels are escaped.
//!
//! Not here: computing the ratings after each game (`history`).

use std::fmt::Write as _;

use arena_ladder::views::Point;

const WIDTH: f64 = 640.0;
const HEIGHT: f64 = 240.0;
const LEFT: f64 = 44.0;
const BOTTOM: f64 = 24.0;
const TOP: f64 = 10.0;
const COLOURS: [&str; 6] = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf"];

/// Escapes text for SVG/HTML.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The plot of `series` (a label and its points each; x is the game's position in the
/// series' games, y the rating), or a line saying there is nothing to plot.
pub fn rating_svg(series: &[(String, Vec<Point>)]) -> String {
    let points = series.iter().flat_map(|(_, p)| p.iter());
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    let mut games = 0usize;
    for p in points {
        lo = lo.min(p.mu - 3.0 * p.sigma);
        hi = hi.max(p.mu + 3.0 * p.sigma);
    }
    for (_, p) in series {
        games = games.max(p.len());
    }
    if games == 0 || !lo.is_finite() || !hi.is_finite() {
        return "<p class=\"empty\">no rated game yet</p>".to_owned();
    }
    if hi - lo < 1.0 {
        hi += 0.5;
        lo -= 0.5;
    }
    let x = |i: usize| LEFT + (WIDTH - LEFT - 10.0) * if games <= 1 { 0.5 } else { i as f64 / (games - 1) as f64 };
    let y = |v: f64| TOP + (HEIGHT - TOP - BOTTOM) * (1.0 - (v - lo) / (hi - lo));
    let mut svg = format!(
        "<svg class=\"plot\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" role=\"img\" \
         aria-label=\"rating over time\">"
    );
    for k in 0..=4 {
        let v = lo + (hi - lo) * f64::from(k) / 4.0;
        let _ = write!(
            svg,
            "<line x1=\"{LEFT}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#ddd\"/>\
             <text x=\"{}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"end\">{v:.1}</text>",
            WIDTH - 10.0,
            LEFT - 4.0,
            y(v) + 3.0,
            y = y(v)
        );
    }
    let _ = write!(
        svg,
        "<text x=\"{}\" y=\"{}\" font-size=\"10\" text-anchor=\"middle\">games of the version</text>",
        (LEFT + WIDTH) / 2.0,
        HEIGHT - 6.0
    );
    for (n, (label, pts)) in series.iter().enumerate() {
        if pts.is_empty() {
            continue;
        }
        let colour = COLOURS[n % COLOURS.len()];
        let upper: Vec<String> =
            pts.iter().enumerate().map(|(i, p)| format!("{:.1},{:.1}", x(i), y(p.mu + 3.0 * p.sigma))).collect();
        let lower: Vec<String> =
            pts.iter().enumerate().rev().map(|(i, p)| format!("{:.1},{:.1}", x(i), y(p.mu - 3.0 * p.sigma))).collect();
        let _ = write!(
            svg,
            "<polygon points=\"{} {}\" fill=\"{colour}\" fill-opacity=\"0.12\" stroke=\"none\"/>",
            upper.join(" "),
            lower.join(" ")
        );
        let line: Vec<String> = pts.iter().enumerate().map(|(i, p)| format!("{:.1},{:.1}", x(i), y(p.mu))).collect();
        let _ = write!(
            svg,
            "<polyline class=\"mu\" points=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\"><title>{}</title></polyline>",
            line.join(" "),
            escape(label)
        );
        let _ = write!(
            svg,
            "<text x=\"{}\" y=\"{}\" font-size=\"11\" fill=\"{colour}\">{}</text>",
            LEFT + 6.0,
            TOP + 12.0 + 13.0 * n as f64,
            escape(label)
        );
    }
    svg.push_str("</svg>");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_per_version_and_labels_escaped() {
        let pts = |mus: &[f64]| -> Vec<Point> {
            mus.iter().enumerate().map(|(i, &mu)| Point { game: i as i64, mu, sigma: 2.0 }).collect()
        };
        let svg = rating_svg(&[("v1 <b>".to_owned(), pts(&[25.0, 26.0, 27.0])), ("v2".to_owned(), pts(&[24.0]))]);
        assert_eq!(svg.matches("<polyline class=\"mu\"").count(), 2, "{svg}");
        assert!(svg.contains("v1 &lt;b&gt;") && !svg.contains("<b>"), "{svg}");
        assert_eq!(rating_svg(&[]), "<p class=\"empty\">no rated game yet</p>");
    }
}
