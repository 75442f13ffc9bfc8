//! HexSmart: a hex humans vs zombies bot that plays both sides sensibly.
//!
//! - **Humans** pick a centre hex near the middle whose six neighbours are free, stand on
//!   those six (four pistols, two shotguns) and wall themselves in: every half-turn each
//!   spends its three moves building on the weakest hexes of the ring two steps from the
//!   centre (map walls there are kept and reinforced). Walls do not stop shots, so they
//!   shoot what comes, weakest first, with as many shots as a kill needs. Airdrops of ammo
//!   land on the empty centre, where everyone can reach them; ammo is shared with
//!   neighbours that run low, and a human out of ammo takes up the chainsaw.
//! - **Zombies** remember every human any of them has seen and steer towards the nearest
//!   (turning to the best facing, then stepping), bite humans next to them, break the walls
//!   in their way, follow their scent when no human was seen, and eat a zombie on their
//!   own hex to heal when hurt. They spawn in the zone closest to the humans, facing them.

use zombies_plugin_abi::export_hex_bot;
use zombies_plugin_abi::hex::{
    AMMO, BOUND, CALL_SPAWN_HUMANS, CALL_SPAWN_ZOMBIES, DIRS, HUMANS, HexAnswer, HexCommand, HexContext, HexPlayer,
    MAX_COMMANDS, ZONES, distance, in_bounds, weapon,
};

/// The middle-out spawn order of a zone's hexes (the rules' pattern).
const SEQ: [i32; 27] =
    [13, 14, 12, 15, 11, 16, 10, 17, 9, 18, 8, 19, 7, 20, 6, 21, 5, 22, 4, 23, 3, 24, 2, 25, 1, 26, 0];

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

/// The facing whose front hex is closest to `to` (ties: the lower, or `prefer`).
fn facing_towards(from: (i32, i32), to: (i32, i32), prefer: usize) -> usize {
    let cost = |d: usize| {
        let f = step(from, d);
        distance(f.0, f.1, to.0, to.1)
    };
    (0..6).fold(prefer, |best, d| if cost(d) < cost(best) { d } else { best })
}

/// The bot: one instance plays one side of one game.
#[derive(Debug, Default)]
pub struct HexSmart {
    /// Humans: the centre of the fort.
    centre: Option<(i32, i32)>,
    /// Zombies: where humans were last seen, and each zone's spawn count.
    sightings: Vec<(i32, i32)>,
    zone_count: [i32; 4],
    next_zone: usize,
}

