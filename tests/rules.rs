//! One test per rule of `docs/games/zombies.md`, each on a hand-made position.

use arena::abi::{Action, Context, Direction, Id};
use arena::bot::Bot;
use arena::games::zombies::Zombies;
use arena::games::zombies::{self, Engine, Kind, board_side};

use crate::util::{names, stay_bots};

const SIDE: u32 = 20;

fn game(entries: usize) -> Engine {
    Engine::empty(names(entries), SIDE, 1)
}

/// Bots that answer with `f` for every player of every entry.
fn bots_all(entries: usize, f: impl Fn(&Context<'_>) -> Action + Clone + 'static) -> Vec<Box<dyn Bot<Zombies>>> {
    (0..entries).map(|_| Box::new(f.clone()) as Box<dyn Bot<Zombies>>).collect()
}

/// Runs steps 4 to 7 (decide, shoot, move, scavenge) with the given bots.
fn act(g: &mut Engine, bots: &mut [Box<dyn Bot<Zombies>>]) {
    g.decide(bots);
    g.shoot();
    g.movement();
    g.scavenge();
    g.check_invariants().unwrap();
}

/// Pearson's chi-square of `counts` against `expected` for each.
fn chi_square<'a>(counts: impl IntoIterator<Item = &'a u32>, expected: f64) -> f64 {
    counts.into_iter().map(|&c| (f64::from(c) - expected).powi(2) / expected).sum()
}

fn kind_at(g: &Engine, x: u32, y: u32) -> Option<Kind> {
    g.at(x, y).map(|e| e.kind)
}

// ----- set-up ------------------------------------------------------------------------

#[test]
fn board_side_is_max_17_and_ceil_sqrt_of_players_over_density() {
    assert_eq!(board_side(1, 50), 29);
    assert_eq!(board_side(2, 50), 41);
    assert_eq!(board_side(20, 50), 130);
    assert_eq!(board_side(1000, 50), 913);
    assert_eq!(board_side(1, 1), 17, "never below the view width");
}

#[test]
fn setup_places_50_players_per_entry_with_3_bullets_on_distinct_cells() {
    let g = Engine::new(names(3), 42, zombies::Config::default());
    assert_eq!(g.side(), board_side(3, 50));
    assert_eq!(g.alive(), &[50, 50, 50]);
    assert_eq!(g.clock(), 0);
    let players: Vec<_> = g.entities().collect();
    assert_eq!(players.len(), 150);
    assert!(players.iter().all(|e| e.bullets == 3 && matches!(e.kind, Kind::Player(_))));
    g.check_invariants().unwrap();
}

// ----- step 1: spawn -----------------------------------------------------------------

#[test]
fn spawn_on_an_empty_cell_adds_a_zombie() {
    let mut g = game(1);
    let z = g.spawn_at(3, 4);
    assert!(z.is_zombie());
    assert_eq!(kind_at(&g, 3, 4), Some(Kind::Zombie));
    g.check_invariants().unwrap();
}

#[test]
fn spawn_on_a_player_turns_it_into_a_zombie_with_a_new_id_and_no_bullets() {
    let mut g = game(1);
    let p = g.place_player(0, 3, 4, 3);
    let z = g.spawn_at(3, 4);
    assert!(z.is_zombie());
    assert_ne!(z.number, p.number, "a change of kind gives a new number");
    assert!(g.entity(p).is_none(), "the old id is gone");
    let e = g.at(3, 4).unwrap();
    assert_eq!((e.kind, e.bullets), (Kind::Zombie, 0));
    assert_eq!(g.alive(), &[0]);
    g.check_invariants().unwrap();
}

#[test]
fn spawn_on_a_corpse_turns_it_into_a_zombie_and_its_bullets_are_lost() {
    let mut g = game(1);
    let b = g.place_body(3, 4, 5);
    let z = g.spawn_at(3, 4);
    assert!(z.is_zombie() && z.number != b.number);
    assert_eq!(g.at(3, 4).unwrap().bullets, 0);
    // No bullets are left to scavenge next to it.
    let p = g.place_player(0, 4, 4, 0);
    g.scavenge();
    assert_eq!(g.entity(p).unwrap().bullets, 0);
}

#[test]
fn spawn_on_a_zombie_gives_it_a_new_id() {
    let mut g = game(1);
    let z1 = g.place_zombie(3, 4);
    let z2 = g.spawn_at(3, 4);
    assert!(z2.is_zombie());
    assert_ne!(z1.number, z2.number);
    assert!(g.entity(z1).is_none());
    assert_eq!(g.entities().count(), 1, "still one entity on the cell");
}

