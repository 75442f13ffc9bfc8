//! `arena tournament --report DIR`: the folder (index, score plot, a replay page per
//! game), self-contained, for every game; an interrupted run; a folder that cannot be
//! made; and the index in headless Chromium, sorted and followed to a game's page.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicBool, Ordering};

use arena::abi::{Action, Context};
use arena::bot::Entry;
use arena::game::Ranking;
use arena::games::zombies::{self, Zombies};
use arena::report::{IndexInfo, Report, game_page, index_html};
use arena::tournament::{GameRecord, Plan, summarise};
use serde_json::{Value, json};

use crate::util::{Driver, data, random_bot, root, stdout};

fn arena(game: &str, dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["--game", game, "--plugins"])
        .arg(dir)
        .arg("--scripts")
        .arg(dir)
        .arg("--logs")
        .arg(dir.join("logs"))
        // A generous call limit: the reports are checked, not the bots' speed, and the
        // suite's other tests load the machine meanwhile.
        .args(["--call-timeout-ms", "10000"])
        .args(args)
        .output()
        .unwrap()
}

/// Two quick zombies scripts and one failing every call.
fn zombies_scripts() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for f in ["coward.lua", "sentinel.rhai"] {
        std::fs::copy(root().join("scripts/zombies").join(f), dir.path().join(f)).unwrap();
    }
    std::fs::copy(data("scripts/runtime_error.lua"), dir.path().join("runtime_error.lua")).unwrap();
    dir
}

/// Every `href="..."` of a page.
fn links(page: &str) -> Vec<String> {
    page.split("href=\"").skip(1).map(|rest| rest[..rest.find('"').unwrap()].to_owned()).collect()
}

/// A page loads nothing from outside: no URL with a scheme, no `src`, no CSS import,
/// and links only to pages in the folder.
fn assert_self_contained(what: &str, page: &str) {
    for outside in ["http://", "https://", "src=", "@import", "url(", "//cdn", "<link"] {
        assert!(!page.contains(outside), "{what} loads something from outside: {outside}");
    }
    // A game's page (under games/) leads back to the leaderboard, and to the entries'
    // logs where the tournament ran (local files, never fetched: issue 34).
    let game_page = what.starts_with("games/");
    for link in links(page) {
        let back = game_page && (link == "../index.html" || (link.starts_with("file:///") && link.ends_with(".log")));
        assert!(
            back || (link.starts_with("games/game-") && link.ends_with(".html") && !link.contains("..")),
            "{what}: link {link}"
        );
    }
    if game_page {
        assert!(links(page).contains(&"../index.html".to_owned()), "{what}: no way back to the leaderboard");
    }
}

/// The rows of the games table: (index, seed, link).
fn game_rows(index: &str) -> Vec<(u64, u64, Option<String>)> {
    index
        .split("<tr class=\"game\">")
        .skip(1)
        .map(|row| {
            let values: Vec<u64> =
                row.split("data-v=\"").skip(1).take(2).map(|v| v[..v.find('"').unwrap()].parse().unwrap()).collect();
            let row = &row[..row.find("</tr>").unwrap()];
            (values[0], values[1], links(row).into_iter().next())
        })
        .collect()
}

