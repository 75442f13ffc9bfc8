//! The rules engine of "Invisible target", as `docs/games/target.md` tells it.
//!
//! What it is: the pure game state and its rules — set-up (target, copies, spaced
//! placement, turn order), one player's turn at a time ([`Engine::play`]: the move, then the
//! wall rule, then the end-of-round check), what the player to move sees ([`Engine::view`]),
//! and the result ([`Engine::points`], [`Engine::best_distance`]).
//!
//! What it is not: it runs no bots, does no IO, keeps no time (a bot that fails or is late
//! is simply passed as `None`), and knows nothing of tournaments or the text protocol.
//!
//! **Invariant:** all randomness of a game is drawn from the one [`GameRng`] the engine
//! owns, seeded once, in a fixed order — set-up: the target, then the placement (entry
//! order, copy order), then the turn order; then, during play, the wall draws (one
//! `random_bool(q)` after each turn where a wall is allowed, and one `random_range` over the
//! eligible cells when it succeeds and some cell is eligible). Bots that need random numbers
//! draw them from [`Engine::rng`] too, so a seed fixes the game given the same answers.
//!
//! **Invariant:** every player always has a route to the target through non-wall cells;
//! one player per cell; no player on a wall; the target is never a wall.

use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};

/// The generator behind every random choice of a game (the host's generator).
pub type GameRng = rand_pcg::Pcg64Mcg;

/// Side of the (square, toroidal) board.
pub const SIDE: u32 = 64;
/// Number of cells; positions are `0..CELLS` (`p = 64 * y + x`).
pub const CELLS: usize = (SIDE * SIDE) as usize;
/// The "no wall added" value a bot sees (one past the last position).
pub const NO_WALL: u16 = 4096;
/// Cap on the number of rounds, so that every game ends.
pub const MAX_ROUNDS: u32 = 10_000;
/// Smallest number of players of a game: entries get copies up to at least this many.
pub const MIN_PLAYERS: u32 = 16;
/// Most players the spaced placement can always seat: each placed player forbids at most
/// 25 cells (its 5x5 neighbourhood), and `162 * 25 < 4096`, so the 163rd still finds a cell.
pub const MAX_PLAYERS: usize = 163;
/// The moves, by answer: `0` north, `1` west, `2` stay, `3` east, `4` south.
pub const NORTH: u8 = 0;
/// Move west.
pub const WEST: u8 = 1;
/// Stay.
pub const STAY: u8 = 2;
/// Move east.
pub const EAST: u8 = 3;
/// Move south.
pub const SOUTH: u8 = 4;

/// No player on a cell.
const NOBODY: u16 = u16::MAX;
/// The four real moves, in neighbour order.
const STEPS: [u8; 4] = [NORTH, WEST, EAST, SOUTH];

/// The options of a game.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Config {
    /// Probability that a wall is added after a turn where one is allowed (0..=1).
    pub q: f64,
}

impl Default for Config {
    fn default() -> Config {
        Config { q: 0.1 }
    }
}

/// What the player to move sees.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct View {
    /// Its own position.
    pub me: u16,
    /// The wall added since this player's previous turn (since the start for its first
    /// turn), or [`NO_WALL`].
    pub new_wall: u16,
    /// Every other player's position, in turn order starting after this player, wrapping.
    pub others: Vec<u16>,
    /// This player's index among its entry's copies.
    pub copy: u32,
}

/// What one call of [`Engine::play`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// The player who had the turn.
    pub player: usize,
    /// Its position before the move.
    pub from: u16,
    /// Its position after the move (`== from` when it did not move).
    pub to: u16,
    /// Whether it moved.
    pub moved: bool,
    /// The wall added after this turn, if any.
    pub wall: Option<u16>,
    /// Whether the game is over after this turn.
    pub over: bool,
}

/// The neighbour of `p` in direction `mv` (`0` N, `1` W, `3` E, `4` S) on the torus; `p`
/// itself for `2` (stay) or any other value.
pub const fn neighbour(p: u16, mv: u8) -> u16 {
    let side = SIDE as u16;
    let mask = CELLS as u16 - 1;
    let row = p & !(side - 1);
    match mv {
        NORTH => (p + CELLS as u16 - side) & mask,
        SOUTH => (p + side) & mask,
        WEST => row | ((p + side - 1) & (side - 1)),
        EAST => row | ((p + 1) & (side - 1)),
        _ => p,
    }
}

