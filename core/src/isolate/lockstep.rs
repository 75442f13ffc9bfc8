//! Lockstep games: one game played by several worker processes at once, each entry's bot
//! in a process of its own, so that the host itself sees which entry crashed or hung
//! (the process that died is the entry's), and no bot shares an address space with
//! another bot or with the process that counts the score.
//!
//! In the first mode every process of a lockstep game runs the whole engine. A **group** worker plays its
//! seats' bots for real; after each of their calls it writes the call as the replay
//! records it (`C <seat> <bytes>` on its answer pipe, then ` <text>` as a JSON string
//! when the bot said something in the call: `crate::debug`; the referee's replay keeps
//! it as the live process would have). The host passes each such line to
//! every other process of the game, where that seat is played back from it, drawing as
//! many random numbers as the live call drew: since the engine is deterministic, every
//! process plays the very same game. A **referee** has no bot at all (only playback):
//! its outcome is the game's score, and its recording the game's replay. When a group
//! worker of one seat dies or is killed, the host sends `O <seat> <reason>` instead, and
//! the seat is out of the game from that call on, in every process: the game goes on for
//! everyone else without a replay.
//!
//! **Served mode** ([`Lockstep::served`], for a game whose calls can be sent as bytes:
//! [`Game::SERVES_CALLS`]) is cheaper: only the referee runs the engine. It asks each
//! seat for its calls (`Q <seat> <n> <bytes>`, a request per call made by
//! [`Game::request`]: what the bot sees, and its generator), where the engine announces
//! them ([`Bot::prefetch`]) a whole turn's calls of a seat in one line, every seat's line
//! in one write; the host passes each to the seat's process only, which plays the batch
//! on its bot ([`Game::serve`], under the usual limits) and answers with one line of all
//! its calls as the replay records them and what the bot said in each (`R <seat> <n>
//! <bytes> <said>`), passed to the referee only. Since a batch is answered whole or not
//! at all, a seat whose process dies or hangs inside a batch is out from the batch's
//! first call, whatever the timing; at the game's end (`E`) each seat's process answers
//! with its counters. Bytes go in base64.
//!
//! The referee also says, before it waits for a seat's next call, which seat and how
//! many of its calls it has played (`W <seat> <calls>`): the host times that call from
//! then on, on the seat's own process's counters, so that no verdict depends on
//! anything a bot can write (a bot can write its own process's blame page). A served
//! batch of `n` calls has `n` times the limit per call there (each call is held to its
//! own limit by the watchdog that reads the seat's page, which only that seat's bot can
//! write, to its own harm).
//!
//! This module is the worker's side (the bots that send and receive calls); the host's
//! side, which starts and watches the processes and passes the lines, is
//! `Worker::play_lockstep` (`lockstep_host`). It knows no game: a call is whatever
//! [`Recorded::write_calls`](crate::replay::Recorded::write_calls) writes, and a request
//! whatever [`Game::request`] writes.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::{BufRead, Write};

use super::serve::Seats;
use super::{GameRequest, GameResponse};
use crate::bot::{Bot, BotError, Entry, EntryKind};
use crate::game::{Game, PlaybackTape, Tape};

/// How one process takes part in a lockstep game.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Lockstep {
    /// Every seat's entry name, in seat order.
    pub names: Vec<String>,
    /// Per seat: the index of this worker's entry that plays it here, or `None` when its
    /// calls come from the host.
    pub live: Vec<Option<usize>>,
    /// Served mode: the referee alone runs the engine and sends each call's request
    /// (`Q` lines, a turn's calls of a seat in one batch where the game allows); the
    /// seats' processes only answer them (`R` lines) and play no game of their own.
    #[serde(default)]
    pub served: bool,
}

/// A line with one call of `seat`, as [`Recorded::write_calls`](crate::replay::Recorded::write_calls) writes it,
/// and what the bot said in it (`crate::debug`).
pub fn call_line<G: Game>(seat: usize, call: &G::Call, said: Option<&str>) -> String {
    let mut bytes = Vec::new();
    G::write_calls(std::slice::from_ref(call), &mut bytes);
    let bytes = serde_json::to_string(&bytes).expect("bytes serialise");
    match said {
        Some(text) => format!("C {seat} {bytes} {}\n", serde_json::to_string(text).expect("text serialises")),
        None => format!("C {seat} {bytes}\n"),
    }
}

