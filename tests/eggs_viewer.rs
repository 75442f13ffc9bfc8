//! The eggs replay viewer: the page is self-contained and draws every turn.

use arena::abi::eggs::{ATTACK, COUNTER, EggsAnswer, EggsContext, NOTHING, dir};
use arena::bot::Entry;
use arena::games::eggs::engine::Event;
use arena::games::eggs::viewer as html;
use arena::games::eggs::{self, Eggs, answer};
use arena::play::play_recorded;
use arena::replay::ReplayError;
use serde_json::Value;

type Replay = arena::replay::Replay<Eggs>;

/// Goes for an egg it sees next to it (picking it up), else wanders at random.
fn picker(ctx: &EggsContext<'_>) -> EggsAnswer {
    for d in 1..=8 {
        let (dx, dy) = dir::delta(d).unwrap();
        if ctx.look(dx, dy) == b'o' {
            return answer(d, NOTHING, &[]);
        }
    }
    answer(1 + ctx.random(8), NOTHING, &[])
}

/// Wanders at random with a random action (so it fights and destroys eggs).
fn brawler(ctx: &EggsContext<'_>) -> EggsAnswer {
    let action = [ATTACK, COUNTER, NOTHING][ctx.random(3) as usize];
    answer(1 + ctx.random(9), action, &[])
}

/// Steps towards (or onto) the nearest player it sees, attacking; else wanders.
fn hunter(ctx: &EggsContext<'_>) -> EggsAnswer {
    let mut best = None;
    for dy in -2..=2i32 {
        for dx in -2..=2i32 {
            let d = dx.abs().max(dy.abs());
            if d > 0 && ctx.look(dx, dy) == b'*' && best.is_none_or(|(b, _, _)| d < b) {
                best = Some((d, dx.signum(), dy.signum()));
            }
        }
    }
    match best {
        Some((_, dx, dy)) => answer(dir::of(dx, dy), [ATTACK, NOTHING][ctx.random(2) as usize], &[]),
        None => answer(1 + ctx.random(8), ATTACK, &[]),
    }
}

