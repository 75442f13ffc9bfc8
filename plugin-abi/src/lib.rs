//! The stable contract between the zombies arena host and native bots.
//!
//! This crate holds **types only** (plus the small helpers that read them and the
//! [`export_bot!`] macro that fills them in). It is what a bot author depends on; the
//! host depends on it too and checks, when it loads a library, that both sides were
//! built against the same major version and the same type layouts.
//!
//! It is *not* the engine: nothing here knows the rules of the game beyond what a bot
//! sees (the [`Context`]) and what it answers (an [`Action`]).
//!
//! Two native paths share these types:
//! - Rust bots export an abi_stable root module ([`BotModule`]) with [`export_bot!`];
//! - C, C++ and Zig bots export the plain C table described in
//!   `include/zombies_bot.h`, whose `zb_context` / `zb_action` have exactly the layout of
//!   [`Context`] / [`Action`] (checked by size assertions on both sides).
//!
//! How the ABI grows: new capabilities are appended to [`BotModule`] after its
//! `#[sabi(last_prefix_field)]` (1.1: the game and the other games' constructors; 1.2:
//! the logger; 1.3: hex bots that play whole sides; 1.4: the debug channel, what a bot
//! says at a call, shown in replays) and to the C table (read up to its `struct_size`);
//! 1.5 adds no field, only the host's reading of a [`Random`] (`Random::as_raw`); 1.6 appends
//! `new_entry_bot` (the C table's `turn_all`): zombies bots that answer all of an entry's
//! players of a turn in one call ([`EntryBot`]). abi_stable accepts a
//! library only if its root module has at least the fields of the type the host checks
//! it against, so the host checks against [`any_version::BotModule`] (the 1.0 fields)
//! and reads through [`BotModuleRef`], whose accessors see the library's own field
//! count: a field an older library lacks reads as absent. The same check applies to a
//! `#[sabi_trait]`'s methods, with no such way around it, so the bot traits never grow:
//! a new kind of call is a new trait and constructor. Changing an existing type bumps
//! the major version, and the host then rejects older plugins with a one-line reason.
#![deny(missing_docs)]

pub mod eggs;
pub mod hex;
pub mod target;

use core::ffi::c_void;
use core::marker::PhantomData;

pub use abi_stable;
use abi_stable::{
    StableAbi, declare_root_module_statics,
    library::RootModule,
    package_version_strings, sabi_trait,
    sabi_types::VersionStrings,
    std_types::{RBox, RResult, RSlice, RSliceMut, RStr, RString, RVec},
};

/// The version of this contract, checked by the host for both native paths.
///
/// It equals the major version of this crate. Minor versions only append (1.1 added
/// the game a library plays and the other games' bots, 1.2 the log channel, 1.3 hex bots
/// that play whole sides, 1.4 the debug channel, 1.6 zombies bots called once per entry
/// per turn), so 1.0 plugins still load.
pub const ABI_VERSION: u32 = 1;

/// The games a library can play, as named in [`BotModule::game`] and the C table's
/// `game`: a library without a name (ABI 1.0) plays [`FIRST_GAME`].
pub const GAMES: [&str; 4] = ["zombies", "eggs", "target", "hex"];

/// The arena's first game, the one everything played before games had names: a library
/// whose module names no game (ABI 1.0), and a file (results, replays) written before
/// they named their game.
pub const FIRST_GAME: &str = GAMES[0];

/// How far a player sees in each direction: the view is `2 * VISION_RANGE + 1` cells wide.
pub const VISION_RANGE: i32 = 8;
/// Width (and height) of the view: 17.
pub const VIEW_WIDTH: usize = 2 * VISION_RANGE as usize + 1;
/// Maximum Chebyshev distance of a shot.
pub const SHOOT_RANGE: i32 = 5;

/// The identity of an entity: `(owner, number)`.
///
/// `number` is unique across a game and changes whenever the entity changes kind;
/// `number == 0` means "no entity" (an empty cell). `owner` is the index of the entry
/// in [`Context::names`] for a living player, or [`Id::ZOMBIE`] / [`Id::DEAD_BODY`].
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Id {
    /// Entry index, [`Id::ZOMBIE`] or [`Id::DEAD_BODY`].
    pub owner: u32,
    /// Unique number of this entity in this game; 0 for an empty cell.
    pub number: u32,
}

impl Id {
    /// Owner code of zombies (their name is `"Zombie"`).
    pub const ZOMBIE: u32 = u32::MAX;
    /// Owner code of dead bodies (their name is `"DeadBody"`).
    pub const DEAD_BODY: u32 = u32::MAX - 1;
    /// The content of an empty cell.
    pub const EMPTY: Id = Id { owner: 0, number: 0 };

    /// True for an empty cell.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.number == 0
    }
    /// True for a zombie.
    #[inline]
    pub const fn is_zombie(self) -> bool {
        self.number != 0 && self.owner == Id::ZOMBIE
    }
    /// True for a dead body.
    #[inline]
    pub const fn is_dead_body(self) -> bool {
        self.number != 0 && self.owner == Id::DEAD_BODY
    }
    /// True for a living player (of any entry).
    #[inline]
    pub const fn is_player(self) -> bool {
        self.number != 0 && self.owner < Id::DEAD_BODY
    }
}

/// The nine moves. `Stay` is a move too.
#[repr(u32)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// y - 1
    N = 0,
    /// x + 1, y - 1
    NE = 1,
    /// x + 1
    E = 2,
    /// x + 1, y + 1
    SE = 3,
    /// y + 1
    S = 4,
    /// x - 1, y + 1
    SW = 5,
    /// x - 1
    W = 6,
    /// x - 1, y - 1
    NW = 7,
    /// no move
    Stay = 8,
}

impl Direction {
    /// All nine moves, in code order (`Direction::ALL[d as usize] == d`).
    pub const ALL: [Direction; 9] = [
        Direction::N,
        Direction::NE,
        Direction::E,
        Direction::SE,
        Direction::S,
        Direction::SW,
        Direction::W,
        Direction::NW,
        Direction::Stay,
    ];

