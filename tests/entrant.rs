//! The entrant's view (issue 34): the defects a new entrant found, each through the
//! `arena` binary as they met it: a command that really plays a report's game again,
//! game pages that lead back, the target leaderboard's total and tie-break, the progress
//! line's leader, the help texts' command names, and the docs' examples.

use std::path::Path;
use std::process::{Command, Output};

use crate::util::root;

fn arena(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arena"))
        .current_dir(dir)
        .arg("--logs")
        .arg(dir.join("logs"))
        .args(args)
        .output()
        .unwrap()
}

fn ok(out: &Output) -> (String, String) {
    let (stdout, stderr) =
        (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned());
    assert!(out.status.success(), "{stdout}{stderr}");
    (stdout, stderr)
}

/// A directory holding copies of the bundled bots `files` (paths under `scripts/`), in
/// `bots/<game>/`.
fn bots(files: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for f in files {
        let to = dir.path().join("bots").join(f);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(root().join("scripts").join(f), &to).unwrap();
    }
    dir
}

/// The text of the element `id` of a page (no markup inside but `<code>`).
fn element_text(page: &str, id: &str) -> String {
    let start = page.find(&format!("id=\"{id}\"")).unwrap_or_else(|| panic!("no #{id}"));
    let start = start + page[start..].find('>').unwrap() + 1;
    let end = start + page[start..].find("</p>").unwrap();
    page[start..end].replace("<code>", "").replace("</code>", "").replace("&amp;", "&")
}

