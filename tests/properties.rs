//! Property tests of the engine's invariants over random games.

use arena::games::zombies::Zombies;
use std::collections::HashMap;

use arena::abi::{Action, Context, Direction, Id};
use arena::bot::Bot;
use arena::games::zombies::{self, Engine, Kind};
use proptest::prelude::*;

use crate::util::{names, random_bot, untimed};

fn random_bots(n: usize) -> Vec<Box<dyn Bot<Zombies>>> {
    (0..n).map(|_| Box::new(random_bot()) as Box<dyn Bot<Zombies>>).collect()
}

/// Everything observable of a game's position, to compare two games.
fn fingerprint(g: &Engine) -> Vec<(u32, u32, u32, u32, u32)> {
    g.entities().map(|e| (e.x, e.y, e.id.owner, e.id.number, e.bullets)).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    /// After every turn: one entity per cell, every id unique and where the engine
    /// thinks it is, margin copies in step, living counts right.
    #[test]
    fn never_two_entities_on_a_cell_and_ids_unique(seed in any::<u64>(), entries in 1usize..5, players in 5u32..40) {
        let config = zombies::Config { players_per_entry: players, max_turns: None };
        let mut g = Engine::new(names(entries), seed, config);
        let mut bots = random_bots(entries);
        g.check_invariants().map_err(TestCaseError::fail)?;
        while !g.is_over() && g.clock() < 300 {
            g.turn(&mut bots);
            g.check_invariants().map_err(|e| TestCaseError::fail(format!("turn {}: {e}", g.clock())))?;
        }
    }

    /// The same seed gives the same game, turn for turn.
    #[test]
    fn same_seed_same_game(seed in any::<u64>(), entries in 1usize..4) {
        let config = zombies::Config { players_per_entry: 20, max_turns: None };
        let mut a = Engine::new(names(entries), seed, config);
        let mut b = Engine::new(names(entries), seed, config);
        let (mut ba, mut bb) = (random_bots(entries), random_bots(entries));
        prop_assert_eq!(fingerprint(&a), fingerprint(&b));
        while !a.is_over() && a.clock() < 400 {
            a.turn(&mut ba);
            b.turn(&mut bb);
            prop_assert_eq!(fingerprint(&a), fingerprint(&b));
        }
        prop_assert_eq!(untimed(a.outcome()), untimed(b.outcome()));
    }
}