// ----- step 2: bites -----------------------------------------------------------------

#[test]
fn bites_turn_all_eight_neighbours_but_not_farther_players() {
    let mut g = game(1);
    g.place_zombie(10, 10);
    for (dx, dy) in [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)] {
        g.place_player(0, (10 + dx) as u32, (10 + dy) as u32, 3);
    }
    let far = g.place_player(0, 12, 10, 3);
    g.bite();
    assert_eq!(g.alive(), &[1]);
    assert!(g.entity(far).is_some());
    assert!(g.entities().filter(|e| e.kind == Kind::Zombie).all(|e| e.bullets == 0));
    g.check_invariants().unwrap();
}

#[test]
fn bites_reach_across_the_wrap_edge() {
    let mut g = game(1);
    g.place_zombie(0, 0);
    g.place_player(0, SIDE - 1, SIDE - 1, 3);
    g.place_player(0, 0, SIDE - 1, 3);
    g.place_player(0, SIDE - 1, 1, 3);
    g.bite();
    assert_eq!(g.alive(), &[0]);
    assert_eq!(kind_at(&g, SIDE - 1, SIDE - 1), Some(Kind::Zombie));
}

#[test]
fn new_zombies_do_not_bite_the_same_turn() {
    let mut g = game(1);
    g.place_zombie(5, 5);
    g.place_player(0, 6, 5, 3);
    let second = g.place_player(0, 7, 5, 3);
    g.bite();
    assert_eq!(kind_at(&g, 6, 5), Some(Kind::Zombie));
    assert!(g.entity(second).is_some(), "bitten by a zombie made this step: not this turn");
    g.bite();
    assert!(g.entity(second).is_none(), "next turn it is bitten");
}

#[test]
fn a_zombie_spawned_this_turn_bites_this_turn() {
    let mut g = game(1);
    let p = g.place_player(0, 6, 5, 3);
    g.spawn_at(5, 5);
    g.bite();
    assert!(g.entity(p).is_none());
}

// ----- step 3: scoring -----------------------------------------------------------------

#[test]
fn an_entry_dead_at_clock_0_scores_0() {
    let mut g = Engine::empty(names(2), SIDE, 3);
    g.place_zombie(5, 5);
    g.place_player(0, 6, 5, 3); // bitten at clock 0, before scoring
    g.place_player(1, 15, 15, 3);
    let mut bots = stay_bots(2);
    g.turn(&mut bots);
    assert_eq!(g.scores()[0], 0);
    assert_eq!(g.alive()[0], 0);
}

#[test]
fn score_is_the_last_clock_at_which_the_entry_had_a_living_player() {
    let mut g = Engine::empty(names(2), SIDE, 3);
    let p = g.place_player(0, 2, 2, 3);
    g.place_player(1, 12, 12, 3);
    for _ in 0..4 {
        g.score();
        g.advance_clock();
    }
    // Entry 0 dies now (a spawn on it), entry 1 lives on.
    g.spawn_at(2, 2);
    assert!(g.entity(p).is_none());
    for _ in 0..3 {
        g.score();
        g.advance_clock();
    }
    assert_eq!(g.scores(), &[3, 6]);
}

#[test]
fn an_entry_that_shoots_itself_at_once_scores_0_in_a_full_game() {
    let suicidal = |ctx: &Context<'_>| Action::shoot(ctx.id);
    let entries = vec![
        arena::bot::Entry::<Zombies>::builtin("Emo", move || suicidal),
        arena::bot::Entry::builtin("Still", || |_: &Context<'_>| Action::stay()),
    ];
    let out = arena::tournament::play_game(&entries, 9, &zombies::Config::default());
    assert_eq!(out.scores[0], 0);
    assert!(out.scores[1] > 0);
}

// ----- step 4: decisions and the context ---------------------------------------------------

#[test]
fn context_view_is_indexed_x_then_y_centred_on_the_player() {
    let mut g = Engine::empty(names(1), SIDE, 5);
    let me = g.place_player(0, 0, 0, 2);
    let z = g.place_zombie(SIDE - 3, 1); // dx = -3, dy = +1 through the wrap
    let b = g.place_body(2, SIDE - 8, 0); // dx = +2, dy = -8
    let seen = std::rc::Rc::new(std::cell::Cell::new(false));
    let flag = seen.clone();
    let bot = move |ctx: &Context<'_>| {
        assert_eq!(ctx.id, me);
        assert_eq!((ctx.x, ctx.y, ctx.board_size, ctx.bullets, ctx.clock), (0, 0, SIDE, 2, 0));
        assert_eq!(ctx.view.get(8, 8), me);
        assert_eq!(ctx.view.get(8 - 3, 8 + 1), z);
        assert_eq!(ctx.look(-3, 1), Some(z));
        assert_eq!(ctx.view.get(8 + 2, 0), b);
        assert_eq!(ctx.look(0, 1), None);
        assert_eq!(ctx.name_of(me), "P0");
        assert_eq!(ctx.name_of(z), "Zombie");
        assert_eq!(ctx.name_of(b), "DeadBody");
        flag.set(true);
        Action::stay()
    };
    let mut bots: Vec<Box<dyn Bot<Zombies>>> = vec![Box::new(bot)];
    g.decide(&mut bots);
    assert!(seen.get());
}