/// The line a referee writes when it waits for `seat`'s next call, having played
/// `consumed` calls of that seat: the host times that call from then on, whatever the
/// seat's own process says (see the parent module's watchdog).
pub fn wait_line(seat: usize, consumed: u64) -> String {
    format!("W {seat} {consumed}\n")
}

/// A line that puts `seat` out of the game from its next call on, for `reason`.
pub fn out_line(seat: usize, reason: &str) -> String {
    // One line: the reason's own line breaks would end it early.
    format!("O {seat} {}\n", reason.replace(['\n', '\r'], " "))
}

/// The line of a seat's own process that says a program of its entry was killed from
/// outside its box (`reason`, as `crate::bot::host_fault` was told): the host plays the
/// game again, believed once per entry.
pub fn fault_line(seat: usize, reason: &str) -> String {
    format!("F {seat} {}\n", reason.replace(['\n', '\r'], " "))
}

/// Writes the fault line of `seat` when its call just made a host fault
/// (`crate::bot::take_host_fault`): before the call's own line, so that the host ends
/// the game before it passes that call on.
fn say_host_fault(output: &Output<'_>, seat: usize) {
    if let Some(reason) = crate::bot::take_host_fault() {
        output.write(&fault_line(seat, &reason));
    }
}

/// The line of the referee that asks `seat` for the calls of `batch` (`calls` of them,
/// made by [`Game::request`]).
pub fn request_line(seat: usize, calls: usize, batch: &[u8]) -> String {
    let mut line = format!("Q {seat} {calls} ");
    push_bytes(&mut line, batch);
    line.push('\n');
    line
}

/// The line of a seat's process that answers a batch: its `calls` calls as the replay
/// records them, and what the bot said in each (`crate::debug`).
pub fn answer_line(seat: usize, calls: usize, bytes: &[u8], said: &[Option<String>]) -> String {
    let mut line = format!("R {seat} {calls} ");
    push_bytes(&mut line, bytes);
    line.push(' ');
    line.push_str(&serde_json::to_string(said).expect("texts serialise"));
    line.push('\n');
    line
}

/// Appends `bytes` to `line` in base64.
fn push_bytes(line: &mut String, bytes: &[u8]) {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD_NO_PAD.encode_string(bytes, line);
}

/// The bytes of a line's base64 `text`.
fn read_bytes(text: &str) -> Result<Vec<u8>, base64::DecodeError> {
    let mut bytes = Vec::new();
    read_bytes_into(text, &mut bytes)?;
    Ok(bytes)
}

/// The bytes of a line's base64 `text`, in `bytes` (emptied first: a buffer kept from
/// line to line).
fn read_bytes_into(text: &str, bytes: &mut Vec<u8>) -> Result<(), base64::DecodeError> {
    use base64::Engine as _;
    bytes.clear();
    base64::engine::general_purpose::STANDARD_NO_PAD.decode_vec(text, bytes)
}

/// The line that ends a served game: each seat's process answers with its counters.
pub const END_LINE: &str = "E\n";

/// What a line from a group worker is.
#[derive(Debug, PartialEq, Eq)]
pub enum Line<'a> {
    /// A call of a seat.
    Call(usize),
    /// A seat is out.
    Out(usize, &'a str),
    /// A seat's program was killed from outside its box, its own process says.
    Fault(usize, &'a str),
    /// The referee waits for a seat's next call, having played this many of its calls.
    Wait(usize, u64),
    /// The referee asks a seat for this many calls (served mode).
    Request(usize, u64),
    /// A seat's process answers this many calls (served mode).
    Answer(usize, u64),
    /// Anything else (an answer, or noise).
    Other,
}

/// Reads the kind of `line` (a call line is not decoded here: the host only passes it on).
pub fn parse_line(line: &str) -> Line<'_> {
    let mut parts = line.trim_end().splitn(3, ' ');
    let (tag, seat, rest) = (parts.next(), parts.next(), parts.next().unwrap_or(""));
    match (tag, seat.and_then(|s| s.parse().ok())) {
        (Some("C"), Some(seat)) => Line::Call(seat),
        (Some("O"), Some(seat)) => Line::Out(seat, rest),
        (Some("F"), Some(seat)) => Line::Fault(seat, rest),
        (Some("W"), Some(seat)) => match rest.parse() {
            Ok(consumed) => Line::Wait(seat, consumed),
            Err(_) => Line::Other,
        },
        (Some(tag @ ("Q" | "R")), Some(seat)) => match rest.split_once(' ').map(|(n, _)| n.parse()) {
            Some(Ok(n)) if tag == "Q" => Line::Request(seat, n),
            Some(Ok(n)) => Line::Answer(seat, n),
            _ => Line::Other,
        },
        _ => Line::Other,
    }
}

