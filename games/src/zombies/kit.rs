//! This game's starting bots for `arena new-bot --game zombies`, one per language, from
//! `games/templates/zombies/` (`kit::Starters` lays them out). Not here: what every
//! game's bot in a language shares, and the writing (`crate::kit`).

use crate::kit::Starters;

/// This game's starting bot in every language.
pub const STARTERS: Starters = Starters {
    rust: include_str!("../../templates/zombies/rust/src/lib.rs"),
    c: include_str!("../../templates/zombies/c/bot.c"),
    c_header: None,
    rhai: include_str!("../../templates/zombies/rhai/bot.rhai"),
    lua: include_str!("../../templates/zombies/lua/bot.lua"),
    python: include_str!("../../templates/zombies/python/bot.py"),
};
