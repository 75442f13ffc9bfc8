//! Whether the ladder's top places are settled: the arena's rule for "play until there is
//! a clear winner" (`arena::decide`, Kim & Nelson's fully sequential procedure) applied to
//! the stored games of the best few current versions.
//!
//! Each played game in which at least two of them sat is one block (their scores in it;
//! `None` for the others); a game of pairs (hex) is one block per match, the two games of
//! the match compared side for side. The blocks go in game-id order, so the answer is a
//! function of the set of games, like the ratings.
//!
//! A caveat the docs repeat: the procedure's guarantee is for blocks that are drawn
//! alike, as a tournament's seeded games are. A ladder's matchmaking chooses its lineups
//! from the ratings so far, so here the verdict is a well-founded summary, not a proof.
//!
//! Not here: the ratings (`rating`), the procedure itself (`arena::decide`).

use std::collections::BTreeMap;

use arena::decide::{Block, Decision, Rule, Verdict, decide};

use crate::rating::PlayedGame;
use crate::store::Standing;

/// How many of the best current versions the verdict compares.
pub const TOP: usize = 3;

/// Where the top places stand.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Settled {
    /// The procedure's decision at its last look.
    pub decision: Decision,
    /// The games of the top versions stored so far (the last look may be on fewer).
    pub games: u64,
}

impl Settled {
    /// One line: the decision's, or how many games there are before the first look.
    pub fn line(&self) -> String {
        match self.decision.verdict {
            Verdict::Open if self.decision.blocks == 0 => format!(
                "not settled yet: {} game(s) of {} so far (the first look is after {})",
                self.games,
                self.decision.winners.join(", "),
                self.decision.rule.first * self.decision.rule.games_per_block
            ),
            _ => self.decision.line(),
        }
    }
}

/// The versions whose games [`top_places`] compares: the best current versions of
/// `board` that have played (`Store::played_games_of` reads just their games).
pub fn top_versions(board: &[Standing]) -> Vec<i64> {
    board.iter().filter(|s| s.active && s.games > 0).take(TOP).map(|s| s.version).collect()
}

/// Whether the top places of `board` (ranked, best first) are settled by `games` (the
/// played games, in id order: every one, or those of [`top_versions`]); `pairs` for
/// games of two seats played as matches (hex). `None` when fewer than two current
/// versions have played.
pub fn top_places(board: &[Standing], games: &[PlayedGame], pairs: bool) -> Option<Settled> {
    let top: Vec<&Standing> = board.iter().filter(|s| s.active && s.games > 0).take(TOP).collect();
    if top.len() < 2 {
        return None;
    }
    let names: Vec<String> = top.iter().map(|s| s.entry.clone()).collect();
    let index: BTreeMap<i64, usize> = top.iter().enumerate().map(|(i, s)| (s.version, i)).collect();
    let k = top.len();
    let blocks: Vec<Block> = if pairs { match_blocks(games, &index, k) } else { score_blocks(games, &index, k) };
    // Looks after every block from the first stage on, and no maximum: a ladder plays on.
    let rule = Rule { games_per_block: if pairs { 2 } else { 1 }, ..Rule::new(1, u64::MAX) };
    let games = blocks.len() as u64 * rule.games_per_block;
    Some(Settled { decision: decide(&names, &blocks, &rule), games })
}

/// One block per free-for-all game where at least two of the top versions sat.
fn score_blocks(games: &[PlayedGame], index: &BTreeMap<i64, usize>, k: usize) -> Vec<Block> {
    games
        .iter()
        .filter_map(|g| {
            let mut scores = vec![None; k];
            for (version, score) in &g.seats {
                if let Some(&i) = index.get(version) {
                    scores[i] = Some(f64::from(*score));
                }
            }
            (scores.iter().flatten().count() >= 2).then(|| Block::from_scores(&scores))
        })
        .collect()
}

/// One block per match of two games (the first game's seats, then the same two the other
/// way round) between two of the top versions: each one's score in the first seat.
fn match_blocks(games: &[PlayedGame], index: &BTreeMap<i64, usize>, k: usize) -> Vec<Block> {
    let mut matches: BTreeMap<i64, Vec<&PlayedGame>> = BTreeMap::new();
    for g in games {
        matches.entry(g.pairing.unwrap_or(g.id)).or_default().push(g);
    }
    matches
        .values()
        .filter_map(|m| {
            // first[i][l]: i's score in the first seat against l.
            let mut first = vec![vec![None; k]; k];
            for g in m {
                if let [(a, score), (b, _)] = g.seats.as_slice()
                    && let (Some(&i), Some(&l)) = (index.get(a), index.get(b))
                {
                    first[i][l] = Some(f64::from(*score));
                }
            }
            let complete = (0..k).any(|i| (0..k).any(|l| i != l && first[i][l].is_some() && first[l][i].is_some()));
            complete.then(|| Block::from_pairs(k, |i, l| first[i][l]))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn standing(rank: usize, entry: &str, version: i64) -> Standing {
        Standing {
            rank,
            entry: entry.to_owned(),
            version,
            sha256: String::new(),
            active: true,
            games: 10,
            mu: 25.0,
            sigma: 1.0,
            conservative: 22.0,
            mean_score: 0.0,
            statistic: "median score".to_owned(),
            stat: Default::default(),
        }
    }

    /// Games of three versions where version 1 scores 10 more than 2, and 2 as much as 3,
    /// give or take a little noise from a fixed sequence.
    fn games(n: i64) -> Vec<PlayedGame> {
        (0..n)
            .map(|id| {
                let noise = |s: i64| ((id * 7 + s * 13) % 5) as u32;
                PlayedGame {
                    id,
                    pairing: None,
                    seats: vec![(1, 30 + noise(1)), (2, 20 + noise(2)), (3, 20 + noise(3))],
                }
            })
            .collect()
    }

    #[test]
    fn a_version_far_ahead_of_the_others_is_named_the_clear_winner() {
        let board = [standing(1, "best", 1), standing(2, "second", 2), standing(3, "third", 3)];
        let d = top_places(&board, &games(40), false).unwrap();
        assert_eq!(d.decision.winners, ["best"], "{}", d.line());
        assert!(d.line().starts_with("clear winner: best after "), "{}", d.line());
    }

    #[test]
    fn too_few_games_are_not_settled_and_fewer_than_two_versions_give_nothing() {
        let board = [standing(1, "best", 1), standing(2, "second", 2), standing(3, "third", 3)];
        let d = top_places(&board, &games(3), false).unwrap();
        assert_eq!(d.line(), "not settled yet: 3 game(s) of best, second, third so far (the first look is after 10)");
        assert!(top_places(&board[..1], &games(40), false).is_none());
    }

    #[test]
    fn the_games_of_other_versions_are_left_out() {
        let board = [standing(1, "best", 1), standing(2, "second", 2)];
        let mut played = games(40);
        // A game of versions 3 and 4 only.
        played.push(PlayedGame { id: 99, pairing: None, seats: vec![(3, 0), (4, 100)] });
        let d = top_places(&board, &played, false).unwrap();
        assert_eq!(d.games, 40);
        assert_eq!(d.decision.games, top_places(&board, &games(40), false).unwrap().decision.games);
    }
}
