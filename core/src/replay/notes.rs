//! The notes of a recorded game: what each call's bot said (`crate::debug`), with the
//! call it belongs to (its index among the replay's calls, the entry, the turn and the
//! player or unit as the game places it: [`Plays::place`]), and the bot that listens.
//!
//! [`Listening`] is put around the recording bot of each entry in a recorded game
//! (`crate::play::play_recorded_with`): it opens a call for `crate::debug::say` around
//! each call, keeps what was said within the entry's cap per game
//! ([`ENTRY_CAP`](crate::debug::ENTRY_CAP)), and writes the note. How notes are stored in
//! the file is the parent module's.

use std::cell::RefCell;
use std::rc::Rc;

use crate::bot::{Bot, BotError, Plays};
use crate::debug::{ENTRY_CAP, ENTRY_CUT_MARK, close_call, floor_char_boundary, open_call};

/// What one call said, where it belongs: the call's index in the replay's calls (the
/// first call the bot's turn recorded), the entry (by index in the game), the turn and
/// the player or unit as the game places the call ([`Plays::place`]), and the text.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Note {
    /// Index of the call in the replay's calls.
    pub call: u32,
    /// The entry, by index in the game's names.
    pub entry: u32,
    /// The turn, as the game's replays count it.
    pub turn: u32,
    /// The player or unit the call decided for (`None`: the whole side, or a call for
    /// no unit).
    pub unit: Option<u32>,
    /// What the bot said (capped and marked as the module says).
    pub text: String,
}

/// The notes of one game, in call order, shared by the entries' [`Listening`] bots.
pub type Notes = Rc<RefCell<Vec<Note>>>;

/// Wraps a bot so that each call is opened for [`say`] and what it said is kept in
/// `notes` (with the entry's cap): put outside the recording bot, whose `calls` tape gives
/// the call's index.
pub struct Listening<'a, G: Plays, C> {
    inner: Box<dyn Bot<G> + 'a>,
    entry: u32,
    calls: Rc<RefCell<Vec<C>>>,
    notes: Notes,
    /// Bytes kept for this entry in this game.
    kept: usize,
}

impl<G: Plays, C> std::fmt::Debug for Listening<'_, G, C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Listening").field("entry", &self.entry).field("kept", &self.kept).finish()
    }
}

impl<'a, G: Plays, C> Listening<'a, G, C> {
    /// Listens to `inner`, the bot of entry `entry`, whose calls are recorded on `calls`.
    pub fn new(inner: Box<dyn Bot<G> + 'a>, entry: usize, calls: Rc<RefCell<Vec<C>>>, notes: Notes) -> Self {
        Listening { inner, entry: entry as u32, calls, notes, kept: 0 }
    }
}

impl<G: Plays, C> Bot<G> for Listening<'_, G, C> {
    fn turn(&mut self, ctx: &G::Ctx<'_>) -> Result<G::Answer, BotError> {
        let call = self.calls.borrow().len() as u32;
        open_call();
        let answer = self.inner.turn(ctx);
        if let Some(mut text) = close_call()
            && self.kept < ENTRY_CAP
        {
            if self.kept + text.len() > ENTRY_CAP {
                text.truncate(floor_char_boundary(&text, ENTRY_CAP - self.kept));
                text.push_str(ENTRY_CUT_MARK);
                self.kept = ENTRY_CAP;
            } else {
                self.kept += text.len();
            }
            let (turn, unit) = G::place(ctx);
            self.notes.borrow_mut().push(Note { call, entry: self.entry, turn, unit, text });
        }
        answer
    }

    fn times_itself(&self) -> bool {
        self.inner.times_itself()
    }

    fn call_time(&self) -> Option<std::time::Duration> {
        self.inner.call_time()
    }

    fn remaining_time(&self, clock: u32) -> crate::bot::TimeLeft {
        self.inner.remaining_time(clock)
    }
    fn prefetches(&self) -> bool {
        self.inner.prefetches()
    }

    fn prefetch(&mut self, ctx: &G::Ctx<'_>) {
        self.inner.prefetch(ctx);
    }
}
