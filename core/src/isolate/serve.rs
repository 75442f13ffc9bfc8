//! The worker's own loop ([`serve`]): it says `ready`, then reads one request per line
//! and answers each with one line, playing a shared game itself (each bot under its
//! time bank and per-call limit, its calls announced on the blame page) or handing a
//! lockstep one to [`super::lockstep`].
//!
//! It runs in the worker process (the CLI's hidden `__worker` command), never in the
//! host.

use std::io::{BufRead, Read, Write};
use std::time::Duration;

use crate::bot::{Bot, Entry};
use crate::game::Game;
use crate::limits::{BlamePage, Guarded, TimeBank};

use super::lockstep;
use super::wire::{GameAnswer, GameRequest, GameResponse, READY};

/// What a worker plays every game with: its entries, and the limits each bot is held to
/// (its time bank, its limit per call, its calls announced on `blame`).
pub(super) struct Seats<'a, G: Game> {
    pub(super) entries: &'a [Entry<G>],
    pub(super) blame: &'a BlamePage,
    pub(super) bank: TimeBank,
    pub(super) call_limit: Duration,
}

impl<'a, G: Game> Seats<'a, G> {
    /// `bot`, seated at `seat`, under the worker's limits.
    pub(super) fn guard(&self, seat: usize, bot: Box<dyn Bot<G>>) -> Guarded<'a, G> {
        Guarded::new(bot, seat, Some(self.bank), Some(self.blame)).with_call_limit(Some(self.call_limit))
    }
}

/// The worker's side: plays each [`GameRequest`] read from `requests` with `entries`
/// (each bot under its time bank and per-call limit, its calls announced on `blame`) and
/// writes one [`GameResponse`] line per game to `answers`, until `requests` ends.
pub fn serve<G: Game>(
    entries: &[Entry<G>],
    blame: &BlamePage,
    bank: TimeBank,
    call_limit: Duration,
    requests: impl Read,
    mut answers: impl Write,
) -> std::io::Result<()> {
    let worker = Seats { entries, blame, bank, call_limit };
    let mut requests = std::io::BufReader::with_capacity(1 << 16, requests);
    let output = lockstep::Output::new(&mut answers);
    output.write(READY);
    let mut line = String::new();
    loop {
        line.clear();
        if requests.read_line(&mut line)? == 0 {
            return Ok(());
        }
        // Only requests are JSON objects (a lockstep line left over is not one).
        if !line.trim_start().starts_with('{') {
            continue;
        }
        let (nonce, response) = match serde_json::from_str::<GameRequest>(&line) {
            Ok(request) => {
                let response = match &request.lockstep {
                    Some(ls) => lockstep::play(&worker, &request, ls, &mut requests, &output),
                    None => play_request(&worker, &request),
                };
                (request.nonce, response)
            }
            Err(e) => (0, GameResponse::Failed(format!("a bad request ({e})"))),
        };
        let text = serde_json::to_string(&GameAnswer { nonce, response }).expect("a response serialises");
        output.write(&(text + "\n"));
    }
}

fn play_request<G: Game>(worker: &Seats<'_, G>, request: &GameRequest) -> GameResponse {
    let Some(seated) = request.seats.iter().map(|&i| worker.entries.get(i).cloned()).collect::<Option<Vec<_>>>() else {
        return GameResponse::Failed(format!("seats {:?} out of range", request.seats));
    };
    let wrap = |i: usize, bot| Box::new(worker.guard(i, bot)) as Box<dyn Bot<G> + '_>;
    play_as_requested(&seated, request, wrap)
}

/// Plays `seated` with `request`'s seed and options, each bot passed through `wrap`,
/// recorded into `request`'s replay file when it names one: the worker's response, in
/// a shared game and in a lockstep one alike.
pub(super) fn play_as_requested<'a, G: Game>(
    seated: &[Entry<G>],
    request: &GameRequest,
    wrap: impl Fn(usize, Box<dyn Bot<G>>) -> Box<dyn Bot<G> + 'a>,
) -> GameResponse {
    let config: G::Config = match serde_json::from_value(request.config.clone()) {
        Ok(c) => c,
        Err(e) => return GameResponse::Failed(format!("bad game options ({e})")),
    };
    let outcome = match &request.replay {
        Some(path) => {
            let (outcome, recorded) = crate::play::play_recorded_with(seated, request.seed, &config, wrap);
            if let Err(e) = std::fs::write(path, recorded.to_bytes()) {
                return GameResponse::Failed(format!("{}: cannot write the replay: {e}", path.display()));
            }
            outcome
        }
        None => crate::play::play_game_with(seated, request.seed, &config, wrap),
    };
    GameResponse::Played(outcome)
}
