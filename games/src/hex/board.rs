//! Board geometry of hex humans vs zombies (spec section 2, and the "in front" wedge of 8.4).
//!
//! What this is: pure functions on hex coordinates: bounds, distance, the six directions,
//! disks in the original enumeration order, the zombie's "in front" test, and the index of an
//! in-bounds hex in a 27 × 27 table. What it is not: it knows nothing about objects, walls or
//! units; occupancy lives in the engine.

/// |x| ≤ BOUND and |y| ≤ BOUND is the board (spec 1, 2).
pub const BOUND: i32 = 13;
/// Side length of the square (x, y) table that holds the board: 27.
pub const SIDE: usize = (2 * BOUND + 1) as usize;
/// Number of in-bounds hexes: 729.
pub const CELLS: usize = SIDE * SIDE;

/// The six directions as (dx, dy), numbered as zombie facings (spec 2): 0 down-right, 1 up-right,
/// 2 up, 3 up-left, 4 down-left, 5 down in the manual's drawing; 0→1→…→5 is counter-clockwise.
pub const DIRS: [(i32, i32); 6] = [(1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1)];

/// Spec 2: a hex is in bounds iff |x| ≤ 13 and |y| ≤ 13.
pub fn in_bounds(x: i32, y: i32) -> bool {
    x.unsigned_abs() <= BOUND as u32 && y.unsigned_abs() <= BOUND as u32
}

/// Spec 2: with dx = x2 − x1, dy = y2 − y1: |dx| + |dy| if dx·dy > 0, else max(|dx|, |dy|).
/// Computed in i64 and saturated, as commands may name any i32 hex (airdrops have no bound).
pub fn distance(x1: i32, y1: i32, x2: i32, y2: i32) -> i32 {
    let (dx, dy) = (x2 as i64 - x1 as i64, y2 as i64 - y1 as i64);
    let d = if (dx > 0 && dy > 0) || (dx < 0 && dy < 0) { dx.abs() + dy.abs() } else { dx.abs().max(dy.abs()) };
    d.min(i32::MAX as i64) as i32
}

/// Spec 2: adjacent iff the distance is 1.
pub fn adjacent(x1: i32, y1: i32, x2: i32, y2: i32) -> bool {
    distance(x1, y1, x2, y2) == 1
}

/// Spec 2: the disk of radius r around (x, y), not clipped to the board, enumerated with dx from −r
/// to r and, inside, dy from −r to r (radius 0 is the hex itself).
pub fn disk(x: i32, y: i32, r: i32) -> impl Iterator<Item = (i32, i32)> {
    (-r..=r)
        .flat_map(move |dx| (-r..=r).map(move |dy| (dx, dy)))
        .filter_map(move |(dx, dy)| if distance(0, 0, dx, dy) <= r { Some((x + dx, y + dy)) } else { None })
}

/// Spec 8.4: is P = (px, py) in front of a zombie at Z = (zx, zy) facing `facing` (0..=5)?
/// The open 120° wedge between directions facing − 1 and facing + 1; never Z itself.
pub fn in_front(zx: i32, zy: i32, facing: u8, px: i32, py: i32) -> bool {
    let (dx, dy) = (px - zx, py - zy);
    match facing {
        0 => dx > 0 && dx + dy > 0,
        1 => dy > 0 && dx + dy > 0,
        2 => dx < 0 && dy > 0,
        3 => dx < 0 && dx + dy < 0,
        4 => dy < 0 && dx + dy < 0,
        5 => dx > 0 && dy < 0,
        _ => false,
    }
}

/// The front neighbour Z + D(facing) (spec 8.4, 8.5).
pub fn front(x: i32, y: i32, facing: u8) -> (i32, i32) {
    let (dx, dy) = DIRS[facing as usize % 6];
    (x + dx, y + dy)
}

/// Index of an in-bounds hex in a 27 × 27 table; `None` off the board.
pub fn cell(x: i32, y: i32) -> Option<usize> {
    if in_bounds(x, y) { Some(((y + BOUND) as usize) * SIDE + (x + BOUND) as usize) } else { None }
}
