//! Static data of hex humans vs zombies: the constants of spec section 1, the weapons table of
//! section 5, the office map and the spawn zones of section 4.
//!
//! What this is: plain tables and the id layout of the fixed objects (spec 3). What it is not:
//! no state and no rules; the engine reads these tables.

/// Half-turn limit (spec 1).
pub const TURN_LIMIT: u32 = 1000;
/// Humans per game (spec 1, 7.1).
pub const HUMANS_PER_GAME: usize = 6;
/// Human hp at spawn, hp cap, moves per half-turn, sight, ammo at spawn (spec 1).
pub const HUMAN_HP: i64 = 100;
pub const HUMAN_HP_CAP: i64 = 150;
pub const HUMAN_MOVES: i32 = 3;
pub const HUMAN_SIGHT: i32 = 8;
pub const HUMAN_AMMO: i64 = 125;
/// Zombie hp (always), hp cap, moves per half-turn, sight (spec 1).
pub const ZOMBIE_HP: i64 = 70;
pub const ZOMBIE_HP_CAP: i64 = 105;
pub const ZOMBIE_MOVES: i32 = 1;
pub const ZOMBIE_SIGHT: i32 = 2;
/// Airdrops earned per human half-turn; half-turns until landing; landing damage; crate hp (spec 1, 7.9).
pub const AIRDROP_RATE: f64 = 0.1001;
pub const AIRDROP_DELAY: i32 = 4;
pub const AIRDROP_DAMAGE: i64 = 200;
/// Default crate hp (dropped weapons, airdrops) (spec 1).
pub const CRATE_HP: i64 = 100;
/// Map ammo crates' hp (spec 4).
pub const MAP_CRATE_HP: i64 = 40;
/// Hp a build adds / a built wall starts with; wall hp cap factor (spec 1, 7.8).
pub const BUILD_HP: i64 = 7;
pub const WALL_CAP_FACTOR: i64 = 10_000;
/// Idle time of a new unit and its gain at every boundary (spec 7.4).
pub const IDLE_START: f64 = 0.5;
pub const IDLE_GAIN: f64 = 0.5;

/// One row of the weapons table (spec 5).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Weapon {
    pub id: u32,
    pub name: &'static str,
    pub range: i32,
    /// Ammo per shot.
    pub ammo: i64,
    /// Firing delay, compared with and subtracted from the idle time as this exact f64.
    pub delay: f64,
    pub direct: i64,
    pub vertical: i64,
    pub horizontal: i64,
    pub radius: i32,
    pub spawn_with: bool,
    pub call_in: bool,
}

/// Weapon ids 0..=6 in table order (spec 3): the contract's, which bots see.
pub use zombies_plugin_abi::hex::weapon::{
    CHAINSAW, FLAMETHROWER, GRENADE_LAUNCHER, MEDICAL_KIT, PISTOL, SHOTGUN, ZOMBIE_ARMS,
};

/// The weapons table of spec 5, indexed by weapon id.
pub const WEAPONS: [Weapon; 7] = [
    Weapon {
        id: MEDICAL_KIT,
        name: "Medical Kit",
        range: 1,
        ammo: 5,
        delay: 2.0,
        direct: 0,
        vertical: -50,
        horizontal: 0,
        radius: 0,
        spawn_with: true,
        call_in: true,
    },
    Weapon {
        id: SHOTGUN,
        name: "Shotgun",
        range: 3,
        ammo: 2,
        delay: 1.0,
        direct: 20,
        vertical: 20,
        horizontal: 0,
        radius: 0,
        spawn_with: true,
        call_in: true,
    },
    Weapon {
        id: GRENADE_LAUNCHER,
        name: "Grenade Launcher",
        range: 4,
        ammo: 12,
        delay: 3.0,
        direct: 0,
        vertical: 45,
        horizontal: 45,
        radius: 1,
        spawn_with: true,
        call_in: true,
    },
    Weapon {
        id: ZOMBIE_ARMS,
        name: "Zombie Arms",
        range: 1,
        ammo: 0,
        delay: 1.0,
        direct: 5,
        vertical: 0,
        horizontal: 0,
        radius: 0,
        spawn_with: false,
        call_in: false,
    },
    Weapon {
        id: CHAINSAW,
        name: "Chainsaw",
        range: 1,
        ammo: 0,
        delay: 1.0,
        direct: 60,
        vertical: 0,
        horizontal: 0,
        radius: 0,
        spawn_with: true,
        call_in: true,
    },
    Weapon {
        id: PISTOL,
        name: "Pistol",
        range: 5,
        ammo: 1,
        delay: 0.5,
        direct: 25,
        vertical: 0,
        horizontal: 0,
        radius: 0,
        spawn_with: true,
        call_in: true,
    },
    Weapon {
        id: FLAMETHROWER,
        name: "Flamethrower",
        range: 1,
        ammo: 3,
        delay: 0.33,
        direct: 0,
        vertical: 25,
        horizontal: 0,
        radius: 0,
        spawn_with: true,
        call_in: true,
    },
];

