//! The arena's system layer: what the host needs from the machine and nothing about
//! bots or games. Clocks of own time (`clock`), the allocation meter (`alloc_meter`),
//! the debug channel of native bots (`debug`), processes and their limits, boxes,
//! pipes and signals (`process`: every unsafe call to the kernel), and the statistics
//! that decide a tournament (`decide`).
//!
//! **Architecture Invariant:** this crate knows no bot contract, no game and no
//! tournament: it depends on no crate of the arena but the plugin ABI (for the debug
//! channel's `Logger`), so everything above can use it and it can use nothing above.

pub mod alloc_meter;
pub mod clock;
pub mod debug;
pub mod decide;
pub mod process;
