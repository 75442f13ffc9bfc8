//! `arena list`: the entries of the chosen game found where the bot options say, and
//! every file skipped with its reason. Native libraries are loaded in child processes
//! by default, so that one crashing while it loads is listed as skipped.
//!
//! Not here: discovery (`arena::loaders`, `bots`).

use anyhow::Result;
use arena::game::Game;
use arena::limits::TimeBank;
use arena::loaders::{Discovery, ScriptLimits};
use clap::Args;

use super::bots::{discover_in, isolation, script_limits, search_paths};
use super::options::{GameChoice, Isolate, SourceArgs, Sources};

/// The options of `arena list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Load native libraries in child processes (a library that crashes while
    /// loading is then listed as skipped instead of ending the command).
    #[arg(long, value_enum, default_value_t = Isolate::On)]
    pub isolate: Isolate,
    #[command(flatten)]
    pub sources: SourceArgs,
    #[command(flatten)]
    pub which: GameChoice,
}

/// Lists the entries and the files skipped.
pub fn list<G: Game>(args: ListArgs, sources: &Sources) -> Result<()> {
    let iso = isolation(sources, args.isolate, TimeBank::default())?;
    // Listing plays no game: what a bot writes while loading goes nowhere, and
    // the logs of the last tournament stay as they are.
    let limits = ScriptLimits { log_dir: None, ..script_limits(sources) };
    print_entries(&discover_in::<G>(&search_paths(sources), &limits, iso.as_deref()));
    if let Some(iso) = &iso {
        let _ = std::fs::remove_dir_all(&iso.scratch);
    }
    Ok(())
}

/// The entries, one line each (name, kind, file), then the files skipped.
fn print_entries<G: Game>(discovery: &Discovery<G>) {
    outln!("{} entries ({}):", discovery.entries.len(), G::NAME);
    for e in &discovery.entries {
        outln!("  {:<24} {:<18} {}", e.name, e.kind.to_string(), e.source.display());
    }
    if !discovery.skipped.is_empty() {
        outln!("{} skipped:", discovery.skipped.len());
        for s in &discovery.skipped {
            outln!("  {s}");
        }
    }
}
