//! Hex humans vs zombies ("Survive!", MegaMinerAI 3, 2009): the pure rules engine, built to
//! the rules of `docs/games/hex.md` (sections 1–10, which the comments cite as "spec N") and
//! checked against the original server's golden traces, and the host's play loop around it
//! (hex.md, "The calls"), with how each kind of bot plays it.
//!
//! What this is: the board (`board`), the static tables and the office map (`data`), the typed
//! objects, commands and snapshots (`state`), the engine (`engine`: set-up, commands, boundary),
//! side visibility (`view`); then the hosted game: the play loop (spawn calls, unit calls in id
//! order, answers as ordered command lists, time banks as the original clocks), the bots
//! (`native`, `rhai`, `lua`, `program`), replays (`replay`) and the viewer (`viewer`). The engine
//! has no randomness: the game's seed only feeds the bots' random numbers.
//!
//! Seats: a hex game seats two entries, the first plays the humans, the second the zombies;
//! a tournament plays every ordered pair ([`Game::lineup`]). A game of one entry plays it
//! against itself (its one bot plays both sides); entries beyond two get no calls and score 0.

pub mod bench;
pub mod board;
pub mod data;
pub mod engine;
pub mod kit;
mod lua;
mod native;
pub mod program;
pub mod protocol;
pub mod replay;
mod rhai;
pub mod side;
pub mod state;
pub mod view;
pub mod viewer;

use std::cell::Cell;
use std::time::Duration;

use rand::SeedableRng;
use zombies_plugin_abi::Random;
use zombies_plugin_abi::abi_stable::std_types::RSlice;
use zombies_plugin_abi::hex::{
    self as abi, HexAirstrike, HexAnswer, HexCommand, HexContext, HexCrate, HexHuman, HexWall, HexZombie, cmd,
};

pub use engine::{Engine, Refusal};
pub use side::{SideChannel, SideInfo, Verdict};
pub use state::{Airstrike, Command, Contents, Crate, Human, Side, State, Wall, Zombie};
pub use view::View;

use crate::bot::{Bot, BotError, CallStats};
use crate::game::{Game, GameRng, Outcome, Plays, Ranking, Rules, random_source};

/// Hex humans vs zombies, as the host's plumbing sees it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Hex;

/// Options of a hex game beyond its rules.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Config {
    /// End the game after this half-turn if the humans still live (they then score it);
    /// the rules' limit is 1000. For quick tests and slow bots.
    pub max_turns: Option<u32>,
}

impl Plays for Hex {
    type Ctx<'a> = HexCall<'a>;
    type Answer = HexAnswer;

    /// The side's own half-turns so far: the time bank grows by one allowance per own
    /// half-turn, as the original clocks did.
    fn clock(call: &HexCall<'_>) -> u32 {
        call.ctx.t / 2
    }

    /// The half-turn and the unit (none for a spawn call or a whole side's call).
    fn place(call: &HexCall<'_>) -> (u32, Option<u32>) {
        (call.ctx.t, (call.ctx.call == abi::CALL_UNIT).then_some(call.ctx.unit))
    }
}

impl Rules for Hex {
    const NAME: &'static str = "hex";

    /// 2: spawning is a side command of the whole half-turn (a `spawn_zombie` in a unit
    /// call, skipped in version 1, now runs), so version-1 replays may not re-play.
    const RULES_VERSION: u16 = 2;

    type Config = Config;

    fn check_config(config: &Config) -> Result<(), String> {
        match config.max_turns {
            Some(0) => Err("max_turns = 0: a game needs at least 1 half-turn".to_owned()),
            _ => Ok(()),
        }
    }

    fn play(names: &[String], seed: u64, config: &Config, bots: &mut [Box<dyn Bot<Self> + '_>]) -> Outcome {
        play(names.len(), seed, config, bots, |_| {})
    }
}

crate::game::parts_from_modules!(Hex);

impl Game for Hex {
    /// hex.md, "Pairs, sides and ranking": match points per ordered pair, then survival
    /// margin, then survival.
    const RANKING: Ranking = Ranking::Pairs;

    /// A game's length counts half-turns (each side's own moves), as the rules do.
    const TURNS: &'static str = "half-turns";

    /// Every ordered pair of different entries, once per round.
    fn games_per_round(entries: usize) -> u64 {
        (entries as u64) * (entries as u64).saturating_sub(1)
    }

