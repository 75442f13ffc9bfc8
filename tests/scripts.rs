//! Script bots: the API in both languages, state, determinism, the sandbox and limits,
//! and broken scripts from `tests/data/scripts`.

use arena::games::zombies::Zombies;
use std::path::Path;
use std::time::Duration;

use arena::abi::Action;
use arena::bot::{Bot, BotError, CallStats, Entry, EntryKind};
use arena::games::zombies::{self, GameOutcome};
use arena::loaders::{Discovery, ScriptLimits, SearchPaths, discover};
use arena::tournament::play_game;

use crate::util::{data, root, untimed};

/// Small limits so that misbehaving scripts cost little test time.
/// Small budgets (an endless loop stops at its operation budget) and a generous
/// deadline: the tests below check answers, not timing, and a loaded machine (the
/// whole suite runs at once) may pause a call for a while.
fn limits() -> ScriptLimits {
    ScriptLimits { op_budget: 20_000, call_timeout: Duration::from_secs(5), memory: 8 << 20, ..Default::default() }
}

fn discover_files(files: &[&Path], limits: &ScriptLimits) -> (tempfile::TempDir, Discovery<Zombies>) {
    let dir = tempfile::tempdir().unwrap();
    for f in files {
        std::fs::copy(f, dir.path().join(f.file_name().unwrap())).unwrap();
    }
    let found = discover(&SearchPaths { plugins: vec![], scripts: vec![dir.path().to_owned()] }, limits);
    (dir, found)
}

/// Writes a script and loads it.
fn script(file: &str, source: &str) -> Entry<Zombies> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(file);
    std::fs::write(&path, source).unwrap();
    let found = discover(&SearchPaths { plugins: vec![], scripts: vec![dir.path().to_owned()] }, &limits());
    assert!(found.skipped.is_empty(), "{:?}", found.skipped);
    found.entries.into_iter().next().unwrap()
}

fn fixture(file: &str) -> Result<Entry<Zombies>, String> {
    let (_dir, found) = discover_files(&[&data(&format!("scripts/{file}"))], &limits());
    match found.entries.into_iter().next() {
        Some(e) => Ok(e),
        None => Err(found.skipped[0].to_string()),
    }
}

fn small_game(entries: &[Entry<Zombies>], seed: u64) -> GameOutcome {
    play_game(entries, seed, &zombies::Config { players_per_entry: 5, max_turns: Some(40) })
}

/// Every entry was called, and made no error and no overrun.
fn assert_played_cleanly(entries: &[Entry<Zombies>], out: &GameOutcome) {
    for (e, s) in entries.iter().zip(&out.stats) {
        assert!(s.calls > 0, "{} was never called", e.name);
        assert_eq!((s.errors, s.overruns), (0, 0), "{}: {:?}", e.name, s.messages);
    }
}

/// Stats of a fixture played alone for a short game.
fn stats_of(file: &str) -> CallStats {
    let entry = fixture(file).unwrap_or_else(|e| panic!("{file} should load: {e}"));
    small_game(&[entry], 3).stats[0].clone()
}

#[test]
fn every_rhai_and_lua_file_is_an_entry_named_after_its_stem() {
    let found =
        discover(&SearchPaths { plugins: vec![], scripts: vec![root().join("scripts")] }, &ScriptLimits::default());
    assert!(found.skipped.is_empty(), "{:?}", found.skipped);
    let mut kinds: Vec<(String, EntryKind)> = found.entries.iter().map(|e| (e.name.clone(), e.kind)).collect();
    kinds.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        kinds,
        [
            ("coward".into(), EntryKind::Lua),
            ("drifter".into(), EntryKind::Rhai),
            ("gunslinger".into(), EntryKind::Lua),
            ("sentinel".into(), EntryKind::Rhai)
        ]
    );
    let out = play_game(&found.entries, 2, &zombies::Config::default());
    assert_played_cleanly(&found.entries, &out);
}

