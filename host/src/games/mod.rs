//! The games the arena hosts, one module each, and the registry that maps a game's
//! name to its type. Everything else in the host is written once over
//! [`crate::game::Game`].

pub mod eggs;
pub mod hex;
pub mod target;
pub mod turns;
pub mod zombies;

/// The names of the games, as `--game` takes them.
pub const NAMES: [&str; 4] = ["zombies", "eggs", "target", "hex"];

/// Runs `$body` with `$g` bound to the game type named `$name` (a `&str`), or
/// evaluates `$unknown` for a name no game has.
#[macro_export]
macro_rules! with_game {
    ($name:expr, $g:ident => $body:expr, _ => $unknown:expr) => {
        match $name {
            "zombies" => {
                type $g = $crate::games::zombies::Zombies;
                $body
            }
            "eggs" => {
                type $g = $crate::games::eggs::EggHunt;
                $body
            }
            "target" => {
                type $g = $crate::games::target::InvisibleTarget;
                $body
            }
            "hex" => {
                type $g = $crate::games::hex::HexGame;
                $body
            }
            _ => $unknown,
        }
    };
}
