//! `arena merge`: the results files of a tournament's shards joined into one
//! leaderboard (and written again as JSON and CSV when asked); what would not be the
//! one-machine result is refused in one line. The files name their game, so this
//! command takes no `--game`.
//!
//! Not here: the merge itself and its checks (`arena::tournament::merge_named`).

use std::path::PathBuf;

use anyhow::{Context as _, Result};
use arena::tournament::{self, TournamentResult};
use clap::Args;

use super::files::write_results;
use super::terminal::{exit_if_lost, print_leaderboard};

/// The options of `arena merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Results files written by `tournament --json`.
    #[arg(required = true, value_name = "FILE")]
    pub inputs: Vec<PathBuf>,
    /// Write the merged results as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write the merged leaderboard as CSV to this file.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Merge even when shards or games are missing (a provisional leaderboard);
    /// without it, a shard missing or incomplete is an error.
    #[arg(long)]
    pub partial: bool,
}

/// Merges the shards, prints the leaderboard and writes the outputs.
pub fn merge(args: MergeArgs) -> Result<()> {
    let MergeArgs { inputs, json, csv, partial } = args;
    let parts = inputs
        .iter()
        .map(|path| {
            let bytes = std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))?;
            let part = serde_json::from_slice::<TournamentResult>(&bytes)
                .with_context(|| format!("{}: not a results file", path.display()))?;
            Ok((path.display().to_string(), part))
        })
        .collect::<Result<Vec<_>>>()?;
    let result = tournament::merge_named(parts, partial)?;
    print_leaderboard(&result, &[]);
    let missing = result.rounds - result.played;
    outln!(
        "{} of {} games merged{}",
        result.played,
        result.rounds,
        if missing > 0 { format!(" -- {missing} missing") } else { String::new() }
    );
    write_results(&result, json.as_deref(), csv.as_deref())?;
    exit_if_lost(&result);
    Ok(())
}
