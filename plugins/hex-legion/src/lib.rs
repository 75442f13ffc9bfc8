//! HexLegion: a hex humans vs zombies bot that plays **whole sides** (ABI 1.3), as the
//! 2009 clients did: one call per half-turn, commands one at a time, each answered with
//! its verdict, the side's sight read again after each. `scripts/hex/legion.lua` and
//! `scripts/hex/py-legion.py` are the same logic (a test checks that the three make the
//! same decisions), so every tie below is broken the same way.
//!
//! **Humans** (one fort, one fire plan):
//! 1. Half-turn 1: the centre is the free hex near the middle (x, y in −8..8, itself and its
//!    six neighbours without walls) with the best score 4 × (walls on the ring two steps
//!    out, counted as HexSmart does) − its distance to (0, 0), the first best in x then y
//!    order; the six humans stand around it (pistols and shotguns).
//! 2. Later half-turns, in this order: an ammo airdrop onto the centre when one is held
//!    and no human stands there; every human grabs the crates within reach (ammo; weapons
//!    only while holding the Chainsaw); a human out of ammo next to the centre throws its
//!    weapon there (and takes up the Chainsaw); a human with less than 15 ammo gets 20 from
//!    the neighbour with the most (over 40); then **focus fire**: the zombies in order of
//!    (distance to the centre, hp, id), each shot by the lowest-id human able to fire at
//!    it (in range, not on its hex, enough ammo, its weapon ready, no healing kit, no
//!    grenade next to a human) until the sight shows it dead or nobody can: no shot is
//!    wasted on a dead zombie, since each shot's effect is seen before the next; last,
//!    every human spends its moves building on the hexes next to it two steps from the
//!    centre, the weakest first (ties: the lower direction).
//!
//! **Zombies** (one horde): the sightings of humans are shared (a sighting is forgotten
//! once a zombie is within 2 of it and no human stands there); spawns go to the zone whose
//! edge is nearest the first sighting, facing it, until none can be spawned; then the
//! zombies alive at the half-turn's start act, front-liners first (by distance to their
//! nearest sighting, then id): a hurt one (hp ≤ 35) eats the healthiest other zombie on
//! its hex; one next to humans bites the weakest (so neighbours of the same human all
//! bite it); else it turns towards its nearest sighting (or follows its scent, or looks
//! around), and facing it breaks the wall in front or steps forward.

use zombies_plugin_abi::export_hex_side_bot;
use zombies_plugin_abi::hex::{
    AMMO, BOUND, DIRS, HUMANS, HexCommand, HexContext, HexSide, HexSideTurn, NO_UNIT, ZONES, distance, in_bounds,
    verdict, weapon,
};

/// The middle-out spawn order of a zone's hexes (the rules' pattern).
const SEQ: [i32; 27] =
    [13, 14, 12, 15, 11, 16, 10, 17, 9, 18, 8, 19, 7, 20, 6, 21, 5, 22, 4, 23, 3, 24, 2, 25, 1, 26, 0];

/// The facing into the board from each zone (7, 8, 9, 10).
const INWARD: [usize; 4] = [0, 4, 3, 1];

/// Hex `k` of zone `zone` (7..=10).
fn zone_hex(zone: u32, k: i32) -> (i32, i32) {
    match zone {
        7 => (-BOUND, -BOUND + k),
        8 => (-BOUND + k, BOUND),
        9 => (BOUND, BOUND - k),
        _ => (BOUND - k, -BOUND),
    }
}

fn step(p: (i32, i32), d: usize) -> (i32, i32) {
    (p.0 + DIRS[d % 6].0, p.1 + DIRS[d % 6].1)
}

fn dist(a: (i32, i32), b: (i32, i32)) -> i32 {
    distance(a.0, a.1, b.0, b.1)
}

