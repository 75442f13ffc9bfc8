//! One test per rule of `docs/games/eggs.md`, through the public API only, then
//! property tests over random games.

use arena::games::eggs::engine::{Act, Answer, Cell, Engine, Event, GameRng, Reason, parse_answer};
use proptest::prelude::*;
use rand::{RngExt, SeedableRng};

const A: Act = Act::Attack;
const C: Act = Act::Counter;
const N: Act = Act::Nothing;

fn ans(dir: u8, act: Act) -> Answer {
    Answer { dir, act }
}

/// A 7x7 walled board with one egg far in the south-east corner, so that the game is not over.
const OPEN: [&str; 7] = ["#######", "#     #", "#     #", "#     #", "#     #", "#    o#", "#######"];

fn open(players: &[(u32, u32)]) -> Engine {
    Engine::from_rows(&OPEN, players, 100)
}

fn turn(game: &mut Engine, answers: &[Answer]) {
    game.play_turn(answers);
    game.check_invariants().unwrap();
}

/// Player 0 at (1,1) moves E with `a`, player 1 at (3,1) moves W with `b`: both land on (2,1).
fn two_way_fight(a: Act, b: Act) -> Engine {
    let mut game = open(&[(1, 1), (3, 1)]);
    turn(&mut game, &[ans(4, a), ans(8, b)]);
    game
}

/// The fight's outcome both ways round (the lower-numbered player as either side):
/// where the player with `winner_act` and the one with `loser_act` end up.
fn check_win(winner_act: Act, loser_act: Act) {
    let game = two_way_fight(winner_act, loser_act);
    assert_eq!(game.players(), &[(2, 1), (3, 1)]);
    assert!(game.last_events().contains(&Event::Fight {
        at: (2, 1),
        players: [0, 1],
        acts: [winner_act, loser_act],
        winner: Some(0)
    }));
    let game = two_way_fight(loser_act, winner_act);
    assert_eq!(game.players(), &[(1, 1), (2, 1)]);
    assert!(game.last_events().contains(&Event::Fight {
        at: (2, 1),
        players: [0, 1],
        acts: [loser_act, winner_act],
        winner: Some(1)
    }));
}

fn check_tie(act: Act) {
    let game = two_way_fight(act, act);
    assert_eq!(game.players(), &[(1, 1), (3, 1)]);
    assert!(game.last_events().contains(&Event::Fight { at: (2, 1), players: [0, 1], acts: [act, act], winner: None }));
}

/// An independent flood fill: are all non-wall cells 8-connected?
fn all_open_cells_connected(game: &Engine) -> bool {
    let side = game.side() as i64;
    let open = |x: i64, y: i64| {
        (0..side).contains(&x) && (0..side).contains(&y) && game.cell(x as u32, y as u32) != Cell::Wall
    };
    let cells: Vec<(i64, i64)> =
        (0..side).flat_map(|y| (0..side).map(move |x| (x, y))).filter(|&(x, y)| open(x, y)).collect();
    let mut seen = std::collections::HashSet::from([cells[0]]);
    let mut todo = vec![cells[0]];
    while let Some((x, y)) = todo.pop() {
        for dy in -1..=1 {
            for dx in -1..=1 {
                if open(x + dx, y + dy) && seen.insert((x + dx, y + dy)) {
                    todo.push((x + dx, y + dy));
                }
            }
        }
    }
    seen.len() == cells.len()
}

fn generated_games() -> impl Iterator<Item = (usize, Engine)> {
    [1, 2, 7, 8, 13, 50]
        .into_iter()
        .flat_map(|entries| (0..20).map(move |seed| (entries, Engine::new(entries, seed).unwrap())))
}

// ---------------------------------------------------------------- generation

#[test]
fn generation_board_side_is_3n_with_n_at_least_7() {
    for (entries, side, turns) in [(1, 21, 175), (2, 21, 175), (7, 21, 175), (8, 24, 200), (50, 150, 1250)] {
        let game = Engine::new(entries, 1).unwrap();
        assert_eq!((game.side(), game.max_turns()), (side, turns), "{entries} entries");
        assert_eq!(game.players().len(), entries);
        assert_eq!(game.scores(), vec![0; entries].as_slice());
        assert_eq!(game.turn(), 0);
    }
}

