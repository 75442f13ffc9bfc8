//! The rules of "Easter Egg Hunt", as `docs/games/eggs.md` specifies them: board
//! generation, what a player sees, one turn, the end of a game and the scores.
//!
//! This module is a pure, deterministic state machine. It is **not** a host: it does no
//! IO, runs no bots, keeps no memory strings (the host keeps them and hands them back),
//! enforces no time limits and knows nothing of tournaments. The caller asks for each
//! player's [`Engine::view`], obtains one (already validated) [`Answer`] per player, and
//! passes them all to [`Engine::play_turn`]; [`Engine::last_events`] then says what happened.
//!
//! The code follows the spec's numbering: generation steps 1-5 in [`Engine::new`], turn
//! steps 2-7 in [`Engine::play_turn`] (step 1, asking the bots, is the caller's).
//!
//! **Architecture Invariant:** every random choice of a game is drawn from the one
//! [`GameRng`] the game owns, seeded once, in an order fixed by the spec (walls, eggs,
//! reachability retries, players; then whatever the host draws through [`Engine::rng`]),
//! so a seed and the answers fix the whole game.
//!
//! **Architecture Invariant:** between turns there is at most one player per cell, no
//! player stands on a wall or an egg, and the per-cell `count` array holds exactly the
//! occupancy; [`Engine::check_invariants`] checks all of it.
//!
//! Decisions where the spec leaves room (each is repeated where the code makes it):
//! - a wall's start cell is drawn as `x` then `y`, each uniform over its allowed range;
//!   orientation is `random_range(0..2) == 0` for horizontal; the length is drawn before
//!   it is clipped to the interior side;
//! - an egg's (and a player's) cell is drawn as an index into the list of empty cells
//!   in row-major order, the chosen cell being `swap_remove`d from that list;
//! - all ranges are drawn as `u32`, so the draws do not depend on the platform's `usize`;
//! - a direction outside `1..=9` reaching [`Engine::play_turn`] is treated as the spec's
//!   error rule says: stand still with action `N`;
//! - moving off the board (only possible on a hand-made board without a border) is
//!   treated like moving into a wall;
//! - [`parse_answer`] trims ASCII whitespace (so `"5\r"` is `5`) and is case-sensitive;
//! - zero entries, or more than [`MAX_ENTRIES`], is a [`SetupError`]; playing a turn of a
//!   finished game is a caller bug and panics;
//! - step 5 runs in rounds, each deciding on the counts as they stand when it starts (every
//!   mover on a crowded cell goes back, not just enough of them); no randomness is drawn
//!   during a turn.

use std::fmt;

use rand::{RngExt, SeedableRng};

/// The generator behind every random choice of a game (the host's generator).
pub type GameRng = rand_pcg::Pcg64Mcg;

/// The board is sized as if there were at least this many entries.
pub const MIN_N: usize = 7;
/// Most entries a game accepts (our limit, so that a board stays a few megabytes).
pub const MAX_ENTRIES: usize = 1_000;
/// Shortest straight wall of generation step 2.
pub const WALL_MIN_LEN: u32 = 2;
/// Longest straight wall of generation step 2.
pub const WALL_MAX_LEN: u32 = 10;
/// Boards generated before [`Engine::new`] gives up (generation step 4).
pub const MAX_TRIES: u32 = 1_000;
/// A game lasts at most this many turns per `n`.
pub const TURNS_PER_N: u32 = 25;

const EMPTY: u8 = b' ';
const WALL: u8 = b'#';
const EGG: u8 = b'o';
const PLAYER: u8 = b'*';
const OUTSIDE: u8 = b'X';

/// `n = max(entries, 7)`: the number the board is sized by.
pub fn board_n(entries: usize) -> u32 {
    entries.max(MIN_N) as u32
}

/// Side of the board for `entries` entries, border included: `3n`.
pub fn board_side(entries: usize) -> u32 {
    3 * board_n(entries)
}