#[test]
fn shootable_set_is_every_id_within_5_including_self_zombies_and_corpses() {
    let mut g = Engine::empty(names(2), SIDE, 5);
    let me = g.place_player(0, 10, 10, 3);
    let z = g.place_zombie(15, 5); // distance 5
    let b = g.place_body(5, 12, 0); // distance 5
    let other = g.place_player(1, 11, 11, 3);
    g.place_zombie(16, 10); // distance 6: out
    let bot = move |ctx: &Context<'_>| {
        if ctx.id == me {
            let mut ids: Vec<Id> = ctx.shootable().map(|(_, _, id)| id).collect();
            ids.sort_by_key(|i| i.number);
            assert_eq!(ids, vec![me, z, b, other]);
        }
        Action::stay()
    };
    let mut bots: Vec<Box<dyn Bot<Zombies>>> = vec![Box::new(bot), Box::new(bot)];
    g.decide(&mut bots);
}

#[test]
fn every_living_player_is_called_once_per_turn_through_one_shared_bot_per_entry() {
    let mut g = Engine::empty(names(2), SIDE, 5);
    for i in 0..5 {
        g.place_player(0, i * 2, 0, 3);
        g.place_player(1, i * 2, 10, 3);
    }
    let calls = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let log = calls.clone();
    let bot0 = move |ctx: &Context<'_>| {
        log.borrow_mut().push(ctx.id.number);
        Action::stay()
    };
    let mut bots: Vec<Box<dyn Bot<Zombies>>> = vec![Box::new(bot0), Box::new(|_: &Context<'_>| Action::stay())];
    g.decide(&mut bots);
    let mut numbers = calls.borrow().clone();
    assert_eq!(numbers.len(), 5);
    numbers.sort();
    numbers.dedup();
    assert_eq!(numbers.len(), 5, "each player once");
    assert_eq!(g.stats()[0].calls, 5);
}

#[test]
fn each_turn_an_entrys_players_are_called_in_a_uniformly_random_order() {
    // Three players of one entry who never move: over 1,200 turns each of the six orders
    // should come about 200 times.
    let mut g = Engine::empty(names(1), SIDE, 11);
    let ids = [g.place_player(0, 0, 0, 0), g.place_player(0, 5, 5, 0), g.place_player(0, 10, 10, 0)];
    let order = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let log = order.clone();
    let mut bots: Vec<Box<dyn Bot<Zombies>>> = vec![Box::new(move |ctx: &Context<'_>| {
        log.borrow_mut().push(ctx.id);
        Action::stay()
    })];
    let mut counts = std::collections::HashMap::new();
    let turns = 1200;
    for _ in 0..turns {
        order.borrow_mut().clear();
        g.decide(&mut bots);
        g.movement();
        let places: Vec<usize> = order.borrow().iter().map(|id| ids.iter().position(|i| i == id).unwrap()).collect();
        assert_eq!(places.len(), 3, "each player once a turn");
        *counts.entry(places).or_insert(0u32) += 1;
    }
    assert_eq!(counts.len(), 6, "all six orders: {counts:?}");
    // A chi-square of 5 degrees of freedom stays below 20.5 with p = 0.999.
    let chi2 = chi_square(counts.values(), 200.0);
    assert!(chi2 < 20.5, "chi2 = {chi2}, counts {counts:?}");
}

/// Two entries of five players each, and a blind zombie far from them.
fn two_entries_and_a_blind_zombie(seed: u64) -> (Engine, Id) {
    let mut g = Engine::empty(names(2), 40, seed);
    for i in 0..5 {
        g.place_player(0, i * 2, 0, 3);
        g.place_player(1, i * 2, 4, 3);
    }
    let zombie = g.spawn_at(30, 30);
    (g, zombie)
}

