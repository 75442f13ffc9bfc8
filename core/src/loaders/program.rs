//! Program bots: an executable file in a bot directory (a binary, or a script with a
//! shebang line and the run bit) is an entry that speaks its game's text protocol
//! over standard input and output. This module finds them and describes them; the
//! process itself (limits, pipes, deadlines) is `crate::process`, and each game's
//! protocol is the game's own (`games/<game>/program.rs`).
//!
//! A program with files of its own (a model, modules) keeps them in a directory named
//! after its file with `.files` added (`mybot` and `mybot.files/`, `bot.py` and
//! `bot.py.files/`), beside it: the program then runs in that directory, and its box
//! binds it back read-only (a box sees no other file of the bot directories). Without
//! one, a program runs in its own directory and its box shows it only its own file.
//!
//! A program's randomness is its own, but every program gets the game's seed in its
//! environment (`ARENA_SEED`; a target copy also `ARENA_COPY`, a program started once
//! per call also `ARENA_CALL`): a program that seeds its generator from them makes its
//! games a function of the tournament's seed, as native and script bots are.
//!
//! Each game's protocol has a version (each game's `program.rs`: `VERSION`, 1 for the
//! protocols as they were before they had one). A program may declare the version it
//! speaks in its `arena:` line (`# arena: eggs protocol 1`): a version its game does not
//! speak skips it at discovery, in one line naming the file and both versions
//! ([`Program::speaking`]); one it speaks makes the first line of each of its processes
//! a [`Hello`], `arena eggs protocol 1` (hex states the version in its own first line, to
//! every program, and sends no hello). A program that declares nothing gets exactly the
//! lines it always got.
//!
//! What a program says at a call (`crate::debug`, shown in replays): lines of standard
//! output that start with `#` during the call (never part of an answer: the process
//! layer sets them apart), and its standard error ([`Heard`]). A program started once
//! per call has all of its standard error; a program that plays the whole game has the
//! standard error that reached the host since its last answer, by the time this answer
//! did (it is read on another thread: a line written just before the answer may show at
//! the next call; `#` lines are always at their own call).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::log::EntryLog;
use super::scripts::ScriptLimits;
use crate::bot::{BotError, BotFactory, Entry, EntryKind, Plays};
use crate::process::{CallError, Limits, Process, ProgramSpec, run_once_timed};

/// A program bot as loaded: how to start it and under which limits.
#[derive(Debug, Clone)]
pub struct Program {
    /// The entry's name (the file name without its extension).
    pub name: String,
    /// The executable file.
    pub path: PathBuf,
    /// The directory of its own files (`<file>.files/` beside it), when it has one: its
    /// working directory, bound back in its box ([`files_dir`]).
    pub files: Option<PathBuf>,
    /// The command line that starts it.
    pub command: Vec<OsString>,
    /// One process for the whole game (else one per call, as the seed protocols say).
    pub persistent: bool,
    /// The limits of its calls (`call_timeout` is the per-call limit).
    pub limits: ScriptLimits,
    /// Where its standard error goes.
    pub log: Arc<EntryLog>,
    /// The version of its game's protocol it declared it speaks (`arena: eggs protocol
    /// 1`), if it did.
    pub protocol: Option<u32>,
    /// The line each of its processes gets first, when it declared a version its game
    /// speaks ([`Program::speaking`]).
    pub hello: Option<Hello>,
    /// Set once one of its processes was believed killed from outside its box
    /// ([`Program::call_error`]): shared by every game of the entry.
    pub claimed_outside: Arc<std::sync::atomic::AtomicBool>,
}

/// The first line a program that declared its protocol's version gets, in each of its
/// processes: `arena <game> protocol <version>`. A program that declared none gets its
/// game's lines only, as programs did before protocols had versions.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Hello {
    /// The game whose protocol it is.
    pub game: String,
    /// The protocol's version.
    pub version: u32,
}

impl std::fmt::Display for Hello {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "arena {} protocol {}", self.game, self.version)
    }
}

impl std::str::FromStr for Hello {
    type Err = String;

    fn from_str(line: &str) -> Result<Hello, String> {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words[..] {
            ["arena", game, "protocol", version] => version
                .parse()
                .map(|version| Hello { game: game.to_owned(), version })
                .map_err(|_| format!("{version:?} is not a protocol version")),
            _ => Err(format!("{line:?} is not `arena <game> protocol <version>`")),
        }
    }
}

impl Hello {
    /// The line, as sent.
    pub fn line(&self) -> String {
        format!("{self}\n")
    }
}