/// Distance along one torus axis between coordinates `a` and `b`.
fn axis(a: u16, b: u16) -> u32 {
    let d = u32::from(a.abs_diff(b));
    d.min(SIDE - d)
}

/// Torus Manhattan distance: `min(|dx|, 64-|dx|) + min(|dy|, 64-|dy|)`.
pub fn torus_manhattan(a: u16, b: u16) -> u32 {
    let s = SIDE as u16;
    axis(a % s, b % s) + axis(a / s, b / s)
}

/// Torus Chebyshev distance (the placement spacing).
pub fn torus_chebyshev(a: u16, b: u16) -> u32 {
    let s = SIDE as u16;
    axis(a % s, b % s).max(axis(a / s, b / s))
}

/// A cell's index into a board array (the mask lets the compiler drop bounds checks).
fn ix(c: u16) -> usize {
    c as usize & (CELLS - 1)
}

/// The four neighbours of every cell, in [`STEPS`] order.
static NEIGHBOURS: [[u16; 4]; CELLS] = {
    let mut table = [[0u16; 4]; CELLS];
    let mut p = 0;
    while p < CELLS {
        let c = p as u16;
        table[p] = [neighbour(c, STEPS[0]), neighbour(c, STEPS[1]), neighbour(c, STEPS[2]), neighbour(c, STEPS[3])];
        p += 1;
    }
    table
};

/// A board array.
type Board<T> = Box<[T; CELLS]>;

fn board<T: Copy>(value: T) -> Board<T> {
    vec![value; CELLS].into_boxed_slice().try_into().unwrap_or_else(|_| unreachable!("CELLS elements"))
}

/// Discovery time the eligibility search gives walls.
const WALL_TIME: u16 = u16::MAX;

/// What the eligibility search knows of one cell.
#[derive(Debug, Clone, Copy, Default)]
struct Node {
    /// DFS discovery time, `0` = not reached, [`WALL_TIME`] for a wall.
    disc: u16,
    /// Low-link: smallest discovery time reachable from the subtree by one back edge.
    low: u16,
    /// Players in the DFS subtree.
    count: u16,
    /// Removing the cell cuts off a DFS child subtree that holds a player.
    cut: bool,
}

/// Reusable buffers of the eligibility search (no allocation per turn).
#[derive(Debug, Clone)]
struct Scratch {
    node: Board<Node>,
    /// Eligible cells, one bit per cell in position order.
    eligible: [u64; CELLS / 64],
    /// DFS stack: cell and next neighbour index to try.
    stack: Vec<(u16, u8)>,
}

impl Scratch {
    fn new() -> Scratch {
        Scratch { node: board(Node::default()), eligible: [0; CELLS / 64], stack: Vec::with_capacity(CELLS) }
    }