/// The facing whose front hex is closest to `to` (`prefer` unless another is strictly
/// closer; ties among those: the lower).
fn facing_towards(from: (i32, i32), to: (i32, i32), prefer: usize) -> usize {
    let cost = |d: usize| dist(step(from, d), to);
    (0..6).fold(prefer, |best, d| if cost(d) < cost(best) { d } else { best })
}

/// The bot: one instance plays one side of one game (both, against itself).
#[derive(Debug, Default)]
pub struct HexLegion {
    /// Humans: the centre of the fort.
    centre: Option<(i32, i32)>,
    /// Zombies: where humans were seen, oldest first.
    sightings: Vec<(i32, i32)>,
    /// Zombies: each zone's spawns so far.
    zone_count: [i32; 4],
    /// Zombies: the round-robin zone while no human was seen.
    next_zone: usize,
}

/// A command that ran.
fn ran(turn: &mut HexSideTurn<'_>, unit: u32, c: HexCommand) -> bool {
    turn.command(unit, c).accepted()
}

impl HexLegion {
    fn place(&mut self, turn: &mut HexSideTurn<'_>) {
        let ctx = turn.context();
        let wall = |p: (i32, i32)| ctx.wall_at(p.0, p.1);
        let mut best: Option<((i32, i32), i32)> = None;
        for x in -8..=8 {
            for y in -8..=8 {
                let c = (x, y);
                if wall(c) || (0..6).any(|d| wall(step(c, d))) {
                    continue;
                }
                let ring =
                    (0..6).flat_map(|d| [step(step(c, d), d), step(step(c, d), d + 1)]).filter(|&p| wall(p)).count();
                let score = 4 * ring as i32 - distance(0, 0, x, y);
                if best.is_none_or(|(_, s)| score > s) {
                    best = Some((c, score));
                }
            }
        }
        let c = best.map_or((2, 2), |(c, _)| c);
        self.centre = Some(c);
        let arms = [weapon::PISTOL, weapon::SHOTGUN, weapon::PISTOL, weapon::SHOTGUN, weapon::PISTOL, weapon::PISTOL];
        for (d, w) in arms.into_iter().enumerate() {
            let p = step(c, d);
            turn.command(NO_UNIT, HexCommand::spawn_human(p.0, p.1, w));
        }
    }