    /// The move's step `(dx, dy)`; x grows east, y grows south.
    #[inline]
    pub const fn delta(self) -> (i32, i32) {
        match self {
            Direction::N => (0, -1),
            Direction::NE => (1, -1),
            Direction::E => (1, 0),
            Direction::SE => (1, 1),
            Direction::S => (0, 1),
            Direction::SW => (-1, 1),
            Direction::W => (-1, 0),
            Direction::NW => (-1, -1),
            Direction::Stay => (0, 0),
        }
    }

    /// The move `(sign dx, sign dy)`: one step toward the offset `(dx, dy)`.
    #[inline]
    pub const fn toward(dx: i32, dy: i32) -> Direction {
        match (dx.signum(), dy.signum()) {
            (0, -1) => Direction::N,
            (1, -1) => Direction::NE,
            (1, 0) => Direction::E,
            (1, 1) => Direction::SE,
            (0, 1) => Direction::S,
            (-1, 1) => Direction::SW,
            (-1, 0) => Direction::W,
            (-1, -1) => Direction::NW,
            _ => Direction::Stay,
        }
    }

    /// The opposite move (`Stay` stays).
    #[inline]
    pub const fn opposite(self) -> Direction {
        let (dx, dy) = self.delta();
        Direction::toward(-dx, -dy)
    }

    /// The move for a raw code, if it is one of the nine.
    #[inline]
    pub const fn from_code(code: u32) -> Option<Direction> {
        if code < 9 { Some(Direction::ALL[code as usize]) } else { None }
    }

    /// The move's name as scripts write it: `"N"`, `"NE"`, ..., `"STAY"`.
    pub const fn name(self) -> &'static str {
        match self {
            Direction::N => "N",
            Direction::NE => "NE",
            Direction::E => "E",
            Direction::SE => "SE",
            Direction::S => "S",
            Direction::SW => "SW",
            Direction::W => "W",
            Direction::NW => "NW",
            Direction::Stay => "STAY",
        }
    }
}

/// What a bot answers for one player: a move or a shot.
///
/// Stored flat (`kind`, `direction`, `target`) so that C bots fill it in without
/// tagged unions; the host validates it, and anything invalid makes the player stay.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Action {
    /// [`Action::MOVE`] or [`Action::SHOOT`].
    pub kind: u32,
    /// For a move: a [`Direction`] code (0..=8).
    pub direction: u32,
    /// For a shot: the target.
    pub target: Id,
}

impl Action {
    /// `kind` of a move.
    pub const MOVE: u32 = 0;
    /// `kind` of a shot.
    pub const SHOOT: u32 = 1;

    /// A move.
    #[inline]
    pub const fn go(direction: Direction) -> Action {
        Action { kind: Action::MOVE, direction: direction as u32, target: Id::EMPTY }
    }
    /// Staying where one is.
    #[inline]
    pub const fn stay() -> Action {
        Action::go(Direction::Stay)
    }
    /// A shot at `target`.
    #[inline]
    pub const fn shoot(target: Id) -> Action {
        Action { kind: Action::SHOOT, direction: Direction::Stay as u32, target }
    }
}

/// The 17x17 view around a player, a window into the host's board (no copy).
///
/// Cell `(x, y)` with `x` west→east and `y` north→south, `(8, 8)` being the player,
/// is `cells[y * stride + x]`.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug)]
pub struct View<'a> {
    /// The board memory from the view's north-west corner on.
    pub cells: RSlice<'a, Id>,
    /// Distance in cells between two rows of the view.
    pub stride: usize,
}

impl<'a> View<'a> {
    /// Builds a view over `cells`, checking that a 17x17 window with this stride fits.
    ///
    /// # Panics
    /// If `cells` is too short for the window.
    #[inline]
    pub fn new(cells: &'a [Id], stride: usize) -> View<'a> {
        assert!(stride >= VIEW_WIDTH && cells.len() > (VIEW_WIDTH - 1) * stride + VIEW_WIDTH - 1);
        View { cells: RSlice::from_slice(cells), stride }
    }

    /// The cell at view coordinates `x`, `y` (each `0..17`); empty outside the view.
    #[inline]
    pub fn get(&self, x: usize, y: usize) -> Id {
        if x < VIEW_WIDTH && y < VIEW_WIDTH {
            self.cells.as_slice().get(y * self.stride + x).copied().unwrap_or(Id::EMPTY)
        } else {
            Id::EMPTY
        }
    }

    /// The cell at offset `(dx, dy)` from the centre (each `-8..=8`); empty outside.
    #[inline]
    pub fn look(&self, dx: i32, dy: i32) -> Id {
        let (x, y) = (dx + VISION_RANGE, dy + VISION_RANGE);
        if x < 0 || y < 0 {
            return Id::EMPTY;
        }
        self.get(x as usize, y as usize)
    }
}

/// Random numbers from the game's seeded generator (a callback into the host).
#[repr(C)]
#[derive(StableAbi, Clone, Copy)]
pub struct Random<'a> {
    state: *mut c_void,
    next_u64: extern "C" fn(*mut c_void) -> u64,
    _borrow: PhantomData<&'a mut ()>,
}

impl core::fmt::Debug for Random<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Random")
    }
}

impl<'a> Random<'a> {
    /// Wraps a generator: `next_u64(state)` must return the next number of the stream.
    ///
    /// # Safety
    /// `state` must stay valid for `'a` and `next_u64` must be safe to call with it from
    /// the thread that receives this value, while nothing else uses the generator.
    #[inline]
    pub unsafe fn from_raw(state: *mut c_void, next_u64: extern "C" fn(*mut c_void) -> u64) -> Self {
        Random { state, next_u64, _borrow: PhantomData }
    }