/// The calls and verdicts the host has sent so far, per seat, read from the worker's
/// standard input only when a seat needs its next call.
struct Inbox<'r, 'w, 'o> {
    input: &'r mut dyn Input,
    calls: Vec<VecDeque<Received>>,
    /// Served mode: per seat, the requests not sent yet (how many, and the batch).
    pending: Vec<(usize, Vec<u8>)>,
    out: Vec<Option<String>>,
    /// Calls played so far, per seat.
    consumed: Vec<u64>,
    /// The worker's output, where the referee says that it waits.
    output: &'w Output<'o>,
    /// This is the referee: it says which seat it waits for (only the referee, which
    /// runs no bot, is believed).
    announce: bool,
}

/// A worker's answer pipe: every line goes out as soon as it is written, a call the
/// moment it ends. (Holding a worker's calls to send several in one write would save
/// the host wake-ups, but a bot that crashes would take its held calls with it, and the
/// call from which its seat is out, and so the game, would depend on the timing.)
pub(super) struct Output<'o> {
    out: RefCell<&'o mut dyn Write>,
}

impl<'o> Output<'o> {
    /// The answer pipe of a worker writing to `out`.
    pub(super) fn new(out: &'o mut dyn Write) -> Output<'o> {
        Output { out: RefCell::new(out) }
    }

    /// Writes `line` and sends it.
    pub(super) fn write(&self, line: &str) {
        let mut out = self.out.borrow_mut();
        if out.write_all(line.as_bytes()).and_then(|()| out.flush()).is_err() {
            // The host is gone.
            std::process::exit(3);
        }
    }
}

/// Calls of a remote seat as they came: one call (a `C` line: its bytes, and what the
/// bot said in it), or a served batch (an `R` line: the bytes of its calls, how many,
/// and what the bot said in each).
enum Received {
    Call(Vec<u8>, Option<String>),
    Batch(Vec<u8>, u64, Vec<Option<String>>),
}

/// The next thing for a remote seat: its calls, or why it is out.
enum Next {
    Calls(Received),
    Out(String),
}

impl Inbox<'_, '_, '_> {
    /// Sends every request not sent yet, each seat's batch as one line, all in one
    /// write (the seats' processes then answer at once, side by side).
    fn send_requests(&mut self) {
        let mut lines = String::new();
        for (seat, (calls, batch)) in self.pending.iter_mut().enumerate() {
            if *calls > 0 {
                lines.push_str(&request_line(seat, *calls, batch));
                *calls = 0;
                batch.clear();
            }
        }
        if !lines.is_empty() {
            self.output.write(&lines);
        }
    }

    fn next_for(&mut self, seat: usize) -> Next {
        let mut announced = false;
        self.send_requests();
        loop {
            if let Some(received) = self.calls[seat].pop_front() {
                self.consumed[seat] += match &received {
                    Received::Call(..) => 1,
                    Received::Batch(_, n, _) => *n,
                };
                return Next::Calls(received);
            }
            if let Some(reason) = &self.out[seat] {
                return Next::Out(reason.clone());
            }
            // Lines already here are read without waiting; only then does the referee
            // say that it waits (once per wait, not once per call).
            if !announced && self.announce && !self.input.has_line() {
                announced = true;
                self.output.write(&wait_line(seat, self.consumed[seat]));
            }
            let mut line = String::new();
            match self.input.read_line(&mut line) {
                // The host is gone: nobody waits for this game any more.
                Ok(0) | Err(_) => std::process::exit(3),
                Ok(_) => {}
            }
            match parse_line(&line) {
                Line::Call(s) if s < self.calls.len() => {
                    let rest = line.trim_end().splitn(3, ' ').nth(2).unwrap_or("");
                    // The bytes are compact JSON (no spaces); what the bot said follows.
                    let (bytes, said) = rest.split_once(' ').unwrap_or((rest, ""));
                    let said = serde_json::from_str::<String>(said).ok();
                    match serde_json::from_str::<Vec<u8>>(bytes) {
                        Ok(bytes) => self.calls[s].push_back(Received::Call(bytes, said)),
                        Err(e) => self.out[s] = Some(format!("sent an unreadable call ({e})")),
                    }
                }
                Line::Answer(s, n) if s < self.calls.len() => {
                    // `R seat n bytes said`: the bytes in base64, what was said as JSON.
                    let rest = line.trim_end().splitn(4, ' ').nth(3).unwrap_or("");
                    let (bytes, said) = rest.split_once(' ').unwrap_or((rest, "[]"));
                    let said = serde_json::from_str::<Vec<Option<String>>>(said).unwrap_or_default();
                    match read_bytes(bytes) {
                        Ok(bytes) => self.calls[s].push_back(Received::Batch(bytes, n, said)),
                        Err(e) => self.out[s] = Some(format!("sent unreadable calls ({e})")),
                    }
                }
                Line::Out(s, reason) if s < self.out.len() => self.out[s] = Some(reason.to_owned()),
                _ => {}
            }
        }
    }
}

