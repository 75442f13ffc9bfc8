//! Submissions: entrants' tokens, uploaded bots and retiring them.
//!
//! A token is 32 random bytes in hex, shown once by `arena ladder add-entrant`; the
//! database keeps only its SHA-256. An upload (a `.lua`, `.rhai`, `.so`, a program: a
//! file starting with `#!` or an ELF executable, or a program with files: an archive
//! read by `archive`) is refused in one line unless its token, name, kind and size are
//! good and its entry is free or the entrant's own; it is then stored by content hash in
//! `objects/` of the bots directory (beside the database, never under a served path),
//! checked in the sandbox by the [`Checker`] (one check at a time), and, when the check
//! passes, copied to `live/<game>/<name>.<ext>`, where the ladder finds it at its next
//! batch (a changed file is a new version). Every submission is recorded with its
//! one-line result (`accepted`, `rejected`, ...).
//!
//! An archive becomes a program with files as the host lays one out (`<file>.files/`
//! beside the program: `arena::loaders::program`): its tree is unpacked into
//! `live/<game>/.programs/<sha256>/` (by the archive's hash, never changed once there),
//! `live/<game>/<name>.files` links to it, and `live/<game>/<name>` is a launcher that
//! runs its `main` there, carrying the archive's hash (so a new archive is a new
//! version) and `main`'s `arena:` line.
//!
//! Not here: the HTTP side (reading the form or body, answering: `pages`), reading an
//! archive (`archive`), the check itself (the caller's [`Checker`]), the tables
//! (`arena_ladder::accounts`). No file is ever named by a request: names are checked to
//! be plain words, and every path is made here from the bots directory, the game, the
//! name and the hash.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arena_ladder::accounts::{Account, Owner};
use sha2::{Digest, Sha256};

use crate::{App, Checker, ServerError};

/// Longest entry name.
pub const MAX_NAME: usize = 32;

/// The directory of submitted bots of the database `db`: `<db>.bots` beside it.
pub fn bots_dir(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(".bots");
    PathBuf::from(name)
}

/// Where the ladder finds the accepted bots of `game`: the directory to add to its
/// `--scripts` (searched with its `<game>/` subdirectory) and the one to add to its
/// `--plugins`.
pub fn live_dirs(bots: &Path, game: &str) -> (PathBuf, PathBuf) {
    (bots.join("live"), bots.join("live").join(game))
}

/// Makes the bots directory's parts for `game`.
pub fn make_dirs(bots: &Path, game: &str) -> Result<(), ServerError> {
    for dir in [bots.join("objects"), bots.join("pending"), live_dirs(bots, game).1] {
        std::fs::create_dir_all(&dir).map_err(|e| ServerError::Bots { path: dir.clone(), why: e.to_string() })?;
    }
    Ok(())
}

/// A new token: 32 random bytes in hex.
pub fn new_token() -> std::io::Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| std::io::Error::other(e.to_string()))?;
    Ok(hex(&bytes))
}

/// The SHA-256 of `bytes`, in hex.
pub fn sha256(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Creates the entrant `name` with a new token (the host's when `admin`): the token,
/// to give to the entrant (only its hash is kept).
pub fn add_entrant(store: &arena_ladder::store::Store, name: &str, admin: bool) -> Result<String, String> {
    check_name(name).map_err(|why| format!("entrant name: {why}"))?;
    let token = new_token().map_err(|e| format!("cannot make a token: {e}"))?;
    store.add_entrant(name, &sha256(token.as_bytes()), admin).map_err(|e| e.to_string())?;
    Ok(token)
}

/// Checks an entry or entrant name: 1 to 32 ASCII letters, digits, `-` and `_`,
/// starting with a letter.
pub fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("empty".to_owned());
    }
    if name.len() > MAX_NAME {
        return Err(format!("{} characters, more than {MAX_NAME}", name.len()));
    }
    if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return Err("does not start with a letter".to_owned());
    }
    if let Some(c) = name.chars().find(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_')) {
        return Err(format!("has {c:?}: only letters, digits, - and _"));
    }
    Ok(())
}

