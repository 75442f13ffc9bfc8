//! Replays: a game recorded as its seed plus every bot decision, and redrawn by playing
//! it again through the engine.
//!
//! A game is a function of its seed and of what its bots answer. So a replay stores
//! only that: a header (game, seed, entries, options, the result) and, per bot call in
//! call order, what the game needs to make that call again (each game's `Call`: for
//! zombies the applied action and the number of random draws). Everything else is
//! recomputed.
//!
//! The file: `ZRPL`, format version (u16 LE), rules version of its game (u16 LE),
//! header length (u32 LE), the header as JSON (with `"game"`; a header without it is a
//! zombies replay, as written before games had names), then, deflate-compressed, the
//! calls as the game writes them (format 1); or (format 2, a game in which some bot
//! said something: `crate::debug`) the calls' length as a varint, the calls, then the
//! [`Note`]s: their count, then for each the call's index, the entry, the turn, the unit
//! plus one (0: none) and the text's length as varints, and the text (UTF-8). A game
//! in which no bot said anything is written in format 1, as before.
//!
//! This module reads, writes and re-plays any game, and says what a game gives to be
//! recorded ([`Recorded`]: its calls, the bots that record and play them back, its
//! viewer); each game encodes its calls and draws its viewer (`games/<game>/`), and
//! `crate::play::play_recorded` records a game as it is played. It plays no game but
//! to re-play one, and knows no rules (`crate::rules`).
//!
//! **Architecture Invariant:** reading never panics on any input: every defect is a
//! [`ReplayError`], one line. A replay that does not re-play to the result in its header
//! (corrupt, or recorded by another version of the rules) is an error too.

use std::cell::RefCell;
use std::ffi::c_void;
use std::fmt;
use std::io::{Read, Write};
use std::rc::Rc;

use flate2::Compression;
use flate2::read::DeflateDecoder;
use flate2::write::DeflateEncoder;

use zombies_plugin_abi::Random;

use crate::bot::{Bot, BotError};
use crate::rules::{Outcome, Rules};

pub mod notes;
pub use notes::{Listening, Note, Notes};

/// What a game gives to be recorded and re-played: how one bot call is stored, the
/// bots that record calls and play them back, the calls as bytes, and the page that
/// shows a replay. Each game implements it (`games/<game>/replay.rs`, `viewer.rs`).
pub trait Recorded: Rules {
    /// One bot call as a replay stores it.
    type Call: Clone + fmt::Debug + PartialEq + Send + 'static;

    /// Wraps a bot so that each of its calls is appended to `tape` as the engine
    /// applies it (a failed call as what the engine does instead).
    fn record<'a>(inner: Box<dyn Bot<Self> + 'a>, tape: Tape<Self::Call>) -> Box<dyn Bot<Self> + 'a>;
    /// A bot that answers each call with the next call of `tape`.
    fn playback(tape: PlaybackTape<Self::Call>) -> Box<dyn Bot<Self>>;
    /// The calls as bytes (before compression).
    fn write_calls(calls: &[Self::Call], out: &mut Vec<u8>);
    /// The calls from bytes; never panics.
    fn read_calls(bytes: &[u8]) -> Result<Vec<Self::Call>, ReplayError>;
    /// The replay as one self-contained HTML page.
    fn viewer_page(replay: &Replay<Self>) -> Result<String, ReplayError>;
}

/// The calls a recording bot writes (shared by the entries of one game, in call order).
pub type Tape<C> = Rc<RefCell<Vec<C>>>;
/// The calls a playback bot reads: the next index and the calls.
pub type PlaybackTape<C> = Rc<RefCell<(usize, Vec<C>)>>;

/// The next call of a playback tape, after drawing from `random` the `draws` numbers
/// the recorded bot drew in it, so that the game's generator is where it was; an error
/// once the tape is spent.
pub fn next_call<C: Clone>(
    tape: &PlaybackTape<C>,
    random: Random<'_>,
    draws: impl FnOnce(&C) -> u32,
) -> Result<C, BotError> {
    let mut tape = tape.borrow_mut();
    let (next, calls) = &mut *tape;
    let call = calls.get(*next).cloned().ok_or_else(|| BotError::Failed("the replay ran out of calls".into()))?;
    *next += 1;
    for _ in 0..draws(&call) {
        random.next_u64();
    }
    Ok(call)
}

/// What a counting [`Random`] of [`count_draws`] points to.
struct Counter<'a> {
    inner: Random<'a>,
    draws: u32,
}

