//! Cost of one bot call through each path the host has, with a trivial bot that reads
//! the context: a Rust closure (the baseline), a native Rust plugin (abi_stable), a C
//! plugin (C table via libloading), a Lua script, a Rhai script, and program bots (one
//! process for the whole game, the line protocol: a C program and a Python one); beside
//! them the anchor of a program call, one pipe round trip to a child that echoes a line.
//!
//! `cargo bench -p arena --bench calls`. Overhead of a path = its time minus the
//! baseline's. Program calls are timed here in wall time on the calling thread, which
//! waits while the program runs: their CPU cost (both sides, system time included) is
//! in `docs/performance.md`.

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

/// The C program bot, compiled with the system compiler into `dir`.
fn c_program(dir: &Path) -> Entry<Zombies> {
    let sub = dir.join("c_program");
    std::fs::create_dir_all(&sub).unwrap();
    let status = std::process::Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()))
        .args(["-O2", "-o"])
        .arg(sub.join("cstay"))
        .arg(root().join("tests/data/programs/stay.c"))
        .status()
        .expect("cc");
    assert!(status.success());
    discovered(sub)
}

fn script_bot(dir: &Path, file: &str, source: &str) -> Entry<Zombies> {
    let sub = dir.join(file.replace('.', "_"));
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(sub.join(file), source).unwrap();
    if !arena::loaders::scripts::is_script_name(Path::new(file)) {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(sub.join(file), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    discovered(sub)
}

fn discovered(sub: PathBuf) -> Entry<Zombies> {
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
        ("program, c (line protocol)", c_program(dir.path())),
        (
            "program, python3 (line protocol)",
            script_bot(
                dir.path(),
                "stay.py",
                "#!/usr/bin/python3\nimport sys\nfor line in sys.stdin:\n    sys.stdout.write('STAY\\n')\n    sys.stdout.flush()\n",
            ),
        ),
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
    pipe(c);
    clock(c);
}

/// The anchor of a program call: one line to a child process and one line back
/// (`cat`, which answers each line as it comes with its output unbuffered: `-u`).
fn pipe(c: &mut Criterion) {
    use std::io::{BufRead as _, BufReader, Write as _};
    use std::process::{Command, Stdio};
    let mut child = Command::new("cat").arg("-u").stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().expect("cat");
    let mut input = child.stdin.take().unwrap();
    let mut output = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    let mut group = c.benchmark_group("anchor");
    group.warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    group.bench_function("pipe round trip (cat -u, one line)", |b| {
        b.iter(|| {
            input.write_all(b"1 0 0 64 64 10 130 1 0 0 0 0\n").unwrap();
            line.clear();
            output.read_line(&mut line).unwrap();
            black_box(line.len())
        })
    });
    group.finish();
    drop(input);
    let _ = child.wait();
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