/// The kind of a bot file and the extension it is stored with, from its file name and
/// first bytes.
pub fn kind_of(file_name: &str, bytes: &[u8]) -> Result<(&'static str, &'static str), String> {
    let ext = Path::new(file_name).extension().and_then(|e| e.to_str()).unwrap_or("");
    match ext {
        "lua" => Ok(("lua", "lua")),
        "rhai" => Ok(("rhai", "rhai")),
        "so" if bytes.starts_with(b"\x7fELF") => Ok(("native", "so")),
        "so" => Err("a .so that is not an ELF library".to_owned()),
        _ if crate::archive::Format::of(file_name).is_some() => Ok(("program", "")),
        "gz" | "bz2" | "xz" | "zst" | "7z" | "rar" => {
            Err("an archive of another kind: archives are accepted as .tar.gz, .tgz, .tar or .zip".to_owned())
        }
        _ if bytes.starts_with(b"#!") || bytes.starts_with(b"\x7fELF") => Ok(("program", "")),
        _ => Err("not a bot file: a .lua, .rhai or .so, a program (starting with #! or an ELF executable), or a \
                  program with files as a .tar.gz, .tgz, .tar or .zip"
            .to_owned()),
    }
}

/// An upload, as read from a request.
#[derive(Debug, Default)]
pub struct Upload {
    /// The token, as given.
    pub token: String,
    /// The entry's name.
    pub name: String,
    /// The file's name as sent (its extension says the kind).
    pub file_name: String,
    /// The file.
    pub bytes: Vec<u8>,
}

/// Why a request was refused: an HTTP status and one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// The status.
    pub status: u16,
    /// Why.
    pub line: String,
}

fn refused(status: u16, line: impl Into<String>) -> Refused {
    Refused { status, line: line.into() }
}

/// The account of `token`, or a refusal.
pub async fn authenticate(app: &Arc<App>, token: &str) -> Result<Account, Refused> {
    let token = token.trim();
    if token.is_empty() {
        return Err(refused(401, "token: missing (give the token `arena ladder add-entrant` printed)"));
    }
    if token.len() > 128 {
        return Err(refused(401, "token: not a token (too long)"));
    }
    let hash = sha256(token.as_bytes());
    match app.db(move |s| s.account(&hash)).await {
        Ok(Some(account)) => Ok(account),
        Ok(None) => Err(refused(401, "token: unknown")),
        Err(e) => Err(refused(500, e.to_string())),
    }
}

/// What an accepted upload became.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Accepted {
    /// The entry.
    pub name: String,
    /// Its kind.
    pub kind: String,
    /// The file's SHA-256.
    pub sha256: String,
    /// The check's one line.
    pub line: String,
}

/// Takes an upload: refused in one line, or checked, stored and joined.
pub async fn submit(app: &Arc<App>, upload: Upload) -> Result<Accepted, Refused> {
    let account = authenticate(app, &upload.token).await?;
    let name = upload.name.trim().to_owned();
    check_name(&name).map_err(|why| refused(400, format!("name: {why}")))?;
    if upload.bytes.is_empty() {
        return Err(refused(400, "file: empty"));
    }
    if upload.bytes.len() > app.config.max_upload {
        return Err(refused(413, format!("file: {} bytes, more than {}", upload.bytes.len(), app.config.max_upload)));
    }
    let (kind, ext) = kind_of(&upload.file_name, &upload.bytes).map_err(|why| refused(400, format!("file: {why}")))?;
    let game = app.config.game.clone();
    // An archive is read and checked whole before anything else (it costs nothing else
    // when refused).
    let tree = match crate::archive::Format::of(&upload.file_name) {
        Some(format) => {
            let (bytes, caps) = (upload.bytes.clone(), app.config.archive);
            let tree = tokio::task::spawn_blocking(move || crate::archive::read(format, &bytes, caps))
                .await
                .map_err(|e| refused(500, e.to_string()))?;
            let shown = shown_name(&upload.file_name);
            let tree = tree.map_err(|why| refused(400, one_line(&format!("file: {shown}: {why}"))))?;
            launcher_head(&tree, &game).map_err(|why| refused(400, one_line(&format!("file: {shown}: {why}"))))?;
            Some(tree)
        }
        None => None,
    };
    let (g, n) = (game.clone(), name.clone());
    let owner = app.db(move |s| s.owner(&g, &n)).await.map_err(|e| refused(500, e.to_string()))?;
    match owner {
        Owner::Free => {}
        Owner::Entrant(id) if id == account.id => {}
        Owner::Entrant(_) => return Err(refused(403, format!("name: the entry {name} belongs to another entrant"))),
        Owner::Directory => {
            return Err(refused(403, format!("name: the entry {name} is a bot of the ladder's own directories")));
        }
    }
    let hash = sha256(&upload.bytes);
    let bots = app.config.bots.clone();
    let file = if ext.is_empty() { name.clone() } else { format!("{name}.{ext}") };
    let size = upload.bytes.len() as u64;
    let (bytes, h, f, gm) = (upload.bytes, hash.clone(), file.clone(), game.clone());
    let pending =
        tokio::task::spawn_blocking(move || store_files(&bots, &gm, &h, &f, &bytes, kind == "program", tree.as_ref()))
            .await
            .map_err(|e| refused(500, e.to_string()))?
            .map_err(|e| refused(500, format!("cannot store the file: {e}")))?;
    let result = {
        let _turn = app.checking.acquire().await.map_err(|e| refused(500, e.to_string()))?;
        let checker: Arc<dyn Checker> = Arc::clone(&app.checker);
        let (gm, p) = (game.clone(), pending.clone());
        tokio::task::spawn_blocking(move || checker.check(&gm, &p))
            .await
            .unwrap_or_else(|e| Err(format!("the check failed: {e}")))
    };
    let result = match result {
        Ok(c) if c.name != name => {
            Err(format!("it loads as {:?}, not {name:?}: name the entry as it names itself", c.name))
        }
        other => other,
    };
    let (bots, gm, f, h) = (app.config.bots.clone(), game.clone(), file.clone(), hash.clone());
    let joined = match &result {
        Ok(_) => tokio::task::spawn_blocking(move || go_live(&bots, &gm, &f, &h, &pending))
            .await
            .map_err(|e| e.to_string())
            .and_then(|r| r.map_err(|e| e.to_string())),
        Err(_) => {
            let _ = std::fs::remove_dir_all(pending.parent().and_then(Path::parent).unwrap_or(&pending));
            Ok(())
        }
    };
    let (status, line) = match (&result, joined) {
        (Ok(c), Ok(())) => ("accepted", c.line.clone()),
        (Ok(_), Err(e)) => ("rejected", format!("cannot put the file in place: {e}")),
        (Err(why), _) => ("rejected", why.clone()),
    };
    let line = one_line(&line);
    let (n, k, h, l) = (name.clone(), kind.to_owned(), hash.clone(), line.clone());
    let id = account.id;
    app.db(move |s| s.record_submission(id, &game, &n, &k, &h, size, status, &l))
        .await
        .map_err(|e| refused(500, e.to_string()))?;
    if status == "accepted" {
        Ok(Accepted { name, kind: kind.to_owned(), sha256: hash, line })
    } else {
        Err(refused(422, line))
    }
}