/// What a player does where it lands (fights and eggs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Act {
    /// `A`: beats Nothing, destroys an egg.
    Attack,
    /// `C`: beats Attack, leaves an egg alone and goes back.
    Counter,
    /// `N`: beats Counter, picks an egg up.
    Nothing,
}

/// One player's answer for one turn (its memory string is the host's business).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Answer {
    /// `1` NW, `2` N, `3` NE, `4` E, `5` SE, `6` S, `7` SW, `8` W, `9` stay.
    pub dir: u8,
    /// The action.
    pub act: Act,
}

impl Answer {
    /// Stand still and do nothing: what an erroring bot plays.
    pub const STAY: Answer = Answer { dir: 9, act: Act::Nothing };
}

/// `(dx, dy)` of each direction, indexed by the direction digit; `y` grows southwards.
const DELTAS: [(i64, i64); 10] = [(0, 0), (-1, -1), (0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (0, 0)];

/// What a cell of the board holds. Players are kept apart from cells: see [`Engine::players`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell {
    /// ` `
    Empty,
    /// `#`
    Wall,
    /// `o`
    Egg,
}

/// A game that cannot be set up; its `Display` is one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetupError(pub String);

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SetupError {}

/// One straight wall of generation step 2, as drawn (after clipping).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wall {
    /// West end (horizontal) or north end (vertical).
    pub x: u32,
    /// See `x`.
    pub y: u32,
    /// Horizontal (west to east) or vertical (north to south).
    pub horizontal: bool,
    /// Cells covered, `2..=10` unless clipped.
    pub len: u32,
}

/// Why a player was sent back to the cell it started the turn on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// Step 4: it lost or tied a fight.
    Fight,
    /// Step 4: three or more players landed on its cell.
    Crowd,
    /// Step 5: its cell held two or more players.
    Cascade,
    /// Step 6: it chose Counter on an egg.
    Counter,
}

/// Something that happened during the last turn, for the replay viewer. Events come in
/// the order the steps ran, and within a step in player order. Player numbers index
/// [`Engine::players`]; coordinates are `(x, y)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// Step 2: the player's direction pointed at a wall; it stayed where it was.
    Bumped { player: u32, at: (u32, u32) },
    /// Step 4: exactly two players landed on `at` and fought (`players` in index
    /// order, `acts` likewise). `winner` is `None` on a tie, when both went back.
    Fight { at: (u32, u32), players: [u32; 2], acts: [Act; 2], winner: Option<u32> },
    /// Step 4: `count` (three or more) players landed on `at`; all went back.
    Crowd { at: (u32, u32), count: u32 },
    /// Steps 4-6: a player that had left its start cell was sent back to it. (A player
    /// that stood still and lost is "sent back" where it is; that is no event.)
    SentBack { player: u32, from: (u32, u32), to: (u32, u32), reason: Reason },
    /// Step 6: the player attacked the egg at `at`; nobody scores.
    EggDestroyed { player: u32, at: (u32, u32) },
    /// Step 6: the player picked up the egg at `at` and scored 1.
    EggPicked { player: u32, at: (u32, u32) },
}

/// One game of Easter Egg Hunt: the board, the players, the scores and the generator.
#[derive(Clone, Debug)]
pub struct Engine {
    side: u32,
    /// `side * side` bytes, row-major: `EMPTY`, `WALL` or `EGG` (never a player).
    cells: Vec<u8>,
    rng: GameRng,
    /// Whether the board came from [`Engine::new`] (then it has a wall border).
    generated: bool,
    walls: Vec<Wall>,
    tries: u32,
    /// Each player's `(x, y)`, kept in step with `pos` between turns.
    players: Vec<(u32, u32)>,
    scores: Vec<u32>,
    eggs_placed: u32,
    eggs_left: u32,
    eggs_destroyed: u32,
    turn: u32,
    max_turns: u32,
    events: Vec<Event>,
    // Scratch, reused across turns so that a turn allocates nothing.
    /// Each player's cell index.
    pos: Vec<u32>,
    /// Each player's cell index at the start of the turn.
    start: Vec<u32>,
    /// Each player's action this turn.
    act: Vec<Act>,
    /// Per cell: players on it. Between turns this is the occupancy (0 or 1).
    count: Vec<u16>,
    /// Per cell: the first player (lowest index) that landed on it this turn; only
    /// meaningful where `count > 0` during steps 3-4.
    first: Vec<u16>,
    /// Players to send back, with why.
    back: Vec<(u32, Reason)>,
}