    fn humans(&mut self, turn: &mut HexSideTurn<'_>) {
        let ctx = turn.context();
        if ctx.t == 1 {
            self.place(turn);
            return;
        }
        let Some(first) = ctx.humans.first() else { return };
        let c = *self.centre.get_or_insert((first.x, first.y));
        let ids: Vec<u32> = ctx.humans.iter().map(|h| h.id).collect();
        // An ammo airdrop onto the empty centre.
        if ctx.airdrops_held >= 1.0 && !ctx.humans.iter().any(|h| (h.x, h.y) == c) {
            turn.command(NO_UNIT, HexCommand::call_drop(c.0, c.1, AMMO));
        }
        // Crates within reach.
        for &id in &ids {
            let ctx = turn.context();
            let Some(h) = ctx.humans.iter().find(|h| h.id == id) else { continue };
            let grabs: Vec<u32> = ctx
                .crates
                .iter()
                .filter(|k| dist((h.x, h.y), (k.x, k.y)) <= 1 && (k.contents == AMMO || h.weapon == weapon::CHAINSAW))
                .map(|k| k.id)
                .collect();
            for k in grabs {
                if turn.command(id, HexCommand::grab(k)).code == verdict::CAP {
                    return;
                }
            }
        }
        // Out of ammo next to the centre: the Chainsaw.
        for &id in &ids {
            let ctx = turn.context();
            let Some(h) = ctx.humans.iter().find(|h| h.id == id) else { continue };
            if h.ammo <= 0 && h.weapon != weapon::CHAINSAW && dist((h.x, h.y), c) <= 1 {
                turn.command(id, HexCommand::throw_weapon(c.0, c.1));
            }
        }
        // Ammo for whoever runs low, from the neighbour with the most.
        for &id in &ids {
            let ctx = turn.context();
            let Some(h) = ctx.humans.iter().find(|h| h.id == id) else { continue };
            if h.ammo >= 15 {
                continue;
            }
            let donor = ctx
                .humans
                .iter()
                .filter(|o| o.id != id && o.ammo > 40 && dist((o.x, o.y), (h.x, h.y)) <= 1)
                .fold(None::<(i64, u32)>, |best, o| match best {
                    Some((a, _)) if a >= o.ammo => best,
                    _ => Some((o.ammo, o.id)),
                });
            if let Some((_, donor)) = donor {
                turn.command(donor, HexCommand::give(id, 20));
            }
        }
        // Focus fire.
        let ctx = turn.context();
        let mut targets: Vec<(i32, i64, u32)> = ctx.zombies.iter().map(|z| (dist((z.x, z.y), c), z.hp, z.id)).collect();
        targets.sort_unstable();
        for (_, _, target) in targets {
            let mut refused: Vec<u32> = Vec::new();
            loop {
                let ctx = turn.context();
                let Some(z) = ctx.zombies.iter().find(|z| z.id == target) else { break };
                let Some(shooter) = ctx.humans.iter().find(|h| !refused.contains(&h.id) && can_fire(ctx, h, z)) else {
                    break;
                };
                let shooter = shooter.id;
                let v = turn.command(shooter, HexCommand::attack(target));
                if v.code == verdict::CAP {
                    return;
                }
                if !v.accepted() {
                    refused.push(shooter);
                }
            }
        }
        // Walls on the ring two steps from the centre, the weakest first.
        for &id in &ids {
            loop {
                let ctx = turn.context();
                let Some(h) = ctx.humans.iter().find(|h| h.id == id) else { break };
                if h.moves < 1 {
                    break;
                }
                let here = (h.x, h.y);
                let mut best: Option<(i64, (i32, i32))> = None;
                for d in 0..6 {
                    let p = step(here, d);
                    let taken =
                        ctx.humans.iter().any(|o| (o.x, o.y) == p) || ctx.zombies.iter().any(|z| (z.x, z.y) == p);
                    if !in_bounds(p.0, p.1) || dist(c, p) != 2 || taken {
                        continue;
                    }
                    let hp: i64 = ctx.walls.iter().filter(|w| (w.x, w.y) == p).map(|w| w.hp).sum();
                    if best.is_none_or(|(b, _)| hp < b) {
                        best = Some((hp, p));
                    }
                }
                let Some((_, p)) = best else { break };
                if !ran(turn, id, HexCommand::build(p.0, p.1)) {
                    break;
                }
            }
        }
    }

    fn remember(&mut self, ctx: &HexContext<'_>) {
        // Forget sightings a zombie can see are empty now.
        self.sightings.retain(|&(x, y)| {
            let watched = ctx.zombies.iter().any(|z| distance(z.x, z.y, x, y) <= 2);
            !watched || ctx.humans.iter().any(|h| (h.x, h.y) == (x, y))
        });
        for h in ctx.humans.iter() {
            if !self.sightings.contains(&(h.x, h.y)) {
                self.sightings.push((h.x, h.y));
            }
        }
    }

    fn nearest(&self, from: (i32, i32)) -> Option<(i32, i32)> {
        self.sightings.iter().copied().min_by_key(|&p| dist(from, p))
    }

