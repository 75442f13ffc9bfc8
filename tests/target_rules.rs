//! One test per rule of "Invisible target" (`docs/games/target.md`), through the public
//! API only, plus property tests: the fast eligibility against a brute-force flood fill,
//! and "every player keeps a route to the target" along random games.

use std::collections::HashSet;

use arena::games::invisible_target::engine::{
    Config, Engine, GameRng, MAX_ROUNDS, NO_WALL, Step, eligible_brute_force,
};
use proptest::prelude::*;
use rand::{RngExt, SeedableRng};

const N: u8 = 0;
const W: u8 = 1;
const STAY: u8 = 2;
const E: u8 = 3;
const S: u8 = 4;

/// `n` in release builds, a quarter of it in debug builds (the property tests and whole
/// games are slow unoptimised).
const fn scaled(n: u32) -> u32 {
    if cfg!(debug_assertions) { n.div_ceil(4) } else { n }
}

/// Position of column `x`, row `y`.
fn at(x: u16, y: u16) -> u16 {
    64 * (y % 64) + x % 64
}

/// Every cell except `open` is a wall.
fn walls_except(open: &[u16]) -> Vec<u16> {
    let open: HashSet<u16> = open.iter().copied().collect();
    (0..4096).filter(|c| !open.contains(c)).collect()
}

/// A hand-made game: one entry per player, turn order = player order.
fn game(target: u16, walls: &[u16], players: &[u16], q: f64) -> Engine {
    let players: Vec<(usize, u16)> = players.iter().copied().enumerate().collect();
    let order: Vec<usize> = (0..players.len()).collect();
    Engine::from_parts(target, walls, &players, &order, Config { q }, 7)
}

/// Torus distance along one axis.
fn axis(a: u16, b: u16) -> u16 {
    let d = a.abs_diff(b);
    d.min(64 - d)
}

fn chebyshev(a: u16, b: u16) -> u16 {
    axis(a % 64, b % 64).max(axis(a / 64, b / 64))
}

/// Cells reached from `from` through non-wall cells (the test's own flood fill).
fn reached(game: &Engine, from: u16) -> HashSet<u16> {
    let mut seen = HashSet::from([from]);
    let mut todo = vec![from];
    while let Some(c) = todo.pop() {
        let (x, y) = (c % 64, c / 64);
        for n in [at(x, y + 63), at(x + 63, y), at(x + 1, y), at(x, y + 1)] {
            if !game.is_wall(n) && seen.insert(n) {
                todo.push(n);
            }
        }
    }
    seen
}

/// Plays a random answer drawn from the game's own generator.
fn random_turn(game: &mut Engine) -> Step {
    let mv = game.rng().random_range(0..5u8);
    game.play(Some(mv))
}

/// A random move that is possible (not into a wall or a player), or stay.
fn legal_move(game: &mut Engine) -> u8 {
    let me = game.position(game.current());
    let (x, y) = (me % 64, me / 64);
    let options = [(N, at(x, y + 63)), (W, at(x + 63, y)), (E, at(x + 1, y)), (S, at(x, y + 1))];
    let free: Vec<u8> = options
        .into_iter()
        .filter(|&(_, c)| !game.is_wall(c) && (0..game.players()).all(|p| game.position(p) != c))
        .map(|(m, _)| m)
        .collect();
    if free.is_empty() { STAY } else { free[game.rng().random_range(0..free.len())] }
}

#[test]
fn move_into_a_wall_stays() {
    let mut g = game(at(40, 40), &[at(11, 10)], &[at(10, 10)], 0.0);
    let step = g.play(Some(E));
    assert!(!step.moved);
    assert_eq!((step.from, step.to, g.position(0)), (at(10, 10), at(10, 10), at(10, 10)));
}

#[test]
fn move_into_a_player_stays() {
    let mut g = game(at(40, 40), &[], &[at(10, 10), at(10, 11)], 0.0);
    assert!(!g.play(Some(S)).moved);
    assert_eq!(g.position(0), at(10, 10));
    assert!(!g.play(Some(N)).moved);
    assert_eq!(g.position(1), at(10, 11));
}

