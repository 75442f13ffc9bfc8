//! Native hex bots: the abi_stable hex bot objects and the C table's `hex_turn` and
//! `hex_side`, behind the host's [`Bot`]. The library itself is opened and checked by
//! `loaders::native`. A per-unit call hands the bot an empty answer to fill; a whole-side
//! call (ABI 1.3) hands it a `HexSideTurn` over the play loop's side channel.
//!
//! A native call cannot be stopped from inside the host, so a side call's time is kept
//! at its commands: once the call has used its share (`SideInfo::share`), every further
//! command is refused unrun ([`Verdict::Time`]), and a call that ends past it counts as
//! an overrun. The call's own time is charged to the bank as measured here.

use std::ffi::c_void;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::Arc;
use std::time::Duration;

use zombies_plugin_abi::Random;
use zombies_plugin_abi::abi_stable::std_types::{RErr, ROk};
use zombies_plugin_abi::hex::{
    HexAnswer, HexBotBox, HexCommand, HexContext, HexSideBotBox, HexSideTurn, HexVerdict, NO_LIMIT,
};

use super::side::{SideChannel, Verdict};
use super::{Hex, HexCall};
use crate::bot::{Bot, BotError, BotFactory};
use crate::clock::{OwnDeadline, Stopwatch};
use crate::loaders::native::{self, NativeModule};

/// The bots of a library that plays hex: by whole sides if it exports that constructor
/// (the Rust root module's `new_hex_side_bot`, the C table's `hex_side`), else per unit.
pub(super) fn bots(module: &NativeModule) -> Result<Arc<dyn BotFactory<Hex>>, String> {
    match *module {
        NativeModule::Rust(m) => {
            if let Some(new_bot) = m.new_hex_side_bot() {
                return Ok(native::rust_factory(new_bot, |bot| Box::new(NativeSideBot { bot, spent: None })));
            }
            let new_bot = m.new_hex_bot().ok_or_else(|| native::without_bots("hex"))?;
            Ok(native::rust_factory(new_bot, |bot| Box::new(NativeBot(bot))))
        }
        NativeModule::C(table) => {
            if let Some(side) = table.hex_side() {
                let (create, side, destroy) = native::c_functions(&table, Some(side), "hex_side")?;
                return Ok(native::c_factory(create, move |state| {
                    Box::new(CSideBot { side, destroy, state, spent: None })
                }));
            }
            let (create, turn, destroy) = native::c_functions(&table, table.hex_turn(), "hex_turn")?;
            let fns = CFns { turn, destroy };
            Ok(native::c_factory(create, move |state| Box::new(CBot { fns, state })))
        }
    }
}

/// A Rust bot behind the abi_stable trait object.
struct NativeBot(HexBotBox);

