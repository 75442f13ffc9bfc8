//! The zombie survival game "Save the last bullet for yourself": its board and rules
//! (`board`, `engine`), and how each kind of bot plays it (`native`, `rhai`, `lua`,
//! `program`), what its replays record (`replay`) and how its viewer draws (`viewer`).
//!
//! Loading files, limiting bots and running tournaments are not here (see `loaders`,
//! `limits`, `tournament`). The rules are
//! `docs/games/zombies.md`.

pub mod bench;
pub mod board;
pub mod engine;
pub mod kit;
mod lua;
mod native;
pub mod program;
pub mod replay;
mod rhai;
mod served;
pub mod viewer;

pub use board::Board;
pub use engine::{
    Config, Engine, EntityInfo, GameRng, Kind, PLAYERS_PER_ENTRY, STARTING_BULLETS, STEPS, ShotRecord, board_side,
    random_source,
};
use zombies_plugin_abi::{Action, Context, Direction, Id};

use crate::bot::{Bot, BotError};

/// The most players per entry `--set players_per_entry` may ask for (the board grows
/// with them: 10,000 per entry is already a board of 409 cells a side per entry).
pub const MAX_PLAYERS_PER_ENTRY: u32 = 10_000;
use crate::game::{Outcome, Plays, Ranking, Rules};

/// The result of a zombies game (the arena's common outcome).
pub type GameOutcome = Outcome;

/// The zombies game, as the host's plumbing sees it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Zombies;

impl Plays for Zombies {
    type Ctx<'a> = Context<'a>;
    type Answer = Action;

    fn clock(ctx: &Context<'_>) -> u32 {
        ctx.clock
    }

    /// The turn (the clock) and the player, by its number.
    fn place(ctx: &Context<'_>) -> (u32, Option<u32>) {
        (ctx.clock, Some(ctx.id.number))
    }
}

impl Rules for Zombies {
    const NAME: &'static str = "zombies";

    /// 2: bitten players are turned row by row. 3: each entry draws from a generator of
    /// its own per turn. 4: only the players are put in a random order each turn, and
    /// the zombies that see nobody draw their moves twenty to a number.
    const RULES_VERSION: u16 = 4;

    type Config = Config;

    fn check_config(config: &Config) -> Result<(), String> {
        if !(1..=MAX_PLAYERS_PER_ENTRY).contains(&config.players_per_entry) {
            return Err(format!(
                "players_per_entry = {}: it must be 1..={MAX_PLAYERS_PER_ENTRY}",
                config.players_per_entry
            ));
        }
        match config.max_turns {
            Some(0) => Err("max_turns = 0: a game needs at least 1 turn".to_owned()),
            _ => Ok(()),
        }
    }

    fn play(names: &[String], seed: u64, config: &Config, bots: &mut [Box<dyn Bot<Self> + '_>]) -> Outcome {
        Engine::new(names.to_vec(), seed, *config).play(bots)
    }

    fn reserved_names() -> &'static [&'static str] {
        &["Zombie", "DeadBody"]
    }
}

crate::game::parts_from_modules!(Zombies);

impl crate::game::Game for Zombies {
    const RANKING: Ranking = Ranking::Median;
    const SCORES: &'static str = "turns survived";

    const SERVES_CALLS: bool = true;

    fn request(ctx: &Context<'_>, batch: &mut Vec<u8>) -> bool {
        served::request(ctx, batch)
    }

    fn serve(batch: &[u8], names: &[String], bot: &mut dyn Bot<Self>) -> Result<usize, crate::replay::ReplayError> {
        served::serve(batch, names, bot)
    }
}

/// Test and benchmark bots are closures from a context to an action.
impl crate::bot::ClosureBots for Zombies {
    type Seen<'a> = Context<'a>;

    fn seen<'b, 'a>(ctx: &'b Self::Ctx<'a>) -> &'b Self::Seen<'a> {
        ctx
    }
}

/// An id's owner name: an entry's name (by index in `names`), `Zombie` or `DeadBody`.
pub(crate) fn name_of(names: &[String], id: Id) -> String {
    match id.owner {
        Id::ZOMBIE => "Zombie".to_owned(),
        Id::DEAD_BODY => "DeadBody".to_owned(),
        i => names.get(i as usize).cloned().unwrap_or_default(),
    }
}

/// The move a script or program names (`"N"`, `"ne"`, `"STAY"`, ...).
pub(crate) fn parse_move(text: &str) -> Result<Action, BotError> {
    if let Some(d) = Direction::ALL.into_iter().find(|d| d.name() == text) {
        return Ok(Action::go(d));
    }
    Direction::ALL
        .into_iter()
        .find(|d| d.name().eq_ignore_ascii_case(text.trim()))
        .map(Action::go)
        .ok_or_else(|| BotError::Invalid(format!("unknown move {text:?}")))
}