    /// Marks the eligible cells (step 2 of a turn) and returns how many there are.
    ///
    /// One iterative DFS from the target over non-wall cells computes discovery times,
    /// low-links and subtree player counts. A cell is eligible when it is reached, is not
    /// the target, holds no player, and no DFS child `v` of it has `low[v] >= disc[c]` with
    /// a player in its subtree (removing it would cut those players off). If some player is
    /// not reached at all, every wall "leaves a player without route", so none is eligible.
    fn mark(&mut self, target: u16, wall: &[bool; CELLS], occupant: &[u16; CELLS], players: usize) -> usize {
        let (node, eligible, stack) = (&mut *self.node, &mut self.eligible, &mut self.stack);
        // Walls get the largest discovery time: never entered (not 0) and never lowering a
        // low-link (min with it is a no-op), which spares the search a branch per edge.
        for (n, &w) in node.iter_mut().zip(wall.iter()) {
            *n = Node { disc: if w { WALL_TIME } else { 0 }, ..Node::default() };
        }
        *eligible = [0; CELLS / 64];
        let occupied = |c: u16| u16::from(occupant[ix(c)] != NOBODY);
        let mut time = 1u16;
        let mut count = 0;
        node[ix(target)] = Node { disc: time, low: time, count: occupied(target), cut: false };
        stack.clear();
        stack.push((target, 0));
        'dfs: while let Some(&(v, first)) = stack.last() {
            let vi = ix(v);
            let mut low = node[vi].low;
            // Scan v's remaining neighbours; descend into the first one not reached yet.
            // (A counted loop, not a `u8` range: the tests' build does not inline a
            // range's steps, which were a fifth of a target game there.)
            let mut next = first;
            while next < 4 {
                let w = NEIGHBOURS[vi][usize::from(next & 3)];
                let wi = ix(w);
                let seen = node[wi].disc;
                if seen == 0 {
                    node[vi].low = low;
                    if let Some(top) = stack.last_mut() {
                        top.1 = next + 1;
                    }
                    time += 1;
                    node[wi] = Node { disc: time, low: time, count: occupied(w), cut: false };
                    stack.push((w, 0));
                    continue 'dfs;
                }
                // Back edge (the tree edge to the parent included: it can only lower
                // low[v] to disc[parent], which leaves `low[v] >= disc[parent]` intact), or a
                // wall (WALL_TIME: no effect).
                low = low.min(seen);
                next += 1;
            }
            // v is finished: all its children are known, so is its eligibility.
            stack.pop();
            node[vi].low = low;
            let nv = node[vi];
            if v != target && occupant[vi] == NOBODY && !nv.cut {
                eligible[vi >> 6] |= 1 << (v & 63);
                count += 1;
            }
            if let Some(&(u, _)) = stack.last() {
                let nu = &mut node[ix(u)];
                nu.low = nu.low.min(low);
                nu.count += nv.count;
                if low >= nu.disc && nv.count > 0 {
                    nu.cut = true;
                }
            }
        }
        if usize::from(node[ix(target)].count) != players {
            *eligible = [0; CELLS / 64];
            return 0;
        }
        count
    }

    /// The `r`-th eligible cell in position order, after [`Scratch::mark`].
    fn nth(&self, mut r: usize) -> Option<u16> {
        for (i, &word) in self.eligible.iter().enumerate() {
            let ones = word.count_ones() as usize;
            if r < ones {
                let mut w = word;
                for _ in 0..r {
                    w &= w - 1;
                }
                return Some((i * 64) as u16 + w.trailing_zeros() as u16);
            }
            r -= ones;
        }
        None
    }

    /// The eligible cells in position order, after [`Scratch::mark`].
    fn cells(&self) -> Vec<u16> {
        (0..CELLS as u16).filter(|&c| self.eligible[ix(c) >> 6] >> (c & 63) & 1 == 1).collect()
    }
}

/// The eligible cells by brute force: for every candidate, a flood fill from the target
/// with a wall added there, checking that every player is still reached. For tests.
pub fn eligible_brute_force(target: u16, walls: &[u16], players: &[u16]) -> Vec<u16> {
    let mut wall = vec![false; CELLS];
    for &w in walls {
        wall[w as usize] = true;
    }
    let reached = flood(target, &wall);
    let mut out = Vec::new();
    for c in 0..CELLS as u16 {
        let ci = c as usize;
        if c == target || wall[ci] || players.contains(&c) || !reached[ci] {
            continue;
        }
        wall[ci] = true;
        let with = flood(target, &wall);
        wall[ci] = false;
        if players.iter().all(|&p| with[p as usize]) {
            out.push(c);
        }
    }
    out
}

/// Cells reached from `from` through non-wall cells by 4-neighbour steps.
fn flood(from: u16, wall: &[bool]) -> Vec<bool> {
    let mut seen = vec![false; CELLS];
    if wall[from as usize] {
        return seen;
    }
    let mut todo = vec![from];
    seen[from as usize] = true;
    while let Some(v) = todo.pop() {
        for mv in STEPS {
            let w = neighbour(v, mv);
            if !wall[w as usize] && !seen[w as usize] {
                seen[w as usize] = true;
                todo.push(w);
            }
        }
    }
    seen
}

/// One game of "Invisible target".
#[derive(Debug, Clone)]
pub struct Engine {
    rng: GameRng,
    q: f64,
    target: u16,
    wall: Board<bool>,
    walls: usize,
    /// Player on each cell, or `NOBODY`.
    occupant: Board<u16>,
    position: Vec<u16>,
    entry: Vec<usize>,
    copy: Vec<u32>,
    entries: usize,
    /// Turn order: player indices.
    order: Vec<usize>,
    /// Index in `order` of the player to move.
    slot: usize,
    /// Turns played so far (the index of the next turn).
    turn: u64,
    /// Full rounds played so far.
    round: u32,
    /// Whether anybody moved during the current round.
    moved_this_round: bool,
    /// The last wall added by the wall rule: the turn after which it came, and its cell.
    last_wall: Option<(u64, u16)>,
    over: bool,
    scratch: Scratch,
}

