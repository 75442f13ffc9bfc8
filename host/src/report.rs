//! A tournament's report: one folder to browse or publish, with no outside resources.
//!
//! - `index.html`: the leaderboard (sortable by clicking a column header), with a note
//!   where the 95% confidence intervals of adjacent ranks overlap; the score plot
//!   (inline SVG); per-entry errors, overruns and disqualifications with their first
//!   messages; and one row per game linking its replay page. A tournament played until
//!   decided shows its verdict above the leaderboard, with each pair's numbers.
//! - `games/game-<index>-<seed>.html`: each game's replay page (`Recorded::viewer_page`),
//!   headed by links back to the leaderboard and to the seated entries' logs, and ending
//!   with the command that plays the game again (`replay::play_again`).
//!
//! Written once for every [`Game`]: the leaderboard's columns follow the results'
//! [`Ranking`]. Pages are written as games finish, and the index at the start, every
//! few seconds while games are played (so an interrupted run leaves a browsable folder)
//! and at the end. Every file is written through a temporary file and a rename.
//!
//! This module writes files only where it is told; it plays nothing.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::bot::Entry;
use crate::decide::{Decision, PairState};
use crate::game::{Game, Ranking};
use crate::replay::Replay;
use crate::tournament::{GameRecord, Plan, TournamentResult, summarise};

/// How often the index is rewritten while games are played.
const INDEX_EVERY: Duration = Duration::from_secs(5);

/// The page of game `index` (seed `seed`), relative to the report's folder.
pub fn game_page(index: u64, seed: u64) -> String {
    format!("games/game-{index}-{seed}.html")
}

/// A report folder being written.
#[derive(Debug)]
pub struct Report {
    dir: PathBuf,
    /// Set by [`Report::start`]: what a provisional index needs.
    tournament: Option<Tournament>,
    /// The finished games so far.
    games: Vec<GameRecord>,
    /// Per game index: its page (relative path), or why it has none.
    pages: BTreeMap<u64, Result<String, String>>,
    last_index: Instant,
    /// The first file that could not be written.
    error: Option<String>,
    /// The entries' log directory, linked from each game's page.
    logs: Option<PathBuf>,
}

#[derive(Debug)]
struct Tournament {
    game: String,
    ranking: Ranking,
    names: Vec<String>,
    sources: Vec<(String, PathBuf)>,
    seed: u64,
    rounds: u64,
    /// Games this run plays (its shard's).
    total: u64,
}

impl Report {
    /// Creates the folder `dir` and `dir/games` and checks that files can be written
    /// there, before anything is played. The error is one line.
    pub fn create(dir: &Path) -> Result<Report, String> {
        let games = dir.join("games");
        std::fs::create_dir_all(&games)
            .map_err(|e| format!("{}: cannot create the report folder: {e}", dir.display()))?;
        let probe = games.join(format!(".probe{}", std::process::id()));
        std::fs::write(&probe, b"")
            .map_err(|e| format!("{}: cannot write in the report folder: {e}", dir.display()))?;
        let _ = std::fs::remove_file(&probe);
        Ok(Report {
            dir: dir.to_owned(),
            tournament: None,
            games: Vec::new(),
            pages: BTreeMap::new(),
            last_index: Instant::now(),
            error: None,
            logs: None,
        })
    }