impl Engine {
    /// A new game for `entries` entries, its generator seeded with `seed`: generation
    /// steps 1-5 of the spec. Fails with no entries, more than [`MAX_ENTRIES`], or when
    /// [`MAX_TRIES`] boards in a row were not connected.
    pub fn new(entries: usize, seed: u64) -> Result<Engine, SetupError> {
        if entries == 0 {
            return Err(SetupError("a game of Easter Egg Hunt needs at least one entry".into()));
        }
        if entries > MAX_ENTRIES {
            return Err(SetupError(format!("{entries} entries is more than the {MAX_ENTRIES} a game accepts")));
        }
        let n = board_n(entries);
        let side = 3 * n;
        let mut rng = GameRng::seed_from_u64(seed);
        let mut cells = vec![EMPTY; (side * side) as usize];
        let mut walls = Vec::with_capacity(3 * n as usize);
        let mut tries = 0;
        loop {
            tries += 1;
            cells.fill(EMPTY);
            walls.clear();

            // Step 1: the border walls.
            for i in 0..side {
                for (x, y) in [(i, 0), (i, side - 1), (0, i), (side - 1, i)] {
                    cells[(y * side + x) as usize] = WALL;
                }
            }

            // Step 2: 3n straight walls, inside the interior (cells 1..=side-2 both
            // ways). Decision: orientation first (`0` horizontal), then the length, then
            // the start cell's x, then its y, each uniform over its allowed range.
            let interior = side - 2;
            for _ in 0..3 * n {
                let horizontal = rng.random_range(0..2u32) == 0;
                // A wall longer than the interior side is clipped to it (never for n >= 7).
                let len = rng.random_range(WALL_MIN_LEN..=WALL_MAX_LEN).min(interior);
                let (w, h) = if horizontal { (len, 1) } else { (1, len) };
                let x = rng.random_range(1..=interior - w + 1);
                let y = rng.random_range(1..=interior - h + 1);
                for k in 0..len {
                    let (cx, cy) = if horizontal { (x + k, y) } else { (x, y + k) };
                    cells[(cy * side + cx) as usize] = WALL;
                }
                walls.push(Wall { x, y, horizontal, len });
            }

            // Step 3: 4n eggs, each on a uniformly random cell that is still empty.
            // Decision: an index into the empty cells in row-major order, swap-removed.
            let mut empty = empty_cells(&cells);
            for _ in 0..4 * n {
                let cell = draw_cell(&mut rng, &mut empty)
                    .ok_or_else(|| SetupError(format!("no empty cell left for an egg on a {side}x{side} board")))?;
                cells[cell as usize] = EGG;
            }

            // Step 4: reachability. If not one 8-connected region, start again from
            // step 1 with the generator where it is.
            if connected(&cells, side) {
                break;
            }
            if tries == MAX_TRIES {
                return Err(SetupError(format!(
                    "no connected board for {entries} entries after {MAX_TRIES} tries (seed {seed})"
                )));
            }
        }

        // Step 5: each entry's player on a uniformly random empty cell (never an egg,
        // never another player), in entry order. Same drawing as step 3.
        let mut empty = empty_cells(&cells);
        let mut pos = Vec::with_capacity(entries);
        for _ in 0..entries {
            let cell = draw_cell(&mut rng, &mut empty)
                .ok_or_else(|| SetupError(format!("no empty cell left for a player on a {side}x{side} board")))?;
            pos.push(cell);
        }

        let eggs = 4 * n;
        let mut game = Engine::assemble(side, cells, pos, eggs, TURNS_PER_N * n, rng);
        game.generated = true;
        game.walls = walls;
        game.tries = tries;
        Ok(game)
    }