#[test]
fn generation_border_is_walls() {
    for (_, game) in generated_games() {
        let s = game.side();
        for i in 0..s {
            for (x, y) in [(i, 0), (i, s - 1), (0, i), (s - 1, i)] {
                assert_eq!(game.cell(x, y), Cell::Wall);
            }
        }
    }
}

#[test]
fn generation_places_3n_straight_walls_of_length_2_to_10_inside_the_interior() {
    for (entries, game) in generated_games() {
        let n = entries.max(7) as u32;
        let s = game.side();
        assert_eq!(game.walls().len() as u32, 3 * n);
        let mut covered = vec![false; (s * s) as usize];
        for w in game.walls() {
            assert!((2..=10).contains(&w.len), "{w:?}");
            for k in 0..w.len {
                let (x, y) = if w.horizontal { (w.x + k, w.y) } else { (w.x, w.y + k) };
                assert!((1..s - 1).contains(&x) && (1..s - 1).contains(&y), "{w:?} leaves the interior");
                assert_eq!(game.cell(x, y), Cell::Wall);
                covered[(y * s + x) as usize] = true;
            }
        }
        // Every interior wall cell belongs to one of the drawn walls (walls may overlap).
        for y in 1..s - 1 {
            for x in 1..s - 1 {
                if game.cell(x, y) == Cell::Wall {
                    assert!(covered[(y * s + x) as usize], "stray wall at ({x}, {y})");
                }
            }
        }
    }
}

#[test]
fn generation_places_4n_eggs_on_empty_cells_only() {
    for (entries, game) in generated_games() {
        let n = entries.max(7) as u32;
        let s = game.side();
        let eggs: Vec<(u32, u32)> =
            (0..s).flat_map(|y| (0..s).map(move |x| (x, y))).filter(|&(x, y)| game.cell(x, y) == Cell::Egg).collect();
        assert_eq!(eggs.len() as u32, 4 * n);
        assert_eq!((game.eggs_left(), game.eggs_placed()), (4 * n, 4 * n));
        for &(ex, ey) in &eggs {
            let on_a_wall = game.walls().iter().any(|w| {
                if w.horizontal {
                    ey == w.y && (w.x..w.x + w.len).contains(&ex)
                } else {
                    ex == w.x && (w.y..w.y + w.len).contains(&ey)
                }
            });
            assert!(
                !on_a_wall && (1..s - 1).contains(&ex) && (1..s - 1).contains(&ey),
                "egg on a wall at ({ex}, {ey})"
            );
        }
    }
}

#[test]
fn generation_open_cells_form_one_8_connected_region() {
    for (_, game) in generated_games() {
        assert!(game.is_connected());
        assert!(all_open_cells_connected(&game));
        assert!((1..=1000).contains(&game.tries()));
    }
}

#[test]
fn reachability_allows_a_diagonal_step_between_two_walls() {
    let squeezed = Engine::from_rows(&["#####", "# # #", "## ##", "# o #", "#####"], &[], 10);
    assert!(squeezed.is_connected());
    let split = Engine::from_rows(&["#####", "# # #", "#####", "# o #", "#####"], &[], 10);
    assert!(!split.is_connected());
}

#[test]
fn generation_places_players_on_distinct_empty_cells_in_entry_order() {
    for (entries, game) in generated_games() {
        let players = game.players();
        assert_eq!(players.len(), entries);
        for (i, &(x, y)) in players.iter().enumerate() {
            assert_eq!(game.cell(x, y), Cell::Empty);
            assert!(!players[..i].contains(&(x, y)), "two players on ({x}, {y})");
        }
    }
    // Entry order, after the board: with the same n, one more entry adds a player at the end.
    let five = Engine::new(5, 3).unwrap();
    let six = Engine::new(6, 3).unwrap();
    assert_eq!(five.to_string().replace('*', " "), six.to_string().replace('*', " "));
    assert_eq!(&six.players()[..5], five.players());
}