#[test]
fn decisions_give_each_entry_its_own_generator_of_the_turn_so_no_entry_changes_what_another_draws() {
    // Entry 0 draws nothing, then seven numbers a call: entry 1 sees the same numbers,
    // and the blind zombie (the game's generator) takes the same step.
    let seen = |draws: usize| {
        let (mut g, zombie) = two_entries_and_a_blind_zombie(9);
        let log = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let mine = log.clone();
        let bot0 = move |ctx: &Context<'_>| {
            for _ in 0..draws {
                ctx.random.next_u64();
            }
            Action::stay()
        };
        let bot1 = move |ctx: &Context<'_>| {
            mine.borrow_mut().push(ctx.random.next_u64());
            Action::stay()
        };
        let mut bots: Vec<Box<dyn Bot<Zombies>>> = vec![Box::new(bot0), Box::new(bot1)];
        act(&mut g, &mut bots);
        let zombie_at = g.entity(zombie).map(|e| (e.x, e.y));
        (log.borrow().clone(), zombie_at)
    };
    let (quiet, zombie_quiet) = seen(0);
    let (busy, zombie_busy) = seen(7);
    assert_eq!(quiet.len(), 5);
    assert_eq!(quiet, busy, "entry 0's draws changed entry 1's numbers");
    assert_eq!(zombie_quiet, zombie_busy, "entry 0's draws moved the zombie");
}

/// A bot whose calls, as far as the engine knows, are made elsewhere (a lockstep seat).
struct Elsewhere<B>(B);

impl<B: Bot<Zombies>> Bot<Zombies> for Elsewhere<B> {
    fn turn(&mut self, ctx: &Context<'_>) -> Result<Action, arena::bot::BotError> {
        self.0.turn(ctx)
    }
    fn played_elsewhere(&self) -> bool {
        true
    }
}

#[test]
fn decisions_with_a_bot_played_elsewhere_are_made_entry_by_entry_those_played_here_first_and_the_order_changes_nothing()
{
    let play = |elsewhere: bool| {
        let (mut g, _) = two_entries_and_a_blind_zombie(3);
        let order = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let bot = |entry: usize| {
            let order = order.clone();
            move |ctx: &Context<'_>| {
                order.borrow_mut().push(entry);
                Action::go(ctx.random_move())
            }
        };
        let mut bots: Vec<Box<dyn Bot<Zombies>>> = if elsewhere {
            vec![Box::new(Elsewhere(bot(0))), Box::new(bot(1))]
        } else {
            vec![Box::new(bot(0)), Box::new(bot(1))]
        };
        act(&mut g, &mut bots);
        let board: Vec<_> = g.entities().map(|e| (e.id, e.x, e.y)).collect();
        (order.borrow().clone(), board)
    };
    let (here, board_here) = play(false);
    let (there, board_there) = play(true);
    // In one process: each call in the turn's order (here the two entries interleave).
    assert_eq!(here.iter().filter(|&&e| e == 0).count(), 5);
    assert_ne!(here, [0, 0, 0, 0, 0, 1, 1, 1, 1, 1], "seed 3 interleaves the two entries");
    // With a bot played elsewhere: entry by entry, the one played here first.
    assert_eq!(there, [1, 1, 1, 1, 1, 0, 0, 0, 0, 0], "the entry played elsewhere last");
    assert_eq!(board_here, board_there, "the order of the entries changed the turn");
}

#[test]
fn an_invalid_answer_makes_the_player_stay_and_counts_an_error() {
    let mut g = game(1);
    let p = g.place_player(0, 5, 5, 3);
    let mut bots = bots_all(1, |_| Action { kind: 7, direction: 0, target: Id::EMPTY });
    act(&mut g, &mut bots);
    assert_eq!(g.entity(p).map(|e| (e.x, e.y)), Some((5, 5)));
    assert_eq!(g.stats()[0].errors, 1);
    let mut bots = bots_all(1, |_| Action { kind: Action::MOVE, direction: 9, target: Id::EMPTY });
    act(&mut g, &mut bots);
    assert_eq!(g.stats()[0].errors, 2);
}

// ----- zombies' moves --------------------------------------------------------------------

/// Where a lone zombie at (10, 10) steps with players placed at the given offsets.
fn zombie_step_with_players_at(offsets: &[(i32, i32)]) -> (i32, i32) {
    let mut g = game(1);
    let z = g.place_zombie(10, 10);
    for &(dx, dy) in offsets {
        g.place_player(0, (10 + dx) as u32, (10 + dy) as u32, 0);
    }
    let mut bots = stay_bots(1);
    g.decide(&mut bots);
    g.movement();
    let moved = g.entity(z).unwrap();
    (moved.x as i32 - 10, moved.y as i32 - 10)
}