    fn zombies(&mut self, turn: &mut HexSideTurn<'_>) {
        self.remember(turn.context());
        let ctx = turn.context();
        // The zombies alive at the half-turn's start, front-liners first.
        let mut order: Vec<(i32, u32)> = ctx
            .zombies
            .iter()
            .map(|z| {
                let here = (z.x, z.y);
                (dist(here, self.nearest(here).unwrap_or((0, 0))), z.id)
            })
            .collect();
        order.sort_unstable();
        // Spawns, while the supply and the cap allow.
        while turn.context().zombies_to_spawn > 0 {
            let focus = self.sightings.first().copied();
            let k = match focus {
                Some((x, y)) => {
                    let edges = [x + BOUND, BOUND - y, BOUND - x, y + BOUND];
                    (0..4).fold(0, |best, k| if edges[k] < edges[best] { k } else { best })
                }
                None => {
                    self.next_zone += 1;
                    self.next_zone % 4
                }
            };
            let zone = ZONES[k];
            let hex = zone_hex(zone, SEQ[(self.zone_count[k] % 27) as usize]);
            let facing = facing_towards(hex, focus.unwrap_or((0, 0)), INWARD[k]);
            if !ran(turn, NO_UNIT, HexCommand::spawn_zombie(zone, facing as u32)) {
                break;
            }
            self.zone_count[k] += 1;
        }
        for (_, id) in order {
            let ctx = turn.context();
            let Some(z) = ctx.zombies.iter().find(|z| z.id == id) else { continue };
            let here = (z.x, z.y);
            // Heal on the healthiest other zombie of its hex.
            if z.hp <= 35 {
                let meal = ctx.zombies.iter().filter(|o| o.id != id && (o.x, o.y) == here).fold(
                    None::<(i64, u32)>,
                    |best, o| match best {
                        Some((hp, _)) if hp >= o.hp => best,
                        _ => Some((o.hp, o.id)),
                    },
                );
                if let Some((_, meal)) = meal {
                    turn.command(id, HexCommand::eat(meal));
                }
            }
            let ctx = turn.context();
            let Some(z) = ctx.zombies.iter().find(|z| z.id == id) else { continue };
            // Bite the weakest human within reach.
            let prey = ctx.humans.iter().filter(|h| dist(here, (h.x, h.y)) <= 1).min_by_key(|h| (h.hp, h.id));
            if let Some(h) = prey {
                let h = h.id;
                turn.command(id, HexCommand::attack(h));
                continue;
            }
            let f = z.facing as usize % 6;
            let want = match self.nearest(here) {
                Some(t) => facing_towards(here, t, f),
                None if z.scent > 0.0 => f,
                None => (f + 1) % 6,
            };
            if want != f {
                let by = if (want + 6 - f) % 6 <= 3 { 1 } else { -1 };
                turn.command(id, HexCommand::turn(by));
                continue;
            }
            let front = step(here, f);
            if let Some(w) = ctx.walls.iter().find(|w| (w.x, w.y) == front) {
                let w = w.id;
                turn.command(id, HexCommand::attack(w));
            } else if in_bounds(front.0, front.1) {
                turn.command(id, HexCommand::forward());
            } else {
                turn.command(id, HexCommand::turn(1));
            }
        }
    }
}

/// Can human `h` fire at zombie `z` now: in range and not on its hex, enough ammo, the
/// weapon ready, no healing kit, no grenade next to a human.
fn can_fire(
    ctx: &HexContext<'_>,
    h: &zombies_plugin_abi::hex::HexHuman,
    z: &zombies_plugin_abi::hex::HexZombie,
) -> bool {
    let w = h.weapon as usize;
    if w >= 7 || h.weapon == weapon::MEDICAL_KIT {
        return false;
    }
    let d = dist((h.x, h.y), (z.x, z.y));
    if d < 1 || d > weapon::RANGE[w] || h.ammo < weapon::AMMO[w] || weapon::DELAY[w] >= h.idle {
        return false;
    }
    !(h.weapon == weapon::GRENADE_LAUNCHER && ctx.humans.iter().any(|o| dist((o.x, o.y), (z.x, z.y)) <= 1))
}

impl HexSide for HexLegion {
    const NAME: &'static str = "HexLegion";

    fn new() -> Self {
        HexLegion::default()
    }

    fn play(&mut self, turn: &mut HexSideTurn<'_>) {
        if turn.context().side == HUMANS {
            self.humans(turn);
        } else {
            self.zombies(turn);
        }
    }
}

export_hex_side_bot!(HexLegion);
