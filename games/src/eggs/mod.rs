//! Easter Egg Hunt: its rules (`engine`), the host's play loop around them (memories,
//! validation, counters), and how each kind of bot plays it (`native`, `rhai`, `lua`,
//! `program`), what its replays record (`replay`) and how its viewer draws (`viewer`).
//!
//! The rules are `docs/games/eggs.md`.
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
use zombies_plugin_abi::eggs::{ATTACK, COUNTER, EggsAnswer, EggsContext, MEMORY_CAP, NOTHING};

use crate::bot::{Bot, BotError, CallStats};
use crate::game::{Outcome, Plays, Ranking, Rules, random_source};

/// The Easter Egg Hunt, as the host's plumbing sees it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Eggs;

/// Options of an eggs game beyond its rules.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Config {
    /// End the game after at most this many turns (the rules: `25 n`).
    pub max_turns: Option<u32>,
}

impl Plays for Eggs {
    type Ctx<'a> = EggsContext<'a>;
    type Answer = EggsAnswer;

    fn clock(ctx: &EggsContext<'_>) -> u32 {
        ctx.turn
    }
}

impl Rules for Eggs {
    const NAME: &'static str = "eggs";
    const RULES_VERSION: u16 = 1;
    type Config = Config;

    fn check_config(config: &Config) -> Result<(), String> {
        match config.max_turns {
            Some(0) => Err("max_turns = 0: a game needs at least 1 turn".to_owned()),
            _ => Ok(()),
        }
    }

    fn play(names: &[String], seed: u64, config: &Config, bots: &mut [Box<dyn Bot<Self> + '_>]) -> Outcome {
        play(names.len(), seed, config, bots, |_| {})
    }
}

crate::game::parts_from_modules!(Eggs);

impl crate::game::Game for Eggs {
    /// The seed's rule: mean eggs per game, ties by median.
    const RANKING: Ranking = Ranking::Mean;
    const SCORES: &'static str = "eggs picked up";
}

/// Test and benchmark bots are closures from a context to an answer.
impl crate::bot::ClosureBots for Eggs {
    type Seen<'a> = EggsContext<'a>;

    fn seen<'b, 'a>(ctx: &'b Self::Ctx<'a>) -> &'b Self::Seen<'a> {
        ctx
    }
}

/// Plays a game of `entries` players (one per entry) to its end, calling `each_turn`
/// with the game before the first turn and after every turn. Step 1 of a turn is here:
/// every player's bot answers on the same snapshot, with its memory from the previous
/// turn; an answer that is not valid (or a failed call) makes the player stand still
/// with `N` and keeps its memory.
pub fn play(
    entries: usize,
    seed: u64,
    config: &Config,
    bots: &mut [Box<dyn Bot<Eggs> + '_>],
    mut each_turn: impl FnMut(&engine::Engine),
) -> Outcome {
    let mut stats = vec![CallStats::default(); entries];
    let mut game = match engine::Engine::new(entries, seed) {
        Ok(game) => game,
        Err(err) => {
            for s in &mut stats {
                s.record_error(&BotError::Disqualified(format!("no game: {err}")));
            }
            return Outcome { seed, turns: 0, scores: vec![0; entries], stats, tiebreak: Vec::new() };
        }
    };
    if let Some(m) = config.max_turns {
        game.limit_turns(m);
    }
    let mut memories = vec![EggsAnswer::default(); entries];
    let mut answers = vec![engine::Answer::STAY; entries];
    each_turn(&game);
    while !game.is_over() {
        for (p, answer) in answers.iter_mut().enumerate() {
            let (turn, max_turns, view) = (game.turn(), game.max_turns(), game.view(p));
            let ctx = EggsContext {
                view,
                player: p as u32,
                turn,
                max_turns,
                memory: RSlice::from_slice(memories[p].memory()),
                random: random_source(game.rng()),
            };
            let result = stats[p].count(|| bots[p].turn(&ctx));
            *answer = match result.and_then(|a| validate(&a).map(|v| (v, a))) {
                Ok((valid, given)) => {
                    memories[p].set_memory(given.memory());
                    valid
                }
                Err(err) => {
                    stats[p].record_error(&err);
                    engine::Answer::STAY
                }
            };
        }
        game.play_turn(&answers);
        each_turn(&game);
    }
    Outcome { seed, turns: game.turn(), scores: game.scores().to_vec(), stats, tiebreak: Vec::new() }
}

/// The rules' answer for a bot's answer, or why it is not one.
pub fn validate(answer: &EggsAnswer) -> Result<engine::Answer, BotError> {
    if !(1..=9).contains(&answer.direction) {
        return Err(BotError::Invalid(format!("direction {} is not 1..9", answer.direction)));
    }
    let act = match answer.action {
        ATTACK => engine::Act::Attack,
        COUNTER => engine::Act::Counter,
        NOTHING | 0 | 0x20 => engine::Act::Nothing,
        other => {
            let shown =
                char::from_u32(other).filter(|c| !c.is_control()).map_or(format!("{other}"), |c| format!("{c:?}"));
            return Err(BotError::Invalid(format!("action {shown} is not A, C or N")));
        }
    };
    if answer.memory_len as usize > MEMORY_CAP {
        return Err(BotError::Invalid(format!("memory length {} is over {MEMORY_CAP}", answer.memory_len)));
    }
    Ok(engine::Answer { dir: answer.direction as u8, act })
}

/// An answer from its parts, the memory cut to [`MEMORY_CAP`] bytes.
pub fn answer(direction: u32, action: u32, memory: &[u8]) -> EggsAnswer {
    let mut a = EggsAnswer { direction, action, ..EggsAnswer::default() };
    a.set_memory(memory);
    a
}

/// The action letter of a script's or program's answer: `A`, `C`, `N`, or blank for `N`.
pub fn action_code(text: &str) -> Result<u32, BotError> {
    match text.trim() {
        "A" => Ok(ATTACK),
        "C" => Ok(COUNTER),
        "N" | "" => Ok(NOTHING),
        other => Err(BotError::Invalid(format!("action {other:?} is not A, C or N"))),
    }
}
