//! The toroidal board: one [`Id`] per cell, stored with an 8-cell wrapped margin.
//!
//! Every cell within 8 of an edge is stored again on the opposite side's margin, so
//! the 17x17 view around any cell is a plain window into the array: building a bot's
//! view copies nothing and needs no modulo. Writes go through [`Board::set`], which
//! keeps the copies in step.
//!
//! Beside the cells, a bitmap of living players and one of zombies (same layout, one
//! bit per stored cell) let a zombie read the players in one row of its view as a
//! 17-bit window, and find every bitten player with a few word operations per row.
//!
//! This module knows nothing of the rules; it is storage and geometry only.
//!
//! **Architecture Invariant:** every copy of a cell holds the same id, and a bit of the
//! player (zombie) bitmap is set exactly where a stored cell holds a living player (a
//! zombie); only `set`
//! and a [`Batch`] (which brings the copies in step when it ends) write either.

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
    /// The same for zombies.
    zombies: Vec<u64>,
    words: u32,
    /// For each word of a bitmap row: the bits of board columns (not margin copies).
    inner: Vec<u64>,
    /// For each board coordinate `v`: the stored coordinate of its margin copy, or
    /// `v + MARGIN` (its own) when it has none.
    copy: Vec<u32>,
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
            zombies: vec![0; (words as usize) * (stride as usize)],
            words,
            inner: (0..words)
                .map(|i| (0..64).filter(|b| (MARGIN..MARGIN + side).contains(&(i * 64 + b))).map(|b| 1 << b).sum())
                .collect(),
            copy: (0..side)
                .map(|v| match v {
                    v if v < MARGIN => v + MARGIN + side,
                    v if v >= side - MARGIN => v + MARGIN - side,
                    v => v + MARGIN,
                })
                .collect(),
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

    /// Puts `id` (or [`Id::EMPTY`]) on `(x, y)`, margin copies included, and sets the
    /// cell's player and zombie bits to what `id` is.
    #[inline]
    pub fn set(&mut self, x: u32, y: u32, id: Id) {
        // The cell and its copies: the stored column and row, each either its own or
        // that of the margin copy (the same one when it has none, written twice).
        let xs = [x + MARGIN, self.copy[x as usize]];
        let ys = [y + MARGIN, self.copy[y as usize]];
        if xs[0] == xs[1] && ys[0] == ys[1] {
            self.put(xs[0], ys[0], id);
            return;
        }
        for py in ys {
            for px in xs {
                self.put(px, py, id);
            }
        }
    }

    /// Writes one stored cell and its player and zombie bits.
    #[inline]
    fn put(&mut self, px: u32, py: u32, id: Id) {
        self.cells[(py * self.stride + px) as usize] = id;
        let (word, bit) = ((py * self.words + px / 64) as usize, px % 64);
        let p = &mut self.players[word];
        *p = (*p & !(1 << bit)) | (u64::from(id.is_player()) << bit);
        let z = &mut self.zombies[word];
        *z = (*z & !(1 << bit)) | (u64::from(id.is_zombie()) << bit);
    }

    /// A batch of many writes: each writes only the cell itself, and the margin
    /// copies are brought in step once, in bulk, when the batch is dropped. Nothing
    /// reads the board meanwhile (the batch borrows it).
    pub fn batch(&mut self) -> Batch<'_> {
        Batch { board: self }
    }

    /// Copies every cell within 8 of an edge, and its bits, to the margin on the
    /// opposite side: columns first (board rows only), then whole stored rows.
    fn sync_margins(&mut self) {
        let (side, stride, m, w) = (self.side as usize, self.stride as usize, MARGIN as usize, self.words as usize);
        for py in m..m + side {
            let row = &mut self.cells[py * stride..(py + 1) * stride];
            row.copy_within(side..side + m, 0);
            row.copy_within(m..2 * m, side + m);
            for bitmap in [&mut self.players, &mut self.zombies] {
                let bits = &mut bitmap[py * w..(py + 1) * w];
                let west = get_bits(bits, side, m);
                set_bits(bits, 0, m, west);
                let east = get_bits(bits, m, m);
                set_bits(bits, side + m, m, east);
            }
        }
        self.cells.copy_within(side * stride..(side + m) * stride, 0);
        self.cells.copy_within(m * stride..2 * m * stride, (side + m) * stride);
        for bitmap in [&mut self.players, &mut self.zombies] {
            bitmap.copy_within(side * w..(side + m) * w, 0);
            bitmap.copy_within(m * w..2 * m * w, (side + m) * w);
        }
    }

    /// Fills `out` with every living player in the 8-neighbourhood of a zombie, row by
    /// row (north to south, west to east in each row): per row, the zombies of the three
    /// rows around it, spread one column each way, meet the row's players.
    pub fn players_next_to_zombies(&self, out: &mut Vec<(u32, u32)>) {
        out.clear();
        let (w, m) = (self.words as usize, MARGIN as usize);
        let zombies = |py: usize, i: usize| self.zombies[py * w + i];
        for y in 0..self.side as usize {
            // Stored rows y + 7, y + 8 (the board row) and y + 9.
            let around = |i: usize| zombies(y + m - 1, i) | zombies(y + m, i) | zombies(y + m + 1, i);
            let players = &self.players[(y + m) * w..][..w];
            let (mut before, mut here) = (0, around(0));
            for (i, (&players, &inner)) in players.iter().zip(&self.inner).enumerate() {
                let after = if i + 1 < w { around(i + 1) } else { 0 };
                let spread = here | (here << 1) | (before >> 63) | (here >> 1) | (after << 63);
                let mut hits = spread & players & inner;
                while hits != 0 {
                    let px = (i * 64) as u32 + hits.trailing_zeros();
                    out.push((px - MARGIN, y as u32));
                    hits &= hits - 1;
                }
                (before, here) = (here, after);
            }
        }
    }

    /// `(x + dx, y + dy)` wrapped onto the board, for steps of at most one cell.
    #[inline]
    pub fn step(&self, x: u32, y: u32, dx: i32, dy: i32) -> (u32, u32) {
        let side = self.side as i32;
        let one = |v: u32, d: i32| {
            let v = v as i32 + d;
            // Branch-free wrap (the direction is random, a branch would mispredict).
            let v = v + (side & -i32::from(v < 0));
            (v - (side & -i32::from(v >= side))) as u32
        };
        (one(x, dx), one(y, dy))
    }

    /// The living players in row `dy` (-8..=8) of the view centred on `(x, y)`: bit
    /// `i` is view column `i`, i.e. offset `dx = i - 8`.
    #[inline]
    pub fn player_row(&self, x: u32, y: u32, dy: i32) -> u32 {
        // The view's row dy is stored row y + 8 + dy; its columns are stored x..x + 17.
        let row = (y as i32 + MARGIN as i32 + dy) as usize * self.words as usize;
        view_window(&self.players[row..row + self.words as usize], x)
    }

    /// Fills `rows` with, for each board row `y`, the stored columns that hold a living
    /// player in some row of the views centred on row `y` (rows `y - 8..=y + 8`): then
    /// [`Board::sees_player`] tells in one read whether a view holds a living player.
    pub fn view_columns(&self, rows: &mut Vec<u64>) {
        let (w, span) = (self.words as usize, VIEW_WIDTH);
        // OR of 1, 2, 4, 8 and 16 consecutive stored rows, in place, then the 17th.
        rows.clear();
        rows.extend_from_slice(&self.players);
        let stored = self.stride as usize;
        for reach in [1, 2, 4, 8] {
            for i in 0..(stored - reach) * w {
                rows[i] |= rows[i + reach * w];
            }
        }
        rows.truncate(self.side as usize * w);
        for (row, last) in rows.iter_mut().zip(&self.players[(span - 1) * w..]) {
            *row |= last;
        }
    }

    /// True when the view centred on `(x, y)` holds a living player, given the rows
    /// [`Board::view_columns`] filled for this board.
    #[inline]
    pub fn sees_player(&self, rows: &[u64], x: u32, y: u32) -> bool {
        let w = self.words as usize;
        let row = y as usize * w;
        view_window(&rows[row..row + w], x) != 0
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
                let word = (py as u32 * self.words + px as u32 / 64) as usize;
                let bit = |bitmap: &[u64]| bitmap[word] >> (px % 64) & 1 == 1;
                cell == self.get(x as u32, y as u32)
                    && bit(&self.players) == cell.is_player()
                    && bit(&self.zombies) == cell.is_zombie()
            })
        })
    }
}

