//! The toroidal board: one [`Id`] per cell, stored with an 8-cell wrapped margin.
//!
//! Every cell within 8 of an edge is stored again on the opposite side's margin, so
//! the 17x17 view around any cell is a plain window into the array: building a bot's
//! view copies nothing and needs no modulo. Writes go through [`Board::set`], which
//! keeps the copies in step.
//!
//! Beside the cells, a bitmap of living players (same layout, one bit per stored cell)
//! lets a zombie read the players in one row of its view as a 17-bit window.
//!
//! This module knows nothing of the rules; it is storage and geometry only.
//!
//! **Architecture Invariant:** every copy of a cell holds the same id, and a bit of the
//! player bitmap is set exactly where a stored cell holds a living player; only `set`
//! writes either.

use zombies_plugin_abi::{Id, VIEW_WIDTH, VISION_RANGE, View};

/// Width of the wrapped margin: the vision range.
pub const MARGIN: u32 = VISION_RANGE as u32;

/// A square torus of `side x side` cells.
#[derive(Debug, Clone)]
pub struct Board {
    side: u32,
    /// `side + 2 * MARGIN`: the stored row length.
    stride: u32,
    cells: Vec<Id>,
    /// One bit per stored cell, set for living players; `words` u64s per stored row.
    players: Vec<u64>,
    words: u32,
}

impl Board {
    /// An empty board. `side` must be at least 17, so that a view never sees a cell twice.
    pub fn new(side: u32) -> Board {
        assert!(side as usize >= VIEW_WIDTH, "board side {side} is below the view width");
        let stride = side + 2 * MARGIN;
        let words = stride.div_ceil(64);
        Board {
            side,
            stride,
            cells: vec![Id::EMPTY; (stride as usize) * (stride as usize)],
            players: vec![0; (words as usize) * (stride as usize)],
            words,
        }
    }

    /// Side of the board.
    #[inline]
    pub fn side(&self) -> u32 {
        self.side
    }

    /// Stored index of board cell `(x, y)` (both `< side`).
    #[inline]
    fn index(&self, x: u32, y: u32) -> usize {
        ((y + MARGIN) * self.stride + x + MARGIN) as usize
    }

    /// The occupant of `(x, y)` (both `< side`).
    #[inline]
    pub fn get(&self, x: u32, y: u32) -> Id {
        self.cells[self.index(x, y)]
    }

    /// The occupant at offset `(dx, dy)` (each within ±8) from `(x, y)`, wrapping.
    #[inline]
    pub fn get_offset(&self, x: u32, y: u32, dx: i32, dy: i32) -> Id {
        let i = self.index(x, y) as isize + dy as isize * self.stride as isize + dx as isize;
        self.cells[i as usize]
    }

    /// Puts `id` (or [`Id::EMPTY`]) on `(x, y)`, margin copies included.
    #[inline]
    pub fn set(&mut self, x: u32, y: u32, id: Id) {
        let flip = self.get(x, y).is_player() != id.is_player();
        self.write(x, y, id, flip);
    }

    /// Empties `(x, y)`.
    #[inline]
    pub fn remove(&mut self, x: u32, y: u32) {
        let was_player = self.get(x, y).is_player();
        self.write(x, y, Id::EMPTY, was_player);
    }

    /// Puts `id` on the empty cell `(x, y)`.
    #[inline]
    pub fn place(&mut self, x: u32, y: u32, id: Id) {
        debug_assert!(self.get(x, y).is_empty());
        self.write(x, y, id, id.is_player());
    }

    /// Writes `id` to `(x, y)` and its copies, flipping the player bit if asked.
    #[inline]
    fn write(&mut self, x: u32, y: u32, id: Id, flip: bool) {
        let (s, m) = (self.side, MARGIN);
        if (m..s - m).contains(&x) && (m..s - m).contains(&y) {
            // Away from the edges: no copies (the common case).
            self.put(x + m, y + m, id, flip);
            return;
        }
        let xs = [Some(x + m), (x < m).then(|| x + m + s), (x >= s - m).then(|| x + m - s)];
        let ys = [Some(y + m), (y < m).then(|| y + m + s), (y >= s - m).then(|| y + m - s)];
        for py in ys.into_iter().flatten() {
            for px in xs.into_iter().flatten() {
                self.put(px, py, id, flip);
            }
        }
    }

    /// Writes one stored cell (and flips its player bit if asked).
    #[inline]
    fn put(&mut self, px: u32, py: u32, id: Id, flip: bool) {
        self.cells[(py * self.stride + px) as usize] = id;
        if flip {
            self.players[(py * self.words + px / 64) as usize] ^= 1 << (px % 64);
        }
    }

