//! Native zombies bots: the abi_stable bot object and the C table's `turn`, behind
//! the host's [`Bot`]. The library itself is opened and checked by `loaders::native`.

use std::ffi::c_void;
use std::sync::Arc;

use zombies_plugin_abi::abi_stable::std_types::{RErr, ROk};
use zombies_plugin_abi::{Action, BotBox, Context};

use super::Zombies;
use crate::bot::{Bot, BotError, BotFactory};
use crate::loaders::native::NativeModule;

/// The bots of a library that plays zombies.
pub(super) fn bots(module: &NativeModule) -> Result<Arc<dyn BotFactory<Zombies>>, String> {
    match *module {
        NativeModule::Rust(m) => {
            let new_bot = m.new_bot();
            let factory = move || match new_bot() {
                ROk(bot) => Ok(Box::new(NativeBot(bot)) as Box<dyn Bot<Zombies>>),
                RErr(msg) => Err(BotError::Failed(format!("constructor failed: {msg}"))),
            };
            Ok(Arc::new(factory))
        }
        NativeModule::C(table) => {
            let (Some(create), Some(turn), Some(destroy)) = (table.create(), table.turn(), table.destroy()) else {
                return Err("its bot table lacks create, turn or destroy".to_owned());
            };
            let fns = CFns { create, turn, destroy };
            let factory = move || {
                let state = (fns.create)();
                if state.is_null() {
                    Err(BotError::Failed("create() returned NULL".to_owned()))
                } else {
                    Ok(Box::new(CBot { fns, state }) as Box<dyn Bot<Zombies>>)
                }
            };
            Ok(Arc::new(factory))
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
    create: extern "C" fn() -> *mut c_void,
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