#[test]
fn generation_same_seed_same_board() {
    let show = |g: &Engine| g.to_string();
    for seed in [0, 1, 42, u64::MAX] {
        let (a, b) = (Engine::new(9, seed).unwrap(), Engine::new(9, seed).unwrap());
        assert_eq!(show(&a), show(&b));
        assert_eq!(a.players(), b.players());
        assert_eq!(a.walls(), b.walls());
    }
    assert_ne!(show(&Engine::new(9, 1).unwrap()), show(&Engine::new(9, 2).unwrap()));
}

#[test]
fn setup_rejects_no_entries_and_too_many() {
    for entries in [0, arena::games::eggs::engine::MAX_ENTRIES + 1] {
        let err = Engine::new(entries, 0).unwrap_err().to_string();
        assert!(!err.is_empty() && !err.contains('\n'), "{err}");
    }
}

// ---------------------------------------------------------------- moves

#[test]
fn move_into_a_wall_is_a_no_op() {
    let mut game = open(&[(1, 1), (5, 3)]);
    turn(&mut game, &[ans(1, N), ans(4, A)]);
    assert_eq!(game.players(), &[(1, 1), (5, 3)]);
    assert!(game.last_events().contains(&Event::Bumped { player: 0, at: (1, 1) }));
    assert!(game.last_events().contains(&Event::Bumped { player: 1, at: (5, 3) }));
}

#[test]
fn player_bumping_a_wall_fights_on_its_own_cell() {
    // Player 0 bumps the west wall with Attack; player 1 steps onto it with Nothing and loses.
    let mut game = open(&[(1, 2), (2, 2)]);
    turn(&mut game, &[ans(8, A), ans(8, N)]);
    assert_eq!(game.players(), &[(1, 2), (2, 2)]);
    assert!(game.last_events().contains(&Event::Fight { at: (1, 2), players: [0, 1], acts: [A, N], winner: Some(0) }));
}

#[test]
fn directions_1_to_9_move_as_the_compass_says() {
    let expected = [(2, 2), (3, 2), (4, 2), (4, 3), (4, 4), (3, 4), (2, 4), (2, 3), (3, 3)];
    for (dir, want) in (1..=9).zip(expected) {
        let mut game = open(&[(3, 3)]);
        turn(&mut game, &[ans(dir, N)]);
        assert_eq!(game.players(), &[want], "direction {dir}");
    }
}

#[test]
fn diagonal_move_between_two_walls_is_allowed() {
    let mut game = Engine::from_rows(&["#####", "# # #", "## ##", "# o #", "#####"], &[(1, 1)], 10);
    turn(&mut game, &[ans(5, N)]);
    assert_eq!(game.players(), &[(2, 2)]);
}

#[test]
fn players_may_follow_each_other_and_swap_places() {
    let mut game = open(&[(1, 1), (2, 1), (1, 3), (2, 3)]);
    turn(&mut game, &[ans(4, N), ans(4, N), ans(4, A), ans(8, A)]);
    assert_eq!(game.players(), &[(2, 1), (3, 1), (2, 3), (1, 3)]);
    assert!(!game.last_events().iter().any(|e| matches!(e, Event::Fight { .. } | Event::SentBack { .. })));
}

// ---------------------------------------------------------------- fights

#[test]
fn fight_attack_beats_nothing() {
    check_win(A, N);
}

#[test]
fn fight_nothing_beats_counter() {
    check_win(N, C);
}

#[test]
fn fight_counter_beats_attack() {
    check_win(C, A);
}

#[test]
fn fight_attack_against_attack_both_go_back() {
    check_tie(A);
}

#[test]
fn fight_counter_against_counter_both_go_back() {
    check_tie(C);
}

#[test]
fn fight_nothing_against_nothing_both_go_back() {
    check_tie(N);
}

#[test]
fn three_players_on_a_cell_all_go_back() {
    let mut game = open(&[(1, 2), (3, 2), (2, 3)]);
    turn(&mut game, &[ans(4, A), ans(8, C), ans(2, N)]);
    assert_eq!(game.players(), &[(1, 2), (3, 2), (2, 3)]);
    assert!(game.last_events().contains(&Event::Crowd { at: (2, 2), count: 3 }));
    assert!(!game.last_events().iter().any(|e| matches!(e, Event::Fight { .. })));
}

