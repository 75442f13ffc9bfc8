//! The Easter Egg Hunt contract (ABI 1.1): what an eggs bot sees ([`EggsContext`]) and
//! answers ([`EggsAnswer`]), the stable bot object, and the trait a Rust eggs bot
//! implements ([`EggsPlayer`], exported with [`export_eggs_bot!`](crate::export_eggs_bot)).
//!
//! These mirror the seed's text protocol: the 5x5 view as five rows of bytes, the
//! memory string from the previous answer, and an answer of a direction digit `1..=9`,
//! an action `A`/`C`/`N` and a new memory of at most [`MEMORY_CAP`] bytes. Nothing here
//! knows the rules beyond that (they are the host's `games::eggs`).
//!
//! `include/eggs_bot.h` declares the same layouts for C (asserted on both sides).
#![allow(non_local_definitions)]

use abi_stable::{
    StableAbi, sabi_trait,
    std_types::{RBox, RResult, RSlice, RString},
};

use crate::Random;

/// Width (and height) of the view: the player sees two cells in every direction.
pub const VIEW_WIDTH: usize = 5;
/// Most bytes a memory may hold; a longer one is cut to this.
pub const MEMORY_CAP: usize = 1024;

/// A wall cell in the view.
pub const WALL: u8 = b'#';
/// An egg.
pub const EGG: u8 = b'o';
/// A player (the centre is always the bot's own player).
pub const PLAYER: u8 = b'*';
/// An empty cell.
pub const EMPTY: u8 = b' ';
/// Outside the board.
pub const OUTSIDE: u8 = b'X';

/// The directions of the seed, as answered: `1` NW, `2` N, `3` NE, `4` E, `5` SE,
/// `6` S, `7` SW, `8` W, `9` stay (the keypad around the player).
pub mod dir {
    /// North-west.
    pub const NW: u32 = 1;
    /// North.
    pub const N: u32 = 2;
    /// North-east.
    pub const NE: u32 = 3;
    /// East.
    pub const E: u32 = 4;
    /// South-east.
    pub const SE: u32 = 5;
    /// South.
    pub const S: u32 = 6;
    /// South-west.
    pub const SW: u32 = 7;
    /// West.
    pub const W: u32 = 8;
    /// No move.
    pub const STAY: u32 = 9;

    /// The step `(dx, dy)` of direction `d` (x east, y south); `None` outside `1..=9`.
    pub const fn delta(d: u32) -> Option<(i32, i32)> {
        Some(match d {
            NW => (-1, -1),
            N => (0, -1),
            NE => (1, -1),
            E => (1, 0),
            SE => (1, 1),
            S => (0, 1),
            SW => (-1, 1),
            W => (-1, 0),
            STAY => (0, 0),
            _ => return None,
        })
    }

    /// The direction of a step `(dx, dy)` with each part in `-1..=1`.
    pub const fn of(dx: i32, dy: i32) -> u32 {
        match (dx.signum(), dy.signum()) {
            (-1, -1) => NW,
            (0, -1) => N,
            (1, -1) => NE,
            (1, 0) => E,
            (1, 1) => SE,
            (0, 1) => S,
            (-1, 1) => SW,
            (-1, 0) => W,
            _ => STAY,
        }
    }
}

/// Attack (`b'A'`): beats Nothing in a fight; destroys an egg.
pub const ATTACK: u32 = b'A' as u32;
/// Counter (`b'C'`): beats Attack; sent back from an egg.
pub const COUNTER: u32 = b'C' as u32;
/// Nothing (`b'N'`): beats Counter; picks an egg up.
pub const NOTHING: u32 = b'N' as u32;

/// What an eggs bot sees on one turn. Valid only during the call.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug)]
pub struct EggsContext<'a> {
    /// The 5x5 square around the player: `view[row][column]`, rows north to south,
    /// columns west to east, `view[2][2]` the player itself; bytes `#`, `o`, `*`, ` `
    /// and `X` (outside the board).
    pub view: [[u8; VIEW_WIDTH]; VIEW_WIDTH],
    /// The player's entry index (one player per entry).
    pub player: u32,
    /// The turn number, from 0.
    pub turn: u32,
    /// The turn after which the game ends at the latest (`25 n`).
    pub max_turns: u32,
    /// The memory of the previous answer (empty on the first turn).
    pub memory: RSlice<'a, u8>,
    /// The game's random numbers (keep games reproducible: draw from here).
    pub random: Random<'a>,
}

