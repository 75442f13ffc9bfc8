//! Test fixture: on its third call of each game it allocates (and touches) 8 GiB, more
//! than a worker may have: Rust's allocation error handler says so and aborts.

use zombies_plugin_abi::{Action, Context, ZombiesPlayer, export_bot};

/// Counts its calls; keeps what it allocated.
#[derive(Debug)]
pub struct Hungry {
    calls: u64,
    hoard: Vec<u8>,
}

impl ZombiesPlayer for Hungry {
    const NAME: &'static str = "Hungry";
    fn new() -> Self {
        Hungry { calls: 0, hoard: Vec::new() }
    }
    fn turn(&mut self, _ctx: &Context<'_>) -> Action {
        self.calls += 1;
        if self.calls == 3 {
            self.hoard = vec![1u8; 8 << 30];
        }
        Action::stay()
    }
}

export_bot!(Hungry);
