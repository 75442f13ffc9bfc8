//! `arena replay`: a replay file turned into its viewer page (one self-contained HTML
//! file) or, with `--json`, into the game turn by turn as JSON. The replay names its
//! game, so this command takes no `--game`.
//!
//! Not here: reading replays and re-playing them (`arena::replay`,
//! `arena::games::turns`), the pages (each game's `viewer`).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, bail};
use arena::game::Game;
use arena::with_game;
use clap::Args;

use super::files::write_atomically;

/// The options of `arena replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The replay file (from `play --replay` or `tournament --replay-dir`).
    pub file: PathBuf,
    /// The page to write (default, without --json: the replay's name with `.html`).
    #[arg(long, value_name = "OUT.html")]
    pub html: Option<PathBuf>,
    /// Write the game turn by turn as JSON to this file, for other tools (`-` for
    /// standard output); the schema is in docs/replays.md.
    #[arg(long, value_name = "OUT.json")]
    pub json: Option<PathBuf>,
}

/// Writes the page (or the JSON) of the replay.
pub fn replay(args: ReplayArgs) -> Result<()> {
    let ReplayArgs { file, html, json } = args;
    let bytes = std::fs::read(&file).with_context(|| format!("{}: cannot read", file.display()))?;
    if let Some(out) = &json {
        let value = arena::games::turns::replay_json(&bytes).with_context(|| file.display().to_string())?;
        let text = serde_json::to_vec(&value)?;
        if out.as_os_str() == "-" {
            std::io::stdout().write_all(&text).and_then(|()| std::io::stdout().write_all(b"\n"))?;
        } else {
            write_atomically(out, &text, "the JSON")?;
            outln!("{}: turn by turn written to {}", file.display(), out.display());
        }
        if html.is_none() {
            return Ok(());
        }
    }
    let html = html.unwrap_or_else(|| file.with_extension("html"));
    let game = arena::replay::game_of(&bytes).with_context(|| file.display().to_string())?;
    with_game!(game.as_str(), R => replay_page::<R>(&file, &bytes, &html),
        _ => bail!("{}: a replay of {game:?}, a game this program does not know", file.display()))
}

/// Writes the viewer page of a replay of game `G`.
fn replay_page<G: Game>(file: &Path, bytes: &[u8], html: &Path) -> Result<()> {
    let replay = arena::replay::Replay::<G>::from_bytes(bytes).with_context(|| file.display().to_string())?;
    let page = G::viewer_page(&replay).with_context(|| file.display().to_string())?;
    write_atomically(html, page.as_bytes(), "the viewer page")?;
    let h = &replay.header;
    outln!(
        "{}: {} replay, seed {}, {} entries, {} {}; viewer written to {}",
        file.display(),
        h.game,
        h.seed,
        h.names.len(),
        h.turns,
        G::TURNS,
        html.display()
    );
    Ok(())
}