/// The same API in both languages: a bot that checks the context and answers per clock.
#[test]
fn the_api_is_the_same_in_both_languages() {
    let lua = script(
        "checker.lua",
        r#"
        function do_turn(ctx)
          assert(ctx.id.name == "checker", "name " .. tostring(ctx.id.name))
          assert(ctx.id.number > 0)
          assert(ctx:look(0, 0) == ctx.id, "look(0,0) is me")
          assert(ctx.bullets == 3 or ctx.clock > 0)
          assert(ctx.x >= 0 and ctx.x < ctx.board_size and ctx.y >= 0 and ctx.y < ctx.board_size)
          local mine = false
          for _, id in ipairs(ctx:shootable()) do if id == ctx.id then mine = true end end
          assert(mine, "shootable includes me")
          local r = random(3)
          assert(r >= 0 and r < 3)
          local m = math.random(6)
          assert(m >= 1 and m <= 6)
          if ctx.clock % 2 == 0 then return random_move() else return "n" end
        end"#,
    );
    let rhai = script(
        "checker.rhai",
        r#"
        fn do_turn(ctx) {
            if ctx.id.name != "checker" { throw "name " + ctx.id.name; }
            if ctx.id.number <= 0 { throw "number"; }
            if ctx.look(0, 0) != ctx.id { throw "look(0,0) is me"; }
            if ctx.x < 0 || ctx.x >= ctx.board_size || ctx.y < 0 || ctx.y >= ctx.board_size { throw "xy"; }
            if !ctx.shootable().contains(ctx.id) { throw "shootable includes me"; }
            let r = random(3);
            if r < 0 || r >= 3 { throw "random"; }
            if ctx.look(8, 8) != () && ctx.look(8, 8).name == "" { throw "names"; }
            if ctx.clock % 2 == 0 { random_move() } else { "n" }
        }"#,
    );
    for entry in [lua, rhai] {
        let entries = std::slice::from_ref(&entry);
        assert_played_cleanly(entries, &small_game(entries, 4));
    }
}

