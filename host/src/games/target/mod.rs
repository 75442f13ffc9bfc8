//! "Invisible target", not yet hosted as a game (its bots, replays and viewer come with
//! the issue that hosts it): the pure rules engine in `rules`, built to
//! `shared/rules/target.md` and tested rule by rule.

pub mod rules;