#[test]
fn move_north_off_the_top_edge_wraps() {
    let mut g = game(at(40, 40), &[], &[at(5, 0)], 0.0);
    assert!(g.play(Some(N)).moved);
    assert_eq!(g.position(0), at(5, 63));
}

#[test]
fn move_west_off_the_left_edge_wraps() {
    let mut g = game(at(40, 40), &[], &[at(0, 5)], 0.0);
    assert!(g.play(Some(W)).moved);
    assert_eq!(g.position(0), at(63, 5));
}

#[test]
fn move_east_off_the_right_edge_wraps() {
    let mut g = game(at(40, 40), &[], &[at(63, 5)], 0.0);
    assert!(g.play(Some(E)).moved);
    assert_eq!(g.position(0), at(0, 5));
}

#[test]
fn move_south_off_the_bottom_edge_wraps() {
    let mut g = game(at(40, 40), &[], &[at(5, 63)], 0.0);
    assert!(g.play(Some(S)).moved);
    assert_eq!(g.position(0), at(5, 0));
}

#[test]
fn stay_no_answer_and_invalid_answers_stay() {
    let mut g = game(at(40, 40), &[], &[at(10, 10), at(30, 30), at(50, 50), at(20, 20)], 0.0);
    for answer in [Some(STAY), None, Some(5), Some(255)] {
        let step = g.play(answer);
        assert!(!step.moved && step.from == step.to, "{answer:?}");
    }
    assert_eq!((0..4).map(|p| g.position(p)).collect::<Vec<_>>(), [at(10, 10), at(30, 30), at(50, 50), at(20, 20)]);
}

#[test]
fn moves_are_applied_at_once_one_player_at_a_time() {
    // Player 1 moves away; player 0, next in the order, can then take its old cell.
    let players = [(0, at(10, 10)), (1, at(11, 10))];
    let mut g = Engine::from_parts(at(40, 40), &[], &players, &[1, 0], Config { q: 0.0 }, 1);
    assert!(g.play(Some(E)).moved);
    assert!(g.play(Some(E)).moved);
    assert_eq!((g.position(0), g.position(1)), (at(11, 10), at(12, 10)));
}

#[test]
fn no_wall_until_every_player_has_taken_a_turn() {
    // q = 1 on an open board: exactly one wall every N turns, after turns 0, N, 2N, ...
    let mut g = Engine::new(2, 11, Config { q: 1.0 });
    let n = g.players() as u64;
    assert_eq!(n, 16);
    for turn in 0..40 * n {
        let step = random_turn(&mut g);
        assert_eq!(step.wall.is_some(), turn % n == 0, "turn {turn}");
    }
    // q < 1: never two walls within N turns.
    let mut g = Engine::new(3, 12, Config { q: 0.4 });
    let n = g.players() as u64;
    let mut last: Option<u64> = None;
    let mut walls = 0;
    for turn in 0..20_000 {
        if random_turn(&mut g).wall.is_some() {
            assert!(last.is_none_or(|l| turn - l >= n), "walls after turns {last:?} and {turn}");
            last = Some(turn);
            walls += 1;
        }
        if g.is_over() {
            break;
        }
    }
    assert!(walls > 100);
}

#[test]
fn wall_never_on_the_target() {
    // The target's four neighbours hold players who never move: the target is the only
    // cell near them; it must never be chosen even when it is among few open cells.
    let t = at(20, 20);
    let open = [t, at(20, 19), at(19, 20), at(21, 20), at(20, 21), at(21, 21)];
    let g = game(t, &walls_except(&open), &[at(20, 19), at(19, 20), at(21, 20), at(20, 21)], 1.0);
    assert_eq!(g.eligible_cells(), [at(21, 21)]);
    for seed in 0..scaled(10) as u64 {
        let mut g = Engine::new(1, seed, Config { q: 1.0 });
        while !g.is_over() {
            if let Some(c) = random_turn(&mut g).wall {
                assert_ne!(c, g.target());
            }
        }
        assert!(!g.is_wall(g.target()));
    }
}