#[test]
fn visible_lists_every_look_that_is_not_empty_in_scan_order_in_both_languages() {
    let lua = script(
        "viewer.lua",
        r#"
        function do_turn(ctx)
          local seen, n = ctx:visible(), 0
          for dx = -8, 8 do
            for dy = -8, 8 do
              local who = ctx:look(dx, dy)
              if who then
                n = n + 1
                local v = seen[n]
                assert(v and v.dx == dx and v.dy == dy and v.id == who, "entry " .. n .. " is " .. dx .. "," .. dy)
              end
            end
          end
          assert(#seen == n, "as many entries as looks")
          assert(n > 1, "a crowded board shows more than me")
          return random_move()
        end"#,
    );
    let rhai = script(
        "viewer.rhai",
        r#"
        fn do_turn(ctx) {
            let seen = ctx.visible();
            let n = 0;
            for dx in -8..=8 {
                for dy in -8..=8 {
                    let who = ctx.look(dx, dy);
                    if who != () {
                        let v = seen[n];
                        if v.dx != dx || v.dy != dy || v.id != who { throw `entry ${n} is ${dx},${dy}`; }
                        n += 1;
                    }
                }
            }
            if seen.len() != n { throw "as many entries as looks"; }
            if n <= 1 { throw "a crowded board shows more than me"; }
            random_move()
        }"#,
    );
    for entry in [lua, rhai] {
        // 4 entries of 50 on a 58x58 board: every view holds others.
        let entries: Vec<Entry<Zombies>> = (0..4).map(|i| entry.renamed(format!("v{i}"))).collect();
        let config = zombies::Config { players_per_entry: 50, max_turns: Some(3) };
        assert_played_cleanly(&entries, &play_game(&entries, 9, &config));
    }
}

#[test]
fn look_beyond_the_view_is_an_error_that_names_the_range_in_both_languages() {
    let lua = script(
        "peek.lua",
        r#"
        function do_turn(ctx)
          assert(ctx:look(1.0, -2) == ctx:look(1, -2), "whole-number floats are offsets too")
          if ctx.clock == 0 then return ctx:look(9, 0) end
          return "STAY"
        end"#,
    );
    let rhai = script(
        "peek.rhai",
        r#"
        fn do_turn(ctx) {
            if ctx.clock == 0 { return ctx.look(0, -9); }
            "STAY"
        }"#,
    );
    for entry in [lua, rhai] {
        let out = small_game(std::slice::from_ref(&entry), 4);
        let s = &out.stats[0];
        // Every player's first call fails (5 players), the later ones do not.
        assert_eq!(s.errors, 5, "{:?}: {:?}", entry.kind, s.messages);
        assert!(s.calls > 5);
        assert!(s.messages.iter().any(|m| m.contains("offsets go from -8 to 8")), "{:?}", s.messages);
    }
}

#[test]
fn shoot_returns_a_shot_in_both_languages() {
    // Every player shoots itself at once: the entry scores 0.
    for (file, src) in [
        ("emo.lua", "function do_turn(ctx) return shoot(ctx.id) end"),
        ("emo.rhai", "fn do_turn(ctx) { shoot(ctx.id) }"),
    ] {
        let out = small_game(&[script(file, src)], 1);
        assert_eq!(out.scores[0], 0, "{file}");
        assert_eq!(out.stats[0].errors, 0, "{file}: {:?}", out.stats[0].messages);
    }
}

#[test]
fn state_persists_between_calls_and_is_fresh_for_each_game() {
    // The first call of a game answers "STAY"; any later call answers garbage if the
    // state survived, which counts as an error. A fresh VM per game means as many
    // clean first calls as games, and shared state means errors after the first call.
    for (file, src) in [
        (
            "count.lua",
            "calls = 0\nfunction do_turn(ctx) calls = calls + 1; if calls == 1 then return 'STAY' end; return 'BAD' .. calls end",
        ),
        (
            "count.rhai",
            "fn do_turn(ctx) { this.calls = if this.calls == () { 1 } else { this.calls + 1 }; if this.calls == 1 { \"STAY\" } else { `BAD${this.calls}` } }",
        ),
        (
            // `this` named only deep inside `do_turn`, as a method's object: still the
            // entry's state (a script that names `this` nowhere is called without it).
            "nested.rhai",
            "fn bump(n) { this.calls = if this.calls == () { n } else { this.calls + n }; this.calls }\nfn do_turn(ctx) { let c = 0; if ctx.bullets >= 0 { for i in 0..1 { c = this.bump(1); } } if c == 1 { \"STAY\" } else { `BAD${c}` } }",
        ),
    ] {
        let entry = script(file, src);
        for seed in 0..2 {
            let s = &small_game(std::slice::from_ref(&entry), seed).stats[0];
            assert_eq!(s.errors, s.calls - 1, "{file}: one shared state per game: {s:?}");
            assert!(s.messages[0].contains("BAD2"), "{file}: {:?}", s.messages);
        }
    }
}

#[test]
fn script_games_replay_exactly_from_their_seed() {
    let (_d, found) = discover_files(
        &[
            &root().join("scripts/zombies/drifter.rhai"),
            &root().join("scripts/zombies/gunslinger.lua"),
            &data("scripts/returns_number.lua"),
        ],
        &ScriptLimits::default(),
    );
    let lua_random =
        script("dice.lua", "function do_turn(ctx) local d = {'N','S','E','W','STAY'}; return d[math.random(5)] end");
    let mut entries = found.entries;
    entries.push(lua_random);
    let a = small_game(&entries, 77);
    let b = small_game(&entries, 77);
    assert_eq!(untimed(a), untimed(b));
}

#[test]
fn a_syntax_error_skips_the_entry_with_file_and_line() {
    let (_d, found) = discover_files(
        &[
            &data("scripts/syntax_error.lua"),
            &data("scripts/syntax_error.rhai"),
            &root().join("scripts/zombies/coward.lua"),
        ],
        &limits(),
    );
    assert_eq!(found.entries.len(), 1, "the good one plays");
    assert_eq!(found.skipped.len(), 2);
    for s in &found.skipped {
        let line = s.to_string();
        assert!(!line.contains('\n'), "{line}");
        assert!(line.contains("syntax error"), "{line}");
    }
    let lua = found.skipped.iter().find(|s| s.path.extension().unwrap() == "lua").unwrap();
    assert!(lua.reason.contains("syntax_error.lua:4:"), "{}", lua.reason);
    let rhai = found.skipped.iter().find(|s| s.path.extension().unwrap() == "rhai").unwrap();
    assert!(rhai.reason.contains("syntax_error.rhai:3:"), "{}", rhai.reason);
}

#[test]
fn a_script_without_do_turn_is_skipped() {
    let err = fixture("no_do_turn.lua").unwrap_err();
    assert!(err.contains("do_turn"), "{err}");
}

/// Lua does not check bytecode, and made-up bytecode can corrupt the VM's memory: a
/// script is always loaded as text (only the host's own compilation of it is loaded as
/// bytecode), so a file that starts with Lua's bytecode signature is a syntax error.
#[test]
fn a_lua_file_that_claims_to_be_bytecode_is_loaded_as_text_and_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bytes.lua"), "\x1bLuaT\0function do_turn(ctx) return 'STAY' end").unwrap();
    let found = discover::<Zombies>(&SearchPaths { plugins: vec![], scripts: vec![dir.path().to_owned()] }, &limits());
    assert!(found.entries.is_empty());
    let line = found.skipped[0].to_string();
    assert!(line.contains("bytes.lua") && line.contains("attempt to load a binary chunk"), "{line}");
}