/// A worker's input: lines from the host, some perhaps already read ahead.
pub trait Input: BufRead {
    /// A whole line is already here: reading it will not wait.
    fn has_line(&self) -> bool;
}

impl<R: std::io::Read> Input for std::io::BufReader<R> {
    fn has_line(&self) -> bool {
        self.buffer().contains(&b'\n')
    }
}

/// A seat played elsewhere: each call is the one the host passes on, played back.
struct Remote<'i, 'r, 'w, 'o, G: Game> {
    seat: usize,
    inbox: &'i RefCell<Inbox<'r, 'w, 'o>>,
    tape: PlaybackTape<G::Call>,
    playback: Box<dyn Bot<G>>,
    out: Option<String>,
    /// Served mode (the referee's seats): calls are asked for, see [`Lockstep::served`].
    served: bool,
    /// Served: calls asked for and calls received, so far.
    asked: u64,
    received: u64,
    /// Served: calls received and not played yet, and what the bot said in each.
    ready: VecDeque<(G::Call, Option<String>)>,
}

impl<G: Game> Bot<G> for Remote<'_, '_, '_, '_, G> {
    fn played_elsewhere(&self) -> bool {
        true
    }

    fn prefetches(&self) -> bool {
        self.served
    }

    fn prefetch(&mut self, ctx: &G::Ctx<'_>) {
        if self.served && self.out.is_none() {
            let mut inbox = self.inbox.borrow_mut();
            let (calls, batch) = &mut inbox.pending[self.seat];
            // A call that cannot be served is asked for alone at its turn, and fails there.
            if G::request(ctx, batch) {
                *calls += 1;
                self.asked += 1;
            }
        }
    }

    fn turn(&mut self, ctx: &G::Ctx<'_>) -> Result<G::Answer, BotError> {
        if let Some(reason) = &self.out {
            return Err(BotError::Disqualified(reason.clone()));
        }
        if self.served {
            return self.served_turn(ctx);
        }
        let next = self.inbox.borrow_mut().next_for(self.seat);
        let (bytes, said) = match next {
            Next::Calls(Received::Call(bytes, said)) => (bytes, said),
            Next::Calls(Received::Batch(..)) => return self.fail("sent a batch of calls unasked".to_owned()),
            Next::Out(reason) => return self.fail(reason),
        };
        match G::read_calls(&bytes) {
            Ok(calls) if calls.len() == 1 => {
                self.tape.borrow_mut().1.extend(calls);
                if let Some(text) = said {
                    crate::debug::say(&text);
                }
                self.playback.turn(ctx)
            }
            // Every process reads the same bytes, so every process decides the same.
            Ok(_) => self.fail("sent a line that is not one call".to_owned()),
            Err(e) => self.fail(format!("sent an unreadable call ({e})")),
        }
    }
}