/// The processes and threads a program bot may have, itself and all it forks.
pub const PROGRAM_PROCESSES: u32 = 256;

/// The memory a program bot may use (its address space, RLIMIT_AS, per process; its
/// memory control group counts this plus its box's files, all its processes together).
pub const PROGRAM_MEMORY: u64 = 2 << 30;

impl Program {
    /// How to start it: the command, in the directory of its own files (else the
    /// file's directory), with the seed of the game
    /// this thread plays as `ARENA_SEED` (a decimal `u64`). A program run as another
    /// user gets the system's `PATH` (`/usr/local/bin:/usr/bin:/bin`): the host's may
    /// hold directories that user cannot read (a pyenv shim under `/root`).
    pub fn spec(&self) -> ProgramSpec {
        let mut env: Vec<(OsString, OsString)> = match self.limits.program_user {
            Some(_) => vec![("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into())],
            None => Vec::new(),
        };
        if let Some(seed) = super::log::current_game_seed() {
            env.push(("ARENA_SEED".into(), seed.to_string().into()));
        }
        let dir = self.files.clone().or_else(|| self.path.parent().map(Path::to_owned));
        ProgramSpec { command: self.command.clone(), dir, env, files: self.files.clone() }
    }

    /// [`Program::spec`] with one more environment variable (`ARENA_COPY`, `ARENA_CALL`).
    pub fn spec_with(&self, key: &str, value: impl ToString) -> ProgramSpec {
        let mut spec = self.spec();
        spec.env.push((key.into(), value.to_string().into()));
        spec
    }

    /// The limits every program bot runs under, set before it starts (`setrlimit`):
    /// 2 GiB of address space, 64 open files, files of at most 16 MiB,
    /// [`PROGRAM_PROCESSES`] processes and threads (its own control group's where one can
    /// be made, as root or in a worker's room; else its user's, when it runs as a user
    /// of its own: a box's, or `nobody` for an unboxed program of a root host), and for a
    /// process started per call a CPU limit of its call limit's whole seconds plus two
    /// (so always more than a second above the call limit, which the host's clock enforces);
    /// answers of at most 64 KiB and 64 KiB of standard error kept per process.
    pub fn process_limits(&self) -> Limits {
        let cpu = (!self.persistent).then(|| self.limits.call_timeout.as_secs() + 2);
        Limits {
            address_space: Some(PROGRAM_MEMORY),
            cpu_seconds: cpu,
            processes: Some(u64::from(PROGRAM_PROCESSES)),
            open_files: Some(64),
            file_size: Some(16 << 20),
            max_answer_bytes: 64 << 10,
            stderr_cap: 64 << 10,
            sandbox: self.limits.sandbox.clone(),
            run_as: self.limits.program_user,
        }
    }

    /// The program as its game `game`, which speaks version `version` of its protocol,
    /// plays it: refused when it declared another version (the reason names both), and
    /// greeted with a [`Hello`] by each of its processes when it declared this one.
    pub fn speaking(self, game: &str, version: u32) -> Result<Program, String> {
        match self.protocol {
            None => Ok(self),
            Some(v) if v == version => Ok(Program { hello: Some(Hello { game: game.to_owned(), version }), ..self }),
            Some(v) => Err(format!(
                "its `arena:` line asks for {game} protocol {v}, and this host speaks {game} protocol {version} only"
            )),
        }
    }

    /// A call's failure as the entry's stats count it: a timeout, an invalid answer
    /// (a flood, or bytes that are no line), or a failure, named by the file.
    ///
    /// A process killed from outside its box ([`CallError::KilledFromOutside`]) is not
    /// the entry's fault: the game is the host's to play again
    /// ([`crate::bot::host_fault`], with a line in the entry's log), the first time for
    /// an entry. A program can fake such a death, so the next ones are its crashes.
    pub fn call_error(&self, err: CallError) -> BotError {
        match err {
            CallError::Timeout => BotError::Timeout,
            CallError::Flood | CallError::Garbage(_) => BotError::Invalid(format!("{}: {err}", self.file_name())),
            CallError::KilledFromOutside(how) => {
                let believed = !self.claimed_outside.swap(true, std::sync::atomic::Ordering::SeqCst);
                let file = self.file_name();
                if believed {
                    let why = format!("{file}: its program was killed from outside its box ({how}): not its fault");
                    self.log.played_again(&why);
                    crate::bot::host_fault(why.clone());
                    BotError::Failed(why)
                } else {
                    BotError::Failed(format!(
                        "{file}: program ended: {how} (a death from outside its box is believed once per entry, and \
                         it was already)"
                    ))
                }
            }
            _ => BotError::Failed(format!("{}: {err}", self.file_name())),
        }
    }

    /// The file name used in messages.
    pub fn file_name(&self) -> String {
        self.path.file_name().map_or_else(|| self.path.display().to_string(), |f| f.to_string_lossy().into_owned())
    }
}

/// The directory of the program `path`'s own files: `<file name>.files` beside it, when
/// that is a directory (see the module's documentation).
pub fn files_dir(path: &Path) -> Option<PathBuf> {
    let mut name = path.file_name()?.to_owned();
    name.push(".files");
    let dir = path.with_file_name(name);
    dir.is_dir().then_some(dir)
}

/// True for an executable regular file that is not a library or a script.
pub fn is_program(path: &Path) -> bool {
    if super::native::is_library_name(path) || super::scripts::is_script_name(path) {
        return false;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.extension().is_some_and(|e| e == "exe")
    }
}

/// True for a regular file that starts with `#!` (a script meant to be run) but has no
/// run bit: a program bot that cannot be started as it is.
pub fn is_unexecutable_program(path: &Path) -> bool {
    use std::io::Read;
    if super::native::is_library_name(path) || super::scripts::is_script_name(path) || is_program(path) {
        return false;
    }
    let mut head = [0u8; 2];
    std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut head)).is_ok() && &head == b"#!"
}