#[test]
fn a_runtime_error_on_every_call_makes_the_players_stay_and_is_reported_with_its_line() {
    for (file, line) in [("runtime_error.lua", "runtime_error.lua:3:"), ("runtime_error.rhai", "line 3")] {
        let s = stats_of(file);
        assert!(s.calls > 0);
        assert_eq!(s.errors, s.calls, "{file}: every call fails");
        assert_eq!(s.messages.len(), 1, "the same message is kept once: {:?}", s.messages);
        assert!(s.messages[0].contains(line), "{file}: {:?}", s.messages);
    }
}

#[test]
fn endless_loops_hit_the_budget_and_the_game_goes_on() {
    for file in ["endless_loop.lua", "endless_loop.rhai", "pcall_loop.lua"] {
        let s = stats_of(file);
        assert!(s.calls > 0);
        assert_eq!(s.overruns, s.calls, "{file}: every call is stopped: {s:?}");
        assert!(s.messages[0].contains("budget"), "{file}: {:?}", s.messages);
    }
}

#[test]
fn the_wall_clock_deadline_backs_the_budget() {
    // A budget too large to matter: the deadline stops the loop.
    let tight = ScriptLimits { op_budget: u64::MAX / 2, call_timeout: Duration::from_millis(20), ..limits() };
    for file in ["endless_loop.lua", "endless_loop.rhai"] {
        let (_d, found) = discover_files(&[&data(&format!("scripts/{file}"))], &tight);
        let out = play_game(&found.entries, 1, &zombies::Config { players_per_entry: 2, max_turns: Some(2) });
        let s = &out.stats[0];
        assert!(s.calls > 0 && s.overruns == s.calls, "{file}: {s:?}");
        assert!(s.messages[0].contains("time"), "{file}: {:?}", s.messages);
    }
}

#[test]
fn memory_bombs_hit_the_memory_cap() {
    let roomy =
        ScriptLimits { op_budget: 50_000_000, call_timeout: Duration::from_secs(20), memory: 2 << 20, ..limits() };
    for file in ["memory_bomb.lua", "memory_bomb.rhai"] {
        let (_d, found) = discover_files(&[&data(&format!("scripts/{file}"))], &roomy);
        assert_eq!(found.entries.len(), 1, "{:?}", found.skipped);
        let out = play_game(&found.entries, 1, &zombies::Config { players_per_entry: 2, max_turns: Some(3) });
        let s = &out.stats[0];
        assert!(s.calls > 0 && s.overruns == s.calls, "{file}: {s:?}");
        assert!(s.messages.iter().all(|m| m.contains("memory")), "{file}: {:?}", s.messages);
    }
}

