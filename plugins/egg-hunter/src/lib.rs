//! EggHunter: an Easter Egg Hunt bot that maps the board as it goes.
//!
//! The player has no coordinates, so the bot dead-reckons: it keeps its position
//! relative to where it started and a map of every cell it has seen (walls, eggs, empty
//! cells). Each turn it first checks whether its last move really happened (a fight or
//! a wall may have kept it in place): it compares the new 5x5 view with the map at both
//! candidate positions (walls never change, and an egg never appears on a cell known to
//! be empty) and keeps the one that agrees. If neither agrees the map is wrong and is
//! forgotten (it is rebuilt from what the bot sees next).
//!
//! Then a breadth-first search over the known free cells (8 neighbours; a cell it just
//! bounced off is blocked for 1 to 3 turns, as two bots that both insist on one cell
//! would tie there for ever; other players are not obstacles: players may swap, and a
//! step onto one succeeds whenever it moves) finds:
//! 1. the nearest known egg that no visible player is strictly closer to, reached with
//!    action `N` (which picks it up); else
//! 2. the nearest unknown cell (the frontier), and it sticks to that target until it is
//!    seen, so it does not dither between two equally near ones; else
//! 3. staying put while a bounced-off cell is blocked; else (all known, no egg left in
//!    the map) the least visited neighbour.
//!
//! Actions: `N` onto an egg (anything else loses it: `A` destroys it, `C` is sent back);
//! otherwise `A` when another player is near the cell it goes to (Attack beats the
//! Nothing most moving bots use), else `N`.

use std::collections::{HashMap, VecDeque};

use zombies_plugin_abi::eggs::{
    ATTACK, EGG, EMPTY, EggsAnswer, EggsContext, EggsPlayer, NOTHING, OUTSIDE, PLAYER, WALL, dir,
};
use zombies_plugin_abi::export_eggs_bot;

type Cell = (i32, i32);

/// The eight steps, in keypad order (`1..=8`).
const STEPS: [Cell; 8] = [(-1, -1), (0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0)];

/// The bot: its dead-reckoned position, its map and its exploration target.
#[derive(Debug, Default)]
pub struct HunterBot {
    /// Position relative to the start cell (x east, y south).
    pos: Cell,
    /// Known cells: `WALL` (walls and outside), `EGG` or `EMPTY`.
    map: HashMap<Cell, u8>,
    /// Turns spent on each cell.
    visits: HashMap<Cell, u32>,
    /// The step tried last turn.
    last_step: Option<Cell>,
    /// The unknown cell being explored towards.
    target: Option<Cell>,
    /// Cells it was bounced from (a fight, most likely another bot going there too),
    /// each with the turn until which it goes elsewhere. Two bots that both insist on
    /// one egg would otherwise tie for ever.
    avoid: Vec<(Cell, u32)>,
}

fn blocked(c: u8) -> bool {
    c == WALL || c == OUTSIDE
}

fn chebyshev(a: Cell, b: Cell) -> i32 {
    (a.0 - b.0).abs().max((a.1 - b.1).abs())
}

impl HunterBot {
    /// How many cells of `view` contradict the map if the player stands at `at`
    /// (impossible changes), and how many differ from it at all (an egg may have gone).
    fn mismatches(&self, ctx: &EggsContext<'_>, at: Cell) -> (u32, u32) {
        let (mut bad, mut changed) = (0, 0);
        for dy in -2..=2 {
            for dx in -2..=2 {
                let Some(&known) = self.map.get(&(at.0 + dx, at.1 + dy)) else { continue };
                let seen = ctx.look(dx, dy);
                if blocked(seen) != (known == WALL) || (seen == EGG && known == EMPTY) {
                    bad += 1;
                } else if (seen == EGG) != (known == EGG) {
                    changed += 1;
                }
            }
        }
        (bad, changed)
    }

    /// Updates the position from the last step and the new view, then maps the view.
    fn observe(&mut self, ctx: &EggsContext<'_>) {
        if let Some(step) = self.last_step.take().filter(|&s| s != (0, 0)) {
            let moved = (self.pos.0 + step.0, self.pos.1 + step.1);
            let (m, s) = (self.mismatches(ctx, moved), self.mismatches(ctx, self.pos));
            if m <= s {
                self.pos = moved;
            } else {
                self.avoid.push((moved, ctx.turn + 1 + ctx.random(3)));
            }
            if m.0.min(s.0) > 0 {
                // Lost: the map no longer fits; start a new one here.
                self.map.clear();
                self.visits.clear();
                self.target = None;
            }
        }
        for dy in -2..=2 {
            for dx in -2..=2 {
                let seen = ctx.look(dx, dy);
                let cell = if blocked(seen) {
                    WALL
                } else if seen == EGG {
                    EGG
                } else {
                    EMPTY
                };
                self.map.insert((self.pos.0 + dx, self.pos.1 + dy), cell);
            }
        }
        *self.visits.entry(self.pos).or_default() += 1;
    }