    /// Game `index`: pair number `index mod n(n−1)` in the order (0,1), (0,2), …,
    /// (1,0), (1,2), …: the first plays the humans, the second the zombies.
    fn lineup(entries: usize, index: u64) -> Vec<usize> {
        let pairs = Self::games_per_round(entries);
        if pairs == 0 {
            return (0..entries).collect();
        }
        let p = index % pairs;
        let others = entries as u64 - 1;
        let a = p / others;
        let mut b = p % others;
        if b >= a {
            b += 1;
        }
        vec![a as usize, b as usize]
    }
}

/// What a hex bot is given for one call: the ABI's context, both sides' clocks, and on
/// the first call of a seat's half-turn the whole side ([`HexCall::take_side`]), for a
/// bot that plays whole sides.
pub struct HexCall<'a> {
    /// What the bot sees (the side's sight and the counters).
    pub ctx: HexContext<'a>,
    /// The own time left in each side's time bank (indexed by [`abi::HUMANS`] and
    /// [`abi::ZOMBIES`]), when the bots have banks.
    pub clocks: [Option<Duration>; 2],
    side: Cell<Option<&'a mut (dyn SideChannel + 'a)>>,
}

impl std::fmt::Debug for HexCall<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HexCall").field("ctx", &self.ctx).field("clocks", &self.clocks).finish()
    }
}

impl<'a> HexCall<'a> {
    /// A call for one unit (or a spawn call).
    pub fn new(ctx: HexContext<'a>, clocks: [Option<Duration>; 2]) -> HexCall<'a> {
        HexCall { ctx, clocks, side: Cell::new(None) }
    }

    /// A call offered the whole side through `side`.
    pub fn with_side(
        ctx: HexContext<'a>,
        clocks: [Option<Duration>; 2],
        side: &'a mut (dyn SideChannel + 'a),
    ) -> HexCall<'a> {
        HexCall { ctx, clocks, side: Cell::new(Some(side)) }
    }

    /// The whole side, if this call is offered it (the first of a seat's half-turn), for
    /// the bot to play it in this call ([`SideChannel::claim`]); taken once.
    pub fn take_side(&self) -> Option<&'a mut (dyn SideChannel + 'a)> {
        self.side.take()
    }
}

impl<'a> std::ops::Deref for HexCall<'a> {
    type Target = HexContext<'a>;
    fn deref(&self) -> &HexContext<'a> {
        &self.ctx
    }
}

/// Test and benchmark bots are closures from a unit's context to an answer (they play
/// per unit).
impl crate::bot::ClosureBots for Hex {
    type Seen<'a> = HexContext<'a>;

    fn seen<'b, 'a>(call: &'b Self::Ctx<'a>) -> &'b Self::Seen<'a> {
        &call.ctx
    }
}

