//! Tournaments: the same results for any thread count, shards that merge into the
//! one-machine result, interruption that keeps finished games.

use arena::games::zombies::Zombies;
use std::sync::atomic::{AtomicBool, Ordering};

use arena::abi::{Action, Context};
use arena::bot::Entry;
use arena::games::zombies;
use arena::tournament::{GameRecord, Plan, Shard, TournamentResult, merge, merge_named, run};

use crate::util::random_bot;

fn entries() -> Vec<Entry<Zombies>> {
    vec![
        Entry::<Zombies>::builtin("Random", random_bot),
        Entry::builtin("Still", || |_: &Context<'_>| Action::stay()),
        Entry::builtin("Emo", || |ctx: &Context<'_>| Action::shoot(ctx.id)),
    ]
}

fn plan(jobs: usize, shard: Shard) -> Plan<Zombies> {
    Plan { shard, jobs, config: zombies::Config { players_per_entry: 20, max_turns: None }, ..Plan::new(11, 12) }
}

/// The result without its wall-clock timings (which differ run to run).
fn untimed(mut r: TournamentResult) -> TournamentResult {
    let clear = |g: &mut GameRecord| {
        for s in g.stats.values_mut() {
            (s.timed_calls, s.timed_nanos) = (0, 0);
        }
    };
    r.games.iter_mut().for_each(clear);
    for s in &mut r.leaderboard {
        (s.stats.timed_calls, s.stats.timed_nanos, s.mean_call_micros) = (0, 0, 0.0);
    }
    r
}

fn play(jobs: usize, shard: Shard) -> TournamentResult {
    untimed(run(&entries(), &plan(jobs, shard), &AtomicBool::new(false), |_, _| {}))
}

#[test]
fn results_are_identical_for_every_thread_count() {
    let one = play(1, Shard::ALL);
    assert_eq!(one.played, 12);
    assert_eq!(one.games.iter().map(|g| g.index).collect::<Vec<_>>(), (0..12).collect::<Vec<_>>());
    for jobs in [2, 3, 8] {
        assert_eq!(play(jobs, Shard::ALL), one, "--jobs {jobs}");
    }
}

#[test]
fn shards_merge_into_exactly_the_one_machine_result() {
    let whole = play(2, Shard::ALL);
    let parts: Vec<TournamentResult> = (1..=3).map(|k| play(1, Shard { k, n: 3 })).collect();
    assert_eq!(parts.iter().map(|p| p.played).sum::<u64>(), 12);
    assert_eq!(merge(parts.clone()).unwrap(), whole);
    // Merging through the JSON files gives the same.
    let through_json: Vec<TournamentResult> =
        parts.iter().map(|p| serde_json::from_str(&serde_json::to_string(p).unwrap()).unwrap()).collect();
    assert_eq!(merge(through_json).unwrap(), whole);
    // Results record their shard and options; the merge is the whole tournament's.
    assert_eq!(parts[1].shard, Some(Shard { k: 2, n: 3 }));
    assert!(serde_json::to_string(&parts[1]).unwrap().contains(r#""shard":"2/3""#));
    assert_eq!(whole.shard, Some(Shard::ALL));
    assert_eq!(whole.options["players_per_entry"], 20);
    // In any order.
    assert_eq!(merge(vec![parts[2].clone(), parts[0].clone(), parts[1].clone()]).unwrap(), whole);
}

/// Names the parts `s1.json`, `s2.json`, ... (by shard) for `merge_named`.
fn named(parts: &[TournamentResult]) -> Vec<(String, TournamentResult)> {
    parts.iter().map(|p| (format!("s{}.json", p.shard.map_or(9, |s| s.k)), p.clone())).collect()
}

/// The one-line error of a merge that must be refused.
fn refused(parts: &[TournamentResult]) -> String {
    let e = merge_named(named(parts), false).expect_err("the merge must be refused").to_string();
    assert!(!e.contains('\n'), "one line: {e}");
    e
}

#[test]
fn a_missing_shard_is_refused_unless_partial() {
    let parts: Vec<TournamentResult> = (1..=3).map(|k| play(1, Shard { k, n: 3 })).collect();
    let e = refused(&parts[..2]);
    assert_eq!(e, "shard 3 of 3 missing: no results given for it; play it (or merge with --partial)");
    let e = refused(&parts[1..2]);
    assert!(e.starts_with("shards 1, 3 of 3 missing"), "{e}");
    // With --partial: what there is, saying how much.
    let partial = merge_named(named(&parts[..2]), true).unwrap();
    assert_eq!((partial.played, partial.rounds), (8, 12));
}

#[test]
fn a_shard_given_twice_is_refused() {
    let parts: Vec<TournamentResult> = (1..=2).map(|k| play(1, Shard { k, n: 2 })).collect();
    let twice = vec![("a.json".to_owned(), parts[0].clone()), ("b.json".to_owned(), parts[1].clone())];
    let mut twice = twice;
    twice.push(("copy.json".to_owned(), parts[1].clone()));
    let e = merge_named(twice.clone(), false).unwrap_err().to_string();
    assert_eq!(e, "b.json and copy.json: both hold shard 2/2; give each shard once");
    // --partial does not let it through.
    assert!(merge_named(twice, true).is_err());
}

#[test]
fn an_incomplete_shard_is_refused_unless_partial() {
    // Shard 2/2 stopped after its first games (a task cancelled mid-run).
    let parts: Vec<TournamentResult> = (1..=2).map(|k| play(1, Shard { k, n: 2 })).collect();
    let mut cut = parts[1].clone();
    cut.games.truncate(2);
    let cut = untimed(arena::tournament::summarise(
        &cut.game,
        cut.ranking,
        &["Random".to_owned(), "Still".to_owned(), "Emo".to_owned()],
        cut.seed,
        cut.rounds,
        cut.games,
    ));
    let cut = TournamentResult { shard: parts[1].shard, options: parts[1].options.clone(), ..cut };
    let e = refused(&[parts[0].clone(), cut.clone()]);
    assert_eq!(
        e,
        "s2.json: shard 2/2 is incomplete: 2 of 6 games (an interrupted run); play it again (or merge with --partial)"
    );
    assert_eq!(merge_named(named(&[parts[0].clone(), cut]), true).unwrap().played, 8);
}

#[test]
fn games_that_failed_are_accounted_for_not_missing() {
    // A game whose worker failed is recorded in `failed` (as a one-machine run records
    // it): the shard is complete, and the merge keeps the failure.
    let parts: Vec<TournamentResult> = (1..=2).map(|k| play(1, Shard { k, n: 2 })).collect();
    let mut with_failure = parts[1].clone();
    let lost = with_failure.games.remove(0);
    let failure = serde_json::json!({"index": lost.index, "seed": lost.seed, "reason": "worker died"});
    with_failure.failed.push(serde_json::from_value(failure).unwrap());
    let merged = merge(vec![parts[0].clone(), with_failure]).unwrap();
    assert_eq!((merged.played, merged.failed.len()), (11, 1));
    assert_eq!(merged.failed[0].index, lost.index);
}

#[test]
fn merging_results_of_different_tournaments_is_refused() {
    let a = play(1, Shard { k: 1, n: 2 });
    let b = play(1, Shard { k: 2, n: 2 });
    let with = |change: fn(&mut TournamentResult)| {
        let mut b = b.clone();
        change(&mut b);
        refused(&[a.clone(), b])
    };
    let e = with(|b| b.seed += 1);
    assert_eq!(e, "s1.json and s2.json: seeds differ: 11 vs 12 (results of different tournaments)");
    assert!(with(|b| b.rounds += 1).contains("round counts differ: 12 vs 13"));
    assert!(with(|b| b.game = "eggs".to_owned()).contains("games differ: zombies vs eggs"));
    let e = with(|b| b.options["players_per_entry"] = 10.into());
    assert!(e.contains("game options differ") && e.contains("\"players_per_entry\":10"), "{e}");
    let e = with(|b| b.leaderboard[0].name = "Other".to_owned());
    assert!(e.contains("entries differ"), "{e}");
    // Shards of two splits of the same tournament do not add up either.
    let e = refused(&[a.clone(), play(1, Shard { k: 2, n: 3 })]);
    assert_eq!(e, "s1.json and s2.json: shards of different splits (1/2 vs 2/3); merge the shards of one split");
}

#[test]
fn results_that_record_no_shard_merge_by_their_games() {
    // Results written before shards were recorded: checked game by game.
    let parts: Vec<TournamentResult> =
        (1..=2).map(|k| TournamentResult { shard: None, ..play(1, Shard { k, n: 2 }) }).collect();
    let merged = merge(parts.clone()).unwrap();
    assert_eq!((merged.played, merged.shard), (12, None));
    assert_eq!(merged.games, play(2, Shard::ALL).games);
    let e = refused(&parts[..1]);
    assert!(e.contains("the tournament is incomplete: 6 of 12 games (games 1, 3, 5, 7, 9, 11 missing)"), "{e}");
    let e = refused(&[parts[0].clone(), parts[0].clone()]);
    assert!(e.contains("both hold game 0"), "{e}");
}

#[test]
fn a_stopped_tournament_keeps_every_finished_game() {
    // 200 games, stopped after the third finishes: the games in flight finish, no new
    // one starts (many more games than could ever be in flight, so the stop cannot lose
    // a race to the last of them on a loaded machine).
    let stop = AtomicBool::new(false);
    let mut seen = 0;
    let plan = Plan { rounds: 200, ..plan(2, Shard::ALL) };
    let result = run(&entries(), &plan, &stop, |_, _| {
        seen += 1;
        if seen == 3 {
            stop.store(true, Ordering::SeqCst);
        }
    });
    assert!(result.played >= 3 && result.played < 200, "played {}", result.played);
    assert_eq!(result.played as usize, result.games.len());
    assert_eq!(seen as u64, result.played, "every finished game is in the result");
    // Each finished game is complete: the game its seed plays alone.
    for g in untimed(result).games {
        let alone = arena::tournament::play_game(&entries(), g.seed, &plan.config);
        let scores: std::collections::BTreeMap<String, u32> =
            entries().iter().map(|e| e.name.clone()).zip(alone.scores).collect();
        assert_eq!((g.turns, g.scores), (alone.turns, scores), "game {}", g.index);
    }
}

#[test]
fn the_leaderboard_has_median_ci_mean_min_max_and_call_stats() {
    let r = run(&entries(), &plan(2, Shard::ALL), &AtomicBool::new(false), |_, _| {});
    let emo = r.leaderboard.iter().find(|s| s.name == "Emo").unwrap();
    assert_eq!((emo.median, emo.max), (0.0, 0), "Emo shoots itself at once");
    let first = &r.leaderboard[0];
    assert!(first.median_ci_low <= first.median && first.median <= first.median_ci_high);
    assert!(first.min as f64 <= first.median && first.median <= first.max as f64);
    assert!(first.stats.calls > 0 && first.stats.timed_calls > 0 && first.mean_call_micros > 0.0);
    assert!(r.leaderboard.windows(2).all(|w| w[0].median >= w[1].median), "ranked by median");
    let csv = arena::tournament::leaderboard_csv(&r);
    assert_eq!(csv.lines().count(), 4);
    assert!(csv.starts_with(
        "rank,name,median,median_ci_low,median_ci_high,mean,min,max,calls,mean_call_micros,errors,overruns"
    ));
}

/// The step profile of `zombies bench --steps` plays the same games as a plain run (its
/// steps in the rules' order), and every step is timed.
#[test]
fn the_step_profile_plays_the_same_games_as_a_plain_run() {
    use arena::games::zombies::bench::{STEPS, Workload, measure, step_profile};
    use std::time::Duration;
    let workload = Workload { name: "test".into(), entries: entries() };
    // A zero budget plays exactly one game (seed 0) each.
    let plain = measure(&workload, Duration::ZERO);
    let profile = step_profile(&workload, Duration::ZERO);
    assert_eq!(plain.games, 1);
    assert_eq!(profile.turns, plain.turns);
    assert!(profile.turns > 0);
    let total: f64 = (0..STEPS.len()).map(|i| profile.micros_per_turn(i)).sum();
    assert!(total > 0.0 && profile.micros_per_turn(STEPS.iter().position(|s| *s == "decide").unwrap()) > 0.0);
}