    /// Chooses the step `(dx, dy)` for this turn.
    fn plan(&mut self, ctx: &EggsContext<'_>) -> Cell {
        let others: Vec<Cell> = (-2..=2)
            .flat_map(|dy| (-2..=2).map(move |dx| (dx, dy)))
            .filter(|&(dx, dy)| (dx, dy) != (0, 0) && ctx.look(dx, dy) == PLAYER)
            .map(|(dx, dy)| (self.pos.0 + dx, self.pos.1 + dy))
            .collect();
        self.avoid.retain(|&(_, until)| until > ctx.turn);
        // Other players do not block the search: stepping onto a player's cell succeeds
        // whenever it moves (even onto ours: players may swap), and it costs nothing
        // when it does not. A cell bounced off is blocked for a few turns instead.
        let blocked_cells: Vec<Cell> = self.avoid.iter().map(|&(c, _)| c).collect();
        // Breadth-first search over known free cells; `first` is the first step there.
        let offset = ctx.random(8) as usize;
        let mut first: HashMap<Cell, (i32, Cell)> = HashMap::new();
        let mut frontier: Vec<(i32, Cell, Cell)> = Vec::new();
        let mut queue = VecDeque::new();
        first.insert(self.pos, (0, (0, 0)));
        queue.push_back(self.pos);
        while let Some(c) = queue.pop_front() {
            let (d, step) = first[&c];
            for k in 0..8 {
                let (sx, sy) = STEPS[(k + offset) % 8];
                let n = (c.0 + sx, c.1 + sy);
                if first.contains_key(&n) || blocked_cells.contains(&n) {
                    continue;
                }
                let via = if c == self.pos { (sx, sy) } else { step };
                match self.map.get(&n) {
                    Some(&WALL) => {}
                    Some(_) => {
                        first.insert(n, (d + 1, via));
                        queue.push_back(n);
                    }
                    None => {
                        first.insert(n, (d + 1, via));
                        frontier.push((d + 1, n, via));
                    }
                }
            }
        }
        // 1. The nearest egg nobody visible is closer to (any egg if all are contested).
        let mut eggs: Vec<(bool, i32, Cell)> = first
            .iter()
            .filter(|(c, _)| self.map.get(c) == Some(&EGG))
            .map(|(&c, &(d, step))| (others.iter().any(|&o| chebyshev(o, c) < d), d, step))
            .collect();
        eggs.sort_by_key(|&(contested, d, step)| (contested, d, STEPS.iter().position(|&s| s == step)));
        if let Some(&(_, _, step)) = eggs.first() {
            self.target = None;
            return step;
        }
        // 2. The frontier: keep the current target while it is still unknown and reachable.
        if let Some(t) = self.target
            && let Some(&(_, _, step)) = frontier.iter().find(|f| f.1 == t)
        {
            return step;
        }
        if let Some(&(_, t, step)) = frontier.iter().min_by_key(|f| f.0) {
            self.target = Some(t);
            return step;
        }
        // 3. Blocked for now by a cell bounced off: wait. Everything known: the least
        //    visited free neighbour (or stay).
        self.target = None;
        if !self.avoid.is_empty() {
            return (0, 0);
        }
        let mut best = ((u32::MAX, 0), (0, 0));
        for k in 0..8 {
            let (sx, sy) = STEPS[(k + offset) % 8];
            let n = (self.pos.0 + sx, self.pos.1 + sy);
            if matches!(self.map.get(&n), Some(&c) if c != WALL) && !blocked_cells.contains(&n) {
                let key = (self.visits.get(&n).copied().unwrap_or(0), ctx.random(4));
                if key < best.0 {
                    best = (key, (sx, sy));
                }
            }
        }
        best.1
    }
}

impl EggsPlayer for HunterBot {
    const NAME: &'static str = "EggHunter";

    fn new() -> Self {
        HunterBot::default()
    }

    fn turn(&mut self, ctx: &EggsContext<'_>, answer: &mut EggsAnswer) {
        self.observe(ctx);
        let (dx, dy) = self.plan(ctx);
        let action = if ctx.look(dx, dy) == EGG {
            NOTHING
        } else if (-1..=1).any(|oy| (-1..=1).any(|ox| (ox, oy) != (-dx, -dy) && ctx.look(dx + ox, dy + oy) == PLAYER)) {
            // Another player next to where we land (not us): it may land there too.
            ATTACK
        } else {
            NOTHING
        };
        self.last_step = Some((dx, dy));
        answer.go(dir::of(dx, dy), action);
    }
}

export_eggs_bot!(HunterBot);