#[test]
fn standing_player_cannot_be_pushed_off() {
    for stander in [A, C, N] {
        for mover in [A, C, N] {
            let mut game = open(&[(2, 2), (1, 2)]);
            turn(&mut game, &[ans(9, stander), ans(4, mover)]);
            assert_eq!(game.players(), &[(2, 2), (1, 2)], "standing {stander:?} against {mover:?}");
        }
    }
}

#[test]
fn cascade_of_three_players_sent_back() {
    // A, B, C walk east in a line; D walks west into C's target and ties with C.
    let mut game = open(&[(1, 1), (2, 1), (3, 1), (5, 1)]);
    turn(&mut game, &[ans(4, N), ans(4, N), ans(4, N), ans(8, N)]);
    assert_eq!(game.players(), &[(1, 1), (2, 1), (3, 1), (5, 1)]);
    let back: Vec<(u32, Reason)> = game
        .last_events()
        .iter()
        .filter_map(|e| match *e {
            Event::SentBack { player, reason, .. } => Some((player, reason)),
            _ => None,
        })
        .collect();
    assert_eq!(back, [(2, Reason::Fight), (3, Reason::Fight), (1, Reason::Cascade), (0, Reason::Cascade)]);
}

#[test]
fn fight_loser_going_back_sends_back_the_player_on_its_start_cell() {
    // A follows B east; B loses a fight to D on (3,2) and goes back to (2,2), where A landed.
    let mut game = open(&[(1, 2), (2, 2), (4, 2)]);
    turn(&mut game, &[ans(4, N), ans(4, N), ans(8, A)]);
    assert_eq!(game.players(), &[(1, 2), (2, 2), (3, 2)]);
}

// ---------------------------------------------------------------- eggs

#[test]
fn attack_destroys_an_egg() {
    let rows = ["######", "#    #", "# oo #", "#    #", "######", "######"];
    let mut game = Engine::from_rows(&rows, &[(2, 1)], 10);
    turn(&mut game, &[ans(6, A)]);
    assert_eq!(game.players(), &[(2, 2)]);
    assert_eq!(game.cell(2, 2), Cell::Empty);
    assert_eq!((game.eggs_left(), game.eggs_destroyed(), game.scores()), (1, 1, &[0][..]));
    assert!(game.last_events().contains(&Event::EggDestroyed { player: 0, at: (2, 2) }));
}

#[test]
fn nothing_picks_an_egg_up_and_scores() {
    let rows = ["######", "#    #", "# oo #", "#    #", "######", "######"];
    let mut game = Engine::from_rows(&rows, &[(2, 1), (4, 1)], 10);
    turn(&mut game, &[ans(6, N), ans(9, N)]);
    assert_eq!(game.players(), &[(2, 2), (4, 1)]);
    assert_eq!(game.cell(2, 2), Cell::Empty);
    assert_eq!((game.eggs_left(), game.eggs_destroyed(), game.scores()), (1, 0, &[1, 0][..]));
    assert!(game.last_events().contains(&Event::EggPicked { player: 0, at: (2, 2) }));
}

#[test]
fn counter_on_an_egg_goes_back_and_starts_a_cascade() {
    // A steps E onto the egg with Counter; B takes A's start, C takes B's start.
    let rows = ["#######", "# o   #", "#     #", "#     #", "#     #", "#######", "#######"];
    let mut game = Engine::from_rows(&rows, &[(1, 1), (1, 2), (1, 3)], 10);
    turn(&mut game, &[ans(4, C), ans(2, N), ans(2, A)]);
    assert_eq!(game.players(), &[(1, 1), (1, 2), (1, 3)]);
    assert_eq!(game.cell(2, 1), Cell::Egg);
    assert_eq!((game.eggs_left(), game.scores()), (1, &[0, 0, 0][..]));
    let back: Vec<(u32, Reason)> = game
        .last_events()
        .iter()
        .filter_map(|e| match *e {
            Event::SentBack { player, reason, .. } => Some((player, reason)),
            _ => None,
        })
        .collect();
    assert_eq!(back, [(0, Reason::Counter), (1, Reason::Cascade), (2, Reason::Cascade)]);
}