impl Engine {
    /// Copies per entry: `max(1, ceil(16 / entries))` (`16` for `0` entries).
    pub fn copies(entries: usize) -> u32 {
        (MIN_PLAYERS as usize).div_ceil(entries.max(1)).max(1) as u32
    }

    /// Sets a game up from `GameRng::seed_from_u64(seed)`.
    ///
    /// 1. The target: uniform over all cells.
    /// 2. The players: `copies(entries)` per entry, player `entry * k + copy`, placed one by
    ///    one in that order, each uniformly among the cells with no placed player within
    ///    torus Chebyshev distance 2 (drawn as the r-th such cell in position order).
    /// 3. The turn order: a uniform permutation (a shuffle of `0..players`).
    ///
    /// # Panics
    /// If `entries` is 0, the game would have more than [`MAX_PLAYERS`] players, or `q` is
    /// not within `0..=1`.
    pub fn new(entries: usize, seed: u64, config: Config) -> Engine {
        assert!(entries >= 1, "a game needs at least one entry");
        let k = Engine::copies(entries);
        let n = entries * k as usize;
        assert!(n <= MAX_PLAYERS, "{n} players cannot always be placed (at most {MAX_PLAYERS})");
        let mut rng = GameRng::seed_from_u64(seed);
        // 1. The target.
        let target = rng.random_range(0..CELLS as u16);
        // 2. The placement.
        let mut blocked = vec![false; CELLS];
        let mut players = Vec::with_capacity(n);
        for e in 0..entries {
            for _ in 0..k {
                let free = blocked.iter().filter(|&&b| !b).count();
                let r = rng.random_range(0..free);
                let p = (0..CELLS).filter(|&c| !blocked[c]).nth(r).expect("r < free") as u16;
                for c in 0..CELLS as u16 {
                    if torus_chebyshev(c, p) <= 2 {
                        blocked[c as usize] = true;
                    }
                }
                players.push((e, p));
            }
        }
        // 3. The turn order.
        let mut order: Vec<usize> = (0..n).collect();
        order.shuffle(&mut rng);
        Engine::assemble(rng, config, target, &[], &players, order)
    }

    /// A hand-made position, for tests: the target, the walls, each player's `(entry,
    /// position)` (players numbered in this order; an entry's copies numbered in this
    /// order too), the turn order, the options, and the seed of the wall draws. Nothing
    /// is drawn at set-up; no wall counts as "new". Connectivity is not checked here (see
    /// [`Engine::check_invariants`]).
    ///
    /// # Panics
    /// If a position is out of range, the target is a wall, two players share a cell, a
    /// player stands on a wall, `order` is not a permutation of the players, there is no
    /// player, or `q` is not within `0..=1`.
    pub fn from_parts(
        target: u16,
        walls: &[u16],
        players: &[(usize, u16)],
        order: &[usize],
        config: Config,
        seed: u64,
    ) -> Engine {
        Engine::assemble(GameRng::seed_from_u64(seed), config, target, walls, players, order.to_vec())
    }

    fn assemble(
        rng: GameRng,
        config: Config,
        target: u16,
        walls: &[u16],
        players: &[(usize, u16)],
        order: Vec<usize>,
    ) -> Engine {
        assert!((0.0..=1.0).contains(&config.q), "q = {} is not a probability", config.q);
        assert!(!players.is_empty() && players.len() < NOBODY as usize, "bad number of players");
        assert!((target as usize) < CELLS, "target {target} out of range");
        let mut wall = board(false);
        for &w in walls {
            assert!((w as usize) < CELLS, "wall {w} out of range");
            assert!(w != target, "the target cannot be a wall");
            wall[w as usize] = true;
        }
        let mut occupant = board(NOBODY);
        let mut copy = Vec::with_capacity(players.len());
        let entries = players.iter().map(|&(e, _)| e + 1).max().unwrap_or(0);
        let mut per_entry = vec![0u32; entries];
        for (i, &(e, p)) in players.iter().enumerate() {
            assert!((p as usize) < CELLS, "player {i} at {p}: out of range");
            assert!(!wall[p as usize], "player {i} stands on a wall");
            assert!(occupant[p as usize] == NOBODY, "two players on cell {p}");
            occupant[p as usize] = i as u16;
            copy.push(per_entry[e]);
            per_entry[e] += 1;
        }
        let mut seen = vec![false; players.len()];
        assert!(order.len() == players.len(), "the turn order must list every player once");
        for &o in &order {
            assert!(o < players.len() && !seen[o], "the turn order must be a permutation");
            seen[o] = true;
        }
        Engine {
            rng,
            q: config.q,
            target,
            walls: wall.iter().filter(|&&w| w).count(),
            wall,
            occupant,
            position: players.iter().map(|&(_, p)| p).collect(),
            entry: players.iter().map(|&(e, _)| e).collect(),
            copy,
            entries,
            order,
            slot: 0,
            turn: 0,
            round: 0,
            moved_this_round: false,
            last_wall: None,
            over: false,
            scratch: Scratch::new(),
        }
    }