/// Writes on a board whose margin copies are brought in step when it is dropped (see
/// [`Board::batch`]).
#[derive(Debug)]
pub struct Batch<'a> {
    board: &'a mut Board,
}

impl Batch<'_> {
    /// Where board cell `(x, y)` is stored: its index in the cells, its bitmap word
    /// and its bit in that word.
    #[inline(always)]
    fn stored(&self, x: u32, y: u32) -> (usize, usize, u64) {
        let (px, py) = (x + MARGIN, y + MARGIN);
        ((py * self.board.stride + px) as usize, (py * self.board.words + px / 64) as usize, 1 << (px % 64))
    }

    /// Empties `(x, y)` (not its copies).
    ///
    /// Only the bitmap of what stood there is written: one read-modify-write of a bitmap
    /// word rather than two. The branch on the kind is cheap for a caller that writes
    /// the movers grouped by kind (the movement step: zombies, then players).
    #[inline(always)]
    pub fn remove(&mut self, x: u32, y: u32) {
        let (cell, word, bit) = self.stored(x, y);
        let b = &mut *self.board;
        let id = std::mem::replace(&mut b.cells[cell], Id::EMPTY);
        if id.is_zombie() {
            b.zombies[word] &= !bit;
        } else if id.is_player() {
            b.players[word] &= !bit;
        }
    }

    /// Puts `id` on the empty cell `(x, y)` (not on its copies).
    ///
    /// The cell is empty (both bits clear): only the bit of what `id` is gets set (a
    /// branch on the kind, as in [`Batch::remove`]).
    #[inline(always)]
    pub fn place(&mut self, x: u32, y: u32, id: Id) {
        debug_assert!(self.board.get(x, y).is_empty());
        let (cell, word, bit) = self.stored(x, y);
        let b = &mut *self.board;
        b.cells[cell] = id;
        if id.is_zombie() {
            b.zombies[word] |= bit;
        } else if id.is_player() {
            b.players[word] |= bit;
        }
    }
}