impl<G: Game> Remote<'_, '_, '_, '_, G> {
    /// A call of a served seat: the next one received, asking for it first when no
    /// request holds it (a call the engine did not announce).
    fn served_turn(&mut self, ctx: &G::Ctx<'_>) -> Result<G::Answer, BotError> {
        while self.ready.is_empty() {
            if self.received == self.asked {
                let mut inbox = self.inbox.borrow_mut();
                let (calls, batch) = &mut inbox.pending[self.seat];
                if !batch.is_empty() || !G::request(ctx, batch) {
                    drop(inbox);
                    return self.fail("has a call that cannot be served in another process".to_owned());
                }
                *calls += 1;
                self.asked += 1;
            }
            let next = self.inbox.borrow_mut().next_for(self.seat);
            let (bytes, n, said) = match next {
                Next::Calls(Received::Batch(bytes, n, said)) => (bytes, n, said),
                Next::Calls(Received::Call(..)) => return self.fail("sent a call unasked".to_owned()),
                Next::Out(reason) => return self.fail(reason),
            };
            match G::read_calls(&bytes) {
                Ok(calls) if calls.len() as u64 == n && n > 0 && self.received + n <= self.asked => {
                    self.received += n;
                    let mut said = said.into_iter();
                    self.ready.extend(calls.into_iter().map(|c| (c, said.next().flatten())));
                }
                // Every process reads the same bytes, so every process decides the same.
                Ok(_) => return self.fail(format!("answered {n} calls, not the calls it was asked")),
                Err(e) => return self.fail(format!("sent unreadable calls ({e})")),
            }
        }
        let (call, said) = self.ready.pop_front().expect("a call is ready");
        self.tape.borrow_mut().1.push(call);
        if let Some(text) = said {
            crate::debug::say(&text);
        }
        self.playback.turn(ctx)
    }
}

impl<G: Game> Remote<'_, '_, '_, '_, G> {
    fn fail(&mut self, reason: String) -> Result<G::Answer, BotError> {
        self.out = Some(reason.clone());
        Err(BotError::Disqualified(reason))
    }
}

/// A seat played here: its calls are recorded and each is sent to the host as it ends.
struct Live<'a, 'w, 'o, G: Game> {
    seat: usize,
    inner: Box<dyn Bot<G> + 'a>,
    tape: Tape<G::Call>,
    sent: usize,
    output: &'w Output<'o>,
}

impl<G: Game> Bot<G> for Live<'_, '_, '_, G> {
    fn turn(&mut self, ctx: &G::Ctx<'_>) -> Result<G::Answer, BotError> {
        crate::debug::open_call();
        let answer = self.inner.turn(ctx);
        let mut said = crate::debug::close_call();
        say_host_fault(self.output, self.seat);
        let tape = self.tape.borrow();
        for call in &tape[self.sent..] {
            self.output.write(&call_line::<G>(self.seat, call, said.take().as_deref()));
        }
        self.sent = tape.len();
        answer
    }

    fn prefetches(&self) -> bool {
        self.inner.prefetches()
    }

    fn prefetch(&mut self, ctx: &G::Ctx<'_>) {
        self.inner.prefetch(ctx);
    }
}

/// Plays a lockstep game in this worker: its live seats with `entries`' bots (under the
/// same limits as any game of a worker), the others from the host's lines on `input`;
/// each live call is written to `output` as it ends.
pub(super) fn play<G: Game>(
    worker: &Seats<'_, G>,
    request: &GameRequest,
    lockstep: &Lockstep,
    input: &mut dyn Input,
    output: &Output<'_>,
) -> GameResponse {
    let seats = lockstep.names.len();
    let entries = worker.entries;
    if lockstep.live.len() != seats || lockstep.live.iter().flatten().any(|&i| i >= entries.len()) {
        return GameResponse::Failed(format!("a bad lockstep request ({} seats, {} entries)", seats, entries.len()));
    }
    let seated = seated(entries, lockstep);
    // The referee (no seat played here) says which seat it waits for.
    let referee = lockstep.live.iter().all(Option::is_none);
    if lockstep.served && !referee {
        return serve_seats(worker, request, lockstep, input, output);
    }
    let inbox = RefCell::new(Inbox {
        input,
        calls: (0..seats).map(|_| VecDeque::new()).collect(),
        pending: vec![(0, Vec::new()); seats],
        out: vec![None; seats],
        consumed: vec![0; seats],
        output,
        announce: referee,
    });
    let inbox = &inbox;
    let wrap = move |seat: usize, bot: Box<dyn Bot<G>>| -> Box<dyn Bot<G> + '_> {
        if lockstep.live[seat].is_some() {
            let tape: Tape<G::Call> = Default::default();
            let inner = G::record(Box::new(worker.guard(seat, bot)), std::rc::Rc::clone(&tape));
            Box::new(Live { seat, inner, tape, sent: 0, output })
        } else {
            let tape: PlaybackTape<G::Call> = Default::default();
            let playback = G::playback(std::rc::Rc::clone(&tape));
            let served = lockstep.served;
            let ready = VecDeque::new();
            Box::new(Remote { seat, inbox, tape, playback, out: None, served, asked: 0, received: 0, ready })
        }
    };
    super::serve::play_as_requested(&seated, request, wrap)
}