#[test]
fn zombie_walks_toward_the_nearest_player_by_chebyshev_distance() {
    assert_eq!(zombie_step_with_players_at(&[(-3, 0), (2, 2)]), (1, 1));
    assert_eq!(zombie_step_with_players_at(&[(8, -8)]), (1, -1), "the view's corner is seen");
    assert_eq!(zombie_step_with_players_at(&[(0, 5)]), (0, 1));
}

#[test]
fn zombie_chase_ties_go_to_the_first_column_then_the_first_row() {
    // Both at distance 2: x = -2 is scanned before x = 1.
    assert_eq!(zombie_step_with_players_at(&[(1, -2), (-2, 1)]), (-1, 1));
    // Same column: y = -2 is scanned before y = 1.
    assert_eq!(zombie_step_with_players_at(&[(2, 1), (2, -2)]), (1, -1));
    // Ring edges: (-3, 3) in column -3 comes before (0, -3) and (3, -3).
    assert_eq!(zombie_step_with_players_at(&[(3, -3), (0, -3), (-3, 3)]), (-1, 1));
}

#[test]
fn zombies_ignore_other_zombies_and_corpses() {
    let mut g = game(1);
    let z = g.place_zombie(10, 10);
    g.place_zombie(11, 9); // seen by z but not chased; it steps into z's old cell
    g.place_body(9, 10, 3);
    g.place_player(0, 10, 14, 0);
    g.decide(&mut stay_bots(1));
    g.movement();
    assert_eq!(g.entity(z).map(|e| (e.x, e.y)), Some((10, 11)));
}

#[test]
fn a_blind_zombie_takes_a_uniformly_random_one_of_the_nine_moves() {
    let mut counts = std::collections::HashMap::new();
    let trials = 1800;
    for seed in 0..trials {
        let mut g = Engine::empty(names(1), SIDE, seed);
        let z = g.place_zombie(10, 10);
        g.place_player(0, 0, 0, 0); // 10 away: not seen
        g.decide(&mut stay_bots(1));
        g.movement();
        let e = g.entity(z).unwrap();
        *counts.entry((e.x as i32 - 10, e.y as i32 - 10)).or_insert(0u32) += 1;
    }
    assert_eq!(counts.len(), 9, "all nine moves, staying included: {counts:?}");
    // Expected 200 each; a chi-square of 8 degrees of freedom stays below 26.1 with p = 0.999.
    let chi2 = chi_square(counts.values(), 200.0);
    assert!(chi2 < 26.1, "chi2 = {chi2}, counts {counts:?}");
}

#[test]
fn blind_zombies_take_their_random_moves_independently_of_each_other() {
    // 400 zombies three cells apart (no two can claim one cell) and nobody to see: each
    // zombie's move against the next one's, in 5 games of one turn, fills the 81 pairs
    // evenly.
    let side = 60;
    let mut pairs = std::collections::HashMap::new();
    for seed in 0..5 {
        let mut g = Engine::empty(names(1), side, seed);
        let cells: Vec<(u32, u32)> = (0..side / 3).flat_map(|y| (0..side / 3).map(move |x| (x * 3, y * 3))).collect();
        let zombies: Vec<Id> = cells.iter().map(|&(x, y)| g.place_zombie(x, y)).collect();
        g.decide(&mut stay_bots(1));
        g.movement();
        let step = |i: usize| {
            let e = g.entity(zombies[i]).unwrap();
            let d = |a: u32, b: u32| ((a + side - b + 1) % side) as usize; // -1, 0, 1 as 0, 1, 2
            3 * d(e.y, cells[i].1) + d(e.x, cells[i].0)
        };
        for i in 0..zombies.len() - 1 {
            *pairs.entry((step(i), step(i + 1))).or_insert(0u32) += 1;
        }
    }
    let n: u32 = pairs.values().sum();
    let expected = f64::from(n) / 81.0;
    assert_eq!(pairs.len(), 81, "every pair of moves: {pairs:?}");
    // A chi-square of 80 degrees of freedom stays below 124.8 with p = 0.999.
    let chi2 = chi_square(pairs.values(), expected);
    assert!(chi2 < 124.8, "chi2 = {chi2} over {n} pairs");
}

// ----- step 5: shootings -------------------------------------------------------------------