impl Bot<Hex> for NativeBot {
    fn turn(&mut self, call: &HexCall<'_>) -> Result<HexAnswer, BotError> {
        let mut answer = HexAnswer::default();
        match self.0.turn(&call.ctx, &mut answer) {
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

impl Bot<Hex> for CBot {
    fn turn(&mut self, call: &HexCall<'_>) -> Result<HexAnswer, BotError> {
        let mut answer = HexAnswer::default();
        (self.fns.turn)(self.state, &call.ctx, &mut answer);
        Ok(answer)
    }
}

impl Drop for CBot {
    fn drop(&mut self) {
        (self.fns.destroy)(self.state);
    }
}

/// A Rust bot that plays whole sides.
struct NativeSideBot {
    bot: HexSideBotBox,
    /// The own time of the last call.
    spent: Option<Duration>,
}

impl Bot<Hex> for NativeSideBot {
    fn turn(&mut self, call: &HexCall<'_>) -> Result<HexAnswer, BotError> {
        let bot = &mut self.bot;
        let (result, spent) = play_side(call, |turn| match bot.play(turn) {
            ROk(()) => Ok(()),
            RErr(msg) => Err(BotError::Failed(msg.into_string())),
        });
        self.spent = spent;
        result
    }

    fn times_itself(&self) -> bool {
        true
    }

    fn call_time(&self) -> Option<Duration> {
        self.spent
    }
}

/// A C bot that plays whole sides; destroyed with its game.
struct CSideBot {
    side: extern "C" fn(*mut c_void, &mut HexSideTurn<'_>),
    destroy: extern "C" fn(*mut c_void),
    state: *mut c_void,
    spent: Option<Duration>,
}

impl Bot<Hex> for CSideBot {
    fn turn(&mut self, call: &HexCall<'_>) -> Result<HexAnswer, BotError> {
        let (side, state) = (self.side, self.state);
        let (result, spent) = play_side(call, |turn| {
            side(state, turn);
            Ok(())
        });
        self.spent = spent;
        result
    }

    fn times_itself(&self) -> bool {
        true
    }

    fn call_time(&self) -> Option<Duration> {
        self.spent
    }
}

impl Drop for CSideBot {
    fn drop(&mut self) {
        (self.destroy)(self.state);
    }
}

/// Plays a side call through `play` (the native bot's side function) with a
/// `HexSideTurn` over the call's side channel: the call's result (an overrun when it
/// ended past its share) and its own time.
fn play_side(
    call: &HexCall<'_>,
    play: impl FnOnce(&mut HexSideTurn<'_>) -> Result<(), BotError>,
) -> (Result<HexAnswer, BotError>, Option<Duration>) {
    let Some(channel) = call.take_side() else {
        return (Err(BotError::Failed("a bot that plays whole sides was called for one unit".into())), None);
    };
    channel.claim();
    let info = channel.info();
    let share = info.share(None);
    let watch = Stopwatch::start();
    let random = call.ctx.random;
    // SAFETY: as in `context`: the lifetime is erased while the sight stays put.
    let ctx = unsafe {
        std::mem::transmute::<HexContext<'_>, HexContext<'static>>(HexContext { random, ..channel.context() })
    };
    let mut state = TurnState {
        channel,
        random,
        ctx,
        fresh: true,
        deadline: share.map(OwnDeadline::start),
        over: false,
        panic: None,
    };
    let ns = |d: Option<Duration>| d.map_or(NO_LIMIT, |d| d.as_nanos().min(u128::from(NO_LIMIT - 1)) as u64);
    // SAFETY: `state` outlives the turn (both live until the end of this function), the
    // callbacks are called in this thread only, and the context `context` returns lives
    // in `state`, rewritten only by the first `context` after a `command`.
    let mut turn = unsafe {
        HexSideTurn::from_raw(
            (&mut state as *mut TurnState<'_, '_>).cast::<c_void>(),
            context,
            command,
            call.clocks.map(ns),
            ns(share),
            info.max_commands,
            info.calls,
        )
    };
    let result = play(&mut turn);
    let spent = watch.own();
    if let Some(payload) = state.panic.take() {
        resume_unwind(payload);
    }
    let result = match result {
        Ok(()) if state.over || share.is_some_and(|s| spent > s) => Err(BotError::Timeout),
        Ok(()) => Ok(HexAnswer::default()),
        Err(e) => Err(e),
    };
    (result, Some(spent))
}

/// What a `HexSideTurn`'s callbacks work on.
struct TurnState<'c, 'r> {
    channel: &'c mut (dyn SideChannel + 'c),
    /// The call's random numbers (a replay counts them).
    random: Random<'r>,
    /// The context handed out, made again at the first `context` after a command (a stale
    /// one keeps its numbers; its lists may have moved).
    ctx: HexContext<'static>,
    /// `ctx` is the sight as the last command left it.
    fresh: bool,
    /// When the call's share is spent.
    deadline: Option<OwnDeadline>,
    /// A command was refused for time.
    over: bool,
    /// A panic of the host's code inside `command` (the debug builds' check of the
    /// sight), resumed once the bot has returned: it must not unwind through the bot's
    /// frames.
    panic: Option<Box<dyn std::any::Any + Send>>,
}

extern "C" fn context(state: *mut c_void) -> *const HexContext<'static> {
    let state = state.cast::<TurnState<'_, '_>>();
    // SAFETY: `state` is the `TurnState` of `play_side`, alive for the whole call. The
    // context is written only when none was handed out since the last command, so no
    // reference the bot holds is invalidated (the bot's `&HexContext` borrows the turn,
    // which `command` needs mutably). Making a context reads the sight and cannot fail.
    unsafe {
        if !(*state).fresh {
            let s = &mut *state;
            let ctx = HexContext { random: s.random, ..s.channel.context() };
            // The slices point into the play loop's sight, which stays put until the next
            // command; the lifetime is erased only for as long.
            s.ctx = std::mem::transmute::<HexContext<'_>, HexContext<'static>>(ctx);
            s.fresh = true;
        }
        &raw const (*state).ctx
    }
}

extern "C" fn command(state: *mut c_void, unit: u32, command: &HexCommand) -> HexVerdict {
    // SAFETY: as in `context`; the bot gave up its context to call this.
    let s = unsafe { &mut *state.cast::<TurnState<'_, '_>>() };
    s.fresh = false;
    if s.panic.is_some() {
        return Verdict::Invalid.to_abi();
    }
    if s.over || s.deadline.as_mut().is_some_and(OwnDeadline::passed) {
        s.over = true;
        s.channel.refuse(unit, command, Verdict::Time);
        return Verdict::Time.to_abi();
    }
    match catch_unwind(AssertUnwindSafe(|| s.channel.command(unit, command))) {
        Ok(verdict) => verdict.to_abi(),
        Err(payload) => {
            s.panic = Some(payload);
            Verdict::Invalid.to_abi()
        }
    }
}
