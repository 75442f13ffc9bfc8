//! What the terminal shows while and after games run: the progress of a tournament
//! ([`Progress`]: a bar on a terminal, a line every few seconds otherwise), the
//! leaderboard, one line per entry that made errors, the games that could not be
//! played and the exit status that says so ([`exit_if_lost`]), and Ctrl-C (the first
//! lets the games in flight finish, the second writes the finished games and quits),
//! and standard output itself ([`out`], behind the `outln!` macro every command prints
//! with): once it is a closed pipe (`arena ... | head`), nothing more is printed and the
//! command goes on to write its files.
//!
//! Not here: the files a command writes (`files`), or the numbers shown, which the
//! library computes (`arena::tournament`).

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};
use arena::bot::Entry;
use arena::game::{Game, Ranking};
use arena::tournament::{self, TournamentResult};
use indicatif::{ProgressBar, ProgressStyle};

/// What a second Ctrl-C runs before the program quits (writing the finished games).
static ON_QUIT: std::sync::Mutex<Option<Box<dyn Fn() + Send>>> = std::sync::Mutex::new(None);

/// Set by a second Ctrl-C: the program then ends with its status (130), even when the
/// games in flight happen to finish while it writes the results.
static QUITTING: AtomicBool = AtomicBool::new(false);

/// Set once standard output cannot be written (a closed pipe, a full disk).
static STDOUT_GONE: AtomicBool = AtomicBool::new(false);

/// Prints to standard output (through `outln!`). The host ignores SIGPIPE, as every
/// process that writes to bots and workers must (a write to one that just died must fail
/// with `EPIPE`, not end the tournament); so a closed standard output is an error here,
/// and the answer to it is to stop printing, not to stop the run: the games go on and
/// the results, replays and report are still written. Any other error says so once on
/// standard error.
pub fn out(args: std::fmt::Arguments<'_>) {
    if STDOUT_GONE.load(Ordering::Relaxed) {
        return;
    }
    let mut stdout = std::io::stdout().lock();
    if let Err(err) = stdout.write_fmt(args).and_then(|()| stdout.flush()) {
        if !STDOUT_GONE.swap(true, Ordering::Relaxed) && err.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("warning: cannot write to standard output ({err}): nothing more is printed there");
        }
    }
}

/// Sets what a second Ctrl-C runs before the program quits.
pub fn on_quit(f: Box<dyn Fn() + Send>) {
    if let Ok(mut slot) = ON_QUIT.lock() {
        *slot = Some(f);
    }
}

/// The exit status of a command stopped by Ctrl-C, SIGTERM or SIGHUP (or its parent's
/// death, which sends it SIGTERM) before it played everything: 130, as a shell reports
/// a Ctrl-C'd program. Its results hold the games finished before.
pub const EXIT_INTERRUPTED: i32 = 130;

/// How long the games in flight may take to finish after the first stop signal before
/// the program writes what is finished and quits.
pub const STOP_GRACE: Duration = Duration::from_secs(10);

/// A flag set by the first Ctrl-C, SIGTERM or SIGHUP: no new game starts, and the games
/// in flight have [`STOP_GRACE`] to finish; then, or at a second signal, the program
/// writes the games finished so far and quits with [`EXIT_INTERRUPTED`] (its workers
/// and their boxes die with it).
pub fn stop_on_ctrl_c() -> Result<Arc<AtomicBool>> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            quit_now();
        }
        eprintln!(
            "\nstopping: finishing the games in flight (at most {} s; Ctrl-C again to quit now)",
            STOP_GRACE.as_secs()
        );
        std::thread::spawn(|| {
            std::thread::sleep(STOP_GRACE);
            quit_now();
        });
    })
    .context("cannot install the Ctrl-C handler")?;
    Ok(stop)
}

/// Writes the finished games (what [`on_quit`] set) and ends the program with
/// [`EXIT_INTERRUPTED`].
fn quit_now() -> ! {
    if !QUITTING.swap(true, Ordering::SeqCst) {
        eprintln!("\nquitting: writing the results of the finished games");
        if let Ok(slot) = ON_QUIT.try_lock()
            && let Some(write) = slot.as_ref()
        {
            write();
        }
    }
    std::process::exit(EXIT_INTERRUPTED);
}

/// Ends the program with [`EXIT_INTERRUPTED`] when `stop` was set and not every game was
/// played (call it once everything is written).
pub fn exit_if_interrupted(stop: &AtomicBool, played: u64, total: u64) {
    if stop.load(Ordering::SeqCst) && played < total {
        let _ = std::io::stdout().flush();
        std::process::exit(EXIT_INTERRUPTED);
    }
}

