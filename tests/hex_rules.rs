//! Rule tests with the spec's own worked numbers (`docs/games/hex.md`, sections 1–10), one test per rule.
//!
//! What this is: small hand-built games driven through the public API only (`Engine::new`, `apply`,
//! `end_half_turn`, read access), checking cadences, splash, spawn pattern, supply, cap, facing
//! geometry, airdrops, clocks, eating, stacking and hp caps. What it is not: the golden-trace replay
//! (see `traces.rs`).

use arena::games::hex::board::{self, DIRS};
use arena::games::hex::data::{self, CHAINSAW, FLAMETHROWER, GRENADE_LAUNCHER, MEDICAL_KIT, PISTOL, SHOTGUN};
use arena::games::hex::{Command, Contents, Engine, Side};

/// End half-turns until the game is at half-turn `t`.
fn to_turn(g: &mut Engine, t: u32) {
    while g.t() < t {
        g.end_half_turn();
        assert!(!g.is_over(), "game ended at {:?}", g.result());
    }
    assert_eq!(g.t(), t);
}

fn spawn(g: &mut Engine, x: i32, y: i32, weapon: u32) -> u32 {
    let id = g.next_id();
    assert!(g.apply(Side::Humans, &Command::SpawnHuman { x, y, weapon }), "spawn at ({x},{y})");
    id
}

fn spawn_zombie(g: &mut Engine, zone: u32, facing: u32) -> u32 {
    let id = g.next_id();
    assert!(g.apply(Side::Zombies, &Command::SpawnZombie { zone, facing }), "zombie spawn at t={}", g.t());
    id
}

/// Fire at the ground as often as the rules allow in this half-turn; the number of shots.
fn fire_all(g: &mut Engine, unit: u32, x: i32, y: i32) -> u32 {
    let mut n = 0;
    while n < 10 && g.apply(Side::Humans, &Command::AttackGround { unit, x, y }) {
        n += 1;
    }
    n
}

#[test]
fn flamethrower_cadence_1_then_3_with_a_4th_first_at_t35() {
    let mut g = Engine::new();
    // The shooter on the empty south rows, five givers around it hand over their ammo (750 in all).
    let s = spawn(&mut g, 0, -12, FLAMETHROWER);
    for (x, y) in [(1, -12), (0, -11), (-1, -11), (-1, -12), (0, -13)] {
        let h = spawn(&mut g, x, y, PISTOL);
        assert!(g.apply(Side::Humans, &Command::Give { unit: h, to: s, amount: 125 }));
    }
    assert_eq!(g.human(s).unwrap().ammo, 750);
    assert_eq!(fire_all(&mut g, s, 1, -13), 1, "turn 1: one shot (0.33 < 0.5)");
    let mut first_four = None;
    for t in (3..=35).step_by(2) {
        to_turn(&mut g, t);
        let n = fire_all(&mut g, s, 1, -13);
        if n == 4 && first_four.is_none() {
            first_four = Some(t);
        } else {
            assert_eq!(n, 3, "t = {t}");
        }
    }
    assert_eq!(first_four, Some(35));
}

#[test]
fn pistol_fires_twice_per_half_turn_from_t3() {
    let mut g = Engine::new();
    let p = spawn(&mut g, 0, -12, PISTOL);
    assert_eq!(fire_all(&mut g, p, 1, -13), 0, "turn 1: 0.5 < 0.5 fails");
    for t in (3..=41).step_by(2) {
        to_turn(&mut g, t);
        assert_eq!(fire_all(&mut g, p, 1, -13), 2, "t = {t}");
    }
}

#[test]
fn idle_time_caps_at_1_after_a_long_wait() {
    // Spec 7.4: a Pistol that waited fires once at once and is then capped: two shots in all.
    // (Unfired since t = 1, its idle on t = 23 is 0.5 + 22 · 0.5 = 11.5: 11 → capped to 1, then 0.5.)
    let mut g = Engine::new();
    let p = spawn(&mut g, 0, -12, PISTOL);
    to_turn(&mut g, 23);
    assert_eq!(g.human(p).unwrap().idle, 11.5);
    assert_eq!(fire_all(&mut g, p, 1, -13), 2);
    assert_eq!(g.human(p).unwrap().idle, 0.5);
}

