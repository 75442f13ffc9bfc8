//! What a bot says at a call: the text every kind of bot can write during one call (a
//! script's `debug(...)` or `print`, a native bot's debug channel, a program's `#` lines
//! and standard error), kept with the call it belongs to so that replays, their viewers
//! and `arena check` can show "what my bot was thinking" turn by turn.
//!
//! A bot writes through [`say`], on the thread that calls it (the Architecture Invariant
//! of `crate::bot`: a bot never leaves that thread). Nothing is kept unless a call is
//! *open* on that thread: `replay::notes::Listening` opens one around each call of a
//! recorded game (a lockstep worker's live seat, `isolate::lockstep`, around each of its
//! calls), so outside recorded games `say` is one thread-local test and costs nothing.
//!
//! Caps, so that a chatty bot can neither slow nor stop a game: at most [`CALL_CAP`]
//! bytes per call and [`ENTRY_CAP`] bytes per entry per game; what goes over is cut at a
//! character boundary and marked ([`CUT_MARK`], [`ENTRY_CUT_MARK`]), and the rest is
//! dropped. Saying never fails a call.
//!
//! This module is the sink only, at the base of the library (the process layer and the
//! loaders write to it): where a call's text goes with its turn and player or unit, and
//! how it is stored, is `crate::replay::notes`'s.

use std::cell::{Cell, RefCell};

/// The most a bot's text at one call keeps, in bytes (UTF-8).
pub const CALL_CAP: usize = 1 << 10;
/// The most an entry's texts keep over one game, in bytes.
pub const ENTRY_CAP: usize = 64 << 10;
/// Ends a call's text cut at [`CALL_CAP`].
pub const CUT_MARK: &str = " […cut: over 1 KiB this call]";
/// Ends the last text an entry keeps in a game, cut at [`ENTRY_CAP`].
pub const ENTRY_CUT_MARK: &str = " […cut: over 64 KiB this game; later texts dropped]";

thread_local! {
    /// True while a call of a recorded game is running on this thread.
    static OPEN: Cell<bool> = const { Cell::new(false) };
    /// What the running call said so far (at most [`CALL_CAP`] and its mark).
    static SAID: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Adds `text` to what the call running on this thread says (a line: texts of one call
/// are joined by line breaks). Dropped when no call is open (a game that is not
/// recorded, or text written outside a call), and past [`CALL_CAP`].
pub fn say(text: &str) {
    if !OPEN.with(Cell::get) {
        return;
    }
    SAID.with(|said| {
        let mut said = said.borrow_mut();
        if said.len() > CALL_CAP {
            // Already cut and marked.
            return;
        }
        if !said.is_empty() {
            said.push('\n');
        }
        said.push_str(text);
        if said.len() > CALL_CAP {
            let cut = floor_char_boundary(&said, CALL_CAP);
            said.truncate(cut);
            said.push_str(CUT_MARK);
        }
    });
}

/// True when a call is open on this thread (what is said now is kept): lets a bot skip
/// building text nobody keeps.
pub fn listening() -> bool {
    OPEN.with(Cell::get)
}

/// Opens a call on this thread: what is said until [`close_call`] is kept.
pub fn open_call() {
    SAID.with(|s| s.borrow_mut().clear());
    OPEN.with(|o| o.set(true));
}

/// Closes the call opened by [`open_call`]: what it said, if anything.
pub fn close_call() -> Option<String> {
    OPEN.with(|o| o.set(false));
    SAID.with(|s| {
        let mut s = s.borrow_mut();
        (!s.is_empty()).then(|| std::mem::take(&mut *s))
    })
}

/// The largest index `<= at` on a character boundary of `s`.
pub fn floor_char_boundary(s: &str, at: usize) -> usize {
    if at >= s.len() {
        return s.len();
    }
    (0..=at).rev().find(|&i| s.is_char_boundary(i)).unwrap_or(0)
}

/// The debug channel handed to a native library (ABI 1.4): its `write` says the text at
/// the call running on the calling thread.
pub fn native_debugger() -> zombies_plugin_abi::Logger {
    zombies_plugin_abi::Logger { write: say_native, data: std::ptr::null() }
}

extern "C" fn say_native(_data: *const std::ffi::c_void, text: *const u8, len: usize) {
    if text.is_null() || !listening() {
        return;
    }
    // SAFETY: the library promises `len` readable bytes at `text` (a lie crashes the
    // bot's own process at worst, which isolation contains); no more than a call keeps
    // is read.
    let bytes = unsafe { std::slice::from_raw_parts(text, len.min(CALL_CAP + 4)) };
    // A panic must not unwind into the library.
    let _ = std::panic::catch_unwind(|| say(&String::from_utf8_lossy(bytes)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_is_kept_outside_a_call() {
        say("lost");
        open_call();
        say("kept");
        say("and this");
        assert_eq!(close_call().as_deref(), Some("kept\nand this"));
        say("lost too");
        open_call();
        assert_eq!(close_call(), None);
    }

    #[test]
    fn a_call_keeps_at_most_one_kib_cut_at_a_character_and_marked() {
        open_call();
        say(&"é".repeat(1000));
        say("more");
        let text = close_call().unwrap();
        assert!(text.ends_with(CUT_MARK), "{text}");
        let kept = &text[..text.len() - CUT_MARK.len()];
        assert!(kept.len() <= CALL_CAP && kept.len() > CALL_CAP - 2);
        assert!(kept.chars().all(|c| c == 'é'));
    }

    #[test]
    fn char_boundaries() {
        assert_eq!(floor_char_boundary("aé", 2), 1);
        assert_eq!(floor_char_boundary("aé", 9), 3);
        assert_eq!(floor_char_boundary("", 0), 0);
    }
}