    /// Links each game's page to the entries' logs in `dir` (`--logs`).
    pub fn link_logs(&mut self, dir: &Path) {
        let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_owned());
        self.logs = Some(dir);
    }

    /// The line that heads a game's page in the report: back to the leaderboard, and
    /// the logs of the entries it seated.
    fn nav(&self, names: &[String]) -> String {
        let mut nav = String::from("<p id=\"nav\"><a href=\"../index.html\">&larr; the leaderboard</a>");
        if let Some(logs) = &self.logs {
            nav.push_str(" &middot; logs:");
            for name in names {
                let file = logs.join(format!("{name}.log"));
                let url = format!("file://{}", file.display()).replace(' ', "%20");
                let _ = write!(nav, " <a href=\"{}\">{}</a>", esc(&url), esc(&format!("{name}.log")));
            }
        }
        nav.push_str("</p>\n");
        nav
    }

    /// The report's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The tournament about to be played (`total`: the games of this run); writes a
    /// first index, with no games yet.
    pub fn start<G: Game>(&mut self, entries: &[Entry<G>], plan: &Plan<G>, total: u64) {
        self.tournament = Some(Tournament {
            game: G::NAME.to_owned(),
            ranking: G::RANKING,
            names: entries.iter().map(|e| e.name.clone()).collect(),
            sources: entries.iter().map(|e| (e.name.clone(), e.source.clone())).collect(),
            seed: plan.seed,
            rounds: plan.rounds,
            total,
        });
        self.provisional_index();
    }

    /// A finished game: writes its replay page (when recorded), and the index again if
    /// it is a few seconds old.
    pub fn game<G: Game>(&mut self, record: &GameRecord, replay: Option<&Replay<G>>) {
        let page = match replay.map(|r| G::viewer_page(r)) {
            None => Err("not recorded".to_owned()),
            Some(Err(e)) => Err(format!("no replay page: {e}")),
            Some(Ok(html)) => {
                let names = replay.map(|r| r.header.names.clone()).unwrap_or_default();
                let html = html.replacen("<body>\n", &format!("<body>\n{}", self.nav(&names)), 1);
                let name = game_page(record.index, record.seed);
                match write_atomically(&self.dir.join(&name), html.as_bytes()) {
                    Ok(()) => Ok(name),
                    Err(e) => {
                        self.error.get_or_insert(e.clone());
                        Err(e)
                    }
                }
            }
        };
        self.pages.insert(record.index, page);
        self.games.push(record.clone());
        if self.last_index.elapsed() >= INDEX_EVERY {
            self.provisional_index();
        }
    }

    /// The index of the games finished so far, marked as in progress.
    fn provisional_index(&mut self) {
        self.last_index = Instant::now();
        let Some(t) = &self.tournament else { return };
        let result = summarise(&t.game, t.ranking, &t.names, t.seed, t.rounds, self.games.clone());
        let html =
            index_html(&result, &IndexInfo { total: t.total, sources: &t.sources, in_progress: true }, &self.pages);
        if let Err(e) = write_atomically(&self.dir.join("index.html"), html.as_bytes()) {
            self.error.get_or_insert(e);
        }
    }

    /// Writes the final index of `result` (the finished games, also after an
    /// interruption) and returns its path, or the first file that could not be written.
    pub fn finish(&mut self, result: &TournamentResult) -> Result<PathBuf, String> {
        let (total, sources) =
            self.tournament.as_ref().map_or((result.rounds, Vec::new()), |t| (t.total, t.sources.clone()));
        // Played until decided: the games scheduled, not the most that might have been.
        let total = if result.decision.is_some() { result.rounds } else { total };
        let html = index_html(result, &IndexInfo { total, sources: &sources, in_progress: false }, &self.pages);
        let path = self.dir.join("index.html");
        write_atomically(&path, html.as_bytes())?;
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(path),
        }
    }
}

/// What the index says beyond the results.
#[derive(Debug, Clone, Copy)]
pub struct IndexInfo<'a> {
    /// Games this run was to play.
    pub total: u64,
    /// Each entry's file, by name (shown with its errors).
    pub sources: &'a [(String, PathBuf)],
    /// True while games are still being played.
    pub in_progress: bool,
}

/// The index page of `result`; `pages` gives each game's page (relative to the
/// folder) or why it has none.
pub fn index_html(
    result: &TournamentResult,
    info: &IndexInfo<'_>,
    pages: &BTreeMap<u64, Result<String, String>>,
) -> String {
    let mut h = String::with_capacity(16 * 1024 + 200 * result.games.len());
    let title = format!("{} tournament, seed {}", result.game, result.seed);
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
        esc(&title),
        esc(&title)
    );
    let state = if info.in_progress {
        " (in progress)"
    } else if result.played < info.total {
        " (interrupted)"
    } else {
        ""
    };
    let _ = writeln!(
        h,
        "<p id=\"summary\">{} of {} games played{state}; ranked by {}. Click a column header to sort.</p>",
        result.played,
        info.total,
        ranking_rule(result.ranking)
    );
    if let Some(decision) = &result.decision {
        verdict(&mut h, decision);
    }
    leaderboard(&mut h, result);
    h.push_str("<h2>Scores</h2>\n");
    let unit = crate::with_game!(result.game.as_str(), G => G::SCORES, _ => "points");
    match crate::plot::score_boxplot_svg(result, unit) {
        Ok(svg) if result.played > 0 => {
            h.push_str("<div id=\"plot\">");
            h.push_str(&inline_svg(&svg));
            h.push_str("</div>\n");
        }
        Ok(_) => h.push_str("<p>No games yet.</p>\n"),
        Err(e) => {
            let _ = writeln!(h, "<p>The plot could not be drawn: {}</p>", esc(&e));
        }
    }
    cross_table(&mut h, result);
    problems(&mut h, result, info.sources);
    games(&mut h, result, pages);
    h.push_str("<script>");
    h.push_str(SORT_SCRIPT);
    h.push_str("</script>\n</body>\n</html>\n");
    h
}