/// The spec's movement, written plainly: every entity claims its target (one that
/// stays, its own cell); while some cell is claimed twice, every mover aimed at such a
/// cell goes back. Returns where each id ends.
fn movement_reference(start: &HashMap<Id, (u32, u32)>, targets: &HashMap<Id, (u32, u32)>) -> HashMap<Id, (u32, u32)> {
    let mut aim: HashMap<Id, (u32, u32)> =
        start.iter().map(|(id, &at)| (*id, targets.get(id).copied().unwrap_or(at))).collect();
    loop {
        let mut claims: HashMap<(u32, u32), u32> = HashMap::new();
        for &cell in aim.values() {
            *claims.entry(cell).or_default() += 1;
        }
        let back: Vec<Id> =
            aim.iter().filter(|(id, cell)| claims[*cell] >= 2 && start[*id] != **cell).map(|(id, _)| *id).collect();
        if back.is_empty() {
            return aim;
        }
        for id in back {
            aim.insert(id, start[&id]);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    /// The movement step ends where the plain reading of the spec does, on crowded
    /// small boards where conflicts chain, swap and cycle (players move at random,
    /// dead bodies block).
    #[test]
    fn movement_matches_the_plain_spec(seed in any::<u64>(), side in 17u32..24, crowd in 40usize..200) {
        let mut g = Engine::empty(names(1), side, seed);
        let mut rng = seed | 1;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        for i in 0..crowd {
            let (x, y) = ((next() % u64::from(side)) as u32, (next() % u64::from(side)) as u32);
            if g.at(x, y).is_none() {
                if i % 5 == 0 { g.place_body(x, y, 0); } else { g.place_player(0, x, y, 0); }
            }
        }
        let start: HashMap<Id, (u32, u32)> = g.entities().map(|e| (e.id, (e.x, e.y))).collect();
        let chosen = std::rc::Rc::new(std::cell::RefCell::new(HashMap::new()));
        let record = chosen.clone();
        let bot = move |ctx: &Context<'_>| {
            let d = Direction::ALL[(ctx.random.next_u64() % 9) as usize];
            record.borrow_mut().insert(ctx.id, d);
            Action::go(d)
        };
        let mut bots: Vec<Box<dyn Bot<Zombies>>> = vec![Box::new(bot)];
        g.decide(&mut bots);
        g.movement();
        g.check_invariants().map_err(TestCaseError::fail)?;
        let targets: HashMap<Id, (u32, u32)> = chosen
            .borrow()
            .iter()
            .map(|(id, d)| {
                let (dx, dy) = d.delta();
                let (x, y) = start[id];
                (*id, ((x as i32 + dx).rem_euclid(side as i32) as u32, (y as i32 + dy).rem_euclid(side as i32) as u32))
            })
            .collect();
        let expected = movement_reference(&start, &targets);
        for e in g.entities() {
            prop_assert_eq!(Some(&(e.x, e.y)), expected.get(&e.id), "{:?} ({:?})", e.id, e.kind);
            prop_assert!(e.kind != Kind::DeadBody || start[&e.id] == (e.x, e.y));
        }
    }
}

#[test]
fn different_seeds_give_different_games() {
    let config = zombies::Config { players_per_entry: 20, max_turns: None };
    let a = Engine::new(names(2), 1, config);
    let b = Engine::new(names(2), 2, config);
    assert_ne!(fingerprint(&a), fingerprint(&b));
}

/// The spec's zombie scan, cell by cell: the first living player met at the least
/// Chebyshev distance, scanning columns x = -8..8 and rows y = -8..8 in each.
fn scan_reference(g: &Engine, x: u32, y: u32) -> Option<(i32, i32)> {
    let mut best: Option<(i32, i32, i32)> = None;
    for dx in -8..=8i32 {
        for dy in -8..=8i32 {
            let id = g.board().get_offset(x, y, dx, dy);
            let d = dx.abs().max(dy.abs());
            if id.is_player() && best.is_none_or(|(bd, _, _)| d < bd) {
                best = Some((d, dx, dy));
            }
        }
    }
    best.map(|(_, dx, dy)| (dx, dy))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

    /// The bitmap search finds the same player as the spec's cell-by-cell scan, and the
    /// blind test says whether it finds one, from every cell of random boards (sparse
    /// and crowded, small boards that wrap).
    #[test]
    fn zombie_target_search_matches_the_spec_scan(seed in any::<u64>(), side in 17u32..70, players in 0usize..120) {
        let mut g = Engine::empty(names(2), side, seed);
        let mut rng = seed;
        for i in 0..players {
            rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let (x, y) = ((rng >> 33) as u32 % side, (rng >> 13) as u32 % side);
            if g.at(x, y).is_none() {
                match i % 4 {
                    0 => { g.place_zombie(x, y); }
                    1 => { g.place_body(x, y, 0); }
                    _ => { g.place_player((i % 2) as u32, x, y, 3); }
                }
            }
        }
        g.check_invariants().map_err(TestCaseError::fail)?;
        let mut columns = Vec::new();
        g.board().view_columns(&mut columns);
        for x in 0..side {
            for y in 0..side {
                let expected = scan_reference(&g, x, y);
                prop_assert_eq!(arena::games::zombies::engine::nearest_player(g.board(), x, y), expected, "at ({}, {})", x, y);
                // The one-read blind test agrees: a view holds a player iff the scan finds one.
                prop_assert_eq!(g.board().sees_player(&columns, x, y), expected.is_some(), "sees at ({}, {})", x, y);
            }
        }
    }
}