#[test]
fn grenade_at_range_1_hits_its_own_thrower_for_45() {
    let mut g = Engine::new();
    let gr = spawn(&mut g, 0, -12, GRENADE_LAUNCHER);
    let other = spawn(&mut g, 1, -13, PISTOL);
    // Idle reaches 3.5 > 3 on t = 7: one shot at the neighbour's hex.
    to_turn(&mut g, 5);
    assert!(!g.apply(Side::Humans, &Command::Attack { unit: gr, target: other }));
    to_turn(&mut g, 7);
    assert!(g.apply(Side::Humans, &Command::Attack { unit: gr, target: other }));
    assert_eq!(g.human(gr).unwrap().hp, 55, "thrower: horizontal 45 only");
    assert_eq!(g.human(other).unwrap().hp, 10, "target hex: 45 + 45");
    assert_eq!(g.human(gr).unwrap().ammo, 125 - 12);
}

#[test]
fn shotgun_kill_drops_crates_that_take_the_vertical_splash() {
    let mut g = Engine::new();
    let sg = spawn(&mut g, 0, -12, SHOTGUN);
    let victim = spawn(&mut g, 2, -12, PISTOL);
    for (t, hp) in [(3, 60), (5, 20)] {
        to_turn(&mut g, t);
        assert!(g.apply(Side::Humans, &Command::Attack { unit: sg, target: victim }));
        assert_eq!(g.human(victim).unwrap().hp, hp);
    }
    to_turn(&mut g, 7);
    let ammo_crate = g.next_id();
    assert!(g.apply(Side::Humans, &Command::Attack { unit: sg, target: victim }));
    assert!(g.human(victim).is_none(), "the direct 20 kills");
    let a = g.krate(ammo_crate).expect("ammo crate");
    let w = g.krate(ammo_crate + 1).expect("weapon crate");
    assert_eq!((a.x, a.y, a.contents, a.hp, a.cap), (2, -12, Contents::Ammo, 125 - 20, 125));
    assert_eq!((w.x, w.y, w.contents, w.hp, w.cap), (2, -12, Contents::Weapon(PISTOL), 80, 100));
}

#[test]
fn zone_7_spawn_pattern_for_28_spawns() {
    let mut g = Engine::new();
    spawn(&mut g, 0, 0 - 12, PISTOL);
    let mut ys = Vec::new();
    for t in (2..=56).step_by(2) {
        to_turn(&mut g, t);
        let z = spawn_zombie(&mut g, 7, 0);
        let z = g.zombie(z).unwrap();
        assert_eq!(z.x, -13);
        ys.push(z.y);
    }
    let mut want = vec![0, 1, -1, 2, -2, 3, -3, 4, -4, 5, -5, 6, -6, 7, -7, 8, -8, 9, -9, 10, -10, 11, -11, 12, -12];
    want.extend([13, -13, 0]);
    assert_eq!(ys, want);
}

#[test]
fn zombie_supply_is_1_on_t2_to_16_and_2_on_t18_and_matches_the_closed_form() {
    let mut g = Engine::new();
    spawn(&mut g, 0, -12, PISTOL);
    for t in (2..=1000).step_by(2) {
        to_turn(&mut g, t);
        let whole = g.zombies_ready().floor() as u64;
        let k = t as u64 / 2;
        assert_eq!(whole, 1 + k * (k + 1) / 80 - (k - 1) * k / 80, "t = {t}");
        if t <= 16 {
            assert_eq!(whole, 1, "t = {t}");
        }
        if t == 18 {
            assert_eq!(whole, 2);
        }
    }
}

#[test]
fn zombie_cap_at_t_2_4_100_1000() {
    assert_eq!([2, 4, 100, 1000].map(data::zombie_cap), [20, 21, 60, 420]);
    for t in (2..=1000).step_by(2) {
        assert_eq!(data::zombie_cap(t), 20 + 4 * (t / 2) / 5, "integer form, t = {t}");
    }
    let mut g = Engine::new();
    spawn(&mut g, 0, -12, PISTOL);
    to_turn(&mut g, 2);
    assert_eq!(g.zombie_cap(), 20);
}

