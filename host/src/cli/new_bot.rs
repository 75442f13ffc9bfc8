//! `arena new-bot`: a starting bot of the chosen game in a language, written into a new
//! directory, and the commands that build and play it.
//!
//! Not here: the templates and writing them (`arena::kit`).

use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::Args;

use super::options::GameChoice;

/// The options of `arena new-bot`.
#[derive(Debug, Args)]
pub struct NewBotArgs {
    /// The bot's name: its directory, its files and its entry's name (a letter,
    /// then letters, digits, `_` or `-`).
    pub name: String,
    /// The language: rust, c, rhai, lua or python.
    #[arg(long, value_name = "LANG")]
    pub lang: String,
    /// (Rust) the arena's plugin-abi directory the crate depends on by path
    /// (default: this arena's).
    #[arg(long, value_name = "DIR")]
    pub abi_path: Option<PathBuf>,
    #[command(flatten)]
    pub which: GameChoice,
}

/// `new-bot`: writes the bot of `game` and says how to build and play it.
pub fn new_bot(game: &str, args: NewBotArgs) -> Result<()> {
    let NewBotArgs { name, lang, abi_path, .. } = &args;
    let request = arena::kit::Request {
        name,
        lang,
        game,
        starter: arena::games::starter(game, lang),
        reserved: arena::with_game!(game, G => <G as arena::rules::Rules>::reserved_names(), _ => &[]),
        parent: Path::new("."),
        abi_path: abi_path.as_deref(),
    };
    let written = arena::kit::new_bot(&request).map_err(anyhow::Error::msg)?;
    outln!("wrote {name}/ ({lang}, game {game}): {}", written.files.join(", "));
    outln!("next (README.md says more):");
    if let Some(build) = &written.build {
        outln!("  cd {name} && {build} && cd ..");
    }
    outln!("  arena --game {game} {} list", written.find);
    outln!("  arena --game {game} {} play --seed 1", written.find);
    Ok(())
}