/// How a game makes the bots of a program: its text protocol (each game's
/// `program.rs`), spoken through a [`Talker`].
pub trait ProgramBots: Plays {
    /// The bots of a program speaking this game's text protocol.
    fn program_bots(program: Program) -> Result<Arc<dyn BotFactory<Self>>, String>;
}

/// Loads a program as an entry of game `G`.
pub fn load<G: ProgramBots>(
    path: &Path,
    limits: &ScriptLimits,
    persistent: bool,
    protocol: Option<u32>,
) -> Result<Entry<G>, String> {
    let name = path.file_stem().and_then(|s| s.to_str()).ok_or("the file name is not UTF-8")?.to_owned();
    let path = std::path::absolute(path).map_err(|e| format!("cannot resolve the path: {e}"))?;
    let log = Arc::new(EntryLog::new(limits.log_dir.as_deref(), &name, limits.log_append));
    let program = Program {
        name: name.clone(),
        command: vec![path.clone().into()],
        files: files_dir(&path),
        path: path.clone(),
        persistent,
        limits: limits.clone(),
        log,
        protocol,
        hello: None,
        claimed_outside: Arc::default(),
    };
    Ok(Entry::new(name, EntryKind::Program, path, G::program_bots(program)?))
}

/// Talks to a program bot for one game: one process for the whole game (persistent),
/// or a fresh process per call (the seed protocols'). Each process's first line is the
/// program's [`Hello`], when it declared its protocol's version. A persistent process that ended
/// is not started again (a fresh process would have lost the game's state, silently):
/// the call it ended in fails with its exit status, and every later call of the game
/// fails with one message saying so; its players stay.
#[derive(Debug)]
pub struct Talker {
    program: Program,
    process: Option<Process>,
    /// Why a persistent process is gone for the rest of the game, once it ended.
    ended: Option<String>,
    /// Calls made in this game (a program started once per call gets the number of its
    /// call, from 0, as `ARENA_CALL`).
    calls: u64,
    /// This game's marker line, until the first standard error of the game writes it.
    marker: Marker,
    /// The own time of the last call (`crate::clock`), charged to the entry's bank.
    last_time: Option<std::time::Duration>,
    /// Standard error since the last answer, for what the call says.
    heard: Heard,
    /// Requests sent ahead of their calls ([`Talker::send_ahead`]) whose answers are
    /// still to be read, oldest first.
    sent: usize,
}

/// A program's standard error since its last answer (at most a call's text), for what
/// its call says (`crate::debug`): the process layer's standard error sink feeds it, and
/// the bot says it when the answer has come ([`Heard::said`]).
#[derive(Debug, Clone, Default)]
pub struct Heard(Arc<std::sync::Mutex<Vec<u8>>>);

