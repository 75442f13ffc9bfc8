//! Replays and the HTML viewer: recording, the file format, robustness against corrupt
//! files, size, and the page in a real browser (headless Chromium through WebDriver).

use arena::games::zombies::Zombies;
use std::path::Path;
use std::process::Command;

use arena::abi::{Action, Context, Direction};
use arena::bot::Entry;
use arena::games::zombies::replay::Call;
use arena::games::zombies::viewer as html;
use arena::play::play_recorded;
use arena::replay::{Header, ReplayError};
use proptest::prelude::*;
use serde_json::{Value, json};

type Replay = arena::replay::Replay<Zombies>;
use arena::games::zombies;
use arena::tournament::play_game;

use crate::util::{Driver, random_bot, root, untimed};

fn entries() -> Vec<Entry<Zombies>> {
    let (_dir, mut found) = {
        let dir = tempfile::tempdir().unwrap();
        for f in ["gunslinger.lua", "sentinel.rhai"] {
            std::fs::copy(root().join("scripts/zombies").join(f), dir.path().join(f)).unwrap();
        }
        let found = arena::loaders::discover(
            &arena::loaders::SearchPaths { plugins: vec![], scripts: vec![dir.path().to_owned()] },
            &Default::default(),
        );
        (dir, found.entries)
    };
    found.push(Entry::<Zombies>::builtin("Random", random_bot));
    found.push(Entry::builtin("Still", || |_: &Context<'_>| Action::stay()));
    found
}

fn small() -> zombies::Config {
    zombies::Config { players_per_entry: 15, max_turns: None }
}

#[test]
fn a_recorded_game_is_the_same_game_and_replays_to_the_same_result() {
    let entries = entries();
    let (outcome, replay) = play_recorded(&entries, 21, &small());
    assert_eq!(untimed(outcome.clone()), untimed(play_game(&entries, 21, &small())), "recording changes nothing");
    assert!(replay.calls.iter().any(|c| c.action.kind == Action::SHOOT), "the scripts shoot");
    assert!(replay.calls.iter().any(|c| c.draws > 0), "the random bot draws");
    let bytes = replay.to_bytes();
    let back = Replay::from_bytes(&bytes).unwrap();
    assert_eq!(back, replay);
    let again = html::replay_turns(&back, |_| {}).unwrap();
    assert_eq!((again.turns, again.scores), (outcome.turns, outcome.scores));
}

#[test]
fn replay_files_are_compact() {
    // A real game: a few bytes per turn.
    let (outcome, replay) = play_recorded(&entries(), 3, &zombies::Config::default());
    let size = replay.to_bytes().len();
    assert!(size < 200 * outcome.turns as usize + 2000, "{size} bytes for {} turns", outcome.turns);

    // The worst case the format has to hold: 20 entries whose 50 players all live 3,000
    // turns, each moving at random (one draw) every turn, 3 million calls: within 2 MB.
    let mut x = 7u64;
    let calls: Vec<Call> = (0..20 * 50 * 3000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            Call { action: Action::go(Direction::ALL[(x % 9) as usize]), draws: 1 }
        })
        .collect();
    let names = (0..20).map(|i| format!("Entry{i}")).collect();
    let config = serde_json::json!({"players_per_entry": 50, "max_turns": null}).as_object().unwrap().clone();
    let header = Header { game: "zombies".into(), seed: 1, names, turns: 3000, scores: vec![2999; 20], config };
    let size = Replay { header, calls, notes: Vec::new() }.to_bytes().len();
    assert!(size <= 2 << 20, "{size} bytes");
}

#[test]
fn corrupt_or_truncated_replays_give_one_line_errors() {
    let (_, replay) = play_recorded(&entries(), 4, &small());
    let bytes = replay.to_bytes();
    let err = |b: &[u8]| Replay::from_bytes(b).and_then(|r| html::replay_turns(&r, |_| {}).map(|_| r)).unwrap_err();
    assert_eq!(err(b"hello world"), ReplayError::NotAReplay);
    assert_eq!(err(b"ZR"), ReplayError::Truncated("in the signature"));
    assert!(matches!(err(&bytes[..10]), ReplayError::Truncated(_)));
    assert!(matches!(err(&bytes[..bytes.len() / 2]), ReplayError::Truncated(_) | ReplayError::Corrupt(_)));
    let mut other = bytes.clone();
    other[4] = 9;
    assert!(matches!(err(&other), ReplayError::Version(9, _, _)));
    // Fewer calls than the game needs: caught by re-playing.
    let mut short = replay.clone();
    short.calls.truncate(short.calls.len() / 2);
    assert!(matches!(err(&short.to_bytes()), ReplayError::Mismatch(_)));
    for e in [err(&bytes[..bytes.len() - 3]), err(&short.to_bytes())] {
        assert!(!e.to_string().contains('\n'), "{e}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, .. ProptestConfig::default() })]

    /// Fuzzing the reader: any truncation and any byte changes of a valid file, and any
    /// bytes at all, are read (and re-played) without a panic.
    #[test]
    fn the_reader_never_panics(cut in 0usize..4000, flips in proptest::collection::vec((0usize..4000, any::<u8>()), 0..4), junk in proptest::collection::vec(any::<u8>(), 0..64)) {
        let bytes = fuzz_base();
        let mut b = bytes[..cut.min(bytes.len())].to_vec();
        for (at, v) in flips {
            if let Some(x) = b.get_mut(at) { *x ^= v; }
        }
        b.extend(&junk);
        let _ = Replay::from_bytes(&b).and_then(|r| html::replay_turns(&r, |_| {}));
        let _ = Replay::from_bytes(&junk);
    }
}

fn fuzz_base() -> Vec<u8> {
    static BASE: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    BASE.get_or_init(|| {
        let entries = vec![
            Entry::<Zombies>::builtin("Random", random_bot),
            Entry::<Zombies>::builtin("Emo", || |c: &Context<'_>| Action::shoot(c.id)),
        ];
        play_recorded(&entries, 2, &zombies::Config { players_per_entry: 5, max_turns: None }).1.to_bytes()
    })
    .clone()
}

#[test]
fn the_page_is_self_contained_and_holds_every_turn() {
    let (outcome, replay) = play_recorded(&entries(), 6, &small());
    let page = html::render(&replay).unwrap();
    for outside in ["http://", "https://", "src=", "href=", "@import", "url("] {
        assert!(!page.contains(outside), "the page loads nothing from outside: {outside}");
    }
    let data = html::viewer_data(&replay).unwrap();
    assert_eq!(data["frames"].as_array().unwrap().len() as u32, outcome.turns);
    assert_eq!(data["alive"].as_array().unwrap().len() as u32, outcome.turns + 1);
    assert!(page.contains("\"names\":["));
    // The entries' colours are the score plot's, and none is the hit colour.
    assert_eq!(data["colours"], json!(arena::plot::entry_colours(4)));
    assert_eq!(data["hit"], arena::plot::HIT_COLOUR);
    assert!(!data["colours"].as_array().unwrap().contains(&data["hit"]));
    assert_eq!(data["score"].as_array().unwrap().len() as u32, outcome.turns + 1);
    assert_eq!(data["score"][outcome.turns as usize], json!(outcome.scores));
}

// ----- in a real browser ---------------------------------------------------------------

/// Without chromedriver (outside CI) a browser test passes without checking anything, and
/// the test output says so: the line is not captured away like a passing test's prints.
#[test]
fn a_browser_test_without_chromedriver_says_it_skipped_in_the_test_output() {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["viewer::the_viewer_steps_with_the_arrow_key_in_headless_chromium", "--exact", "--test-threads=1"])
        .env("ARENA_CHROMEDRIVER", "/nonexistent/chromedriver")
        .env_remove("CI")
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{text}");
    assert!(text.contains("1 passed"), "{text}");
    assert!(text.contains("skipping a browser test: no chromedriver"), "the skip is not shown: {text}");
}

#[test]
fn the_viewer_steps_with_the_arrow_key_in_headless_chromium() {
    let Some(driver) = Driver::start() else { return };
    let (outcome, replay) = play_recorded(&entries(), 8, &small());
    assert!(outcome.turns > 12);
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("replay.html");
    std::fs::write(&page, html::render(&replay).unwrap()).unwrap();
    // What the page should show at turn 12: the engine's own count of entities.
    let mut expected = None;
    html::replay_turns(&replay, |g| {
        if g.clock() == 12 {
            expected = Some(g.entities().count() as u64);
        }
    })
    .unwrap();

    let id = driver.chromium(false);
    let s = |path: &str| format!("/session/{id}{path}");
    driver.post(&s("/url"), json!({"url": format!("file://{}", page.display())}));
    // Keys sent before the page's first frames can be lost (headless Chromium): wait two.
    let ready = driver.post(
        &s("/execute/async"),
        json!({"script": r#"
            const done = arguments[arguments.length - 1];
            requestAnimationFrame(() => requestAnimationFrame(() => done(window.viewer.turn)));
        "#, "args": []}),
    );
    assert_eq!(ready, 0, "the page opens at turn 0");
    let right: Vec<Value> = (0..12)
        .flat_map(|_| [json!({"type": "keyDown", "value": "\u{E014}"}), json!({"type": "keyUp", "value": "\u{E014}"})])
        .collect();
    driver.post(&s("/actions"), json!({"actions": [{"type": "key", "id": "keyboard", "actions": right}]}));
    let state = driver.post(
        &s("/execute/sync"),
        json!({"script": r#"
            const c = document.getElementById("board");
            const px = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
            let coloured = 0;
            for (let i = 0; i < px.length; i += 4) if (px[i] < 250 || px[i + 1] < 250 || px[i + 2] < 250) coloured++;
            return [document.getElementById("turn").textContent, window.viewer.entities, coloured, c.width];
        "#, "args": []}),
    );
    driver.delete(&s(""));
    assert_eq!(state[0], "12", "the turn counter after 12 presses of the right arrow: {state}");
    assert_eq!(state[1].as_u64(), expected, "entities drawn at turn 12: {state}");
    let cell = state[3].as_u64().unwrap() / u64::from(replay_side(&replay));
    assert!(state[2].as_u64().unwrap() >= expected.unwrap() * cell * cell / 2, "pixels drawn: {state}");
}

/// One page of each game, from a short real game: (game, page).
fn one_page_per_game() -> Vec<(&'static str, String)> {
    use arena::abi::eggs::{EggsContext, NOTHING};
    use arena::abi::target::TargetContext;
    use arena::game::Recorded as _;
    use arena::games::eggs::{self, Eggs, answer};
    use arena::games::hex::{self, Hex};
    use arena::games::invisible_target::{self, InvisibleTarget};
    let zombies = [Entry::<Zombies>::builtin("Random", random_bot), Entry::<Zombies>::builtin("Random 2", random_bot)];
    let (_, zombies) = play_recorded(&zombies, 4, &zombies::Config { players_per_entry: 5, max_turns: Some(20) });
    let egg = || |c: &EggsContext<'_>| answer(1 + c.random(8), NOTHING, &[]);
    let (_, eggs) =
        play_recorded(&[Entry::builtin("A", egg), Entry::builtin("B", egg)], 4, &eggs::Config { max_turns: Some(20) });
    let seeker = || |c: &TargetContext<'_>| c.random(5);
    let config = invisible_target::Config { max_rounds: Some(10), ..invisible_target::Config::default() };
    let (_, target) = play_recorded(&[Entry::builtin("A", seeker), Entry::builtin("B", seeker)], 4, &config);
    let hex = [
        Entry::<arena::games::hex::Hex>::builtin("A", arena::games::hex::bench::baseline),
        Entry::<arena::games::hex::Hex>::builtin("B", arena::games::hex::bench::baseline),
    ];
    let (_, hex) = play_recorded(&hex, 4, &hex::Config { max_turns: Some(12) });
    vec![
        ("zombies", Zombies::viewer_page(&zombies).unwrap()),
        ("eggs", Eggs::viewer_page(&eggs).unwrap()),
        ("target", InvisibleTarget::viewer_page(&target).unwrap()),
        ("hex", Hex::viewer_page(&hex).unwrap()),
    ]
}

#[test]
fn every_games_page_steps_with_the_arrow_key_without_a_script_error_in_headless_chromium() {
    let pages = one_page_per_game();
    for (game, page) in &pages {
        for mark in ["/*PAGE_CSS*/", "/*PLAYER_JS*/", "/*REPLAY_DATA*/"] {
            assert!(!page.contains(mark), "{game}: every mark is filled: {mark}");
        }
    }
    let Some(driver) = Driver::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let id = driver.chromium(true);
    let s = |path: &str| format!("/session/{id}{path}");
    let mut results = vec![];
    for (game, page) in &pages {
        let file = dir.path().join(format!("{game}.html"));
        std::fs::write(&file, page).unwrap();
        driver.post(&s("/url"), json!({"url": format!("file://{}", file.display())}));
        // Errors from now on are collected; errors while loading are in the browser's log.
        // Keys sent before the page's first frames can be lost (headless Chromium): wait two.
        let before = driver.post(
            &s("/execute/async"),
            json!({"script": r#"
                const done = arguments[arguments.length - 1];
                window.errors = [];
                window.addEventListener("error", e => window.errors.push(String(e.message)));
                window.addEventListener("unhandledrejection", e => window.errors.push(String(e.reason)));
                const humans = document.getElementById("hcount");
                requestAnimationFrame(() => requestAnimationFrame(() =>
                    done([location.hash, document.getElementById("turn").textContent,
                          humans && humans.textContent])));
            "#, "args": []}),
        );
        let right = [json!({"type": "keyDown", "value": "\u{E014}"}), json!({"type": "keyUp", "value": "\u{E014}"})];
        driver.post(&s("/actions"), json!({"actions": [{"type": "key", "id": "keyboard", "actions": right}]}));
        let after = driver.post(
            &s("/execute/async"),
            json!({"script": r#"
                const done = arguments[arguments.length - 1];
                requestAnimationFrame(() =>
                    done([location.hash, document.getElementById("turn").textContent, window.errors]));
            "#, "args": []}),
        );
        let log = driver.post(&s("/se/log"), json!({"type": "browser"}));
        results.push((game, before, after, log));
    }
    driver.delete(&s(""));
    for (game, before, after, log) in results {
        assert_eq!(before[0], "", "{game}: the page opens without an address: {before}");
        // (hex counts half-turns from 1: its first position is the half-turn about to be played.)
        let first = if *game == "hex" { "1" } else { "0" };
        assert_eq!(before[1], first, "{game}: the page opens at the start: {before}");
        if *game == "hex" {
            // Before the humans' first half-turn none is placed yet: not "0 alive".
            assert_eq!(before[2], "placed in this half-turn", "{game}: {before}");
        }
        assert_ne!(after[0], before[0], "{game}: stepping changes the address: {after}");
        assert!(after[0].as_str().unwrap().starts_with("#t="), "{game}: {after}");
        assert_ne!(after[1], before[1], "{game}: the right arrow steps: {after}");
        assert_eq!(after[2], json!([]), "{game}: no script error: {after}");
        let entries = log.as_array().unwrap_or_else(|| panic!("{game}: the browser's log: {log}"));
        let severe: Vec<&Value> = entries.iter().filter(|e| e["level"] == "SEVERE").collect();
        assert!(severe.is_empty(), "{game}: no error in the browser's log: {severe:?}");
    }
}

/// Target with many entries: the dots stay visible on a board that fits the window, and
/// the distance chart draws the leader bold and the rest faint instead of a tangle.
#[test]
fn the_target_page_with_seventeen_entries_draws_visible_dots_and_a_readable_chart() {
    use arena::abi::target::TargetContext;
    use arena::game::Recorded as _;
    use arena::games::invisible_target::{self, InvisibleTarget};
    let seeker = || |c: &TargetContext<'_>| c.random(5);
    let entries: Vec<_> = (0..17).map(|i| Entry::builtin(format!("E{i}"), seeker)).collect();
    let (_, target) = play_recorded(
        &entries,
        4,
        &invisible_target::Config { max_rounds: Some(5), ..invisible_target::Config::default() },
    );
    let page = InvisibleTarget::viewer_page(&target).unwrap();
    let Some(driver) = Driver::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("target.html");
    std::fs::write(&file, page).unwrap();
    let id = driver.chromium(false);
    let s = |path: &str| format!("/session/{id}{path}");
    // A small window: a laptop's browser beside other windows.
    driver.post(&s("/window/rect"), json!({"width": 800, "height": 600}));
    driver.post(&s("/url"), json!({"url": format!("file://{}", file.display())}));
    let state = driver.post(
        &s("/execute/async"),
        json!({"script": r#"
            const done = arguments[arguments.length - 1];
            requestAnimationFrame(() => requestAnimationFrame(() => done([window.viewer.dot, window.viewer.focus])));
        "#, "args": []}),
    );
    driver.delete(&s(""));
    assert!(state[0].as_f64().unwrap() >= 4.0, "dots of radius 4 px at least: {state}");
    assert_eq!(state[1].as_array().map(Vec::len), Some(1), "one entry bold in the chart, the leader: {state}");
}

fn replay_side(replay: &Replay) -> u32 {
    arena::games::zombies::board_side(
        replay.header.names.len(),
        replay.header.config::<Zombies>().unwrap().players_per_entry,
    )
}

#[test]
fn a_replay_written_before_games_had_names_is_read_as_zombies_and_refused_in_one_line_for_its_rules() {
    // Recorded by the `zombies` binary before the arena hosted several games: its
    // header has no "game" and holds the zombies options at the top level. It was
    // recorded under zombies rules 2 (every bot drew from the game's one generator);
    // later rules give each entry a generator of its own per turn (3) and put only the
    // players in a random order (4), so it no longer replays.
    let bytes = std::fs::read(crate::util::data("replays/zombies-before-games.zrpl")).unwrap();
    assert_eq!(arena::replay::game_of(&bytes).unwrap(), "zombies");
    let refused = Replay::from_bytes(&bytes).unwrap_err().to_string();
    let reads = arena::replay::FORMAT_VERSION;
    assert_eq!(
        refused,
        format!("replay format 1 / rules 2, this program reads format {reads} / rules 4 for this game")
    );
    let eggs = arena::replay::Replay::<arena::games::eggs::Eggs>::from_bytes(&bytes).unwrap_err();
    assert_eq!(eggs.to_string(), "a replay of zombies, not of eggs");
}

// ----- the score plot --------------------------------------------------------------

/// A tournament summary over made-up games: entry `i` scores `scores[i][g]` in game `g`.
fn made_up_results(names: &[&str], scores: &[Vec<u32>]) -> arena::tournament::TournamentResult {
    let games = (0..scores[0].len())
        .map(|g| arena::tournament::GameRecord {
            index: g as u64,
            seed: 100 + g as u64,
            turns: 1000,
            scores: names.iter().zip(scores).map(|(n, s)| (n.to_string(), s[g])).collect(),
            stats: Default::default(),
            seats: vec![],
            tiebreak: Default::default(),
        })
        .collect();
    let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    arena::tournament::summarise("zombies", arena::game::Ranking::Median, &names, 7, scores[0].len() as u64, games)
}

/// The x position of each numeric tick label of a plotters SVG, with its value.
fn svg_ticks(svg: &str) -> Vec<(f64, f64)> {
    svg.split("<text x=\"")
        .skip(1)
        .filter_map(|t| {
            let x: f64 = t[..t.find('"')?].parse().ok()?;
            let label = t[t.find('>')? + 1..t.find("</text>")?].trim();
            Some((x, label.parse().ok()?))
        })
        .collect()
}

/// Marks of an SVG at an x position, with their colour.
type Marks = Vec<(f64, String)>;

/// The `(x, colour)` of each short vertical line in the colour's stroke (the whisker
/// caps), and the centre of each circle (the outliers) with its colour.
fn svg_caps_and_points(svg: &str) -> (Marks, Marks) {
    let attr = |el: &str, name: &str| -> Option<String> {
        let at = el.find(&format!(" {name}=\""))? + name.len() + 3;
        Some(el[at..at + el[at..].find('"')?].to_owned())
    };
    let (mut caps, mut points) = (vec![], vec![]);
    for el in svg.split('<').filter(|e| e.starts_with("polyline") || e.starts_with("circle")) {
        let colour = attr(el, "stroke").unwrap_or_default().to_lowercase();
        if el.starts_with("circle") {
            points.push((attr(el, "cx").unwrap().parse().unwrap(), colour));
            continue;
        }
        let p: Vec<(f64, f64)> = attr(el, "points")
            .unwrap()
            .split_whitespace()
            .map(|xy| {
                let (x, y) = xy.split_once(',').unwrap();
                (x.parse().unwrap(), y.parse().unwrap())
            })
            .collect();
        // Caps: 14 pixels high, in an entry's colour (the median is black and 22 high).
        if p.len() == 2 && p[0].0 == p[1].0 && (p[1].1 - p[0].1).abs() == 14.0 && colour != "#000000" {
            caps.push((p[0].0, colour));
        }
    }
    (caps, points)
}

#[test]
fn the_box_plot_ends_whiskers_at_scores_and_draws_outliers_on_an_axis_near_the_data() {
    use arena::plot::{box_stats, entry_colours, score_boxplot_svg};
    // Steady: quartiles 407.5 and 442.5, fences 355 and 495; whiskers end at the scores
    // 400 and 450, and 100 and 700 are outliers. Even: no outliers, whiskers at 300, 380.
    let steady = vec![100, 400, 410, 420, 430, 440, 450, 700];
    let even = vec![300, 310, 320, 330, 340, 350, 360, 380];
    let result = made_up_results(&["Steady", "Even"], &[steady.clone(), even.clone()]);
    let b = box_stats(&steady.iter().map(|&s| f64::from(s)).collect::<Vec<_>>()).unwrap();
    assert_eq!((b.q1, b.median, b.q3, b.low, b.high), (407.5, 425.0, 442.5, 400.0, 450.0));
    assert_eq!(b.outliers, vec![100.0, 700.0]);
    let e = box_stats(&even.iter().map(|&s| f64::from(s)).collect::<Vec<_>>()).unwrap();
    assert_eq!((e.low, e.high, e.outliers.len()), (300.0, 380.0, 0));

    let svg = score_boxplot_svg(&result, "turns survived").unwrap();
    assert!(svg.contains("score (turns survived)"), "the axis says what a score counts");
    // Pixels to scores, from the axis' own tick labels.
    let ticks = svg_ticks(&svg);
    assert!(ticks.len() >= 3, "{ticks:?}");
    let ((xa, va), (xb, vb)) = (ticks[0], ticks[ticks.len() - 1]);
    let score = |x: f64| va + (x - xa) * (vb - va) / (xb - xa);
    let per_pixel = (vb - va) / (xb - xa);
    // The axis starts near the lowest score, not at 0, and ends near the highest.
    assert!(va > 0.0 && score(ticks[0].0) <= 100.0, "{ticks:?}");
    let (caps, points) = svg_caps_and_points(&svg);
    let colours = entry_colours(2);
    let at = |colour: &str, list: &[(f64, String)]| -> Vec<f64> {
        list.iter().filter(|(_, c)| c == colour).map(|&(x, _)| score(x)).collect()
    };
    // Steady has the better median: the first colour.
    let near = |got: Vec<f64>, want: &[f64]| {
        assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() <= 1.5 * per_pixel, "drawn at {g}, the data says {w} ({got:?})");
        }
    };
    near(at(&colours[0], &caps), &[400.0, 450.0]);
    near(at(&colours[0], &points), &[100.0, 700.0]);
    near(at(&colours[1], &caps), &[300.0, 380.0]);
    assert!(at(&colours[1], &points).is_empty());
    assert!(!svg.contains("<image") && svg.starts_with("<svg"), "SVG only");
}

#[test]
fn thirteen_entries_get_thirteen_distinct_colours_none_the_hit_colour() {
    use arena::plot::{HIT_COLOUR, entry_colours, score_boxplot_svg};
    let rgb = |c: &str| {
        let v = u32::from_str_radix(&c[1..], 16).unwrap();
        [(v >> 16) as f64, ((v >> 8) & 255) as f64, (v & 255) as f64]
    };
    let dist = |a: &str, b: &str| rgb(a).iter().zip(rgb(b)).map(|(x, y)| (x - y).powi(2)).sum::<f64>().sqrt();
    let colours = entry_colours(13);
    for (i, a) in colours.iter().enumerate() {
        assert!(dist(a, HIT_COLOUR) > 80.0, "entry {i}'s {a} looks like a hit");
        for b in &colours[..i] {
            assert!(dist(a, b) > 25.0, "{a} and {b} look alike");
        }
    }
    let many = entry_colours(60);
    assert_eq!(many.iter().collect::<std::collections::BTreeSet<_>>().len(), 60);
    assert!(many.iter().all(|c| c.len() == 7 && c.starts_with('#')));

    let names: Vec<String> = (0..13).map(|i| format!("Entry{i}")).collect();
    let names: Vec<&str> = names.iter().map(|n| n.as_str()).collect();
    let scores: Vec<Vec<u32>> = (0..13).map(|i| (0..5).map(|g| 100 * i + 7 * g).collect()).collect();
    let svg = score_boxplot_svg(&made_up_results(&names, &scores), "points").unwrap().to_lowercase();
    let boxes: std::collections::BTreeSet<&str> = svg
        .split("<rect ")
        .skip(2)
        .filter_map(|r| r.split("fill=\"").nth(1)?.split('"').next())
        .filter(|f| *f != "none")
        .collect();
    assert_eq!(boxes.len(), 13, "{boxes:?}");
    assert!(!boxes.contains(HIT_COLOUR));
}

// ----- the page's script, in Node ------------------------------------------------------

/// Shoots the first zombie in range while it has bullets, else wanders.
fn zombie_shooter(c: &Context<'_>) -> Action {
    if c.bullets > 0
        && let Some((_, _, id)) = c.shootable().find(|(_, _, id)| id.is_zombie())
    {
        return Action::shoot(id);
    }
    Action::go(c.random_move())
}

/// Shoots the first player of another entry in range, else wanders.
fn player_shooter(c: &Context<'_>) -> Action {
    if c.bullets > 0
        && let Some((_, _, id)) = c.shootable().find(|(_, _, id)| id.is_player() && id.owner != c.id.owner)
    {
        return Action::shoot(id);
    }
    Action::go(c.random_move())
}

/// A small board (17 x 17) where shots often cross the edge.
fn shooting_entries() -> Vec<Entry<Zombies>> {
    vec![
        Entry::builtin("Zombie shooter", || zombie_shooter),
        Entry::builtin("Player shooter", || player_shooter),
        Entry::<Zombies>::builtin("Random </script>", random_bot),
        Entry::builtin("Still", || |_: &Context<'_>| Action::stay()),
    ]
}

/// A stand-in for the browser: just enough of the DOM for the page's script to run in
/// Node; the board's drawing calls are logged.
const FAKE_DOM: &str = r#"
"use strict";
const log = { board: [], chart: [] };
const ctx2d = id => () => new Proxy({}, {
  get: (o, k) => k in o ? o[k] : (o[k] = (...a) => { if (log[id]) log[id].push([k, ...a]); }),
  set: (o, k, v) => { o[k] = v; return true; } });
const elements = {};
const listeners = { window: {}, document: {} };
function element(id) {
  if (!elements[id]) {
    const el = { id, textContent: "", innerHTML: "", value: "10", checked: false, style: {}, offsetWidth: 280,
      width: 0, height: 0, getContext: ctx2d(id), getBoundingClientRect: () => ({ left: 10, top: 60 }),
      listeners: {}, addEventListener: (k, f) => { el.listeners[k] = f; } };
    elements[id] = el;
  }
  return elements[id];
}
const document = { getElementById: element, createElement: () => element("offscreen" + Math.random()),
  addEventListener: (k, f) => { listeners.document[k] = f; } };
const location = { hash: "" };
const history = { replaceState: (_a, _b, h) => { location.hash = h; } };
const window = { innerWidth: 1200, innerHeight: 900, scrollY: 0, addEventListener: (k, f) => { listeners.window[k] = f; } };
const key = k => listeners.document.keydown({ key: k, target: {}, preventDefault: () => {} });
const clickEntry = i => element("legend").listeners.click({ target: { closest: () => ({ dataset: { entry: String(i) } }) } });
"#;

/// Runs the page's script in Node after `FAKE_DOM`, with the address `hash`, then
/// `test`, which prints its findings as JSON.
fn run_page(node: &Path, page: &str, hash: &str, test: &str) -> Value {
    let open = r#"<script id="data" type="application/json">"#;
    let start = page.find(open).unwrap() + open.len();
    let data = &page[start..start + page[start..].find("</script>").unwrap()];
    let body = page.split("<script>").nth(1).unwrap().split("</script>").next().unwrap();
    let script = format!(
        "{FAKE_DOM}\nelement('data').textContent = {};\nlocation.hash = {};\n{body}\n{test}",
        serde_json::to_string(data).unwrap(),
        serde_json::to_string(hash).unwrap()
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("page.js");
    std::fs::write(&file, script).unwrap();
    let run = Command::new(node).arg(&file).output().unwrap();
    assert!(run.status.success(), "node: {}", String::from_utf8_lossy(&run.stderr));
    serde_json::from_slice(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&run.stdout)))
}

fn which_node() -> Option<std::path::PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?).map(|d| d.join("node")).find(|p| p.is_file())
}

/// Whether a shot from `a` to `b` crosses the board's edge the short way, on each axis.
fn wraps(a: (i64, i64), b: (i64, i64), side: i64) -> (bool, bool) {
    ((a.0 - b.0).abs() * 2 > side, (a.1 - b.1).abs() * 2 > side)
}

#[test]
fn a_shot_across_the_edge_is_drawn_the_short_way_in_two_pieces() {
    let config = zombies::Config { players_per_entry: 4, max_turns: Some(300) };
    let (_, replay) = play_recorded(&shooting_entries(), 12, &config);
    let data = html::viewer_data(&replay).unwrap();
    let side = data["side"].as_i64().unwrap();
    assert_eq!(side, 17);
    // The data carries every shot's two cells as the engine saw them, and its shooter.
    let mut engine = vec![];
    html::replay_turns(&replay, |g| {
        if g.clock() > 0 {
            engine.push(g.shots().iter().map(|s| (s.from, s.to.unwrap_or(s.from), s.hit)).collect::<Vec<_>>());
        }
    })
    .unwrap();
    let frames = data["frames"].as_array().unwrap();
    let mut crossing = None;
    for (t, f) in frames.iter().enumerate() {
        let shots = f["shots"].as_array().unwrap();
        assert_eq!(shots.len(), engine[t].len());
        for (s, &(from, to, hit)) in shots.iter().zip(&engine[t]) {
            let v: Vec<i64> = s.as_array().unwrap().iter().map(|v| v.as_i64().unwrap()).collect();
            assert_eq!(v[..5], [from.0.into(), from.1.into(), to.0.into(), to.1.into(), i64::from(hit)]);
            assert!((0..4).contains(&v[5]), "every shot has its shooter: {v:?}");
            let (wx, wy) = wraps((v[0], v[1]), (v[2], v[3]), side);
            if crossing.is_none() && hit && wx != wy {
                crossing = Some((t + 1, v));
            }
        }
    }
    let (turn, shot) = crossing.expect("a hit across one edge of the board");

    let Some(node) = which_node() else {
        crate::util::skip("skipping the page-script part: no node");
        return;
    };
    let page = html::render(&replay).unwrap();
    let out = run_page(
        &node,
        &page,
        &format!("#t={turn}"),
        r#"
// Every pair of cells: the pieces lie on the board and add up to the short way round.
let worst = 0;
const short = d => Math.min(Math.abs(d), N - Math.abs(d));
for (let a = 0; a < N * N; a++) for (let b = 0; b < N * N; b++) {
  const [fx, fy, tx, ty] = [a % N, Math.floor(a / N), b % N, Math.floor(b / N)];
  const segs = shotSegments(fx, fy, tx, ty);
  const len = segs.reduce((l, s) => l + Math.hypot(s[2] - s[0], s[3] - s[1]), 0);
  const inside = segs.every(s => s.every(v => v >= 0 && v <= N));
  worst = Math.max(worst, inside ? Math.abs(len - Math.hypot(short(tx - fx), short(ty - fy))) : Infinity);
}
console.log(JSON.stringify([window.viewer, log.board.filter(c => c[0] === "moveTo" || c[0] === "lineTo"), worst]));"#,
    );
    let viewer = &out[0];
    assert_eq!(viewer["turn"], turn);
    let cell = viewer["cell"].as_f64().unwrap();
    let drawn: Vec<&Value> =
        viewer["shots"].as_array().unwrap().iter().filter(|s| s["from"] == json!([shot[0], shot[1]])).collect();
    let drawn = drawn.iter().find(|s| s["to"] == json!([shot[2], shot[3]])).expect("the shot is drawn");
    let segments: Vec<Vec<f64>> = serde_json::from_value(drawn["segments"].clone()).unwrap();
    assert_eq!(segments.len(), 2, "two pieces: {drawn}");
    let (fx, fy, tx, ty) = (shot[0] as f64 + 0.5, shot[1] as f64 + 0.5, shot[2] as f64 + 0.5, shot[3] as f64 + 0.5);
    // One piece leaves the shooter for the edge, the other comes in from the opposite
    // edge to the target; together as long as the short way.
    assert_eq!((segments[0][0], segments[0][1]), (fx, fy), "{segments:?}");
    assert_eq!((segments[1][2], segments[1][3]), (tx, ty), "{segments:?}");
    let n = side as f64;
    let on_edge = |v: f64| v == 0.0 || v == n;
    assert!(on_edge(segments[0][2]) || on_edge(segments[0][3]), "{segments:?}");
    assert!(on_edge(segments[1][0]) || on_edge(segments[1][1]), "{segments:?}");
    let short = |d: f64| if d.abs() * 2.0 > n { n - d.abs() } else { d.abs() };
    let len = |s: &Vec<f64>| ((s[2] - s[0]).powi(2) + (s[3] - s[1]).powi(2)).sqrt();
    let total = len(&segments[0]) + len(&segments[1]);
    assert!((total - short(tx - fx).hypot(short(ty - fy))).abs() < 1e-9, "{segments:?}");
    assert!(total < n / 2.0 * 2f64.sqrt(), "never across the whole board");
    assert!(out[2].as_f64().unwrap() < 1e-9, "every shot drawn the short way, on the board: {}", out[2]);
    // And the canvas gets exactly those lines.
    let calls: Vec<(String, f64, f64)> = serde_json::from_value(out[1].clone()).unwrap();
    for s in &segments {
        let want = [("moveTo".to_owned(), s[0] * cell, s[1] * cell), ("lineTo".to_owned(), s[2] * cell, s[3] * cell)];
        assert!(calls.windows(2).any(|w| w == want), "{want:?} drawn among {calls:?}");
    }
}

#[test]
fn the_page_follows_its_address_the_window_and_one_entry_in_node() {
    let Some(node) = which_node() else {
        crate::util::skip("skipping the page-script test: no node");
        return;
    };
    let config = zombies::Config { players_per_entry: 50, max_turns: None };
    let (outcome, replay) = play_recorded(&shooting_entries(), 0, &config);
    assert!(outcome.turns > 40, "{}", outcome.turns);
    let page = html::render(&replay).unwrap();
    let data = html::viewer_data(&replay).unwrap();
    let out = run_page(
        &node,
        &page,
        "#t=3",
        r##"
const out = [window.viewer.turn];
for (let i = 0; i < 12; i++) key("ArrowRight");
out.push(window.viewer, location.hash, element("legend").innerHTML);
key("ArrowLeft");
out.push(window.viewer.turn, location.hash);
location.hash = "#t=30";
listeners.window.hashchange();
out.push(window.viewer);
clickEntry(1);
out.push(window.viewer.focus, element("legend").innerHTML);
key("n");
out.push(window.viewer.turn, location.hash);
key("n");
out.push(window.viewer.turn);
key("p");
out.push(window.viewer.turn);
key("f");
out.push(window.viewer);
clickEntry(1);
out.push(window.viewer.focus);
out.push(log.chart.filter(c => c[0] === "fillText").map(c => c[1]));
const before = element("board").width;
window.innerWidth = 600; window.innerHeight = 500;
listeners.window.resize();
setTimeout(() => { out.push(before, element("board").width); console.log(JSON.stringify(out)); process.exit(0); }, 100);
"##,
    );
    // What the engine says at each turn.
    let mut at = std::collections::BTreeMap::new();
    html::replay_turns(&replay, |g| {
        at.insert(g.clock(), (g.scores().to_vec(), g.alive().to_vec()));
    })
    .unwrap();
    assert_eq!(out[0], 3, "the page opens at the turn its address names: {out}");
    assert_eq!(out[1]["turn"], 15);
    assert_eq!(out[1]["scores"], json!(at[&15].0), "the scores at the turn shown");
    assert_eq!(out[1]["alive"], json!(at[&15].1));
    assert_eq!(data["score"][15], json!(at[&15].0), "the data has the scores of every turn");
    assert_ne!(at[&15].0, outcome.scores, "(the final scores differ)");
    let legend = out[3].as_str().unwrap();
    for (alive, score) in at[&15].1.iter().zip(&at[&15].0) {
        assert!(legend.contains(&format!("{alive} alive, score {score}<")), "{legend}");
    }
    assert!(legend.contains("Random &lt;/script&gt;"));
    assert_eq!(out[2], "#t=15", "stepping updates the address");
    assert_eq!((&out[4], &out[5]), (&json!(14), &json!("#t=14")));
    assert_eq!(out[6]["turn"], 30, "a changed address shows its turn");
    assert_eq!(out[6]["scores"], json!(at[&30].0));
    // Highlighting entry 1, then its next events (a death or a shot), forward and back.
    assert_eq!(out[7], 1);
    assert!(out[8].as_str().unwrap().contains(r#"data-entry="1" class="focus""#), "{}", out[8]);
    let events: Vec<u64> = (1..=outcome.turns as usize)
        .filter(|&t| {
            data["alive"][t][1].as_u64() < data["alive"][t - 1][1].as_u64()
                || data["frames"][t - 1]["shots"].as_array().unwrap().iter().any(|s| s[5] == 1)
        })
        .map(|t| t as u64)
        .collect();
    let next: Vec<u64> = events.iter().copied().filter(|&t| t > 30).take(2).collect();
    assert_eq!(next.len(), 2, "entry 1 has events after turn 30: {events:?}");
    assert_eq!((&out[9], &out[10]), (&json!(next[0]), &json!(format!("#t={}", next[0]))), "{events:?}");
    assert_eq!((&out[11], &out[12]), (&json!(next[1]), &json!(next[0])), "{events:?}");
    // Follow: the board is shifted to centre entry 1's players.
    assert_eq!(out[13]["follow"], true);
    assert_eq!(out[13]["focus"], 1);
    assert_eq!(out[14], Value::Null, "a second click shows every entry again");
    // The chart has axes with tick labels.
    let texts: Vec<&str> = out[15].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
    for label in ["turn", "alive", "0", "20", "40"] {
        assert!(texts.contains(&label), "{label} among {texts:?}");
    }
    assert!(out[17].as_u64().unwrap() < out[16].as_u64().unwrap(), "the board follows the window: {out}");
}

/// One page of each game whose bots say something at every call (`arena::debug::say`,
/// as every kind of bot's debug channel does): (game, page, notes of entry A).
fn one_talking_page_per_game() -> Vec<(&'static str, String, usize)> {
    use arena::abi::eggs::{EggsContext, NOTHING};
    use arena::abi::hex::HexContext;
    use arena::abi::target::TargetContext;
    use arena::debug::say;
    use arena::game::Recorded as _;
    use arena::games::eggs::{self, Eggs, answer};
    use arena::games::hex::{self, Hex};
    use arena::games::invisible_target::{self, InvisibleTarget};
    let a_notes = |notes: &[arena::replay::Note]| notes.iter().filter(|n| n.entry == 0).count();
    let zombie = |name: &'static str| {
        Entry::builtin(name, move || {
            let mut walk = random_bot();
            move |c: &Context<'_>| {
                say(&format!("{name} thinks at {} <b>", c.clock));
                walk(c)
            }
        })
    };
    let (_, zombies) =
        play_recorded(&[zombie("A"), zombie("B")], 4, &zombies::Config { players_per_entry: 3, max_turns: Some(10) });
    let egg = |name: &'static str| {
        Entry::builtin(name, move || {
            move |c: &EggsContext<'_>| {
                say(&format!("{name} thinks at {}", c.turn));
                answer(1 + c.random(8), NOTHING, &[])
            }
        })
    };
    let (_, eggs) = play_recorded(&[egg("A"), egg("B")], 4, &eggs::Config { max_turns: Some(10) });
    let seeker = |name: &'static str| {
        Entry::builtin(name, move || {
            move |c: &TargetContext<'_>| {
                say(&format!("{name} thinks at {}", c.round));
                c.random(5)
            }
        })
    };
    let config = invisible_target::Config { max_rounds: Some(4), ..invisible_target::Config::default() };
    let (_, target) = play_recorded(&[seeker("A"), seeker("B")], 4, &config);
    let hexer = |name: &'static str| {
        Entry::builtin(name, move || {
            let mut inner = arena::games::hex::bench::baseline();
            move |c: &HexContext<'_>| {
                say(&format!("{name} thinks at {}", c.t));
                inner(c)
            }
        })
    };
    let (_, hex) = play_recorded(&[hexer("A"), hexer("B")], 4, &hex::Config { max_turns: Some(8) });
    vec![
        ("zombies", Zombies::viewer_page(&zombies).unwrap(), a_notes(&zombies.notes)),
        ("eggs", Eggs::viewer_page(&eggs).unwrap(), a_notes(&eggs.notes)),
        ("target", InvisibleTarget::viewer_page(&target).unwrap(), a_notes(&target.notes)),
        ("hex", Hex::viewer_page(&hex).unwrap(), a_notes(&hex.notes)),
    ]
}

#[test]
fn every_games_page_shows_what_a_bot_said_at_the_turn_shown_and_lists_its_texts_by_turn() {
    let pages = one_talking_page_per_game();
    for (game, page, notes) in &pages {
        assert!(*notes > 0, "{game}: entry A said something");
        assert!(!page.contains("/*DEBUG_JS*/"), "{game}: the panel is in");
        assert!(page.contains("A thinks at"), "{game}: the texts are in the page");
    }
    let Some(driver) = Driver::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let id = driver.chromium(false);
    let s = |path: &str| format!("/session/{id}{path}");
    for (game, page, notes) in &pages {
        let file = dir.path().join(format!("{game}.html"));
        std::fs::write(&file, page).unwrap();
        driver.post(&s("/url"), json!({"url": format!("file://{}", file.display())}));
        // The entry's texts are listed by turn; the first link goes to its turn, where the
        // panel shows it; then the second entry is picked.
        let seen = driver.post(
            &s("/execute/async"),
            json!({"script": r##"
                const done = arguments[arguments.length - 1];
                window.errors = [];
                window.addEventListener("error", e => window.errors.push(String(e.message)));
                const rows = document.querySelectorAll("#dbg-all .dbg-row");
                const first = rows[rows.length - 1].querySelector("a");
                first.click();
                requestAnimationFrame(() => {
                    const at = [document.getElementById("turn").textContent, window.debugView.shown.slice(),
                                document.getElementById("dbg-now").textContent];
                    const pick = document.getElementById("dbg-entry");
                    pick.value = "1";
                    pick.dispatchEvent(new Event("change"));
                    requestAnimationFrame(() => done([rows.length, first.textContent, at, window.debugView.entry,
                        document.querySelectorAll("#dbg-all .dbg-row").length, window.errors]));
                });
            "##, "args": []}),
        );
        assert_eq!(seen[0], json!(notes), "{game}: every text of A is listed: {seen}");
        let link = seen[1].as_str().unwrap();
        let at = &seen[2];
        // The link names the turn it goes to, and there the panel shows A's text of it.
        assert!(link.ends_with(at[0].as_str().unwrap()), "{game}: {link} goes to its turn: {seen}");
        let shown = at[1].as_array().unwrap();
        assert!(
            !shown.is_empty() && shown.iter().all(|t| t.as_str().unwrap().starts_with("A thinks at")),
            "{game}: {seen}"
        );
        if *game == "zombies" {
            // Text is text: the page does not take it for markup.
            assert!(at[2].as_str().unwrap().contains("<b>"), "{game}: {seen}");
        }
        assert_eq!(seen[3], 1, "{game}: the second entry is picked: {seen}");
        assert!(seen[4].as_u64().unwrap() > 0, "{game}: and its texts are listed: {seen}");
        assert_eq!(seen[5], json!([]), "{game}: no script error: {seen}");
    }
    driver.delete(&s(""));
}