/// What the play loop reports to an observer (the viewer).
#[derive(Debug, Clone, Copy)]
pub enum Event<'a> {
    /// The game after set-up, before any call.
    Start(&'a Engine),
    /// A command of `side` was executed (`accepted`: it changed the game); for an attack,
    /// `shot` is where from, where to and with which weapon, as it was fired.
    Command { game: &'a Engine, side: Side, command: Command, accepted: bool, shot: Option<Shot> },
    /// A half-turn ended (the game is at the next half-turn, or over).
    Boundary(&'a Engine),
}

/// An attack as fired: the attacker's hex, the target hex, the weapon.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shot {
    pub from: (i32, i32),
    pub to: (i32, i32),
    pub weapon: u32,
}

/// The shot an attack command would fire now (before it is executed).
fn shot_of(g: &Engine, command: &Command) -> Option<Shot> {
    let (unit, to) = match *command {
        Command::Attack { unit, target } => (unit, g.position(target)?),
        Command::AttackGround { unit, x, y } => (unit, (x, y)),
        _ => return None,
    };
    let weapon = match g.human(unit) {
        Some(h) => h.weapon,
        None => data::ZOMBIE_ARMS,
    };
    Some(Shot { from: g.position(unit)?, to, weapon })
}

/// The side's number in the ABI.
fn side_code(side: Side) -> u32 {
    match side {
        Side::Humans => abi::HUMANS,
        Side::Zombies => abi::ZOMBIES,
    }
}

fn contents_code(c: Contents) -> u32 {
    match c {
        Contents::Ammo => abi::AMMO,
        Contents::Weapon(w) => w,
    }
}

/// Most commands a call's answer may carry (spawn calls and humans 16, zombies' unit
/// calls 4). One rule for every kind of bot: the first ones run, the rest are refused and
/// the call counts as one error ([`over_the_cap`]).
pub fn command_limit(ctx: &HexContext<'_>) -> usize {
    if ctx.call == abi::CALL_UNIT && ctx.side == abi::ZOMBIES { abi::MAX_ZOMBIE_COMMANDS } else { abi::MAX_COMMANDS }
}

/// The error of an answer with more commands than its call may carry (those refused as
/// the answer was full included), or `None`.
pub fn over_the_cap(ctx: &HexContext<'_>, answer: &HexAnswer) -> Option<BotError> {
    let limit = command_limit(ctx);
    let given = answer.given();
    (given > limit as u64).then(|| {
        BotError::Invalid(format!("{given} commands, at most {limit}: the first {limit} ran, the rest were refused"))
    })
}

/// The engine's command for one command of an answer, or `None` for a kind this call
/// cannot send (it is skipped like a rejected command).
pub fn to_command(ctx: &HexContext<'_>, c: &HexCommand) -> Option<Command> {
    command_of(ctx.call, ctx.side, ctx.unit, c)
}

/// The engine's command for one command of `unit` in a call of kind `call` for `side`
/// (a side call's commands name their unit), or `None` for a kind it cannot send.
pub fn command_of(call: u32, side: u32, unit: u32, c: &HexCommand) -> Option<Command> {
    let (x, y) = (c.x, c.y);
    match (call, side) {
        (abi::CALL_SPAWN_HUMANS, _) => {
            (c.kind == cmd::SPAWN_HUMAN).then_some(Command::SpawnHuman { x, y, weapon: c.id })
        }
        (abi::CALL_SPAWN_ZOMBIES, _) => (c.kind == cmd::SPAWN_ZOMBIE)
            .then(|| Command::SpawnZombie { zone: c.id, facing: u32::try_from(c.amount).unwrap_or(u32::MAX) }),
        (_, abi::HUMANS) => Some(match c.kind {
            // As in the original, placing humans is a side command of half-turn 1: the
            // engine refuses it on any later half-turn.
            cmd::SPAWN_HUMAN => Command::SpawnHuman { x, y, weapon: c.id },
            cmd::MOVE => Command::Move { unit, x, y },
            cmd::ATTACK => Command::Attack { unit, target: c.id },
            cmd::ATTACK_GROUND => Command::AttackGround { unit, x, y },
            cmd::GRAB => Command::Grab { unit, krate: c.id },
            cmd::GIVE => Command::Give { unit, to: c.id, amount: c.amount },
            cmd::THROW_WEAPON => Command::ThrowWeapon { unit, x, y },
            cmd::THROW_AMMO => Command::ThrowAmmo { unit, x, y, amount: c.amount },
            cmd::BUILD => Command::Build { unit, x, y },
            cmd::CALL_DROP => Command::CallDrop {
                x,
                y,
                contents: match c.id {
                    abi::AMMO => Contents::Ammo,
                    w if w < abi::AMMO => Contents::Weapon(w),
                    _ => return None,
                },
            },
            _ => return None,
        }),
        _ => Some(match c.kind {
            cmd::FORWARD => Command::Forward { unit },
            cmd::TURN if c.amount == 1 || c.amount == -1 => Command::Turn { unit, direction: c.amount as i32 },
            cmd::ATTACK => Command::Attack { unit, target: c.id },
            cmd::ATTACK_GROUND => Command::AttackGround { unit, x, y },
            cmd::EAT => Command::Eat { unit, target: c.id },
            // A side command, as in the original server: a zombie may be spawned at any
            // point of the zombies' half-turn, the cap counted at that moment (so a zombie
            // eaten earlier in the half-turn frees its place).
            cmd::SPAWN_ZOMBIE => {
                Command::SpawnZombie { zone: c.id, facing: u32::try_from(c.amount).unwrap_or(u32::MAX) }
            }
            _ => return None,
        }),
    }
}

/// The ABI's view of the world for the side playing the half-turn (spec 9). Rebuilt whole
/// when an object was created or removed, a human moved or built, or splash hit; else
/// only the entries a call touched are refreshed (the common case of a zombie stepping,
/// turning or biting, and of a human's single-target shot), so that a call costs little
/// more than the bot itself.
#[derive(Default)]
struct World {
    humans: Vec<HexHuman>,
    zombies: Vec<HexZombie>,
    walls: Vec<HexWall>,
    crates: Vec<HexCrate>,
    airstrikes: Vec<HexAirstrike>,
    /// Per in-bounds hex, how many of the side's units see it.
    eyes: Vec<u16>,
    /// The game's census when the lists were built.
    census: [usize; 6],
    /// The lists describe the game (else build them before the next call).
    valid: bool,
}

fn abi_human(h: &Human) -> HexHuman {
    HexHuman {
        id: h.id,
        x: h.x,
        y: h.y,
        weapon: h.weapon,
        specialty: h.specialty,
        moves: h.moves,
        hp: h.hp,
        ammo: h.ammo,
        idle: h.idle,
    }
}

fn abi_zombie(z: &Zombie) -> HexZombie {
    HexZombie {
        id: z.id,
        x: z.x,
        y: z.y,
        facing: u32::from(z.facing),
        moves: z.moves,
        reserved: 0,
        hp: z.hp,
        idle: z.idle,
        scent: z.scent,
    }
}

fn abi_wall(w: &Wall) -> HexWall {
    HexWall { id: w.id, x: w.x, y: w.y, reserved: 0, hp: w.hp, cap: w.cap }
}

fn abi_crate(c: &Crate) -> HexCrate {
    HexCrate { id: c.id, x: c.x, y: c.y, contents: contents_code(c.contents), hp: c.hp, cap: c.cap }
}

impl World {
    /// Adds `by` to the eye count of every in-bounds hex within `side`'s sight of (x, y);
    /// true if a hex came into sight or went out of it.
    fn look(&mut self, side: Side, x: i32, y: i32, by: i32) -> bool {
        let mut toggled = false;
        let r = Engine::sight(side);
        for dx in -r..=r {
            let cx = x + dx;
            if cx.abs() > board::BOUND {
                continue;
            }
            let (lo, hi) = if dx >= 0 { (-r, r - dx) } else { (-r - dx, r) };
            for cy in (y + lo).max(-board::BOUND)..=(y + hi).min(board::BOUND) {
                let c = board::cell(cx, cy).expect("in bounds");
                let before = self.eyes[c];
                self.eyes[c] = (i32::from(before) + by) as u16;
                toggled |= (before == 0) != (self.eyes[c] == 0);
            }
        }
        toggled
    }

    fn seen(&self, x: i32, y: i32) -> bool {
        board::cell(x, y).is_some_and(|c| self.eyes[c] > 0)
    }

    /// The context of a call of `kind` for `unit` over these lists.
    fn context<'w>(&'w self, g: &Engine, side: Side, kind: u32, unit: u32, random: Random<'w>) -> HexContext<'w> {
        let unit_index = match side {
            Side::Humans => self.humans.binary_search_by_key(&unit, |o| o.id),
            Side::Zombies => self.zombies.binary_search_by_key(&unit, |o| o.id),
        }
        .map_or(u32::MAX, |i| i as u32);
        HexContext {
            call: kind,
            side: side_code(side),
            t: g.t(),
            unit,
            humans_to_spawn: g.humans_to_spawn() as u32,
            zombies_to_spawn: if side == Side::Zombies { zombies_to_spawn(g) } else { 0 },
            zombie_cap: g.zombie_cap(),
            unit_index,
            airdrops_held: g.airdrops_held(),
            zombies_ready: g.zombies_ready(),
            humans: RSlice::from_slice(&self.humans),
            zombies: RSlice::from_slice(&self.zombies),
            walls: RSlice::from_slice(&self.walls),
            crates: RSlice::from_slice(&self.crates),
            airstrikes: RSlice::from_slice(&self.airstrikes),
            random,
        }
    }

    /// Makes these lists a copy of `other`'s (reusing their buffers).
    fn copy_lists(&mut self, other: &World) {
        self.humans.clone_from(&other.humans);
        self.zombies.clone_from(&other.zombies);
        self.walls.clone_from(&other.walls);
        self.crates.clone_from(&other.crates);
        self.airstrikes.clone_from(&other.airstrikes);
    }

    /// Panics if the lists are not what a rebuild gives (debug builds' check of the
    /// refreshes).
    fn check(&self, g: &Engine, side: Side) {
        let mut fresh = World::default();
        fresh.build(g, side);
        assert!(
            fresh.humans == self.humans
                && fresh.zombies == self.zombies
                && fresh.walls == self.walls
                && fresh.crates == self.crates
                && fresh.airstrikes == self.airstrikes
                && fresh.eyes == self.eyes,
            "the hex world drifted at t = {}",
            g.t()
        );
    }

    /// Everything from scratch.
    fn build(&mut self, g: &Engine, side: Side) {
        self.eyes.clear();
        self.eyes.resize(board::CELLS, 0);
        let eyes: Vec<(i32, i32)> = match side {
            Side::Humans => g.humans().map(|h| (h.x, h.y)).collect(),
            Side::Zombies => g.zombies().map(|z| (z.x, z.y)).collect(),
        };
        for (x, y) in eyes {
            self.look(side, x, y, 1);
        }
        self.humans.clear();
        self.zombies.clear();
        self.crates.clear();
        self.airstrikes.clear();
        self.list_humans(g);
        self.list_zombies(g);
        self.list_walls(g);
        if side == Side::Humans {
            let first = g.t() <= 2;
            let seen: Vec<HexCrate> = g.crates().filter(|c| first || self.seen(c.x, c.y)).map(abi_crate).collect();
            self.crates = seen;
            self.airstrikes.extend(g.airstrikes().filter(|a| g.sees(side, a.x, a.y)).map(|a| HexAirstrike {
                id: a.id,
                x: a.x,
                y: a.y,
                delay: a.delay,
                contents: contents_code(a.contents),
                reserved: 0,
            }));
        }
        self.census = g.census();
        self.valid = true;
    }

    fn list_humans(&mut self, g: &Engine) {
        self.humans.clear();
        for h in g.humans() {
            if self.seen(h.x, h.y) {
                self.humans.push(abi_human(h));
            }
        }
    }

    fn list_zombies(&mut self, g: &Engine) {
        self.zombies.clear();
        for z in g.zombies() {
            if self.seen(z.x, z.y) {
                self.zombies.push(abi_zombie(z));
            }
        }
    }

    /// The walls in sight (every wall on each side's first half-turn, spec 9).
    fn list_walls(&mut self, g: &Engine) {
        self.walls.clear();
        let first = g.t() <= 2;
        for w in g.walls() {
            if first || self.seen(w.x, w.y) {
                self.walls.push(abi_wall(w));
            }
        }
    }

    /// Rewrites the entry of object `id`, wherever it is listed.
    fn refresh(&mut self, g: &Engine, id: u32) {
        if let Some(h) = g.human(id) {
            if let Ok(i) = self.humans.binary_search_by_key(&id, |o| o.id) {
                self.humans[i] = abi_human(h);
            }
        } else if let Some(z) = g.zombie(id) {
            if let Ok(i) = self.zombies.binary_search_by_key(&id, |o| o.id) {
                self.zombies[i] = abi_zombie(z);
            }
        } else if let Some(w) = g.wall(id) {
            if let Ok(i) = self.walls.binary_search_by_key(&id, |o| o.id) {
                self.walls[i] = abi_wall(w);
            }
        }
    }

    /// After `unit`'s call executed `applied` (with `before`, its hex before the call):
    /// refresh what changed, or mark the lists for a rebuild.
    fn after_call(&mut self, g: &Engine, side: Side, unit: u32, before: Option<(i32, i32)>, applied: &[Command]) {
        if !self.valid {
            return;
        }
        if g.census() != self.census {
            self.valid = false;
            return;
        }
        for c in applied {
            let single = match *c {
                Command::Attack { target, .. } => {
                    // Humans' weapons with splash hit more than the target.
                    let splash = g
                        .human(unit)
                        .and_then(|h| data::weapon(h.weapon))
                        .is_some_and(|w| w.vertical != 0 || w.horizontal != 0);
                    if splash {
                        false
                    } else {
                        self.refresh(g, target);
                        true
                    }
                }
                Command::Give { to, .. } => {
                    self.refresh(g, to);
                    true
                }
                Command::Forward { .. } | Command::Turn { .. } | Command::Move { .. } => true,
                Command::AttackGround { .. } => side == Side::Zombies,
                _ => false,
            };
            if !single {
                self.valid = false;
                return;
            }
        }
        self.refresh(g, unit);
        let now = g.position(unit);
        if let (Some(from), Some(to)) = (before, now) {
            if from != to {
                let lost = self.look(side, from.0, from.1, -1);
                let gained = self.look(side, to.0, to.1, 1);
                match side {
                    Side::Humans => {
                        // Crates and airstrikes come and go with sight: rebuild.
                        self.valid = false;
                    }
                    Side::Zombies if lost || gained => {
                        self.list_humans(g);
                        self.list_walls(g);
                        // Its own entry keeps its index: zombies are listed by id.
                    }
                    Side::Zombies => {}
                }
            }
        }
    }
}

/// Whole zombies the zombie side can spawn now: ⌊ready⌋, at most cap − living.
pub fn zombies_to_spawn(g: &Engine) -> u32 {
    let living = g.unit_ids(Side::Zombies).len() as u32;
    let ready = g.zombies_ready().floor().max(0.0).min(f64::from(u32::MAX)) as u32;
    ready.min(g.zombie_cap().saturating_sub(living))
}

/// The score of each seat of a finished game with result `t`: the humans' survival `t`,
/// and for the zombies how far short of the limit they ended it (`1000 − t`).
pub fn scores_of(t: u32) -> (u32, u32) {
    (t, data::TURN_LIMIT.saturating_sub(t))
}

/// Plays a game to its end: the entry at index 0 plays the humans, the entry at index 1
/// the zombies (with one entry, it plays both sides); `observe` sees the start, every
/// executed command and every boundary. Per half-turn: the humans' spawn call on t = 1,
/// the zombies' spawn call when a zombie can be spawned, then one call per living unit
/// of the active side in id order (units spawned this half-turn are not called). The
/// first call of a seat's half-turn is offered the whole side ([`side`]): a bot that
/// takes it plays the half-turn in that one call. A failed call is an empty answer; a
/// bot that is out of the game (its time bank spent, or cut off) loses its clock: humans
/// all die, zombies end the game at t := 1000.
pub fn play(
    entries: usize,
    seed: u64,
    config: &Config,
    bots: &mut [Box<dyn Bot<Hex> + '_>],
    mut observe: impl FnMut(Event<'_>),
) -> Outcome {
    let mut stats = vec![CallStats::default(); entries];
    let mut scores = vec![0; entries];
    let mut g = Engine::new();
    if entries == 0 {
        return Outcome { seed, turns: 0, scores, stats, tiebreak: Vec::new() };
    }
    let seat = |side: Side| match side {
        Side::Humans => 0,
        Side::Zombies => usize::from(entries > 1),
    };
    let mut rng = GameRng::seed_from_u64(seed);
    let mut world = World::default();
    let mut first = World::default();
    let mut out = [false; 2];
    observe(Event::Start(&g));
    let limit = config.max_turns.unwrap_or(data::TURN_LIMIT).min(data::TURN_LIMIT);
    while !g.is_over() && g.t() <= limit {
        let side = g.active();
        let e = seat(side);
        if !out[e] {
            world.valid = false;
            // Both sides' clocks, as the 2009 status carried them.
            let clock = g.t() / 2;
            let clocks = [Side::Humans, Side::Zombies].map(|s| bots[seat(s)].remaining_time(clock).bank);
            let mut turn = HalfTurn {
                g: &mut g,
                world: &mut world,
                first: &mut first,
                rng: &mut rng,
                stats: &mut stats[e],
                bot: &mut *bots[e],
                observe: &mut observe,
                side,
                clocks,
            };
            if !turn.play() {
                out[e] = true;
                g.time_out(side);
            }
        }
        g.end_half_turn();
        observe(Event::Boundary(&g));
    }
    let t = g.result().map_or(limit, |(_, t)| t);
    let (h, z) = scores_of(t);
    if entries > 1 {
        scores[0] = h;
        scores[1] = z;
    } else {
        scores[0] = h;
    }
    Outcome { seed, turns: t, scores, stats, tiebreak: Vec::new() }
}

/// One seat's half-turn: what the play loop lends it.
struct HalfTurn<'a, 'b, F: FnMut(Event<'_>)> {
    g: &'a mut Engine,
    world: &'a mut World,
    /// The first call's copy of the sight (the side channel holds the live one).
    first: &'a mut World,
    rng: &'a mut GameRng,
    stats: &'a mut CallStats,
    bot: &'a mut (dyn Bot<Hex> + 'b),
    observe: &'a mut F,
    side: Side,
    clocks: [Option<Duration>; 2],
}

impl<F: FnMut(Event<'_>)> HalfTurn<'_, '_, F> {
    /// Plays the half-turn (hex.md, "The calls"); false if the bot is out of the game.
    fn play(&mut self) -> bool {
        let side = self.side;
        let t = self.g.t();
        let spawn_call = match side {
            Side::Humans => t == 1,
            Side::Zombies => zombies_to_spawn(self.g) >= 1,
        };
        let living = self.g.unit_ids(side).len() as u32;
        // What a whole-side call stands for: the per-unit calls (on t = 1, the spawn call
        // and the humans it places), and their command caps added up.
        let (calls, max_commands) = match side {
            Side::Humans if t == 1 => {
                let n = data::HUMANS_PER_GAME as u32;
                (1 + n, (abi::MAX_COMMANDS as u32) * (1 + n))
            }
            Side::Humans => (living, abi::MAX_COMMANDS as u32 * living),
            Side::Zombies => {
                let spawn = u32::from(spawn_call);
                (spawn + living, abi::MAX_COMMANDS as u32 * spawn + abi::MAX_ZOMBIE_COMMANDS as u32 * living)
            }
        };
        if calls == 0 {
            return true;
        }
        let info = side::SideInfo { calls, max_commands, time: self.bot.remaining_time(t / 2) };
        let mut offer = Some(info);
        if side == Side::Humans && spawn_call {
            match self.offered(abi::CALL_SPAWN_HUMANS, abi::NO_UNIT, offer.take()) {
                Called::Claimed(ok) => return ok,
                Called::Unit(false) => return false,
                Called::Unit(true) => {}
            }
        }
        // Units called this half-turn: those alive before the zombies' spawn call.
        let units: Vec<u32> = self.g.unit_ids(side).to_vec();
        if side == Side::Zombies && spawn_call {
            match self.offered(abi::CALL_SPAWN_ZOMBIES, abi::NO_UNIT, offer.take()) {
                Called::Claimed(ok) => return ok,
                Called::Unit(false) => return false,
                Called::Unit(true) => {}
            }
        }
        for id in units {
            let alive = match side {
                Side::Humans => self.g.human(id).is_some(),
                Side::Zombies => self.g.zombie(id).is_some(),
            };
            if alive {
                match self.offered(abi::CALL_UNIT, id, offer.take()) {
                    Called::Claimed(ok) => return ok,
                    Called::Unit(false) => return false,
                    Called::Unit(true) => {}
                }
            }
        }
        true
    }

    /// One call; the first of the half-turn (`offer` given) is offered the whole side.
    fn offered(&mut self, kind: u32, unit: u32, offer: Option<side::SideInfo>) -> Called {
        let Some(info) = offer else { return Called::Unit(self.unit_call(kind, unit)) };
        let side = self.side;
        if !self.world.valid {
            self.world.build(self.g, side);
        }
        // The call's own view is a copy: the channel holds the live sight.
        self.first.copy_lists(self.world);
        let random = random_source(self.rng);
        let ctx = self.first.context(self.g, side, kind, unit, random);
        let mut table = side::Table {
            g: &mut *self.g,
            world: &mut *self.world,
            side,
            observe: &mut *self.observe,
            random,
            info,
            claimed: false,
            given: 0,
        };
        let result = {
            let call = HexCall::with_side(ctx, self.clocks, &mut table);
            timed(self.stats, &mut *self.bot, &call)
        };
        let (claimed, given) = (table.claimed, table.given);
        if claimed {
            let max = info.max_commands;
            let over = (given > max).then(|| {
                BotError::Invalid(format!(
                    "{given} commands in a side call, at most {max} this half-turn: the first {max} ran, the rest \
                     were refused"
                ))
            });
            return Called::Claimed(self.finish(abi::CALL_SIDE, unit, result.map(|_| ()), over, &[]));
        }
        let (commands, n) = match &result {
            Ok(answer) => commands_of(&ctx, answer),
            Err(_) => ([Command::Forward { unit: 0 }; abi::MAX_COMMANDS], 0),
        };
        let over = result.as_ref().ok().and_then(|a| over_the_cap(&ctx, a));
        Called::Unit(self.finish(kind, unit, result.map(|_| ()), over, &commands[..n]))
    }

    /// One call of a unit (or a spawn call) that is not offered the side.
    fn unit_call(&mut self, kind: u32, unit: u32) -> bool {
        let side = self.side;
        if !self.world.valid {
            self.world.build(self.g, side);
        }
        let random = random_source(self.rng);
        let ctx = self.world.context(self.g, side, kind, unit, random);
        let call = HexCall::new(ctx, self.clocks);
        let result = timed(self.stats, &mut *self.bot, &call);
        // The commands, taken from the answer before the world they were read from changes.
        let (commands, n) = match &result {
            Ok(answer) => commands_of(&ctx, answer),
            Err(_) => ([Command::Forward { unit: 0 }; abi::MAX_COMMANDS], 0),
        };
        let over = result.as_ref().ok().and_then(|a| over_the_cap(&ctx, a));
        self.finish(kind, unit, result.map(|_| ()), over, &commands[..n])
    }

    /// After a call: its error counted (and one for going over the command cap), its
    /// commands run; false if the bot is out of the game.
    fn finish(
        &mut self,
        kind: u32,
        unit: u32,
        result: Result<(), BotError>,
        over: Option<BotError>,
        commands: &[Command],
    ) -> bool {
        if let Some(err) = over {
            self.stats.record_error(&err);
        }
        match result {
            Ok(()) => {
                if !commands.is_empty() || kind != abi::CALL_SIDE {
                    self.execute(kind, unit, commands);
                }
                true
            }
            Err(err) => {
                self.stats.record_error(&err);
                !matches!(err, BotError::Disqualified(_))
            }
        }
    }

    /// Runs a call's commands in order, and refreshes the side's sight where they touched it.
    fn execute(&mut self, kind: u32, unit: u32, commands: &[Command]) {
        let side = self.side;
        let g = &mut *self.g;
        let before = if kind == abi::CALL_UNIT { g.position(unit) } else { None };
        let mut applied = [Command::Forward { unit: 0 }; abi::MAX_COMMANDS];
        let mut k = 0;
        for &command in commands {
            let shot = shot_of(g, &command);
            let accepted = g.apply(side, &command);
            if accepted {
                applied[k] = command;
                k += 1;
            }
            (self.observe)(Event::Command { game: g, side, command, accepted, shot });
        }
        if kind == abi::CALL_UNIT {
            self.world.after_call(g, side, unit, before, &applied[..k]);
        } else if k > 0 {
            self.world.valid = false;
        }
        // Debug builds check (for one call in 7) that the refreshed lists are what a
        // rebuild gives.
        if cfg!(debug_assertions) && self.world.valid && self.stats.calls % 7 == 0 {
            self.world.check(g, side);
        }
    }
}

/// What became of a call offered the whole side.
enum Called {
    /// The bot took the half-turn (false: it is out of the game).
    Claimed(bool),
    /// It answered for one unit (false: it is out of the game).
    Unit(bool),
}

/// Calls `bot`, counting the call and timing one in [`CallStats::TIMING_PERIOD`].
fn timed(stats: &mut CallStats, bot: &mut (dyn Bot<Hex> + '_), call: &HexCall<'_>) -> Result<HexAnswer, BotError> {
    stats.count(|| bot.turn(call))
}

/// The engine's commands of an answer: the first ones up to the call's cap, those of a
/// kind the call cannot send left out.
fn commands_of(ctx: &HexContext<'_>, answer: &HexAnswer) -> ([Command; abi::MAX_COMMANDS], usize) {
    let mut commands = [Command::Forward { unit: 0 }; abi::MAX_COMMANDS];
    let mut n = 0;
    for c in answer.commands().iter().take(command_limit(ctx)) {
        if let Some(c) = to_command(ctx, c) {
            commands[n] = c;
            n += 1;
        }
    }
    (commands, n)
}