impl Heard {
    /// Keeps `bytes` of standard error (up to a call's cap; the rest is dropped).
    pub fn feed(&self, bytes: &[u8]) {
        let mut heard = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let room = (crate::debug::CALL_CAP + 4).saturating_sub(heard.len());
        heard.extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    /// The call's answer has come: what was heard since the last is said at the call
    /// running on this thread (dropped when none listens), and forgotten.
    pub fn said(&self) {
        let heard = std::mem::take(&mut *self.0.lock().unwrap_or_else(|p| p.into_inner()));
        if heard.is_empty() || !crate::debug::listening() {
            return;
        }
        let text = String::from_utf8_lossy(&heard);
        let text = text.trim_end_matches(['\n', '\r']);
        if !text.is_empty() {
            crate::debug::say(text);
        }
    }
}

impl Talker {
    /// Nothing is started until the first call.
    pub fn new(program: Program) -> Talker {
        let marker = game_marker();
        Talker {
            program,
            process: None,
            ended: None,
            calls: 0,
            marker,
            last_time: None,
            heard: Heard::default(),
            sent: 0,
        }
    }

    fn sink(&self) -> LogSink {
        LogSink::new(Arc::clone(&self.program.log), Some(Arc::clone(&self.marker)), self.heard.clone())
    }

    /// The own time the last call took: the program's time, not the machine's
    /// (`crate::clock`).
    pub fn last_time(&self) -> Option<std::time::Duration> {
        self.last_time
    }

    /// The program.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// Sends the request of a call that will be made later in this turn, so that a
    /// program that plays the whole game gets a turn's calls in one write and answers
    /// them without a round trip each ([`crate::bot::Bot::prefetch`]). Its answer is read
    /// by [`Talker::ask_sent`]. Nothing is sent to a program started once per call, or
    /// one that ended (the call says why).
    pub fn send_ahead(&mut self, request: &[u8]) {
        if !self.program.persistent || self.ended.is_some() {
            return;
        }
        // A program that cannot start is found again by the call, which fails with it.
        if let Ok(process) = self.started() {
            process.send_ahead(request, 1);
            self.sent += 1;
        }
    }

    /// Requests sent ahead whose answers are still to be read.
    pub fn sent(&self) -> usize {
        self.sent
    }

    /// The call of a request sent ahead: drops the answers of the `skip` requests sent
    /// before it (calls that were not made), then reads its one answer line within the
    /// per-call limit, as [`Talker::ask`] does.
    ///
    /// # Panics
    /// When fewer than `skip + 1` requests were sent ahead.
    pub fn ask_sent(&mut self, skip: usize) -> Result<Vec<String>, BotError> {
        assert!(skip < self.sent, "ask_sent({skip}) with {} sent", self.sent);
        self.sent -= skip + 1;
        let result = self.persistent_call(|process, timeout| process.ask_ahead(skip, 1, timeout));
        self.heard.said();
        result
    }

    /// The requests sent ahead will not be asked: their answers are dropped when they
    /// arrive.
    pub fn forget_sent(&mut self) {
        if let Some(process) = &mut self.process {
            process.forget_ahead(self.sent);
        }
        self.sent = 0;
    }

    /// Sends `request` and reads the answer's `lines` lines (a once-per-call program may
    /// print fewer: it ends, and what it printed is the answer), within the per-call
    /// time limit (the program's own time: `crate::clock`). Every failure is one
    /// [`BotError`] for this call.
    pub fn ask(&mut self, request: &[u8], lines: usize) -> Result<Vec<String>, BotError> {
        if self.sent > 0 {
            self.forget_sent();
        }
        let result = self.ask_now(request, lines);
        self.heard.said();
        result
    }

    fn ask_now(&mut self, request: &[u8], lines: usize) -> Result<Vec<String>, BotError> {
        if self.program.persistent {
            return self.persistent_call(|process, timeout| process.ask(request, lines, timeout));
        }
        let mut sink = self.sink();
        let spec = self.program.spec_with("ARENA_CALL", self.calls);
        self.calls += 1;
        let timeout = self.program.limits.call_timeout;
        let input = match &self.program.hello {
            Some(hello) => [hello.line().as_bytes(), request].concat().into(),
            None => std::borrow::Cow::Borrowed(request),
        };
        let (result, time) = run_once_timed(&spec, &self.program.process_limits(), &input, lines, timeout, &mut sink);
        self.last_time = Some(time);
        result.map_err(|e| self.program.call_error(e))
    }

    /// The process that plays the whole game, started at the game's first call (or the
    /// first sent ahead).
    fn started(&mut self) -> Result<&mut Process, CallError> {
        if self.process.is_none() {
            let sink = Box::new(self.sink());
            let mut process = Process::spawn(&self.program.spec(), &self.program.process_limits(), sink)?;
            if let Some(hello) = &self.program.hello {
                // Written with the first request, as its first line.
                process.send_ahead(hello.line().as_bytes(), 0);
            }
            self.process = Some(process);
        }
        Ok(self.process.as_mut().expect("started above"))
    }

