//! TargetSeeker: reasons about the wall rule of "Invisible target".
//!
//! A wall is only ever placed where every player can still reach the target, so the
//! target always lies in the region of free cells that holds the players. The bot keeps
//! the walls it was told about (every copy sees every wall, so the entry's one instance
//! knows them all), and after each new wall it prunes its belief map to that region (a
//! flood fill from its player through non-wall cells; players do not block routes).
//! Each copy then steps to the free neighbour that minimises the summed torus distance to
//! the cells still possible (the expected distance to a target uniform over them), ties
//! broken at random. It never stays when it can move: a copy that moves leaves cells
//! behind it that walls may fill, so its region closes in toward the target, while a
//! copy that stays is left at the end of a corridor.

use zombies_plugin_abi::export_target_bot;
use zombies_plugin_abi::target::{CELLS, MOVES, NO_WALL, STAY, TargetContext, TargetPlayer, distance, step};

const N: usize = CELLS as usize;
/// Most possible cells weighed per call.
const SAMPLE: usize = 256;

/// The bot: the walls it knows and the cells where the target can be.
#[derive(Debug)]
pub struct TargetSeeker {
    wall: Vec<bool>,
    possible: Vec<bool>,
    /// The possible cells, listed (for the distance sums).
    cells: Vec<u16>,
    /// Walls learnt since the belief was last pruned.
    dirty: bool,
    /// Sampled possible cells and the distance of the nearest other player to each.
    nearest: Vec<(u32, u32)>,
}

impl TargetSeeker {
    /// Keeps only the cells reachable from `from` through non-wall cells.
    fn prune(&mut self, from: u32) {
        let mut seen = vec![false; N];
        let mut todo = vec![from];
        seen[from as usize] = true;
        while let Some(c) = todo.pop() {
            for m in MOVES {
                let d = step(c, m);
                if !self.wall[d as usize] && !seen[d as usize] {
                    seen[d as usize] = true;
                    todo.push(d);
                }
            }
        }
        for (p, s) in self.possible.iter_mut().zip(&seen) {
            *p &= *s;
        }
        self.cells = (0..N as u16).filter(|&c| self.possible[c as usize]).collect();
    }
}

impl TargetPlayer for TargetSeeker {
    const NAME: &'static str = "TargetSeeker";

    fn new() -> Self {
        TargetSeeker {
            wall: vec![false; N],
            possible: vec![true; N],
            cells: (0..N as u16).collect(),
            dirty: false,
            nearest: Vec::new(),
        }
    }

    fn turn(&mut self, ctx: &TargetContext<'_>) -> u32 {
        if ctx.new_wall != NO_WALL && (ctx.new_wall as usize) < N && !self.wall[ctx.new_wall as usize] {
            self.wall[ctx.new_wall as usize] = true;
            self.possible[ctx.new_wall as usize] = false;
            self.dirty = true;
        }
        if self.dirty {
            self.dirty = false;
            self.prune(ctx.me);
        }
        let mut occupied = vec![false; N];
        for &p in ctx.others.iter() {
            occupied[usize::from(p)] = true;
        }
        // A sample of the possible cells (at most SAMPLE, evenly spaced in the list), each
        // with the distance of the nearest other player.
        let stride = self.cells.len().div_ceil(SAMPLE).max(1);
        self.nearest.clear();
        for &t in self.cells.iter().step_by(stride) {
            let t = u32::from(t);
            let d = ctx.others.iter().map(|&p| distance(t, u32::from(p))).min().unwrap_or(u32::MAX);
            self.nearest.push((t, d));
        }
        // The mass of the cells a copy at `c` would be nearest to (a tie counts half).
        let mass = |c: u32| -> u32 {
            self.nearest
                .iter()
                .map(|&(t, d)| {
                    let mine = distance(c, t);
                    2 * u32::from(mine < d) + u32::from(mine == d)
                })
                .sum()
        };
        let (mut best, mut ties, mut choice) = (mass(ctx.me), 1, STAY);
        for m in MOVES {
            let d = step(ctx.me, m);
            if self.wall[d as usize] || occupied[d as usize] {
                continue;
            }
            let v = mass(d);
            if v > best {
                (best, ties, choice) = (v, 1, m);
            } else if v == best {
                ties += 1;
                if ctx.random(ties) == 0 {
                    choice = m;
                }
            }
        }
        choice
    }
}

export_target_bot!(TargetSeeker);
