//! One game of "Save the last bullet for yourself", step by step, as
//! `docs/games/zombies.md` specifies it.
//!
//! [`Engine::turn`] runs the eight steps of a turn in order; each step is also public so
//! that tests can drive a hand-made position one rule at a time. The engine does no IO
//! and owns no bots: the caller passes one bot per entry, indexed like the entry names.
//!
//! **Architecture Invariant:** all randomness of a game (placement, spawns, call order,
//! zombie walks, bots' random numbers) is drawn from `Engine::rng`, seeded once, in an
//! order fixed by the rules, so a seed fixes the whole game. A bot draws from its
//! entry's generator of the turn, seeded from `Engine::rng` at the start of the decision
//! step: so no entry's calls change what another entry's calls see, and a turn's calls
//! may be made entry by entry (a lockstep worker makes its entry's at once).
//!
//! **Architecture Invariant:** the board holds exactly the present entities, one per
//! cell; an entity that changes kind gets a new record with a new number and its old
//! record is marked absent (numbers index `entities` and are never reused).

use std::sync::Arc;

use rand::{Rng, RngExt, SeedableRng};
use zombies_plugin_abi::abi_stable::std_types::{RSlice, RStr};
use zombies_plugin_abi::{Action, Context, Direction, Id, SHOOT_RANGE, VISION_RANGE};

use super::board::Board;
use super::{GameOutcome, Zombies};
use crate::bot::{Bot, BotError, CallStats};

/// Players each entry starts with.
pub const PLAYERS_PER_ENTRY: u32 = 50;
/// Bullets each player starts with.
pub const STARTING_BULLETS: u32 = 3;
/// Share of the board's cells occupied at the start.
pub const DENSITY: f64 = 0.06;
/// Smallest board side: the view width.
pub const MIN_SIDE: u32 = 17;

/// The eight steps of a turn, in the rules' order.
pub const STEPS: [&str; 8] = ["spawn", "bite", "score", "decide", "shoot", "movement", "scavenge", "clock"];

/// The generator behind every random choice of a game.
pub use crate::game::{GameRng, random_source};

/// Side of the board for `entries` entries of `players_per_entry` players:
/// `max(17, ceil(sqrt(players / 0.06)))`, computed in `f64` as the original did.
pub fn board_side(entries: usize, players_per_entry: u32) -> u32 {
    let squares_needed = (entries as f64 * f64::from(players_per_entry)) / DENSITY;
    (squares_needed.sqrt().ceil() as u32).max(MIN_SIDE)
}

/// What an entity is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A living player of the entry with this index.
    Player(u32),
    /// A zombie.
    Zombie,
    /// A dead body.
    DeadBody,
}

impl Kind {
    /// The kind an id denotes (`None` for an empty cell).
    pub fn of(id: Id) -> Option<Kind> {
        if id.is_empty() {
            None
        } else if id.is_zombie() {
            Some(Kind::Zombie)
        } else if id.is_dead_body() {
            Some(Kind::DeadBody)
        } else {
            Some(Kind::Player(id.owner))
        }
    }
}

/// A present entity as seen from outside the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntityInfo {
    /// Its current id.
    pub id: Id,
    /// What it is.
    pub kind: Kind,
    /// Column.
    pub x: u32,
    /// Row.
    pub y: u32,
    /// Bullets carried (always 0 for zombies).
    pub bullets: u32,
}

#[derive(Debug, Clone, Copy)]
struct Entity {
    id: Id,
    x: u32,
    y: u32,
    bullets: u32,
}

/// What a call for player `e` shows its bot at turn `clock`: the player, the turn's
/// snapshot of the board around it, and its entry's generator of the turn (the one
/// place a call's context is made, for the call and for [`Bot::prefetch`] alike).
#[inline]
fn player_context<'a>(
    e: &Entity,
    clock: u32,
    board: &'a Board,
    names: &'a [RStr<'a>],
    rng: &'a mut GameRng,
) -> Context<'a> {
    Context {
        id: e.id,
        bullets: e.bullets,
        clock,
        x: e.x,
        y: e.y,
        board_size: board.side(),
        view: board.view(e.x, e.y),
        names: RSlice::from_slice(names),
        random: random_source(rng),
    }
}

/// A player's or zombie's planned step for this turn's movement step, listed by the
/// decision step (those that stay have none).
#[derive(Debug, Clone, Copy)]
struct Plan {
    /// The entity (the movement step drops the plan if it was shot).
    id: Id,
    /// Where it stands.
    x: u32,
    y: u32,
    /// Where it tries to go.
    tx: u32,
    ty: u32,
    /// The plan listed before it with the same target, when smaller than its own
    /// index (see `Engine::movement`).
    next: u32,
    /// Sent back by a conflict: it stays.
    back: bool,
}

/// A shot fired this turn (for replays): from the shooter's cell toward its target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShotRecord {
    /// The shooter's cell.
    pub from: (u32, u32),
    /// The target's cell, if the id named a present entity.
    pub to: Option<(u32, u32)>,
    /// True when the target was in range and is marked.
    pub hit: bool,
}

/// Options of a game beyond the rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Config {
    /// Players per entry (50 in the rules; smaller values help tests).
    pub players_per_entry: u32,
    /// Stop after this many turns even if players live (none in the rules).
    pub max_turns: Option<u32>,
}

impl Default for Config {
    fn default() -> Self {
        Config { players_per_entry: PLAYERS_PER_ENTRY, max_turns: None }
    }
}