    /// `(x + dx, y + dy)` wrapped onto the board, for steps of at most one cell.
    #[inline]
    pub fn step(&self, x: u32, y: u32, dx: i32, dy: i32) -> (u32, u32) {
        let one = |v: u32, d: i32| match d {
            -1 if v == 0 => self.side - 1,
            1 if v == self.side - 1 => 0,
            _ => v.wrapping_add_signed(d),
        };
        (one(x, dx), one(y, dy))
    }

    /// True when a living player stands in the 8-neighbourhood of `(x, y)`.
    #[inline]
    pub fn player_adjacent(&self, x: u32, y: u32) -> bool {
        const AROUND: u32 = 0b111 << (VISION_RANGE - 1);
        (self.player_row(x, y, -1) | self.player_row(x, y, 0) | self.player_row(x, y, 1)) & AROUND != 0
    }

    /// The living players in row `dy` (-8..=8) of the view centred on `(x, y)`: bit
    /// `i` is view column `i`, i.e. offset `dx = i - 8`.
    #[inline]
    pub fn player_row(&self, x: u32, y: u32, dy: i32) -> u32 {
        // The view's row dy is stored row y + 8 + dy; its columns are stored x..x + 17.
        let row = ((y as i32 + MARGIN as i32 + dy) as u32 * self.words) as usize;
        let (word, shift) = ((x / 64) as usize, x % 64);
        let mut bits = self.players[row + word] >> shift;
        if shift > 64 - VIEW_WIDTH as u32 {
            bits |= self.players[row + word + 1] << (64 - shift);
        }
        (bits & ((1 << VIEW_WIDTH) - 1)) as u32
    }

    /// The 17x17 view centred on `(x, y)`: a window into the board, no copy.
    #[inline]
    pub fn view(&self, x: u32, y: u32) -> View<'_> {
        // The view's north-west corner is board cell (x - 8, y - 8), stored at (x, y).
        let start = (y * self.stride + x) as usize;
        let len = (VIEW_WIDTH - 1) * self.stride as usize + VIEW_WIDTH;
        View::new(&self.cells[start..start + len], self.stride as usize)
    }

    /// `(x + dx, y + dy)` wrapped onto the board.
    #[inline]
    pub fn wrap(&self, x: u32, y: u32, dx: i32, dy: i32) -> (u32, u32) {
        let s = self.side as i64;
        (((x as i64 + dx as i64).rem_euclid(s)) as u32, ((y as i64 + dy as i64).rem_euclid(s)) as u32)
    }

    /// Chebyshev distance between two cells on the torus.
    #[inline]
    pub fn distance(&self, (ax, ay): (u32, u32), (bx, by): (u32, u32)) -> u32 {
        let d = |a: u32, b: u32| {
            let d = a.abs_diff(b);
            d.min(self.side - d)
        };
        d(ax, bx).max(d(ay, by))
    }

    /// Every occupied cell, as `(x, y, id)`, row by row (for inspection and tests).
    pub fn occupied(&self) -> impl Iterator<Item = (u32, u32, Id)> + '_ {
        (0..self.side).flat_map(move |y| {
            (0..self.side).filter_map(move |x| {
                let id = self.get(x, y);
                (!id.is_empty()).then_some((x, y, id))
            })
        })
    }

    /// True when every margin copy agrees with its cell and the player bitmap with the
    /// cells (checked by tests).
    pub fn margins_consistent(&self) -> bool {
        let (s, w) = (self.side as i64, self.stride as i64);
        (0..w).all(|py| {
            (0..w).all(|px| {
                let (x, y) = ((px - MARGIN as i64).rem_euclid(s), (py - MARGIN as i64).rem_euclid(s));
                let cell = self.cells[(py * w + px) as usize];
                let bit = self.players[(py as u32 * self.words + px as u32 / 64) as usize] >> (px % 64) & 1 == 1;
                cell == self.get(x as u32, y as u32) && bit == cell.is_player()
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_wrap_through_the_margin() {
        let mut b = Board::new(20);
        let id = Id { owner: 0, number: 7 };
        b.set(19, 0, id);
        assert!(b.margins_consistent());
        // Seen from (0, 19): one step west and one step south wraps to (19, 0).
        assert_eq!(b.view(0, 19).look(-1, 1), id);
        assert_eq!(b.get_offset(0, 19, -1, 1), id);
        b.set(19, 0, Id::EMPTY);
        assert!(b.margins_consistent());
        assert!(b.view(0, 19).look(-1, 1).is_empty());
    }

    #[test]
    fn torus_distance_is_chebyshev_with_wrap() {
        let b = Board::new(20);
        assert_eq!(b.distance((0, 0), (19, 19)), 1);
        assert_eq!(b.distance((0, 0), (10, 3)), 10);
        assert_eq!(b.wrap(0, 0, -1, -1), (19, 19));
    }
}
