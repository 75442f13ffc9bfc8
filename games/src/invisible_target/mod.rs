//! "Invisible target": its rules (`engine`), the host's play loop around them (one call
//! per copy on its turn, answer validation, counters, the round limit), and how each
//! kind of bot plays it (`native`, `rhai`, `lua`, `program`), what its replays record
//! (`replay`) and how its viewer draws (`viewer`).
//!
//! The rules are `docs/games/target.md`, as numbered steps that the rules tests follow.
//! Loading files, limiting bots and running tournaments are not here.

pub mod bench;
pub mod engine;
pub mod kit;
mod lua;
mod native;
pub mod program;
pub mod replay;
mod rhai;
pub mod viewer;

use zombies_plugin_abi::abi_stable::std_types::RSlice;
use zombies_plugin_abi::target::TargetContext;

use crate::bot::{Bot, BotError, CallStats};
use crate::game::{Outcome, Plays, Ranking, Rules, random_source};

/// "Invisible target", as the host's plumbing sees it.
#[derive(Debug, Clone, Copy, Default)]
pub struct InvisibleTarget;

/// Options of a target game.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Config {
    /// Probability that a wall is added after a turn where one is allowed (the rules:
    /// 0.1).
    pub q: f64,
    /// End the game after at most this many rounds (the rules: [`engine::MAX_ROUNDS`]).
    pub max_rounds: Option<u32>,
}

impl Default for Config {
    fn default() -> Config {
        Config { q: engine::Config::default().q, max_rounds: None }
    }
}

impl Plays for InvisibleTarget {
    type Ctx<'a> = TargetContext<'a>;
    type Answer = u32;

    /// The round: an entry's time bank grows by one allowance per round.
    fn clock(ctx: &TargetContext<'_>) -> u32 {
        ctx.round
    }

    /// The round and the copy.
    fn place(ctx: &TargetContext<'_>) -> (u32, Option<u32>) {
        (ctx.round, Some(ctx.copy))
    }
}

impl Rules for InvisibleTarget {
    const NAME: &'static str = "target";
    const RULES_VERSION: u16 = 1;
    type Config = Config;

    fn check_config(config: &Config) -> Result<(), String> {
        if !(0.0..=1.0).contains(&config.q) {
            return Err(format!("q = {}: the wall probability must be between 0 and 1", config.q));
        }
        if config.max_rounds == Some(0) {
            return Err("max_rounds = 0: a game needs at least 1 round".to_owned());
        }
        Ok(())
    }

    fn play(names: &[String], seed: u64, config: &Config, bots: &mut [Box<dyn Bot<Self> + '_>]) -> Outcome {
        play(names.len(), seed, config, bots, |_, _| {})
    }
}

crate::game::parts_from_modules!(InvisibleTarget);

impl crate::game::Game for InvisibleTarget {
    /// The rules': total points over the games (ties by the mean distance of the
    /// entry's best copy to the target at the end).
    const RANKING: Ranking = Ranking::Total;

    const TURNS: &'static str = "rounds";
    /// The rules: "Games will be played until one player is the clear winner, or until
    /// it is clear there should be joint winners overall."
    const UNTIL_DECIDED: bool = true;
}

/// Test and benchmark bots are closures from a context to a move.
impl crate::bot::ClosureBots for InvisibleTarget {
    type Seen<'a> = TargetContext<'a>;

    fn seen<'b, 'a>(ctx: &'b Self::Ctx<'a>) -> &'b Self::Seen<'a> {
        ctx
    }
}

/// The move a bot's answer stands for, or why it is not one.
pub fn validate(answer: u32) -> Result<u8, BotError> {
    u8::try_from(answer)
        .ok()
        .filter(|&m| m <= engine::SOUTH)
        .ok_or_else(|| BotError::Invalid(format!("move {answer} is not 0..4")))
}

/// Why a game of `entries` entries with `config` cannot be played, if it cannot.
pub fn check_game(entries: usize, config: &Config) -> Result<(), String> {
    if entries == 0 {
        return Err("a game needs at least one entry".into());
    }
    let players = entries * engine::Engine::copies(entries) as usize;
    if players > engine::MAX_PLAYERS {
        return Err(format!("{entries} entries make {players} players; at most {} fit", engine::MAX_PLAYERS));
    }
    if !(0.0..=1.0).contains(&config.q) {
        return Err(format!("q = {} is not a probability", config.q));
    }
    Ok(())
}

/// Plays a game of `entries` entries (each with `Engine::copies(entries)` players) to
/// its end, calling `each_turn` with the game before the first turn (no step) and after
/// every turn (with that turn's step). Each turn, the bot of the player's entry is
/// called once with that player's view; an answer outside `0..=4` (or a failed call)
/// makes the player stay and counts as an error.
pub fn play(
    entries: usize,
    seed: u64,
    config: &Config,
    bots: &mut [Box<dyn Bot<InvisibleTarget> + '_>],
    mut each_turn: impl FnMut(&engine::Engine, Option<&engine::Step>),
) -> Outcome {
    let mut stats = vec![CallStats::default(); entries];
    if let Err(err) = check_game(entries, config) {
        for s in &mut stats {
            s.record_error(&BotError::Disqualified(format!("no game: {err}")));
        }
        return Outcome { seed, turns: 0, scores: vec![0; entries], stats, tiebreak: Vec::new() };
    }
    let mut game = engine::Engine::new(entries, seed, engine::Config { q: config.q });
    let copies = engine::Engine::copies(entries);
    let max_rounds = config.max_rounds.unwrap_or(engine::MAX_ROUNDS).min(engine::MAX_ROUNDS);
    let mut view = engine::View::default();
    each_turn(&game, None);
    while !game.is_over() && game.round() < max_rounds {
        let e = game.entry_of(game.current());
        game.view_into(&mut view);
        let round = game.round();
        let ctx = TargetContext {
            me: u32::from(view.me),
            new_wall: u32::from(view.new_wall),
            copy: view.copy,
            copies,
            round,
            others: RSlice::from_slice(&view.others),
            random: random_source(game.rng()),
        };
        let result = stats[e].count(|| bots[e].turn(&ctx));
        let mv = match result.and_then(validate) {
            Ok(m) => Some(m),
            Err(err) => {
                stats[e].record_error(&err);
                None
            }
        };
        let step = game.play(mv);
        each_turn(&game, Some(&step));
    }
    Outcome {
        seed,
        turns: game.round(),
        scores: game.points(),
        stats,
        tiebreak: game.best_distance().into_iter().map(f64::from).collect(),
    }
}

/// A script's or program's answer as text: one integer `0..=4` (surrounding blanks
/// allowed).
pub fn parse_move(text: &str) -> Result<u32, BotError> {
    let t = text.trim();
    t.parse::<u32>()
        .ok()
        .filter(|&m| m <= u32::from(engine::SOUTH))
        .ok_or_else(|| BotError::Invalid(format!("answer {t:?} is not a move 0..4")))
}