#[test]
fn wall_never_on_a_player() {
    let g = game(at(0, 0), &[], &[at(5, 5), at(9, 9)], 1.0);
    let eligible = g.eligible_cells();
    assert_eq!(eligible.len(), 4096 - 3);
    assert!(!eligible.contains(&at(5, 5)) && !eligible.contains(&at(9, 9)));
    for seed in 0..scaled(10) as u64 {
        let mut g = Engine::new(4, seed, Config { q: 1.0 });
        while !g.is_over() {
            if let Some(c) = random_turn(&mut g).wall {
                assert!((0..g.players()).all(|p| g.position(p) != c), "wall on a player at {c}");
            }
        }
    }
}

#[test]
fn wall_never_in_a_region_cut_off_from_the_target() {
    // A closed ring of walls around (30..=32, 30..=32): its inside has no route to the target.
    let mut ring = Vec::new();
    for i in 29..=33 {
        ring.extend([at(i, 29), at(i, 33), at(29, i), at(33, i)]);
    }
    ring.sort_unstable();
    ring.dedup();
    let inside: Vec<u16> = (30..=32).flat_map(|y| (30..=32).map(move |x| at(x, y))).collect();
    let mut g = game(at(0, 0), &ring, &[at(10, 10), at(50, 50)], 1.0);
    assert!(inside.iter().all(|c| !g.eligible_cells().contains(c)));
    assert_eq!(g.eligible_cells().len(), 4096 - ring.len() - inside.len() - 3);
    while !g.is_over() {
        if let Some(c) = random_turn(&mut g).wall {
            assert!(!inside.contains(&c), "wall at {c} inside the closed ring");
        }
    }
}

#[test]
fn players_do_not_block_routes() {
    // target - P - c1 - c2 (dead end): c1 and c2 reach the target only through the player,
    // which still counts as a route, so they are eligible.
    let (t, p, c1, c2) = (at(10, 10), at(11, 10), at(12, 10), at(13, 10));
    let g = game(t, &walls_except(&[t, p, c1, c2]), &[p], 1.0);
    assert_eq!(g.eligible_cells(), [c1, c2]);
}

#[test]
fn wall_never_cuts_a_player_off() {
    // A corridor from the target (0, 10) to a player at (20, 10) who always stays, with a
    // dead-end side branch, and a 4x4 room off the corridor's start where a second player
    // moves at random (so that the game goes on while walls fill what they may).
    let t = at(0, 10);
    let corridor: Vec<u16> = (0..=20).map(|x| at(x, 10)).collect();
    let branch: Vec<u16> = (11..=15).map(|y| at(8, y)).collect();
    let room: Vec<u16> = (4..=7).flat_map(|y| (0..=3).map(move |x| at(x, y))).chain([at(0, 8), at(0, 9)]).collect();
    let open: Vec<u16> = corridor.iter().chain(&branch).chain(&room).copied().collect();
    let mut g = game(t, &walls_except(&open), &[at(20, 10), at(2, 5)], 1.0);
    g.check_invariants().unwrap();
    while !g.is_over() {
        let mv = if g.current() == 0 { STAY } else { legal_move(&mut g) };
        g.play(Some(mv));
        g.check_invariants().unwrap();
        assert!(corridor.iter().all(|&c| !g.is_wall(c)), "the corridor was cut");
    }
    // Walls may cut empty cells off (only players need a route): the branch ends up walled
    // or unreachable, since the mover kept the game going to the cap.
    let near = reached(&g, t);
    assert!(branch.iter().all(|&c| g.is_wall(c) || !near.contains(&c)), "the dead-end branch is still open");
    assert!(g.eligible_cells().is_empty());
}

#[test]
fn copies_per_entry() {
    for (entries, k) in [(1, 16), (2, 8), (3, 6), (5, 4), (15, 2), (16, 1), (17, 1), (40, 1)] {
        assert_eq!(Engine::copies(entries), k, "{entries} entries");
        let g = Engine::new(entries, 3, Config::default());
        assert_eq!(g.players(), entries * k as usize);
        for e in 0..entries {
            let copies: Vec<u32> = (0..g.players()).filter(|&p| g.entry_of(p) == e).map(|p| g.copy_of(p)).collect();
            assert_eq!(copies, (0..k).collect::<Vec<_>>(), "entry {e}");
        }
    }
}