/// The weapon with this id, if it is one (ids 0..=6).
pub fn weapon(id: u32) -> Option<&'static Weapon> {
    WEAPONS.get(id as usize)
}

/// Spawn zone ids 7..=10 (spec 3, 4).
pub const ZONES: [u32; 4] = [7, 8, 9, 10];
/// First id handed to a map object (spec 3).
pub const FIRST_MAP_ID: u32 = 11;

/// Spec 4: the order in which a zone uses its hexes: middle first, then alternately one step
/// further along and one step back, ending at the two corners.
pub const SPAWN_SEQ: [u32; 27] = {
    let mut s = [0u32; 27];
    let mut i = 0;
    while i < 27 {
        s[i] = if i % 2 == 1 { 13 + (i as u32).div_ceil(2) } else { 13 - (i as u32) / 2 };
        i += 1;
    }
    s
};

/// Spec 4: hex h_k (k = 0..=26) of spawn zone `zone` (7..=10); `None` for another id.
pub fn zone_hex(zone: u32, k: u32) -> Option<(i32, i32)> {
    let k = k as i32;
    match zone {
        7 => Some((-13, -13 + k)),
        8 => Some((-13 + k, 13)),
        9 => Some((13, 13 - k)),
        10 => Some((13 - k, -13)),
        _ => None,
    }
}

/// Spec 4: where the j-th zombie (j = 0, 1, …) spawned in `zone` appears.
pub fn zone_spawn_hex(zone: u32, j: u32) -> Option<(i32, i32)> {
    zone_hex(zone, SPAWN_SEQ[(j % 27) as usize])
}

/// The office map of spec 4, one string per row from the top: row r is y = r − 13, column c is
/// x = c − 13. `W` wall 600 hp, `w` wall 200 hp, `C` ammo crate 40 hp, `.` empty.
pub const OFFICE_MAP: [&str; 27] = [
    "...........................",
    "...........................",
    "......C....................",
    "...........................",
    "....WWWWWWWWWWWWWW...WW....",
    "....W...C....w........W....",
    "....W........w......C.W....",
    "....W........w........W....",
    "....W........w........W....",
    "....Wwwww.............W....",
    "....W.................W....",
    "....W........w........w..C.",
    "........wwwwwwwwwww...w....",
    ".............w.C......w....",
    "....W........w........W....",
    "....W.................W....",
    "....W.................W....",
    "....WWWWWWWWWWWWW.....W....",
    "....W...........w.....W.C..",
    ".C..W..C...wwwww......W....",
    "....W...............C.W....",
    "....W.................W....",
    "....WWWWWWWwwwwwWWWWWWW....",
    "...........................",
    "....................C......",
    ".......C...................",
    "...........................",
];

/// A map object as placed at game start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapItem {
    /// A wall with this initial hp.
    Wall(i64),
    /// An ammo crate with this hp.
    AmmoCrate(i64),
}

/// The office map's objects in file order (row by row, each row left to right): the order that
/// gives them ids 11, 12, … (spec 3).
pub fn office_items() -> impl Iterator<Item = (i32, i32, MapItem)> {
    OFFICE_MAP.iter().enumerate().flat_map(|(r, row)| {
        row.bytes().enumerate().filter_map(move |(c, ch)| {
            let (x, y) = (c as i32 - 13, r as i32 - 13);
            match ch {
                b'W' => Some((x, y, MapItem::Wall(600))),
                b'w' => Some((x, y, MapItem::Wall(200))),
                b'C' => Some((x, y, MapItem::AmmoCrate(MAP_CRATE_HP))),
                _ => None,
            }
        })
    })
}

/// Spec 8.1: the zombie cap at half-turn t: 20 + ⌊0.8·⌊t/2⌋⌋, computed in f64 as the original did.
pub fn zombie_cap(t: u32) -> u32 {
    20 + ((t / 2) as f64 * 0.8).floor() as u32
}