    /// The generator's state pointer and function, as [`Random::from_raw`] took them:
    /// the host uses them to recognise a generator of its own (by the function) and
    /// copy it for a call it plays in another process. Reading them is safe; using the
    /// pointer is not.
    #[inline]
    pub fn as_raw(&self) -> (*mut c_void, extern "C" fn(*mut c_void) -> u64) {
        (self.state, self.next_u64)
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&self) -> u64 {
        (self.next_u64)(self.state)
    }

    /// A uniform integer in `0..n` (0 when `n == 0`), without bias.
    #[inline]
    pub fn below(&self, n: u32) -> u32 {
        if n <= 1 {
            return 0;
        }
        let n = u64::from(n);
        // Reject the top, partial copy of 0..n so every residue is equally likely.
        let zone = u64::MAX - (u64::MAX - n + 1) % n;
        loop {
            let v = self.next_u64();
            if v <= zone {
                return (v % n) as u32;
            }
        }
    }
}

/// Everything a bot sees when it is called for one of its players.
///
/// Built by the host without allocating; valid only during the call.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug)]
pub struct Context<'a> {
    /// The player being decided for.
    pub id: Id,
    /// Its bullets.
    pub bullets: u32,
    /// The game clock (the turn number, from 0).
    pub clock: u32,
    /// Its column, `0..board_size`, growing east.
    pub x: u32,
    /// Its row, `0..board_size`, growing south.
    pub y: u32,
    /// Side of the (toroidal, square) board.
    pub board_size: u32,
    /// The 17x17 view centred on the player (the board as it was when decisions began).
    pub view: View<'a>,
    /// Entry names, indexed by [`Id::owner`].
    pub names: RSlice<'a, RStr<'a>>,
    /// The game's random numbers.
    pub random: Random<'a>,
}

impl<'a> Context<'a> {
    /// The entity at offset `(dx, dy)` (each `-8..=8`), if any.
    #[inline]
    pub fn look(&self, dx: i32, dy: i32) -> Option<Id> {
        let id = self.view.look(dx, dy);
        (!id.is_empty()).then_some(id)
    }

    /// The name of an id's owner: an entry name, `"Zombie"` or `"DeadBody"`.
    pub fn name_of(&self, id: Id) -> &'a str {
        match id.owner {
            Id::ZOMBIE => "Zombie",
            Id::DEAD_BODY => "DeadBody",
            i => self.names.as_slice().get(i as usize).map_or("", |s| s.as_str()),
        }
    }

    /// The entities this player can shoot: every id within Chebyshev distance 5,
    /// itself, zombies and dead bodies included, with their offsets `(dx, dy)`.
    pub fn shootable(&self) -> impl Iterator<Item = (i32, i32, Id)> + '_ {
        self.within(SHOOT_RANGE)
    }

    /// Every entity in the 17x17 view, itself included, with its offset `(dx, dy)`:
    /// the `look`s that are not empty, in the order columns dx = -8..8, rows dy = -8..8
    /// in each.
    pub fn visible(&self) -> impl Iterator<Item = (i32, i32, Id)> + '_ {
        self.within(VISION_RANGE)
    }

    /// The entities within Chebyshev distance `range` (at most 8), columns first.
    fn within(&self, range: i32) -> impl Iterator<Item = (i32, i32, Id)> + '_ {
        (-range..=range)
            .flat_map(move |dx| (-range..=range).filter_map(move |dy| self.look(dx, dy).map(|id| (dx, dy, id))))
    }

    /// A uniform integer in `0..n` from the game's generator.
    #[inline]
    pub fn random(&self, n: u32) -> u32 {
        self.random.below(n)
    }

    /// A uniformly random one of the nine moves, from the game's generator.
    #[inline]
    pub fn random_move(&self) -> Direction {
        Direction::ALL[self.random.below(9) as usize]
    }
}

pub use bot_trait::{Bot, Bot_TO};

mod bot_trait {
    //! The `#[sabi_trait]` bot object (in its own module: the generated code needs
    //! `non_local_definitions` allowed, which CI otherwise denies).
    #![allow(non_local_definitions, non_camel_case_types, missing_docs)]
    use super::*;

    /// The bot object a plugin hands to the host: one per entry per game.
    #[sabi_trait]
    pub trait Bot {
        /// Decides for one living player. An `RErr` (a caught panic, say) makes the
        /// player stay and counts as an error of the entry.
        #[sabi(last_prefix_field)]
        fn turn(&mut self, ctx: &Context<'_>) -> RResult<Action, RString>;
    }