#[test]
fn every_game_of_a_hex_report_names_a_command_that_plays_that_very_game_again() {
    let dir = bots(&["hex/basic.lua", "hex/fortress.lua"]);
    std::fs::copy(root().join("scripts/hex/basic.lua"), dir.path().join("bots/hex/third.lua")).unwrap();
    let out = arena(
        dir.path(),
        &[
            "--game",
            "hex",
            "--scripts",
            "bots",
            "tournament",
            "--rounds",
            "1",
            "--seed",
            "3",
            "--max-turns",
            "8",
            "--report",
            "report",
            "--json",
            "results.json",
        ],
    );
    ok(&out);
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("results.json")).unwrap()).unwrap();
    let index = std::fs::read_to_string(dir.path().join("report/index.html")).unwrap();
    assert!(!index.contains("replays alone with <code>arena play --seed SEED</code>."), "the old, false line");
    let games = results["games"].as_array().unwrap();
    assert_eq!(games.len(), 6, "every ordered pair of 3");
    // The games whose humans are not the first entry found are the ones `play --seed`
    // alone would not play: each page's command must.
    for g in games {
        let page = dir
            .path()
            .join("report")
            .join(arena::report::game_page(g["index"].as_u64().unwrap(), g["seed"].as_u64().unwrap()));
        let page = std::fs::read_to_string(page).unwrap();
        // The page leads back to the leaderboard and to the seated entries' logs.
        assert!(page.contains("href=\"../index.html\""), "{page}");
        for name in g["seats"].as_array().unwrap() {
            assert!(page.contains(&format!("{}.log</a>", name.as_str().unwrap())), "a link to {name}'s log");
        }
        let again = element_text(&page, "again");
        let command = again.split_once(": ").unwrap().1;
        let words: Vec<&str> = command.split_whitespace().collect();
        assert_eq!(words[0], "arena", "{command}");
        let seats: Vec<&str> = g["seats"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
        assert!(command.contains(&format!("--entries {}", seats.join(","))), "{command}");
        // Played as it says (with the same bots), it is the same game.
        let args = [&["--scripts", "bots"][..], &words[1..], &["--replay", "again.zrpl"]].concat();
        let (stdout, _) = ok(&arena(dir.path(), &args));
        assert!(stdout.contains(&format!("game seed {}: {} half-turns", g["seed"], g["turns"])), "{command}: {stdout}");
        let replay = std::fs::read(dir.path().join("again.zrpl")).unwrap();
        let replay = arena::replay::Replay::<arena::games::hex::Hex>::from_bytes(&replay).unwrap();
        assert_eq!(replay.header.names, seats, "{command}");
        let scores: Vec<u64> = seats.iter().map(|n| g["scores"][n].as_u64().unwrap()).collect();
        assert_eq!(replay.header.scores.iter().map(|&s| u64::from(s)).collect::<Vec<_>>(), scores, "{command}");
    }
    // Head to head: each match once from either side, and the row's match points are
    // the leaderboard's.
    assert!(index.contains("id=\"cross\""), "the report shows the cross-table");
    let table = &results["cross_table"];
    let names: Vec<&str> = table["entries"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
    let ranked: Vec<&str> =
        results["leaderboard"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ranked);
    for (a, row) in table["cells"].as_array().unwrap().iter().enumerate() {
        let mut points = 0.0;
        for (b, cell) in row.as_array().unwrap().iter().enumerate() {
            if a == b {
                assert!(cell.is_null());
                continue;
            }
            let other = &table["cells"][b][a];
            assert_eq!(cell["wins"], other["losses"], "{a} vs {b}");
            assert_eq!(cell["draws"], other["draws"]);
            assert!((cell["margin"].as_f64().unwrap() + other["margin"].as_f64().unwrap()).abs() < 1e-9);
            points += cell["wins"].as_f64().unwrap() + cell["draws"].as_f64().unwrap() / 2.0;
        }
        assert_eq!(points, results["leaderboard"][a]["points"].as_f64().unwrap(), "{}", names[a]);
    }
    // A name that is no entry is one line.
    let out = arena(dir.path(), &["--game", "hex", "--scripts", "bots", "play", "--entries", "basic,nobody"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no entry is named \"nobody\""));
}

#[test]
fn the_target_leaderboard_shows_the_total_it_ranks_by_and_the_tie_break() {
    let dir = bots(&["target/lua-seeker.lua"]);
    std::fs::copy(root().join("scripts/target/lua-seeker.lua"), dir.path().join("bots/target/other.lua")).unwrap();
    let out = arena(
        dir.path(),
        &[
            "--game",
            "target",
            "--scripts",
            "bots",
            "tournament",
            "--rounds",
            "3",
            "--set",
            "max_rounds=4",
            "--json",
            "r.json",
        ],
    );
    let (stdout, _) = ok(&out);
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("r.json")).unwrap()).unwrap();
    let header =
        stdout.lines().find(|l| l.starts_with("rank") && l.contains("total")).unwrap_or_else(|| panic!("{stdout}"));
    assert!(header.contains("tie-break"), "{header}");
    for s in results["leaderboard"].as_array().unwrap() {
        let name = s["name"].as_str().unwrap();
        let row = stdout
            .lines()
            .skip_while(|l| *l != header)
            .find(|l| l.split_whitespace().nth(1) == Some(name))
            .unwrap_or_else(|| panic!("{name}: {stdout}"));
        let cols: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(cols[2], s["total"].to_string(), "{row}");
        assert_eq!(cols[3], format!("{:.2}", s["tiebreak"].as_f64().unwrap()), "{row}");
    }
    // Head to head, game by game: the row's wins, draws and losses against the column.
    let table = &results["cross_table"];
    let names: Vec<&str> = table["entries"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
    assert_eq!(names.len(), 2);
    let (mut wins, mut draws, mut losses) = (0, 0, 0);
    for g in results["games"].as_array().unwrap() {
        let (a, b) = (g["scores"][names[0]].as_u64().unwrap(), g["scores"][names[1]].as_u64().unwrap());
        match a.cmp(&b) {
            std::cmp::Ordering::Greater => wins += 1,
            std::cmp::Ordering::Equal => draws += 1,
            std::cmp::Ordering::Less => losses += 1,
        }
    }
    let cell = &table["cells"][0][1];
    assert_eq!(
        (cell["wins"].as_u64(), cell["draws"].as_u64(), cell["losses"].as_u64()),
        (Some(wins), Some(draws), Some(losses))
    );
    assert_eq!(cell["games"], 3);
    assert_eq!(table["cells"][1][0]["wins"].as_u64(), Some(losses));
}