#[test]
fn fight_winner_on_an_egg_cell_then_acts_on_the_egg() {
    let rows = ["#######", "#  o  #", "#     #", "#     #", "#     #", "#   o #", "#######"];
    let mut game = Engine::from_rows(&rows, &[(2, 1), (4, 1)], 10);
    turn(&mut game, &[ans(4, A), ans(8, N)]);
    assert_eq!(game.players(), &[(3, 1), (4, 1)]);
    assert_eq!((game.eggs_destroyed(), game.scores()), (1, &[0, 0][..]));
}

// ---------------------------------------------------------------- the view

#[test]
fn view_at_the_border_shows_x_outside_the_board() {
    let game = open(&[(1, 1)]);
    let view = game.view(0);
    assert_eq!(view, [*b"XXXXX", *b"X####", *b"X#*  ", *b"X#   ", *b"X#   "]);
}

#[test]
fn view_in_a_corner_of_a_board_without_border() {
    let game = Engine::from_rows(&["  o", "   ", "#  "], &[(2, 2)], 10);
    assert_eq!(game.view(0), [*b"  oXX", *b"   XX", *b"# *XX", *b"XXXXX", *b"XXXXX"]);
}

#[test]
fn view_shows_eggs_walls_and_other_players_as_stars() {
    let rows = ["#######", "#  o  #", "# #   #", "#     #", "#     #", "#    o#", "#######"];
    let game = Engine::from_rows(&rows, &[(3, 3), (4, 2), (4, 5)], 10);
    assert_eq!(game.view(0), [*b"  o  ", *b" # * ", *b"  *  ", *b"     ", *b"   *o"]);
}

// ---------------------------------------------------------------- the end

#[test]
fn game_ends_after_25n_turns() {
    let mut game = Engine::new(2, 5).unwrap();
    assert_eq!(game.max_turns(), 175);
    while !game.is_over() {
        turn(&mut game, &[Answer::STAY, Answer::STAY]);
    }
    assert_eq!((game.turn(), game.eggs_left()), (175, 28));
}

#[test]
fn game_ends_when_no_egg_is_left() {
    let rows = ["#####", "# o #", "#   #", "#####", "#####"];
    let mut game = Engine::from_rows(&rows, &[(2, 2)], 100);
    assert!(!game.is_over());
    turn(&mut game, &[ans(2, N)]);
    assert!(game.is_over());
    assert_eq!((game.turn(), game.scores()), (1, &[1][..]));
}

#[test]
#[should_panic(expected = "finished game")]
fn playing_a_finished_game_panics() {
    let mut game = Engine::from_rows(&["###", "# #", "###"], &[(1, 1)], 5);
    game.play_turn(&[Answer::STAY]);
}

#[test]
fn invalid_direction_counts_as_standing_still_with_nothing() {
    let mut game = open(&[(2, 2), (1, 2)]);
    // Player 0 answers direction 0 with Counter: read as standing with Nothing, which beats
    // player 1's Counter on its cell.
    turn(&mut game, &[ans(0, C), ans(4, C)]);
    assert!(game.last_events().contains(&Event::Fight { at: (2, 2), players: [0, 1], acts: [N, C], winner: Some(0) }));
}

// ---------------------------------------------------------------- the text protocol

#[test]
fn parse_answer_reads_directions_1_to_9() {
    for d in 1..=9u8 {
        assert_eq!(parse_answer(&[&d.to_string(), "A", "memory"]), Ok(ans(d, A)));
    }
    assert_eq!(parse_answer(&["5\r", "C\r"]), Ok(ans(5, C)));
}

#[test]
fn parse_answer_blank_or_missing_action_is_nothing() {
    assert_eq!(parse_answer(&["3", ""]), Ok(ans(3, N)));
    assert_eq!(parse_answer(&["3", "  "]), Ok(ans(3, N)));
    assert_eq!(parse_answer(&["3", "N"]), Ok(ans(3, N)));
}

#[test]
fn parse_answer_one_line_only_means_nothing() {
    assert_eq!(parse_answer(&["7"]), Ok(ans(7, N)));
}

#[test]
fn parse_answer_rejects_a_bad_direction() {
    for bad in ["0", "10", "", "x", "-1", "4 5", "١"] {
        let err = parse_answer(&[bad, "N"]).unwrap_err();
        assert!(!err.contains('\n'), "{err}");
    }
    assert!(parse_answer(&[]).is_err());
}

