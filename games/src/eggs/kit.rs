//! This game's starting bots for `arena new-bot --game eggs`, one per language, from
//! `games/templates/eggs/` (`kit::Starters` lays them out). Not here: what every
//! game's bot in a language shares, and the writing (`crate::kit`).

use crate::kit::{self, Starters};

/// This game's starting bot in every language.
pub const STARTERS: Starters = Starters {
    rust: include_str!("../../templates/eggs/rust/src/lib.rs"),
    c: include_str!("../../templates/eggs/c/bot.c"),
    c_header: Some(kit::file("eggs_bot.h", include_str!("../../../plugin-abi/include/eggs_bot.h"))),
    rhai: include_str!("../../templates/eggs/rhai/bot.rhai"),
    lua: include_str!("../../templates/eggs/lua/bot.lua"),
    python: include_str!("../../templates/eggs/python/bot.py"),
};
