//! The zombies text protocol for program bots (any language). See
//! `docs/games/zombies.md`.

use std::sync::Arc;

use super::Zombies;
use crate::bot::BotFactory;
use crate::loaders::program::Program;

/// The bots of a program.
pub(super) fn bots(program: Program) -> Result<Arc<dyn BotFactory<Zombies>>, String> {
    Err(format!("{}: program bots are not wired yet", program.file_name()))
}