    /// The game's generator (bots' random numbers come from here too).
    pub fn rng(&mut self) -> &mut GameRng {
        &mut self.rng
    }

    /// The wall probability `q`.
    pub fn q(&self) -> f64 {
        self.q
    }

    /// Number of players (all copies).
    pub fn players(&self) -> usize {
        self.position.len()
    }

    /// Number of entries.
    pub fn entries(&self) -> usize {
        self.entries
    }

    /// The entry a player belongs to.
    pub fn entry_of(&self, player: usize) -> usize {
        self.entry[player]
    }

    /// A player's index among its entry's copies.
    pub fn copy_of(&self, player: usize) -> u32 {
        self.copy[player]
    }

    /// A player's position.
    pub fn position(&self, player: usize) -> u16 {
        self.position[player]
    }

    /// The player on a cell, if any.
    pub fn player_at(&self, p: u16) -> Option<usize> {
        self.occupant.get(p as usize).filter(|&&o| o != NOBODY).map(|&o| o as usize)
    }

    /// The turn order (player indices).
    pub fn order(&self) -> &[usize] {
        &self.order
    }

    /// The player whose turn it is.
    pub fn current(&self) -> usize {
        self.order[self.slot]
    }

    /// Turns played so far.
    pub fn turn(&self) -> u64 {
        self.turn
    }