    /// One call of the process that plays the whole game: `call` (given the per-call
    /// limit) unless the process ended, its own time kept for the bank, and its end
    /// noted for every later call.
    fn persistent_call(
        &mut self,
        call: impl FnOnce(&mut Process, std::time::Duration) -> Result<Vec<String>, CallError>,
    ) -> Result<Vec<String>, BotError> {
        if let Some(why) = &self.ended {
            return Err(BotError::Failed(why.clone()));
        }
        let timeout = self.program.limits.call_timeout;
        let process = match self.started() {
            Ok(process) => process,
            Err(e) => return Err(self.program.call_error(e)),
        };
        let result = if process.has_ended() {
            Err(CallError::Exited("it ended between calls".to_owned()))
        } else {
            call(process, timeout)
        };
        let time = process.last_call_time();
        self.last_time = Some(time);
        self.ended_by(&result);
        result.map_err(|e| self.program.call_error(e))
    }
}

impl Talker {
    /// After a call of a program that plays the whole game: if it ended, why, for every
    /// later call.
    fn ended_by<T>(&mut self, result: &Result<T, CallError>) {
        if let Some(how) = result.as_ref().err().and_then(CallError::ended) {
            self.ended = Some(format!(
                "{}: the program ended during the game ({how}) and is not restarted: its players stay \
                 for the rest of the game (its standard error: {})",
                self.program.file_name(),
                self.program.log.describe()
            ));
        }
    }
}

/// A program's standard error: into its entry's log (after this game's marker line, when
/// it has one) and into what its call says ([`Heard`]). Every kind of program bot's
/// process gets one as its standard error sink.
#[derive(Debug)]
pub struct LogSink {
    log: Arc<EntryLog>,
    /// This game's marker line, until the first standard error of the game writes it
    /// (shared by the sinks of one game's processes).
    marker: Option<Marker>,
    /// The standard error since the last answer (what the call says).
    heard: Heard,
}

/// A game's marker line in an entry's log, written once, before the game's first
/// standard error.
pub type Marker = Arc<std::sync::Mutex<Option<String>>>;

/// The marker of the game this thread plays ([`super::log::game_marker`]), not yet written.
pub fn game_marker() -> Marker {
    Arc::new(std::sync::Mutex::new(Some(super::log::game_marker())))
}

impl LogSink {
    /// The sink of a process of `log`'s entry: its lines go to the log, after `marker`
    /// when given, and to `heard`.
    pub fn new(log: Arc<EntryLog>, marker: Option<Marker>, heard: Heard) -> LogSink {
        LogSink { log, marker, heard }
    }
}

impl std::io::Write for LogSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if let Some(marker) = self.marker.as_ref().and_then(|m| m.lock().ok()).and_then(|mut m| m.take()) {
            self.log.append(&marker);
        }
        self.log.append(&String::from_utf8_lossy(buf));
        self.heard.feed(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(protocol: Option<u32>) -> Program {
        Program {
            name: "bot".into(),
            path: "/bots/bot.py".into(),
            files: None,
            command: vec!["/bots/bot.py".into()],
            persistent: false,
            limits: ScriptLimits::default(),
            log: Arc::new(EntryLog::new(None, "bot", false)),
            protocol,
            hello: None,
            claimed_outside: Arc::default(),
        }
    }

    #[test]
    fn a_hello_is_one_line_that_reads_back() {
        let hello = Hello { game: "chess".into(), version: 1 };
        assert_eq!(hello.line(), "arena chess protocol 1\n");
        assert_eq!(hello.line().trim_end().parse::<Hello>(), Ok(hello.clone()));
        let json = serde_json::to_string(&hello).unwrap();
        assert_eq!(serde_json::from_str::<Hello>(&json).unwrap(), hello);
        assert!("arena chess protocol one".parse::<Hello>().is_err());
        assert!("5 1 2 3".parse::<Hello>().is_err());
    }

    #[test]
    fn a_program_that_declares_its_version_is_greeted_and_one_that_does_not_is_not() {
        assert_eq!(program(None).speaking("chess", 1).unwrap().hello, None);
        let greeted = program(Some(1)).speaking("chess", 1).unwrap();
        assert_eq!(greeted.hello, Some(Hello { game: "chess".into(), version: 1 }));
    }

    #[test]
    fn a_version_the_game_does_not_speak_is_refused_naming_both() {
        let why = program(Some(2)).speaking("chess", 1).unwrap_err();
        assert_eq!(why, "its `arena:` line asks for chess protocol 2, and this host speaks chess protocol 1 only");
    }
}