/// `text` on one line, at most 500 characters.
pub fn one_line(text: &str) -> String {
    let line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() > 500 { line.chars().take(500).chain("...".chars()).collect() } else { line }
}

/// An upload's file name as a refusal shows it: quoted, at most 60 characters.
fn shown_name(file_name: &str) -> String {
    let short: String = file_name.chars().take(60).collect();
    format!("{short:?}")
}

/// The first lines of the launcher of an archive's tree for `game`: `#!/bin/sh` and the
/// `arena:` line of its `main`, with its `persistent` and `protocol <n>` (refused when that
/// names another game or none this host knows, or a version that is not a number; without
/// one, `main` plays `game`).
fn launcher_head(tree: &crate::archive::Tree, game: &str) -> Result<String, String> {
    let head = String::from_utf8_lossy(&tree.main()[..tree.main().len().min(1024)]).into_owned();
    let mut persistent = false;
    let mut protocol = String::new();
    if let Some(line) = head.lines().take(5).find(|l| l.contains("arena:")) {
        let rest = &line[line.find("arena:").map_or(0, |at| at + "arena:".len())..];
        let mut words = rest.split(|c: char| c.is_whitespace() || c == ',').filter(|w| !w.is_empty());
        let declared = words.next().unwrap_or("");
        if declared != game {
            let what = if arena::games::NAMES.contains(&declared) { "plays" } else { "names the unknown game" };
            return Err(format!("`main`'s `arena:` line {what} {declared:?}: this contest plays {game}"));
        }
        while let Some(word) = words.next() {
            match word {
                "persistent" => persistent = true,
                "protocol" => {
                    let version = words.next().unwrap_or("");
                    if version.is_empty() || version.len() > 9 || !version.bytes().all(|b| b.is_ascii_digit()) {
                        return Err(format!(
                            "`main`'s `arena:` line asks for protocol {version:?}: a protocol version is a number"
                        ));
                    }
                    protocol = format!(" protocol {version}");
                }
                _ => {}
            }
        }
    }
    Ok(format!("#!/bin/sh\n# arena: {game}{}{protocol}\n", if persistent { " persistent" } else { "" }))
}