    /// A hand-made game for tests: `rows` north to south, each a string of `#` (wall),
    /// `o` (egg) and ` ` (empty) of the same length as there are rows; players at
    /// `(x, y)` in entry order. The generator is seeded with 0. No border is required:
    /// moving off the board is then a no-op, like moving into a wall.
    ///
    /// # Panics
    /// On a board that is not square, an unknown character, or a player off the board,
    /// on a wall, on an egg, or on another player.
    pub fn from_rows(rows: &[&str], players: &[(u32, u32)], max_turns: u32) -> Engine {
        let side = rows.len() as u32;
        assert!(side > 0, "a board needs at least one row");
        assert!(players.len() <= u16::MAX as usize, "too many players");
        let mut cells = Vec::with_capacity((side * side) as usize);
        for (y, row) in rows.iter().enumerate() {
            assert_eq!(row.len(), side as usize, "row {y} is {} long on a board of {side} rows", row.len());
            for (x, byte) in row.bytes().enumerate() {
                assert!(matches!(byte, EMPTY | WALL | EGG), "unknown cell {:?} at ({x}, {y})", byte as char);
                cells.push(byte);
            }
        }
        let mut pos = Vec::with_capacity(players.len());
        for (p, &(x, y)) in players.iter().enumerate() {
            assert!(x < side && y < side, "player {p} at ({x}, {y}) is off the board");
            let cell = y * side + x;
            assert_eq!(cells[cell as usize], EMPTY, "player {p} at ({x}, {y}) is not on an empty cell");
            assert!(!pos.contains(&cell), "player {p} at ({x}, {y}) is on another player");
            pos.push(cell);
        }
        let eggs = cells.iter().filter(|&&c| c == EGG).count() as u32;
        Engine::assemble(side, cells, pos, eggs, max_turns, GameRng::seed_from_u64(0))
    }

    fn assemble(side: u32, cells: Vec<u8>, pos: Vec<u32>, eggs: u32, max_turns: u32, rng: GameRng) -> Engine {
        let players = pos.len();
        let mut count = vec![0u16; cells.len()];
        for &c in &pos {
            count[c as usize] = 1;
        }
        let mut game = Engine {
            side,
            first: vec![0; cells.len()],
            count,
            cells,
            rng,
            generated: false,
            walls: Vec::new(),
            tries: 1,
            players: Vec::with_capacity(players),
            scores: vec![0; players],
            eggs_placed: eggs,
            eggs_left: eggs,
            eggs_destroyed: 0,
            turn: 0,
            max_turns,
            events: Vec::with_capacity(4 * players + 16),
            start: pos.clone(),
            pos,
            act: vec![Act::Nothing; players],
            back: Vec::with_capacity(players),
        };
        game.sync_players();
        game
    }

    /// The game's one generator (the host lets script bots draw from it).
    pub fn rng(&mut self) -> &mut GameRng {
        &mut self.rng
    }

    /// Side of the board, border included.
    pub fn side(&self) -> u32 {
        self.side
    }

    /// Each entry's player as `(x, y)`, in entry order; `y = 0` is the north row.
    pub fn players(&self) -> &[(u32, u32)] {
        &self.players
    }

    /// What the cell at `(x, y)` holds (players aside).
    ///
    /// # Panics
    /// When `(x, y)` is off the board.
    pub fn cell(&self, x: u32, y: u32) -> Cell {
        assert!(x < self.side && y < self.side, "({x}, {y}) is off a board of side {}", self.side);
        match self.cells[(y * self.side + x) as usize] {
            WALL => Cell::Wall,
            EGG => Cell::Egg,
            _ => Cell::Empty,
        }
    }

    /// Eggs still on the board.
    pub fn eggs_left(&self) -> u32 {
        self.eggs_left
    }