impl HexSmart {
    fn place_humans(&mut self, ctx: &HexContext<'_>, answer: &mut HexAnswer) {
        let wall = |p: (i32, i32)| ctx.wall_at(p.0, p.1);
        let mut best: Option<((i32, i32), i32)> = None;
        for x in -8..=8 {
            for y in -8..=8 {
                let c = (x, y);
                if wall(c) || (0..6).any(|d| wall(step(c, d))) {
                    continue;
                }
                // Walls already on the ring two steps out are a head start.
                let ring: i32 =
                    (0..6).flat_map(|d| [step(step(c, d), d), step(step(c, d), d + 1)]).filter(|&p| wall(p)).count()
                        as i32;
                let score = 4 * ring - distance(0, 0, x, y);
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
            answer.push(HexCommand::spawn_human(p.0, p.1, w));
        }
    }

    fn human(&mut self, ctx: &HexContext<'_>, answer: &mut HexAnswer) {
        let Some(me) = ctx.me_human() else { return };
        let c = *self.centre.get_or_insert((me.x, me.y));
        let here = (me.x, me.y);
        // Airdrops of ammo onto the empty centre.
        if ctx.airdrops_held >= 1.0 && here != c {
            answer.push(HexCommand::call_drop(c.0, c.1, AMMO));
        }
        // Ammo crates within reach.
        for k in ctx.crates.iter() {
            // At most 8 grabs, so that builds and shots keep room under the command cap.
            if answer.commands().len() < 8
                && distance(me.x, me.y, k.x, k.y) <= 1
                && (k.contents == AMMO || me.weapon == weapon::CHAINSAW)
            {
                answer.push(HexCommand::grab(k.id));
            }
        }
        // Share ammo with a neighbour running low.
        let low = ctx.humans.iter().find(|h| h.id != me.id && h.ammo < 15 && distance(me.x, me.y, h.x, h.y) <= 1);
        if let Some(h) = low.filter(|_| me.ammo > 80) {
            answer.push(HexCommand::give(h.id, 30));
        }
        // Out of ammo: the chainsaw (the weapon goes into a crate on the centre).
        if me.ammo <= 0 && me.weapon != weapon::CHAINSAW && distance(me.x, me.y, c.0, c.1) <= 1 {
            answer.push(HexCommand::throw_weapon(c.0, c.1));
        }
        // Builds: the weakest hexes of the ring two steps out next to me.
        let mut ring: Vec<((i32, i32), i64)> = (0..6)
            .map(|d| step(here, d))
            .filter(|&p| in_bounds(p.0, p.1) && distance(c.0, c.1, p.0, p.1) == 2)
            .filter(|&p| !ctx.humans.iter().any(|h| (h.x, h.y) == p) && !ctx.zombies.iter().any(|z| (z.x, z.y) == p))
            .map(|p| (p, ctx.walls.iter().filter(|w| (w.x, w.y) == p).map(|w| w.hp).sum()))
            .collect();
        for _ in 0..me.moves.max(0) {
            ring.sort_by_key(|&(_, hp)| hp);
            if let Some(first) = ring.first_mut() {
                answer.push(HexCommand::build(first.0.0, first.0.1));
                first.1 += 7;
            }
        }
        // Shots: the weakest zombies in range, as many shots as a kill needs.
        let w = me.weapon as usize;
        let range = weapon::RANGE.get(w).copied().unwrap_or(1);
        let damage = match me.weapon {
            weapon::SHOTGUN => 40,
            weapon::PISTOL => 25,
            weapon::CHAINSAW => 60,
            weapon::FLAMETHROWER => 25,
            _ => 45,
        };
        let mut targets: Vec<(i64, i32, u32)> = ctx
            .zombies
            .iter()
            .map(|z| (z.hp, distance(me.x, me.y, z.x, z.y), z.id))
            .filter(|&(_, d, _)| d <= range && d > 0)
            .collect();
        targets.sort();
        for (hp, _, id) in targets {
            for _ in 0..(hp + damage - 1) / damage {
                // The command cap: 16 a call (a 17th would be refused and count an error).
                if answer.commands().len() >= MAX_COMMANDS {
                    return;
                }
                answer.push(HexCommand::attack(id));
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

    fn nearest_sighting(&self, from: (i32, i32)) -> Option<(i32, i32)> {
        self.sightings.iter().copied().min_by_key(|&(x, y)| distance(from.0, from.1, x, y))
    }

    fn spawn_zombies(&mut self, ctx: &HexContext<'_>, answer: &mut HexAnswer) {
        self.remember(ctx);
        for _ in 0..ctx.zombies_to_spawn.min(16) {
            let target = self.sightings.first().copied();
            let k = match target {
                // The zone whose edge is closest to the humans.
                Some((x, y)) => [x + BOUND, BOUND - y, BOUND - x, y + BOUND]
                    .iter()
                    .enumerate()
                    .min_by_key(|&(_, d)| *d)
                    .map_or(0, |(k, _)| k),
                None => {
                    self.next_zone += 1;
                    self.next_zone % 4
                }
            };
            let zone = ZONES[k];
            let hex = zone_hex(zone, SEQ[(self.zone_count[k] % 27) as usize]);
            self.zone_count[k] += 1;
            let facing = facing_towards(hex, target.unwrap_or((0, 0)), [0, 4, 3, 1][k]);
            answer.push(HexCommand::spawn_zombie(zone, facing as u32));
        }
    }

    fn zombie(&mut self, ctx: &HexContext<'_>, answer: &mut HexAnswer) {
        self.remember(ctx);
        let Some(me) = ctx.me_zombie() else { return };
        let here = (me.x, me.y);
        // Heal by eating a zombie on the same hex when hurt.
        let meal = ctx.zombies.iter().filter(|o| o.id != me.id && (o.x, o.y) == here).max_by_key(|o| o.hp);
        if let Some(o) = meal.filter(|_| me.hp <= 35) {
            answer.push(HexCommand::eat(o.id));
        }
        // Bite the weakest human within reach.
        if let Some(h) = ctx.humans.iter().filter(|h| distance(me.x, me.y, h.x, h.y) <= 1).min_by_key(|h| h.hp) {
            answer.push(HexCommand::attack(h.id));
            return;
        }
        let f = me.facing as usize % 6;
        let want = match self.nearest_sighting(here) {
            Some(t) => facing_towards(here, t, f),
            // No human seen: trust the scent, else look around.
            None if me.scent > 0.0 => f,
            None => (f + 1) % 6,
        };
        if want != f {
            let by = if (want + 6 - f) % 6 <= 3 { 1 } else { -1 };
            answer.push(HexCommand::turn(by));
            return;
        }
        let front = step(here, f);
        if let Some(w) = ctx.walls.iter().find(|w| (w.x, w.y) == front) {
            answer.push(HexCommand::attack(w.id));
        } else if in_bounds(front.0, front.1) {
            answer.push(HexCommand::forward());
        } else {
            answer.push(HexCommand::turn(1));
        }
    }
}

impl HexPlayer for HexSmart {
    const NAME: &'static str = "HexSmart";

    fn new() -> Self {
        HexSmart::default()
    }

    fn turn(&mut self, ctx: &HexContext<'_>, answer: &mut HexAnswer) {
        match ctx.call {
            CALL_SPAWN_HUMANS => self.place_humans(ctx, answer),
            CALL_SPAWN_ZOMBIES => self.spawn_zombies(ctx, answer),
            _ if ctx.side == HUMANS => self.human(ctx, answer),
            _ => self.zombie(ctx, answer),
        }
    }
}

export_hex_bot!(HexSmart);
