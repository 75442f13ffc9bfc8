//! The `arena` command: parses the command line (clap), picks the game (`--game`, through
//! the games registry's `with_game!`), and calls the one function of the command asked
//! for, each in its own module of `cli/` (which see). This file is only that dispatch:
//! no command's work, no printing of results, and no game named.
//!
//! Errors become `anyhow` messages at this edge (here and in `cli/`) and nowhere else.

mod cli;

use anyhow::Result;
use arena::game::Game;
use arena::with_game;
use clap::{Parser, Subcommand};

use cli::options::{GameChoice, SourceArgs, Sources};

/// An arena for king-of-the-hill bot games: native (.so/.dll/.dylib), Rhai, Lua and
/// program bots in any language; one game or whole tournaments.
#[derive(Debug, Parser)]
#[command(name = "arena", version, about)]
struct Cli {
    #[command(flatten)]
    game: GameChoice,
    #[command(flatten)]
    sources: SourceArgs,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Play one game and print each entry's score.
    Play(cli::play::PlayArgs),
    /// Play several games (in parallel) and rank the entries by the game's measure
    /// (zombies: median score; eggs: mean; target: total points; hex: match points); a
    /// fixed number, or with --until-decided (target's default) until there is a verdict.
    Tournament(cli::tournament::TournamentArgs),
    /// Turn a replay into one self-contained HTML page (a viewer with no other files),
    /// or with --json into the game turn by turn as JSON (docs/replays.md).
    Replay(cli::replay::ReplayArgs),
    /// Check one bot: load it, play it against the game's bundled bots (or --vs) over
    /// a few seeded games, and print a short report. Exits non-zero when it is broken.
    Check(cli::check::CheckArgs),
    /// Merge the JSON results of several shards into one leaderboard.
    Merge(cli::merge::MergeArgs),
    /// Measure the engine and bot calls on the standard workloads (docs/performance.md).
    Bench(cli::bench::BenchArgs),
    /// Write a starting bot into ./NAME/: a complete, commented bot for the game
    /// (`--game`) in the language, with a README saying how to build and play it.
    NewBot(cli::new_bot::NewBotArgs),
    /// List the entries found and the files skipped, with reasons.
    List(cli::list::ListArgs),
    /// A ladder: a contest kept in a database (--db FILE, SQLite, or a postgres:// URL), whose entries play
    /// rated games (Weng-Lin) for as long as it runs; new bots join between batches
    /// (docs/ladder.md).
    Ladder(cli::ladder::LadderArgs),
    /// The contest server: the ladder's live leaderboard, entries, games (with the
    /// viewer) and statistics in a browser, with JSON twins, and bot submissions by
    /// entrants holding a token (`ladder add-entrant`); the ladder plays in the same
    /// process (docs/server.md).
    Serve(cli::serve::ServeArgs),
    /// (internal) Serve games for an isolating host: one JSON request per line on
    /// stdin, one answer per line on the original stdout.
    #[command(name = "__worker", hide = true)]
    Worker(cli::worker::WorkerArgs),
    /// (internal) Load one native library and report what it is.
    #[command(name = "__probe", hide = true)]
    Probe(cli::worker::ProbeArgs),
}

fn main() {
    // SIGPIPE stays ignored (as Rust leaves it): the host writes to workers and program
    // bots that may die at any moment, and such a write must fail with EPIPE, not end the
    // tournament. A closed standard output (`arena ... | head`) only stops the printing
    // (`cli::terminal::out`).
    #[cfg(unix)]
    arena::process::no_inherited_descriptors();
    let args = Cli::parse();
    if !matches!(args.command, Command::Worker(_) | Command::Probe(_)) {
        cli::terminal::stop_with_parent();
        arena::process::raise_host_priority();
    }
    let (which, after) = args.command.after();
    let mut sources = Sources::resolve(&args.sources, after);
    // A worker is boxed by its host already (its programs run in its box).
    if after.is_some() && !matches!(args.command, Command::Worker(_)) {
        if let Err(err) = cli::bots::settle_boxes(&mut sources) {
            eprintln!("error: {err:#}");
            std::process::exit(1);
        }
    }
    let game = which.and_then(|w| w.game.as_deref()).or(args.game.game.as_deref()).unwrap_or(arena::games::DEFAULT);
    let game = game.to_owned();
    let result = with_game!(game.as_str(), G => run::<G>(args.command, &sources), _ => Err(anyhow::anyhow!("unknown game {game:?}")));
    // A second Ctrl-C is writing the results, then exits with 130.
    cli::terminal::wait_while_quitting();
    if let Err(err) = result {
        eprintln!("error: {err:#}");
        std::process::exit(1);
    }
}

impl Command {
    /// The game and the bot options given after the subcommand, for the commands that
    /// take them (those that play or write bots take `--game`; those that load bots,
    /// the bot options). A replay and a results file know their game.
    fn after(&self) -> (Option<&GameChoice>, Option<&SourceArgs>) {
        match self {
            Command::Play(a) => (Some(&a.which), Some(&a.sources)),
            Command::Tournament(a) => (Some(&a.which), Some(&a.sources)),
            Command::Check(a) => (Some(&a.which), Some(&a.sources)),
            Command::Bench(a) => (Some(&a.which), Some(&a.sources)),
            Command::List(a) => (Some(&a.which), Some(&a.sources)),
            Command::Worker(a) => (Some(&a.which), Some(&a.sources)),
            Command::NewBot(a) => (Some(&a.which), None),
            Command::Ladder(a) => a.after(),
            Command::Serve(a) => (Some(&a.ladder.which), Some(&a.ladder.sources)),
            Command::Replay(_) | Command::Merge(_) | Command::Probe(_) => (None, None),
        }
    }
}

/// Runs `command` for game `G`.
fn run<G: Game>(command: Command, sources: &Sources) -> Result<()> {
    if matches!(
        command,
        Command::List(_)
            | Command::Play(_)
            | Command::Tournament(_)
            | Command::Bench(_)
            | Command::Check(_)
            | Command::Serve(_)
    ) {
        cli::bots::check_sources(sources)?;
    }
    if let Command::Ladder(a) = &command {
        if a.loads_bots() {
            cli::bots::check_sources(sources)?;
        }
    }
    match command {
        Command::Play(args) => cli::play::play::<G>(args, sources),
        Command::Tournament(args) => cli::tournament::tournament::<G>(args, sources),
        Command::Replay(args) => cli::replay::replay(args),
        Command::Check(args) => cli::check::check::<G>(args, sources),
        Command::Merge(args) => cli::merge::merge(args),
        Command::Bench(args) => cli::bench::bench::<G>(args, sources),
        Command::NewBot(args) => cli::new_bot::new_bot(G::NAME, args),
        Command::List(args) => cli::list::list::<G>(args, sources),
        Command::Ladder(args) => cli::ladder::ladder::<G>(args, sources),
        Command::Serve(args) => cli::serve::serve::<G>(args, sources),
        Command::Worker(args) => cli::worker::serve::<G>(args, sources),
        Command::Probe(args) => cli::worker::probe(args),
    }
}