/// Asks the kernel to send this process SIGTERM when its parent ends (a shell closed, a
/// supervisor killed): it then stops as at a first Ctrl-C, instead of running on alone.
pub fn stop_with_parent() {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with PR_SET_PDEATHSIG only sets this process's parent-death signal.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
    }
}

/// Waits while a second Ctrl-C writes the finished games (its handler then ends the
/// program with [`EXIT_INTERRUPTED`]), so that `main` does not end it first with its own
/// status.
pub fn wait_while_quitting() {
    while QUITTING.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Progress of a tournament: a bar on a terminal, plain lines otherwise.
pub struct Progress {
    ranking: Ranking,
    bar: Option<ProgressBar>,
    names: Vec<String>,
    scores: Vec<Vec<u32>>,
    done: u64,
    total: u64,
    started: Instant,
    last_line: Instant,
}

impl Progress {
    pub fn new<G: Game>(total: u64, entries: &[Entry<G>]) -> Progress {
        let bar = std::io::stdout().is_terminal().then(|| {
            let bar = ProgressBar::new(total);
            bar.set_style(
                ProgressStyle::with_template("{bar:30} {pos}/{len} games  {per_sec}  ETA {eta}  leader: {msg}")
                    .expect("a valid template"),
            );
            bar
        });
        let names: Vec<String> = entries.iter().map(|e| e.name.clone()).collect();
        let scores = vec![Vec::new(); names.len()];
        Progress {
            ranking: G::RANKING,
            bar,
            names,
            scores,
            done: 0,
            total,
            started: Instant::now(),
            last_line: Instant::now(),
        }
    }

    /// The entry ahead so far, by the game's ranking key.
    fn leader(&self) -> String {
        let key = |scores: &[u32]| match self.ranking {
            Ranking::Median => tournament::median(scores),
            Ranking::Mean => tournament::mean(scores),
            Ranking::Total => scores.iter().map(|&s| f64::from(s)).sum(),
            Ranking::Pairs => tournament::mean(scores),
        };
        let best = (0..self.names.len())
            .map(|i| (key(&self.scores[i]), i))
            .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)));
        // What the number is, in words (a two-seat game's ranking by match points needs
        // every pair played: meanwhile the leader is by mean score, either side).
        let what = match self.ranking {
            Ranking::Median => "median score",
            Ranking::Mean => "mean score",
            Ranking::Total => "total points",
            Ranking::Pairs => "mean score so far, either side",
        };
        best.map_or_else(String::new, |(m, i)| format!("{} ({what} {m:.1})", self.names[i]))
    }

    pub fn game(&mut self, g: &tournament::GameRecord) {
        self.done += 1;
        for (i, name) in self.names.iter().enumerate() {
            if let Some(&s) = g.scores.get(name) {
                self.scores[i].push(s);
            }
        }
        if let Some(bar) = &self.bar {
            bar.set_message(self.leader());
            bar.inc(1);
        } else if self.last_line.elapsed().as_secs() >= 5 || self.done == self.total {
            self.last_line = Instant::now();
            let rate = rate_text(self.done, self.started.elapsed().as_secs_f64());
            eprintln!("{}/{} games, {rate}, leader: {}", self.done, self.total, self.leader());
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

pub fn print_leaderboard(result: &TournamentResult, sources: &[(String, PathBuf)]) {
    outln!();
    if result.ranking == Ranking::Pairs {
        outln!(
            "{:<4} {:<20} {:>6} {:>9} {:>9}   (survival as humans: mean over rounds, summed over opponents)",
            "rank",
            "entry",
            "points",
            "margin",
            "survival"
        );
        for (rank, s) in result.leaderboard.iter().enumerate() {
            outln!("{:<4} {:<20} {:>6.1} {:>9.1} {:>9.1}", rank + 1, s.name, s.points, s.margin, s.survival);
        }
        outln!();
    }
    if result.ranking == Ranking::Total {
        outln!(
            "{:<4} {:<20} {:>8} {:>9} {:>8}   (total: the points summed over games, the ranking; tie-break: its mean measure, lower first)",
            "rank",
            "entry",
            "total",
            "tie-break",
            "mean"
        );
        for (rank, s) in result.leaderboard.iter().enumerate() {
            outln!("{:<4} {:<20} {:>8} {:>9.2} {:>8.2}", rank + 1, s.name, s.total, s.tiebreak, s.mean);
        }
        outln!();
    }
    let lost = result.leaderboard.iter().any(|s| s.lost > 0);
    outln!(
        "{:<4} {:<20} {:>7} {:>7} {:>15} {:>8} {:>5} {:>5} {:>10} {:>8} {:>7} {:>8} {:>4}",
        "rank",
        "entry",
        if lost { "games*" } else { "games" },
        "median",
        "95% CI",
        "mean",
        "min",
        "max",
        "calls",
        "us/call",
        "errors",
        "overruns",
        "out"
    );
    for (rank, s) in result.leaderboard.iter().enumerate() {
        outln!(
            "{:<4} {:<20} {:>7} {:>7.1} {:>15} {:>8.2} {:>5} {:>5} {:>10} {:>8.2} {:>7} {:>8} {:>4}",
            rank + 1,
            s.name,
            if s.lost > 0 { format!("{}-{}", s.games + s.lost, s.lost) } else { s.games.to_string() },
            s.median,
            format!("[{:.1}, {:.1}]", s.median_ci_low, s.median_ci_high),
            s.mean,
            s.min,
            s.max,
            s.stats.calls,
            s.mean_call_micros,
            s.stats.errors,
            s.stats.overruns,
            s.stats.disqualified
        );
    }
    let ranked = match result.ranking {
        Ranking::Median => "median score, then mean",
        Ranking::Mean => "mean score, then median",
        Ranking::Total => {
            "total points, then the mean distance of the best copy to the target (nearer first), then mean"
        }
        Ranking::Pairs => "match points (per opponent: win 1, draw 1/2), then margin, then survival",
    };
    outln!(
        "(ranked by {ranked}; out: games in which the entry was disqualified: it crashed, hung, or spent its time bank)"
    );
    if lost {
        outln!("(games*: N-L: the entry was to play N games, L of which could not be played, listed below)");
    }
    print_problems(result.leaderboard.iter().map(|s| (s.name.as_str(), &s.stats)), sources);
    for f in &result.failed {
        let who = if f.entries.is_empty() { String::new() } else { format!(" [{}]", f.entries.join(", ")) };
        outln!("game {} (seed {}){who} could not be played: {}", f.index, f.seed, f.reason);
    }
}

/// The exit status of a tournament (or merge) whose results lack games that could not
/// be played (the results hold every other game): 3, distinct from an error's 1.
const EXIT_LOST_GAMES: i32 = 3;

/// Ends the process with [`EXIT_LOST_GAMES`] after a last line saying so, when games
/// were lost.
pub fn exit_if_lost(result: &TournamentResult) {
    exit_if_lost_after(result, None);
}

/// [`exit_if_lost`], with `last` printed as the last line either way (a tournament's
/// verdict).
pub fn exit_if_lost_after(result: &TournamentResult, last: Option<&str>) {
    if !result.failed.is_empty() {
        outln!(
            "{} game(s) could not be played and are not in the results (listed above, and under \"failed\" in the JSON); exit status {EXIT_LOST_GAMES}",
            result.failed.len()
        );
    }
    if let Some(line) = last {
        outln!("{line}");
    }
    if !result.failed.is_empty() {
        let _ = std::io::stdout().flush();
        std::process::exit(EXIT_LOST_GAMES);
    }
}

/// One line per entry that made errors, overran or was disqualified: its file, the
/// counts and its first distinct messages (the same after `play` and a tournament).
pub fn print_problems<'a>(
    entries: impl Iterator<Item = (&'a str, &'a arena::bot::CallStats)>,
    sources: &[(String, PathBuf)],
) {
    for (name, s) in entries.filter(|(_, s)| s.errors + s.overruns + s.disqualified > 0) {
        let file =
            sources.iter().find(|(n, _)| n == name).map_or(String::new(), |(_, p)| format!(" ({})", p.display()));
        outln!(
            "{name}{file}: {} errors, {} over budget/time/memory, disqualified in {} games, in {} calls; first: {}",
            s.errors,
            s.overruns,
            s.disqualified,
            s.calls,
            s.messages.join(" | ")
        );
    }
}

/// Games per second, or seconds per game when games are slower than one a second (a rate
/// of "0.0 games/s" says nothing).
pub fn rate_text(games: u64, secs: f64) -> String {
    if games == 0 {
        return "no game finished yet".to_owned();
    }
    let rate = games as f64 / secs.max(1e-9);
    if rate >= 1.0 { format!("{rate:.1} games/s") } else { format!("{:.1} s/game", secs / games as f64) }
}

/// What each seat plays in a game that seats entries in roles (hex: the first seat
/// plays the humans, the second the zombies); empty for games where every seat is alike.
pub fn seat_labels<G: Game>() -> &'static [&'static str] {
    match (G::RANKING, arena::games::seat_roles(G::NAME)) {
        (Ranking::Pairs, []) => &["first seat", "second seat"],
        (Ranking::Pairs, roles) => roles,
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::rate_text;

    #[test]
    fn a_slow_rate_is_given_in_seconds_per_game_never_as_zero_games_per_second() {
        assert_eq!(rate_text(3, 120.0), "40.0 s/game");
        assert_eq!(rate_text(30, 10.0), "3.0 games/s");
        assert_eq!(rate_text(0, 10.0), "no game finished yet");
    }
}