/// A game in progress.
#[derive(Debug)]
pub struct Engine {
    seed: u64,
    board: Board,
    /// Every entity ever, indexed by number (index 0 is unused: number 0 means empty).
    entities: Vec<Entity>,
    /// Bit `n` set while entity `n` is on the board (cleared once it changed kind: its
    /// number is then retired). Apart from the records, so that dropping the absent
    /// movers at each decision step reads a few cached words, not each mover's record.
    present: Vec<u64>,
    /// Numbers of living players, and of zombies, each in the order they were made
    /// (absent ones are dropped at each decision step, which shuffles the players').
    players: Vec<u32>,
    zombies: Vec<u32>,
    /// Numbers of dead bodies that may still carry bullets.
    loaded_bodies: Vec<u32>,
    names: Arc<[String]>,
    /// Living players per entry.
    alive: Vec<u32>,
    living: u32,
    scores: Vec<u32>,
    stats: Vec<CallStats>,
    clock: u32,
    max_turns: Option<u32>,
    rng: GameRng,
    /// Entities marked by this turn's shots, in marking order.
    marked: Vec<u32>,
    /// Shots fired in this turn's decision step.
    shots: Vec<ShotRecord>,
    /// Claims per cell (`y * side + x`): between turns 1 on each occupied cell and 0
    /// elsewhere; the movement step moves each mover's claim to its target.
    claims: Vec<u8>,
    /// The last plan listed with each cell (`y * side + x`) as its target, linking the
    /// others through `Plan::next`; written by the movement step and never cleared (a
    /// stale index fails the check in `Engine::movement`).
    heads: Vec<u32>,
    /// This turn's plans of those that move, in decision order; valid while `planning`.
    plans: Vec<Plan>,
    /// True from the decision step until the movement step has used the plans.
    planning: bool,
    /// True when an entity changed kind while `planning` (it was shot): the movement
    /// step then cancels the plans of those no longer present. (Found by a pass over the
    /// plans in the rare turn that needs it, rather than a plan index written to each
    /// mover's record every turn.)
    retired_while_planning: bool,
    queue: Vec<(u32, u32)>,
    /// Scratch of the bite step: the cells of the bitten players.
    bitten: Vec<(u32, u32)>,
    /// Scratch of the decision step: [`Board::view_columns`] of the snapshot.
    view_columns: Vec<u64>,
    /// Each entry's generator of this turn's decision step, seeded from `rng`.
    entry_rngs: Vec<GameRng>,
    /// Scratch of the decision step: what each player's call asked for (by place in
    /// `player_movers`), and those places of each entry's players.
    answered: Vec<Answered>,
    by_owner: Vec<Vec<u32>>,
    /// Scratch of the decision step: the turn's zombies (id and cell; then those that
    /// see a living player) and its players (their records as the step began), and the
    /// zombies that see none, each in the turn's order.
    zombie_movers: Vec<(Id, u32, u32)>,
    blind_zombies: Vec<(Id, u32, u32)>,
    player_movers: Vec<Entity>,
    /// Scratch of a whole-entry call (`Engine::entry_call`): its contexts (empty between
    /// calls, hence `'static`) and its answers.
    entry_calls: Vec<Context<'static>>,
    entry_answers: Vec<Result<Action, BotError>>,
}

impl Engine {
    /// A new game with the rules' set-up: each entry's players placed one by one on
    /// uniformly random empty cells, entry by entry, with 3 bullets each.
    pub fn new(names: Vec<String>, seed: u64, config: Config) -> Engine {
        let side = board_side(names.len(), config.players_per_entry);
        let mut game = Engine::empty(names, side, seed);
        game.max_turns = config.max_turns;
        for owner in 0..game.names.len() as u32 {
            for _ in 0..config.players_per_entry {
                let (x, y) = loop {
                    let (x, y) = game.random_cell();
                    if game.board.get(x, y).is_empty() {
                        break (x, y);
                    }
                };
                game.place_player(owner, x, y, STARTING_BULLETS);
            }
        }
        game
    }

    /// A game on an empty board of the given side, for hand-made positions.
    pub fn empty(names: Vec<String>, side: u32, seed: u64) -> Engine {
        let n = names.len();
        Engine {
            seed,
            board: Board::new(side),
            entities: vec![NO_ENTITY],
            present: vec![0],
            players: Vec::new(),
            zombies: Vec::new(),
            loaded_bodies: Vec::new(),
            names: names.into(),
            alive: vec![0; n],
            living: 0,
            scores: vec![0; n],
            stats: vec![CallStats::default(); n],
            clock: 0,
            max_turns: None,
            rng: GameRng::seed_from_u64(seed),
            marked: Vec::new(),
            shots: Vec::new(),
            claims: vec![0; (side as usize) * (side as usize)],
            heads: vec![NO_PLAN; (side as usize) * (side as usize)],
            plans: Vec::new(),
            planning: false,
            retired_while_planning: false,
            queue: Vec::new(),
            bitten: Vec::new(),
            view_columns: Vec::new(),
            entry_rngs: Vec::new(),
            answered: Vec::new(),
            by_owner: Vec::new(),
            zombie_movers: Vec::new(),
            blind_zombies: Vec::new(),
            player_movers: Vec::new(),
            entry_calls: Vec::new(),
            entry_answers: Vec::new(),
        }
    }

    // ----- inspection -------------------------------------------------------------

    /// The seed this game was made with.
    pub fn seed(&self) -> u64 {
        self.seed
    }
    /// The clock.
    pub fn clock(&self) -> u32 {
        self.clock
    }
    /// Side of the board.
    pub fn side(&self) -> u32 {
        self.board.side()
    }
    /// Entry names, indexed by owner.
    pub fn names(&self) -> &[String] {
        &self.names
    }
    /// Scores so far, indexed by owner.
    pub fn scores(&self) -> &[u32] {
        &self.scores
    }
    /// Living players of each entry.
    pub fn alive(&self) -> &[u32] {
        &self.alive
    }
    /// Bot call counters so far, indexed by owner.
    pub fn stats(&self) -> &[CallStats] {
        &self.stats
    }
    /// True when no living player is left: the game is over.
    pub fn is_over(&self) -> bool {
        self.living == 0
    }
    /// The shots fired in the last decision step (cleared when the next one starts).
    pub fn shots(&self) -> &[ShotRecord] {
        &self.shots
    }
    /// The board (read only).
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The entity on `(x, y)`, if any.
    pub fn at(&self, x: u32, y: u32) -> Option<EntityInfo> {
        let (x, y) = self.board.wrap(x, y, 0, 0);
        self.entity(self.board.get(x, y))
    }

    /// The entity with this id, if it is still present (its number not retired).
    pub fn entity(&self, id: Id) -> Option<EntityInfo> {
        self.present(id).map(|e| self.info(e))
    }

    /// The record of the entity with this id, if it is on the board.
    fn present(&self, id: Id) -> Option<&Entity> {
        self.entities.get(id.number as usize).filter(|e| self.is_present(id.number) && e.id == id)
    }

    /// True while entity `number` (a number given out) is on the board.
    #[inline]
    fn is_present(&self, number: u32) -> bool {
        bit(&self.present, number)
    }