fn entries() -> Vec<Entry<Eggs>> {
    vec![
        Entry::builtin("Picker", || picker),
        Entry::builtin("Hunter", || hunter),
        Entry::builtin("Hunter 2", || hunter),
        Entry::builtin("Brawler", || brawler),
        Entry::builtin("Attacker", || |ctx: &EggsContext<'_>| answer(1 + ctx.random(8), ATTACK, &[])),
        Entry::builtin("Still </script>", || |_: &EggsContext<'_>| answer(dir::STAY, COUNTER, &[])),
    ]
}

/// The text of a page's data element.
fn raw_data(page: &str) -> &str {
    let open = r#"<script id="data" type="application/json">"#;
    let start = page.find(open).expect("the data element") + open.len();
    let len = page[start..].find("</script>").expect("the data element ends");
    &page[start..start + len]
}

/// The JSON embedded in a page.
fn embedded(page: &str) -> Value {
    serde_json::from_str(raw_data(page)).expect("the embedded data is JSON")
}

#[test]
fn the_page_is_self_contained_and_holds_every_turn_and_score() {
    let seed = 5;
    let (outcome, replay) = play_recorded(&entries(), seed, &eggs::Config::default());
    assert!(outcome.turns > 10, "a real game: {} turns", outcome.turns);
    let page = html::render(&replay).unwrap();
    for outside in ["http://", "https://", "src=", "href=", "@import", "url("] {
        assert!(!page.contains(outside), "the page loads nothing from outside: {outside}");
    }
    assert!(page.contains(&format!("<title>eggs replay, seed {seed}</title>")));
    // The name "</script>" is escaped: the page still has its two script elements only.
    assert_eq!(page.matches("</script>").count(), 2);

    let data = embedded(&page);
    assert_eq!(data, html::viewer_data(&replay).unwrap());
    let frames = data["frames"].as_array().unwrap();
    assert_eq!(frames.len() as u32, outcome.turns, "one frame per turn");
    let names: Vec<&str> = data["names"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
    assert_eq!(names[5], "Still </script>");
    assert_eq!(data["scores"], serde_json::json!(outcome.scores));

    // Following the frames as the page does gives the engine's positions and scores at
    // every turn, and the final scores.
    let side = data["side"].as_u64().unwrap() as i64;
    let board: Vec<&str> = data["board"].as_array().unwrap().iter().map(|r| r.as_str().unwrap()).collect();
    assert_eq!(board.len() as i64, side);
    assert!(board.iter().all(|r| r.len() as i64 == side));
    let mut pos: Vec<(i64, i64)> =
        data["start"].as_array().unwrap().iter().map(|p| (p[0].as_i64().unwrap(), p[1].as_i64().unwrap())).collect();
    let mut scores = vec![0u32; names.len()];
    let mut eggs: usize = board.iter().map(|r| r.matches('o').count()).sum();
    let (mut fights, mut picked, mut destroyed) = (0, 0, 0);
    let mut turn = 0usize;
    html::replay_turns(&replay, |game| {
        if game.turn() > 0 {
            let f = &frames[turn];
            turn += 1;
            let mv = f["mv"].as_str().unwrap().as_bytes();
            for (p, c) in pos.iter_mut().zip(mv) {
                let code = i64::from(c - b'0');
                *p = (p.0 + code % 3 - 1, p.1 + code / 3 - 1);
            }
            let sc = f["sc"].as_array().unwrap();
            for pair in sc.chunks(2) {
                scores[pair[0].as_u64().unwrap() as usize] = pair[1].as_u64().unwrap() as u32;
            }
            eggs -= f["eggs"].as_array().unwrap().len() / 2;
            assert_eq!(f["left"].as_u64().unwrap(), u64::from(game.eggs_left()));
            assert_eq!(f["ev"].as_array().unwrap().len(), game.last_events().len());
            for e in game.last_events() {
                match e {
                    Event::Fight { .. } => fights += 1,
                    Event::EggPicked { .. } => picked += 1,
                    Event::EggDestroyed { .. } => destroyed += 1,
                    _ => {}
                }
            }
        }
        let engine: Vec<(i64, i64)> = game.players().iter().map(|&(x, y)| (i64::from(x), i64::from(y))).collect();
        assert_eq!(pos, engine, "positions at turn {}", game.turn());
        assert_eq!(scores, game.scores(), "scores at turn {}", game.turn());
        assert_eq!(eggs as u32, game.eggs_left(), "eggs at turn {}", game.turn());
    })
    .unwrap();
    assert_eq!(scores, outcome.scores, "the frames add up to the final scores");
    assert!(fights > 0 && picked > 0 && destroyed > 0, "{fights} fights, {picked} picked, {destroyed} destroyed");
    let letters: Vec<&str> =
        frames.iter().flat_map(|f| f["ev"].as_array().unwrap()).map(|e| e[0].as_str().unwrap()).collect();
    for l in ["F", "P", "D"] {
        assert!(letters.contains(&l), "events of kind {l} reach the page");
    }
}

#[test]
fn a_replay_round_trips_through_bytes_and_replays_to_the_same_outcome() {
    let (outcome, replay) = play_recorded(&entries(), 11, &eggs::Config { max_turns: Some(60) });
    assert_eq!(outcome.turns, 60);
    let back = Replay::from_bytes(&replay.to_bytes()).unwrap();
    assert_eq!(back, replay);
    let again = back.verify().unwrap();
    assert_eq!((again.turns, &again.scores), (outcome.turns, &outcome.scores));
    let viewed = html::replay_turns(&back, |_| {}).unwrap();
    assert_eq!((viewed.turns, viewed.scores), (outcome.turns, outcome.scores));
    assert_eq!(html::render(&back).unwrap(), html::render(&replay).unwrap());
}

#[test]
fn a_corrupt_or_truncated_eggs_replay_gives_a_one_line_error() {
    let (_, replay) = play_recorded(&entries(), 4, &eggs::Config { max_turns: Some(80) });
    let bytes = replay.to_bytes();
    let err = |b: &[u8]| Replay::from_bytes(b).and_then(|r| html::render(&r)).unwrap_err();
    let mut errors = vec![];
    let e = err(b"hello world");
    assert_eq!(e, ReplayError::NotAReplay);
    errors.push(e);
    let e = err(&bytes[..10]);
    assert!(matches!(e, ReplayError::Truncated(_)), "{e}");
    errors.push(e);
    let e = err(&bytes[..bytes.len() / 2]);
    assert!(matches!(e, ReplayError::Truncated(_) | ReplayError::Corrupt(_)), "{e}");
    errors.push(e);
    // Fewer calls, or more, than the game needs: caught by re-playing.
    let mut short = replay.clone();
    short.calls.truncate(short.calls.len() / 2);
    let e = err(&short.to_bytes());
    assert!(matches!(e, ReplayError::Mismatch(_)), "{e}");
    errors.push(e);
    let mut long = replay.clone();
    long.calls.extend(replay.calls.iter().take(7).copied());
    let e = html::render(&long).unwrap_err();
    assert!(matches!(e, ReplayError::Mismatch(_)), "{e}");
    errors.push(e);
    // A changed call changes the game (or at least leaves the calls' count wrong).
    let mut changed = replay.clone();
    for c in &mut changed.calls {
        c.direction = 9;
    }
    let e = html::render(&changed).unwrap_err();
    assert!(matches!(e, ReplayError::Mismatch(_)), "{e}");
    errors.push(e);
    // Implausible headers.
    for names in [0, 1001, 100_000] {
        let mut bad = replay.clone();
        bad.header.names = (0..names).map(|i| format!("E{i}")).collect();
        bad.header.scores = vec![0; names];
        let e = html::render(&bad).unwrap_err();
        assert!(matches!(e, ReplayError::Corrupt(_)), "{names} names: {e}");
        errors.push(e);
    }
    let mut bad = replay.clone();
    bad.header.scores.pop();
    errors.push(html::render(&bad).unwrap_err());
    let mut bad = replay.clone();
    bad.header.config.insert("max_turns".into(), "soon".into());
    let e = html::render(&bad).unwrap_err();
    assert!(matches!(e, ReplayError::Corrupt(_)), "{e}");
    errors.push(e);
    for e in errors {
        assert!(!e.to_string().contains('\n') && !e.to_string().is_empty(), "{e}");
    }
    // Any cut of the file is an error, never a panic.
    for cut in (0..bytes.len()).step_by(7) {
        let _ = Replay::from_bytes(&bytes[..cut]).and_then(|r| html::render(&r));
    }
}

#[test]
fn a_zombies_replay_is_not_an_eggs_replay() {
    use arena::abi::{Action, Context};
    use arena::games::zombies::{self, Zombies};
    let entries = vec![Entry::<Zombies>::builtin("Still", || |_: &Context<'_>| Action::stay())];
    let (_, zombies) = play_recorded(&entries, 3, &zombies::Config { players_per_entry: 3, max_turns: Some(5) });
    let e = Replay::from_bytes(&zombies.to_bytes()).unwrap_err();
    assert_eq!(e, ReplayError::OtherGame("zombies".into(), "eggs"));
    assert!(!e.to_string().contains('\n'));
}

/// A stand-in for the browser: just enough of the DOM for the page's script to run in
/// Node, with the canvas calls counted.
const FAKE_DOM: &str = r#"
"use strict";
const calls = {};
const ctx2d = () => new Proxy({}, { get: (o, k) => k in o ? o[k] : (o[k] = (...a) => { calls[k] = (calls[k] || 0) + 1; }),
  set: (o, k, v) => { o[k] = v; return true; } });
const elements = {};
const listeners = { window: {}, document: {} };
function element(id) {
  return elements[id] || (elements[id] = { id, textContent: "", innerHTML: "", value: "5", style: {}, offsetWidth: 280,
    width: 0, height: 0, getContext: ctx2d, getBoundingClientRect: () => ({ left: 10, top: 60 }),
    addEventListener: () => {} });
}
const document = { getElementById: element, createElement: () => element("offscreen" + Math.random()),
  addEventListener: (k, f) => { listeners.document[k] = f; } };
const location = { hash: "" };
const history = { replaceState: (_a, _b, h) => { location.hash = h; } };
const window = { innerWidth: 1200, innerHeight: 900, scrollY: 0, addEventListener: (k, f) => { listeners.window[k] = f; } };
const key = k => listeners.document.keydown({ key: k, target: {}, preventDefault: () => {} });
"#;

#[test]
fn the_page_steps_with_the_arrow_keys_and_follows_its_address_in_node() {
    let Ok(node) = which_node() else {
        crate::util::skip("skipping the page-script test: no node");
        return;
    };
    let (outcome, replay) = play_recorded(&entries(), 8, &eggs::Config::default());
    assert!(outcome.turns > 30);
    let page = html::render(&replay).unwrap();
    let body = page.split("<script>").nth(1).unwrap().split("</script>").next().unwrap();
    let script = format!(
        "{FAKE_DOM}\nelement('data').textContent = {data};\nlocation.hash = '#t=3';\n{body}\n{}",
        r##"
const out = [window.viewer.turn];
for (let i = 0; i < 12; i++) key("ArrowRight");
out.push(window.viewer, location.hash, element("turn").textContent);
key("ArrowLeft");
out.push(window.viewer.turn, location.hash);
location.hash = "#t=30";
listeners.window.hashchange();
out.push(window.viewer);
const before = element("board").width;
window.innerWidth = 600; window.innerHeight = 500;
listeners.window.resize();
setTimeout(() => { out.push(before, element("board").width); console.log(JSON.stringify(out)); process.exit(0); }, 100);
"##,
        data = serde_json::to_string(&raw_data(&page)).unwrap(),
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("page.js");
    std::fs::write(&file, script).unwrap();
    let run = std::process::Command::new(node).arg(&file).output().unwrap();
    assert!(run.status.success(), "node: {}", String::from_utf8_lossy(&run.stderr));
    let out: Value = serde_json::from_slice(&run.stdout).unwrap();
    // What the engine says at turns 15 and 30.
    let mut at = std::collections::BTreeMap::new();
    html::replay_turns(&replay, |g| {
        at.insert(g.turn(), (g.scores().to_vec(), g.eggs_left()));
    })
    .unwrap();
    assert_eq!(out[0], 3, "the page opens at the turn its address names: {out}");
    assert_eq!(out[1]["turn"], 15, "{out}");
    assert_eq!(out[1]["scores"], serde_json::json!(at[&15].0), "the scores at the turn shown: {out}");
    assert_eq!(out[1]["eggs"], at[&15].1, "{out}");
    assert_eq!(out[1]["players"], 6);
    assert_eq!((&out[2], &out[3]), (&Value::from("#t=15"), &Value::from("15")), "{out}");
    assert_eq!((&out[4], &out[5]), (&Value::from(14), &Value::from("#t=14")), "{out}");
    assert_eq!(out[6]["turn"], 30, "a changed address shows its turn: {out}");
    assert_eq!(out[6]["scores"], serde_json::json!(at[&30].0), "{out}");
    assert!(out[8].as_u64().unwrap() < out[7].as_u64().unwrap(), "the board follows the window: {out}");
}

fn which_node() -> Result<std::path::PathBuf, ()> {
    let path = std::env::var_os("PATH").ok_or(())?;
    std::env::split_paths(&path).map(|d| d.join("node")).find(|p| p.is_file()).ok_or(())
}