impl Drop for Batch<'_> {
    fn drop(&mut self) {
        self.board.sync_margins();
    }
}

/// `len` (at most 64) bits of a bitmap row from bit `start`, as the low bits.
fn get_bits(row: &[u64], start: usize, len: usize) -> u64 {
    let (word, shift) = (start / 64, start % 64);
    let mut bits = row[word] >> shift;
    if shift + len > 64 {
        bits |= row[word + 1] << (64 - shift);
    }
    bits & low_mask(len)
}

/// Writes the low `len` (at most 64) bits of `value` to a bitmap row from bit `start`.
fn set_bits(row: &mut [u64], start: usize, len: usize, value: u64) {
    let (word, shift) = (start / 64, start % 64);
    let mask = low_mask(len);
    row[word] = (row[word] & !(mask << shift)) | ((value & mask) << shift);
    if shift + len > 64 {
        let high = mask >> (64 - shift);
        row[word + 1] = (row[word + 1] & !high) | ((value & mask) >> (64 - shift));
    }
}

fn low_mask(len: usize) -> u64 {
    if len >= 64 { u64::MAX } else { (1 << len) - 1 }
}

/// Stored columns `x..x + 17` of one bitmap row (`words` u64s): bit `i` is column `x + i`.
#[inline]
fn view_window(row: &[u64], x: u32) -> u32 {
    let (word, shift) = ((x / 64) as usize, x % 64);
    // Always two words, without a branch on where the window falls (x is each zombie's
    // own, so such a branch mispredicts): past the row's last word the window fits in
    // that word (a view ends inside the stored row), so reading it twice is harmless.
    let (lo, hi) = (row[word], row[(word + 1).min(row.len() - 1)]);
    let bits = ((u128::from(hi) << 64 | u128::from(lo)) >> shift) as u64;
    (bits & ((1 << VIEW_WIDTH) - 1)) as u32
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
    fn a_batch_brings_every_margin_copy_in_step_when_it_ends() {
        // Sides whose rows end inside a word, on a word boundary and across one.
        for side in [17, 20, 48, 70, 130] {
            let mut b = Board::new(side);
            let mut n = 0;
            let mut id = |player: bool| {
                n += 1;
                Id { owner: if player { 0 } else { Id::ZOMBIE }, number: n }
            };
            // Corners, edges and the middle, players and zombies.
            let cells = [
                (0, 0),
                (side - 1, side - 1),
                (0, side - 1),
                (side - 1, 0),
                (7, 8),
                (side - 8, 3),
                (side / 2, side / 2),
            ];
            {
                let mut batch = b.batch();
                for (i, &(x, y)) in cells.iter().enumerate() {
                    batch.place(x, y, id(i % 2 == 0));
                }
            }
            assert!(b.margins_consistent(), "side {side}, after placing");
            {
                let mut batch = b.batch();
                for &(x, y) in &cells[..4] {
                    batch.remove(x, y);
                }
            }
            assert!(b.margins_consistent(), "side {side}, after removing");
            assert_eq!(b.occupied().count(), cells.len() - 4);
        }
    }

    #[test]
    fn bitten_players_are_those_next_to_a_zombie_on_any_board() {
        // Multi-word rows (130 needs three words) and wrapping edges.
        for side in [17, 20, 60, 130] {
            let mut b = Board::new(side);
            let mut seed = u64::from(side);
            let mut next = || {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                (seed >> 33) as u32
            };
            for number in 1..side * side / 4 {
                let (x, y, kind) = (next() % side, next() % side, next() % 3);
                let owner = [0, Id::ZOMBIE, Id::DEAD_BODY][kind as usize];
                if b.get(x, y).is_empty() {
                    b.set(x, y, Id { owner, number });
                }
            }
            let mut expected = Vec::new();
            for y in 0..side {
                for x in 0..side {
                    let near_zombie = (-1..=1).any(|dy| (-1..=1).any(|dx| b.get_offset(x, y, dx, dy).is_zombie()));
                    if b.get(x, y).is_player() && near_zombie {
                        expected.push((x, y));
                    }
                }
            }
            let mut found = Vec::new();
            b.players_next_to_zombies(&mut found);
            assert_eq!(found, expected, "side {side}");
            assert!(!expected.is_empty());
        }
    }

    #[test]
    fn torus_distance_is_chebyshev_with_wrap() {
        let b = Board::new(20);
        assert_eq!(b.distance((0, 0), (19, 19)), 1);
        assert_eq!(b.distance((0, 0), (10, 3)), 10);
        assert_eq!(b.wrap(0, 0, -1, -1), (19, 19));
    }
}