#[test]
fn parse_answer_rejects_an_unknown_action() {
    for bad in ["a", "X", "Attack", "AC"] {
        assert!(parse_answer(&["1", bad]).is_err(), "{bad}");
    }
}

// ---------------------------------------------------------------- properties

fn random_answer(rng: &mut GameRng) -> Answer {
    let act = [A, C, N][rng.random_range(0..3usize)];
    Answer { dir: rng.random_range(1..=9u8), act }
}

/// Plays a whole game with random answers, calling `each` after every turn with the
/// game before and after and the answers.
fn random_game(entries: usize, seed: u64, answer_seed: u64, mut each: impl FnMut(&Engine, &Engine, &[Answer])) {
    let mut game = Engine::new(entries, seed).unwrap();
    let mut answer_rng = GameRng::seed_from_u64(answer_seed);
    let mut answers = vec![Answer::STAY; entries];
    while !game.is_over() {
        answers.iter_mut().for_each(|a| *a = random_answer(&mut answer_rng));
        let before = game.clone();
        game.play_turn(&answers);
        each(&before, &game, &answers);
    }
}

#[test]
fn invariants_hold_after_every_turn_of_a_50_player_game() {
    random_game(50, 7, 8, |_, game, _| game.check_invariants().unwrap());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn prop_one_player_per_cell_after_any_turn(entries in 1usize..=30, seed: u64, answer_seed: u64) {
        random_game(entries, seed, answer_seed, |_, game, _| {
            let mut seen = std::collections::HashSet::new();
            for &p in game.players() {
                assert!(seen.insert(p), "two players on {p:?}");
                assert_ne!(game.cell(p.0, p.1), Cell::Wall);
            }
        });
    }

    #[test]
    fn prop_eggs_only_decrease(entries in 1usize..=30, seed: u64, answer_seed: u64) {
        random_game(entries, seed, answer_seed, |before, after, _| {
            assert!(after.eggs_left() <= before.eggs_left());
            let s = after.side();
            for y in 0..s {
                for x in 0..s {
                    if after.cell(x, y) == Cell::Egg {
                        assert_eq!(before.cell(x, y), Cell::Egg, "egg appeared at ({x}, {y})");
                    }
                }
            }
            let (picked_before, picked_after): (u32, u32) =
                (before.scores().iter().sum(), after.scores().iter().sum());
            assert_eq!(before.eggs_left() - after.eggs_left(),
                picked_after - picked_before + after.eggs_destroyed() - before.eggs_destroyed());
        });
    }

    #[test]
    fn prop_same_seed_and_answers_same_game(entries in 1usize..=20, seed: u64, answer_seed: u64) {
        let mut first = Vec::new();
        random_game(entries, seed, answer_seed, |_, g, _| {
            first.push((g.to_string(), g.players().to_vec(), g.scores().to_vec(), g.last_events().to_vec()));
        });
        let mut i = 0;
        random_game(entries, seed, answer_seed, |_, g, _| {
            assert_eq!(first[i], (g.to_string(), g.players().to_vec(), g.scores().to_vec(), g.last_events().to_vec()));
            i += 1;
        });
        prop_assert_eq!(i, first.len());
    }

    #[test]
    fn prop_invariants_hold_after_every_turn(entries in 1usize..=20, seed: u64, answer_seed: u64) {
        Engine::new(entries, seed).unwrap().check_invariants().unwrap();
        random_game(entries, seed, answer_seed, |_, game, _| game.check_invariants().unwrap());
    }

    #[test]
    fn prop_players_move_at_most_one_step_and_standers_never_move(entries in 1usize..=30, seed: u64, answer_seed: u64) {
        random_game(entries, seed, answer_seed, |before, after, answers| {
            for (p, (&(x0, y0), &(x1, y1))) in before.players().iter().zip(after.players()).enumerate() {
                assert!(x0.abs_diff(x1) <= 1 && y0.abs_diff(y1) <= 1);
                if answers[p].dir == 9 {
                    assert_eq!((x0, y0), (x1, y1), "standing player {p} moved");
                }
            }
        });
    }
}
