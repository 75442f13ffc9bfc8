//! The options several commands share, as clap parses them: which game (`--game`),
//! where the bots are and their limits (`--plugins`, `--scripts`, `--call-timeout-ms`,
//! ...; given before or after the subcommand and merged into [`Sources`]), a game's
//! options and time bank (`--set`, `--max-turns`, `--time-bank`), the sandbox, and
//! whether games run in workers (`--isolate`).
//!
//! Not here: what is done with them (`bots`, and each command's module), or the options
//! that only one command takes (in that command's module).

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context as _, Result, bail};
use arena::game::Game;
use arena::limits::TimeBank;
use arena::loaders::ScriptLimits;
use clap::Args;

/// Which game, given before the subcommand or after it (only the commands that play or
/// write bots list it: a replay and a results file know their game).
#[derive(Debug, Clone, Default, Args)]
pub struct GameChoice {
    /// The game: zombies, eggs, target or hex [default: zombies].
    #[arg(long = "game", value_name = "GAME",
          value_parser = clap::builder::PossibleValuesParser::new(arena::games::NAMES))]
    pub game: Option<String>,
}

/// Where the bots are and the limits they run under, as given on the command line:
/// before the subcommand (`arena --plugins X tournament`, for every command that loads
/// bots) or after it (`arena tournament --plugins X`, listed only by those commands).
/// The two are merged into [`Sources`]; no option here is global, so the commands that
/// load no bot (`merge`, `replay`, `new-bot`) do not list them.
#[derive(Debug, Clone, Default, Args)]
#[command(next_help_heading = "Bots and their limits")]
pub struct SourceArgs {
    /// Directory of native bot libraries, or one library (repeatable; replaces the
    /// default ./plugins).
    #[arg(long = "plugins", value_name = "DIR")]
    pub plugins: Vec<PathBuf>,
    /// Directory of Rhai, Lua and program bots, searched with its subdirectory named
    /// after the game, or one bot file (repeatable; replaces the default ./scripts).
    #[arg(long = "scripts", value_name = "DIR")]
    pub scripts: Vec<PathBuf>,
    /// Rhai operations / Lua instructions a script may use per call [default: 1000000].
    #[arg(long, value_name = "N")]
    pub op_budget: Option<u64>,
    /// Limit of one bot call, in milliseconds of the bot's own time (waits for a CPU do not count) [default: 1000].
    #[arg(long, value_name = "MS")]
    pub call_timeout_ms: Option<u64>,
    /// Memory cap of each script entry, in MiB [default: 64].
    #[arg(long, value_name = "MIB")]
    pub memory_mib: Option<usize>,
    /// Memory (data: heap and private mappings) of each worker process, in MiB: all the
    /// bots it runs together. A native bot that goes over it crashes its worker and is
    /// out of that game [default: 4096].
    #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(64..=(1 << 30)))]
    pub worker_memory_mib: Option<u64>,
    /// Processes and threads each worker process may have, all its bots and whatever
    /// they fork together (a pids control group as root, else RLIMIT_NPROC) [default:
    /// 1024].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(16..))]
    pub worker_processes: Option<u32>,
    /// Where bots' processes run: `bwrap`, each entry in a box of its own (bubblewrap:
    /// its own uid, processes, IPC, no network, a read-only file system); `none`, as the
    /// host's processes, for bots you trust (the same as --trust-bots). See
    /// docs/hardening.md [default: bwrap].
    #[arg(long, value_enum)]
    pub sandbox: Option<SandboxMode>,
    /// Run native and program bots without a box (as `--sandbox none`): only for bots
    /// you trust, or where this machine cannot give a box (no bubblewrap, or no user
    /// namespaces), which is otherwise refused.
    #[arg(long)]
    pub trust_bots: bool,
    /// Directory of the entries' logs, one `<entry>.log` each: scripts' `print`,
    /// programs' stderr, native bots' log lines [default: logs].
    #[arg(long, value_name = "DIR")]
    pub logs: Option<PathBuf>,
    /// A directory no box sees (beside the bot directories and the logs, which none
    /// does), but for a bot's own files in it (repeatable): `arena serve` hides its
    /// submitted bots' directory from the checks it runs.
    #[arg(long, value_name = "DIR", hide = true)]
    pub hide_from_boxes: Vec<PathBuf>,
}

/// [`SourceArgs`] resolved: those after the subcommand added to (directories) or
/// overriding (limits) those before it, then the defaults.
#[derive(Debug, Clone)]
pub struct Sources {
    pub plugins: Vec<PathBuf>,
    pub scripts: Vec<PathBuf>,
    pub op_budget: u64,
    pub call_timeout_ms: u64,
    pub memory_mib: usize,
    pub worker_memory_mib: u64,
    pub worker_processes: u32,
    pub sandbox: SandboxMode,
    /// `--sandbox` was given (a box asked for by name is never dropped).
    pub explicit_sandbox: bool,
    pub logs: PathBuf,
    /// More directories no box sees (`--hide-from-boxes`; `arena serve` adds its
    /// submitted bots' directory).
    pub hidden: Vec<PathBuf>,
}