fn shoot_at(target: Id) -> impl Fn(&Context<'_>) -> Action + Clone {
    move |_| Action::shoot(target)
}

#[test]
fn mutual_shooting_kills_both() {
    let mut g = game(2);
    let a = g.place_player(0, 5, 5, 3);
    let b = g.place_player(1, 7, 5, 3);
    let mut bots: Vec<Box<dyn Bot<Zombies>>> = vec![Box::new(shoot_at(b)), Box::new(shoot_at(a))];
    act(&mut g, &mut bots);
    assert_eq!(g.alive(), &[0, 0]);
    for (x, y) in [(5, 5), (7, 5)] {
        let e = g.at(x, y).unwrap();
        assert_eq!((e.kind, e.bullets), (Kind::DeadBody, 2), "a body keeps its bullets");
    }
    assert!(g.entity(a).is_none() && g.entity(b).is_none(), "bodies have new ids");
}

#[test]
fn a_player_may_shoot_itself() {
    let mut g = game(1);
    let p = g.place_player(0, 5, 5, 1);
    let mut bots = bots_all(1, |ctx| Action::shoot(ctx.id));
    act(&mut g, &mut bots);
    let e = g.at(5, 5).unwrap();
    assert_eq!((e.kind, e.bullets), (Kind::DeadBody, 0));
    assert!(g.entity(p).is_none());
}