/// The verdict of a tournament played until decided, and the pairs behind it.
fn verdict(h: &mut String, d: &Decision) {
    let _ = writeln!(h, "<p id=\"verdict\"><strong>{}</strong></p>", esc(&d.line()));
    let _ = writeln!(
        h,
        "<p>Decided by Kim &amp; Nelson's fully sequential procedure (docs/deciding.md): confidence {}, δ {}, a look every {} games after the first {}; h² = {:.2}.</p>",
        d.rule.confidence,
        esc(&d.rule.delta.to_string()),
        d.rule.batch * d.rule.games_per_block,
        d.rule.first * d.rule.games_per_block,
        d.h_squared
    );
    if !d.out.is_empty() {
        h.push_str("<p>Out of the race: ");
        let out: Vec<String> = d
            .out
            .iter()
            .map(|o| {
                format!(
                    "{} (beaten by {} after {} games)",
                    esc(&o.entry),
                    esc(&o.by),
                    o.blocks * d.rule.games_per_block
                )
            })
            .collect();
        h.push_str(&out.join(", "));
        h.push_str(".</p>\n");
    }
    if d.pairs.is_empty() {
        return;
    }
    h.push_str("<div class=\"wide\">\n<table id=\"pairs\">\n<thead><tr>");
    for name in ["entry", "against", "blocks", "mean advantage", "first-stage sd", "δ", "state"] {
        let _ = write!(h, "<th>{}</th>", esc(name));
    }
    h.push_str("</tr></thead>\n<tbody>\n");
    for p in &d.pairs {
        let state = match p.state {
            PairState::Beats => "beats",
            PairState::Beaten => "beaten",
            PairState::Within => "within δ",
            PairState::Open => "open",
        };
        let _ = write!(h, "<tr>{}{}", text(&p.a), text(&p.b));
        h.push_str(&num(p.blocks as f64, &p.blocks.to_string()));
        h.push_str(&num(p.mean_advantage, &format!("{:.3}", p.mean_advantage)));
        h.push_str(&num(p.first_stage_sd, &format!("{:.3}", p.first_stage_sd)));
        h.push_str(&num(p.delta, &format!("{:.3}", p.delta)));
        let _ = writeln!(h, "{}</tr>", text(state));
    }
    h.push_str("</tbody>\n</table>\n</div>\n");
}

fn ranking_rule(ranking: Ranking) -> &'static str {
    match ranking {
        Ranking::Median => "median score, then mean",
        Ranking::Mean => "mean score, then median",
        Ranking::Total => {
            "total points, then the mean distance of the best copy to the target (nearer first), then mean"
        }
        Ranking::Pairs => "match points (per opponent: win 1, draw 1/2), then margin, then survival",
    }
}

/// Each entry's scores, by name.
fn scores_by_entry(result: &TournamentResult) -> BTreeMap<&str, Vec<u32>> {
    let mut scores: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
    for g in &result.games {
        for (name, &s) in &g.scores {
            scores.entry(name.as_str()).or_default().push(s);
        }
    }
    scores
}

/// A 95% confidence interval of the mean: a percentile bootstrap (seeded, so a report
/// is reproducible), which never leaves the range of the scores, where the normal
/// approximation gave non-negative scores intervals such as [-0.1, 0.6].
fn mean_ci(scores: &[u32]) -> (f64, f64) {
    crate::tournament::bootstrap_mean_ci(scores, 0x6d65_616e)
}

