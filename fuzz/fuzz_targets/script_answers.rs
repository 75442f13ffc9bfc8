//! Whatever a script's do_turn returns (the fuzzer writes the returned expression, in Lua
//! and in Rhai), the host turns it into an action or a counted error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use zombies::abi::abi_stable::std_types::{RSlice, RStr};
use zombies::abi::{Context, Id};
use zombies::loaders::{ScriptLimits, SearchPaths, discover};
use zombies::zombies::{Board, GameRng, random_source};

fuzz_target!(|data: &[u8]| {
    let Ok(expr) = std::str::from_utf8(data) else { return };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.lua"), format!("function do_turn(ctx)\nreturn {expr}\nend\n")).unwrap();
    std::fs::write(dir.path().join("g.rhai"), format!("fn do_turn(ctx) {{\n{expr}\n}}\n")).unwrap();
    let limits = ScriptLimits { op_budget: 10_000, memory: 8 << 20, ..ScriptLimits::default() };
    let found = discover(&SearchPaths { plugins: vec![], scripts: vec![dir.path().to_owned()] }, &limits);
    let mut board = Board::new(17);
    let me = Id { owner: 0, number: 1 };
    board.set(3, 3, me);
    let names = [RStr::from_str("f")];
    let mut rng: GameRng = rand::SeedableRng::seed_from_u64(1);
    for entry in &found.entries {
        let Ok(mut bot) = entry.create_bot() else { continue };
        let ctx = Context {
            id: me,
            bullets: 3,
            clock: 0,
            x: 3,
            y: 3,
            board_size: 17,
            view: board.view(3, 3),
            names: RSlice::from_slice(&names),
            random: random_source(&mut rng),
        };
        let _ = bot.turn(&ctx);
    }
});
