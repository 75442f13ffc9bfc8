//! The entrant's kit: `arena new-bot NAME --lang LANG [--game GAME]` writes a complete,
//! commented starting bot into `./NAME/` that builds and plays as it is written.
//!
//! Each game holds its own starting bots (its `kit.rs`, from `games/templates/<game>/`;
//! the registry's `games::starter` finds them by name); this module holds what every
//! game's bot in a language shares, under `core/templates/common/<lang>/` (a README,
//! Rust's `Cargo.toml`, C's `Makefile`, the ABI's base header), and writes them all.
//! C bots get copies of the ABI headers (`plugin-abi/include/`), so their directory
//! builds alone. Placeholders `{{NAME}}`, `{{GAME}}`, `{{CRATE}}`, `{{LIB}}`,
//! `{{ABI_PATH}}` and `{{ARENA}}` are filled in when the files are written.
//!
//! A Rust bot is a cargo crate of its own (its own `[workspace]`), depending on the
//! arena's `plugin-abi` crate by absolute path, so it builds wherever it is put: the
//! ABI crate inherits nothing from the arena's workspace.
//!
//! Not here: any game's bots (this module names no game).

use std::path::{Path, PathBuf};

/// The languages `new-bot` writes.
pub const LANGS: [&str; 5] = ["rust", "c", "rhai", "lua", "python"];

/// Names a bot may not take in any game: crates Rust already has (a game's own reserved
/// names come with the request).
const RESERVED: [&str; 5] = ["test", "std", "core", "alloc", "proc_macro"];

/// One file of a starting bot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct File {
    /// Its path in the bot's directory; `NAME` is replaced by the bot's name.
    pub path: &'static str,
    /// Its text, with placeholders.
    pub text: &'static str,
    /// Whether it is made executable (program bots).
    pub executable: bool,
}

/// A file of a starting bot.
pub const fn file(path: &'static str, text: &'static str) -> File {
    File { path, text, executable: false }
}

/// An executable file of a starting bot (a program bot).
pub const fn program(path: &'static str, text: &'static str) -> File {
    File { path, text, executable: true }
}

/// A game's starting bot in every language: the text of each (with placeholders), and
/// the game's own ABI header, which its C bot includes beside [`BASE_HEADER`] (none for
/// the game whose types the base header holds). A game's `kit.rs` gives its texts; how
/// they are laid out in the bot's directory is the same for every game ([`Starters::files`]).
#[derive(Debug, Clone, Copy)]
pub struct Starters {
    /// The Rust bot's `src/lib.rs`.
    pub rust: &'static str,
    /// The C bot's `NAME.c`.
    pub c: &'static str,
    /// The game's ABI header beside the C bot, if it has one of its own.
    pub c_header: Option<File>,
    /// The Rhai bot's `NAME.rhai`.
    pub rhai: &'static str,
    /// The Lua bot's `NAME.lua`.
    pub lua: &'static str,
    /// The Python program's `NAME.py` (made executable).
    pub python: &'static str,
}

impl Starters {
    /// The starting bot's own files in `lang` (one of [`LANGS`]), or `None` for another
    /// language.
    pub fn files(&self, lang: &str) -> Option<Vec<File>> {
        Some(match lang {
            "rust" => vec![file("src/lib.rs", self.rust)],
            "c" => [file("NAME.c", self.c), BASE_HEADER].into_iter().chain(self.c_header).collect(),
            "rhai" => vec![file("NAME.rhai", self.rhai)],
            "lua" => vec![file("NAME.lua", self.lua)],
            "python" => vec![program("NAME.py", self.python)],
            _ => return None,
        })
    }
}

/// The ABI's base header, which every game's C bot includes.
pub const BASE_HEADER: File = file("zombies_bot.h", include_str!("../../plugin-abi/include/zombies_bot.h"));

macro_rules! template {
    ($path:literal) => {
        include_str!(concat!("../templates/common/", $path))
    };
}

/// What every bot in `lang` shares, whatever its game.
fn common(lang: &str) -> Option<Vec<File>> {
    let readme = |text| file("README.md", text);
    Some(match lang {
        "rust" => vec![
            file("Cargo.toml", template!("rust/Cargo.toml")),
            file(".gitignore", template!("rust/gitignore")),
            readme(template!("rust/README.md")),
        ],
        "c" => vec![file("Makefile", template!("c/Makefile")), readme(template!("c/README.md"))],
        "rhai" => vec![readme(template!("rhai/README.md"))],
        "lua" => vec![readme(template!("lua/README.md"))],
        "python" => vec![readme(template!("python/README.md"))],
        _ => return None,
    })
}

/// What to write: a bot named `name` of `game` in `lang`, into `parent/name/`.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    /// The bot's name: its directory, its file names and its entry's name.
    pub name: &'a str,
    /// One of [`LANGS`].
    pub lang: &'a str,
    /// The game's name (`Rules::NAME`).
    pub game: &'a str,
    /// The game's starting bot in `lang` (its `kit::starter`, through the registry's
    /// `games::starter`), or `None` if it has none.
    pub starter: Option<Vec<File>>,
    /// Names the game reserves (`Rules::reserved_names`), which a bot may not take.
    pub reserved: &'a [&'a str],
    /// The directory the bot's directory is made in.
    pub parent: &'a Path,
    /// (Rust) the arena's `plugin-abi` directory; `None`: this arena's
    /// ([`default_abi_path`]).
    pub abi_path: Option<&'a Path>,
}