#[test]
fn in_front_table_matches_the_wedge_geometry_for_every_facing() {
    for f in 0..6u8 {
        let l = DIRS[(f as usize + 5) % 6];
        let r = DIRS[(f as usize + 1) % 6];
        for dx in -12..=12 {
            for dy in -12..=12 {
                let wedge = (1..=30).any(|a| (1..=30).any(|b| a * l.0 + b * r.0 == dx && a * l.1 + b * r.1 == dy));
                assert_eq!(board::in_front(3, -2, f, 3 + dx, -2 + dy), wedge, "facing {f}, ({dx},{dy})");
            }
        }
        // 2n − 1 hexes at distance n; of the neighbours only the front one.
        for n in 1..=6 {
            let count = board::disk(0, 0, n)
                .filter(|&(x, y)| board::distance(0, 0, x, y) == n && board::in_front(0, 0, f, x, y))
                .count();
            assert_eq!(count as i32, 2 * n - 1);
        }
        let front: Vec<_> = DIRS.iter().filter(|d| board::in_front(0, 0, f, d.0, d.1)).collect();
        assert_eq!(front, [&DIRS[f as usize]]);
    }
}

#[test]
fn airdrop_called_on_t19_lands_at_the_boundary_before_t23() {
    let mut g = Engine::new();
    spawn(&mut g, 0, -12, PISTOL);
    to_turn(&mut g, 17);
    assert!(!g.apply(Side::Humans, &Command::CallDrop { x: -9, y: -9, contents: Contents::Ammo }));
    to_turn(&mut g, 19);
    assert!(g.airdrops_held() >= 1.0);
    assert!(!g.apply(Side::Humans, &Command::CallDrop { x: 0, y: 0, contents: Contents::Weapon(3) }));
    let wall = g.occupants(-9, -9)[0];
    assert_eq!(g.wall(wall).unwrap().hp, 600);
    let strike = g.next_id();
    assert!(g.apply(Side::Humans, &Command::CallDrop { x: -9, y: -9, contents: Contents::Weapon(CHAINSAW) }));
    assert!(!g.apply(Side::Humans, &Command::CallDrop { x: -9, y: -9, contents: Contents::Ammo }), "one held");
    for (t, delay) in [(20, 3), (21, 2), (22, 1)] {
        to_turn(&mut g, t);
        assert_eq!(g.airstrike(strike).unwrap().delay, delay);
    }
    to_turn(&mut g, 23);
    assert!(g.airstrike(strike).is_none());
    assert_eq!(g.wall(wall).unwrap().hp, 400, "200 damage on the hex");
    let c = g.krate(strike + 1).expect("crate");
    assert_eq!((c.x, c.y, c.hp, c.contents), (-9, -9, 100, Contents::Weapon(CHAINSAW)));
}

#[test]
fn airdrop_off_the_board_leaves_no_crate_but_uses_an_id() {
    let mut g = Engine::new();
    spawn(&mut g, 0, -12, PISTOL);
    to_turn(&mut g, 19);
    let strike = g.next_id();
    assert!(g.apply(Side::Humans, &Command::CallDrop { x: 40, y: -40, contents: Contents::Ammo }));
    to_turn(&mut g, 23);
    assert_eq!(g.next_id(), strike + 2);
    assert!(g.krate(strike + 1).is_none());
}

#[test]
fn zombie_clock_running_out_sets_t_to_1000_and_humans_win() {
    let mut g = Engine::new();
    spawn(&mut g, 0, -12, PISTOL);
    to_turn(&mut g, 40);
    g.time_out(Side::Zombies);
    g.end_half_turn();
    assert_eq!(g.result(), Some((Side::Humans, 1000)));
    assert_eq!(g.t(), 1000);
    assert!(!g.apply(Side::Humans, &Command::Move { unit: 0, x: 0, y: 0 }));
}

#[test]
fn human_clock_running_out_kills_every_human_with_drops() {
    let mut g = Engine::new();
    for x in 0..4 {
        spawn(&mut g, x, -12, PISTOL);
    }
    to_turn(&mut g, 7);
    let first_drop = g.next_id();
    g.time_out(Side::Humans);
    g.end_half_turn();
    assert_eq!(g.result(), Some((Side::Zombies, 7)));
    assert_eq!(g.humans().count(), 0);
    assert_eq!(g.crates().filter(|c| c.id >= first_drop).count(), 8);
}

#[test]
fn game_ends_at_1000_with_a_human_win_and_with_no_humans_on_turn_1() {
    let mut g = Engine::new();
    spawn(&mut g, 0, -12, PISTOL);
    to_turn(&mut g, 1000);
    g.end_half_turn();
    assert_eq!(g.result(), Some((Side::Humans, 1000)));
    let mut g = Engine::new();
    g.end_half_turn();
    assert_eq!(g.result(), Some((Side::Zombies, 1)));
}