#[test]
fn an_out_of_range_shot_wastes_a_bullet() {
    let mut g = game(2);
    let a = g.place_player(0, 5, 5, 3);
    let b = g.place_player(1, 11, 5, 3); // distance 6
    let mut bots: Vec<Box<dyn Bot<Zombies>>> = vec![Box::new(shoot_at(b)), Box::new(|_: &Context<'_>| Action::stay())];
    act(&mut g, &mut bots);
    assert!(g.entity(b).is_some());
    assert_eq!(g.entity(a).unwrap().bullets, 2);
}

#[test]
fn a_shot_at_an_unknown_or_retired_id_wastes_a_bullet() {
    let mut g = game(1);
    let a = g.place_player(0, 5, 5, 3);
    let z = g.place_zombie(7, 5);
    let new_z = g.spawn_at(7, 5); // z's id is retired
    let mut bots = bots_all(1, shoot_at(z));
    g.decide(&mut bots);
    g.shoot();
    assert_eq!(g.entity(a).unwrap().bullets, 2);
    assert!(g.entity(new_z).is_some());
    let mut bots = bots_all(1, shoot_at(Id { owner: 0, number: 999 }));
    g.decide(&mut bots);
    g.shoot();
    assert_eq!(g.entity(a).unwrap().bullets, 1);
}

#[test]
fn a_shot_with_no_bullets_does_nothing() {
    let mut g = game(2);
    let a = g.place_player(0, 5, 5, 0);
    let b = g.place_player(1, 6, 5, 3);
    let mut bots: Vec<Box<dyn Bot<Zombies>>> = vec![Box::new(shoot_at(b)), Box::new(|_: &Context<'_>| Action::stay())];
    act(&mut g, &mut bots);
    assert!(g.entity(b).is_some());
    assert_eq!(g.entity(a).map(|e| (e.x, e.y, e.bullets)), Some((5, 5, 0)));
    assert_eq!(g.stats()[0].errors, 0, "a shot without bullets is legal, just useless");
}

#[test]
fn a_shot_zombie_becomes_a_corpse_and_its_move_is_cancelled() {
    let mut g = game(1);
    g.place_player(0, 5, 5, 3);
    let z = g.place_zombie(8, 5); // it would step west
    let mut bots = bots_all(1, shoot_at(z));
    act(&mut g, &mut bots);
    let e = g.at(8, 5).unwrap();
    assert_eq!((e.kind, e.bullets), (Kind::DeadBody, 0));
    assert!(g.entity(z).is_none());
}

#[test]
fn a_shot_player_does_not_move_and_two_shots_at_one_target_kill_it_once() {
    let mut g = game(2);
    let target = g.place_player(1, 10, 10, 3);
    g.place_player(0, 8, 10, 3);
    g.place_player(0, 12, 10, 3);
    let mut bots: Vec<Box<dyn Bot<Zombies>>> =
        vec![Box::new(shoot_at(target)), Box::new(|_: &Context<'_>| Action::go(Direction::S))];
    act(&mut g, &mut bots);
    assert_eq!(kind_at(&g, 10, 10), Some(Kind::DeadBody));
    assert_eq!(kind_at(&g, 10, 11), None);
    assert_eq!(g.entities().filter(|e| e.kind == Kind::DeadBody).count(), 1);
}

#[test]
fn a_shot_corpse_gets_a_new_id() {
    // The original program calls die() on every marked entity, corpses included.
    let mut g = game(1);
    g.place_player(0, 5, 5, 3);
    let b = g.place_body(6, 5, 4);
    let mut bots = bots_all(1, shoot_at(b));
    g.decide(&mut bots);
    g.shoot();
    assert!(g.entity(b).is_none());
    let e = g.at(6, 5).unwrap();
    assert_eq!((e.kind, e.bullets), (Kind::DeadBody, 4));
}

// ----- step 6: movement --------------------------------------------------------------------

fn moves(plan: Vec<(Id, Direction)>) -> Vec<Box<dyn Bot<Zombies>>> {
    let bot = move |ctx: &Context<'_>| {
        let d = plan.iter().find(|(id, _)| *id == ctx.id).map_or(Direction::Stay, |(_, d)| *d);
        Action::go(d)
    };
    vec![Box::new(bot)]
}

fn pos(g: &Engine, id: Id) -> (u32, u32) {
    let e = g.entity(id).unwrap();
    (e.x, e.y)
}

#[test]
fn moves_wrap_around_the_board() {
    let mut g = game(1);
    let a = g.place_player(0, 0, 0, 3);
    act(&mut g, &mut moves(vec![(a, Direction::NW)]));
    assert_eq!(pos(&g, a), (SIDE - 1, SIDE - 1));
}

#[test]
fn two_players_moving_onto_one_cell_both_stay() {
    let mut g = game(1);
    let a = g.place_player(0, 5, 5, 3);
    let b = g.place_player(0, 7, 5, 3);
    act(&mut g, &mut moves(vec![(a, Direction::E), (b, Direction::W)]));
    assert_eq!((pos(&g, a), pos(&g, b)), ((5, 5), (7, 5)));
}

#[test]
fn three_way_conflict_sends_all_three_back() {
    let mut g = game(1);
    let a = g.place_player(0, 5, 5, 3);
    let b = g.place_player(0, 7, 5, 3);
    let c = g.place_player(0, 6, 4, 3);
    act(&mut g, &mut moves(vec![(a, Direction::E), (b, Direction::W), (c, Direction::S)]));
    assert_eq!((pos(&g, a), pos(&g, b), pos(&g, c)), ((5, 5), (7, 5), (6, 4)));
}

#[test]
fn two_players_may_swap_cells() {
    let mut g = game(1);
    let a = g.place_player(0, 5, 5, 3);
    let b = g.place_player(0, 6, 5, 3);
    act(&mut g, &mut moves(vec![(a, Direction::E), (b, Direction::W)]));
    assert_eq!((pos(&g, a), pos(&g, b)), ((6, 5), (5, 5)));
}

#[test]
fn moving_into_a_cell_whose_occupant_moves_away_succeeds() {
    let mut g = game(1);
    let a = g.place_player(0, 5, 5, 3);
    let b = g.place_player(0, 6, 5, 3);
    let c = g.place_player(0, 7, 5, 3);
    act(&mut g, &mut moves(vec![(a, Direction::E), (b, Direction::E), (c, Direction::E)]));
    assert_eq!((pos(&g, a), pos(&g, b), pos(&g, c)), ((6, 5), (7, 5), (8, 5)));
}

#[test]
fn a_blocked_chain_falls_back_link_by_link() {
    // a -> b's cell, b -> c's cell, c into a corpse: c fails, then b, then a.
    let mut g = game(1);
    let a = g.place_player(0, 5, 5, 3);
    let b = g.place_player(0, 6, 5, 3);
    let c = g.place_player(0, 7, 5, 3);
    g.place_body(8, 5, 0);
    act(&mut g, &mut moves(vec![(a, Direction::E), (b, Direction::E), (c, Direction::E)]));
    assert_eq!((pos(&g, a), pos(&g, b), pos(&g, c)), ((5, 5), (6, 5), (7, 5)));
}

#[test]
fn a_claimant_sent_back_collides_with_one_moving_into_its_old_cell() {
    // b and c both aim at (7, 6): both go back. a had aimed at b's cell (6, 5), which b
    // now keeps: a goes back too. d, moving away from everyone, gets through.
    let mut g = game(1);
    let a = g.place_player(0, 5, 5, 3);
    let b = g.place_player(0, 6, 5, 3);
    let c = g.place_player(0, 8, 5, 3);
    let d = g.place_player(0, 12, 12, 3);
    act(&mut g, &mut moves(vec![(a, Direction::E), (b, Direction::SE), (c, Direction::SW), (d, Direction::N)]));
    assert_eq!((pos(&g, a), pos(&g, b), pos(&g, c), pos(&g, d)), ((5, 5), (6, 5), (8, 5), (12, 11)));
}

#[test]
fn a_rotating_cycle_of_four_all_move() {
    let mut g = game(1);
    let a = g.place_player(0, 5, 5, 3);
    let b = g.place_player(0, 6, 5, 3);
    let c = g.place_player(0, 6, 6, 3);
    let d = g.place_player(0, 5, 6, 3);
    act(&mut g, &mut moves(vec![(a, Direction::E), (b, Direction::S), (c, Direction::W), (d, Direction::N)]));
    assert_eq!((pos(&g, a), pos(&g, b), pos(&g, c), pos(&g, d)), ((6, 5), (6, 6), (5, 6), (5, 5)));
}

#[test]
fn a_corpse_is_a_permanent_barrier() {
    let mut g = game(1);
    let a = g.place_player(0, 5, 5, 3);
    g.place_body(6, 5, 0);
    for _ in 0..3 {
        act(&mut g, &mut moves(vec![(a, Direction::E)]));
        assert_eq!(pos(&g, a), (5, 5));
    }
}

#[test]
fn a_player_and_a_zombie_claiming_one_cell_both_stay() {
    let mut g = game(1);
    let a = g.place_player(0, 5, 5, 3);
    let z = g.place_zombie(7, 5); // steps west toward a, onto (6, 5)
    act(&mut g, &mut moves(vec![(a, Direction::E)]));
    assert_eq!((pos(&g, a), pos(&g, z)), ((5, 5), (7, 5)));
}

#[test]
fn moving_onto_a_cell_whose_occupant_stays_fails() {
    let mut g = game(1);
    let a = g.place_player(0, 5, 5, 3);
    let b = g.place_player(0, 6, 5, 3);
    act(&mut g, &mut moves(vec![(a, Direction::E)]));
    assert_eq!((pos(&g, a), pos(&g, b)), ((5, 5), (6, 5)));
}

// ----- step 7: scavenging ------------------------------------------------------------------

#[test]
fn scavenging_splits_evenly_and_the_remainder_is_lost() {
    let mut g = game(1);
    let body = g.place_body(10, 10, 7);
    let ps: Vec<Id> = [(9, 9), (11, 10), (10, 11)].iter().map(|&(x, y)| g.place_player(0, x, y, 1)).collect();
    g.place_zombie(9, 10); // zombies take no share
    g.place_player(0, 12, 10, 1); // not adjacent
    g.scavenge();
    for p in ps {
        assert_eq!(g.entity(p).unwrap().bullets, 1 + 2);
    }
    assert_eq!(g.entity(body).unwrap().bullets, 0);
}

#[test]
fn scavenging_waits_until_a_player_is_adjacent() {
    let mut g = game(1);
    let body = g.place_body(10, 10, 5);
    g.scavenge();
    assert_eq!(g.entity(body).unwrap().bullets, 5);
    let p = g.place_player(0, 11, 11, 0);
    g.scavenge();
    assert_eq!(g.entity(p).unwrap().bullets, 5);
}

#[test]
fn scavenging_across_the_wrap_edge_and_from_two_bodies() {
    let mut g = game(1);
    g.place_body(0, 0, 4);
    g.place_body(SIDE - 2, 0, 3);
    let p = g.place_player(0, SIDE - 1, 0, 0);
    g.scavenge();
    assert_eq!(g.entity(p).unwrap().bullets, 7);
}

// ----- the whole turn -----------------------------------------------------------------------

#[test]
fn the_clock_advances_once_per_turn_and_the_game_ends_with_the_last_player() {
    let mut g = Engine::new(names(1), 11, zombies::Config { players_per_entry: 3, max_turns: None });
    let mut bots = stay_bots(1);
    let mut turns = 0;
    while !g.is_over() {
        g.turn(&mut bots);
        turns += 1;
        assert_eq!(g.clock(), turns);
    }
    let out = g.outcome();
    assert_eq!(out.turns, turns);
    // Scored in step 3 of the last turn in which it lived that long: the last turn, or
    // the one before if its last player died in steps 1-2 of the last turn.
    assert!(out.scores[0] == turns - 1 || out.scores[0] == turns - 2, "{} vs {turns}", out.scores[0]);
}
