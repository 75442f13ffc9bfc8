//! Native bots: libraries exporting the abi_stable root module or the plain C table.

use std::path::Path;

use crate::bot::Entry;

/// True for a file name a native library may have on this platform.
pub fn is_library_name(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("so" | "dylib" | "dll")
    )
}

/// Loads one library.
pub fn load(_path: &Path) -> Result<Entry, String> {
    Err("native loading is not built yet".to_owned())
}
