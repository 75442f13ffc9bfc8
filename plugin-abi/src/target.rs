//! The "Invisible target" contract (ABI 1.1): what a target bot sees ([`TargetContext`])
//! and answers (a move `0..=4`), the stable bot object ([`TargetBot`]), and the trait a
//! Rust target bot implements ([`TargetPlayer`], exported with
//! [`export_target_bot!`](crate::export_target_bot)).
//!
//! These mirror the seed's text protocol: the player's position, the wall added since
//! its previous turn (or [`NO_WALL`]), and the other players' positions in the turn
//! order starting after it; positions are `p = 64 * y + x` on the 64x64 torus. One
//! entry fields several copies; its one bot instance is called once per copy, on that
//! copy's turn, and is told which copy it plays ([`TargetContext::copy`]). Nothing here
//! knows the rules beyond that (they are the host's `games::invisible_target`).
//!
//! `include/target_bot.h` declares the same layout for C (asserted on both sides).
#![allow(non_local_definitions)]

use abi_stable::{
    StableAbi, sabi_trait,
    std_types::{RBox, RResult, RSlice, RString},
};

use crate::Random;

/// Side of the (square, toroidal) board.
pub const SIDE: u32 = 64;
/// Number of cells; positions are `0..CELLS`.
pub const CELLS: u32 = SIDE * SIDE;
/// The "no wall added" value of [`TargetContext::new_wall`].
pub const NO_WALL: u32 = 4096;

/// Move north (`y - 1`, wrapping).
pub const NORTH: u32 = 0;
/// Move west (`x - 1`, wrapping).
pub const WEST: u32 = 1;
/// Stay.
pub const STAY: u32 = 2;
/// Move east (`x + 1`, wrapping).
pub const EAST: u32 = 3;
/// Move south (`y + 1`, wrapping).
pub const SOUTH: u32 = 4;
/// The four real moves.
pub const MOVES: [u32; 4] = [NORTH, WEST, EAST, SOUTH];

/// What a target bot sees on one of its copies' turns. Valid only during the call.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug)]
pub struct TargetContext<'a> {
    /// The player's position (`64 * y + x`).
    pub me: u32,
    /// The wall added since this player's previous turn (since the start, for its first
    /// turn), or [`NO_WALL`].
    pub new_wall: u32,
    /// Which of its entry's copies this player is (`0..copies`).
    pub copy: u32,
    /// How many copies (players) the entry has.
    pub copies: u32,
    /// The round, from 0 (every player has one turn per round).
    pub round: u32,
    /// Every other player's position (copies of its own entry included), in the turn
    /// order starting after this player and wrapping around: the same order every turn.
    pub others: RSlice<'a, u16>,
    /// The game's random numbers (keep games reproducible: draw from here).
    pub random: Random<'a>,
}

impl TargetContext<'_> {
    /// A uniform integer in `0..n` from the game's generator.
    #[inline]
    pub fn random(&self, n: u32) -> u32 {
        self.random.below(n)
    }

    /// Number of players in the game.
    #[inline]
    pub fn players(&self) -> usize {
        self.others.len() + 1
    }
}

/// The column of a position.
#[inline]
pub const fn x_of(p: u32) -> u32 {
    p % SIDE
}

/// The row of a position.
#[inline]
pub const fn y_of(p: u32) -> u32 {
    (p / SIDE) % SIDE
}

/// The cell a move leads to from `p` on the torus (`p` itself for [`STAY`] or any other
/// value).
#[inline]
pub const fn step(p: u32, mv: u32) -> u32 {
    let (x, y) = (x_of(p), y_of(p));
    match mv {
        NORTH => ((y + SIDE - 1) % SIDE) * SIDE + x,
        SOUTH => ((y + 1) % SIDE) * SIDE + x,
        WEST => y * SIDE + (x + SIDE - 1) % SIDE,
        EAST => y * SIDE + (x + 1) % SIDE,
        _ => p,
    }
}

/// Torus Manhattan distance: `min(|dx|, 64-|dx|) + min(|dy|, 64-|dy|)`.
#[inline]
pub const fn distance(a: u32, b: u32) -> u32 {
    let dx = x_of(a).abs_diff(x_of(b));
    let dy = y_of(a).abs_diff(y_of(b));
    let dx = if dx < SIDE - dx { dx } else { SIDE - dx };
    let dy = if dy < SIDE - dy { dy } else { SIDE - dy };
    dx + dy
}

pub use bot_trait::{TargetBot, TargetBot_TO};

mod bot_trait {
    //! The `#[sabi_trait]` target bot object.
    #![allow(non_local_definitions, non_camel_case_types, missing_docs)]
    use super::*;

    /// The target bot object a plugin hands to the host: one per entry per game, called
    /// once per copy on that copy's turn.
    #[sabi_trait]
    pub trait TargetBot {
        /// The move of the copy whose turn it is: `0` north, `1` west, `2` stay, `3`
        /// east, `4` south. Anything else, or an `RErr`, leaves the player where it is
        /// (an `RErr` and a value outside `0..=4` count as errors).
        #[sabi(last_prefix_field)]
        fn turn(&mut self, ctx: &TargetContext<'_>) -> RResult<u32, RString>;
    }
}

/// An owned target bot object.
pub type TargetBotBox = TargetBot_TO<'static, RBox<()>>;

/// What a Rust target bot implements;
/// [`export_target_bot!`](crate::export_target_bot) turns it into a plugin.
pub trait TargetPlayer: 'static {
    /// The entry's name.
    const NAME: &'static str;
    /// A fresh bot, made at the start of every game (one for all the entry's copies).
    fn new() -> Self;
    /// The move of copy `ctx.copy` on its turn: one of [`NORTH`], [`WEST`], [`STAY`],
    /// [`EAST`], [`SOUTH`].
    fn turn(&mut self, ctx: &TargetContext<'_>) -> u32;
}

// The C header asserts the same layout (64-bit targets).
#[cfg(target_pointer_width = "64")]
const _: () = {
    assert!(core::mem::size_of::<TargetContext<'_>>() == 56);
    assert!(core::mem::offset_of!(TargetContext<'_>, round) == 16);
    assert!(core::mem::offset_of!(TargetContext<'_>, others) == 24);
    assert!(core::mem::offset_of!(TargetContext<'_>, random) == 40);
};