    /// Full rounds played so far.
    pub fn round(&self) -> u32 {
        self.round
    }

    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        self.over
    }

    /// The target cell.
    pub fn target(&self) -> u16 {
        self.target
    }

    /// Whether a cell is a wall.
    pub fn is_wall(&self, p: u16) -> bool {
        self.wall.get(p as usize).copied().unwrap_or(false)
    }

    /// Number of walls.
    pub fn walls(&self) -> usize {
        self.walls
    }

    /// Torus Manhattan distance from `p` to the target.
    pub fn distance(&self, p: u16) -> u32 {
        torus_manhattan(p, self.target)
    }

    /// What the player to move sees.
    pub fn view(&self) -> View {
        let mut view = View::default();
        self.view_into(&mut view);
        view
    }

    /// [`Engine::view`] into a reusable buffer.
    pub fn view_into(&self, view: &mut View) {
        let n = self.order.len();
        let me = self.current();
        view.me = self.position[me];
        view.copy = self.copy[me];
        // The only wall that can be new: the last one, when it came after this player's
        // previous turn (turn `turn - n`), or at any time before its first turn.
        view.new_wall = match self.last_wall {
            Some((t, c)) if t + n as u64 >= self.turn => c,
            _ => NO_WALL,
        };
        view.others.clear();
        view.others.extend((1..n).map(|i| self.position[self.order[(self.slot + i) % n]]));
    }

    /// Plays the current player's turn with its answer (`None`, a failing bot, or anything
    /// but `0..=4` means stay). Does nothing once the game is over.
    ///
    /// 1. The move: onto the neighbour cell unless it is a wall or holds a player.
    /// 2. The wall rule: if no wall was added during the previous `N - 1` turns (i.e. the
    ///    last wall came after turn `t - N` or earlier, or there is none yet), draw
    ///    `random_bool(q)`; on success add a wall uniformly among the eligible cells (the
    ///    r-th in position order), if any.
    /// 3. Advance to the next player in the turn order.
    /// 4. At the end of a full round (after the last player of the turn order): the game is
    ///    over if nobody moved during that round, or if it was round [`MAX_ROUNDS`].
    pub fn play(&mut self, mv: Option<u8>) -> Step {
        let player = self.current();
        let from = self.position[player];
        if self.over {
            return Step { player, from, to: from, moved: false, wall: None, over: true };
        }
        // 1. The move.
        let dest = mv.map_or(from, |m| neighbour(from, m));
        let moved = dest != from && !self.wall[dest as usize] && self.occupant[dest as usize] == NOBODY;
        if moved {
            self.occupant[from as usize] = NOBODY;
            self.occupant[dest as usize] = player as u16;
            self.position[player] = dest;
        }
        let to = self.position[player];
        // 2. The wall rule.
        let wall = self.wall_rule();
        // 3. Advance.
        self.moved_this_round |= moved;
        self.turn += 1;
        self.slot += 1;
        // 4. End of round.
        if self.slot == self.order.len() {
            self.slot = 0;
            self.round += 1;
            if !self.moved_this_round || self.round >= MAX_ROUNDS {
                self.over = true;
            }
            self.moved_this_round = false;
        }
        Step { player, from, to, moved, wall, over: self.over }
    }

    /// Step 2 of [`Engine::play`], after turn number `self.turn`.
    fn wall_rule(&mut self) -> Option<u16> {
        let n = self.order.len() as u64;
        let allowed = self.last_wall.is_none_or(|(t, _)| self.turn - t >= n);
        if !allowed || !self.rng.random_bool(self.q) {
            return None;
        }
        let count = self.scratch.mark(self.target, &self.wall, &self.occupant, self.position.len());
        if count == 0 {
            return None;
        }
        let r = self.rng.random_range(0..count);
        let c = self.scratch.nth(r)?;
        self.wall[c as usize] = true;
        self.walls += 1;
        self.last_wall = Some((self.turn, c));
        Some(c)
    }

    /// The cells where a wall could go now, in position order (one DFS, articulation points).
    pub fn eligible_cells(&self) -> Vec<u16> {
        let mut s = Scratch::new();
        s.mark(self.target, &self.wall, &self.occupant, self.position.len());
        s.cells()
    }

    /// Wall cells, in position order.
    pub fn wall_cells(&self) -> Vec<u16> {
        (0..CELLS as u16).filter(|&c| self.wall[c as usize]).collect()
    }

    /// Points per entry: one per winning copy (players at the smallest distance).
    pub fn points(&self) -> Vec<u32> {
        let best = self.position.iter().map(|&p| self.distance(p)).min().unwrap_or(0);
        let mut points = vec![0; self.entries];
        for (i, &p) in self.position.iter().enumerate() {
            if self.distance(p) == best {
                points[self.entry[i]] += 1;
            }
        }
        points
    }

    /// Per entry: the distance of its best copy to the target (`u32::MAX` for an entry
    /// without players, which only a hand-made game can have).
    pub fn best_distance(&self) -> Vec<u32> {
        let mut best = vec![u32::MAX; self.entries];
        for (i, &p) in self.position.iter().enumerate() {
            best[self.entry[i]] = best[self.entry[i]].min(self.distance(p));
        }
        best
    }

    /// Checks the invariants: target in range and not a wall; wall count; every player in
    /// range, alone on its cell, not on a wall; the turn order a permutation; every player
    /// connected to the target through non-wall cells.
    pub fn check_invariants(&self) -> Result<(), String> {
        if self.target as usize >= CELLS || self.wall[self.target as usize] {
            return Err(format!("target {} is out of range or a wall", self.target));
        }
        let walls = self.wall.iter().filter(|&&w| w).count();
        if walls != self.walls {
            return Err(format!("{walls} walls on the board, {} counted", self.walls));
        }
        let mut on_board = 0;
        for (c, &o) in self.occupant.iter().enumerate() {
            if o != NOBODY {
                on_board += 1;
                if self.position.get(o as usize) != Some(&(c as u16)) {
                    return Err(format!("cell {c} says player {o}, who is elsewhere"));
                }
            }
        }
        if on_board != self.position.len() {
            return Err(format!("{on_board} players on the board, {} known", self.position.len()));
        }
        let reached = flood(self.target, &self.wall[..]);
        for (i, &p) in self.position.iter().enumerate() {
            if self.wall[p as usize] {
                return Err(format!("player {i} stands on a wall at {p}"));
            }
            if !reached[p as usize] {
                return Err(format!("player {i} at {p} has no route to the target {}", self.target));
            }
        }
        let mut sorted = self.order.clone();
        sorted.sort_unstable();
        if sorted.iter().copied().ne(0..self.position.len()) {
            return Err("the turn order is not a permutation".into());
        }
        Ok(())
    }
}
