//! This game's starting bots for `arena new-bot --game hex`, one per language, from
//! `games/templates/hex/` (`kit::Starters` lays them out). Not here: what every
//! game's bot in a language shares, and the writing (`crate::kit`).

use crate::kit::{self, Starters};

/// This game's starting bot in every language.
pub const STARTERS: Starters = Starters {
    rust: include_str!("../../templates/hex/rust/src/lib.rs"),
    c: include_str!("../../templates/hex/c/bot.c"),
    c_header: Some(kit::file("hex_bot.h", include_str!("../../../plugin-abi/include/hex_bot.h"))),
    rhai: include_str!("../../templates/hex/rhai/bot.rhai"),
    lua: include_str!("../../templates/hex/lua/bot.lua"),
    python: include_str!("../../templates/hex/python/bot.py"),
};