fn leaderboard(h: &mut String, result: &TournamentResult) {
    let pairs = result.ranking == Ranking::Pairs;
    let scores = scores_by_entry(result);
    // The interval of each entry's ranking key (none for match points).
    let key_ci: Vec<Option<(f64, f64)>> = result
        .leaderboard
        .iter()
        .map(|s| {
            let own = scores.get(s.name.as_str()).map_or(&[][..], Vec::as_slice);
            match result.ranking {
                Ranking::Median => Some((s.median_ci_low, s.median_ci_high)),
                Ranking::Mean => Some(mean_ci(own)),
                Ranking::Total => {
                    let (lo, hi) = mean_ci(own);
                    let n = own.len() as f64;
                    Some((lo * n, hi * n))
                }
                Ranking::Pairs => None,
            }
        })
        .collect();
    h.push_str(
        "<h2>Leaderboard</h2>\n<div class=\"wide\">\n<table id=\"leaderboard\" class=\"sortable\">\n<thead><tr>",
    );
    let mut headers = vec!["rank", "entry"];
    if pairs {
        headers.extend(["points", "margin", "survival"]);
    }
    headers.extend(["median", "median 95% CI", "mean"]);
    match result.ranking {
        Ranking::Mean => headers.push("mean 95% CI"),
        Ranking::Total => headers.extend(["total", "total 95% CI"]),
        _ => {}
    }
    headers.extend(["min", "max", "games", "calls", "µs/call", "errors", "overruns", "out", "note"]);
    for name in &headers {
        let _ = write!(h, "<th>{}</th>", esc(name));
    }
    h.push_str("</tr></thead>\n<tbody>\n");
    let ci = |(lo, hi): (f64, f64)| (lo, format!("[{lo:.1}, {hi:.1}]"));
    for (i, s) in result.leaderboard.iter().enumerate() {
        let rank = i + 1;
        let played = scores.get(s.name.as_str()).map_or(0, Vec::len);
        let _ = write!(h, "<tr id=\"entry-{rank}\">{}{}", num(rank as f64, &rank.to_string()), text(&s.name));
        if pairs {
            h.push_str(&num(s.points, &format!("{:.1}", s.points)));
            h.push_str(&num(s.margin, &format!("{:.1}", s.margin)));
            h.push_str(&num(s.survival, &format!("{:.1}", s.survival)));
        }
        h.push_str(&num(s.median, &format!("{:.1}", s.median)));
        let (v, t) = ci((s.median_ci_low, s.median_ci_high));
        h.push_str(&num(v, &t));
        h.push_str(&num(s.mean, &format!("{:.2}", s.mean)));
        if result.ranking == Ranking::Total {
            h.push_str(&num(s.total as f64, &s.total.to_string()));
        }
        if let (Ranking::Mean | Ranking::Total, Some(interval)) = (result.ranking, key_ci[i]) {
            let (v, t) = ci(interval);
            h.push_str(&num(v, &t));
        }
        for (v, t) in [
            (f64::from(s.min), s.min.to_string()),
            (f64::from(s.max), s.max.to_string()),
            (played as f64, played.to_string()),
            (s.stats.calls as f64, s.stats.calls.to_string()),
            (s.mean_call_micros, format!("{:.2}", s.mean_call_micros)),
            (s.stats.errors as f64, s.stats.errors.to_string()),
            (s.stats.overruns as f64, s.stats.overruns.to_string()),
            (s.stats.disqualified as f64, s.stats.disqualified.to_string()),
        ] {
            h.push_str(&num(v, &t));
        }
        let note = match (i.checked_sub(1).and_then(|j| key_ci[j]), key_ci[i]) {
            (Some((alo, ahi)), Some((lo, hi))) if played > 1 && lo <= ahi && alo <= hi => {
                format!("not separated from rank {i} at 95%")
            }
            _ => String::new(),
        };
        let _ = writeln!(h, "<td class=\"note\">{}</td></tr>", esc(&note));
    }
    h.push_str("</tbody>\n</table>\n</div>\n");
    let key = match result.ranking {
        Ranking::Median => "the bootstrap 95% confidence intervals of the median (1,000 resamples)",
        Ranking::Mean => "the bootstrap 95% confidence intervals of the mean (1,000 resamples)",
        Ranking::Total => {
            "the bootstrap 95% confidence intervals of the total (the mean's, 1,000 resamples, times the games played)"
        }
        Ranking::Pairs => "",
    };
    if key.is_empty() {
        h.push_str("<p class=\"small\">Match points have no confidence interval; the median's is shown for the scores in every seat.</p>\n");
    } else {
        let _ = writeln!(
            h,
            "<p class=\"small\">note: where {key} of an entry and the entry ranked just above it overlap, the games played do not separate them. µs/call: mean duration of a bot call (one call in 16 is timed); out: games in which the entry was disqualified (it crashed, hung, or spent its time bank).</p>"
        );
    }
}