    /// Eggs the game started with (`4n` for a generated board).
    pub fn eggs_placed(&self) -> u32 {
        self.eggs_placed
    }

    /// Eggs destroyed by an Attack so far.
    pub fn eggs_destroyed(&self) -> u32 {
        self.eggs_destroyed
    }

    /// Each entry's score: the eggs its player picked up.
    pub fn scores(&self) -> &[u32] {
        &self.scores
    }

    /// Turns played so far.
    pub fn turn(&self) -> u32 {
        self.turn
    }

    /// The game ends after this many turns (`25n` for a generated board).
    pub fn max_turns(&self) -> u32 {
        self.max_turns
    }

    /// Ends the game after at most `turns` turns (an option of the host, for short
    /// games in tests and benchmarks; the rules' limit is `25 n`).
    pub fn limit_turns(&mut self, turns: u32) {
        self.max_turns = self.max_turns.min(turns);
    }

    /// The game is over: no egg is left, or `max_turns` turns were played.
    pub fn is_over(&self) -> bool {
        self.eggs_left == 0 || self.turn >= self.max_turns
    }

    /// The straight walls of generation step 2 on the accepted board, in the order drawn
    /// (empty for a hand-made board).
    pub fn walls(&self) -> &[Wall] {
        &self.walls
    }

    /// Boards generated until one was connected (1 for a hand-made board).
    pub fn tries(&self) -> u32 {
        self.tries
    }

    /// Generation step 4's test on the current board: the non-wall cells form one
    /// 8-connected region (a diagonal step between two walls counts).
    pub fn is_connected(&self) -> bool {
        connected(&self.cells, self.side)
    }

    /// What happened during the last turn (empty before the first).
    pub fn last_events(&self) -> &[Event] {
        &self.events
    }

    /// The 5x5 square centred on `player`, rows north to south, each west to east:
    /// `#` wall, `o` egg, `*` a player (the centre is always `*`), ` ` empty, `X` off
    /// the board. Built from the board as it is now, i.e. the start of the next turn.
    pub fn view(&self, player: usize) -> [[u8; 5]; 5] {
        let (px, py) = self.players[player];
        let side = i64::from(self.side);
        let mut view = [[OUTSIDE; 5]; 5];
        for (r, line) in view.iter_mut().enumerate() {
            let y = i64::from(py) + r as i64 - 2;
            if !(0..side).contains(&y) {
                continue;
            }
            for (c, byte) in line.iter_mut().enumerate() {
                let x = i64::from(px) + c as i64 - 2;
                if (0..side).contains(&x) {
                    let i = (y * side + x) as usize;
                    *byte = if self.count[i] > 0 { PLAYER } else { self.cells[i] };
                }
            }
        }
        view
    }

    /// Plays one turn: steps 2-7 of the spec. `answers[i]` is player `i`'s answer, all
    /// decided on the same snapshot (step 1, the caller's). A direction outside `1..=9`
    /// is treated as the spec's error rule says: stand still with action `N`.
    ///
    /// # Panics
    /// When the game is over, or there is not exactly one answer per player.
    pub fn play_turn(&mut self, answers: &[Answer]) {
        assert!(!self.is_over(), "play_turn on a finished game (turn {}, {} eggs left)", self.turn, self.eggs_left);
        assert_eq!(answers.len(), self.pos.len(), "one answer per player");
        self.events.clear();
        // Step 1 is the caller's: every answer was decided on the same snapshot (`view`).
        self.land(answers);
        self.fight();
        self.cascade();
        self.eggs();
        // ... then step 5 again: a Counter player's way back may be taken.
        self.cascade();
        // Step 7: the turn counter advances.
        self.turn += 1;
        self.sync_players();
    }

