//! Native hex bots: the abi_stable hex bot object and the C table's `hex_turn`, behind the
//! host's [`Bot`]. The library itself is opened and checked by `loaders::native`. Each call
//! hands the bot an empty answer to fill.

use std::ffi::c_void;
use std::sync::Arc;

use zombies_plugin_abi::abi_stable::std_types::{RErr, ROk};
use zombies_plugin_abi::hex::{HexAnswer, HexBotBox, HexContext};

use super::HexGame;
use crate::bot::{Bot, BotError, BotFactory};
use crate::loaders::native::{self, NativeModule};

/// The bots of a library that plays hex.
pub(super) fn bots(module: &NativeModule) -> Result<Arc<dyn BotFactory<HexGame>>, String> {
    match *module {
        NativeModule::Rust(m) => {
            let new_bot = m.new_hex_bot().ok_or_else(|| native::without_bots("hex"))?;
            Ok(native::rust_factory(new_bot, |bot| Box::new(NativeBot(bot))))
        }
        NativeModule::C(table) => {
            let (create, turn, destroy) = native::c_functions(&table, table.hex_turn(), "hex_turn")?;
            let fns = CFns { turn, destroy };
            Ok(native::c_factory(create, move |state| Box::new(CBot { fns, state })))
        }
    }
}

/// A Rust bot behind the abi_stable trait object.
struct NativeBot(HexBotBox);

impl Bot<HexGame> for NativeBot {
    fn turn(&mut self, ctx: &HexContext<'_>) -> Result<HexAnswer, BotError> {
        let mut answer = HexAnswer::default();
        match self.0.turn(ctx, &mut answer) {
            ROk(()) => Ok(answer),
            RErr(msg) => Err(BotError::Failed(msg.into_string())),
        }
    }
}

/// The checked C functions of a library.
#[derive(Clone, Copy)]
struct CFns {
    turn: extern "C" fn(*mut c_void, &HexContext<'_>, &mut HexAnswer),
    destroy: extern "C" fn(*mut c_void),
}

/// A C bot instance; destroyed with its game.
struct CBot {
    fns: CFns,
    state: *mut c_void,
}

impl Bot<HexGame> for CBot {
    fn turn(&mut self, ctx: &HexContext<'_>) -> Result<HexAnswer, BotError> {
        let mut answer = HexAnswer::default();
        (self.fns.turn)(self.state, ctx, &mut answer);
        Ok(answer)
    }
}

impl Drop for CBot {
    fn drop(&mut self) {
        (self.fns.destroy)(self.state);
    }
}