impl Sources {
    pub fn resolve(before: &SourceArgs, after: Option<&SourceArgs>) -> Sources {
        let after = after.cloned().unwrap_or_default();
        let defaults = ScriptLimits::default();
        Sources {
            plugins: [&before.plugins[..], &after.plugins[..]].concat(),
            scripts: [&before.scripts[..], &after.scripts[..]].concat(),
            op_budget: after.op_budget.or(before.op_budget).unwrap_or(defaults.op_budget),
            call_timeout_ms: after
                .call_timeout_ms
                .or(before.call_timeout_ms)
                .unwrap_or(defaults.call_timeout.as_millis() as u64),
            memory_mib: after.memory_mib.or(before.memory_mib).unwrap_or(defaults.memory >> 20),
            worker_memory_mib: after.worker_memory_mib.or(before.worker_memory_mib).unwrap_or(4096),
            worker_processes: after.worker_processes.or(before.worker_processes).unwrap_or(1024),
            sandbox: if before.trust_bots || after.trust_bots {
                SandboxMode::None
            } else {
                after.sandbox.or(before.sandbox).unwrap_or(SandboxMode::Bwrap)
            },
            explicit_sandbox: after.sandbox.or(before.sandbox).is_some(),
            logs: after.logs.or_else(|| before.logs.clone()).unwrap_or_else(|| PathBuf::from("logs")),
            hidden: [&before.hide_from_boxes[..], &after.hide_from_boxes[..]].concat(),
        }
    }
}

#[derive(Debug, Clone, Args)]
pub struct GameOptions {
    /// Stop a game after this many turns (zombies: the rules have no limit).
    #[arg(long, value_name = "N")]
    pub max_turns: Option<u32>,
    /// Set one of the game's options, KEY=VALUE (repeatable; e.g. players_per_entry=10
    /// for zombies). An unknown key is an error that lists the game's options.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Each entry's time bank per game (own time), in seconds, at the start...
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
    pub time_bank: f64,
    /// ...plus this many seconds per turn. An entry that spends its bank is out of
    /// that game (its players stay), and the leaderboard says so.
    #[arg(long, value_name = "SECS", default_value_t = 1.0)]
    pub time_per_turn: f64,
}

impl GameOptions {
    /// The game's options: its defaults, with `--max-turns` and each `--set` applied.
    pub fn config<G: Game>(&self) -> Result<G::Config> {
        let serde_json::Value::Object(mut map) = serde_json::to_value(G::Config::default())? else {
            bail!("{}: its options are not a map", G::NAME);
        };
        let known: Vec<String> = map.keys().cloned().collect();
        let mut set = |key: &str, value: serde_json::Value| -> Result<()> {
            if key == "max_turns" && !map.contains_key(key) && map.contains_key("max_rounds") {
                bail!(
                    "{} has no option \"max_turns\": its games are counted in rounds (every player moves once \
                     a round); use --set max_rounds=N (its options: {})",
                    G::NAME,
                    known.join(", ")
                );
            }
            if !map.contains_key(key) {
                bail!("{} has no option {key:?} (its options: {})", G::NAME, known.join(", "));
            }
            map.insert(key.to_owned(), value);
            Ok(())
        };
        if let Some(m) = self.max_turns {
            set("max_turns", m.into())?;
        }
        for kv in &self.set {
            let (k, v) = kv.split_once('=').with_context(|| format!("--set {kv:?}: expected KEY=VALUE"))?;
            let value =
                serde_json::from_str(v.trim()).unwrap_or_else(|_| serde_json::Value::String(v.trim().to_owned()));
            set(k.trim(), value)?;
        }
        let config = serde_json::from_value(serde_json::Value::Object(map)).context("bad game option")?;
        G::check_config(&config).map_err(|why| anyhow::anyhow!("bad game option: {} {why}", G::NAME))?;
        Ok(config)
    }

    pub fn bank(&self) -> Result<TimeBank> {
        let secs = |v: f64, what| {
            Duration::try_from_secs_f64(v).map_err(|_| anyhow::anyhow!("--{what} {v}: not a number of seconds"))
        };
        Ok(TimeBank {
            initial: secs(self.time_bank, "time-bank")?,
            per_turn: secs(self.time_per_turn, "time-per-turn")?,
        })
    }
}

/// How program bots and workers are sandboxed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SandboxMode {
    /// No box: resource limits, process groups and caps only, and (as root) the
    /// `nobody` user for programs. For bots you trust.
    None,
    /// A box per entry (bubblewrap): its own uid (as root) and user, PID, IPC, UTS,
    /// mount and network namespaces; the file system read-only but its own scratch
    /// directory; the other entries' files, the logs and /tmp hidden.
    Bwrap,
}

/// Whether games run in worker processes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Isolate {
    /// As strict when a native or Lua bot plays (whose code can crash a process or get
    /// stuck where no hook reaches it); else in this process, each program bot in a box
    /// of its own. The default: for contests of strangers' bots.
    Auto,
    /// Games always in one shared worker process (per job) for all the entries: faster,
    /// but the native bots of a game share its memory and its box. For bots you trust.
    On,
    /// Every game in lockstep: each entry in a worker process of its own and a referee
    /// with no bot counting the score, so that no bot can touch another's calls or the
    /// result, even in the game a crash would be replayed in (slower: every call
    /// crosses processes).
    Strict,
    /// Everything in this process: fastest, but a native bot can crash or hang the host,
    /// and a Lua call stuck in a C function (a pattern match) waits for its time bank.
    Off,
}
