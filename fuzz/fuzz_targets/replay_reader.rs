//! Any bytes given to the replay reader (and, when they decode, to the re-play) give a
//! replay or a one-line error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use arena::games::eggs::Eggs;
use arena::games::zombies::{Zombies, viewer::replay_turns};
use arena::replay::Replay;

fuzz_target!(|data: &[u8]| {
    if let Ok(replay) = Replay::<Zombies>::from_bytes(data) {
        let _ = replay_turns(&replay, |_| {});
        let _ = replay.to_bytes();
    }
    if let Ok(replay) = Replay::<Eggs>::from_bytes(data) {
        let _ = replay.verify();
        let _ = replay.to_bytes();
    }
});
