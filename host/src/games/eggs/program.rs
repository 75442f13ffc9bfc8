//! The eggs text protocol for program bots: the seed's, exactly. Placeholder until the
//! process layer lands.

use std::sync::Arc;

use super::EggHunt;
use crate::bot::BotFactory;
use crate::loaders::program::Program;

/// The bots of a program.
pub(super) fn bots(program: Program) -> Result<Arc<dyn BotFactory<EggHunt>>, String> {
    Err(format!("{}: program bots are not wired yet", program.file_name()))
}
