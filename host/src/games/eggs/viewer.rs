//! The eggs replay viewer (placeholder until the page lands).

use super::EggHunt;
use crate::replay::{Replay, ReplayError};

/// The self-contained viewer page of a replay.
pub fn render(replay: &Replay<EggHunt>) -> Result<String, ReplayError> {
    replay.verify()?;
    Ok(String::new())
}
