//! The rating history the entry pages plot: each version's rating after its games, kept
//! by one fold of the ratings over the played games that is extended as the ladder rates
//! new ones, so a page costs a few small queries however many games were played.
//!
//! The history follows the ladder's stored ratings (`rated`: the games they fold), so
//! its last point is the rating the leaderboard shows. Each version keeps at most
//! `2 * points` samples, one every `stride` of its games (the stride doubles, and every
//! other sample goes, when they fill up), and its latest rating: a plot of at most
//! `points` about evenly spread over its games, the last its rating now, in memory
//! bounded by the number of versions. A game committed after the ratings went past its
//! id (which makes the ladder fold from scratch) makes the history start again from
//! scratch too, as it does when the server starts: one pass over the played games, read
//! in slices of ids.
//!
//! Not here: the queries (`arena_ladder::views`), the fold (`arena_ladder::rating`),
//! drawing (`plot`).

use std::collections::HashMap;
use std::sync::Mutex;

use arena_ladder::LadderError;
use arena_ladder::rating::Fold;
use arena_ladder::store::Store;
use arena_ladder::views::Point;

/// Game ids read at once when the history folds from scratch.
const SLICE: i64 = 20_000;

/// One version's samples.
#[derive(Debug, Clone, Default)]
struct Samples {
    /// Its games folded.
    games: u64,
    /// A sample is kept every `stride` games (from its first).
    stride: u64,
    /// The samples: games 0, stride, 2 stride, ...
    kept: Vec<Point>,
    /// The rating after its latest game.
    last: Option<Point>,
}

impl Samples {
    fn push(&mut self, p: Point, cap: usize) {
        if self.stride == 0 {
            self.stride = 1;
        }
        if self.games.is_multiple_of(self.stride) {
            self.kept.push(p);
            if self.kept.len() >= cap {
                self.kept = self.kept.iter().step_by(2).copied().collect();
                self.stride *= 2;
            }
        }
        self.games += 1;
        self.last = Some(p);
    }

    /// At most `n` points about evenly spread, the last always among them.
    fn plot(&self, n: usize) -> Vec<Point> {
        let mut all = self.kept.clone();
        if let Some(last) = self.last
            && all.last().is_none_or(|p| p.game != last.game)
        {
            all.push(last);
        }
        if all.len() <= n || n == 0 {
            return if n == 0 { Vec::new() } else { all };
        }
        let mut picked: Vec<Point> = (0..n).map(|k| all[(k * (all.len() - 1)) / (n - 1).max(1)]).collect();
        picked.dedup_by_key(|p| p.game);
        picked
    }
}

/// What the history has folded.
#[derive(Debug)]
struct State {
    fold: Fold,
    /// The commit the stored ratings had read up to when last followed.
    committed: i64,
    samples: HashMap<i64, Samples>,
}

/// The rating history of one game's versions (module doc).
#[derive(Debug)]
pub struct History {
    game: String,
    pairs: bool,
    /// Points a plot has at most.
    points: usize,
    state: Mutex<State>,
}

impl History {
    /// An empty history of `game`'s versions, for plots of at most `points` points.
    pub fn new(game: &str, pairs: bool, points: usize) -> History {
        History {
            game: game.to_owned(),
            pairs,
            points,
            state: Mutex::new(State { fold: Fold::new(pairs), committed: 0, samples: HashMap::new() }),
        }
    }