#[test]
fn the_progress_line_says_what_the_leaders_number_is() {
    let dir = bots(&["hex/basic.lua", "hex/fortress.lua"]);
    let out =
        arena(dir.path(), &["--game", "hex", "--scripts", "bots", "tournament", "--rounds", "1", "--max-turns", "4"]);
    let (_, stderr) = ok(&out);
    let line = stderr.lines().find(|l| l.contains("leader: ")).unwrap_or_else(|| panic!("{stderr}"));
    assert!(line.contains("(mean score so far, either side "), "{line}");
    assert!(!line.contains("(pairs "), "{line}");
}

#[test]
fn no_help_text_names_a_zombies_command() {
    let dir = tempfile::tempdir().unwrap();
    for command in ["play", "tournament", "replay", "merge", "check", "bench", "list", "new-bot", "ladder"] {
        let (stdout, _) = ok(&arena(dir.path(), &[command, "--help"]));
        for old in ["`zombies ", "zombies replay", "zombies merge"] {
            assert!(!stdout.contains(old), "{command} --help says {old:?}: {stdout}");
        }
    }
}

/// A docs line that ends "Example: `scripts/...`:" (or "...: `scripts/...`:") is followed
/// by that file, not another text under its name.
#[test]
fn a_code_block_the_docs_name_after_a_file_is_that_file() {
    let mut checked = 0;
    for entry in std::fs::read_dir(root().join("docs")).unwrap().flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "md") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let Some(named) = line.trim_end().strip_suffix("`:").and_then(|l| l.rsplit_once('`')).map(|(_, f)| f)
            else {
                continue;
            };
            let mut open = i + 1;
            while lines.get(open).is_some_and(|l| l.trim().is_empty()) {
                open += 1;
            }
            if !named.starts_with("scripts/") || !lines.get(open).is_some_and(|l| l.starts_with("```")) {
                continue;
            }
            let end = lines[open + 1..].iter().position(|l| l.starts_with("```")).unwrap() + open + 1;
            let block = lines[open + 1..end].join("\n");
            let file = std::fs::read_to_string(root().join(named)).unwrap();
            assert_eq!(block.trim(), file.trim(), "{}:{}: the block is not {named}", path.display(), i + 1);
            checked += 1;
        }
    }
    // The sketch of whole sides is introduced as a sketch, not as the 300-line legion.lua.
    let scripting = std::fs::read_to_string(root().join("docs/scripting.md")).unwrap();
    assert!(!scripting.contains("Example: `scripts/hex/legion.lua`:"));
    let _ = checked;
}

/// WCAG contrast ratio of two `#rrggbb` (or `#rgb`) colours.
fn contrast(a: &str, b: &str) -> f64 {
    let lum = |hex: &str| {
        let hex = hex.trim_start_matches('#');
        let hex: String = if hex.len() == 3 { hex.chars().flat_map(|c| [c, c]).collect() } else { hex.to_owned() };
        let c: Vec<f64> = (0..3)
            .map(|i| f64::from(u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap()) / 255.0)
            .map(|v| if v <= 0.03928 { v / 12.92 } else { ((v + 0.055) / 1.055).powf(2.4) })
            .collect();
        0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]
    };
    let (x, y) = (lum(a), lum(b));
    (x.max(y) + 0.05) / (x.min(y) + 0.05)
}

