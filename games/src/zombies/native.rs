//! Native zombies bots: the abi_stable bot objects and the C table's `turn` (and, ABI 1.6,
//! `turn_all`), behind the host's [`Bot`]. The library itself is opened and checked by
//! `loaders::native`.
//!
//! A library of ABI 1.6 (a Rust [`EntryBotBox`], a C table with `turn_all`) answers all of
//! its entry's players of a turn in one call ([`Bot::whole_entry`]); older libraries get
//! one call per player, as before.

use std::ffi::c_void;
use std::sync::Arc;

use zombies_plugin_abi::abi_stable::std_types::{RErr, ROk, RSlice, RSliceMut};
use zombies_plugin_abi::{Action, BotBox, Context, EntryBotBox};

use super::Zombies;
use crate::bot::{Bot, BotError, BotFactory};
use crate::loaders::native::{self, NativeModule};

/// The bots of a library that plays zombies.
pub(super) fn bots(module: &NativeModule) -> Result<Arc<dyn BotFactory<Zombies>>, String> {
    match *module {
        NativeModule::Rust(m) => Ok(match m.new_entry_bot() {
            Some(new_entry_bot) => native::rust_factory(new_entry_bot, |bot| {
                Box::new(NativeEntryBot { bot, actions: Vec::new() }) as Box<dyn Bot<Zombies>>
            }),
            None => native::rust_factory(m.new_bot(), |bot| Box::new(NativeBot(bot))),
        }),
        NativeModule::C(table) => {
            let (create, turn, destroy) = native::c_functions(&table, table.turn(), "turn")?;
            let fns = CFns { turn, turn_all: table.turn_all(), destroy };
            Ok(native::c_factory(create, move |state| Box::new(CBot { fns, state, actions: Vec::new() })))
        }
    }
}

/// A Rust bot behind the abi_stable trait object (libraries before ABI 1.6).
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

/// A Rust bot that answers a whole entry's turn in one call (ABI 1.6).
struct NativeEntryBot {
    bot: EntryBotBox,
    /// Scratch: the answers of the last whole-entry call.
    actions: Vec<Action>,
}

impl Bot<Zombies> for NativeEntryBot {
    #[inline]
    fn turn(&mut self, ctx: &Context<'_>) -> Result<Action, BotError> {
        match self.bot.turn(ctx) {
            ROk(action) => Ok(action),
            RErr(msg) => Err(BotError::Failed(msg.into_string())),
        }
    }

    fn whole_entry(&self) -> bool {
        true
    }

    fn turn_all(&mut self, calls: &[Context<'_>], answers: &mut Vec<Result<Action, BotError>>) {
        self.actions.clear();
        self.actions.resize(calls.len(), Action::stay());
        let failures = self.bot.turn_all(RSlice::from_slice(calls), RSliceMut::from_mut_slice(&mut self.actions));
        answers.clear();
        answers.extend(self.actions.iter().map(|&a| Ok(a)));
        for failure in failures {
            // A failure at a place that is not a player's is the bot's mistake: dropped.
            if let Some(answer) = answers.get_mut(failure.player as usize) {
                *answer = Err(BotError::Failed(failure.message.into_string()));
            }
        }
    }
}

/// The checked C functions of a library.
#[derive(Clone, Copy)]
struct CFns {
    turn: extern "C" fn(*mut c_void, &Context<'_>) -> Action,
    /// (1.6) All of an entry's players in one call, when the table has it.
    turn_all: Option<extern "C" fn(*mut c_void, *const Context<'_>, usize, *mut Action)>,
    destroy: extern "C" fn(*mut c_void),
}

/// A C bot instance; destroyed with its game.
struct CBot {
    fns: CFns,
    state: *mut c_void,
    /// Scratch: the answers of the last whole-entry call.
    actions: Vec<Action>,
}

impl Bot<Zombies> for CBot {
    #[inline]
    fn turn(&mut self, ctx: &Context<'_>) -> Result<Action, BotError> {
        Ok((self.fns.turn)(self.state, ctx))
    }

    fn whole_entry(&self) -> bool {
        self.fns.turn_all.is_some()
    }

    fn turn_all(&mut self, calls: &[Context<'_>], answers: &mut Vec<Result<Action, BotError>>) {
        answers.clear();
        let Some(turn_all) = self.fns.turn_all else {
            answers.extend(calls.iter().map(|ctx| self.turn(ctx)));
            return;
        };
        self.actions.clear();
        self.actions.resize(calls.len(), Action::stay());
        // The library writes `calls.len()` answers, one per context (zombies_bot.h).
        turn_all(self.state, calls.as_ptr(), calls.len(), self.actions.as_mut_ptr());
        answers.extend(self.actions.iter().map(|&a| Ok(a)));
    }
}

impl Drop for CBot {
    fn drop(&mut self) {
        (self.fns.destroy)(self.state);
    }
}