    /// Steps 2 and 3: walls, then landing. A player whose direction points at a wall
    /// lands where it stands, as does one that stays (direction 9); both take part in
    /// fights on their cell with the action they chose. The occupancy counts become
    /// landing counts.
    fn land(&mut self, answers: &[Answer]) {
        for p in 0..self.pos.len() {
            let c = self.pos[p];
            self.start[p] = c;
            self.count[c as usize] = 0;
        }
        for (p, answer) in answers.iter().enumerate() {
            let answer = if (1..=9).contains(&answer.dir) { *answer } else { Answer::STAY };
            self.act[p] = answer.act;
            let start = self.start[p];
            let land = match self.target(start, answer.dir) {
                Some(t) if self.cells[t as usize] != WALL => t,
                _ => {
                    if answer.dir != 9 {
                        self.events.push(Event::Bumped { player: p as u32, at: self.xy(start) });
                    }
                    start
                }
            };
            self.pos[p] = land;
            let count = &mut self.count[land as usize];
            *count += 1;
            if *count == 1 {
                self.first[land as usize] = p as u16;
            }
        }
    }

    /// Step 4: fights, all decided on the landing counts; then the losers go back.
    fn fight(&mut self) {
        self.back.clear();
        for p in 0..self.pos.len() {
            let cell = self.pos[p] as usize;
            match self.count[cell] {
                0 | 1 => {}
                2 => {
                    // Exactly two: `first` landed before `p`; decided once, at the second.
                    let q = self.first[cell] as usize;
                    if q == p {
                        continue;
                    }
                    let acts = [self.act[q], self.act[p]];
                    let winner = if beats(acts[0], acts[1]) {
                        self.back.push((p as u32, Reason::Fight));
                        Some(q as u32)
                    } else if beats(acts[1], acts[0]) {
                        self.back.push((q as u32, Reason::Fight));
                        Some(p as u32)
                    } else {
                        // Same action: both go back.
                        self.back.push((q as u32, Reason::Fight));
                        self.back.push((p as u32, Reason::Fight));
                        None
                    };
                    let at = self.xy(cell as u32);
                    self.events.push(Event::Fight { at, players: [q as u32, p as u32], acts, winner });
                }
                count => {
                    // Three or more: all go back.
                    if self.first[cell] as usize == p {
                        self.events.push(Event::Crowd { at: self.xy(cell as u32), count: u32::from(count) });
                    }
                    self.back.push((p as u32, Reason::Crowd));
                }
            }
        }
        self.send_back_all();
    }

    /// Step 6: eggs. After step 5 at most one player stands on each egg.
    fn eggs(&mut self) {
        for p in 0..self.pos.len() {
            let cell = self.pos[p] as usize;
            if self.cells[cell] != EGG {
                continue;
            }
            let at = self.xy(cell as u32);
            match self.act[p] {
                Act::Attack => {
                    self.cells[cell] = EMPTY;
                    self.eggs_left -= 1;
                    self.eggs_destroyed += 1;
                    self.events.push(Event::EggDestroyed { player: p as u32, at });
                }
                Act::Counter => self.send_back(p, Reason::Counter),
                Act::Nothing => {
                    self.cells[cell] = EMPTY;
                    self.eggs_left -= 1;
                    self.scores[p] += 1;
                    self.events.push(Event::EggPicked { player: p as u32, at });
                }
            }
        }
    }

    /// Step 5: while some cell holds two or more players, every player on it that is
    /// not on its own start cell goes back to its start cell (no fight). Runs in rounds,
    /// each deciding on the counts as they are when it starts, so that every such player
    /// on a crowded cell goes back, not just enough of them to make it uncrowded. Start
    /// cells are distinct, so this ends with one player per cell.
    fn cascade(&mut self) {
        loop {
            self.back.clear();
            for p in 0..self.pos.len() {
                let cell = self.pos[p];
                if cell != self.start[p] && self.count[cell as usize] >= 2 {
                    self.back.push((p as u32, Reason::Cascade));
                }
            }
            if self.back.is_empty() {
                return;
            }
            self.send_back_all();
        }
    }

