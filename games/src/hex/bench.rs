//! Hex's performance workloads (`arena --game hex bench`, `docs/games/hex.md`): whole
//! 1000-half-turn games on one thread with baseline bots (a builtin Rust closure, and
//! every pair of the native plugins found), and that baseline bot itself
//! ([`baseline`], as `plugins/hex-basic` plays), which tests play against too.
//!
//! This module builds workloads and measures them, handing each line of the report to
//! the caller; it prints nothing.

use std::time::{Duration, Instant};

use zombies_plugin_abi::hex::{
    CALL_SPAWN_HUMANS, CALL_SPAWN_ZOMBIES, DIRS, HUMANS, HexAnswer, HexCommand, HexContext, ZONES, distance, in_bounds,
    weapon,
};

use super::{Config, Hex};
use crate::bench::{BenchError, BenchOptions};
use crate::bot::{Entry, EntryKind};
use crate::play::play_game;

/// Whole games of `humans` against `zombies` for at least `min_time` on this thread:
/// games, half-turns played, and the mean time of one game in milliseconds.
pub fn game_millis(humans: &Entry<Hex>, zombies: &Entry<Hex>, min_time: Duration) -> (u64, u64, f64) {
    let entries = [humans.renamed("H".to_owned()), zombies.renamed("Z".to_owned())];
    let (mut games, mut half_turns) = (0u64, 0u64);
    let started = Instant::now();
    while games == 0 || started.elapsed() < min_time {
        let outcome = play_game(&entries, games, &Config::default());
        half_turns += u64::from(outcome.turns);
        games += 1;
    }
    (games, half_turns, started.elapsed().as_secs_f64() * 1e3 / games as f64)
}

/// The baseline (as `plugins/hex-basic`) as a closure: six pistols shooting the
/// nearest zombie; zombies stepping forward, turning at walls, biting neighbours.
pub fn baseline() -> impl FnMut(&HexContext<'_>) -> HexAnswer {
    let mut zone = 0usize;
    move |ctx: &HexContext<'_>| {
        let mut a = HexAnswer::default();
        match ctx.call {
            CALL_SPAWN_HUMANS => {
                for (x, y) in [(2, 2), (3, 2), (2, 3), (1, 2), (2, 1), (3, 1)] {
                    a.push(HexCommand::spawn_human(x, y, weapon::PISTOL));
                }
            }
            CALL_SPAWN_ZOMBIES => {
                for _ in 0..ctx.zombies_to_spawn.min(16) {
                    let k = zone % 4;
                    zone += 1;
                    a.push(HexCommand::spawn_zombie(ZONES[k], [0, 4, 3, 1][k]));
                }
            }
            _ if ctx.side == HUMANS => {
                if let Some(me) = ctx.me_human() {
                    let target = ctx
                        .zombies
                        .iter()
                        .map(|z| (distance(me.x, me.y, z.x, z.y), z.id))
                        .filter(|&(d, _)| d <= weapon::RANGE[weapon::PISTOL as usize])
                        .min();
                    if let Some((_, id)) = target {
                        for _ in 0..4 {
                            a.push(HexCommand::attack(id));
                        }
                    }
                }
            }
            _ => {
                if let Some(me) = ctx.me_zombie() {
                    if let Some(h) = ctx.humans.iter().find(|h| distance(me.x, me.y, h.x, h.y) <= 1) {
                        a.push(HexCommand::attack(h.id));
                    } else {
                        let (dx, dy) = DIRS[me.facing as usize % 6];
                        let (fx, fy) = (me.x + dx, me.y + dy);
                        if !in_bounds(fx, fy) || ctx.wall_at(fx, fy) {
                            a.push(HexCommand::turn(if ctx.random(2) == 0 { 1 } else { -1 }));
                        } else {
                            a.push(HexCommand::forward());
                        }
                    }
                }
            }
        }
        a
    }
}

/// The workloads: the builtin baseline against itself, then every ordered pair of the
/// native plugins found.
pub fn run(opts: &BenchOptions, out: &mut dyn FnMut(String)) -> Result<(), BenchError> {
    let discovery = opts.discover::<Hex>();
    let builtin = Entry::<Hex>::builtin("RustBaseline", baseline);
    let natives: Vec<Entry<Hex>> = discovery.entries.iter().filter(|e| e.kind == EntryKind::Native).cloned().collect();
    let mut pairs = vec![(builtin.clone(), builtin)];
    for h in &natives {
        for z in &natives {
            pairs.push((h.clone(), z.clone()));
        }
    }
    if natives.is_empty() {
        out("(no native hex plugin found: build with `cargo build --release`, add --plugins target/release)".to_owned());
    }
    out(format!("{:<44} {:>6} {:>12} {:>10}", "workload (humans vs zombies)", "games", "half-turns", "ms/game"));
    for (h, z) in &pairs {
        let name = format!("{} vs {}", h.name, z.name);
        if !opts.selects(&name) {
            continue;
        }
        let (games, half_turns, ms) = game_millis(h, z, opts.time);
        out(format!("{name:<44} {games:>6} {half_turns:>12} {ms:>10.2}"));
    }
    Ok(())
}
