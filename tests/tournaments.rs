//! Tournaments: the same results for any thread count, shards that merge into the
//! one-machine result, interruption that keeps finished games.

use arena::games::zombies::Zombies;
use std::sync::atomic::{AtomicBool, Ordering};

use arena::abi::{Action, Context};
use arena::bot::Entry;
use arena::games::zombies::GameConfig;
use arena::tournament::{GameRecord, Plan, Shard, TournamentResult, merge, run};

use crate::util::random_bot;

fn entries() -> Vec<Entry<Zombies>> {
    vec![
        Entry::builtin("Random", random_bot),
        Entry::builtin("Still", || |_: &Context<'_>| Action::stay()),
        Entry::builtin("Emo", || |ctx: &Context<'_>| Action::shoot(ctx.id)),
    ]
}

fn plan(jobs: usize, shard: Shard) -> Plan<Zombies> {
    Plan { shard, jobs, config: GameConfig { players_per_entry: 20, max_turns: None }, ..Plan::new(11, 12) }
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
    let parts: Vec<TournamentResult> = (0..3).map(|k| play(1, Shard { k, n: 3 })).collect();
    assert_eq!(parts.iter().map(|p| p.played).sum::<u64>(), 12);
    assert_eq!(merge(parts.clone()).unwrap(), whole);
    // Merging through the JSON files gives the same.
    let through_json: Vec<TournamentResult> =
        parts.iter().map(|p| serde_json::from_str(&serde_json::to_string(p).unwrap()).unwrap()).collect();
    assert_eq!(merge(through_json).unwrap(), whole);
    // A missing shard leaves a partial result that says so.
    let partial = merge(parts[..2].to_vec()).unwrap();
    assert_eq!((partial.played, partial.rounds), (8, 12));
}

#[test]
fn merging_results_of_different_tournaments_is_refused() {
    let a = play(1, Shard { k: 0, n: 2 });
    let mut b = play(1, Shard { k: 1, n: 2 });
    b.seed += 1;
    assert!(merge(vec![a, b]).unwrap_err().to_string().contains("seeds differ"));
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
    use arena::bench::{STEPS, Workload, measure, step_profile};
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