    fn send_back_all(&mut self) {
        let back = std::mem::take(&mut self.back);
        for &(p, reason) in &back {
            self.send_back(p as usize, reason);
        }
        self.back = back;
    }

    /// Sends player `p` back to its start cell (nothing when it is already there).
    fn send_back(&mut self, p: usize, reason: Reason) {
        let (from, to) = (self.pos[p], self.start[p]);
        if from == to {
            return;
        }
        self.count[from as usize] -= 1;
        self.count[to as usize] += 1;
        self.pos[p] = to;
        self.events.push(Event::SentBack { player: p as u32, from: self.xy(from), to: self.xy(to), reason });
    }

    /// The cell one step from `cell` in direction `dir` (`9`: `cell` itself), or `None`
    /// off the board.
    fn target(&self, cell: u32, dir: u8) -> Option<u32> {
        let (dx, dy) = DELTAS[dir as usize];
        let side = i64::from(self.side);
        let x = i64::from(cell % self.side) + dx;
        let y = i64::from(cell / self.side) + dy;
        ((0..side).contains(&x) && (0..side).contains(&y)).then_some((y * side + x) as u32)
    }

    fn xy(&self, cell: u32) -> (u32, u32) {
        (cell % self.side, cell / self.side)
    }

    fn sync_players(&mut self) {
        let side = self.side;
        self.players.clear();
        self.players.extend(self.pos.iter().map(|&c| (c % side, c / side)));
    }

    /// Checks everything that must hold between turns: the board's size and bytes, a
    /// border on a generated board, players on the board, on neither a wall nor an egg,
    /// one per cell; the occupancy counts; the egg count and the egg accounting
    /// (placed = left + destroyed + picked up); the turn counter.
    pub fn check_invariants(&self) -> Result<(), String> {
        let side = self.side;
        if self.cells.len() != (side * side) as usize || self.count.len() != self.cells.len() {
            return Err(format!("{} cells on a board of side {side}", self.cells.len()));
        }
        if let Some(i) = self.cells.iter().position(|c| !matches!(*c, EMPTY | WALL | EGG)) {
            return Err(format!("cell {:?} holds {:?}", self.xy(i as u32), self.cells[i] as char));
        }
        if self.generated {
            for i in 0..side {
                for (x, y) in [(i, 0), (i, side - 1), (0, i), (side - 1, i)] {
                    if self.cells[(y * side + x) as usize] != WALL {
                        return Err(format!("border cell ({x}, {y}) is not a wall"));
                    }
                }
            }
        }
        let players = self.pos.len();
        if self.players.len() != players || self.scores.len() != players || self.start.len() != players {
            return Err("per-player arrays differ in length".into());
        }
        let mut occupancy = vec![0u16; self.cells.len()];
        for (p, &cell) in self.pos.iter().enumerate() {
            let at = self.xy(cell);
            if cell as usize >= self.cells.len() || self.players[p] != at {
                return Err(format!("player {p} is at {:?} but recorded at {at:?}", self.players[p]));
            }
            match self.cells[cell as usize] {
                WALL => return Err(format!("player {p} stands on a wall at {at:?}")),
                EGG => return Err(format!("player {p} stands on an egg at {at:?}")),
                _ => {}
            }
            occupancy[cell as usize] += 1;
            if occupancy[cell as usize] > 1 {
                return Err(format!("two players on {at:?}"));
            }
        }
        if let Some(i) = (0..self.cells.len()).find(|&i| occupancy[i] != self.count[i]) {
            return Err(format!("count at {:?} is {} for {} players", self.xy(i as u32), self.count[i], occupancy[i]));
        }
        let eggs = self.cells.iter().filter(|&&c| c == EGG).count() as u32;
        if eggs != self.eggs_left {
            return Err(format!("{eggs} egg cells but eggs_left is {}", self.eggs_left));
        }
        let picked: u32 = self.scores.iter().sum();
        if self.eggs_placed != self.eggs_left + self.eggs_destroyed + picked {
            return Err(format!(
                "{} eggs placed but {} left + {} destroyed + {picked} picked up",
                self.eggs_placed, self.eggs_left, self.eggs_destroyed
            ));
        }
        if self.turn > self.max_turns {
            return Err(format!("turn {} is past the last turn {}", self.turn, self.max_turns));
        }
        Ok(())
    }
}