    /// Each of `versions`' ratings after its games (at most `points`, the last its
    /// stored rating), the history first brought up to the stored ratings.
    pub fn plots(&self, store: &Store, versions: &[i64]) -> Result<Vec<Vec<Point>>, LadderError> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        self.catch_up(store, &mut state)?;
        Ok(versions.iter().map(|v| state.samples.get(v).map_or_else(Vec::new, |s| s.plot(self.points))).collect())
    }

    /// Brings the history up to the stored ratings (what [`History::plots`] does first;
    /// the server calls it once when it starts, so that the first page does not wait).
    pub fn update(&self, store: &Store) -> Result<(), LadderError> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        self.catch_up(store, &mut state)
    }

    fn catch_up(&self, store: &Store, state: &mut State) -> Result<(), LadderError> {
        let Some((through, committed)) = store.rated_through(&self.game)? else {
            *state = State { fold: Fold::new(self.pairs), committed: 0, samples: HashMap::new() };
            return Ok(());
        };
        let folded = state.fold.through.max(0);
        if through < folded || store.committed_late(&self.game, state.committed, folded)? {
            *state = State { fold: Fold::new(self.pairs), committed: 0, samples: HashMap::new() };
        }
        let mut from = state.fold.through.max(0);
        while from < through {
            let upto = through.min(from.saturating_add(SLICE));
            for g in store.played_between(&self.game, from, upto)? {
                state.fold.extend(std::slice::from_ref(&g)).map_err(|e| LadderError::Db(e.to_string()))?;
                for &(v, _) in &g.seats {
                    let r = &state.fold.rated[&v];
                    let p = Point { game: g.id, mu: r.mu, sigma: r.sigma };
                    state.samples.entry(v).or_default().push(p, 2 * self.points.max(1));
                }
            }
            from = upto;
        }
        // Games that were lost, or ids never played, up to `through` are passed too.
        state.fold.through = state.fold.through.max(through);
        state.committed = committed;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arena::game::Ranking;

    /// A contest of 4 versions with games `from..=to` of 3 seats each, committed in the
    /// order given by `commits` (the commit counter of each, in turn).
    fn add_games(store: &Store, ids: &[i64], commits: &mut i64) {
        store.with_pool(async |pool| {
            for &id in ids {
                *commits += 1;
                sqlx::query(
                    "INSERT INTO games (id, game, seed, ladder_seed, rules_version, options, status, turns, committed) \
                     VALUES ($1, 'chess', $1, 0, 2, '{}', 'played', 10, $2)",
                )
                .bind(id)
                .bind(*commits)
                .execute(pool)
                .await
                .unwrap();
                for seat in 0..3i64 {
                    sqlx::query(
                        "INSERT INTO seats (game_id, seat, version_id, score, stats) VALUES ($1, $2, $3, $4, '{}')",
                    )
                    .bind(id)
                    .bind(seat)
                    .bind((id + seat) % 4 + 1)
                    .bind((id * 7 + seat * 13) % 10)
                    .execute(pool)
                    .await
                    .unwrap();
                }
            }
        });
    }

    fn contest() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("c.sqlite"), true).unwrap();
        store.with_pool(async |pool| {
            for i in 1..=4i64 {
                sqlx::query("INSERT INTO entrants (id, name) VALUES ($1, 'e' || $1)").bind(i).execute(pool).await.unwrap();
                sqlx::query(
                    "INSERT INTO entries (id, entrant_id, game, name, kind, path) VALUES ($1, $1, 'chess', 'b' || $1, 'lua', 'x')",
                )
                .bind(i)
                .execute(pool)
                .await
                .unwrap();
                sqlx::query("INSERT INTO versions (id, entry_id, sha256, size, active) VALUES ($1, $1, 'h' || $1, 1, 1)")
                    .bind(i)
                    .execute(pool)
                    .await
                    .unwrap();
            }
        });
        (dir, store)
    }

    /// Each version's last point is its stored rating.
    fn assert_ends_at_the_stored_ratings(store: &Store, plots: &[Vec<Point>]) {
        let stored = store.ratings("chess").unwrap();
        for (v, plot) in (1..=4i64).zip(plots) {
            let last = plot.last().unwrap();
            assert!((last.mu - stored[&v].mu).abs() < 1e-9 && (last.sigma - stored[&v].sigma).abs() < 1e-9, "{v}");
        }
    }

    #[test]
    fn the_history_follows_the_stored_ratings_incrementally_as_a_fold_from_scratch_would() {
        let (_dir, store) = contest();
        let history = History::new("chess", false, 60);
        assert!(history.plots(&store, &[1, 2]).unwrap().iter().all(Vec::is_empty), "nothing rated yet");
        let mut commits = 0;
        add_games(&store, &(1..=300).collect::<Vec<_>>(), &mut commits);
        store.update_ratings("chess", Ranking::Median, false).unwrap();
        let first = history.plots(&store, &[1, 2, 3, 4]).unwrap();
        assert_ends_at_the_stored_ratings(&store, &first);
        assert!(
            first.iter().all(|p| p.len() > 40 && p.len() <= 60),
            "{:?}",
            first.iter().map(Vec::len).collect::<Vec<_>>()
        );
        // Games stored but not rated yet are not shown.
        add_games(&store, &(301..=500).collect::<Vec<_>>(), &mut commits);
        assert_eq!(history.plots(&store, &[1, 2, 3, 4]).unwrap(), first);
        store.update_ratings("chess", Ranking::Median, false).unwrap();
        let later = history.plots(&store, &[1, 2, 3, 4]).unwrap();
        assert_ends_at_the_stored_ratings(&store, &later);
        assert_eq!(later, History::new("chess", false, 60).plots(&store, &[1, 2, 3, 4]).unwrap());
        // A game committed after its id was rated (250, of a batch still in play when
        // the ratings were updated): from scratch, as the ladder does.
        let (_dir, store) = contest();
        let mut commits = 0;
        add_games(&store, &(1..=249).chain(251..=300).collect::<Vec<_>>(), &mut commits);
        store.update_ratings("chess", Ranking::Median, false).unwrap();
        let history = History::new("chess", false, 60);
        let without = history.plots(&store, &[1, 2, 3, 4]).unwrap();
        add_games(&store, &[250], &mut commits);
        store.update_ratings("chess", Ranking::Median, false).unwrap();
        let with = history.plots(&store, &[1, 2, 3, 4]).unwrap();
        assert_ends_at_the_stored_ratings(&store, &with);
        assert_ne!(with, without);
        assert_eq!(with, History::new("chess", false, 60).plots(&store, &[1, 2, 3, 4]).unwrap());
    }

    fn p(game: i64) -> Point {
        Point { game, mu: game as f64, sigma: 1.0 }
    }

    #[test]
    fn samples_stay_bounded_and_spread_with_the_last_always_shown() {
        let mut s = Samples::default();
        for g in 1..=10_000 {
            s.push(p(g), 120);
            assert!(s.kept.len() < 120);
        }
        let plot = s.plot(60);
        assert!(plot.len() <= 60 && plot.len() >= 50, "{}", plot.len());
        assert_eq!(plot.first().unwrap().game, 1);
        assert_eq!(plot.last().unwrap().game, 10_000);
        // About evenly spread: no gap more than twice the mean gap.
        let gaps: Vec<i64> = plot.windows(2).map(|w| w[1].game - w[0].game).collect();
        let mean = 10_000 / plot.len() as i64;
        assert!(gaps.iter().all(|&g| g > 0 && g <= 3 * mean), "{gaps:?}");
        // Fewer games than points: every one.
        let mut few = Samples::default();
        for g in 1..=7 {
            few.push(p(g), 120);
        }
        assert_eq!(few.plot(60).iter().map(|p| p.game).collect::<Vec<_>>(), (1..=7).collect::<Vec<_>>());
        assert!(few.plot(0).is_empty());
    }
}
