//! What a side can see (spec section 9), for the host to build bot contexts.
//!
//! What this is: the union of sight disks (humans 8, zombies 2) around a side's living units, and
//! the ids of the objects in it that the side may see (the zombie side never sees crates or
//! airstrikes). What it is not: no rules; visibility never gates a command (spec 9, last point).

use super::board::{self, CELLS};
use super::data;
use super::engine::Engine;
use super::state::Side;

/// The objects a side sees, by kind, each list in id order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct View {
    pub humans: Vec<u32>,
    pub zombies: Vec<u32>,
    pub walls: Vec<u32>,
    pub crates: Vec<u32>,
    pub airstrikes: Vec<u32>,
}

impl Engine {
    /// Sight radius of a side's units.
    pub fn sight(side: Side) -> i32 {
        match side {
            Side::Humans => data::HUMAN_SIGHT,
            Side::Zombies => data::ZOMBIE_SIGHT,
        }
    }

    fn eyes(&self, side: Side) -> Vec<(i32, i32)> {
        match side {
            Side::Humans => self.humans().map(|h| (h.x, h.y)).collect(),
            Side::Zombies => self.zombies().map(|z| (z.x, z.y)).collect(),
        }
    }

    /// Does `side` see hex (x, y)? (Within sight of one of its living units; off-board hexes too.)
    pub fn sees(&self, side: Side, x: i32, y: i32) -> bool {
        let r = Self::sight(side);
        self.eyes(side).iter().any(|&(ux, uy)| board::distance(ux, uy, x, y) <= r)
    }

    /// Per in-bounds hex (index `board::cell`), whether `side` sees it.
    pub fn visible_cells(&self, side: Side) -> Vec<bool> {
        let r = Self::sight(side);
        let mut seen = vec![false; CELLS];
        for (ux, uy) in self.eyes(side) {
            // The disk row by row: for dx ≥ 0, dy runs −r..=r−dx; for dx < 0, −r−dx..=r (spec 2's distance).
            for dx in -r..=r {
                let x = ux + dx;
                if x.abs() > board::BOUND {
                    continue;
                }
                let (lo, hi) = if dx >= 0 { (-r, r - dx) } else { (-r - dx, r) };
                let (lo, hi) = ((uy + lo).max(-board::BOUND), (uy + hi).min(board::BOUND));
                for y in lo..=hi {
                    seen[board::cell(x, y).expect("in bounds")] = true;
                }
            }
        }
        seen
    }

    /// Spec 9: the objects `side` sees now: walls, humans, zombies in sight, and for the humans also
    /// crates and pending airstrikes in sight.
    pub fn view(&self, side: Side) -> View {
        let seen = self.visible_cells(side);
        let on = |x: i32, y: i32| board::cell(x, y).is_some_and(|c| seen[c]);
        let mut v = View {
            humans: self.humans().filter(|o| on(o.x, o.y)).map(|o| o.id).collect(),
            zombies: self.zombies().filter(|o| on(o.x, o.y)).map(|o| o.id).collect(),
            walls: self.walls().filter(|o| on(o.x, o.y)).map(|o| o.id).collect(),
            ..View::default()
        };
        if side == Side::Humans {
            v.crates = self.crates().filter(|o| on(o.x, o.y)).map(|o| o.id).collect();
            // Airstrikes may lie off the board: test them by distance.
            v.airstrikes = self.airstrikes().filter(|o| self.sees(side, o.x, o.y)).map(|o| o.id).collect();
        }
        v
    }
}