    /// (1.6) The bot object of a library that answers all of its entry's players of a
    /// turn in one call ([`BotModule::new_entry_bot`](crate::BotModule::new_entry_bot)):
    /// one per entry per game. A new trait rather than a new method of [`Bot`]: a
    /// `#[sabi_trait]` never grows (see the crate's doc).
    #[sabi_trait]
    pub trait EntryBot {
        /// Decides for one living player, as [`Bot::turn`] does (the host calls it where
        /// it needs one call at a time: a recorded game, a lockstep seat).
        fn turn(&mut self, ctx: &Context<'_>) -> RResult<Action, RString>;

        /// Decides for all of the entry's living players of one turn: `answers[i]` is the
        /// answer for `players[i]` (the two have the same length; `answers` arrives
        /// filled with [`Action::stay`]). The players come in the turn's order, all see
        /// the same board, and their contexts share the entry's generator of the turn:
        /// answering each as `turn` would, in this order, plays the same game as one
        /// call per player. A player whose decision failed (a caught panic) is listed in
        /// the returned failures, stays, and counts as an error of the entry; the others
        /// keep their answers.
        #[sabi(last_prefix_field)]
        fn turn_all(&mut self, players: RSlice<'_, Context<'_>>, answers: RSliceMut<'_, Action>) -> RVec<Failure>;
    }
}

/// An owned bot object.
pub type BotBox = Bot_TO<'static, RBox<()>>;

pub use bot_trait::{EntryBot, EntryBot_TO};

/// (1.6) An owned whole-entry bot object.
pub type EntryBotBox = EntryBot_TO<'static, RBox<()>>;

/// (1.6) A player whose decision failed in a whole-entry call
/// ([`EntryBot::turn_all`]).
#[repr(C)]
#[derive(StableAbi, Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// Its place in the call's `players`.
    pub player: u32,
    /// Why (a panic's message and place).
    pub message: RString,
}

/// The root module a Rust bot library exports (see [`export_bot!`]).
#[repr(C)]
#[derive(StableAbi)]
#[sabi(kind(Prefix(prefix_ref = BotModuleRef)))]
#[sabi(missing_field(panic))]
#[allow(missing_debug_implementations)]
pub struct BotModule {
    /// Must equal the host's [`ABI_VERSION`].
    pub abi_version: u32,
    /// The entry's name: unique, non-empty, not `Zombie` nor `DeadBody`.
    pub name: RStr<'static>,
    /// Creates a fresh zombies bot for a new game (an `RErr` if its constructor
    /// failed, or if the library plays another game).
    #[sabi(last_prefix_field)]
    pub new_bot: extern "C" fn() -> RResult<BotBox, RString>,
    /// (1.1) The game this library plays, one of [`GAMES`]; absent in 1.0 libraries,
    /// which play `zombies`.
    #[sabi(missing_field(option))]
    pub game: RStr<'static>,
    /// (1.1) Creates a fresh Easter Egg Hunt bot (`None` unless the library plays `eggs`).
    #[sabi(missing_field(default))]
    pub new_eggs_bot: Option<extern "C" fn() -> RResult<eggs::EggsBotBox, RString>>,
    /// (1.1) Creates a fresh "Invisible target" bot (`None` unless it plays `target`).
    #[sabi(missing_field(default))]
    pub new_target_bot: Option<extern "C" fn() -> RResult<target::TargetBotBox, RString>>,
    /// (1.1) Creates a fresh hex humans vs zombies bot (`None` unless it plays `hex`).
    #[sabi(missing_field(default))]
    pub new_hex_bot: Option<extern "C" fn() -> RResult<hex::HexBotBox, RString>>,
    /// (1.2) Called once by the host when it loads the library, with the channel
    /// through which the bot writes lines to its entry's log (see [`log`]). Absent in
    /// older libraries, whose bots cannot log.
    #[sabi(missing_field(default))]
    pub set_logger: Option<extern "C" fn(logger: Logger)>,
    /// (1.3) Creates a fresh hex bot that plays whole sides, one call per half-turn
    /// (`None` unless the library plays `hex` that way; such a library's `new_hex_bot` is
    /// `None`).
    #[sabi(missing_field(default))]
    pub new_hex_side_bot: Option<extern "C" fn() -> RResult<hex::HexSideBotBox, RString>>,
    /// (1.4) Called once by the host when it loads the library, with the channel
    /// through which the bot says something at the call it is in (see [`debug()`]): kept
    /// in the game's replay with that call. Absent in older libraries.
    #[sabi(missing_field(default))]
    pub set_debugger: Option<extern "C" fn(debugger: Logger)>,
    /// (1.6) Creates a fresh zombies bot that answers all of its entry's players of a
    /// turn in one call ([`EntryBot`]); when `Some`, the host makes its bots with this
    /// instead of `new_bot`. `None` in a library that plays another game; absent in
    /// older libraries, whose bots get one call per player.
    #[sabi(missing_field(default))]
    pub new_entry_bot: Option<extern "C" fn() -> RResult<EntryBotBox, RString>>,
}

/// (1.2) The host's log channel, handed to a library when it is loaded (`zb_logger` in
/// C; the Rust export macros keep it for [`log`]).
#[repr(C)]
#[derive(StableAbi, Debug, Clone, Copy)]
pub struct Logger {
    /// Writes `len` bytes of UTF-8 at `text` as one line of the entry's log; `data` is
    /// this logger's `data`. Safe to call from any thread, at any time.
    pub write: extern "C" fn(data: *const c_void, text: *const u8, len: usize),
    /// The host's own pointer, passed back to `write`.
    pub data: *const c_void,
}

impl RootModule for BotModuleRef {
    declare_root_module_statics! {BotModuleRef}
    const BASE_NAME: &'static str = "zombies_bot";
    const NAME: &'static str = "zombies_bot";
    const VERSION_STRINGS: VersionStrings = package_version_strings!();
}

pub mod any_version {
    //! The root module as every 1.x library has it: only the 1.0 fields.
    //!
    //! abi_stable accepts a library only if its root module has at least the fields of
    //! the type the host checks it against. Checked against the whole [`BotModule`]
    //! (crate::BotModule), a library built before 1.1 would be turned away ("too many
    //! fields"); checked against this, every 1.x library loads. The host then reads the
    //! module through [`BotModuleRef`](crate::BotModuleRef) (see
    //! [`BotModuleRef::into_current`]), whose accessors see the library's own field
    //! count: fields it does not have read as absent.
    #![allow(missing_debug_implementations)]
    use super::*;

    /// The 1.0 fields of [`BotModule`](crate::BotModule), under the same name (part of
    /// the layout abi_stable compares).
    #[repr(C)]
    #[derive(StableAbi)]
    #[sabi(kind(Prefix(prefix_ref = BotModuleRef)))]
    #[sabi(missing_field(panic))]
    pub struct BotModule {
        /// As in [`BotModule`](crate::BotModule).
        pub abi_version: u32,
        /// As in [`BotModule`](crate::BotModule).
        pub name: RStr<'static>,
        /// As in [`BotModule`](crate::BotModule).
        #[sabi(last_prefix_field)]
        pub new_bot: extern "C" fn() -> RResult<BotBox, RString>,
    }

    impl RootModule for BotModuleRef {
        declare_root_module_statics! {BotModuleRef}
        const BASE_NAME: &'static str = "zombies_bot";
        const NAME: &'static str = "zombies_bot";
        const VERSION_STRINGS: VersionStrings = package_version_strings!();
    }