#[test]
fn a_report_holds_the_leaderboard_the_plot_the_errors_and_a_linked_page_per_game() {
    let dir = zombies_scripts();
    let report = dir.path().join("out/report");
    let json = dir.path().join("results.json");
    let text = stdout(&arena(
        "zombies",
        dir.path(),
        &[
            "tournament",
            "--rounds",
            "3",
            "--seed",
            "11",
            "--jobs",
            "2",
            "--set",
            "players_per_entry=10",
            "--report",
            report.to_str().unwrap(),
            "--json",
            json.to_str().unwrap(),
        ],
    ));
    assert!(text.contains(&format!("report written to {}", report.join("index.html").display())), "{text}");
    let index = std::fs::read_to_string(report.join("index.html")).unwrap();
    assert_self_contained("index.html", &index);
    for part in [
        "<title>zombies tournament, seed 11</title>",
        "3 of 3 games played;",
        "<table id=\"leaderboard\" class=\"sortable\">",
        "<th>median 95% CI</th>",
        "<th>µs/call</th>",
        "<svg",
        "<table id=\"games\"",
        "<script>",
    ] {
        assert!(index.contains(part), "index.html has {part}");
    }
    assert!(!index.contains("<th>points</th>"), "no pair columns for zombies");
    // The failing script is listed with its first message.
    let problems = &index[index.find("<ul id=\"problems\">").expect("a list of problems")..];
    assert!(problems.contains("<b>runtime_error</b>") && problems.contains("runtime_error.lua"), "{problems}");
    assert!(problems.contains("<li><code>"), "its first messages: {problems}");

    // One row per game, each linking its existing page, as the results say.
    let results: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let rows = game_rows(&index);
    let expected: Vec<(u64, u64)> = results["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g["index"].as_u64().unwrap(), g["seed"].as_u64().unwrap()))
        .collect();
    assert_eq!(rows.iter().map(|r| (r.0, r.1)).collect::<Vec<_>>(), expected);
    for (i, seed, link) in &rows {
        let link = link.as_deref().expect("each game row links its page");
        assert_eq!(link, game_page(*i, *seed));
        let page = std::fs::read_to_string(report.join(link)).unwrap();
        assert!(page.contains(&format!("<title>zombies replay, seed {seed}</title>")), "{link}");
        assert_self_contained(link, &page);
    }
    let mut pages: Vec<_> = std::fs::read_dir(report.join("games")).unwrap().map(|e| e.unwrap().file_name()).collect();
    pages.sort();
    assert_eq!(pages.len(), 3, "one page per game and nothing else: {pages:?}");
}

#[test]
fn a_report_of_another_game_has_its_pages_and_its_ranking() {
    let dir = tempfile::tempdir().unwrap();
    for f in ["lua-hunter.lua", "rhai-hunter.rhai"] {
        std::fs::copy(root().join("scripts/eggs").join(f), dir.path().join(f)).unwrap();
    }
    let report = dir.path().join("report");
    stdout(&arena(
        "eggs",
        dir.path(),
        &["tournament", "--rounds", "2", "--seed", "4", "--report", report.to_str().unwrap()],
    ));
    let index = std::fs::read_to_string(report.join("index.html")).unwrap();
    assert_self_contained("index.html", &index);
    assert!(index.contains("ranked by mean score, then median"), "eggs rank by mean");
    assert!(index.contains("<th>mean 95% CI</th>"));
    assert!(index.contains("No bot failed a call"));
    let rows = game_rows(&index);
    assert_eq!(rows.len(), 2);
    for (_, seed, link) in rows {
        let page = std::fs::read_to_string(report.join(link.unwrap())).unwrap();
        assert!(page.contains(&format!("<title>eggs replay, seed {seed}</title>")));
    }
}

#[test]
fn a_report_folder_that_cannot_be_made_fails_before_any_game_in_one_line() {
    let dir = zombies_scripts();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "not a folder").unwrap();
    let target = file.join("report");
    let out = arena("zombies", dir.path(), &["tournament", "--rounds", "50", "--report", target.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = err.lines().filter(|l| !l.starts_with("skipped ")).collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(lines[0].starts_with("error: ") && lines[0].contains("cannot create the report folder"), "{err}");
    assert!(lines[0].contains(target.to_str().unwrap()), "{err}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("game") && !text.contains("played"), "no game was played: {text}");
}

fn small_plan(rounds: u64) -> Plan<Zombies> {
    Plan { config: zombies::Config { players_per_entry: 8, max_turns: Some(60) }, record: true, ..Plan::new(3, rounds) }
}

#[test]
fn an_interrupted_tournament_leaves_its_pages_and_an_index_of_the_finished_games() {
    // Stops the tournament (as a Ctrl-C does) during the first game: that game
    // finishes, and no other starts (one thread).
    static STOP: AtomicBool = AtomicBool::new(false);
    let stopper = Entry::builtin("Stopper", || {
        |_: &Context<'_>| {
            STOP.store(true, Ordering::SeqCst);
            Action::stay()
        }
    });
    let entries = vec![Entry::<Zombies>::builtin("Random", random_bot), stopper];
    let dir = tempfile::tempdir().unwrap();
    let mut report = Report::create(&dir.path().join("r")).unwrap();
    let plan = small_plan(6);
    report.start(&entries, &plan, 6);
    // Browsable from the start.
    let first = std::fs::read_to_string(dir.path().join("r/index.html")).unwrap();
    assert!(first.contains("0 of 6 games played (in progress)"), "{first}");
    let result = arena::tournament::run(&entries, &plan, &STOP, |g, replay| report.game(g, replay.as_ref()));
    assert_eq!(result.played, 1);
    let index = std::fs::read_to_string(report.finish(&result).unwrap()).unwrap();
    assert!(index.contains("1 of 6 games played (interrupted)"), "{index}");
    let rows = game_rows(&index);
    assert_eq!(rows.len(), 1);
    for (_, _, link) in rows {
        assert!(dir.path().join("r").join(link.unwrap()).exists());
    }
}

#[test]
fn pair_rankings_add_their_columns_and_overlapping_intervals_are_noted() {
    // Two seats per game, both orders of each pair (as hex plays them).
    let names: Vec<String> = ["A<b>", "B", "C"].map(String::from).to_vec();
    let pairs = [(0, 1, 30, 10), (1, 0, 12, 25), (0, 2, 40, 5), (2, 0, 6, 33), (1, 2, 20, 20), (2, 1, 20, 20)];
    let games: Vec<GameRecord> = (0..)
        .zip(pairs)
        .map(|(index, (a, b, sa, sb))| {
            let (x, y): (&String, &String) = (&names[a], &names[b]);
            GameRecord {
                index,
                seed: 100 + index,
                turns: 50,
                scores: BTreeMap::from([(x.clone(), sa), (y.clone(), sb)]),
                stats: BTreeMap::new(),
                seats: vec![x.clone(), y.clone()],
                tiebreak: Default::default(),
            }
        })
        .collect();
    let result = summarise("hex", Ranking::Pairs, &names, 1, 6, games);
    let pages = BTreeMap::from([(0, Ok(game_page(0, 100))), (1, Err("not recorded".to_owned()))]);
    let sources: Vec<(String, PathBuf)> = Vec::new();
    let page = index_html(&result, &IndexInfo { total: 6, sources: &sources, in_progress: false }, &pages);
    assert_self_contained("pairs", &page);
    for col in ["points", "margin", "survival", "median 95% CI"] {
        assert!(page.contains(&format!("<th>{col}</th>")), "{col}");
    }
    assert!(page.contains("A&lt;b&gt;") && !page.contains("A<b>"), "names are escaped");
    assert!(
        page.contains(r#"<span class="s">A&lt;b&gt; 30</span> · <span class="s">B 10</span>"#),
        "scores in seat order"
    );
    assert!(page.contains("Match points have no confidence interval"));

    // Median ranking: a note exactly where adjacent intervals overlap.
    let scores = |name: &str, v: &[u32]| (name.to_owned(), v.to_vec());
    let entries = [
        scores("Hi", &[100, 101, 102, 100, 101]),
        scores("Mid", &[50, 52, 51, 50, 53]),
        scores("Low", &[49, 51, 50, 52, 50]),
    ];
    let games = (0..5)
        .map(|i| GameRecord {
            index: i,
            seed: i,
            turns: 1,
            scores: entries.iter().map(|(n, v)| (n.clone(), v[i as usize])).collect(),
            stats: BTreeMap::new(),
            seats: Vec::new(),
            tiebreak: Default::default(),
        })
        .collect();
    let names: Vec<String> = entries.iter().map(|(n, _)| n.clone()).collect();
    let result = summarise("zombies", Ranking::Median, &names, 9, 5, games);
    let page = index_html(&result, &IndexInfo { total: 5, sources: &sources, in_progress: false }, &BTreeMap::new());
    assert!(!page.contains("not separated from rank 1 at 95%"), "Hi is clear of Mid");
    assert!(page.contains("not separated from rank 2 at 95%"), "Mid and Low overlap");
}

// ----- in a real browser ---------------------------------------------------------------

#[test]
fn the_report_sorts_and_links_to_a_game_page_in_headless_chromium() {
    let Some(driver) = Driver::start() else { return };
    let dir = zombies_scripts();
    let report = dir.path().join("report");
    let args = ["tournament", "--rounds", "3", "--seed", "2", "--set", "players_per_entry=10", "--report"];
    stdout(&arena("zombies", dir.path(), &[&args[..], &[report.to_str().unwrap()]].concat()));
    let index = std::fs::read_to_string(report.join("index.html")).unwrap();
    let (game, seed, _) = game_rows(&index)[1].clone();

    let id = driver.chromium(false);
    let s = |path: &str| format!("/session/{id}{path}");
    let run = |script: &str| driver.post(&s("/execute/sync"), json!({"script": script, "args": []}));
    let click = |css: &str| {
        let element = driver.post(&s("/element"), json!({"using": "css selector", "value": css}));
        let element = element["element-6066-11e4-a52e-4f735466cecf"]
            .as_str()
            .unwrap_or_else(|| panic!("{css}: {element}"))
            .to_owned();
        driver.post(&s(&format!("/element/{element}/click")), json!({}));
    };
    driver.post(&s("/url"), json!({"url": format!("file://{}", report.join("index.html").display())}));
    let title = run("return document.title;");
    assert_eq!(title, "zombies tournament, seed 2");

    // Sorting: the entry column, ascending then descending.
    let entries =
        "return Array.from(document.querySelectorAll('#leaderboard tbody tr')).map(r => r.cells[1].textContent);";
    click("#leaderboard th:nth-child(2)");
    let up: Vec<String> = serde_json::from_value(run(entries)).unwrap();
    click("#leaderboard th:nth-child(2)");
    let down: Vec<String> = serde_json::from_value(run(entries)).unwrap();
    let mut sorted = up.clone();
    sorted.sort_by_key(|n| n.to_lowercase());
    assert_eq!(up, sorted, "ascending by name");
    assert_eq!(down, sorted.iter().rev().cloned().collect::<Vec<_>>(), "then descending");
    // The turns column sorts as numbers.
    click("#games th:nth-child(3)");
    let turns: Vec<f64> = serde_json::from_value(run(
        "return Array.from(document.querySelectorAll('#games tbody tr')).map(r => Number(r.cells[2].dataset.v));",
    ))
    .unwrap();
    assert!(turns.windows(2).all(|w| w[0] <= w[1]), "turns ascending: {turns:?}");

    // Following a game's link opens its replay page at turn 0.
    click(&format!("#games a[href=\"{}\"]", game_page(game, seed)));
    let mut state = Value::Null;
    for _ in 0..50 {
        state = run(
            "const t = document.getElementById('turn'); return [document.title, t ? t.textContent : null, location.pathname];",
        );
        if state[1].is_string() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    driver.delete(&s(""));
    assert_eq!(state[0], format!("zombies replay, seed {seed}"), "{state}");
    assert_eq!(state[1], "0", "the turn counter: {state}");
    assert!(state[2].as_str().unwrap().ends_with(&game_page(game, seed)), "{state}");
}

/// A report of 13 entries with long names fits the page's width (the games' scores wrap
/// between entries; the leaderboard scrolls in its own box), its target games are counted
/// in rounds, and the interval of a mean of scores that cannot be negative is not.
#[test]
fn a_report_of_thirteen_entries_fits_the_page_in_headless_chromium() {
    let names: Vec<String> = (0..13).map(|i| format!("a-rather-long-entry-name-{i:02}")).collect();
    let games = (0..4)
        .map(|g| GameRecord {
            index: g,
            seed: g,
            turns: 3,
            scores: names.iter().enumerate().map(|(i, n)| (n.clone(), u32::from(i == g as usize) * 3)).collect(),
            stats: BTreeMap::new(),
            seats: Vec::new(),
            tiebreak: Default::default(),
        })
        .collect();
    let result = summarise("target", Ranking::Total, &names, 1, 4, games);
    let page = index_html(&result, &IndexInfo { total: 4, sources: &[], in_progress: false }, &BTreeMap::new());
    assert!(page.contains("<th>rounds</th>"), "target's games are counted in rounds");
    assert!(!page.contains("[-"), "no interval below 0 for scores of 0 and 3");
    let Some(driver) = Driver::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("index.html");
    std::fs::write(&file, &page).unwrap();
    let id = driver.chromium(false);
    let s = |path: &str| format!("/session/{id}{path}");
    driver.post(&s("/url"), json!({"url": format!("file://{}", file.display())}));
    let widths = driver.post(
        &s("/execute/sync"),
        json!({"script": "return [document.documentElement.scrollWidth, window.innerWidth];", "args": []}),
    );
    driver.delete(&s(""));
    let (page_width, window) = (widths[0].as_u64().unwrap(), widths[1].as_u64().unwrap());
    assert!(page_width <= window, "the page is {page_width} px wide in a window of {window} px");
}