/// Rhai's limit of nested calls counts as `Engine::call_fn` counts them (`do_turn` is the
/// first of 64), however the host calls `do_turn`: 63 nested calls under it play, 64 are a
/// stack overflow.
#[test]
fn rhai_calls_nest_64_deep_counting_do_turn() {
    // Both ways of calling `do_turn`: with `this` bound (a script that names it) and as a
    // plain function (one that does not).
    for this in ["", "this.deep = true; "] {
        let deep = |n: u32| {
            let source = format!(
                "fn r(n) {{ if n == 0 {{ \"STAY\" }} else {{ r(n - 1) }} }}\nfn do_turn(ctx) {{ {this}r({n}) }}\n"
            );
            let entry = script("deep.rhai", &source);
            small_game(&[entry], 1).stats[0].clone()
        };
        let fits = deep(63);
        assert!(fits.calls > 0 && fits.errors == 0, "{this:?}: {fits:?}");
        let over = deep(64);
        assert!(over.calls > 0 && over.errors == over.calls, "{this:?}: {over:?}");
        assert!(over.messages[0].contains("Stack overflow"), "{this:?}: {:?}", over.messages);
    }
}

#[test]
fn garbage_answers_make_the_player_stay_and_count_as_errors() {
    for file in ["returns_number.lua", "returns_table.lua", "returns_unknown_direction.rhai", "returns_nothing.rhai"] {
        let s = stats_of(file);
        assert!(s.calls > 0);
        assert_eq!(s.errors, s.calls, "{file}: {s:?}");
        assert!(s.messages[0].starts_with("invalid answer"), "{file}: {:?}", s.messages);
    }
}

#[test]
fn a_shot_at_a_made_up_id_wastes_the_bullet_and_hits_nothing() {
    let entry = fixture("shoots_made_up_id.lua").unwrap();
    let out = small_game(&[entry], 5);
    let s = &out.stats[0];
    assert_eq!(s.errors, 0, "a legal answer: {:?}", s.messages);
    assert!(out.turns > 1, "nobody died of it");
}

#[test]
fn escape_attempts_fail_inside_the_sandbox() {
    let s = stats_of("escape_attempts.lua");
    assert!(s.calls >= 10);
    assert_eq!(s.errors, s.calls, "every door is closed: {s:?}");
    // Rhai's eval is not even a function: the script does not load.
    match fixture("escape_attempts.rhai") {
        Ok(entry) => {
            let s = &small_game(&[entry], 1).stats[0];
            assert_eq!(s.errors, s.calls, "{s:?}");
        }
        Err(reason) => assert!(reason.contains("eval"), "{reason}"),
    }
}

#[test]
fn print_goes_to_the_entry_log_not_the_terminal() {
    let logs = tempfile::tempdir().unwrap();
    let with_log = ScriptLimits { log_dir: Some(logs.path().to_owned()), ..limits() };
    let (_d, found) = discover_files(&[&data("scripts/chatty.lua")], &with_log);
    let out = play_game(&found.entries, 1, &zombies::Config { players_per_entry: 3, max_turns: Some(5) });
    drop(found);
    let log = std::fs::read_to_string(logs.path().join("chatty.log")).unwrap();
    // The game's marker line, then one line per call.
    assert!(log.starts_with("--- game seed 1 ---\nplayer\t"), "{log}");
    assert_eq!(log.lines().skip(1).filter(|l| l.starts_with("player\t")).count() as u64, out.stats[0].calls);
    assert_eq!(log.lines().count() as u64, out.stats[0].calls + 1);
}

#[test]
fn lua_pairs_order_is_the_same_in_every_vm() {
    // The players shoot themselves at the clock equal to the place of "kN" in the order
    // pairs() walks 13 string keys, so the score shows that order: with a per-VM hash
    // seed it would differ between plays of one game.
    let entry = script(
        "walker.lua",
        r#"
        local keys = {}
        for _, d in ipairs({"N","NE","E","SE","S","SW","W","NW","STAY","a","b","c","d"}) do keys["k" .. d] = true end
        local place, i = 0, 0
        for k, _ in pairs(keys) do i = i + 1; if k == "kN" then place = i end end
        function do_turn(ctx) if ctx.clock + 1 >= place then return shoot(ctx.id) end return "STAY" end
        "#,
    );
    let scores: Vec<u32> = (0..6)
        .map(|_| {
            let other = crate::util::tournament_entry_still();
            play_game(&[entry.clone(), other], 9, &zombies::Config { players_per_entry: 1, max_turns: Some(20) }).scores
                [0]
        })
        .collect();
    assert!(scores.iter().all(|&s| s == scores[0]), "{scores:?}");
}