/// Entry against entry (`tournament::CrossTable`): each row's wins, draws and losses
/// against each column, and its margin in the cell's title.
fn cross_table(h: &mut String, result: &TournamentResult) {
    let t = &result.cross_table;
    if t.entries.len() < 2 {
        return;
    }
    h.push_str("<h2>Head to head</h2>\n");
    let what = if result.ranking == Ranking::Pairs {
        "the row's match against the column: W (its mean score in the first seat against the column is higher than the column's against it), D or L, and the difference"
    } else {
        "the row's wins, draws and losses against the column by score in the games both played, and the mean difference of their scores"
    };
    let _ = writeln!(h, "<p class=\"small\">Each cell: {what}.</p>");
    h.push_str("<div class=\"wide\"><table id=\"cross\">\n<thead><tr><th></th>");
    for name in &t.entries {
        let _ = write!(h, "<th>{}</th>", esc(name));
    }
    h.push_str("</tr></thead>\n<tbody>\n");
    for (name, row) in t.entries.iter().zip(&t.cells) {
        let _ = write!(h, "<tr><th>{}</th>", esc(name));
        for cell in row {
            match cell {
                None => h.push_str("<td class=\"n\">&middot;</td>"),
                Some(c) => {
                    let _ = write!(
                        h,
                        "<td class=\"n\" title=\"{} games\">{}&ndash;{}&ndash;{} <span class=\"small\">({:+.1})</span></td>",
                        c.games, c.wins, c.draws, c.losses, c.margin
                    );
                }
            }
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody>\n</table></div>\n");
}

fn problems(h: &mut String, result: &TournamentResult, sources: &[(String, PathBuf)]) {
    h.push_str("<h2>Errors, overruns and disqualifications</h2>\n");
    let troubled: Vec<_> =
        result.leaderboard.iter().filter(|s| s.stats.errors + s.stats.overruns + s.stats.disqualified > 0).collect();
    if troubled.is_empty() {
        h.push_str("<p id=\"problems\">No bot failed a call: no errors, overruns or disqualifications.</p>\n");
    } else {
        h.push_str("<ul id=\"problems\">\n");
        for s in troubled {
            let file = sources.iter().find(|(n, _)| *n == s.name).map(|(_, p)| p.display().to_string());
            let _ = write!(
                h,
                "<li><b>{}</b>{}: {} errors, {} over budget/time/memory, disqualified in {} games, in {} calls; first messages:<ul>",
                esc(&s.name),
                file.map_or(String::new(), |f| format!(" <code>{}</code>", esc(&f))),
                s.stats.errors,
                s.stats.overruns,
                s.stats.disqualified,
                s.stats.calls
            );
            for m in &s.stats.messages {
                let _ = write!(h, "<li><code>{}</code></li>", esc(m));
            }
            h.push_str("</ul></li>\n");
        }
        h.push_str("</ul>\n");
    }
    if !result.failed.is_empty() {
        h.push_str("<h2>Games that could not be played</h2>\n<ul id=\"failed\">\n");
        for f in &result.failed {
            let _ = writeln!(h, "<li>game {} (seed {}): {}</li>", f.index, f.seed, esc(&f.reason));
        }
        h.push_str("</ul>\n");
    }
}

fn games(h: &mut String, result: &TournamentResult, pages: &BTreeMap<u64, Result<String, String>>) {
    h.push_str("<h2>Games</h2>\n");
    h.push_str(
        "<p class=\"small\">Each game's page ends with the command that plays it again alone: <code>arena --game GAME play --seed SEED --entries A,B,...</code> (the entries it seated, in seat order, and its options). Scores in seat order when a game seats some entries, else best first.</p>\n",
    );
    // What a game's length counts (target: rounds).
    let turns = crate::with_game!(result.game.as_str(), G => G::TURNS, _ => "turns");
    let _ = writeln!(
        h,
        "<table id=\"games\" class=\"sortable\">\n<thead><tr><th>game</th><th>seed</th><th>{turns}</th><th>scores</th></tr></thead>\n<tbody>"
    );
    for g in &result.games {
        let link = match pages.get(&g.index) {
            Some(Ok(page)) => format!("<a href=\"{}\">game {}</a>", esc(page), g.index),
            Some(Err(why)) => format!("game {} <span class=\"small\">({})</span>", g.index, esc(why)),
            None => format!("game {}", g.index),
        };
        let order: Vec<(&String, u32)> = if g.seats.is_empty() {
            let mut all: Vec<_> = g.scores.iter().map(|(n, &s)| (n, s)).collect();
            all.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
            all
        } else {
            g.seats.iter().filter_map(|n| g.scores.get(n).map(|&s| (n, s))).collect()
        };
        // One unbreakable piece per entry; the cell wraps between them, so that a game of
        // many entries stays within the page.
        let scores: Vec<String> =
            order.iter().map(|(n, s)| format!("<span class=\"s\">{} {s}</span>", esc(n))).collect();
        let _ = writeln!(
            h,
            "<tr class=\"game\"><td data-v=\"{}\">{link}</td><td data-v=\"{}\">{}</td>{}<td class=\"scores\">{}</td></tr>",
            g.index,
            g.seed,
            g.seed,
            num(f64::from(g.turns), &g.turns.to_string()),
            scores.join(" · ")
        );
    }
    h.push_str("</tbody>\n</table>\n");
}

/// A numeric cell: sorted by `value`, showing `shown`.
fn num(value: f64, shown: &str) -> String {
    format!("<td class=\"n\" data-v=\"{value}\">{}</td>", esc(shown))
}

fn text(shown: &str) -> String {
    format!("<td>{}</td>", esc(shown))
}

/// HTML-escapes text for an element or a quoted attribute.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// An SVG document as an element of an HTML page: without its XML declaration and
/// namespace attributes (an HTML parser needs neither, and they are URLs).
fn inline_svg(svg: &str) -> String {
    let start = svg.find("<svg").unwrap_or(0);
    let mut s = svg[start..].to_owned();
    for attr in [" xmlns=\"http://www.w3.org/2000/svg\"", " xmlns:xlink=\"http://www.w3.org/1999/xlink\""] {
        s = s.replace(attr, "");
    }
    s
}

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp{}", std::process::id()));
    let write = || -> std::io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        std::fs::rename(&tmp, path)
    };
    write().map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("{}: cannot write the report page: {e}", path.display())
    })
}