#[test]
fn target_copy_numbers_are_readable_on_every_dot_and_the_legend_says_what_its_numbers_are() {
    use arena::abi::target::TargetContext;
    use arena::bot::Entry;
    use arena::game::Recorded as _;
    use arena::games::invisible_target::{self, InvisibleTarget};
    use serde_json::json;
    let seeker = || |c: &TargetContext<'_>| c.random(5);
    let entries: Vec<_> = (0..17).map(|i| Entry::builtin(format!("E{i}"), seeker)).collect();
    let (_, target) = arena::play::play_recorded(
        &entries,
        4,
        &invisible_target::Config { max_rounds: Some(2), ..invisible_target::Config::default() },
    );
    let page = InvisibleTarget::viewer_page(&target).unwrap();
    let Some(driver) = crate::util::Driver::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("target.html");
    std::fs::write(&file, page).unwrap();
    let id = driver.chromium(false);
    let s = |path: &str| format!("/session/{id}{path}");
    driver.post(&s("/url"), json!({"url": format!("file://{}", file.display())}));
    let v = driver.post(
        &s("/execute/async"),
        json!({"script": r#"
            const done = arguments[arguments.length - 1];
            requestAnimationFrame(() => done([window.viewer.colours, window.viewer.numberColours, window.viewer.legend]));
        "#, "args": []}),
    );
    driver.delete(&s(""));
    let (colours, numbers) = (v[0].as_array().unwrap(), v[1].as_array().unwrap());
    assert_eq!(colours.len(), 17);
    for (dot, number) in colours.iter().zip(numbers) {
        let ratio = contrast(dot.as_str().unwrap(), number.as_str().unwrap());
        assert!(ratio >= 4.5, "copy numbers {number} on a {dot} dot: contrast {ratio:.2}");
    }
    let legend = v[2].as_str().unwrap();
    assert!(legend.contains("its final points") && legend.contains("best copy"), "{legend}");
    assert!(legend.contains(" pt") && legend.contains(" away"), "every number says what it is: {legend}");
}

#[test]
fn hex_zombies_stacked_on_one_cell_are_drawn_with_their_count() {
    use arena::bot::Entry;
    use arena::game::Recorded as _;
    use arena::games::hex::{self, Hex};
    use serde_json::{Value, json};
    let hex = [
        Entry::<arena::games::hex::Hex>::builtin("A", arena::games::hex::bench::baseline),
        Entry::<arena::games::hex::Hex>::builtin("B", arena::games::hex::bench::baseline),
    ];
    let (_, replay) = arena::play::play_recorded(&hex, 4, &hex::Config { max_turns: Some(12) });
    let page = Hex::viewer_page(&replay).unwrap();
    // The page's data with a frame whose first two zombies share a cell.
    let open = r#"<script id="data" type="application/json">"#;
    let start = page.find(open).unwrap() + open.len();
    let end = start + page[start..].find("</script>").unwrap();
    let mut data: Value = serde_json::from_str(&page[start..end]).unwrap();
    let frames = data["frames"].as_array_mut().unwrap();
    let (k, frame) =
        frames.iter_mut().enumerate().find(|(_, f)| f["z"].as_array().unwrap().len() >= 3).expect("zombies");
    let z = frame["z"].as_array_mut().unwrap();
    let (x, y) = (z[0][1].clone(), z[0][2].clone());
    (z[1][1], z[1][2]) = (x.clone(), y.clone());
    (z[2][1], z[2][2]) = (x.clone(), y.clone());
    let t = frame["t"].clone();
    let page = format!("{}{}{}", &page[..start], serde_json::to_string(&data).unwrap(), &page[end..]);
    let Some(driver) = crate::util::Driver::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("hex.html");
    std::fs::write(&file, page).unwrap();
    let id = driver.chromium(false);
    let s = |path: &str| format!("/session/{id}{path}");
    driver.post(&s("/url"), json!({"url": format!("file://{}#t={t}", file.display())}));
    let v = driver.post(
        &s("/execute/async"),
        json!({"script": r#"
            const done = arguments[arguments.length - 1];
            requestAnimationFrame(() => done(window.hexView));
        "#, "args": []}),
    );
    driver.delete(&s(""));
    assert_eq!(v["frame"], json!(k), "{v}");
    assert_eq!(v["stacked"], json!([[x, y, 3]]), "three zombies on one cell are drawn as a stack of 3: {v}");
}