/// The launcher of an archive's tree: runs its `main` in `<name>.files/` (the program's
/// working directory), and names the archive's hash.
fn launcher(tree: &crate::archive::Tree, game: &str, name: &str, hash: &str) -> std::io::Result<Vec<u8>> {
    let head = launcher_head(tree, game).map_err(std::io::Error::other)?;
    Ok(format!(
        "{head}# {name}: the program with files of the archive {hash} (its files in {name}.files/, where it runs)\n\
         exec ./{} \"$@\"\n",
        crate::archive::MAIN
    )
    .into_bytes())
}

/// Stores `bytes` as `objects/<hash>` (once) and as the file to check,
/// `pending/<hash>-<pid>-<n>/<game>/<file>` (a directory of its own): its path. An
/// archive's `tree` is written beside it as `<file>.files/`, and the file is its
/// launcher.
fn store_files(
    bots: &Path,
    game: &str,
    hash: &str,
    file: &str,
    bytes: &[u8],
    run: bool,
    tree: Option<&crate::archive::Tree>,
) -> std::io::Result<PathBuf> {
    let object = bots.join("objects").join(hash);
    if !object.exists() {
        write_new(&object, bytes, false)?;
    }
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = bots.join("pending").join(format!("{hash}-{}-{n}", std::process::id())).join(game);
    std::fs::create_dir_all(&dir)?;
    let path = dir.join(file);
    match tree {
        Some(tree) => {
            tree.write(&dir.join(format!("{file}.files")))?;
            write_new(&path, &launcher(tree, game, file, hash)?, true)?;
        }
        None => write_new(&path, bytes, run)?,
    }
    Ok(path)
}

/// Writes `bytes` to `path` through a temporary file beside it and a rename (run bit
/// when `run`).
fn write_new(path: &Path, bytes: &[u8], run: bool) -> std::io::Result<()> {
    use std::io::Write as _;
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        f.set_permissions(std::fs::Permissions::from_mode(if run { 0o755 } else { 0o644 }))?;
    }
    drop(f);
    std::fs::rename(&tmp, path)
}

/// The files of the entry `name` in `live/<game>/` (any kind, and the link to a
/// program's files).
fn live_files(bots: &Path, game: &str, name: &str) -> Vec<PathBuf> {
    let dir = live_dirs(bots, game).1;
    ["", ".lua", ".rhai", ".so", ".files"]
        .iter()
        .map(|ext| dir.join(format!("{name}{ext}")))
        .filter(|p| p.symlink_metadata().is_ok())
        .collect()
}

/// Where the trees of archives are kept, by the archive's hash: inside `live/<game>/`
/// (hidden from every box with it), in a directory the ladder does not scan.
fn programs_dir(bots: &Path, game: &str) -> PathBuf {
    live_dirs(bots, game).1.join(".programs")
}

/// Puts the checked file `pending` in place as `live/<game>/<file>`, removing the
/// entry's file of another kind, and the pending copy. A program with files (an
/// archive's launcher with `<file>.files/` beside it) has its tree moved to
/// `.programs/<hash>/` and linked as `live/<game>/<file>.files` first.
fn go_live(bots: &Path, game: &str, file: &str, hash: &str, pending: &Path) -> std::io::Result<()> {
    let dir = live_dirs(bots, game).1;
    let to = dir.join(file);
    let stem = Path::new(file).file_stem().and_then(|s| s.to_str()).unwrap_or(file);
    let mut keep = vec![to.clone()];
    let tree = pending.with_file_name(format!("{file}.files"));
    if tree.is_dir() {
        let programs = programs_dir(bots, game);
        std::fs::create_dir_all(&programs)?;
        let stored = programs.join(hash);
        if !stored.is_dir() {
            std::fs::rename(&tree, &stored)?;
        }
        let link = dir.join(format!("{file}.files"));
        let tmp = dir.join(format!(".{file}.files.tmp"));
        let _ = std::fs::remove_file(&tmp);
        std::os::unix::fs::symlink(Path::new(".programs").join(hash), &tmp)?;
        std::fs::rename(&tmp, &link)?;
        keep.push(link);
    }
    let tmp = dir.join(format!(".{file}.tmp"));
    std::fs::copy(pending, &tmp)?;
    std::fs::rename(&tmp, &to)?;
    for other in live_files(bots, game, stem) {
        if !keep.contains(&other) {
            std::fs::remove_file(other)?;
        }
    }
    if let Some(dir) = pending.parent().and_then(Path::parent) {
        let _ = std::fs::remove_dir_all(dir);
    }
    Ok(())
}