#[test]
fn eat_needs_no_move_and_drives_moves_negative() {
    let mut g = Engine::new();
    spawn(&mut g, 0, -12, PISTOL);
    to_turn(&mut g, 2);
    let z0 = spawn_zombie(&mut g, 7, 4); // (-13, 0)
    to_turn(&mut g, 4);
    let z1 = spawn_zombie(&mut g, 7, 4); // (-13, 1)
    to_turn(&mut g, 6);
    let z2 = spawn_zombie(&mut g, 7, 1); // (-13, -1), facing (0, 1): z0 is its front neighbour
    assert_eq!(g.zombie(z2).map(|z| (z.x, z.y, z.moves)), Some((-13, -1, 0)));
    assert!(!g.apply(Side::Zombies, &Command::Eat { unit: z2, target: z2 }), "not itself (deviation)");
    assert!(!g.apply(Side::Zombies, &Command::Eat { unit: z2, target: z1 }), "out of reach");
    assert!(g.apply(Side::Zombies, &Command::Eat { unit: z2, target: z0 }));
    assert!(g.zombie(z0).is_none());
    let z = *g.zombie(z2).unwrap();
    assert_eq!((z.hp, z.moves), (105, -1), "70 + 2·70 capped at 105; moves −1");
    assert!(!g.apply(Side::Zombies, &Command::Turn { unit: z2, direction: 1 }));
    assert!(!g.apply(Side::Zombies, &Command::Forward { unit: z2 }));
    to_turn(&mut g, 8);
    assert_eq!(g.zombie(z2).unwrap().moves, 1);
}

#[test]
fn zombie_attack_refused_for_lack_of_moves_still_spends_idle() {
    let mut g = Engine::new();
    let h = spawn(&mut g, -12, 0, PISTOL);
    to_turn(&mut g, 2);
    let z = spawn_zombie(&mut g, 7, 0); // (-13, 0), next to the human
    to_turn(&mut g, 4);
    assert!(g.apply(Side::Zombies, &Command::Turn { unit: z, direction: -1 }));
    assert_eq!(g.zombie(z).unwrap().facing, 5);
    let idle = g.zombie(z).unwrap().idle;
    assert!(!g.apply(Side::Zombies, &Command::Attack { unit: z, target: h }));
    assert_eq!(g.zombie(z).unwrap().idle, (idle - 1.0).min(1.0));
    assert_eq!(g.human(h).unwrap().hp, 100);
    to_turn(&mut g, 6);
    assert!(g.apply(Side::Zombies, &Command::Attack { unit: z, target: h }), "any direction");
    assert_eq!(g.human(h).unwrap().hp, 95);
}

#[test]
fn axial_distance_adjacency_and_disk_order() {
    assert_eq!(board::distance(0, 0, 1, 1), 2);
    assert_eq!(board::distance(0, 0, 1, -1), 1);
    assert_eq!(board::distance(0, 0, 2, -1), 2);
    assert_eq!(board::distance(0, 0, -3, -4), 7);
    assert_eq!(board::distance(-13, -13, 13, 13), 52);
    assert_eq!(board::distance(-13, 13, 13, -13), 26);
    for &(dx, dy) in &DIRS {
        assert!(board::adjacent(5, 5, 5 + dx, 5 + dy));
    }
    assert!(!board::adjacent(0, 0, 1, 1) && !board::adjacent(0, 0, -1, -1) && !board::adjacent(0, 0, 0, 0));
    let d: Vec<_> = board::disk(0, 0, 1).collect();
    assert_eq!(d, [(-1, 0), (-1, 1), (0, -1), (0, 0), (0, 1), (1, -1), (1, 0)]);
    for r in 0..6 {
        assert_eq!(board::disk(0, 0, r).count() as i32, 3 * r * (r + 1) + 1);
    }
    assert!(board::in_bounds(13, -13) && !board::in_bounds(14, 0) && !board::in_bounds(0, -14));
}

