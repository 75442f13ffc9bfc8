//! Cost of one bot call through each path the host has, with a trivial bot that reads
//! the context: a Rust closure (the baseline), a native Rust plugin (abi_stable), a C
//! plugin (C table via libloading), a Lua script and a Rhai script.
//!
//! `cargo bench -p zombies --bench calls`. Overhead of a path = its time minus the
//! baseline's.

use arena::games::zombies::Zombies;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use arena::abi::{Action, Context};
use arena::bot::{Bot, Entry};
use arena::games::zombies::bench::with_sample_context;
use arena::loaders::{ScriptLimits, SearchPaths, discover, native};
use criterion::{Criterion, criterion_group, criterion_main};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_owned()
}

/// The C bot, compiled with the system compiler into `dir`.
fn c_bot(dir: &Path) -> Entry<Zombies> {
    let out = dir.join(format!("{}cstay{}", std::env::consts::DLL_PREFIX, std::env::consts::DLL_SUFFIX));
    let status = std::process::Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()))
        .args(["-O2", "-shared", "-fPIC", "-I"])
        .arg(root().join("plugin-abi/include"))
        .arg("-o")
        .arg(&out)
        .arg(root().join("tests/data/native/stay.c"))
        .status()
        .expect("cc");
    assert!(status.success());
    native::load(&out, &Default::default()).unwrap()
}

/// The StandStill example plugin, built by cargo as a dev-dependency.
fn rust_bot() -> Entry<Zombies> {
    let deps = std::env::current_exe().unwrap().parent().unwrap().to_owned();
    let file = format!("{}standstill{}", std::env::consts::DLL_PREFIX, std::env::consts::DLL_SUFFIX);
    native::load(&deps.join(file), &Default::default()).unwrap()
}

fn script_bot(dir: &Path, file: &str, source: &str) -> Entry<Zombies> {
    let sub = dir.join(file.replace('.', "_"));
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(sub.join(file), source).unwrap();
    let found = discover(&SearchPaths { plugins: vec![], scripts: vec![sub] }, &ScriptLimits::default());
    assert!(found.skipped.is_empty(), "{:?}", found.skipped);
    found.entries.into_iter().next().unwrap()
}

fn calls(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let closure = Entry::builtin("closure", || {
        |ctx: &Context<'_>| if ctx.bullets > 100 { Action::go(arena::abi::Direction::N) } else { Action::stay() }
    });
    let lua = script_bot(
        dir.path(),
        "stay.lua",
        "function do_turn(ctx)\n  if ctx.bullets > 100 or ctx:look(1, 0) == nil then return 'N' end\n  return 'STAY'\nend",
    );
    let lua_empty = script_bot(dir.path(), "empty.lua", "function do_turn(ctx) return 'STAY' end");
    let rhai = script_bot(
        dir.path(),
        "stay.rhai",
        "fn do_turn(ctx) { if ctx.bullets > 100 || ctx.look(1, 0) == () { \"N\" } else { \"STAY\" } }",
    );
    let bots: Vec<(&str, Entry<Zombies>)> = vec![
        ("rust closure (baseline)", closure),
        ("native rust (abi_stable)", rust_bot()),
        ("native c (C table)", c_bot(dir.path())),
        ("lua (bullets + look)", lua),
        ("lua (answer only)", lua_empty),
        ("rhai (bullets + look)", rhai),
    ];
    let mut group = c.benchmark_group("bot call");
    group.warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    with_sample_context(|ctx| {
        for (name, entry) in &bots {
            let mut bot: Box<dyn Bot<Zombies>> = entry.create_bot().unwrap();
            assert_eq!(bot.turn(ctx), Ok(Action::stay()), "{name}");
            group.bench_function(*name, |b| b.iter(|| black_box(bot.turn(black_box(ctx)))));
        }
    });
    // The same calls through the limits every tournament call has (time bank and limit
    // per call, timed on the bot's own time): the difference is the clock's cost.
    with_sample_context(|ctx| {
        for (name, entry) in &bots[..3] {
            let bot: Box<dyn Bot<Zombies>> = entry.create_bot().unwrap();
            let mut bot = arena::limits::Guarded::new(bot, 0, Some(arena::limits::TimeBank::default()), None)
                .with_call_limit(Some(Duration::from_secs(1)));
            group.bench_function(format!("{name}, guarded"), |b| b.iter(|| black_box(bot.turn(black_box(ctx)))));
        }
    });
    group.finish();
    clock(c);
}

/// The clock's reads: a call's stopwatch as a fast call uses it (two reads of the
/// monotonic clock, the thread's mark checked), and with the thread's counters read.
fn clock(c: &mut Criterion) {
    use arena::clock::Stopwatch;
    let mut group = c.benchmark_group("clock");
    group.warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    group.bench_function("stopwatch, fast call", |b| b.iter(|| black_box(Stopwatch::start().own())));
    group.bench_function("stopwatch, counters read", |b| b.iter(|| black_box(Stopwatch::start_exact().own_exact())));
    group.bench_function("thread counters (schedstat)", |b| b.iter(|| black_box(arena::clock::thread_sched())));
    group.finish();
}

criterion_group!(benches, calls);
criterion_main!(benches);