/// The board as rows of text north to south, players shown as `*`.
impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = self.side as usize;
        for (cells, count) in self.cells.chunks(side).zip(self.count.chunks(side)) {
            for (&cell, &count) in cells.iter().zip(count) {
                write!(f, "{}", if count > 0 { PLAYER as char } else { cell as char })?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

/// Step 4's table: Attack beats Nothing, Nothing beats Counter, Counter beats Attack.
fn beats(a: Act, b: Act) -> bool {
    matches!((a, b), (Act::Attack, Act::Nothing) | (Act::Nothing, Act::Counter) | (Act::Counter, Act::Attack))
}

/// The empty cells' indices in row-major order.
fn empty_cells(cells: &[u8]) -> Vec<u32> {
    (0..cells.len() as u32).filter(|&i| cells[i as usize] == EMPTY).collect()
}

/// Draws one cell uniformly from `cells` and removes it (`swap_remove`); `None` if empty.
fn draw_cell(rng: &mut GameRng, cells: &mut Vec<u32>) -> Option<u32> {
    if cells.is_empty() {
        return None;
    }
    let i = rng.random_range(0..cells.len() as u32);
    Some(cells.swap_remove(i as usize))
}

/// Generation step 4: the non-wall (empty and egg) cells form one region under
/// 8-connectivity. Only the target cell of a step matters, so a diagonal step between
/// two walls is allowed, as in play. A board with no such cell is not connected.
fn connected(cells: &[u8], side: u32) -> bool {
    let Some(seed) = cells.iter().position(|&c| c != WALL) else {
        return false;
    };
    let open = cells.iter().filter(|&&c| c != WALL).count();
    let mut seen = vec![false; cells.len()];
    let mut stack = vec![seed as u32];
    seen[seed] = true;
    let mut reached = 1;
    let side = i64::from(side);
    while let Some(cell) = stack.pop() {
        let (x, y) = (i64::from(cell) % side, i64::from(cell) / side);
        for &(dx, dy) in &DELTAS[1..9] {
            let (nx, ny) = (x + dx, y + dy);
            if !(0..side).contains(&nx) || !(0..side).contains(&ny) {
                continue;
            }
            let next = (ny * side + nx) as usize;
            if !seen[next] && cells[next] != WALL {
                seen[next] = true;
                reached += 1;
                stack.push(next as u32);
            }
        }
    }
    reached == open
}

/// Reads an answer in the seed's text protocol from a program's output lines: the first
/// line is the direction `1`..`9`; the second the action `A`, `C` or `N`, where blank or
/// missing means `N`. Lines after the second (the memory, and anything after) are not
/// looked at. Decision: each line is trimmed of ASCII whitespace (so `"5\r"` reads as
/// `5`), and letters are case-sensitive (`a` is an error).
pub fn parse_answer(lines: &[&str]) -> Result<Answer, String> {
    let Some(first) = lines.first() else {
        return Err("no answer: the output has no line".into());
    };
    let dir = match first.trim_ascii().as_bytes() {
        [d @ b'1'..=b'9'] => d - b'0',
        _ => return Err(format!("direction {:?} is not one of 1..9", short(first))),
    };
    let act = match lines.get(1).map(|l| l.trim_ascii()) {
        None | Some("") | Some("N") => Act::Nothing,
        Some("A") => Act::Attack,
        Some("C") => Act::Counter,
        Some(other) => return Err(format!("action {:?} is not A, C, N or blank", short(other))),
    };
    Ok(Answer { dir, act })
}

/// At most 40 characters of a bad line, for a one-line error message.
fn short(line: &str) -> String {
    line.chars().take(40).collect()
}