impl EggsContext<'_> {
    /// The view cell at offset `(dx, dy)` from the player (each `-2..=2`); `X` beyond.
    #[inline]
    pub fn look(&self, dx: i32, dy: i32) -> u8 {
        if (-2..=2).contains(&dx) && (-2..=2).contains(&dy) {
            self.view[(dy + 2) as usize][(dx + 2) as usize]
        } else {
            OUTSIDE
        }
    }

    /// A row of the view as text (`row` 0 is the northernmost).
    pub fn row(&self, row: usize) -> &str {
        core::str::from_utf8(&self.view[row]).unwrap_or("XXXXX")
    }

    /// A uniform integer in `0..n` from the game's generator.
    #[inline]
    pub fn random(&self, n: u32) -> u32 {
        self.random.below(n)
    }
}

/// An eggs bot's answer. The host fills `memory` with the previous memory before the
/// call, so a bot that leaves it alone keeps it.
#[repr(C)]
#[derive(StableAbi, Clone, Copy)]
pub struct EggsAnswer {
    /// `1..=9` (see [`dir`]).
    pub direction: u32,
    /// [`ATTACK`], [`COUNTER`] or [`NOTHING`].
    pub action: u32,
    /// Bytes of `memory` in use (at most [`MEMORY_CAP`]).
    pub memory_len: u32,
    /// The memory given back next turn.
    pub memory: [u8; MEMORY_CAP],
}

impl core::fmt::Debug for EggsAnswer {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("EggsAnswer")
            .field("direction", &self.direction)
            .field("action", &char::from_u32(self.action))
            .field("memory", &String::from_utf8_lossy(self.memory()))
            .finish()
    }
}

impl Default for EggsAnswer {
    fn default() -> Self {
        EggsAnswer { direction: dir::STAY, action: NOTHING, memory_len: 0, memory: [0; MEMORY_CAP] }
    }
}

impl EggsAnswer {
    /// Sets the move and the action.
    #[inline]
    pub fn go(&mut self, direction: u32, action: u32) {
        self.direction = direction;
        self.action = action;
    }

    /// The memory in use.
    #[inline]
    pub fn memory(&self) -> &[u8] {
        &self.memory[..(self.memory_len as usize).min(MEMORY_CAP)]
    }

    /// Replaces the memory (cut to [`MEMORY_CAP`] bytes).
    pub fn set_memory(&mut self, bytes: &[u8]) {
        let n = bytes.len().min(MEMORY_CAP);
        self.memory[..n].copy_from_slice(&bytes[..n]);
        self.memory_len = n as u32;
    }
}

pub use bot_trait::{EggsBot, EggsBot_TO};

mod bot_trait {
    //! The `#[sabi_trait]` eggs bot object.
    #![allow(non_local_definitions, non_camel_case_types, missing_docs)]
    use super::*;

    /// The eggs bot object a plugin hands to the host: one per entry per game.
    #[sabi_trait]
    pub trait EggsBot {
        /// Decides the player's turn, writing into `answer` (which holds the previous
        /// memory). An `RErr` counts as an error: the player stays, memory kept.
        #[sabi(last_prefix_field)]
        fn turn(&mut self, ctx: &EggsContext<'_>, answer: &mut EggsAnswer) -> RResult<(), RString>;
    }
}

/// An owned eggs bot object.
pub type EggsBotBox = EggsBot_TO<'static, RBox<()>>;

/// What a Rust eggs bot implements; [`export_eggs_bot!`](crate::export_eggs_bot) turns
/// it into a plugin (as `TargetPlayer` and `HexPlayer` do for their games; [`EggsBot`] is
/// the stable object the host calls).
pub trait EggsPlayer: 'static {
    /// The entry's name.
    const NAME: &'static str;
    /// A fresh bot, made at the start of every game.
    fn new() -> Self;
    /// Decides the entry's player's turn. `answer` starts as "stay, Nothing" with the
    /// previous memory.
    fn turn(&mut self, ctx: &EggsContext<'_>, answer: &mut EggsAnswer);
}

/// The former name of [`EggsPlayer`] (the same trait), kept so that the bots written
/// against it still build.
///
/// ```
/// use zombies_plugin_abi::eggs::{EggBot, EggsAnswer, EggsContext, EggsPlayer};
///
/// struct Stay;
/// impl EggBot for Stay {
///     const NAME: &'static str = "stay";
///     fn new() -> Self {
///         Stay
///     }
///     fn turn(&mut self, _: &EggsContext<'_>, _: &mut EggsAnswer) {}
/// }
/// fn is_a_player<B: EggsPlayer>() {}
/// is_a_player::<Stay>();
/// ```
pub use EggsPlayer as EggBot;

// The C header asserts the same layouts (64-bit targets).
#[cfg(target_pointer_width = "64")]
const _: () = {
    assert!(core::mem::size_of::<EggsContext<'_>>() == 72);
    assert!(core::mem::offset_of!(EggsContext<'_>, player) == 28);
    assert!(core::mem::offset_of!(EggsContext<'_>, memory) == 40);
    assert!(core::mem::offset_of!(EggsContext<'_>, random) == 56);
    assert!(core::mem::size_of::<EggsAnswer>() == 12 + MEMORY_CAP);
};
