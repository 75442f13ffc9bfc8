//! Whatever a script's do_turn returns (the fuzzer writes the returned expression, in Lua
//! and in Rhai), the host turns it into an action or a counted error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use arena::games::zombies::bench::with_sample_context;
use arena::games::zombies::Zombies;
use arena::loaders::{ScriptLimits, SearchPaths, discover};

fuzz_target!(|data: &[u8]| {
    let Ok(expr) = std::str::from_utf8(data) else { return };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.lua"), format!("function do_turn(ctx)\nreturn {expr}\nend\n")).unwrap();
    std::fs::write(dir.path().join("g.rhai"), format!("fn do_turn(ctx) {{\n{expr}\n}}\n")).unwrap();
    let limits = ScriptLimits { op_budget: 10_000, memory: 8 << 20, ..ScriptLimits::default() };
    let found = discover::<Zombies>(&SearchPaths { plugins: vec![], scripts: vec![dir.path().to_owned()] }, &limits);
    for entry in &found.entries {
        let Ok(mut bot) = entry.create_bot() else { continue };
        let _ = with_sample_context(|ctx| bot.turn(ctx));
    }
});