#[test]
fn placement_keeps_players_three_apart() {
    for (seed, entries) in (0..40).zip([1, 2, 5, 16, 17, 50, 100, 163].into_iter().cycle()) {
        let g = Engine::new(entries, seed, Config::default());
        for a in 0..g.players() {
            for b in 0..a {
                let d = chebyshev(g.position(a), g.position(b));
                assert!(d >= 3, "seed {seed}: players {a} and {b} at Chebyshev distance {d}");
            }
        }
        assert_eq!(g.walls(), 0);
        g.check_invariants().unwrap();
    }
}

#[test]
fn turn_order_is_a_fixed_permutation() {
    let mut identity = 0;
    for seed in 0..20 {
        let mut g = Engine::new(4, seed, Config::default());
        let order = g.order().to_vec();
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..g.players()).collect::<Vec<_>>());
        identity += usize::from(sorted == order);
        for turn in 0..20 * order.len() {
            if g.is_over() {
                break;
            }
            assert_eq!(g.current(), order[turn % order.len()]);
            assert_eq!(random_turn(&mut g).player, order[turn % order.len()]);
        }
        assert_eq!(g.order(), order);
    }
    assert_eq!(identity, 0, "a random order of 16 players is almost never the identity");
}

#[test]
fn view_lists_the_others_in_turn_order_starting_after_the_player() {
    let players = [(0, at(1, 1)), (0, at(2, 2)), (1, at(3, 3)), (1, at(4, 4))];
    let mut g = Engine::from_parts(at(40, 40), &[], &players, &[2, 0, 3, 1], Config { q: 0.0 }, 1);
    let expected = [(2, [0, 3, 1]), (0, [3, 1, 2]), (3, [1, 2, 0]), (1, [2, 0, 3])];
    for mv in [E, W, S] {
        for (me, others) in expected {
            let v = g.view();
            assert_eq!(g.current(), me);
            assert_eq!(v.me, g.position(me));
            assert_eq!(v.others, others.map(|p| g.position(p)), "player {me}");
            assert_eq!(v.copy, [0, 1, 0, 1][me]);
            assert!(g.play(Some(mv)).moved);
        }
    }
}

#[test]
fn view_new_wall_is_the_wall_added_since_the_players_previous_turn() {
    // Model check on random games: the wall added after turns prev..turn-1, where prev is
    // this player's previous turn (or the start), else NO_WALL.
    for (seed, q) in [(1, 1.0), (2, 0.3), (3, 0.05)] {
        let mut g = Engine::new(2, seed, Config { q });
        let n = g.players() as u64;
        let mut added: Vec<(u64, u16)> = Vec::new();
        for turn in 0..3000u64 {
            if g.is_over() {
                break;
            }
            let new: Vec<u16> = added.iter().filter(|&&(t, _)| t + n >= turn).map(|&(_, c)| c).collect();
            assert!(new.len() <= 1);
            let v = g.view();
            assert_eq!(v.new_wall, new.first().copied().unwrap_or(NO_WALL), "seed {seed}, turn {turn}");
            if let Some(c) = random_turn(&mut g).wall {
                added.push((turn, c));
            }
        }
    }
}

#[test]
fn game_ends_after_a_full_round_without_a_move() {
    let players = [at(10, 10), at(20, 20), at(30, 30)];
    let mut g = game(at(40, 40), &[], &players, 0.0);
    // Round 1: only the last player moves: not over.
    assert!(!g.play(Some(STAY)).over);
    assert!(!g.play(Some(STAY)).over);
    let step = g.play(Some(E));
    assert!(step.moved && !step.over && g.round() == 1);
    // Round 2: the first player moves: three turns without a move straddle the two rounds,
    // but the check is made at the end of each round, so not over.
    assert!(!g.play(Some(E)).over);
    assert!(!g.play(None).over);
    assert!(!g.play(None).over);
    // Round 3: no move: over, exactly at the end of the round.
    assert!(!g.play(Some(STAY)).over);
    assert!(!g.play(None).over && !g.is_over());
    let last = g.play(Some(STAY));
    assert!(last.over && g.is_over() && g.round() == 3);
    // Once over, nothing happens.
    let after = g.play(Some(E));
    assert!(!after.moved && after.over && g.round() == 3 && g.position(0) == at(11, 10));
}

