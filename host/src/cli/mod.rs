//! The commands of the `arena` binary, one module each, and what they share: the
//! options several commands take (`options`), finding the bots and starting workers
//! (`bots`), writing output files (`files`), and everything shown on the terminal
//! while and after games run (`terminal`: progress, leaderboard, problems, lost games,
//! Ctrl-C).
//!
//! This is a module of the binary, not of the library: it is the command-line edge,
//! where arguments are parsed (clap), results are printed, and errors become `anyhow`
//! messages. What a command does lives in the library (`arena::tournament`,
//! `arena::isolate`, `arena::replay`, ...); a command here only gathers its options,
//! calls it, and shows the result. Nothing here names a game: every command is written
//! once over `arena::game::Game`, picked by `main.rs` through the games registry.

/// `outln!` for the commands' output: through [`terminal::out`], which stops printing
/// (and lets the command finish) once standard output is a closed pipe.
macro_rules! outln {
    () => {
        $crate::cli::terminal::out(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::cli::terminal::out(format_args!("{}\n", format_args!($($arg)*)))
    };
}

pub mod bench;
pub mod bots;
pub mod check;
pub mod files;
pub mod ladder;
pub mod list;
pub mod merge;
pub mod new_bot;
pub mod options;
pub mod play;
pub mod replay;
pub mod serve;
pub mod terminal;
pub mod tournament;
pub mod worker;