/// A script's bot for a whole entry's turn: the same answers from one `turn_all` as from
/// as many `turn`s (each on a fresh bot), both through the limits (`Guarded`).
fn batch_and_separate(entry: &Entry<Zombies>, limit: Duration, n: usize) -> [Vec<Result<Action, BotError>>; 2] {
    use arena::limits::Guarded;
    arena::games::zombies::bench::with_sample_context(|ctx| {
        let calls = vec![*ctx; n];
        let guarded = || Guarded::new(entry.create_bot().unwrap(), 0, None, None).with_call_limit(Some(limit));
        let mut batch = guarded();
        assert!(Bot::<Zombies>::whole_entry(&batch), "{}: script bots answer a whole entry", entry.name);
        let mut answers = Vec::new();
        batch.turn_all(&calls, &mut answers);
        let mut separate = guarded();
        let one_by_one = calls.iter().map(|c| separate.turn(c)).collect();
        [answers, one_by_one]
    })
}

#[test]
fn a_whole_entry_turn_judges_each_call_on_its_own_in_both_languages() {
    // Call 2 fails, call 3 loops past its budget, call 4 answers garbage; the others
    // (before and after) answer.
    let rhai = "fn do_turn(ctx) {
        if this.n == () { this.n = 0; }
        this.n += 1;
        print(`call ${this.n}`);
        if this.n == 2 { throw \"boom\"; }
        if this.n == 3 { loop { } }
        if this.n == 4 { return 42; }
        \"N\"
    }";
    let lua = "n = 0
    function do_turn(ctx)
      n = n + 1
      print('call ' .. n)
      if n == 2 then error('boom') end
      if n == 3 then while true do end end
      if n == 4 then return 42 end
      return 'N'
    end";
    for entry in [script("batch.rhai", rhai), script("batch.lua", lua)] {
        let [batch, separate] = batch_and_separate(&entry, Duration::from_secs(5), 6);
        assert_eq!(batch, separate, "{}", entry.name);
        assert!(matches!(batch[0], Ok(a) if a == Action::go(arena::abi::Direction::N)), "{batch:?}");
        assert!(matches!(&batch[1], Err(BotError::Failed(m)) if m.contains("boom")), "{batch:?}");
        assert_eq!(batch[2], Err(BotError::Budget));
        assert!(matches!(batch[3], Err(BotError::Invalid(_))), "{batch:?}");
        assert_eq!(
            batch[4..],
            [batch[0].clone(), batch[0].clone()],
            "{}: the calls after the failures answer",
            entry.name
        );
    }
}

#[test]
fn a_whole_entry_turn_counts_its_timeouts_as_separate_calls_do() {
    // Calls 2 to 4 run past their time (the budget is too large to matter): the third
    // late call in a row puts the entry out, and its later calls are answered so.
    let tight = ScriptLimits { op_budget: u64::MAX / 2, call_timeout: Duration::from_millis(20), ..limits() };
    let rhai = "fn do_turn(ctx) {
        if this.n == () { this.n = 0; }
        this.n += 1;
        if this.n >= 2 && this.n <= 4 { loop { } }
        \"N\"
    }";
    let lua = "n = 0
    function do_turn(ctx)
      n = n + 1
      if n >= 2 and n <= 4 then while true do end end
      return 'N'
    end";
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("late.rhai"), rhai).unwrap();
    std::fs::write(dir.path().join("late2.lua"), lua).unwrap();
    let found = discover(&SearchPaths { plugins: vec![], scripts: vec![dir.path().to_owned()] }, &tight);
    assert_eq!(found.entries.len(), 2, "{:?}", found.skipped);
    for entry in &found.entries {
        let [batch, separate] = batch_and_separate(entry, tight.call_timeout, 6);
        assert_eq!(batch[..4], separate[..4], "{}", entry.name);
        assert!(batch[0].is_ok(), "{batch:?}");
        assert_eq!(batch[1..4], [Err(BotError::Timeout), Err(BotError::Timeout), Err(BotError::Timeout)]);
        for answers in [&batch, &separate] {
            assert!(
                answers[4..].iter().all(|a| matches!(a, Err(BotError::Disqualified(m)) if m.contains("in a row"))),
                "{}: {answers:?}",
                entry.name
            );
        }
    }
}
