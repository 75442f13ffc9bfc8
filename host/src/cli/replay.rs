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
    let what = file.display().to_string();
    let game = arena::replay::game_of(&bytes).with_context(|| what.clone())?;
    // Without --json, the page is written (by default beside the replay).
    let html = html.or_else(|| json.is_none().then(|| file.with_extension("html")));
    write_outputs(&what, &game, &bytes, html.as_deref(), json.as_deref())
}

/// Writes the JSON (to `json`, `-` for standard output) and the viewer page (to `html`)
/// of the replay `bytes` of `game`, called `what` in messages (a file, a ladder's game).
pub fn write_outputs(what: &str, game: &str, bytes: &[u8], html: Option<&Path>, json: Option<&Path>) -> Result<()> {
    if let Some(out) = json {
        let value = arena::games::turns::replay_json(bytes).with_context(|| what.to_owned())?;
        let text = serde_json::to_vec(&value)?;
        if out.as_os_str() == "-" {
            std::io::stdout().write_all(&text).and_then(|()| std::io::stdout().write_all(b"\n"))?;
        } else {
            write_atomically(out, &text, "the JSON")?;
            outln!("{what}: turn by turn written to {}", out.display());
        }
    }
    let Some(html) = html else { return Ok(()) };
    with_game!(game, R => replay_page::<R>(what, bytes, html),
        _ => bail!("{what}: a replay of {game:?}, a game this program does not know"))
}

/// Writes the viewer page of a replay of game `G`.
fn replay_page<G: Game>(what: &str, bytes: &[u8], html: &Path) -> Result<()> {
    let replay = arena::replay::Replay::<G>::from_bytes(bytes).with_context(|| what.to_owned())?;
    let page = G::viewer_page(&replay).with_context(|| what.to_owned())?;
    write_atomically(html, page.as_bytes(), "the viewer page")?;
    let h = &replay.header;
    outln!(
        "{}: {} replay, seed {}, {} entries, {} {}; viewer written to {}",
        what,
        h.game,
        h.seed,
        h.names.len(),
        h.turns,
        G::TURNS,
        html.display()
    );
    Ok(())
}
