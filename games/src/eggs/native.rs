//! Native eggs bots: the abi_stable eggs bot object and the C table's `eggs_turn`,
//! behind the host's [`Bot`]. The library itself is opened and checked by
//! `loaders::native`. The answer handed to the bot holds its previous memory, so a bot
//! that does not touch it keeps it.

use std::ffi::c_void;
use std::sync::Arc;

use zombies_plugin_abi::abi_stable::std_types::{RErr, ROk};
use zombies_plugin_abi::eggs::{EggsAnswer, EggsBotBox, EggsContext};

use super::Eggs;
use crate::bot::{Bot, BotError, BotFactory};
use crate::loaders::native::{self, NativeModule};

/// The bots of a library that plays eggs.
pub(super) fn bots(module: &NativeModule) -> Result<Arc<dyn BotFactory<Eggs>>, String> {
    match *module {
        NativeModule::Rust(m) => {
            let new_bot = m.new_eggs_bot().ok_or_else(|| native::without_bots("eggs"))?;
            Ok(native::rust_factory(new_bot, |bot| Box::new(NativeBot(bot))))
        }
        NativeModule::C(table) => {
            let (create, turn, destroy) = native::c_functions(&table, table.eggs_turn(), "eggs_turn")?;
            let fns = CFns { turn, destroy };
            Ok(native::c_factory(create, move |state| Box::new(CBot { fns, state })))
        }
    }
}

/// The answer a native bot starts from: stay, Nothing, the previous memory.
fn start(ctx: &EggsContext<'_>) -> EggsAnswer {
    super::answer(zombies_plugin_abi::eggs::dir::STAY, zombies_plugin_abi::eggs::NOTHING, ctx.memory.as_slice())
}

/// A Rust bot behind the abi_stable trait object.
struct NativeBot(EggsBotBox);

impl Bot<Eggs> for NativeBot {
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
    turn: extern "C" fn(*mut c_void, &EggsContext<'_>, &mut EggsAnswer),
    destroy: extern "C" fn(*mut c_void),
}

/// A C bot instance; destroyed with its game.
struct CBot {
    fns: CFns,
    state: *mut c_void,
}

impl Bot<Eggs> for CBot {
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