/// Retires the entry `name` (the token's own, or any submitted one for the host): its
/// file leaves `live/`, so the ladder retires its version at its next batch.
pub async fn retire(app: &Arc<App>, token: &str, name: &str) -> Result<String, Refused> {
    let account = authenticate(app, token).await?;
    let name = name.trim().to_owned();
    check_name(&name).map_err(|why| refused(400, format!("name: {why}")))?;
    let game = app.config.game.clone();
    let (g, n) = (game.clone(), name.clone());
    let owner = app.db(move |s| s.owner(&g, &n)).await.map_err(|e| refused(500, e.to_string()))?;
    match owner {
        Owner::Entrant(id) if id == account.id || account.admin => {}
        Owner::Entrant(_) => return Err(refused(403, format!("name: the entry {name} belongs to another entrant"))),
        Owner::Directory => {
            return Err(refused(
                409,
                format!("name: the entry {name} is a bot of the ladder's own directories: remove its file there"),
            ));
        }
        Owner::Free => return Err(refused(404, format!("name: no submitted entry {name}"))),
    }
    let bots = app.config.bots.clone();
    let (g, n) = (game.clone(), name.clone());
    tokio::task::spawn_blocking(move || {
        for f in live_files(&bots, &g, &n) {
            std::fs::remove_file(f)?;
        }
        Ok::<(), std::io::Error>(())
    })
    .await
    .map_err(|e| refused(500, e.to_string()))?
    .map_err(|e| refused(500, format!("cannot remove the file: {e}")))?;
    let why = format!("retired by {}", account.name);
    let w = why.clone();
    app.db(move |s| s.retire_submission(&game, &name, &w)).await.map_err(|e| refused(500, e.to_string()))?;
    Ok(why)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_plain_words() {
        assert_eq!(check_name("my-bot_2"), Ok(()));
        for bad in ["", "../x", "a/b", "2bot", "a b", "<b>", "a.lua", &"x".repeat(33), "é"] {
            assert!(check_name(bad).is_err(), "{bad:?} passed");
        }
    }

    #[test]
    fn kinds_come_from_the_extension_and_the_first_bytes() {
        assert_eq!(kind_of("a.lua", b"x"), Ok(("lua", "lua")));
        assert_eq!(kind_of("a.rhai", b"x"), Ok(("rhai", "rhai")));
        assert_eq!(kind_of("a.so", b"\x7fELF..."), Ok(("native", "so")));
        assert!(kind_of("a.so", b"MZ").is_err());
        assert_eq!(kind_of("bot", b"#!/bin/sh\n"), Ok(("program", "")));
        assert!(kind_of("bot.txt", b"hello").unwrap_err().contains("not a bot file"));
        assert_eq!(kind_of("bot.tar.gz", b"\x1f\x8b"), Ok(("program", "")));
        assert_eq!(kind_of("bot.zip", b"PK"), Ok(("program", "")));
        assert!(kind_of("bot.gz", b"\x1f\x8b").unwrap_err().contains(".tar.gz, .tgz, .tar or .zip"));
    }

    #[test]
    fn tokens_are_random_and_only_their_hash_is_kept() {
        let (a, b) = (new_token().unwrap(), new_token().unwrap());
        assert_ne!(a, b);
        assert_eq!(a.len(), 64);
        assert_ne!(sha256(a.as_bytes()), a);
    }

    #[test]
    fn a_launcher_keeps_mains_persistent_and_protocol_words() {
        let tree = |main: &str| {
            let file = crate::archive::File { bytes: main.as_bytes().to_vec(), executable: true };
            crate::archive::Tree { files: [("main".to_owned(), file)].into(), dirs: Default::default() }
        };
        // Any game of the arena's, and another.
        let (game, other) = (arena::games::NAMES[1], arena::games::NAMES[0]);
        let head = |main: &str| launcher_head(&tree(main), game);
        assert_eq!(head("#!/bin/sh\necho 9\n"), Ok(format!("#!/bin/sh\n# arena: {game}\n")));
        assert_eq!(
            head(&format!("#!/usr/bin/env python3\n# arena: {game} persistent protocol 1\n")),
            Ok(format!("#!/bin/sh\n# arena: {game} persistent protocol 1\n"))
        );
        assert!(
            head(&format!("#!/bin/sh\n# arena: {game} protocol one\n"))
                .unwrap_err()
                .contains("a protocol version is a number")
        );
        assert!(head(&format!("#!/bin/sh\n# arena: {other}\n")).unwrap_err().contains("plays"));
    }

    #[test]
    fn one_line_joins_and_caps() {
        assert_eq!(one_line("a\nb\t c"), "a b c");
        assert_eq!(one_line(&"x".repeat(600)).len(), 503);
    }
}