    impl BotModuleRef {
        /// The same module, read with this version's accessors.
        pub fn into_current(self) -> crate::BotModuleRef {
            // SAFETY: every 1.x `BotModule` starts with these fields and only appends
            // (repr(C)); a `PrefixRef` carries the library's own field accessibility, so
            // the accessors of fields the library lacks return their default instead
            // of reading past its module.
            crate::BotModuleRef(unsafe { self.0.cast() })
        }
    }
}

/// The table a C bot library's `zombies_bot_entry` symbol returns (`zb_bot_table` in
/// `include/zombies_bot.h`). Fields may be appended: `struct_size` tells how many the
/// library knows.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CBotTable {
    /// Must equal [`ABI_VERSION`].
    pub abi_version: u32,
    /// `size_of::<CBotTable>()` as the library was built.
    pub struct_size: u32,
    /// NUL-terminated UTF-8 entry name.
    pub name: *const core::ffi::c_char,
    /// A fresh bot for a new game, or null on failure.
    pub create: Option<extern "C" fn() -> *mut c_void>,
    /// One player's decision.
    pub turn: Option<extern "C" fn(bot: *mut c_void, ctx: &Context<'_>) -> Action>,
    /// Frees a bot at the end of its game.
    pub destroy: Option<extern "C" fn(bot: *mut c_void)>,
    /// (1.1) NUL-terminated name of the game the library plays (one of [`GAMES`]);
    /// a table without it (a 1.0 library, by `struct_size`) or with null plays
    /// `zombies`.
    pub game: *const core::ffi::c_char,
    /// (1.1) One eggs turn: writes the answer (which holds the previous memory).
    pub eggs_turn: Option<extern "C" fn(bot: *mut c_void, ctx: &eggs::EggsContext<'_>, answer: &mut eggs::EggsAnswer)>,
    /// (1.1) One target turn of the copy `ctx.copy`: the move `0..=4`.
    pub target_turn: Option<extern "C" fn(bot: *mut c_void, ctx: &target::TargetContext<'_>) -> u32>,
    /// (1.1) One hex call: writes the answer's commands (the answer starts empty).
    pub hex_turn: Option<extern "C" fn(bot: *mut c_void, ctx: &hex::HexContext<'_>, answer: &mut hex::HexAnswer)>,
    /// (1.2) Called once by the host when it loads the library, with the function (and
    /// its data) that writes one line to the entry's log; null if the bot does not log.
    pub set_logger: Option<extern "C" fn(logger: Logger)>,
    /// (1.3) One whole hex half-turn of the bot's side, played through `turn` (commands one
    /// at a time, each answered with its verdict). A table with it plays hex by whole
    /// sides, and its `hex_turn` may be null.
    pub hex_side: Option<extern "C" fn(bot: *mut c_void, turn: &mut hex::HexSideTurn<'_>)>,
    /// (1.4) Called once by the host when it loads the library, with the function (and
    /// its data) through which a bot says something at the call it is in (kept in the
    /// replay with that call); null if the bot says nothing.
    pub set_debug: Option<extern "C" fn(debugger: Logger)>,
    /// (1.6) All of the entry's living players of one zombies turn in one call:
    /// `answers[i]` for `players[i]`, `i < count` (`answers` arrives filled with stays;
    /// see [`EntryBot::turn_all`] for the order and the shared generator). A table with it
    /// gets this call instead of one `turn` per player wherever the host can make it;
    /// `turn` stays required (a recorded game, a lockstep seat call one player at a time).
    pub turn_all:
        Option<extern "C" fn(bot: *mut c_void, players: *const Context<'_>, count: usize, answers: *mut Action)>,
}

impl CBotTable {
    /// Size of a 1.0 table (without `game` and `eggs_turn`).
    pub const V1_0_SIZE: u32 = 40;
    /// Size of a 1.1 table (without `set_logger`).
    pub const V1_1_SIZE: u32 = 72;
    /// Size of a 1.2 table (without `hex_side`).
    pub const V1_2_SIZE: u32 = 80;
    /// Size of a 1.3 table (without `set_debug`).
    pub const V1_3_SIZE: u32 = 88;
    /// Size of a 1.4 (and 1.5) table (without `turn_all`).
    pub const V1_4_SIZE: u32 = 96;
}

/// The name of the symbol a C bot library exports: `const zb_bot_table *zombies_bot_entry(void)`.
pub const C_ENTRY_SYMBOL: &str = "zombies_bot_entry";

// The C header asserts the same sizes (64-bit targets).
#[cfg(target_pointer_width = "64")]
const _: () = {
    assert!(core::mem::size_of::<Id>() == 8);
    assert!(core::mem::size_of::<Action>() == 16);
    assert!(core::mem::size_of::<Context<'_>>() == 88);
    assert!(core::mem::offset_of!(Context<'_>, view) == 32);
    assert!(core::mem::offset_of!(Context<'_>, names) == 56);
    assert!(core::mem::offset_of!(Context<'_>, random) == 72);
    assert!(core::mem::offset_of!(CBotTable, target_turn) == 56);
    assert!(core::mem::offset_of!(CBotTable, hex_turn) == 64);
    assert!(core::mem::offset_of!(CBotTable, set_logger) == 72);
    assert!(core::mem::offset_of!(CBotTable, hex_side) == 80);
    assert!(core::mem::offset_of!(CBotTable, set_debug) == 88);
    assert!(core::mem::offset_of!(CBotTable, turn_all) == 96);
    assert!(core::mem::size_of::<CBotTable>() == 104);
};

/// Writes one line to the entry's log (`logs/<entry>.log` of a tournament run with
/// `--logs`), where each game's lines follow a `--- game seed S ---` marker. A line
/// written before the host set the logger, or to a host older than ABI 1.2, is dropped.
/// The [`log!`] macro formats like `println!`.
pub fn log(text: &str) {
    let logger = *LOGGER.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((write, data)) = logger {
        // The host reads exactly `len` bytes of the text during the call.
        write(data as *const c_void, text.as_ptr(), text.len());
    }
}

/// Formats like `println!` and writes the line to the entry's log (see [`log()`]).
#[macro_export]
macro_rules! log {
    ($($arg:tt)*) => {
        $crate::log(&::std::format!($($arg)*))
    };
}

/// (1.4) Says `text` at the call the bot is in: the host keeps it in the game's replay
/// with that call (its turn, its player or unit), shown in the viewer beside the board
/// and by `arena replay --json` and `arena check`. Several texts in one call are joined
/// by line breaks; at most 1 KiB per call and 64 KiB per game are kept (the cut is
/// marked). Call it only from the thread that called the bot, during the call: text
/// said elsewhere, in a game that is not recorded, or to a host older than 1.4 is
/// dropped, at the cost of one call into the host. The [`debug!`] macro formats like
/// `format!`.
pub fn debug(text: &str) {
    let debugger = *DEBUGGER.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((write, data)) = debugger {
        // The host reads exactly `len` bytes of the text during the call.
        write(data as *const c_void, text.as_ptr(), text.len());
    }
}

/// Formats like `format!` and says the text at the call the bot is in (see [`debug()`]).
#[macro_export]
macro_rules! debug {
    ($($arg:tt)*) => {
        $crate::debug(&::std::format!($($arg)*))
    };
}

/// The host's debug function and its data (as an address), once the host set them.
#[allow(clippy::type_complexity)]
static DEBUGGER: std::sync::Mutex<Option<(extern "C" fn(*const c_void, *const u8, usize), usize)>> =
    std::sync::Mutex::new(None);

/// The host's log function and its data (as an address), once the host set them.
#[allow(clippy::type_complexity)]
static LOGGER: std::sync::Mutex<Option<(extern "C" fn(*const c_void, *const u8, usize), usize)>> =
    std::sync::Mutex::new(None);

/// What a Rust bot implements; [`export_bot!`] turns it into a plugin.
pub trait ZombiesPlayer: 'static {
    /// The entry's name.
    const NAME: &'static str;
    /// A fresh bot, made at the start of every game.
    fn new() -> Self;
    /// Decides for one of the entry's living players (called once per player per turn).
    fn turn(&mut self, ctx: &Context<'_>) -> Action;
}

/// The former name of [`ZombiesPlayer`] (the same trait), kept so that the bots written
/// against it still build.
///
/// ```
/// use zombies_plugin_abi::{Action, Context, ZombieBot, ZombiesPlayer};
///
/// struct Stay;
/// impl ZombieBot for Stay {
///     const NAME: &'static str = "stay";
///     fn new() -> Self {
///         Stay
///     }
///     fn turn(&mut self, _: &Context<'_>) -> Action {
///         Action::stay()
///     }
/// }
/// fn is_a_player<B: ZombiesPlayer>() {}
/// is_a_player::<Stay>();
/// ```
pub use ZombiesPlayer as ZombieBot;

#[doc(hidden)]
pub mod __private {
    //! Support code for [`export_bot!`](crate::export_bot); not part of the contract.
    use super::*;
    use abi_stable::sabi_trait::TD_Opaque;
    use abi_stable::std_types::{RErr, ROk};
    use std::cell::RefCell;
    use std::panic::{AssertUnwindSafe, catch_unwind};

    thread_local! {
        static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
    }

    /// Installs (once) a panic hook that records the message and place instead of
    /// printing them, so that a bot's panic becomes one counted error.
    fn quiet_panics() {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            std::panic::set_hook(Box::new(|info| {
                let msg = panic_message(info.payload());
                let text = match info.location() {
                    Some(l) => format!("panicked at {}:{}: {msg}", l.file(), l.line()),
                    None => format!("panicked: {msg}"),
                };
                LAST_PANIC.with(|p| *p.borrow_mut() = Some(text));
            }));
        });
    }

    fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
        if let Some(s) = payload.downcast_ref::<&str>() {
            (*s).to_owned()
        } else if let Some(s) = payload.downcast_ref::<String>() {
            s.clone()
        } else {
            "a panic".to_owned()
        }
    }

    fn describe(payload: Box<dyn std::any::Any + Send>) -> RString {
        let recorded = LAST_PANIC.with(|p| p.borrow_mut().take());
        RString::from(recorded.unwrap_or_else(|| format!("panicked: {}", panic_message(&*payload))))
    }

    /// Runs a Rust bot behind the stable trait, never letting a panic unwind out.
    #[derive(Debug)]
    pub struct Guarded<B>(pub B);

    impl<B: ZombiesPlayer> Bot for Guarded<B> {
        fn turn(&mut self, ctx: &Context<'_>) -> RResult<Action, RString> {
            match catch_unwind(AssertUnwindSafe(|| self.0.turn(ctx))) {
                Ok(action) => ROk(action),
                Err(payload) => RErr(describe(payload)),
            }
        }
    }

    impl<B: ZombiesPlayer> EntryBot for Guarded<B> {
        fn turn(&mut self, ctx: &Context<'_>) -> RResult<Action, RString> {
            Bot::turn(self, ctx)
        }

        fn turn_all(&mut self, players: RSlice<'_, Context<'_>>, mut answers: RSliceMut<'_, Action>) -> RVec<Failure> {
            let players = players.as_slice();
            let answers = answers.as_mut_slice();
            let mut failures = RVec::new();
            // One guard around the loop, not one per player: after a panic at player
            // `next`, the loop goes on from the player after it.
            let mut next = 0;
            while next < players.len().min(answers.len()) {
                let done = catch_unwind(AssertUnwindSafe(|| {
                    for (ctx, answer) in players[next..].iter().zip(&mut answers[next..]) {
                        *answer = self.0.turn(ctx);
                        next += 1;
                    }
                }));
                if let Err(payload) = done {
                    failures.push(Failure { player: next as u32, message: describe(payload) });
                    if let Some(answer) = answers.get_mut(next) {
                        *answer = Action::stay();
                    }
                    next += 1;
                }
            }
            failures
        }
    }

    /// The `new_entry_bot` of an exported zombies module (ABI 1.6).
    pub extern "C" fn new_entry_bot<B: ZombiesPlayer>() -> RResult<EntryBotBox, RString> {
        quiet_panics();
        match catch_unwind(B::new) {
            Ok(bot) => ROk(EntryBot_TO::from_value(Guarded(bot), TD_Opaque)),
            Err(payload) => RErr(describe(payload)),
        }
    }

    /// Runs a Rust eggs bot behind the stable trait, never letting a panic unwind out.
    #[derive(Debug)]
    pub struct GuardedEggs<B>(pub B);

    impl<B: eggs::EggsPlayer> eggs::EggsBot for GuardedEggs<B> {
        fn turn(&mut self, ctx: &eggs::EggsContext<'_>, answer: &mut eggs::EggsAnswer) -> RResult<(), RString> {
            match catch_unwind(AssertUnwindSafe(|| self.0.turn(ctx, answer))) {
                Ok(()) => ROk(()),
                Err(payload) => RErr(describe(payload)),
            }
        }
    }

    /// The `new_eggs_bot` of an exported eggs module.
    pub extern "C" fn new_eggs_bot<B: eggs::EggsPlayer>() -> RResult<eggs::EggsBotBox, RString> {
        quiet_panics();
        match catch_unwind(B::new) {
            Ok(bot) => ROk(eggs::EggsBot_TO::from_value(GuardedEggs(bot), TD_Opaque)),
            Err(payload) => RErr(describe(payload)),
        }
    }

    /// Runs a Rust target bot behind the stable trait, never letting a panic unwind out.
    #[derive(Debug)]
    pub struct GuardedTarget<B>(pub B);

    impl<B: target::TargetPlayer> target::TargetBot for GuardedTarget<B> {
        fn turn(&mut self, ctx: &target::TargetContext<'_>) -> RResult<u32, RString> {
            match catch_unwind(AssertUnwindSafe(|| self.0.turn(ctx))) {
                Ok(mv) => ROk(mv),
                Err(payload) => RErr(describe(payload)),
            }
        }
    }

    /// The `new_target_bot` of an exported target module.
    pub extern "C" fn new_target_bot<B: target::TargetPlayer>() -> RResult<target::TargetBotBox, RString> {
        quiet_panics();
        match catch_unwind(B::new) {
            Ok(bot) => ROk(target::TargetBot_TO::from_value(GuardedTarget(bot), TD_Opaque)),
            Err(payload) => RErr(describe(payload)),
        }
    }

    /// Runs a Rust hex bot behind the stable trait, never letting a panic unwind out.
    #[derive(Debug)]
    pub struct GuardedHex<B>(pub B);

    impl<B: hex::HexPlayer> hex::HexBot for GuardedHex<B> {
        fn turn(&mut self, ctx: &hex::HexContext<'_>, answer: &mut hex::HexAnswer) -> RResult<(), RString> {
            match catch_unwind(AssertUnwindSafe(|| self.0.turn(ctx, answer))) {
                Ok(()) => ROk(()),
                Err(payload) => RErr(describe(payload)),
            }
        }
    }

    /// The `new_hex_bot` of an exported hex module.
    pub extern "C" fn new_hex_bot<B: hex::HexPlayer>() -> RResult<hex::HexBotBox, RString> {
        quiet_panics();
        match catch_unwind(B::new) {
            Ok(bot) => ROk(hex::HexBot_TO::from_value(GuardedHex(bot), TD_Opaque)),
            Err(payload) => RErr(describe(payload)),
        }
    }

    /// Runs a Rust hex side bot behind the stable trait, never letting a panic unwind out.
    #[derive(Debug)]
    pub struct GuardedHexSide<B>(pub B);

    impl<B: hex::HexSide> hex::HexSideBot for GuardedHexSide<B> {
        fn play(&mut self, turn: &mut hex::HexSideTurn<'_>) -> RResult<(), RString> {
            match catch_unwind(AssertUnwindSafe(|| self.0.play(turn))) {
                Ok(()) => ROk(()),
                Err(payload) => RErr(describe(payload)),
            }
        }
    }

    /// The `new_hex_side_bot` of an exported hex side module.
    pub extern "C" fn new_hex_side_bot<B: hex::HexSide>() -> RResult<hex::HexSideBotBox, RString> {
        quiet_panics();
        match catch_unwind(B::new) {
            Ok(bot) => ROk(hex::HexSideBot_TO::from_value(GuardedHexSide(bot), TD_Opaque)),
            Err(payload) => RErr(describe(payload)),
        }
    }

    /// The `set_logger` of every exported module: keeps the host's log channel for
    /// [`log`](crate::log).
    pub extern "C" fn set_logger(logger: Logger) {
        *LOGGER.lock().unwrap_or_else(|p| p.into_inner()) = Some((logger.write, logger.data as usize));
    }

    /// The `set_debugger` of every exported module: keeps the host's debug channel for
    /// [`debug`](crate::debug()).
    pub extern "C" fn set_debugger(debugger: Logger) {
        *DEBUGGER.lock().unwrap_or_else(|p| p.into_inner()) = Some((debugger.write, debugger.data as usize));
    }

    /// The zombies constructor (a 1.0 field every library fills) of a library that
    /// plays another game; the host reads the game first and never calls it.
    pub extern "C" fn plays_another_game() -> RResult<BotBox, RString> {
        RErr(RString::from("this library plays another game, not zombies"))
    }

    /// The `new_bot` of an exported module.
    pub extern "C" fn new_bot<B: ZombiesPlayer>() -> RResult<BotBox, RString> {
        quiet_panics();
        match catch_unwind(B::new) {
            Ok(bot) => ROk(Bot_TO::from_value(Guarded(bot), TD_Opaque)),
            Err(payload) => RErr(describe(payload)),
        }
    }
}

/// The root module of a library that plays `$game`: its name, the game, and its
/// constructors (the zombies one, a 1.0 field every library fills, and `Some` for the
/// game it plays among the others). Used by the `export_*` macros; not for bots.
#[doc(hidden)]
#[macro_export]
macro_rules! __export_module {
    ($name:expr, $game:literal, $zombies:expr, $eggs:expr, $target:expr, $hex:expr) => {
        $crate::__export_module!($name, $game, $zombies, $eggs, $target, $hex, None);
    };
    ($name:expr, $game:literal, $zombies:expr, $eggs:expr, $target:expr, $hex:expr, $hex_side:expr) => {
        $crate::__export_module!($name, $game, $zombies, $eggs, $target, $hex, $hex_side, None);
    };
    (
        $name:expr,
        $game:literal,
        $zombies:expr,
        $eggs:expr,
        $target:expr,
        $hex:expr,
        $hex_side:expr,
        $zombies_entry:expr
    ) => {
        /// The plugin's root module, read by the arena host.
        #[$crate::abi_stable::export_root_module]
        pub fn zombies_bot_root_module() -> $crate::BotModuleRef {
            use $crate::abi_stable::prefix_type::PrefixTypeTrait;
            $crate::BotModule {
                abi_version: $crate::ABI_VERSION,
                name: $crate::abi_stable::std_types::RStr::from_str($name),
                new_bot: $zombies,
                game: $crate::abi_stable::std_types::RStr::from_str($game),
                new_eggs_bot: $eggs,
                new_target_bot: $target,
                new_hex_bot: $hex,
                set_logger: Some($crate::__private::set_logger),
                new_hex_side_bot: $hex_side,
                set_debugger: Some($crate::__private::set_debugger),
                new_entry_bot: $zombies_entry,
            }
            .leak_into_prefix()
        }
    };
}

/// Exports a [`ZombiesPlayer`] as a plugin: `export_bot!(MyBot);` in a `cdylib` crate.
///
/// The crate must depend on `abi_stable` (0.11) as well as on this crate: the root
/// module's export code names `::abi_stable` directly.
///
/// The library then holds the root module the host looks for, with the bot's name, the
/// ABI version and two constructors: the per-player one every 1.x host reads, and (1.6)
/// the whole-entry one ([`EntryBot`]), through which a 1.6 host asks for all of the
/// entry's players of a turn in one call, the bot's [`ZombiesPlayer::turn`] then called for
/// each in a loop inside the library. A panic inside the bot never crosses into the
/// host: it makes that player stay for that call and counts as an error of the entry.
#[macro_export]
macro_rules! export_bot {
    ($bot:ty) => {
        $crate::__export_module!(
            <$bot as $crate::ZombiesPlayer>::NAME,
            "zombies",
            $crate::__private::new_bot::<$bot>,
            None,
            None,
            None,
            None,
            Some($crate::__private::new_entry_bot::<$bot>)
        );
    };
}

/// Exports an [`EggsPlayer`](eggs::EggsPlayer) as an Easter Egg Hunt plugin:
/// `export_eggs_bot!(MyBot);` in a `cdylib` crate (which must depend on `abi_stable`
/// 0.11 too, as for [`export_bot!`]).
///
/// The library declares that it plays `eggs`: a zombies tournament skips it with one
/// line, and the reverse. A panic inside the bot never crosses into the host: the
/// player stays for that turn, keeps its memory, and the entry counts an error.
#[macro_export]
macro_rules! export_eggs_bot {
    ($bot:ty) => {
        $crate::__export_module!(
            <$bot as $crate::eggs::EggsPlayer>::NAME,
            "eggs",
            $crate::__private::plays_another_game,
            Some($crate::__private::new_eggs_bot::<$bot>),
            None,
            None
        );
    };
}

/// Exports a [`TargetPlayer`](target::TargetPlayer) as an "Invisible target" plugin:
/// `export_target_bot!(MyBot);` in a `cdylib` crate (which must depend on `abi_stable`
/// 0.11 too, as for [`export_bot!`]).
///
/// The library declares that it plays `target`: a tournament of another game skips it
/// with one line. A panic inside the bot never crosses into the host: that copy stays
/// for that turn and the entry counts an error.
#[macro_export]
macro_rules! export_target_bot {
    ($bot:ty) => {
        $crate::__export_module!(
            <$bot as $crate::target::TargetPlayer>::NAME,
            "target",
            $crate::__private::plays_another_game,
            None,
            Some($crate::__private::new_target_bot::<$bot>),
            None
        );
    };
}

/// Exports a [`HexPlayer`](hex::HexPlayer) as a hex humans vs zombies plugin:
/// `export_hex_bot!(MyBot);` in a `cdylib` crate (which must depend on `abi_stable`
/// 0.11 too, as for [`export_bot!`]). One bot plays either side; its context says which.
///
/// The library declares that it plays `hex`: a tournament of another game skips it
/// with one line. A panic inside the bot never crosses into the host: that call's
/// answer is empty and the entry counts an error.
#[macro_export]
macro_rules! export_hex_bot {
    ($bot:ty) => {
        $crate::__export_module!(
            <$bot as $crate::hex::HexPlayer>::NAME,
            "hex",
            $crate::__private::plays_another_game,
            None,
            None,
            Some($crate::__private::new_hex_bot::<$bot>)
        );
    };
}

/// Exports a [`HexSide`](hex::HexSide) as a hex humans vs zombies plugin that plays whole
/// sides (ABI 1.3): `export_hex_side_bot!(MyBot);` in a `cdylib` crate (which must depend
/// on `abi_stable` 0.11 too, as for [`export_bot!`]). Its bot gets one call per half-turn
/// of its side and gives its commands one at a time, each answered with its verdict.
///
/// A panic inside the bot never crosses into the host: the commands given before it
/// stand, and the entry counts an error.
#[macro_export]
macro_rules! export_hex_side_bot {
    ($bot:ty) => {
        $crate::__export_module!(
            <$bot as $crate::hex::HexSide>::NAME,
            "hex",
            $crate::__private::plays_another_game,
            None,
            None,
            None,
            Some($crate::__private::new_hex_side_bot::<$bot>)
        );
    };
}
