//! Script bots: Rhai and Lua.

use std::path::Path;

use crate::bot::Entry;

/// Limits of script bots.
#[derive(Debug, Clone, Default)]
pub struct ScriptLimits {}

/// Loads one script, or `None` for a file that is not a script.
pub fn load(_path: &Path, _limits: &ScriptLimits) -> Option<Result<Entry, String>> {
    None
}
