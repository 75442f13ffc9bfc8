//! The ladder's workers (`arena ladder work`): many processes, on one machine or on many,
//! that play one ladder's games from the database's queue (`queue`), so that a contest
//! grows past one machine.
//!
//! A worker leases as many games as it plays at once (`plan.jobs`), plays each through
//! the same machinery as `ladder run` (`run::play_game`: the plan's isolation, time bank,
//! call limit, verdicts, a failed game tried again, then stored as lost), renews its
//! leases while they play, and commits each game with `Store::commit_leased`: only while
//! it still holds the lease, and a game is stored once whatever happens (its id is the
//! key). A worker killed with `kill -9` loses nothing: its leases expire and another
//! worker plays those games again, with the same seeds.
//!
//! **Who schedules.** When the queue holds no game of `G`, the first worker to take the
//! scheduling lock (`Store::schedule_lock`) plans the next batch exactly as `ladder run`
//! does (`run::plan_batch`: scan and record the bot directories, bring the ratings up to
//! date, schedule with ids after the largest stored) and puts it into the queue; the
//! others wait for it. A batch is scheduled only once every game of the one before is
//! committed, so the ratings it is planned from are those of every game before it, folded
//! in id order: the workers play the same games, with the same ratings, as one `ladder
//! run` with the same seed, batch and seats, whatever the workers, their jobs and the
//! order their games finish in. The price: a batch's last game keeps the other workers
//! waiting (as it does `ladder run`'s other jobs).
//!
//! Not here: the statements (`store`, `queue`), finding the bots (the caller's `scan`),
//! the command line.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use arena::bot::Entry;
use arena::game::Game;
use arena::isolate::Worker;
use arena::loaders::Discovery;
use arena::tournament::{Plan, game_seed};

use crate::LadderError;
use crate::queue::Queued;
use crate::run::{Event, Scheduled, Summary, file_hash, plan_batch, play_game, update_ratings};
use crate::store::{GameRow, Store};

/// A lease's length when not given: a game's worst case with room to spare (leases are
/// renewed every third of it while their game plays).
pub const DEFAULT_LEASE: Duration = Duration::from_secs(120);

/// How a worker works.
#[derive(Debug, Clone)]
pub struct WorkSettings<G: Game> {
    /// How games are played: games at once (`plan.jobs`), options, time bank, call limit,
    /// isolation, replays; `plan.seed` is the ladder's seed of the batches this worker
    /// schedules (a leased game keeps the seed it was scheduled with).
    pub plan: Plan<G>,
    /// Games per batch this worker schedules.
    pub batch: usize,
    /// Seats of a free-for-all game this worker schedules.
    pub seats: usize,
    /// Schedule no more once the database holds this many games of `G` (all workers
    /// together); the worker ends when the last of them is committed. `None`: until `stop`.
    pub until: Option<u64>,
    /// How long a lease lasts unless renewed.
    pub lease: Duration,
    /// This worker's name in the queue (unique among the workers: [`worker_name`]).
    pub name: String,
}

/// A name for this worker: host, process id and the clock's nanoseconds.
pub fn worker_name() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_else(|_| "host".to_owned());
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    format!("{}:{}:{nanos:09}", host.trim(), std::process::id())
}

/// Why a worker stopped playing its current entries.
enum Idle {
    /// `stop` was set and its games in flight are committed.
    Stopped,
    /// A leased game seats a version its entries do not hold: scan again.
    Rescan,
    /// The queue holds no game of `G`: schedule the next batch.
    Empty,
}

/// What the scheduling lock gave.
enum TopUp<G: Game> {
    /// This worker scheduled a batch; the entries it scanned to do so.
    Scheduled(Vec<Entry<G>>),
    /// Another worker scheduled one meanwhile.
    Again,
    /// The database holds `until` games: nothing more to schedule.
    Done,
}