#[test]
fn a_blocked_move_is_no_move_for_the_end_rule() {
    let mut g = game(at(40, 40), &[at(11, 10)], &[at(10, 10), at(20, 20), at(20, 21)], 0.0);
    assert!(!g.play(Some(E)).moved);
    assert!(!g.play(Some(S)).moved);
    assert!(g.play(Some(STAY)).over);
    assert_eq!(g.round(), 1);
}

#[test]
fn game_ends_after_ten_thousand_rounds() {
    let mut g = game(at(40, 40), &[], &[at(10, 10), at(30, 30)], 0.0);
    for round in 0..MAX_ROUNDS {
        assert!(!g.is_over(), "over before round {round}");
        let mv = if round % 2 == 0 { E } else { W };
        assert!(g.play(Some(mv)).moved);
        let step = g.play(Some(STAY));
        assert_eq!(step.over, round + 1 == MAX_ROUNDS);
    }
    assert!(g.is_over());
    assert_eq!(g.round(), MAX_ROUNDS);
}

#[test]
fn joint_winners_both_score() {
    // Target (1, 1). Entry 0: (62, 1) at 3 (wrapping west) and (1, 4) at 3; entry 1: (3, 2)
    // at 3 and (10, 10) at 18; entry 2: (1, 60) at 5 (wrapping north).
    let t = at(1, 1);
    let players = [(0, at(62, 1)), (0, at(1, 4)), (1, at(3, 2)), (1, at(10, 10)), (2, at(1, 60))];
    let g = Engine::from_parts(t, &[], &players, &[0, 1, 2, 3, 4], Config { q: 0.0 }, 1);
    assert_eq!(players.map(|(_, p)| g.distance(p)), [3, 3, 3, 18, 5]);
    assert_eq!(g.points(), [2, 1, 0]);
    assert_eq!(g.best_distance(), [3, 3, 5]);
    assert_eq!(g.distance(at(33, 33)), 64);
}

#[test]
fn same_seed_same_game() {
    let run = |seed: u64| {
        let mut g = Engine::new(3, seed, Config { q: 0.2 });
        let mut log =
            vec![(g.target(), g.order().to_vec(), (0..g.players()).map(|p| g.position(p)).collect::<Vec<_>>())];
        let mut steps = Vec::new();
        while !g.is_over() && g.turn() < 20_000 {
            steps.push(random_turn(&mut g));
        }
        log.push((g.target(), g.order().to_vec(), (0..g.players()).map(|p| g.position(p)).collect()));
        (log, steps, g.points())
    };
    let a = run(99);
    assert_eq!(a, run(99));
    assert_ne!(a.0, run(100).0);
    assert!(a.1.iter().filter(|s| s.wall.is_some()).count() > 50);
}

// ---------------------------------------------------------------------------------------
// Property tests.

/// A random board: target, walls and players (players on distinct non-wall cells, the
/// target never a wall, a player may stand on the target).
#[derive(Debug, Clone)]
struct Board {
    target: u16,
    walls: Vec<u16>,
    players: Vec<u16>,
}

impl Board {
    fn from_open(open: &[bool], rng: &mut GameRng, players: usize) -> Board {
        let cells: Vec<u16> = (0..4096).filter(|&c| open[c as usize]).collect();
        let target = cells[rng.random_range(0..cells.len())];
        let mut chosen = HashSet::new();
        for _ in 0..players.min(cells.len()) {
            chosen.insert(cells[rng.random_range(0..cells.len())]);
        }
        let walls = (0..4096).filter(|&c| !open[c as usize]).collect();
        Board { target, walls, players: chosen.into_iter().collect() }
    }

    /// Walls with a uniform density.
    fn scattered(seed: u64, density: f64, players: usize) -> Board {
        let mut rng = GameRng::seed_from_u64(seed);
        let open: Vec<bool> = (0..4096).map(|_| !rng.random_bool(density)).collect();
        Board::from_open(&open, &mut rng, players)
    }