    /// Every present entity, row by row.
    pub fn entities(&self) -> impl Iterator<Item = EntityInfo> + '_ {
        self.board.occupied().map(|(_, _, id)| self.info(&self.entities[id.number as usize]))
    }

    fn info(&self, e: &Entity) -> EntityInfo {
        EntityInfo {
            id: e.id,
            kind: Kind::of(e.id).expect("present entities have ids"),
            x: e.x,
            y: e.y,
            bullets: e.bullets,
        }
    }

    /// Checks the engine's invariants: one entity per cell, every present entity on its
    /// cell and nowhere else, numbers unique, margin copies in step, living counts
    /// right. For tests; `Err` says what broke.
    pub fn check_invariants(&self) -> Result<(), String> {
        if !self.board.margins_consistent() {
            return Err("a margin copy differs from its cell".into());
        }
        let mut seen = std::collections::HashSet::new();
        for (x, y, id) in self.board.occupied() {
            if !seen.insert(id.number) {
                return Err(format!("number {} is on two cells", id.number));
            }
            let e = self.entities.get(id.number as usize).ok_or(format!("unknown number {}", id.number))?;
            if !self.is_present(id.number) || e.id != id || (e.x, e.y) != (x, y) {
                return Err(format!("cell ({x}, {y}) holds {id:?}, which is not there"));
            }
        }
        if !self.planning {
            let side = self.board.side();
            for (c, &claims) in self.claims.iter().enumerate() {
                let occupied = !self.board.get(c as u32 % side, c as u32 / side).is_empty() as u8;
                if claims != occupied {
                    return Err(format!("cell {c} has {claims} claims between turns, {occupied} occupants"));
                }
            }
        }
        let present = (0..self.entities.len() as u32).filter(|&n| self.is_present(n)).count();
        if present != seen.len() {
            return Err(format!("{present} present entities but {} occupied cells", seen.len()));
        }
        let mut alive = vec![0u32; self.names.len()];
        for (n, e) in self.entities.iter().enumerate() {
            if self.is_present(n as u32) && e.id.is_player() {
                alive[e.id.owner as usize] += 1;
            }
        }
        if alive != self.alive || alive.iter().sum::<u32>() != self.living {
            return Err(format!("living counts {:?} / {} but {alive:?} on the board", self.alive, self.living));
        }
        Ok(())
    }

    // ----- hand-made positions -----------------------------------------------------

    fn add(&mut self, owner: u32, x: u32, y: u32, bullets: u32) -> Id {
        let (x, y) = self.board.wrap(x, y, 0, 0);
        assert!(self.board.get(x, y).is_empty(), "cell ({x}, {y}) is occupied");
        let id = Id { owner, number: self.entities.len() as u32 };
        self.entities.push(Entity { id, x, y, bullets });
        if id.number as usize / 64 == self.present.len() {
            self.present.push(0);
        }
        self.present[id.number as usize / 64] |= 1 << (id.number % 64);
        self.board.set(x, y, id);
        self.claims[(y * self.board.side() + x) as usize] += 1;
        if id.is_player() {
            self.alive[owner as usize] += 1;
            self.living += 1;
        }
        if id.is_dead_body() {
            if bullets > 0 {
                self.loaded_bodies.push(id.number);
            }
        } else if id.is_zombie() {
            self.zombies.push(id.number);
        } else {
            self.players.push(id.number);
        }
        id
    }

    /// Puts a living player of entry `owner` on an empty cell.
    pub fn place_player(&mut self, owner: u32, x: u32, y: u32, bullets: u32) -> Id {
        assert!((owner as usize) < self.names.len(), "no entry {owner}");
        self.add(owner, x, y, bullets)
    }
    /// Puts a zombie on an empty cell.
    pub fn place_zombie(&mut self, x: u32, y: u32) -> Id {
        self.add(Id::ZOMBIE, x, y, 0)
    }
    /// Puts a dead body on an empty cell.
    pub fn place_body(&mut self, x: u32, y: u32, bullets: u32) -> Id {
        self.add(Id::DEAD_BODY, x, y, bullets)
    }

    /// Retires entity `number` and puts a new entity of kind `owner` on its cell.
    fn change_kind(&mut self, number: u32, owner: u32, bullets: u32) -> Id {
        debug_assert!(self.is_present(number));
        self.present[number as usize / 64] &= !(1 << (number % 64));
        let old = &self.entities[number as usize];
        let (old_id, x, y) = (old.id, old.x, old.y);
        // Between the decision and movement steps (shot): its planned move, if any, is
        // cancelled (by the movement step).
        self.retired_while_planning |= self.planning;
        if old_id.is_player() {
            self.alive[old_id.owner as usize] -= 1;
            self.living -= 1;
        }
        self.claims[(y * self.board.side() + x) as usize] -= 1;
        self.board.set(x, y, Id::EMPTY);
        self.add(owner, x, y, bullets)
    }

    fn random_cell(&mut self) -> (u32, u32) {
        let side = self.board.side();
        let x = self.rng.random_range(0..side);
        let y = self.rng.random_range(0..side);
        (x, y)
    }

    // ----- the turn --------------------------------------------------------------

    /// Plays one turn: the eight steps of the rules, in order.
    pub fn turn(&mut self, bots: &mut [Box<dyn Bot<Zombies> + '_>]) {
        self.turn_observed(bots, |_| {});
    }

    /// [`Engine::turn`], calling `after(i)` once step `i` of [`STEPS`] is done (for
    /// timing each step).
    pub fn turn_observed(&mut self, bots: &mut [Box<dyn Bot<Zombies> + '_>], mut after: impl FnMut(usize)) {
        self.spawn();
        after(0);
        self.bite();
        after(1);
        self.score();
        after(2);
        self.decide(bots);
        after(3);
        self.shoot();
        after(4);
        self.movement();
        after(5);
        self.scavenge();
        after(6);
        self.advance_clock();
        after(7);
    }

    /// Plays turns until no living player is left at the start of a turn (or the
    /// configured turn limit), and returns the outcome.
    pub fn play(mut self, bots: &mut [Box<dyn Bot<Zombies> + '_>]) -> GameOutcome {
        assert_eq!(bots.len(), self.names.len(), "one bot per entry");
        while !self.is_over() && self.max_turns.is_none_or(|m| self.clock < m) {
            self.turn(bots);
        }
        self.outcome()
    }

    /// The outcome so far.
    pub fn outcome(&self) -> GameOutcome {
        GameOutcome {
            seed: self.seed,
            turns: self.clock,
            scores: self.scores.clone(),
            stats: self.stats.clone(),
            tiebreak: Vec::new(),
        }
    }

    /// Step 1: a zombie rises on a uniformly random cell.
    pub fn spawn(&mut self) {
        let (x, y) = self.random_cell();
        self.spawn_at(x, y);
    }

    /// Step 1 on a given cell: whatever stands there (player, dead body or zombie)
    /// becomes a zombie with a new id and no bullets; an empty cell gets a new zombie.
    pub fn spawn_at(&mut self, x: u32, y: u32) -> Id {
        let (x, y) = self.board.wrap(x, y, 0, 0);
        let here = self.board.get(x, y);
        if here.is_empty() { self.add(Id::ZOMBIE, x, y, 0) } else { self.change_kind(here.number, Id::ZOMBIE, 0) }
    }

    /// Step 2: every living player next to a zombie that existed when this step began
    /// (8-neighbourhood, wrapping) becomes a zombie and loses its bullets.
    pub fn bite(&mut self) {
        let mut bitten = std::mem::take(&mut self.bitten);
        self.board.players_next_to_zombies(&mut bitten);
        for &(x, y) in &bitten {
            let player = self.board.get(x, y);
            self.change_kind(player.number, Id::ZOMBIE, 0);
        }
        self.bitten = bitten;
    }

    /// Step 3: every entry that still has a living player scores the clock.
    pub fn score(&mut self) {
        for (score, &alive) in self.scores.iter_mut().zip(&self.alive) {
            if alive > 0 {
                *score = self.clock;
            }
        }
    }

    /// Step 4: every zombie picks its step and, in a random order, every living player's
    /// bot is called; shots spend bullets and mark their targets. The board is not
    /// changed here, so every decision sees the same snapshot.
    pub fn decide(&mut self, bots: &mut [Box<dyn Bot<Zombies> + '_>]) {
        // The players still present, kept without a branch on which (about as many are
        // bitten as spawned on, in no order a branch could learn).
        let (list, present, mut kept) = (&mut self.players[..], &self.present[..], 0);
        for i in 0..list.len() {
            let n = list[i];
            list[kept] = n;
            kept += usize::from(bit(present, n));
        }
        self.players.truncate(kept);
        self.marked.clear();
        self.shots.clear();
        self.planning = true;
        self.board.view_columns(&mut self.view_columns);
        // Each entry's generator for this turn, seeded from the game's, entry by entry.
        self.entry_rngs.clear();
        for _ in 0..self.names.len() {
            let seed = self.rng.next_u64();
            self.entry_rngs.push(GameRng::seed_from_u64(seed));
        }
        // The turn's order of the players. Only they are put in order: a zombie's step
        // depends on the snapshot alone, or on a draw of its own (below), so the zombies'
        // order changes nothing but which zombie gets which of a list of independent
        // uniform draws, and games are distributed as if every mover were put in one
        // random order (docs/games/zombies.md, step 4). Shuffling the players alone is
        // half the work, and the zombies are then read in the order they were made.
        shuffle(&mut self.players, &mut self.rng);
        // No call changes what another sees (the snapshot, its entry's own generator), and
        // each entry's bot is called for its players in the turn's order either way: so
        // which entry's calls come first changes nothing. Where some are played elsewhere
        // (a lockstep game) or answer a whole entry in one call (`Bot::whole_entry`), the
        // calls are made first, entry by entry, those played here first, so that a
        // process makes all of its entry's calls of the turn at once and a whole-entry
        // bot gets them in one call; else each player's call is made in the pass below,
        // in the turn's order.
        let owned = Arc::clone(&self.names);
        let names: Vec<RStr<'_>> = owned.iter().map(|n| RStr::from_str(n)).collect();
        let in_advance = bots.iter().any(|b| b.played_elsewhere() || b.whole_entry());
        if bots.iter().any(|b| b.prefetches()) {
            self.prefetch_calls(bots, &names);
        }
        // The turn's zombies (where they stand) and players (their records as the step
        // began: a call changes no player's record but by its own shot, after it). The
        // two passes below draw from different generators (zombies from the game's,
        // players from their entry's), so playing the zombies first changes nothing but
        // the order of the plans, which the movement step does not depend on.
        // (The zombies still present are kept in the same pass, as the players above.)
        let (present, entities) = (&self.present[..], &self.entities[..]);
        self.zombie_movers.resize(self.zombies.len(), (Id::EMPTY, 0, 0));
        let (list, zombie_movers) = (&mut self.zombies[..], &mut self.zombie_movers[..]);
        let mut kept = 0;
        for i in 0..list.len() {
            let n = list[i];
            let e = &entities[n as usize];
            list[kept] = n;
            zombie_movers[kept] = (e.id, e.x, e.y);
            kept += usize::from(bit(present, n));
        }
        self.zombies.truncate(kept);
        self.zombie_movers.truncate(kept);
        self.player_movers.clear();
        self.player_movers.extend(self.players.iter().map(|&n| entities[n as usize]));
        let (zombies, players) = (self.zombies.len(), self.players.len());
        if in_advance {
            self.call_in_advance(bots, &names, players);
        }
        // Every mover's plan is written at the next free place, which only those that
        // move take (no branch on a random choice); stale ones are cut off at the end.
        let filler = Plan { id: Id::EMPTY, x: 0, y: 0, tx: 0, ty: 0, next: NO_PLAN, back: false };
        self.plans.resize(zombies + players, filler);
        let mut planned = 0;
        // A zombie steps toward the nearest living player in its view (Chebyshev; ties
        // to the first met scanning columns x = -8..8, rows y = -8..8 in each), else a
        // uniformly random one of the nine moves. Those that see one are kept in place
        // and those that see none listed apart, each in the order they were made, without
        // a branch on which (about as many of each, in random order); only the latter draw.
        self.blind_zombies.resize(zombies, (Id::EMPTY, 0, 0));
        let (mut seeing, mut blind) = (0, 0);
        let (zombie_movers, blind_zombies) = (&mut self.zombie_movers[..zombies], &mut self.blind_zombies[..]);
        for z in 0..zombies {
            let zombie = zombie_movers[z];
            let sees = self.board.sees_player(&self.view_columns, zombie.1, zombie.2);
            zombie_movers[seeing] = zombie;
            blind_zombies[blind] = zombie;
            seeing += usize::from(sees);
            blind += usize::from(!sees);
        }
        // (Local slices, as above.)
        let (board, plans) = (&self.board, &mut self.plans[..]);
        for &(id, x, y) in &self.zombie_movers[..seeing] {
            // (It sees one, so the search finds one.)
            let (dx, dy) = step_toward_nearest(board, x, y).unwrap_or((0, 0));
            planned = plan_at(plans, board, planned, id, x, y, dx, dy);
        }
        let mut moves = NineWays::default();
        for &(id, x, y) in &self.blind_zombies[..blind] {
            let (dx, dy) = Direction::ALL[moves.next(&mut self.rng)].delta();
            planned = plan_at(plans, board, planned, id, x, y, dx, dy);
        }
        for p in 0..players {
            let e = self.player_movers[p];
            let answered = if in_advance { self.answered[p] } else { self.player_call(bots, &names, &e) };
            let (dx, dy) = Answered::STEPS[answered.code as usize];
            if answered.code == Answered::SHOOT {
                self.fire(e.id.number, answered.target);
            }
            planned = self.plan(planned, e.id, e.x, e.y, dx, dy);
        }
        self.plans.truncate(planned);
    }

    /// Writes the plan of `id`, standing on `(x, y)`, to step by `(dx, dy)` at place
    /// `planned` of `plans`; returns the next free place (the same one if it stays).
    #[inline]
    fn plan(&mut self, planned: usize, id: Id, x: u32, y: u32, dx: i32, dy: i32) -> usize {
        plan_at(&mut self.plans, &self.board, planned, id, x, y, dx, dy)
    }

    /// The decision step's calls made before its moves (some bots are played elsewhere or
    /// answer a whole entry in one call), for the turn's first `players` players of
    /// `player_movers`: entry by entry, each for its living players in the turn's order,
    /// the bots played here first; what each asks for is kept in `answered`, by place
    /// among the turn's players.
    fn call_in_advance(&mut self, bots: &mut [Box<dyn Bot<Zombies> + '_>], names: &[RStr<'_>], players: usize) {
        self.answered.clear();
        self.answered.resize(players, Answered::STAY);
        // (The lists are kept from turn to turn: no allocation once they have grown.)
        self.by_owner.resize_with(self.names.len(), Vec::new);
        self.by_owner.iter_mut().for_each(Vec::clear);
        for (p, e) in self.player_movers[..players].iter().enumerate() {
            self.by_owner[e.id.owner as usize].push(p as u32);
        }
        let by_owner = std::mem::take(&mut self.by_owner);
        for elsewhere in [false, true] {
            for (owner, places) in by_owner.iter().enumerate() {
                if bots[owner].played_elsewhere() != elsewhere {
                    continue;
                }
                if bots[owner].whole_entry() {
                    self.entry_call(bots, names, owner, places);
                    continue;
                }
                for &p in places {
                    let e = self.player_movers[p as usize];
                    self.answered[p as usize] = self.player_call(bots, names, &e);
                }
            }
        }
        self.by_owner = by_owner;
    }

    /// Calls the bot of entry `owner` once for all of its living players (`places` in
    /// `player_movers`, in the turn's order) with [`Bot::turn_all`]: the contexts the calls
    /// one per player would have had, all drawing from the entry's generator of the turn,
    /// so the bot draws the same numbers in the same order. What each asks for is kept
    /// in `answered`; each answer is counted and judged as its own call.
    fn entry_call(
        &mut self,
        bots: &mut [Box<dyn Bot<Zombies> + '_>],
        names: &[RStr<'_>],
        owner: usize,
        places: &[u32],
    ) {
        if places.is_empty() {
            return;
        }
        // (The scratch lists are kept from turn to turn: no allocation once they have grown.)
        let mut calls: Vec<Context<'_>> = std::mem::take(&mut self.entry_calls);
        let mut answers = std::mem::take(&mut self.entry_answers);
        let random = random_source(&mut self.entry_rngs[owner]);
        let (clock, board_size) = (self.clock, self.board.side());
        calls.clear();
        calls.extend(places.iter().map(|&p| {
            let e = &self.player_movers[p as usize];
            Context {
                id: e.id,
                bullets: e.bullets,
                clock,
                x: e.x,
                y: e.y,
                board_size,
                view: self.board.view(e.x, e.y),
                names: RSlice::from_slice(names),
                random,
            }
        }));
        self.stats[owner].count_all(calls.len() as u64, || bots[owner].turn_all(&calls, &mut answers));
        // Back to a list of no borrowed contexts, keeping its allocation (the list is empty,
        // and the element types differ only in their lifetime).
        calls.clear();
        #[allow(clippy::unnecessary_filter_map, reason = "it changes the element type, not the elements")]
        let calls: Vec<Context<'static>> = calls.into_iter().filter_map(|_| None).collect();
        self.entry_calls = calls;
        // (Read in place: moving each answer out costs more than the call did.)
        answers.resize_with(places.len(), || Err(BotError::Failed("no answer for this player".to_owned())));
        for (&p, answer) in places.iter().zip(&answers) {
            self.answered[p as usize] = answered(&mut self.stats[owner], answer);
        }
        answers.clear();
        self.entry_answers = answers;
    }

    /// Tells each bot that wants it ([`Bot::prefetch`]) the calls it will get in this
    /// turn, in the order it will get them: its living players in the turn's order (the
    /// order of both passes above). A program bot sends them to its process at once.
    fn prefetch_calls(&mut self, bots: &mut [Box<dyn Bot<Zombies> + '_>], names: &[RStr<'_>]) {
        for &number in &self.players {
            let e = self.entities[number as usize];
            let owner = e.id.owner as usize;
            if !bots[owner].prefetches() {
                continue;
            }
            let ctx = player_context(&e, self.clock, &self.board, names, &mut self.entry_rngs[owner]);
            bots[owner].prefetch(&ctx);
        }
    }

    /// Calls the bot of the entry of player `e` (its record as the decision step began)
    /// for it, drawing from the entry's generator of this turn; returns what the engine
    /// will apply.
    fn player_call(&mut self, bots: &mut [Box<dyn Bot<Zombies> + '_>], names: &[RStr<'_>], e: &Entity) -> Answered {
        let owner = e.id.owner as usize;
        let ctx = player_context(e, self.clock, &self.board, names, &mut self.entry_rngs[owner]);
        let answer = self.stats[owner].count(|| bots[owner].turn(&ctx));
        answered(&mut self.stats[owner], &answer)
    }

    /// A shot by `shooter` at `target`: ignored without bullets; otherwise one bullet
    /// is spent and the target is marked if it is in the shooter's shootable set.
    fn fire(&mut self, shooter: u32, target: Id) {
        let s = self.entities[shooter as usize];
        if s.bullets == 0 {
            return;
        }
        self.entities[shooter as usize].bullets -= 1;
        let t = self.present(target);
        let in_range = t.is_some_and(|t| self.board.distance((s.x, s.y), (t.x, t.y)) <= SHOOT_RANGE as u32);
        self.shots.push(ShotRecord { from: (s.x, s.y), to: t.map(|t| (t.x, t.y)), hit: in_range });
        if in_range && !self.marked.contains(&target.number) {
            self.marked.push(target.number);
        }
    }

    /// Step 5: every marked entity dies at once and becomes a dead body (new id) on its
    /// cell, keeping its bullets; its planned move is cancelled.
    pub fn shoot(&mut self) {
        let marked = std::mem::take(&mut self.marked);
        for &n in &marked {
            let bullets = self.entities[n as usize].bullets;
            self.change_kind(n, Id::DEAD_BODY, bullets);
        }
        self.marked = marked;
        self.marked.clear();
    }

    /// Step 6: every entity moves to its planned cell at once. A cell claimed by two or
    /// more entities (an entity that stays claims its own cell) sends all its movers
    /// back, repeated until no cell is claimed twice. Swaps and moving into a cell whose
    /// occupant moves away succeed.
    pub fn movement(&mut self) {
        if !self.planning {
            return;
        }
        if std::mem::take(&mut self.retired_while_planning) {
            // Shot since the decision step: their moves are cancelled.
            let present = &self.present;
            self.plans.retain(|p| bit(present, p.id.number));
        }
        let side = self.board.side();
        let cell = |x: u32, y: u32| (y * side + x) as usize;
        // Every occupant claims its cell; a mover moves its claim to its target, and
        // joins the list of that target's claimants. A target claimed twice is queued
        // (its claims may fall again as its occupant leaves: the queue checks again),
        // written at the next free place that only such a target takes (no branch on
        // the random outcome; the list has room for a place per plan and per sending
        // back, the most there can be).
        // The outcome does not depend on the order in which conflicts are settled: a
        // cell's claims fall only when its own conflict is settled, so every cell that
        // is ever claimed twice sends all its claimants back, whatever the order.
        self.queue.clear();
        self.queue.resize(2 * self.plans.len() + 1, (0, 0));
        let mut queued = 0;
        // (The lists as local slices, and the count kept at hand: read through `self`
        // after each store, which might alias them as far as the compiler knows, each
        // list's place and length were loaded again for every plan, and the count came
        // back through a store-to-load forwarding on the chain of `queued`.)
        let (claims, heads, queue) = (&mut self.claims[..], &mut self.heads[..], &mut self.queue[..]);
        for (i, p) in self.plans.iter_mut().enumerate() {
            let target = cell(p.tx, p.ty);
            claims[cell(p.x, p.y)] -= 1;
            let count = claims[target] + 1;
            claims[target] = count;
            p.next = heads[target];
            heads[target] = i as u32;
            queue[queued] = (p.tx, p.ty);
            queued += usize::from(count >= 2);
        }
        self.queue.truncate(queued);
        while let Some((cx, cy)) = self.queue.pop() {
            let target = cell(cx, cy);
            if self.claims[target] < 2 {
                continue;
            }
            // Send back every mover aimed here.
            let mut i = self.heads[target];
            while let Some(p) = self.plans.get_mut(i as usize).filter(|p| (p.tx, p.ty) == (cx, cy)) {
                if !p.back {
                    p.back = true;
                    self.claims[target] -= 1;
                    // It claims its own cell again: a conflict if anyone aims there.
                    let own = cell(p.x, p.y);
                    self.claims[own] += 1;
                    if self.claims[own] >= 2 {
                        self.queue.push((p.x, p.y));
                    }
                }
                // Links point to earlier plans; any other value is left from an
                // earlier turn.
                if p.next >= i {
                    break;
                }
                i = p.next;
            }
        }
        // All moves at once: first every mover leaves its cell, then every mover lands
        // (the targets are distinct and, once the movers have left, empty). The claims
        // now stand on the occupied cells again. One sent back leaves and lands on its
        // own cell, which nobody else lands on (no branch on the random outcome).
        let mut batch = self.board.batch();
        for p in &self.plans {
            batch.remove(p.x, p.y);
        }
        for p in &self.plans {
            let (tx, ty) = if p.back { (p.x, p.y) } else { (p.tx, p.ty) };
            batch.place(tx, ty, p.id);
            let e = &mut self.entities[p.id.number as usize];
            (e.x, e.y) = (tx, ty);
        }
        drop(batch);
        self.planning = false;
    }

    /// Step 7: each dead body's bullets are split evenly (integer division) among the
    /// living players next to it; the remainder is lost and the body keeps none.
    pub fn scavenge(&mut self) {
        let mut bodies = std::mem::take(&mut self.loaded_bodies);
        bodies.retain(|&b| {
            let body = self.entities[b as usize];
            if !self.is_present(b) || body.bullets == 0 {
                return false;
            }
            let mut near = [0u32; 8];
            let mut count = 0;
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let n = self.board.get_offset(body.x, body.y, dx, dy);
                    if n.is_player() {
                        near[count] = n.number;
                        count += 1;
                    }
                }
            }
            if count == 0 {
                return true;
            }
            let share = body.bullets / count as u32;
            for &p in &near[..count] {
                self.entities[p as usize].bullets += share;
            }
            self.entities[b as usize].bullets = 0;
            false
        });
        self.loaded_bodies = bodies;
    }

    /// Step 8: the clock advances by one.
    pub fn advance_clock(&mut self) {
        self.clock += 1;
    }
}

/// [`Engine::plan`] on the plans and board given (local slices in the zombies' loops).
#[inline(always)]
#[allow(clippy::too_many_arguments, reason = "the plan's fields, passed in registers")]
fn plan_at(plans: &mut [Plan], board: &Board, planned: usize, id: Id, x: u32, y: u32, dx: i32, dy: i32) -> usize {
    let (tx, ty) = board.step(x, y, dx, dy);
    plans[planned] = Plan { id, x, y, tx, ty, next: NO_PLAN, back: false };
    planned + usize::from((dx, dy) != (0, 0))
}

/// Bit `n` of a bitset of `u64` words (`Engine::present`).
#[inline(always)]
fn bit(bits: &[u64], n: u32) -> bool {
    bits[n as usize / 64] >> (n % 64) & 1 == 1
}

/// Puts `list` in a uniformly random order: Fisher and Yates's shuffle from the end, each
/// place drawn by Lemire's multiply-and-reject from 32 random bits (exactly uniform; two
/// places per number drawn). `rand`'s shuffle, the one of rules version 3 and before,
/// divides for every place, one division waiting on the one before.
fn shuffle(list: &mut [u32], rng: &mut GameRng) {
    let mut spare: Option<u32> = None;
    let mut bits = || {
        spare.take().unwrap_or_else(|| {
            let n = rng.next_u64();
            spare = Some((n >> 32) as u32);
            n as u32
        })
    };
    for i in (1..list.len()).rev() {
        let place = below(u32::try_from(i + 1).expect("fewer movers than 2^32"), &mut bits);
        list.swap(i, place as usize);
    }
}

/// A number uniform in `0..bound` from uniform 32-bit numbers (Lemire's method: the high
/// half of `bits() * bound`, rejecting the few low halves that would favour some).
#[inline]
fn below(bound: u32, bits: &mut impl FnMut() -> u32) -> u32 {
    let mut m = u64::from(bits()) * u64::from(bound);
    if (m as u32) < bound {
        // The rare case (a chance of bound / 2^32): reject the low products below
        // 2^32 mod bound.
        let floor = bound.wrapping_neg() % bound;
        while (m as u32) < floor {
            m = u64::from(bits()) * u64::from(bound);
        }
    }
    (m >> 32) as u32
}

/// Uniform draws of one of the nine moves, twenty from each number drawn from the
/// game's generator: a number uniform in `0..9^20` is twenty independent uniform
/// base-9 digits, taken from the lowest (a division by the constant 9 is a multiply,
/// where a draw is a step of the 128-bit generator and a bounded product).
#[derive(Debug, Default)]
struct NineWays {
    digits: u64,
    left: u32,
}

impl NineWays {
    /// 9^20, the most nines a `u64` holds.
    const RANGE: u64 = 9u64.pow(Self::PER_DRAW);
    const PER_DRAW: u32 = 20;

    #[inline]
    fn next(&mut self, rng: &mut GameRng) -> usize {
        if self.left == 0 {
            self.digits = rng.random_range(0..Self::RANGE);
            self.left = Self::PER_DRAW;
        }
        self.left -= 1;
        let digit = self.digits % 9;
        self.digits /= 9;
        digit as usize
    }
}

/// `Plan::next` of a plan that is the first with its target, and `Engine::heads` of a
/// cell that was never a target.
const NO_PLAN: u32 = u32::MAX;

/// The filler of the decision step's scratch lists of records.
const NO_ENTITY: Entity = Entity { id: Id::EMPTY, x: 0, y: 0, bullets: 0 };

/// The offset of the living player a zombie at `(x, y)` walks to: the nearest in its
/// 17x17 view by Chebyshev distance, ties to the smallest dx, then the smallest dy (the
/// first met scanning columns x = -8..8 and rows y = -8..8 in each); `None` if it sees
/// none. Works on the board's player bitmap, one 17-bit row of the view at a time.
/// (Inlined into the decision step: its answer returned through memory was read back
/// wider than written, a store-forwarding stall per zombie.)
#[inline]
pub fn nearest_player(board: &Board, x: u32, y: u32) -> Option<(i32, i32)> {
    const R: i32 = VISION_RANGE;
    // Bit i of a row is dx = i - 8. `near` is the OR of rows -d..=d; its columns -d..=d
    // (the band) hold a player exactly when one stands within distance d, so the
    // nearest distance is the first d with a non-empty band, and every player in that
    // band is on ring d (none is nearer).
    let band = |near: u32, d: i32| (near >> (R - d)) & ((1 << (2 * d + 1)) - 1);
    let mut rows = [0u32; 17];
    let mut near = board.player_row(x, y, 0);
    rows[R as usize] = near;
    let mut d = 0;
    while band(near, d) == 0 {
        if d == R {
            return None;
        }
        d += 1;
        let (north, south) = (board.player_row(x, y, -d), board.player_row(x, y, d));
        rows[(R - d) as usize] = north;
        rows[(R + d) as usize] = south;
        near |= north | south;
    }
    // The smallest dx on the ring, then the smallest dy among the players in that column
    // of the ring: any row when the column is the ring's west or east side, else only
    // its north or south row.
    let dx = band(near, d).trailing_zeros() as i32 - d;
    let column = 1 << (R + dx);
    let dy = if dx.abs() == d {
        (-d..=d).find(|&dy| rows[(R + dy) as usize] & column != 0).expect("the band bit is in some row")
    } else if rows[(R - d) as usize] & column != 0 {
        -d
    } else {
        d
    };
    Some((dx, dy))
}

/// The step a zombie at `(x, y)` takes toward [`nearest_player`]: the signs of its
/// offset, `None` if it sees none. The same search by rings, without finding the
/// player's row: only the sign of `dy` is needed, and it is known from the rows seen
/// on the way. On the nearest ring `d`, the player's column `dx` is the smallest with a
/// player on the ring; among that column's players on the ring, the first met has the
/// smallest `dy`. So `dy` is negative when a row north of the zombie (`-d..=-1`) has a
/// player in that column, else zero when the zombie's own row has one, else positive.
/// (When `|dx| < d` the rows strictly inside the ring hold no player in that column,
/// since such a player would be nearer than `d`: the test then reads ring row `-d`
/// alone, as [`nearest_player`] does.) No search down the column, no list of rows: the
/// column search mispredicted once per zombie that sees a player.
#[inline]
pub fn step_toward_nearest(board: &Board, x: u32, y: u32) -> Option<(i32, i32)> {
    const R: i32 = VISION_RANGE;
    let band = |near: u32, d: i32| (near >> (R - d)) & ((1 << (2 * d + 1)) - 1);
    let own = board.player_row(x, y, 0);
    // `near`: the OR of rows -d..=d; `north`: of rows -d..=-1.
    let (mut near, mut north) = (own, 0);
    let mut d = 0;
    while band(near, d) == 0 {
        if d == R {
            return None;
        }
        d += 1;
        let (n, s) = (board.player_row(x, y, -d), board.player_row(x, y, d));
        north |= n;
        near |= n | s;
    }
    let dx = band(near, d).trailing_zeros() as i32 - d;
    let column = 1 << (R + dx);
    let dy = if north & column != 0 { -1 } else { i32::from(own & column == 0) };
    Some((dx.signum(), dy))
}

/// What the engine applies for a player's call in the decision step: a move (a
/// [`Direction`] code; staying for a call that failed or answered nonsense) or a shot at
/// `target`. Plain numbers rather than an enum with data, so that reading one back from
/// the decision step's list is two loads (an enum went through a stack copy that cost
/// about a tenth of the step).
#[derive(Debug, Clone, Copy)]
struct Answered {
    /// A [`Direction`] code, or [`Answered::SHOOT`].
    code: u32,
    /// The shot's target (read only for a shot).
    target: Id,
}

impl Answered {
    /// `code` of a shot.
    const SHOOT: u32 = 9;
    /// What a failed or nonsensical call amounts to.
    const STAY: Answered = Answered { code: Direction::Stay as u32, target: Id::EMPTY };
    /// The step `(dx, dy)` of each code, a shot's being none.
    const STEPS: [(i32, i32); 10] = [
        Direction::N.delta(),
        Direction::NE.delta(),
        Direction::E.delta(),
        Direction::SE.delta(),
        Direction::S.delta(),
        Direction::SW.delta(),
        Direction::W.delta(),
        Direction::NW.delta(),
        Direction::Stay.delta(),
        (0, 0),
    ];
}

/// What the engine applies for a call's `answer`, counting a failed or invalid one in the
/// entry's `stats`.
#[inline]
fn answered(stats: &mut CallStats, answer: &Result<Action, BotError>) -> Answered {
    // The valid answers checked in place (what `validate` accepts), without building its
    // `Result` (a tenth of the decision step when it was built for every answer).
    match answer {
        Ok(Action { kind: Action::MOVE, direction, .. }) if *direction <= Direction::Stay as u32 => {
            Answered { code: *direction, target: Id::EMPTY }
        }
        Ok(Action { kind: Action::SHOOT, target, .. }) => Answered { code: Answered::SHOOT, target: *target },
        Ok(action) => {
            if let Err(err) = validate(*action) {
                stats.record_error(&err);
            }
            Answered::STAY
        }
        Err(err) => {
            stats.record_error(err);
            Answered::STAY
        }
    }
}

/// What a valid answer asks for.
enum Decision {
    Move(Direction),
    Shoot(Id),
}

/// The action the engine applies for a bot's answer: the answer itself when it is a
/// valid move or shot, else staying (what a failed or invalid call amounts to).
pub fn applied(answer: &Result<Action, BotError>) -> Action {
    match answer.clone().and_then(validate) {
        Ok(Decision::Move(d)) => Action::go(d),
        Ok(Decision::Shoot(target)) => Action::shoot(target),
        Err(_) => Action::stay(),
    }
}

fn validate(action: Action) -> Result<Decision, BotError> {
    match action.kind {
        Action::MOVE => Direction::from_code(action.direction)
            .map(Decision::Move)
            .ok_or_else(|| BotError::Invalid(format!("unknown direction code {}", action.direction))),
        Action::SHOOT => Ok(Decision::Shoot(action.target)),
        k => Err(BotError::Invalid(format!("unknown action kind {k}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chi-square of `counts` against equal expectations.
    fn chi_square(counts: &[u32]) -> f64 {
        let expected = f64::from(counts.iter().sum::<u32>()) / counts.len() as f64;
        counts.iter().map(|&c| (f64::from(c) - expected).powi(2) / expected).sum()
    }

    /// Every order of five comes about equally often.
    #[test]
    fn the_shuffle_gives_every_order_equally_often() {
        let mut rng = GameRng::seed_from_u64(7);
        let mut counts = std::collections::HashMap::new();
        for _ in 0..24_000 {
            let mut list = [0, 1, 2, 3, 4];
            shuffle(&mut list, &mut rng);
            *counts.entry(list).or_insert(0u32) += 1;
        }
        assert_eq!(counts.len(), 120);
        // 119 degrees of freedom: below 172.5 with p = 0.999.
        let chi2 = chi_square(&counts.into_values().collect::<Vec<_>>());
        assert!(chi2 < 172.5, "chi2 = {chi2}");
    }

    /// Where rejection matters: below 3 * 2^30, the high half of `x * bound` is
    /// `3x / 4` rounded down, which without rejection is a multiple of 3 for half of all
    /// `x` (both `4k` and `4k + 1` give `3k`); with it, a third of the draws.
    #[test]
    fn a_place_below_a_large_bound_is_uniform_where_the_product_alone_is_not() {
        let mut rng = GameRng::seed_from_u64(8);
        let mut bits = || rng.next_u64() as u32;
        let mut counts = [0u32; 3];
        for _ in 0..30_000 {
            let v = below(3 << 30, &mut bits);
            counts[(v % 3) as usize] += 1;
        }
        // 2 degrees of freedom: below 13.8 with p = 0.999.
        let chi2 = chi_square(&counts);
        assert!(chi2 < 13.8, "chi2 = {chi2}, {counts:?}");
    }

    /// The zombie's step is the signs of the nearest player's offset, from every cell of
    /// random boards (sparse and crowded, small boards that wrap).
    #[test]
    fn the_step_toward_the_nearest_player_is_the_signs_of_its_offset() {
        let mut seed = 7u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as u32
        };
        for round in 0..60 {
            let side = 17 + next() % 50;
            let mut board = Board::new(side);
            let count = 1 + next() % (side * side / [2, 8, 40][round % 3]);
            for number in 1..=count {
                let (x, y) = (next() % side, next() % side);
                let owner = [0, 1, Id::ZOMBIE, Id::DEAD_BODY][(next() % 4) as usize];
                if board.get(x, y).is_empty() {
                    board.set(x, y, Id { owner, number });
                }
            }
            for y in 0..side {
                for x in 0..side {
                    let expected = nearest_player(&board, x, y).map(|(dx, dy)| (dx.signum(), dy.signum()));
                    assert_eq!(step_toward_nearest(&board, x, y), expected, "side {side}, at ({x}, {y})");
                }
            }
        }
    }
}