/// The entries of a lockstep game's seats in this worker: a live seat's entry, renamed
/// as the game names it; a remote seat's only carries its name (`play`'s `wrap` makes
/// its bot).
fn seated<G: Game>(entries: &[Entry<G>], lockstep: &Lockstep) -> Vec<Entry<G>> {
    lockstep
        .names
        .iter()
        .zip(&lockstep.live)
        .map(|(name, live)| match live {
            Some(i) => entries[*i].renamed(name.clone()),
            None => {
                // Never called: `wrap` puts the seat's remote bot in its place (and the
                // referee's counters of the seat stay clean of a failed start).
                let none = || {
                    Ok(Box::new(crate::bot::BrokenBot(BotError::Failed("played elsewhere".into()))) as Box<dyn Bot<G>>)
                };
                Entry::new(name.clone(), EntryKind::Builtin, Default::default(), std::sync::Arc::new(none))
            }
        })
        .collect()
}

/// A served seat's bot: counts its calls as the engine would (`Outcome::stats`), and
/// keeps what the bot said in each.
struct Counted<'a, G: Game> {
    inner: Box<dyn Bot<G> + 'a>,
    stats: crate::bot::CallStats,
    said: Vec<Option<String>>,
}

impl<G: Game> Bot<G> for Counted<'_, G> {
    fn turn(&mut self, ctx: &G::Ctx<'_>) -> Result<G::Answer, BotError> {
        crate::debug::open_call();
        let inner = &mut self.inner;
        let answer = self.stats.count(|| inner.turn(ctx));
        self.said.push(crate::debug::close_call());
        if let Err(e) = &answer {
            self.stats.record_error(e);
        }
        answer
    }

    fn prefetches(&self) -> bool {
        self.inner.prefetches()
    }

    fn prefetch(&mut self, ctx: &G::Ctx<'_>) {
        self.inner.prefetch(ctx);
    }
}

/// A served seat's bot (limited, recorded, counted) and its tape.
type Seat<'a, G> = (Counted<'a, G>, Tape<<G as crate::game::Recorded>::Call>);

/// Per seat: the bot of a live seat (under the same limits as any game of a worker),
/// and none for the others; a bot that cannot start is a broken one, its error in
/// `stats`.
fn served_bots<'a, G: Game>(
    worker: &Seats<'a, G>,
    lockstep: &Lockstep,
    stats: &mut [crate::bot::CallStats],
) -> Vec<Option<Seat<'a, G>>> {
    let mut bots: Vec<Option<Seat<'a, G>>> = (0..lockstep.names.len()).map(|_| None).collect();
    for (seat, live) in lockstep.live.iter().enumerate() {
        let Some(i) = *live else { continue };
        let entry = worker.entries[i].renamed(lockstep.names[seat].clone());
        let bot = entry.create_bot().unwrap_or_else(|err| {
            stats[seat].record_error(&err);
            Box::new(crate::bot::BrokenBot(err))
        });
        let tape: Tape<G::Call> = Default::default();
        let inner = G::record(Box::new(worker.guard(seat, bot)), std::rc::Rc::clone(&tape));
        bots[seat] = Some((Counted { inner, stats: Default::default(), said: Vec::new() }, tape));
    }
    bots
}

