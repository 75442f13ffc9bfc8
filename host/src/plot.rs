//! Charts of tournament results, drawn with plotters as SVG: each entry's score
//! distribution as a box plot (quartiles, whiskers to the extremes), best median first.
//!
//! This module only draws; the CLI decides where the file goes.

use plotters::prelude::*;

use crate::tournament::TournamentResult;

/// Draws the score distribution of every entry of `result` into an SVG document.
pub fn score_boxplot_svg(result: &TournamentResult) -> Result<String, String> {
    // The y axis counts upward: the best entry, drawn last, is on top.
    let names: Vec<String> = result.leaderboard.iter().rev().map(|s| s.name.clone()).collect();
    let max = result.leaderboard.iter().map(|s| s.max).max().unwrap_or(1).max(1);
    let height = 110 + 40 * names.len() as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!("Scores over {} games (seed {}), best median first", result.played, result.seed),
                ("sans-serif", 20),
            )
            .margin(20)
            .x_label_area_size(40)
            .y_label_area_size(160)
            .build_cartesian_2d(0f32..(max as f32 * 1.05), names.as_slice().into_segmented())
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc("score (turns survived)")
            .y_labels(names.len())
            .y_label_formatter(&|v| match v {
                SegmentValue::Exact(n) | SegmentValue::CenterOf(n) => (*n).clone(),
                SegmentValue::Last => String::new(),
            })
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(|e| e.to_string())?;
        for (i, name) in names.iter().enumerate() {
            let scores: Vec<f32> = result.games.iter().filter_map(|g| g.scores.get(name)).map(|&s| s as f32).collect();
            if scores.is_empty() {
                continue;
            }
            let quartiles = Quartiles::new(&scores);
            let colour = Palette99::pick(i).to_rgba();
            chart
                .draw_series(std::iter::once(
                    Boxplot::new_horizontal(SegmentValue::CenterOf(name), &quartiles).width(20).style(colour),
                ))
                .map_err(|e| e.to_string())?;
        }
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}
