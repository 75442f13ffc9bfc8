//! {{NAME}}: a zombies bot ("Save the last bullet for yourself") for the arena, written
//! by `arena new-bot`. Build it with `cargo build --release` (see README.md).
//!
//! The game in a few lines (all of it: the arena's `docs/games/zombies.md`): every entry
//! fields 50 players on a toroidal board; zombies rise and chase them, and a bitten
//! player turns into one. Each turn your bot is called once for each of your living
//! players: it sees a 17x17 window around that player and answers a move (one of the
//! nine `Direction`s, `Stay` included) or a shot at something within 5 cells. Your
//! score is how long your last player survives.
//!
//! This starting strategy: shoot a zombie that could bite next turn, else step away
//! from the nearest zombie in sight, else wander at random. Change anything below.

use zombies_plugin_abi::{Action, Context, Direction, Id, ZombiesPlayer, export_bot};

/// The bot. The arena makes one per game (`new`), shared by all of your players, so
/// its fields are how your players coordinate.
#[derive(Debug)]
pub struct MyBot {
    /// The turn `shot_at` is about.
    turn: u32,
    /// Zombies one of our players already shot at this turn (no two bullets for one).
    shot_at: Vec<Id>,
}

/// Chebyshev distance: how many moves apart two cells are (diagonal moves count one).
fn distance(dx: i32, dy: i32) -> i32 {
    dx.abs().max(dy.abs())
}

impl ZombiesPlayer for MyBot {
    /// The entry's name in the arena: unique; not "Zombie" nor "DeadBody".
    const NAME: &'static str = "{{NAME}}";

    fn new() -> Self {
        // Called at the start of every game.
        // `log!` writes a line to this entry's log (logs/{{NAME}}.log with `--logs`).
        zombies_plugin_abi::log!("new game");
        MyBot { turn: u32::MAX, shot_at: Vec::new() }
    }

    fn turn(&mut self, ctx: &Context<'_>) -> Action {
        if ctx.clock != self.turn {
            self.turn = ctx.clock;
            self.shot_at.clear();
        }

        // The zombies in sight, nearest first. `visible()` lists every entity in the
        // 17x17 view with its offset (dx east, dy south; yourself at (0, 0)).
        let mut zombies: Vec<(i32, i32, Id)> = ctx.visible().filter(|(_, _, id)| id.is_zombie()).collect();
        zombies.sort_by_key(|&(dx, dy, _)| distance(dx, dy));

        // 1. A zombie within 2 cells can be next to us after its move, and bite: shoot
        //    it (a shot reaches 5 cells) unless one of our players already did.
        if ctx.bullets > 0 {
            if let Some(&(_, _, target)) =
                zombies.iter().find(|(dx, dy, id)| distance(*dx, *dy) <= 2 && !self.shot_at.contains(id))
            {
                self.shot_at.push(target);
                return Action::shoot(target);
            }
        }

        // 2. Step to the free neighbouring cell farthest from the nearest zombie.
        if let Some(&(zx, zy, _)) = zombies.first() {
            let mut best = (distance(zx, zy), Direction::Stay);
            for dir in Direction::ALL {
                let (mx, my) = dir.delta();
                // A move onto an occupied cell fails (the player stays).
                if dir != Direction::Stay && ctx.look(mx, my).is_some() {
                    continue;
                }
                let d = distance(zx - mx, zy - my);
                if d > best.0 {
                    best = (d, dir);
                }
            }
            return Action::go(best.1);
        }

        // 3. Nothing in sight: wander. Draw randomness from the game's generator
        //    (`ctx.random`, `ctx.random_move`), never your own, so games replay from
        //    their seed.
        Action::go(ctx.random_move())
    }
}

export_bot!(MyBot);
