//! Typed objects, commands and the state snapshot of hex humans vs zombies (spec sections 3, 7, 8
//! and the golden traces' row format).
//!
//! What this is: plain data: sides, crate contents, the five kinds of map objects with every field
//! the rules use, the commands of both sides, and `State`, a whole-world snapshot that compares
//! field by field with a trace state. What it is not: no rules live here (see `engine`).

/// The two sides. Humans own odd half-turns, zombies even ones (spec 6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    Humans,
    Zombies,
}

impl Side {
    /// The side that plays half-turn t (t ≥ 1).
    pub fn of_turn(t: u32) -> Side {
        if t % 2 == 1 { Side::Humans } else { Side::Zombies }
    }
}

/// What a crate or a pending airdrop holds (spec 7.7, 7.9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Contents {
    /// Ammo: for a crate, the amount is its hp.
    Ammo,
    /// A weapon, by weapon id (0..=6).
    Weapon(u32),
}

/// A wall (spec 7.8). Its hp cap is `cap` = 10 000 × its initial hp.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wall {
    pub id: u32,
    pub x: i32,
    pub y: i32,
    pub hp: i64,
    pub cap: i64,
}

/// A crate (spec 7.7). Its hp cap is its initial hp; an ammo crate's ammo is its hp.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Crate {
    pub id: u32,
    pub x: i32,
    pub y: i32,
    pub hp: i64,
    pub cap: i64,
    pub contents: Contents,
}

/// A human (spec 7). `specialty` is the spawn weapon (no effect on play, spec 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Human {
    pub id: u32,
    pub x: i32,
    pub y: i32,
    pub hp: i64,
    pub ammo: i64,
    pub weapon: u32,
    pub specialty: u32,
    pub moves: i32,
    pub idle: f64,
}

/// A zombie (spec 8). Its weapon is always Zombie Arms and its ammo 0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Zombie {
    pub id: u32,
    pub x: i32,
    pub y: i32,
    pub hp: i64,
    pub facing: u8,
    pub moves: i32,
    pub idle: f64,
    pub scent: f64,
}

/// A pending airdrop ("airstrike", spec 7.9); not hittable.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Airstrike {
    pub id: u32,
    pub x: i32,
    pub y: i32,
    pub delay: i32,
    pub contents: Contents,
}

/// One command, as the traces record them (README) and hex.md's commands table lists them. Which side sends it is
/// an argument of `Engine::apply`; `Attack` and `AttackGround` serve both sides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    /// Humans, half-turn 1 only (7.1).
    SpawnHuman { x: i32, y: i32, weapon: u32 },
    /// A human's step to an adjacent hex (7.3); for a zombie only its front hex is accepted (8.5).
    Move { unit: u32, x: i32, y: i32 },
    /// Attack an object by id (7.5, 8.5).
    Attack { unit: u32, target: u32 },
    /// Attack a hex (7.5, 8.5).
    AttackGround { unit: u32, x: i32, y: i32 },
    /// Grab a crate (7.7).
    Grab { unit: u32, krate: u32 },
    /// Give ammo to a human (7.7).
    Give { unit: u32, to: u32, amount: i64 },
    /// Throw the carried weapon into a new crate (7.7).
    ThrowWeapon { unit: u32, x: i32, y: i32 },
    /// Throw ammo into a new crate (7.7).
    ThrowAmmo { unit: u32, x: i32, y: i32, amount: i64 },
    /// Build or reinforce a wall (7.8).
    Build { unit: u32, x: i32, y: i32 },
    /// Call an airdrop (7.9); a side command.
    CallDrop { x: i32, y: i32, contents: Contents },
    /// Spawn a zombie in a zone (8.2); a side command.
    SpawnZombie { zone: u32, facing: u32 },
    /// A zombie's step to its front hex (8.5).
    Forward { unit: u32 },
    /// Turn a zombie by +1 (counter-clockwise) or −1 (8.3).
    Turn { unit: u32, direction: i32 },
    /// A zombie eats a zombie (8.6).
    Eat { unit: u32, target: u32 },
}

impl Command {
    /// The unit that gives it (`None` for the side commands: placing, spawning, airdrops).
    pub fn unit(&self) -> Option<u32> {
        match *self {
            Command::SpawnHuman { .. } | Command::CallDrop { .. } | Command::SpawnZombie { .. } => None,
            Command::Move { unit, .. }
            | Command::Attack { unit, .. }
            | Command::AttackGround { unit, .. }
            | Command::Grab { unit, .. }
            | Command::Give { unit, .. }
            | Command::ThrowWeapon { unit, .. }
            | Command::ThrowAmmo { unit, .. }
            | Command::Build { unit, .. }
            | Command::Forward { unit }
            | Command::Turn { unit, .. }
            | Command::Eat { unit, .. } => Some(unit),
        }
    }
}

/// The whole world at one moment, in the traces' terms: every row list sorted by id.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    pub t: u32,
    pub airdrops_held: f64,
    pub zombies_ready: f64,
    /// The zombie cap for `t` (spec 8.1).
    pub zombie_cap: u32,
    pub humans: Vec<Human>,
    pub zombies: Vec<Zombie>,
    pub walls: Vec<Wall>,
    pub crates: Vec<Crate>,
    pub airstrikes: Vec<Airstrike>,
}
