//! This game's starting bots for `arena new-bot --game target`, one per language, from
//! `games/templates/invisible_target/`. Not here: what every game's bot in a language shares, and
//! the writing (`crate::kit`).

use crate::kit::{self, File};

/// This game's starting bot in `lang` (one of `kit::LANGS`), if there is one.
pub fn starter(lang: &str) -> Option<Vec<File>> {
    Some(match lang {
        "rust" => vec![kit::file("src/lib.rs", include_str!("../../templates/invisible_target/rust/src/lib.rs"))],
        "c" => vec![
            kit::file("NAME.c", include_str!("../../templates/invisible_target/c/bot.c")),
            kit::BASE_HEADER,
            kit::file("target_bot.h", include_str!("../../../plugin-abi/include/target_bot.h")),
        ],
        "rhai" => vec![kit::file("NAME.rhai", include_str!("../../templates/invisible_target/rhai/bot.rhai"))],
        "lua" => vec![kit::file("NAME.lua", include_str!("../../templates/invisible_target/lua/bot.lua"))],
        "python" => vec![kit::program("NAME.py", include_str!("../../templates/invisible_target/python/bot.py"))],
        _ => return None,
    })
}
