//! Plugin and script discovery, for every game, over arbitrary files (any bytes, named
//! like a library, a Lua or a Rhai script) reports each bad file in one line, never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use arena::games::eggs::Eggs;
use arena::games::zombies::Zombies;
use arena::loaders::{ScriptLimits, SearchPaths, discover};

fuzz_target!(|data: &[u8]| {
    let dir = tempfile::tempdir().unwrap();
    let (kind, bytes) = data.split_first().map_or((0, data), |(k, rest)| (*k, rest));
    let name = match kind % 3 {
        0 => format!("{}fuzz{}", std::env::consts::DLL_PREFIX, std::env::consts::DLL_SUFFIX),
        1 => "fuzz.lua".to_owned(),
        _ => "fuzz.rhai".to_owned(),
    };
    std::fs::write(dir.path().join(name), bytes).unwrap();
    let paths = SearchPaths { plugins: vec![dir.path().to_owned()], scripts: vec![dir.path().to_owned()] };
    let limits = ScriptLimits { op_budget: 10_000, ..ScriptLimits::default() };
    let skipped = [discover::<Zombies>(&paths, &limits).skipped, discover::<Eggs>(&paths, &limits).skipped];
    for s in skipped.iter().flatten() {
        assert!(!s.to_string().contains('\n'), "one line: {s}");
    }
});
