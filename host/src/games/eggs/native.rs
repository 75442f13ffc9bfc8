//! Native eggs bots: the abi_stable eggs bot object and the C table's `eggs_turn`,
//! behind the host's [`Bot`]. The library itself is opened and checked by
//! `loaders::native`. The answer handed to the bot holds its previous memory, so a bot
//! that does not touch it keeps it.

use std::ffi::c_void;
use std::sync::Arc;

use zombies_plugin_abi::abi_stable::std_types::{RErr, ROk};
use zombies_plugin_abi::eggs::{EggsAnswer, EggsBotBox, EggsContext};

use super::EggHunt;
use crate::bot::{Bot, BotError, BotFactory};
use crate::loaders::native::NativeModule;

/// The bots of a library that plays eggs.
pub(super) fn bots(module: &NativeModule) -> Result<Arc<dyn BotFactory<EggHunt>>, String> {
    match *module {
        NativeModule::Rust(m) => {
            let new_bot = m.new_eggs_bot().ok_or("an ABI 1.0 library cannot play eggs (it has no eggs bots)")?;
            let factory = move || match new_bot() {
                ROk(bot) => Ok(Box::new(NativeBot(bot)) as Box<dyn Bot<EggHunt>>),
                RErr(msg) => Err(BotError::Failed(format!("constructor failed: {msg}"))),
            };
            Ok(Arc::new(factory))
        }
        NativeModule::C(table) => {
            let (Some(create), Some(turn), Some(destroy)) = (table.create(), table.eggs_turn(), table.destroy()) else {
                return Err("its bot table lacks create, eggs_turn or destroy".to_owned());
            };
            let fns = CFns { create, turn, destroy };
            let factory = move || {
                let state = (fns.create)();
                if state.is_null() {
                    Err(BotError::Failed("create() returned NULL".to_owned()))
                } else {
                    Ok(Box::new(CBot { fns, state }) as Box<dyn Bot<EggHunt>>)
                }
            };
            Ok(Arc::new(factory))
        }
    }
}

/// The answer a native bot starts from: stay, Nothing, the previous memory.
fn start(ctx: &EggsContext<'_>) -> EggsAnswer {
    super::answer(zombies_plugin_abi::eggs::dir::STAY, zombies_plugin_abi::eggs::NOTHING, ctx.memory.as_slice())
}

/// A Rust bot behind the abi_stable trait object.
struct NativeBot(EggsBotBox);

impl Bot<EggHunt> for NativeBot {
    fn turn(&mut self, ctx: &EggsContext<'_>) -> Result<EggsAnswer, BotError> {
        let mut answer = start(ctx);
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
    turn: extern "C" fn(*mut c_void, &EggsContext<'_>, &mut EggsAnswer),
    destroy: extern "C" fn(*mut c_void),
}

/// A C bot instance; destroyed with its game.
struct CBot {
    fns: CFns,
    state: *mut c_void,
}

impl Bot<EggHunt> for CBot {
    fn turn(&mut self, ctx: &EggsContext<'_>) -> Result<EggsAnswer, BotError> {
        let mut answer = start(ctx);
        (self.fns.turn)(self.state, ctx, &mut answer);
        Ok(answer)
    }
}

impl Drop for CBot {
    fn drop(&mut self) {
        (self.fns.destroy)(self.state);
    }
}
