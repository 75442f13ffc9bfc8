//! Native zombies bots: the abi_stable bot object and the C table's `turn`, behind
//! the host's [`Bot`]. The library itself is opened and checked by `loaders::native`.

use std::ffi::c_void;
use std::sync::Arc;

use zombies_plugin_abi::abi_stable::std_types::{RErr, ROk};
use zombies_plugin_abi::{Action, BotBox, Context};

use super::Zombies;
use crate::bot::{Bot, BotError, BotFactory};
use crate::loaders::native::{self, NativeModule};

/// The bots of a library that plays zombies.
pub(super) fn bots(module: &NativeModule) -> Result<Arc<dyn BotFactory<Zombies>>, String> {
    match *module {
        NativeModule::Rust(m) => Ok(native::rust_factory(m.new_bot(), |bot| Box::new(NativeBot(bot)))),
        NativeModule::C(table) => {
            let (create, turn, destroy) = native::c_functions(&table, table.turn(), "turn")?;
            let fns = CFns { turn, destroy };
            Ok(native::c_factory(create, move |state| Box::new(CBot { fns, state })))
        }
    }
}

/// A Rust bot behind the abi_stable trait object.
struct NativeBot(BotBox);

impl Bot<Zombies> for NativeBot {
    #[inline]
    fn turn(&mut self, ctx: &Context<'_>) -> Result<Action, BotError> {
        match self.0.turn(ctx) {
            ROk(action) => Ok(action),
            RErr(msg) => Err(BotError::Failed(msg.into_string())),
        }
    }
}

/// The checked C functions of a library.
#[derive(Clone, Copy)]
struct CFns {
    turn: extern "C" fn(*mut c_void, &Context<'_>) -> Action,
    destroy: extern "C" fn(*mut c_void),
}

/// A C bot instance; destroyed with its game.
struct CBot {
    fns: CFns,
    state: *mut c_void,
}

impl Bot<Zombies> for CBot {
    #[inline]
    fn turn(&mut self, ctx: &Context<'_>) -> Result<Action, BotError> {
        Ok((self.fns.turn)(self.state, ctx))
    }
}

impl Drop for CBot {
    fn drop(&mut self) {
        (self.fns.destroy)(self.state);
    }
}