const STYLE: &str = r#"
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
table { border-collapse: collapse; }
th, td { padding: 3px 8px; border-bottom: 1px solid #ddd; text-align: left; white-space: nowrap; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
th { cursor: pointer; user-select: none; background: #f3f3f3; }
th[aria-sort=ascending]::after { content: " \25B2"; }
th[aria-sort=descending]::after { content: " \25BC"; }
td.note { color: #a05a00; }
.small { color: #666; font-size: 0.9em; }
#plot svg { max-width: 100%; height: auto; }
td.scores { white-space: normal; }
td.scores .s { white-space: nowrap; }
.wide { overflow-x: auto; max-width: 100%; }
code { font-size: 0.95em; }
"#;

/// Sorts a table by the clicked column: numbers by their `data-v`, else by text; a
/// second click reverses.
const SORT_SCRIPT: &str = r#"
document.querySelectorAll("table.sortable").forEach(function (table) {
  var heads = table.tHead.rows[0].cells;
  Array.prototype.forEach.call(heads, function (th, col) {
    th.addEventListener("click", function () {
      var ascending = th.getAttribute("aria-sort") !== "ascending";
      Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      var key = function (row) {
        var cell = row.cells[col];
        var v = cell.getAttribute("data-v");
        return v !== null && v !== "" && !isNaN(Number(v)) ? Number(v) : cell.textContent.trim().toLowerCase();
      };
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        var c = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
        return ascending ? c : -c;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
});
"#;

#[cfg(test)]
mod tests {
    use super::mean_ci;

    #[test]
    fn the_interval_of_the_mean_of_non_negative_scores_never_goes_negative() {
        for scores in [&[0, 0, 0, 0, 1, 0, 0, 3][..], &[0, 0, 0, 6], &[0, 1], &[0, 0, 0, 0, 0, 0, 0, 0, 0, 2]] {
            let (lo, hi) = mean_ci(scores);
            let mean = crate::tournament::mean(scores);
            assert!(lo >= 0.0 && lo <= mean && mean <= hi, "{scores:?}: [{lo}, {hi}], mean {mean}");
            assert!(hi <= f64::from(*scores.iter().max().unwrap()), "{scores:?}: [{lo}, {hi}]");
        }
    }
}