#[test]
fn stacking_rules_for_moves_builds_and_spawns() {
    let mut g = Engine::new();
    // Human spawn: not on a wall or a human; on a crate it is fine ((-7,-11) holds a map crate).
    assert!(!g.apply(Side::Humans, &Command::SpawnHuman { x: -9, y: -9, weapon: PISTOL }));
    let a = spawn(&mut g, -7, -11, PISTOL);
    assert!(!g.apply(Side::Humans, &Command::SpawnHuman { x: -7, y: -11, weapon: PISTOL }));
    assert!(!g.apply(Side::Humans, &Command::SpawnHuman { x: 0, y: 0 - 12, weapon: 3 }), "no Zombie Arms");
    let b = spawn(&mut g, -6, -11, PISTOL);
    let c = spawn(&mut g, -13, 1, MEDICAL_KIT); // on zone 7's second hex
    assert!(!g.apply(Side::Humans, &Command::Move { unit: a, x: -6, y: -11 }), "0 moves on turn 1");
    to_turn(&mut g, 2);
    let z = spawn_zombie(&mut g, 7, 0); // (-13, 0)
    to_turn(&mut g, 3);
    // Human moves: not onto a human, a zombie or a wall.
    assert!(!g.apply(Side::Humans, &Command::Move { unit: a, x: -6, y: -11 }));
    assert!(!g.apply(Side::Humans, &Command::Move { unit: c, x: -13, y: 0 }));
    assert!(!g.apply(Side::Humans, &Command::Move { unit: b, x: -6, y: -13 }), "not adjacent");
    // Build: not on a human or a zombie; on a crate fine; on a wall adds 7.
    assert!(!g.apply(Side::Humans, &Command::Build { unit: a, x: -6, y: -11 }));
    assert!(!g.apply(Side::Humans, &Command::Build { unit: c, x: -13, y: 0 }));
    assert!(g.apply(Side::Humans, &Command::Move { unit: a, x: -7, y: -12 }));
    let wall = g.next_id();
    assert!(g.apply(Side::Humans, &Command::Build { unit: a, x: -7, y: -11 }), "on the crate");
    assert_eq!(g.wall(wall).map(|w| (w.hp, w.cap)), Some((7, 70_000)));
    assert!(g.apply(Side::Humans, &Command::Build { unit: a, x: -7, y: -11 }));
    assert_eq!(g.wall(wall).unwrap().hp, 14);
    assert!(!g.apply(Side::Humans, &Command::Build { unit: a, x: -7, y: -11 }), "out of moves");
    // The crate under the wall can be grabbed from next to it.
    assert!(g.apply(Side::Humans, &Command::Grab { unit: b, krate: 11 }));
    assert_eq!(g.human(b).unwrap().ammo, 165);
    // Zombie spawn onto a human is allowed; they share the hex.
    to_turn(&mut g, 4);
    let z2 = spawn_zombie(&mut g, 7, 4);
    assert_eq!(g.zombie(z2).map(|z| (z.x, z.y)), Some((-13, 1)));
    assert!(g.human_at(-13, 1) && g.zombie_at(-13, 1));
    // Zombie moves: onto zombies fine, not onto a human. z faces (1,0) = (-12,0): empty.
    assert!(g.apply(Side::Zombies, &Command::Turn { unit: z, direction: 1 })); // facing (0,1): (-13,1)
    to_turn(&mut g, 6);
    assert!(!g.apply(Side::Zombies, &Command::Forward { unit: z }), "a human is there");
    to_turn(&mut g, 7);
    assert!(g.apply(Side::Humans, &Command::Move { unit: c, x: -12, y: 1 }));
    to_turn(&mut g, 8);
    assert!(g.apply(Side::Zombies, &Command::Forward { unit: z }), "onto another zombie");
    assert_eq!(g.occupants(-13, 1), [z2, z]);
}