    /// A tree-like maze (random spanning tree of the even cells, passages between), with
    /// `loops` extra openings and `breaks` extra walls (which may cut players off).
    fn maze(seed: u64, loops: usize, breaks: usize, players: usize) -> Board {
        let mut rng = GameRng::seed_from_u64(seed);
        let mut open = vec![false; 4096];
        let mut stack = vec![(rng.random_range(0..32u16), rng.random_range(0..32u16))];
        open[at(2 * stack[0].0, 2 * stack[0].1) as usize] = true;
        while let Some(&(i, j)) = stack.last() {
            let fresh: Vec<(u16, u16)> = [((i + 31) % 32, j), ((i + 1) % 32, j), (i, (j + 31) % 32), (i, (j + 1) % 32)]
                .into_iter()
                .filter(|&(a, b)| !open[at(2 * a, 2 * b) as usize])
                .collect();
            if fresh.is_empty() {
                stack.pop();
                continue;
            }
            let (a, b) = fresh[rng.random_range(0..fresh.len())];
            open[at(2 * a, 2 * b) as usize] = true;
            // The passage between (2i, 2j) and (2a, 2b), across the torus edge if need be.
            let mid = if i == a {
                at(2 * i, if (j + 1) % 32 == b { 2 * j + 1 } else { 2 * b + 1 })
            } else {
                at(if (i + 1) % 32 == a { 2 * i + 1 } else { 2 * a + 1 }, 2 * j)
            };
            open[mid as usize] = true;
            stack.push((a, b));
        }
        for _ in 0..loops {
            open[rng.random_range(0..4096usize)] = true;
        }
        for _ in 0..breaks {
            open[rng.random_range(0..4096usize)] = false;
        }
        Board::from_open(&open, &mut rng, players)
    }

    /// One thin corridor: a random walk from a random cell, everything else walls.
    fn corridor(seed: u64, length: usize, players: usize) -> Board {
        let mut rng = GameRng::seed_from_u64(seed);
        let mut open = vec![false; 4096];
        let mut c = rng.random_range(0..4096u16);
        open[c as usize] = true;
        for _ in 0..length {
            let (x, y) = (c % 64, c / 64);
            c = [at(x, y + 63), at(x + 63, y), at(x + 1, y), at(x, y + 1)][rng.random_range(0..4usize)];
            open[c as usize] = true;
        }
        Board::from_open(&open, &mut rng, players)
    }

    fn game(&self, q: f64) -> Engine {
        game(self.target, &self.walls, &self.players, q)
    }
}

fn boards() -> impl Strategy<Value = Board> {
    prop_oneof![
        (any::<u64>(), 0.0..0.75f64, 1..24usize).prop_map(|(s, d, p)| Board::scattered(s, d, p)),
        (any::<u64>(), 0..300usize, 0..3usize, 1..16usize).prop_map(|(s, l, b, p)| Board::maze(s, l, b, p)),
        (any::<u64>(), 1..600usize, 1..8usize).prop_map(|(s, l, p)| Board::corridor(s, l, p)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(scaled(96)))]

    #[test]
    fn fast_eligibility_equals_brute_force(board in boards()) {
        let g = board.game(1.0);
        let fast = g.eligible_cells();
        let slow = eligible_brute_force(board.target, &board.walls, &board.players);
        prop_assert_eq!(&fast, &slow);
        // And the test's own reading of the rule, on a few cells.
        let near = reached(&g, board.target);
        for &c in fast.iter().take(5) {
            prop_assert!(near.contains(&c) && c != board.target && !board.players.contains(&c));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(scaled(24)))]

    #[test]
    fn every_player_keeps_a_route_to_the_target(
        seed in any::<u64>(),
        entries in 1..24usize,
        q in prop_oneof![Just(1.0), 0.05..1.0f64],
        maze_seed in any::<u64>(),
    ) {
        let mut g = Engine::new(entries, seed, Config { q });
        for _ in 0..3000 {
            if g.is_over() {
                break;
            }
            random_turn(&mut g);
            prop_assert_eq!(g.check_invariants(), Ok(()));
        }
        // The same on a tree-like maze whose players all start connected to the target.
        let board = Board::maze(maze_seed, 20, 0, 8);
        let mut g = board.game(q);
        prop_assert_eq!(g.check_invariants(), Ok(()));
        while !g.is_over() && g.turn() < 20_000 {
            random_turn(&mut g);
            prop_assert_eq!(g.check_invariants(), Ok(()));
        }
    }
}