/// Works until `stop` is set (the games in flight finish and are committed) or, with
/// `until`, until the database holds that many games of `G` and the queue is empty.
/// `scan` finds the entries (this worker's bot directories).
pub fn work<G: Game>(
    store: &Store,
    settings: &WorkSettings<G>,
    scan: &mut dyn FnMut() -> Discovery<G>,
    stop: &AtomicBool,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<Summary, LadderError> {
    let options = serde_json::to_string(&settings.plan.config).unwrap_or_else(|_| "null".to_owned());
    let mut summary = Summary::default();
    let mut scanned: Option<Vec<Entry<G>>> = None;
    // Versions not found by a scan: found by none after the next one, their games are lost.
    let mut missing = BTreeSet::new();
    while !stop.load(Ordering::SeqCst) {
        let entries = scanned.take().unwrap_or_else(|| scan().entries);
        let found: BTreeMap<(String, String), usize> = entries
            .iter()
            .enumerate()
            .filter_map(|(i, e)| file_hash(&e.source).ok().map(|(sha, _)| ((e.name.clone(), sha), i)))
            .collect();
        let lot = Lot { store, settings, entries: &entries, found: &found, options: &options, stop };
        match lot.play(&mut missing, &mut summary, on_event)? {
            Idle::Stopped => break,
            Idle::Rescan => {}
            Idle::Empty => match top_up(store, settings, &options, scan, on_event)? {
                TopUp::Scheduled(entries) => {
                    summary.batches += 1;
                    scanned = Some(entries);
                }
                TopUp::Again => {}
                TopUp::Done => break,
            },
        }
    }
    Ok(summary)
}

/// Schedules the next batch into the queue, unless another worker did, or the database
/// holds `until` games (then the ratings are brought up to date with all of them).
fn top_up<G: Game>(
    store: &Store,
    settings: &WorkSettings<G>,
    options: &str,
    scan: &mut dyn FnMut() -> Discovery<G>,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<TopUp<G>, LadderError> {
    let _lock = store.schedule_lock()?;
    if store.queue_len(G::NAME)? > 0 {
        return Ok(TopUp::Again);
    }
    let stored = store.game_count(G::NAME)?;
    let left = match settings.until {
        Some(n) if stored >= n => {
            update_ratings::<G>(store)?;
            return Ok(TopUp::Done);
        }
        Some(n) => n - stored,
        None => u64::MAX,
    };
    let (entries, games) = plan_batch(store, settings.batch, settings.seats, scan(), left, on_event)?;
    let seed = settings.plan.seed;
    let queued: Vec<Queued> = games
        .iter()
        .map(|g| Queued {
            id: g.id,
            game: G::NAME.to_owned(),
            seed: game_seed(seed, g.id as u64),
            ladder_seed: seed,
            rules_version: G::RULES_VERSION,
            options: options.to_owned(),
            pairing: g.pairing,
            lineup: g.versions.clone(),
            leases: 0,
            worker: None,
            held: false,
        })
        .collect();
    store.enqueue(&queued)?;
    if let (Some(first), Some(last)) = (games.first(), games.last()) {
        on_event(Event::Scheduled { first: first.id, last: last.id });
    }
    Ok(TopUp::Scheduled(entries))
}

/// A worker's entries of one scan, and what it plays them with.
struct Lot<'a, G: Game> {
    store: &'a Store,
    settings: &'a WorkSettings<G>,
    entries: &'a [Entry<G>],
    /// Each entry's index by its name and its file's SHA-256.
    found: &'a BTreeMap<(String, String), usize>,
    options: &'a str,
    stop: &'a AtomicBool,
}

impl<G: Game> Lot<'_, G> {
    /// Leases and plays games on `jobs` threads, committing each on this thread as it
    /// finishes, until the queue has none for this worker or `stop` is set.
    fn play(
        &self,
        missing: &mut BTreeSet<i64>,
        summary: &mut Summary,
        on_event: &mut dyn FnMut(Event<'_>),
    ) -> Result<Idle, LadderError> {
        let plan = &self.settings.plan;
        let jobs = plan.jobs.max(1);
        let (job_send, job_receive) = mpsc::channel::<(Scheduled, u64)>();
        let job_receive = Mutex::new(job_receive);
        let (row_send, row_receive) = mpsc::channel::<GameRow>();
        std::thread::scope(|scope| {
            for _ in 0..jobs {
                let (row_send, job_receive) = (row_send.clone(), &job_receive);
                let (entries, options, stop) = (self.entries, self.options, self.stop);
                scope.spawn(move || {
                    let mut worker = plan.isolation.as_ref().map(|iso| Worker::new(Arc::clone(iso), entries));
                    loop {
                        let job = job_receive.lock().map_err(|_| ()).and_then(|r| r.recv().map_err(|_| ()));
                        let Ok((game, ladder_seed)) = job else { break };
                        let row = play_game(worker.as_mut(), entries, &game, (plan, ladder_seed), options, stop);
                        if row_send.send(row).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(row_send);
            let idle = self.lead(&job_send, &row_receive, missing, summary, on_event);
            drop(job_send);
            idle
        })
    }

    /// The worker's own thread: leases, hands games to the players, commits, renews.
    fn lead(
        &self,
        jobs: &mpsc::Sender<(Scheduled, u64)>,
        rows: &mpsc::Receiver<GameRow>,
        missing: &mut BTreeSet<i64>,
        summary: &mut Summary,
        on_event: &mut dyn FnMut(Event<'_>),
    ) -> Result<Idle, LadderError> {
        let (store, name, lease) = (self.store, self.settings.name.as_str(), self.settings.lease);
        let capacity = self.settings.plan.jobs.max(1);
        // How often an idle worker looks for games (the batch's end costs it up to this)
        // and a busy one for its players' results.
        let poll = (lease / 40).clamp(Duration::from_millis(50), Duration::from_millis(250));
        let mut in_flight: Vec<i64> = Vec::new();
        let mut rescan = false;
        let mut renewed = Instant::now();
        loop {
            let stopping = self.stop.load(Ordering::SeqCst);
            if !stopping && !rescan && in_flight.len() < capacity {
                let leased =
                    store.lease(G::NAME, G::RULES_VERSION, self.options, name, lease, capacity - in_flight.len())?;
                let mut give_back = Vec::new();
                for q in leased {
                    let files = store.version_files(&q.lineup)?;
                    let seat = |v: &i64| files.get(v).and_then(|(n, sha)| self.found.get(&(n.clone(), sha.clone())));
                    let seats: Option<Vec<usize>> = q.lineup.iter().map(|v| seat(v).copied()).collect();
                    if let Some(seats) = seats {
                        let game = Scheduled { id: q.id, versions: q.lineup.clone(), seats, pairing: q.pairing };
                        if jobs.send((game, q.ladder_seed)).is_err() {
                            return Err(LadderError::Db("the worker's players ended".to_owned()));
                        }
                        in_flight.push(q.id);
                        continue;
                    }
                    let unknown: Vec<i64> = q.lineup.iter().copied().filter(|v| seat(v).is_none()).collect();
                    if unknown.iter().all(|v| missing.contains(v)) {
                        // Not found by the scan after the one that missed it: no game of its.
                        let what: Vec<String> = unknown
                            .iter()
                            .map(|v| match files.get(v) {
                                Some((n, sha)) => format!("{n} version {v} ({})", &sha[..12.min(sha.len())]),
                                None => format!("version {v} (not in the database)"),
                            })
                            .collect();
                        let row = lost(&q, format!("not in this worker's bot directories: {}", what.join(", ")));
                        if store.commit_leased(&row, name)? {
                            summary.lost += 1;
                            on_event(Event::Game(&row));
                        }
                    } else {
                        missing.extend(unknown);
                        give_back.push(q.id);
                        rescan = true;
                    }
                }
                store.release(name, &give_back)?;
            }
            if in_flight.is_empty() {
                if stopping {
                    return Ok(Idle::Stopped);
                }
                if rescan {
                    return Ok(Idle::Rescan);
                }
                let queued = store.queued(G::NAME)?;
                if queued.is_empty() {
                    return Ok(Idle::Empty);
                }
                // Games it cannot play (scheduled with other options) would keep it waiting
                // for good: said in one line instead.
                let ours = |q: &Queued| q.options == self.options && q.rules_version == G::RULES_VERSION;
                if let Some(q) = queued.iter().find(|q| !ours(q)).filter(|_| !queued.iter().any(ours)) {
                    return Err(LadderError::Mismatch(format!(
                        "{}: the queued {} games were scheduled with other game options or rules ({} under rules {})                          than this worker plays ({} under rules {}): give every worker the same game options",
                        store.path().display(),
                        G::NAME,
                        q.options,
                        q.rules_version,
                        self.options,
                        G::RULES_VERSION
                    )));
                }
                // Other workers' games: wait for their commits, or for their leases to expire.
                std::thread::sleep(poll);
                continue;
            }
            match rows.recv_timeout(poll) {
                Ok(row) => {
                    in_flight.retain(|&id| id != row.id);
                    if store.commit_leased(&row, name)? {
                        if row.result.is_ok() {
                            summary.played += 1;
                        } else {
                            summary.lost += 1;
                        }
                        on_event(Event::Game(&row));
                    } else {
                        on_event(Event::Dropped(row.id));
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(LadderError::Db("the worker's players ended".to_owned()));
                }
            }
            if renewed.elapsed() >= lease / 3 && !in_flight.is_empty() {
                store.renew(name, &in_flight, lease)?;
                renewed = Instant::now();
            }
        }
    }
}

/// Game `q`, lost with `reason`.
fn lost(q: &Queued, reason: String) -> GameRow {
    GameRow {
        id: q.id,
        game: q.game.clone(),
        seed: q.seed,
        ladder_seed: q.ladder_seed,
        rules_version: q.rules_version,
        options: q.options.clone(),
        pairing: q.pairing,
        lineup: q.lineup.clone(),
        result: Err(reason),
        replay: None,
    }
}
