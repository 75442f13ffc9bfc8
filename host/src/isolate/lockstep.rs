//! Lockstep games: one game played by several worker processes at once, each entry's bot
//! in a process of its own, so that the host itself sees which entry crashed or hung
//! (the process that died is the entry's), and no bot shares an address space with
//! another bot or with the process that counts the score.
//!
//! Every process of a lockstep game runs the whole engine. A **group** worker plays its
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
//! The referee also says, before it waits for a seat's next call, which seat and how
//! many of its calls it has played (`W <seat> <calls>`): the host times that call from
//! then on, on the seat's own process's counters, so that no verdict depends on
//! anything a bot can write (a bot can write its own process's blame page).
//!
//! This module is the worker's side (the bots that send and receive calls); the host's
//! side, which starts and watches the processes and passes the lines, is
//! `Worker::play_lockstep` in the parent module. It knows no game: a call is whatever
//! [`Recorded::write_calls`](crate::replay::Recorded::write_calls) writes.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::{BufRead, Write};

use crate::bot::{Bot, BotError, Entry, EntryKind};
use crate::game::{Game, PlaybackTape, Tape};
use crate::limits::{BlamePage, Guarded, TimeBank};

use super::{GameRequest, GameResponse};

/// How one process takes part in a lockstep game.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Lockstep {
    /// Every seat's entry name, in seat order.
    pub names: Vec<String>,
    /// Per seat: the index of this worker's entry that plays it here, or `None` when its
    /// calls come from the host.
    pub live: Vec<Option<usize>>,
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

/// What a line from a group worker is.
#[derive(Debug, PartialEq, Eq)]
pub enum Line<'a> {
    /// A call of a seat.
    Call(usize),
    /// A seat is out.
    Out(usize, &'a str),
    /// The referee waits for a seat's next call, having played this many of its calls.
    Wait(usize, u64),
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
        (Some("W"), Some(seat)) => match rest.parse() {
            Ok(consumed) => Line::Wait(seat, consumed),
            Err(_) => Line::Other,
        },
        _ => Line::Other,
    }
}

/// The calls and verdicts the host has sent so far, per seat, read from the worker's
/// standard input only when a seat needs its next call.
struct Inbox<'r, 'w, 'o> {
    input: &'r mut dyn Input,
    calls: Vec<VecDeque<(Vec<u8>, Option<String>)>>,
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

/// The next thing for a remote seat: its call, or why it is out.
enum Next {
    Call((Vec<u8>, Option<String>)),
    Out(String),
}

impl Inbox<'_, '_, '_> {
    fn next_for(&mut self, seat: usize) -> Next {
        let mut announced = false;
        loop {
            if let Some(call) = self.calls[seat].pop_front() {
                self.consumed[seat] += 1;
                return Next::Call(call);
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
                        Ok(bytes) => self.calls[s].push_back((bytes, said)),
                        Err(e) => self.out[s] = Some(format!("sent an unreadable call ({e})")),
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
}

impl<G: Game> Bot<G> for Remote<'_, '_, '_, '_, G> {
    fn played_elsewhere(&self) -> bool {
        true
    }

    fn turn(&mut self, ctx: &G::Ctx<'_>) -> Result<G::Answer, BotError> {
        if let Some(reason) = &self.out {
            return Err(BotError::Disqualified(reason.clone()));
        }
        let next = self.inbox.borrow_mut().next_for(self.seat);
        let (bytes, said) = match next {
            Next::Call(call) => call,
            Next::Out(reason) => {
                self.out = Some(reason.clone());
                return Err(BotError::Disqualified(reason));
            }
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
#[allow(clippy::too_many_arguments)]
pub(super) fn play<G: Game>(
    entries: &[Entry<G>],
    blame: &BlamePage,
    bank: TimeBank,
    call_limit: std::time::Duration,
    request: &GameRequest,
    lockstep: &Lockstep,
    input: &mut dyn Input,
    output: &Output<'_>,
) -> GameResponse {
    let seats = lockstep.names.len();
    if lockstep.live.len() != seats || lockstep.live.iter().flatten().any(|&i| i >= entries.len()) {
        return GameResponse::Failed(format!("a bad lockstep request ({} seats, {} entries)", seats, entries.len()));
    }
    // Remote seats are made by `wrap` below; their entries only carry the names.
    let seated: Vec<Entry<G>> = lockstep
        .names
        .iter()
        .zip(&lockstep.live)
        .map(|(name, live)| match live {
            Some(i) => entries[*i].renamed(name.clone()),
            None => {
                let none = || Err(BotError::Failed("played elsewhere".into()));
                Entry::new(name.clone(), EntryKind::Builtin, Default::default(), std::sync::Arc::new(none))
            }
        })
        .collect();
    // The referee (no seat played here) says which seat it waits for.
    let referee = lockstep.live.iter().all(Option::is_none);
    let inbox = RefCell::new(Inbox {
        input,
        calls: vec![VecDeque::new(); seats],
        out: vec![None; seats],
        consumed: vec![0; seats],
        output,
        announce: referee,
    });
    let inbox = &inbox;
    let wrap = move |seat: usize, bot: Box<dyn Bot<G>>| -> Box<dyn Bot<G> + '_> {
        if lockstep.live[seat].is_some() {
            let guarded = Guarded::new(bot, seat, Some(bank), Some(blame)).with_call_limit(Some(call_limit));
            let tape: Tape<G::Call> = Default::default();
            let inner = G::record(Box::new(guarded), std::rc::Rc::clone(&tape));
            Box::new(Live { seat, inner, tape, sent: 0, output })
        } else {
            let tape: PlaybackTape<G::Call> = Default::default();
            let playback = G::playback(std::rc::Rc::clone(&tape));
            Box::new(Remote { seat, inbox, tape, playback, out: None })
        }
    };
    super::play_as_requested(&seated, request, wrap)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_name_their_seat_and_the_reason_stays_on_one_line() {
        assert_eq!(parse_line("C 3 [1,2]\n"), Line::Call(3));
        assert_eq!(parse_line("C 3 [1,2] \"a b\"\n"), Line::Call(3));
        assert_eq!(parse_line(&out_line(1, "crashed\n(SIGSEGV)")), Line::Out(1, "crashed (SIGSEGV)"));
        assert_eq!(parse_line("{\"nonce\":1}"), Line::Other);
        assert_eq!(parse_line("C x [1]"), Line::Other);
        assert_eq!(parse_line(&wait_line(2, 17)), Line::Wait(2, 17));
        assert_eq!(parse_line("W 2 x"), Line::Other);
    }
}
