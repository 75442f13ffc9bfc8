//! Native target bots: the abi_stable target bot object and the C table's
//! `target_turn`, behind the host's [`Bot`]. The library itself is opened and checked by
//! `loaders::native`. One bot per entry and game, called once per copy.

use std::ffi::c_void;
use std::sync::Arc;

use zombies_plugin_abi::abi_stable::std_types::{RErr, ROk};
use zombies_plugin_abi::target::{TargetBotBox, TargetContext};

use super::InvisibleTarget;
use crate::bot::{Bot, BotError, BotFactory};
use crate::loaders::native::{self, NativeModule};

/// The bots of a library that plays target.
pub(super) fn bots(module: &NativeModule) -> Result<Arc<dyn BotFactory<InvisibleTarget>>, String> {
    match *module {
        NativeModule::Rust(m) => {
            let new_bot = m.new_target_bot().ok_or_else(|| native::without_bots("target"))?;
            Ok(native::rust_factory(new_bot, |bot| Box::new(NativeBot(bot))))
        }
        NativeModule::C(table) => {
            let (create, turn, destroy) = native::c_functions(&table, table.target_turn(), "target_turn")?;
            let fns = CFns { turn, destroy };
            Ok(native::c_factory(create, move |state| Box::new(CBot { fns, state })))
        }
    }
}

/// A Rust bot behind the abi_stable trait object.
struct NativeBot(TargetBotBox);

impl Bot<InvisibleTarget> for NativeBot {
    fn turn(&mut self, ctx: &TargetContext<'_>) -> Result<u32, BotError> {
        match self.0.turn(ctx) {
            ROk(mv) => Ok(mv),
            RErr(msg) => Err(BotError::Failed(msg.into_string())),
        }
    }
}

/// The checked C functions of a library.
#[derive(Clone, Copy)]
struct CFns {
    turn: extern "C" fn(*mut c_void, &TargetContext<'_>) -> u32,
    destroy: extern "C" fn(*mut c_void),
}

/// A C bot instance; destroyed with its game.
struct CBot {
    fns: CFns,
    state: *mut c_void,
}

impl Bot<InvisibleTarget> for CBot {
    fn turn(&mut self, ctx: &TargetContext<'_>) -> Result<u32, BotError> {
        Ok((self.fns.turn)(self.state, ctx))
    }
}

impl Drop for CBot {
    fn drop(&mut self) {
        (self.fns.destroy)(self.state);
    }
}
