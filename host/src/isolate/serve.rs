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
                    Some(ls) => lockstep::play(entries, blame, bank, call_limit, &request, ls, &mut requests, &output),
                    None => play_request(entries, blame, bank, call_limit, &request),
                };
                (request.nonce, response)
            }
            Err(e) => (0, GameResponse::Failed(format!("a bad request ({e})"))),
        };
        let text = serde_json::to_string(&GameAnswer { nonce, response }).expect("a response serialises");
        output.write(&(text + "\n"));
    }
}

fn play_request<G: Game>(
    entries: &[Entry<G>],
    blame: &BlamePage,
    bank: TimeBank,
    call_limit: Duration,
    request: &GameRequest,
) -> GameResponse {
    let Some(seated) = request.seats.iter().map(|&i| entries.get(i).cloned()).collect::<Option<Vec<_>>>() else {
        return GameResponse::Failed(format!("seats {:?} out of range", request.seats));
    };
    let wrap = |i: usize, bot| {
        let guarded = Guarded::new(bot, i, Some(bank), Some(blame)).with_call_limit(Some(call_limit));
        Box::new(guarded) as Box<dyn Bot<G> + '_>
    };
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