/// The function of every counting [`Random`], taken from this one place (see
/// `crate::rules::NEXT_U64`).
static COUNTED: extern "C" fn(*mut c_void) -> u64 = counted;

extern "C" fn counted(state: *mut c_void) -> u64 {
    // SAFETY: `state` is a `Counter` (see `count_draws`), alive for the whole of `f`.
    let counter = unsafe { &mut *state.cast::<Counter<'_>>() };
    counter.draws += 1;
    counter.inner.next_u64()
}

/// A copy of the generator behind `random`, when it is this host's own: made by
/// [`crate::rules::random_source`], perhaps behind the counter of [`count_draws`]
/// (recognised by their functions, so that the pointer is known to be what it is
/// cast to). `None` for any other source. A call played in another process draws from
/// such a copy (`crate::isolate::lockstep`, served mode).
pub fn generator_of(random: Random<'_>) -> Option<crate::rules::GameRng> {
    let (state, next) = random.as_raw();
    if std::ptr::fn_addr_eq(next, crate::rules::NEXT_U64) {
        // SAFETY: only `random_source` makes a Random with this function, from a
        // `GameRng` borrowed for as long as the Random lives.
        return Some(unsafe { (*state.cast::<crate::rules::GameRng>()).clone() });
    }
    if std::ptr::fn_addr_eq(next, COUNTED) {
        // SAFETY: only `count_draws` makes a Random with this function, from a `Counter`
        // alive for as long as the Random is lent out.
        let inner = unsafe { (*state.cast::<Counter<'_>>()).inner };
        return generator_of(inner);
    }
    None
}

/// Runs `f` with a [`Random`] that draws from `random` and counts the draws (replays
/// record how many numbers each call drew, so that playback draws as many).
pub fn count_draws<R>(random: Random<'_>, f: impl FnOnce(Random<'_>) -> R) -> (R, u32) {
    let mut counter = Counter { inner: random, draws: 0 };
    // SAFETY: the counter outlives `f`, and only the Random given to `f` uses it.
    let counting = unsafe { Random::from_raw((&mut counter as *mut Counter<'_>).cast::<c_void>(), COUNTED) };
    let result = f(counting);
    (result, counter.draws)
}

/// Version of the file layout (the newest: format 1, without notes, is still written
/// for games without any and read).
pub const FORMAT_VERSION: u16 = 2;
const MAGIC: &[u8; 4] = b"ZRPL";

/// The playback script of the zombies, eggs and target replay pages (`player.js`: play,
/// pause, seek, keys, the `#t=` address, resizing), which each game's `viewer.rs` puts in
/// place of [`PLAYER_MARK`] inside its page's script.
pub const PLAYER_JS: &str = include_str!("player.js");
/// Where a page template wants [`PLAYER_JS`]: a line inside its script.
pub const PLAYER_MARK: &str = "/*PLAYER_JS*/\n";
/// The style every replay page shares (`page.css`), put in place of [`PAGE_CSS_MARK`] at
/// the top of the page's style.
pub const PAGE_CSS: &str = include_str!("page.css");
/// Where a page template wants [`PAGE_CSS`]: the first line of its style.
pub const PAGE_CSS_MARK: &str = "/*PAGE_CSS*/\n";
/// Where a page template wants its replay's data (a JSON value; `null` keeps the bare
/// template valid).
pub const DATA_MARK: &str = "/*REPLAY_DATA*/null";
/// The panel of what the bots said (`debug.js`), which every game's page puts beside its
/// board, in place of [`DEBUG_MARK`] inside its script.
pub const DEBUG_JS: &str = include_str!("debug.js");
/// Where a page template wants [`DEBUG_JS`]: a line inside its script.
pub const DEBUG_MARK: &str = "/*DEBUG_JS*/\n";

/// A game's replay page: its `template` with the shared style, player and debug panel,
/// the replay's `data` (whose `debug` is [`notes_rows`]), a title naming the game and
/// the seed (the template's title is `<title>{game} replay</title>`), and at its foot the
/// command that plays the game again ([`play_again`]).
pub fn fill_page(template: &str, header: &Header, data: &serde_json::Value) -> String {
    let (game, seed) = (header.game.as_str(), header.seed);
    let data = serde_json::to_string(data).expect("JSON values serialise");
    // Inside <script>, "</" could end the element early; JSON allows "<\/" instead.
    let data = data.replace("</", "<\\/");
    // The shared pieces first: the data (entry names) could hold their marks.
    template
        .replacen(PAGE_CSS_MARK, PAGE_CSS, 1)
        .replacen(PLAYER_MARK, PLAYER_JS, 1)
        .replacen(DEBUG_MARK, DEBUG_JS, 1)
        .replacen(DATA_MARK, &data, 1)
        .replacen(&format!("<title>{game} replay</title>"), &format!("<title>{game} replay, seed {seed}</title>"), 1)
        .replacen(
            "</body>",
            &format!(
                "<p class=\"muted\" id=\"again\">play this game again (with the same bots found): <code>{}</code></p>\n</body>",
                html_escape(&play_again(header))
            ),
            1,
        )
}

/// The command that plays a recorded game again: its game, seed, entries in seat order
/// and options (`arena play --entries`), with the bots found where they were.
pub fn play_again(header: &Header) -> String {
    let mut cmd = format!(
        "arena --game {} play --seed {} --entries {}",
        header.game,
        header.seed,
        shell_word(&header.names.join(","))
    );
    for (key, value) in &header.config {
        if !value.is_null() {
            let value = value.as_str().map_or_else(|| value.to_string(), str::to_owned);
            cmd.push_str(&format!(" --set {}", shell_word(&format!("{key}={value}"))));
        }
    }
    cmd
}

/// A word for a POSIX shell: as it is when it holds only safe characters, else quoted.
fn shell_word(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_.,=/:+@".contains(c)) {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// HTML-escapes text for an element.
fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// What the bots said, as a page's data holds it (`debug.js`): rows `[call, entry, turn,
/// unit, text]`, in call order.
pub fn notes_rows(notes: &[Note]) -> serde_json::Value {
    notes.iter().map(|n| serde_json::json!([n.call, n.entry, n.turn, n.unit, n.text])).collect()
}

/// What is wrong with a replay file: one line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// Not a replay at all.
    #[error("not an arena replay (no ZRPL signature)")]
    NotAReplay,
    /// Written by another version.
    #[error("replay format {0} / rules {1}, this program reads format {FORMAT_VERSION} / rules {2} for this game")]
    Version(u16, u16, u16),
    /// A replay of another game.
    #[error("a replay of {0}, not of {1}")]
    OtherGame(String, &'static str),
    /// The file ends early.
    #[error("truncated replay: {0}")]
    Truncated(&'static str),
    /// A part cannot be decoded.
    #[error("corrupt replay: {0}")]
    Corrupt(String),
    /// It does not re-play to the result it records.
    #[error("replay does not re-play to its recorded result ({0}): corrupt, or recorded by another engine")]
    Mismatch(String),
}

/// The game of a file written before files named their game: the first.
fn first_game() -> String {
    zombies_plugin_abi::FIRST_GAME.to_owned()
}

/// The facts of a recorded game.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Header {
    /// The game it is a replay of.
    #[serde(default = "first_game")]
    pub game: String,
    /// The game's seed.
    pub seed: u64,
    /// Entry names, by entry index.
    pub names: Vec<String>,
    /// Turns played.
    pub turns: u32,
    /// Final scores, by entry index.
    pub scores: Vec<u32>,
    /// The game's options (its `Config`, field by field).
    #[serde(flatten)]
    pub config: serde_json::Map<String, serde_json::Value>,
}

impl Header {
    /// The game's options.
    pub fn config<G: Rules>(&self) -> Result<G::Config, ReplayError> {
        serde_json::from_value(serde_json::Value::Object(self.config.clone()))
            .map_err(|e| ReplayError::Corrupt(format!("the game's options: {e}")))
    }
}

/// A recorded game of `G`.
pub struct Replay<G: Recorded> {
    /// The game's facts.
    pub header: Header,
    /// Every bot call, in call order.
    pub calls: Vec<G::Call>,
    /// What the bots said, in call order (`crate::debug`).
    pub notes: Vec<Note>,
}

impl<G: Recorded> Clone for Replay<G> {
    fn clone(&self) -> Self {
        Replay { header: self.header.clone(), calls: self.calls.clone(), notes: self.notes.clone() }
    }
}

impl<G: Recorded> PartialEq for Replay<G> {
    fn eq(&self, other: &Self) -> bool {
        self.header == other.header && self.calls == other.calls && self.notes == other.notes
    }
}

impl<G: Recorded> std::fmt::Debug for Replay<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Replay")
            .field("header", &self.header)
            .field("calls", &self.calls.len())
            .field("notes", &self.notes.len())
            .finish()
    }
}

/// The game a replay file is of, read from its header (for dispatching to the game).
pub fn game_of(bytes: &[u8]) -> Result<String, ReplayError> {
    Ok(read_parts(bytes)?.2.game)
}

/// Signature, versions, header, and where the compressed calls start.
fn read_parts(bytes: &[u8]) -> Result<(u16, u16, Header, usize), ReplayError> {
    if bytes.len() < 4 || &bytes[..4] != MAGIC {
        return Err(if bytes.len() < 4 && MAGIC.starts_with(bytes) {
            ReplayError::Truncated("in the signature")
        } else {
            ReplayError::NotAReplay
        });
    }
    let fixed = bytes.get(4..12).ok_or(ReplayError::Truncated("in the versions"))?;
    let format = u16::from_le_bytes([fixed[0], fixed[1]]);
    let rules = u16::from_le_bytes([fixed[2], fixed[3]]);
    if !(1..=FORMAT_VERSION).contains(&format) {
        return Err(ReplayError::Version(format, rules, 0));
    }
    let len = u32::from_le_bytes([fixed[4], fixed[5], fixed[6], fixed[7]]) as usize;
    let header = bytes.get(12..12 + len).ok_or(ReplayError::Truncated("in the header"))?;
    let header: Header = serde_json::from_slice(header).map_err(|e| ReplayError::Corrupt(format!("header: {e}")))?;
    Ok((format, rules, header, 12 + len))
}

impl<G: Recorded> Replay<G> {
    /// Plays the game again with the recorded calls and checks that it ends as
    /// recorded.
    pub fn verify(&self) -> Result<Outcome, ReplayError> {
        let h = &self.header;
        if h.scores.len() != h.names.len() || h.names.is_empty() {
            return Err(ReplayError::Corrupt("the header's names and scores do not match".into()));
        }
        let config = h.config::<G>()?;
        let tape = Rc::new(RefCell::new((0, self.calls.clone())));
        let mut bots: Vec<Box<dyn Bot<G>>> = h.names.iter().map(|_| G::playback(Rc::clone(&tape))).collect();
        let outcome = G::play(&h.names, h.seed, &config, &mut bots);
        self.check(&outcome, tape.borrow().0)?;
        Ok(outcome)
    }

    /// Checks a re-played outcome against the header, `used` being the calls it used.
    pub fn check(&self, outcome: &Outcome, used: usize) -> Result<(), ReplayError> {
        let h = &self.header;
        if outcome.stats.iter().any(|s| s.errors > 0) {
            return Err(ReplayError::Mismatch("the calls ran out".to_owned()));
        }
        if used != self.calls.len() {
            return Err(ReplayError::Mismatch(format!("{} of {} calls used", used, self.calls.len())));
        }
        if outcome.turns != h.turns || outcome.scores != h.scores {
            return Err(ReplayError::Mismatch(format!(
                "{} turns and scores {:?}, recorded {} and {:?}",
                outcome.turns, outcome.scores, h.turns, h.scores
            )));
        }
        Ok(())
    }

    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let header = serde_json::to_vec(&self.header).expect("a header serialises");
        let mut body = Vec::with_capacity(self.calls.len() * 2);
        G::write_calls(&self.calls, &mut body);
        let format = if self.notes.is_empty() {
            1u16
        } else {
            let mut framed = Vec::with_capacity(body.len() + 16);
            put_varint(&mut framed, body.len() as u64);
            framed.extend_from_slice(&body);
            write_notes(&self.notes, &mut framed);
            body = framed;
            FORMAT_VERSION
        };
        let mut out = Vec::with_capacity(header.len() + body.len() / 3 + 16);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&format.to_le_bytes());
        out.extend_from_slice(&G::RULES_VERSION.to_le_bytes());
        out.extend_from_slice(&(header.len() as u32).to_le_bytes());
        out.extend_from_slice(&header);
        let mut enc = DeflateEncoder::new(out, Compression::best());
        enc.write_all(&body).expect("writing to memory");
        enc.finish().expect("writing to memory")
    }

    /// Reads a replay of `G` from its bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Replay<G>, ReplayError> {
        let (format, rules, header, at) = read_parts(bytes)?;
        if header.game != G::NAME {
            return Err(ReplayError::OtherGame(header.game, G::NAME));
        }
        if rules != G::RULES_VERSION {
            return Err(ReplayError::Version(format, rules, G::RULES_VERSION));
        }
        let mut body = Vec::new();
        // A bound on the inflated size keeps a "zip bomb" from eating memory.
        DeflateDecoder::new(&bytes[at..]).take(1 << 30).read_to_end(&mut body).map_err(|e| match e.kind() {
            std::io::ErrorKind::UnexpectedEof => ReplayError::Truncated("in the calls"),
            _ => ReplayError::Corrupt(format!("calls: {e}")),
        })?;
        if format == 1 {
            return Ok(Replay { header, calls: G::read_calls(&body)?, notes: Vec::new() });
        }
        let mut at = 0;
        let len = usize::try_from(get_varint(&body, &mut at)?).unwrap_or(usize::MAX);
        let calls = body.get(at..).and_then(|b| b.get(..len)).ok_or(ReplayError::Truncated("in the calls"))?;
        let calls = G::read_calls(calls)?;
        let notes = read_notes(&body[at + len..], calls.len(), header.names.len())?;
        Ok(Replay { header, calls, notes })
    }
}

/// The notes as bytes (see the module doc).
fn write_notes(notes: &[Note], out: &mut Vec<u8>) {
    put_varint(out, notes.len() as u64);
    for n in notes {
        for v in [n.call, n.entry, n.turn] {
            put_varint(out, u64::from(v));
        }
        put_varint(out, n.unit.map_or(0, |u| u64::from(u) + 1));
        put_varint(out, n.text.len() as u64);
        out.extend_from_slice(n.text.as_bytes());
    }
}

/// The notes from bytes, checked against the replay's `calls` and `entries`; never panics.
fn read_notes(bytes: &[u8], calls: usize, entries: usize) -> Result<Vec<Note>, ReplayError> {
    let mut at = 0;
    let count = get_varint(bytes, &mut at)?;
    let small = |v: u64| u32::try_from(v).map_err(|_| ReplayError::Corrupt("a note's number is out of range".into()));
    let mut notes = Vec::new();
    for _ in 0..count {
        let call = small(get_varint(bytes, &mut at)?)?;
        let entry = small(get_varint(bytes, &mut at)?)?;
        let turn = small(get_varint(bytes, &mut at)?)?;
        let unit = match get_varint(bytes, &mut at)? {
            0 => None,
            u => Some(small(u - 1)?),
        };
        if call as usize > calls || entry as usize >= entries {
            return Err(ReplayError::Corrupt(format!("a note of call {call}, entry {entry}: no such call or entry")));
        }
        let len = usize::try_from(get_varint(bytes, &mut at)?).unwrap_or(usize::MAX);
        let text = bytes.get(at..).and_then(|b| b.get(..len)).ok_or(ReplayError::Truncated("in a note"))?;
        let text = std::str::from_utf8(text).map_err(|_| ReplayError::Corrupt("a note is not UTF-8".into()))?;
        at += len;
        notes.push(Note { call, entry, turn, unit, text: text.to_owned() });
    }
    if at != bytes.len() {
        return Err(ReplayError::Corrupt("bytes after the notes".into()));
    }
    Ok(notes)
}

/// Appends `v` as a LEB128 varint.
#[inline]
pub fn put_varint(out: &mut Vec<u8>, v: u64) {
    // Most numbers take one byte: that case inlined where it is called (the referee's
    // requests write three per occupied cell of every view), the rest out of line.
    if v < 0x80 {
        out.push(v as u8);
    } else {
        put_long_varint(out, v);
    }
}

#[inline(never)]
fn put_long_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads a LEB128 varint at `*at`, advancing it.
#[inline]
pub fn get_varint(bytes: &[u8], at: &mut usize) -> Result<u64, ReplayError> {
    // Most numbers take one byte: that case inlined where it is called, the rest out of
    // line.
    if let Some(&b) = bytes.get(*at)
        && b < 0x80
    {
        *at += 1;
        return Ok(u64::from(b));
    }
    get_long_varint(bytes, at)
}

#[inline(never)]
fn get_long_varint(bytes: &[u8], at: &mut usize) -> Result<u64, ReplayError> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*at).ok_or(ReplayError::Truncated("in a call"))?;
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Ok(v);
        }
    }
    Err(ReplayError::Corrupt("varint too long".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_that_plays_a_game_again_names_its_entries_in_seat_order_and_quotes_odd_words() {
        let mut config = serde_json::Map::new();
        config.insert("max_turns".into(), serde_json::json!(6));
        config.insert("unset".into(), serde_json::Value::Null);
        let header = Header {
            game: "chess".into(),
            seed: 42,
            names: vec!["b".into(), "it's a".into()],
            turns: 6,
            scores: vec![6, 994],
            config,
        };
        assert_eq!(play_again(&header), "arena --game chess play --seed 42 --entries 'b,it'\\''s a' --set max_turns=6");
    }

    #[test]
    fn varints_round_trip() {
        for v in [0u64, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            let mut b = Vec::new();
            put_varint(&mut b, v);
            assert_eq!(get_varint(&b, &mut 0), Ok(v));
        }
    }
}