#[test]
fn hp_caps_human_150_zombie_105_crate_its_initial_hp() {
    let mut g = Engine::new();
    let m = spawn(&mut g, 0, -12, MEDICAL_KIT);
    let p = spawn(&mut g, 1, -12, PISTOL);
    // Medical Kit: 1 every 2nd human half-turn from t = 5.
    to_turn(&mut g, 3);
    assert!(!g.apply(Side::Humans, &Command::Attack { unit: m, target: p }));
    to_turn(&mut g, 5);
    assert!(g.apply(Side::Humans, &Command::Attack { unit: m, target: p }));
    assert_eq!(g.human(p).unwrap().hp, 150);
    to_turn(&mut g, 7);
    assert!(!g.apply(Side::Humans, &Command::Attack { unit: m, target: p }));
    to_turn(&mut g, 9);
    assert!(g.apply(Side::Humans, &Command::Attack { unit: m, target: p }));
    assert_eq!(g.human(p).unwrap().hp, 150, "capped");
    // A thrown ammo crate (hp = cap = 30) is healed no further than 30; a shot lowers it.
    assert!(g.apply(Side::Humans, &Command::ThrowAmmo { unit: p, x: 1, y: -13, amount: 30 }));
    let c = g.crates().last().unwrap().id;
    assert_eq!(g.krate(c).map(|c| (c.hp, c.cap)), Some((30, 30)));
    assert!(g.apply(Side::Humans, &Command::Attack { unit: p, target: c }));
    assert_eq!(g.krate(c).unwrap().hp, 5);
    to_turn(&mut g, 13);
    assert!(g.apply(Side::Humans, &Command::Move { unit: m, x: 0, y: -13 }));
    assert!(g.apply(Side::Humans, &Command::Attack { unit: m, target: c }));
    assert_eq!(g.krate(c).unwrap().hp, 30);
    // Throwing while holding the Chainsaw is refused; a thrown weapon is a 100 hp crate.
    assert!(g.apply(Side::Humans, &Command::ThrowWeapon { unit: p, x: 1, y: -12 }));
    assert_eq!(g.human(p).unwrap().weapon, CHAINSAW);
    assert!(!g.apply(Side::Humans, &Command::ThrowAmmo { unit: p, x: 1, y: -12, amount: 1 }));
    assert!(!g.apply(Side::Humans, &Command::ThrowAmmo { unit: m, x: 0, y: -12, amount: 0 }), "deviation: q ≥ 1");
}

#[test]
fn sight_is_the_union_of_disks_and_zombies_never_see_crates() {
    let mut g = Engine::new();
    let h = spawn(&mut g, 0, -12, PISTOL);
    let seen = g.visible_cells(Side::Humans);
    for x in -13..=13 {
        for y in -13..=13 {
            let want = board::distance(0, -12, x, y) <= 8;
            assert_eq!(seen[board::cell(x, y).unwrap()], want, "({x},{y})");
            assert_eq!(g.sees(Side::Humans, x, y), want);
        }
    }
    let v = g.view(Side::Humans);
    assert_eq!(v.humans, [h]);
    assert!(v.crates.contains(&11) && v.walls.contains(&g.occupants(0, -9)[0]));
    assert!(!v.walls.contains(&12), "(-9,-9) is 9 away");
    assert!(g.crates().filter(|c| board::distance(0, -12, c.x, c.y) <= 8).all(|c| v.crates.contains(&c.id)));
    to_turn(&mut g, 2);
    spawn_zombie(&mut g, 10, 1); // (0, -13), next to the human
    let v = g.view(Side::Zombies);
    assert_eq!(v.humans, [h]);
    assert!(v.crates.is_empty() && v.airstrikes.is_empty());
}

#[test]
fn extreme_coordinates_are_rejected_or_harmless() {
    let mut g = Engine::new();
    let p = spawn(&mut g, 0, -12, PISTOL);
    assert!(!g.apply(Side::Humans, &Command::SpawnHuman { x: i32::MIN, y: i32::MAX, weapon: PISTOL }));
    assert!(!g.apply(Side::Humans, &Command::AttackGround { unit: p, x: i32::MIN, y: i32::MAX }));
    assert_eq!(board::distance(i32::MIN, i32::MIN, i32::MAX, i32::MAX), i32::MAX);
    to_turn(&mut g, 19);
    assert!(g.apply(Side::Humans, &Command::CallDrop { x: i32::MAX, y: i32::MIN, contents: Contents::Ammo }));
    assert!(g.view(Side::Humans).airstrikes.is_empty());
    to_turn(&mut g, 23);
    assert_eq!(g.airstrikes().count(), 0);
}

#[test]
fn the_weapon_ranges_bots_see_are_those_of_the_weapons_table() {
    for (id, w) in data::WEAPONS.iter().enumerate() {
        assert_eq!(w.id as usize, id, "{}: the table is in id order", w.name);
        assert_eq!(zombies_plugin_abi::hex::weapon::RANGE[id], w.range, "{}", w.name);
    }
}