/// Serves a lockstep game's calls in this worker (served mode): each request line of a
/// live seat is played on that seat's bot (under the same limits as any game of a
/// worker) and answered with one line holding all its calls, as the replay records
/// them; the game's end line is answered with the seats' counters. No engine runs here.
fn serve_seats<G: Game>(
    worker: &Seats<'_, G>,
    request: &GameRequest,
    lockstep: &Lockstep,
    input: &mut dyn Input,
    output: &Output<'_>,
) -> GameResponse {
    let seats = lockstep.names.len();
    crate::loaders::log::set_log_game(request.seed);
    let mut stats = vec![crate::bot::CallStats::default(); seats];
    let mut bots = served_bots(worker, lockstep, &mut stats);
    // The line, the batch's bytes and the answer's are kept from batch to batch, and
    // each seat's record of its calls keeps its room: no allocation per batch once they
    // have grown.
    let (mut line, mut batch, mut bytes) = (String::new(), Vec::new(), Vec::new());
    loop {
        line.clear();
        match input.read_line(&mut line) {
            // The host is gone: nobody waits for this game any more.
            Ok(0) | Err(_) => std::process::exit(3),
            Ok(_) => {}
        }
        if line == END_LINE {
            break;
        }
        let Line::Request(seat, n) = parse_line(&line) else { continue };
        let Some((bot, tape)) = bots.get_mut(seat).and_then(Option::as_mut) else { continue };
        let read = line.trim_end().splitn(4, ' ').nth(3).is_some_and(|b| read_bytes_into(b, &mut batch).is_ok());
        let served = read.then(|| G::serve(&batch, &lockstep.names, bot));
        say_host_fault(output, seat);
        let mut calls = std::mem::take(&mut *tape.borrow_mut());
        let said = std::mem::take(&mut bot.said);
        bytes.clear();
        G::write_calls(&calls, &mut bytes);
        let played = calls.len();
        calls.clear();
        *tape.borrow_mut() = calls;
        match served {
            Some(Ok(k)) if k as u64 == n && played == k => {
                output.write(&answer_line(seat, played, &bytes, &said));
            }
            // The referee's requests are the host's own: a bad one ends the game.
            _ => return GameResponse::Failed(format!("a bad request of {n} calls for seat {seat}")),
        }
    }
    for (seat, slot) in bots.into_iter().enumerate() {
        if let Some((bot, _)) = slot {
            stats[seat].merge(&bot.stats);
        }
    }
    crate::loaders::log::end_log_game();
    // Only the counters are this process's to say: the score is the referee's.
    let scores = vec![0; seats];
    GameResponse::Played(crate::game::Outcome { seed: request.seed, turns: 0, scores, stats, tiebreak: Vec::new() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_name_their_seat_and_the_reason_stays_on_one_line() {
        assert_eq!(parse_line("C 3 [1,2]\n"), Line::Call(3));
        assert_eq!(parse_line("C 3 [1,2] \"a b\"\n"), Line::Call(3));
        assert_eq!(parse_line(&out_line(1, "crashed\n(SIGSEGV)")), Line::Out(1, "crashed (SIGSEGV)"));
        assert_eq!(
            parse_line(&fault_line(2, "a.py: killed\nfrom outside")),
            Line::Fault(2, "a.py: killed from outside")
        );
        assert_eq!(parse_line("{\"nonce\":1}"), Line::Other);
        assert_eq!(parse_line("C x [1]"), Line::Other);
        assert_eq!(parse_line(&wait_line(2, 17)), Line::Wait(2, 17));
        assert_eq!(parse_line("W 2 x"), Line::Other);
    }

    #[test]
    fn served_lines_carry_their_seat_their_count_and_their_bytes() {
        let batch = [0u8, 1, 2, 250, 255];
        let q = request_line(4, 2, &batch);
        assert_eq!(parse_line(&q), Line::Request(4, 2));
        assert_eq!(read_bytes(q.trim_end().splitn(4, ' ').nth(3).unwrap()).unwrap(), batch);
        let said = [None, Some("a b\nc".to_owned())];
        let r = answer_line(1, 2, &batch, &said);
        assert_eq!(r.matches('\n').count(), 1, "one line: {r:?}");
        assert_eq!(parse_line(&r), Line::Answer(1, 2));
        let rest = r.trim_end().splitn(4, ' ').nth(3).unwrap();
        let (bytes, text) = rest.split_once(' ').unwrap();
        assert_eq!(read_bytes(bytes).unwrap(), batch);
        assert_eq!(serde_json::from_str::<Vec<Option<String>>>(text).unwrap(), said);
        assert_eq!(parse_line("Q 1 x AAA"), Line::Other);
        assert!(read_bytes("not base64!").is_err());
    }
}