/// What was written.
#[derive(Debug, Clone)]
pub struct Written {
    /// The bot's directory.
    pub dir: PathBuf,
    /// Its files, relative to `dir`.
    pub files: Vec<String>,
    /// How to build it (a command run in `dir`), if it needs building.
    pub build: Option<String>,
    /// The options that make the arena find it, relative to `parent`
    /// (`--plugins NAME/target/release`, `--scripts NAME`).
    pub find: String,
}

/// The arena's own root directory, as it was when this binary was built.
pub fn arena_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map_or_else(|| PathBuf::from("."), Path::to_owned)
}

/// This arena's `plugin-abi` directory (the ABI crate a Rust bot depends on).
pub fn default_abi_path() -> PathBuf {
    arena_root().join("plugin-abi")
}

/// Checks a bot's name: a letter, then letters, digits, `_` or `-` (at most 64), and
/// not one of the reserved names (Rust's crates, and `reserved`: the game's).
pub fn check_name(name: &str, reserved: &[&str]) -> Result<(), String> {
    let mut chars = name.chars();
    let good = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && name.len() <= 64;
    if !good {
        return Err(format!("{name:?} is not a bot name: use a letter, then letters, digits, '_' or '-' (at most 64)"));
    }
    if RESERVED.contains(&name) || reserved.contains(&name) {
        return Err(format!("{name:?} is reserved; choose another name"));
    }
    Ok(())
}

/// An absolute path without `.` and `..` parts (and without Windows' `\\?\`).
fn clean_path(path: &Path) -> Result<String, String> {
    let path = path.canonicalize().map_err(|e| format!("{}: {e}", path.display()))?;
    let text = path.to_str().ok_or_else(|| format!("{}: the path is not UTF-8", path.display()))?;
    Ok(text.strip_prefix(r"\\?\").unwrap_or(text).to_owned())
}

/// The ABI crate's directory, checked: it must hold the `zombies-plugin-abi` crate.
fn abi_dir(given: Option<&Path>) -> Result<String, String> {
    let dir = given.map_or_else(default_abi_path, Path::to_owned);
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap_or_default();
    if !manifest.lines().any(|l| l.replace(' ', "") == "name=\"zombies-plugin-abi\"") {
        return Err(match given {
            Some(_) => {
                format!("--abi-path {}: not the arena's plugin-abi directory (crate zombies-plugin-abi)", dir.display())
            }
            None => format!(
                "cannot find the arena's plugin-abi at {} (this arena was built elsewhere); give --abi-path DIR",
                dir.display()
            ),
        });
    }
    let text = clean_path(&dir)?;
    if text.contains('\'') || text.contains('\n') {
        return Err(format!("{text}: a path with a quote cannot go into Cargo.toml; give --abi-path DIR"));
    }
    Ok(text)
}

/// Writes the bot. Every refusal is one line: an unknown language or game, a bad name,
/// an existing directory, a missing ABI crate (Rust).
pub fn new_bot(req: &Request<'_>) -> Result<Written, String> {
    if !LANGS.contains(&req.lang) {
        return Err(format!("unknown language {:?}: new-bot writes {}", req.lang, LANGS.join(", ")));
    }
    let games = zombies_plugin_abi::GAMES;
    let (Some(starter), Some(common)) = (req.starter.clone(), common(req.lang)) else {
        if games.contains(&req.game) {
            return Err(format!("no starting bot for {} in {} yet", req.game, req.lang));
        }
        return Err(format!("no starting bot for the game {:?}: new-bot has {}", req.game, games.join(", ")));
    };
    let files: Vec<File> = starter.into_iter().chain(common).collect();
    check_name(req.name, req.reserved)?;
    let dir = req.parent.join(req.name);
    if dir.symlink_metadata().is_ok() {
        return Err(format!("{}: already exists; choose another name or remove it", dir.display()));
    }
    let abi = if req.lang == "rust" { abi_dir(req.abi_path)? } else { String::new() };
    let arena = clean_path(&arena_root()).unwrap_or_else(|_| "path/to/arena".to_owned());
    let lib = req.name.replace('-', "_");
    let fill = |text: &str| {
        text.replace("{{NAME}}", req.name)
            .replace("{{GAME}}", req.game)
            .replace("{{CRATE}}", req.name)
            .replace("{{LIB}}", &lib)
            .replace("{{ABI_PATH}}", &abi)
            .replace("{{ARENA}}", &arena)
    };

    std::fs::create_dir(&dir).map_err(|e| format!("{}: cannot create the directory: {e}", dir.display()))?;
    let mut written = Vec::new();
    for f in &files {
        let rel = f.path.replace("NAME", req.name);
        if let Err(e) = write_file(&dir.join(&rel), &fill(f.text), f.executable) {
            let _ = std::fs::remove_dir_all(&dir);
            return Err(format!("{}: cannot write: {e}", dir.join(&rel).display()));
        }
        written.push(rel);
    }
    let (build, find) = match req.lang {
        "rust" => (Some("cargo build --release".to_owned()), format!("--plugins {}/target/release", req.name)),
        "c" => (Some("make".to_owned()), format!("--plugins {}", req.name)),
        _ => (None, format!("--scripts {}", req.name)),
    };
    Ok(Written { dir, files: written, build, find })
}

fn write_file(path: &Path, text: &str, executable: bool) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(path, text)?;
    #[cfg(unix)]
    if executable {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))?;
    }
    #[cfg(not(unix))]
    let _ = executable;
    Ok(())
}
