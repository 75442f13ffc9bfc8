//! Native hex bots: the abi_stable hex bot object and the C table's `hex_turn`, behind the
//! host's [`Bot`]. The library itself is opened and checked by `loaders::native`. Each call
//! hands the bot an empty answer to fill.

use std::ffi::c_void;
use std::sync::Arc;

use zombies_plugin_abi::abi_stable::std_types::{RErr, ROk};
use zombies_plugin_abi::hex::{HexAnswer, HexBotBox, HexContext};

use super::HexGame;
use crate::bot::{Bot, BotError, BotFactory};
use crate::loaders::native::NativeModule;

/// The bots of a library that plays hex.
pub(super) fn bots(module: &NativeModule) -> Result<Arc<dyn BotFactory<HexGame>>, String> {
    match *module {
        NativeModule::Rust(m) => {
            let new_bot = m.new_hex_bot().ok_or("this library has no hex bots (built before hex was added)")?;
            let factory = move || match new_bot() {
                ROk(bot) => Ok(Box::new(NativeBot(bot)) as Box<dyn Bot<HexGame>>),
                RErr(msg) => Err(BotError::Failed(format!("constructor failed: {msg}"))),
            };
            Ok(Arc::new(factory))
        }
        NativeModule::C(table) => {
            let (Some(create), Some(turn), Some(destroy)) = (table.create(), table.hex_turn(), table.destroy()) else {
                return Err("its bot table lacks create, hex_turn or destroy".to_owned());
            };
            let fns = CFns { create, turn, destroy };
            let factory = move || {
                let state = (fns.create)();
                if state.is_null() {
                    Err(BotError::Failed("create() returned NULL".to_owned()))
                } else {
                    Ok(Box::new(CBot { fns, state }) as Box<dyn Bot<HexGame>>)
                }
            };
            Ok(Arc::new(factory))
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
    create: extern "C" fn() -> *mut c_void,
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
