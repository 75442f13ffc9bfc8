//! This game's starting bots for `arena new-bot --game target`, one per language, from
//! `games/templates/invisible_target/` (`kit::Starters` lays them out). Not here: what every
//! game's bot in a language shares, and the writing (`crate::kit`).

use crate::kit::{self, Starters};

/// This game's starting bot in every language.
pub const STARTERS: Starters = Starters {
    rust: include_str!("../../templates/invisible_target/rust/src/lib.rs"),
    c: include_str!("../../templates/invisible_target/c/bot.c"),
    c_header: Some(kit::file("target_bot.h", include_str!("../../../plugin-abi/include/target_bot.h"))),
    rhai: include_str!("../../templates/invisible_target/rhai/bot.rhai"),
    lua: include_str!("../../templates/invisible_target/lua/bot.lua"),
    python: include_str!("../../templates/invisible_target/python/bot.py"),
};
