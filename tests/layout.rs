//! The layout of the host's code (ARCHITECTURE.md, "Bird's eye view"): nothing outside
//! the games' crate (`games/src/`) names a particular game. A game is named by its type
//! (`Zombies`, `Eggs`, ...) or by its module's path (`games::zombies`,
//! `games::{eggs, ...}`), in code or in comments.
//!
//! The games are not listed here: they are read from the registry's `with_game!` (each
//! game's module and type, in `games/src/lib.rs`) and checked against the directories
//! under `games/src/`, so a new game is checked as soon as it is registered.
//!
//! And the modules inside each crate are layered (ARCHITECTURE.md, "Layers"): cargo
//! checks the layers between crates (a crate cannot name one above it), this file the
//! layers inside one: each module uses only modules of its own layer or of lower ones,
//! and those of one layer form no cycle; no game uses another. The layers are each
//! crate's [`Layout`] below; the check reads every path to another module in the code of
//! every file of the crate (comments and strings skipped, unit tests included) and names
//! the file, the line and the use that climbs.

use std::path::{Path, PathBuf};

use crate::util::root;

/// A game as the registry names it: its module (its directory under `games/`) and its
/// type.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct GameName {
    module: String,
    ty: String,
}

/// The games of the registry: from each `type $g = $crate::<module>::<Type>;` of
/// `with_game!`, checked against the directories under `games/src/` and
/// `arena::games::NAMES`.
fn registered_games() -> Vec<GameName> {
    let games_dir = root().join(GAMES.dir);
    let registry = std::fs::read_to_string(games_dir.join("lib.rs")).unwrap();
    let mut games: Vec<GameName> = registry
        .lines()
        .filter_map(|l| l.trim().strip_prefix("type $g = $crate::"))
        .map(|path| {
            let (module, ty) = path.trim_end_matches(';').split_once("::").unwrap_or_else(|| panic!("{path}"));
            GameName { module: module.to_owned(), ty: ty.to_owned() }
        })
        .collect();
    games.sort();
    assert!(!games.is_empty(), "no game found in the registry's with_game! (games/src/lib.rs)");
    assert_eq!(games.len(), arena::games::NAMES.len(), "with_game! and NAMES list different games: {games:?}");
    let mut dirs: Vec<String> = std::fs::read_dir(&games_dir)
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    dirs.sort();
    let modules: Vec<String> = games.iter().map(|g| g.module.clone()).collect();
    assert_eq!(modules, dirs, "every directory under games/src/ is a game of the registry, and only those");
    games
}

/// A token of Rust source, as far as these checks need: an identifier, or one of `::`,
/// `{`, `}`, `,`, with its line. The layer check reads the tokens of [`code_only`]'s
/// output; the game-name check reads every line.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Tok<'a> {
    Ident(&'a str),
    Path,
    Open,
    Close,
    Comma,
    Other,
}

fn code_tokens(code: &str) -> Vec<(usize, Tok<'_>)> {
    let mut out = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let bytes = line.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if b.is_ascii_alphabetic() || b == b'_' {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                out.push((n + 1, Tok::Ident(&line[start..i])));
                continue;
            }
            let tok = match b {
                b':' if bytes.get(i + 1) == Some(&b':') => {
                    i += 1;
                    Tok::Path
                }
                b'{' => Tok::Open,
                b'}' => Tok::Close,
                b',' => Tok::Comma,
                b' ' | b'\t' | b'\r' => {
                    i += 1;
                    continue;
                }
                _ => Tok::Other,
            };
            out.push((n + 1, tok));
            i += 1;
        }
    }
    out
}

/// Where `text` names one of `games`: (line, what), for its type as a whole word, its
/// module after `games::`, or its module in a `games::{...}` group.
fn names_of_games(text: &str, games: &[GameName]) -> Vec<(usize, String)> {
    let toks = code_tokens(text);
    let mut hits = Vec::new();
    let module = |name: &str| games.iter().find(|g| g.module == name);
    for (i, (line, t)) in toks.iter().enumerate() {
        let Tok::Ident(word) = t else { continue };
        if let Some(g) = games.iter().find(|g| g.ty == *word) {
            hits.push((*line, format!("the type {} (game {})", g.ty, g.module)));
        }
        if *word != "games" || toks.get(i + 1).map(|t| &t.1) != Some(&Tok::Path) {
            continue;
        }
        match toks.get(i + 2) {
            Some((l, Tok::Ident(m))) if module(m).is_some() => hits.push((*l, format!("the module games::{m}"))),
            Some((_, Tok::Open)) => {
                // A group: `games::{eggs, zombies::Zombies}`, over several lines maybe.
                let mut depth = 0;
                for (j, (l, t)) in toks.iter().enumerate().skip(i + 2) {
                    match t {
                        Tok::Open => depth += 1,
                        Tok::Close => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        Tok::Ident(m) if depth == 1 && toks[j - 1].1 != Tok::Path && module(m).is_some() => {
                            hits.push((*l, format!("the module games::{m} (in games::{{...}})")))
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    hits
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

#[test]
fn the_check_finds_a_game_named_by_its_type_its_module_or_in_a_group() {
    let games = registered_games();
    // The registry names every game, by type and by module path: the check sees them.
    let registry = std::fs::read_to_string(root().join(GAMES.dir).join("lib.rs")).unwrap();
    let found = names_of_games(&registry, &games);
    for g in &games {
        assert!(found.iter().any(|(_, what)| what.contains(&format!("the type {} ", g.ty))), "{g:?}: {found:?}");
    }
    // And by module path, as the crates above it write them.
    let facade = format!("use arena::games::{}::X;\n", games[0].module);
    assert_eq!(names_of_games(&facade, &games).len(), 1, "{facade}");
    let (a, b) = (&games[0], &games[1]);
    let group = format!("use crate::games::{{\n    {},\n    {}::X,\n}};\nfn f() {{}}\n", a.module, b.module);
    let found = names_of_games(&group, &games);
    assert_eq!(found.len(), 2, "{group}: {found:?}");
    assert_eq!(found[0].0, 2, "{found:?}");
    // A module of the same name elsewhere, the word in a sentence, or `games::turns`
    // (shared by all games) name no game.
    let innocent =
        format!("use zombies_plugin_abi::{}; // the {} game\nuse crate::games::turns;\n", a.module, a.module);
    assert_eq!(names_of_games(&innocent, &games), Vec::new());
}

#[test]
fn nothing_outside_the_games_crate_names_a_game() {
    let games = registered_games();
    let outside: Vec<PathBuf> = [SYSTEM, CORE, HOST].iter().flat_map(|l| rust_files(&root().join(l.dir))).collect();
    // The binary's commands and the lower crates' modules: far more than a handful.
    assert!(outside.len() > 20, "only {} files found outside the games' crate", outside.len());
    assert!(outside.iter().any(|f| f.ends_with("main.rs")) && outside.iter().any(|f| f.ends_with("bench.rs")));
    let mut problems = Vec::new();
    for file in &outside {
        let text = std::fs::read_to_string(file).unwrap();
        for (line, what) in names_of_games(&text, &games) {
            let file = file.strip_prefix(root()).unwrap_or(file).display().to_string();
            problems.push(format!("{file}:{line}: names {what}"));
        }
    }
    assert!(
        problems.is_empty(),
        "only the games' crate (games/src/, its registry in lib.rs) may name a game; move the code to its game, or \
         dispatch through the registry:\n{}",
        problems.join("\n")
    );
}

/// Where `text` names a game in a string: a literal that is a game's name (`"eggs" =>`)
/// or a path into its files (`"eggs/rust/..."`).
fn games_in_strings(text: &str) -> Vec<(usize, String)> {
    let names = arena::games::NAMES;
    code_and_strings(text)
        .1
        .into_iter()
        .filter(|(_, s)| names.iter().any(|g| s == g || s.starts_with(&format!("{g}/"))))
        .map(|(line, s)| (line, format!("the game {s:?} in a string")))
        .collect()
}

#[test]
fn the_string_check_finds_a_games_name_or_path_in_code_not_in_comments() {
    let [a, b, ..] = arena::games::NAMES;
    let text = format!(
        "// \"{a}\" in a comment\nmatch g {{\n    \"{a}\" => 1,\n    _ => f(r#\"{b}/rust/lib.rs\"#, '\"'),\n}}\nlet s = \"a {a} game\";\n"
    );
    let found = games_in_strings(&text);
    assert_eq!(found.iter().map(|(l, _)| *l).collect::<Vec<_>>(), [3, 4], "{text}\n{found:?}");
}

#[test]
fn no_code_outside_the_games_crate_names_a_game_in_a_string() {
    let mut problems = Vec::new();
    for dir in ["system/src", "core/src", "host/src", "ladder/src", "server/src"] {
        for file in rust_files(&root().join(dir)) {
            let text = std::fs::read_to_string(&file).unwrap();
            for (line, what) in games_in_strings(&text) {
                let file = file.strip_prefix(root()).unwrap_or(&file).display().to_string();
                problems.push(format!("{file}:{line}: names {what}"));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "only the games' crate (games/src/) may name a game, in strings too: ask the game (a `Game` constant), the \
         registry (`games::...` by name) or the plugin ABI's list:\n{}",
        problems.join("\n")
    );
}

// ----- layers ---------------------------------------------------------------------------

/// One crate's layers, lowest first (ARCHITECTURE.md, "Layers"): a module may use the
/// modules of its own layer and of lower ones, never those of a higher layer, and the
/// modules of one layer form no cycle. A module is a top-level module of the crate's
/// sources, except those of `split`, whose submodules are layered each on its own; `lib`
/// is the crate root and `cli` the binary (`main.rs` and `cli/` in `host/src`, which
/// reach the library as `arena::...`). Between crates, cargo checks the layers: a crate
/// cannot name a crate above it.
#[derive(Debug, Clone, Copy)]
struct Layout {
    /// The crate's sources, from the repository's root.
    dir: &'static str,
    layers: &'static [(&'static str, &'static [&'static str])],
    /// Modules whose submodules sit in layers of their own (`loaders::native`, ...); the
    /// module's own file (`loaders/mod.rs`) is the module itself (`loaders`).
    split: &'static [&'static str],
    /// The layer of every module `layers` does not name, whose modules use none of each
    /// other (the games' crate: each game is one, and no game uses another), if any.
    others: Option<&'static str>,
}

/// `arena-system`: what the host needs from the machine.
const SYSTEM: Layout = Layout {
    dir: "system/src",
    layers: &[("base", &["clock", "alloc_meter", "debug", "process", "decide"]), ("crate root", &["lib"])],
    split: &[],
    others: None,
};

/// `arena-core`: everything written once over every game.
const CORE: Layout = Layout {
    dir: "core/src",
    layers: &[
        ("contract", &["bot", "rules"]),
        (
            "loaders and replays",
            &["loaders::log", "loaders::scripts", "loaders::native", "loaders::program", "loaders", "replay"],
        ),
        ("the game", &["game"]),
        ("playing", &["limits", "play"]),
        ("isolation", &["isolate"]),
        ("tournaments", &["tournament"]),
        ("tools", &["plot", "bench", "kit"]),
        ("crate root", &["lib"]),
    ],
    split: &["loaders"],
    others: None,
};

/// `arena-games`: the games (every module but `turns` and the root), the turn-by-turn
/// JSON of every game's replays (`turns`), and the registry.
const GAMES: Layout = Layout {
    dir: "games/src",
    layers: &[("games", &[]), ("across the games", &["turns"]), ("crate root", &["lib"])],
    split: &[],
    others: Some("games"),
};

/// `arena`: the reports, the crate root that names the layers' crates, and the binary.
const HOST: Layout = Layout {
    dir: "host/src",
    layers: &[("reports", &["report"]), ("crate root", &["lib"]), ("binary", &["cli"])],
    split: &[],
    others: None,
};

/// The crates of the library, lowest first.
const CRATES: [Layout; 4] = [SYSTEM, CORE, GAMES, HOST];

/// The library as one crate, laid out as it was before its split: the layer check's
/// own tests read made-up files in it.
const WHOLE: Layout = Layout {
    dir: "host/src",
    layers: &[
        ("base", &["clock", "alloc_meter", "debug", "process", "decide"]),
        ("contract", &["bot", "rules"]),
        (
            "loaders and replays",
            &["loaders::log", "loaders::scripts", "loaders::native", "loaders::program", "loaders", "replay"],
        ),
        ("the game", &["game"]),
        ("playing", &["limits", "play"]),
        ("isolation", &["isolate"]),
        ("tournaments", &["tournament"]),
        ("tools", &["plot", "bench", "kit"]),
        ("games", &["games"]),
        ("reports", &["report"]),
        ("crate root", &["lib"]),
        ("binary", &["cli"]),
    ],
    split: &["loaders"],
    others: None,
};

/// One path from a file's code to another module of [`LAYERS`].
#[derive(Debug, Clone, PartialEq, Eq)]
struct Use {
    /// The file, relative to its crate's sources.
    file: String,
    line: usize,
    /// The module the file belongs to.
    from: String,
    /// The module the path names.
    to: String,
}

/// Where a raw string starts at `chars[i]` (`r"`, `r#"`, `br"`, ...): the index of its
/// opening quote and its number of hashes.
fn raw_string_at(chars: &[char], i: usize) -> Option<(usize, usize)> {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    if i > 0 && ident(chars[i - 1]) {
        return None;
    }
    let mut j = match (chars[i], chars.get(i + 1)) {
        ('r', _) => i + 1,
        ('b', Some('r')) => i + 2,
        _ => return None,
    };
    let hashes_from = j;
    while chars.get(j) == Some(&'#') {
        j += 1;
    }
    (chars.get(j) == Some(&'"')).then_some((j, j - hashes_from))
}

/// `text` with every comment, string and character literal blanked out (newlines kept,
/// so lines still count): only code is left to read paths from.
fn code_only(text: &str) -> String {
    code_and_strings(text).0
}

/// [`code_only`]'s text, and the string literals it blanked out, each with its line: what
/// is between the quotes, as written (escapes not decoded).
fn code_and_strings(text: &str) -> (String, Vec<(usize, String)>) {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut strings = Vec::new();
    let line = |out: &String| out.matches('\n').count() + 1;
    // Blanks `chars[from..to]` (clamped to the end).
    let blank = |out: &mut String, from: usize, to: usize| {
        for &c in &chars[from..to.min(chars.len())] {
            out.push(if c == '\n' { '\n' } else { ' ' });
        }
    };
    let mut i = 0;
    while i < chars.len() {
        let (c, next) = (chars[i], chars.get(i + 1).copied());
        let end = if c == '/' && next == Some('/') {
            chars[i..].iter().position(|&d| d == '\n').map_or(chars.len(), |at| i + at)
        } else if c == '/' && next == Some('*') {
            // Block comments nest.
            let (mut j, mut depth) = (i, 0);
            while j < chars.len() {
                match (chars[j], chars.get(j + 1)) {
                    ('/', Some('*')) => (depth, j) = (depth + 1, j + 2),
                    ('*', Some('/')) => (depth, j) = (depth - 1, j + 2),
                    _ => j += 1,
                }
                if depth == 0 {
                    break;
                }
            }
            j
        } else if let Some((quote, hashes)) = raw_string_at(&chars, i) {
            let close: Vec<char> = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
            let at = chars[quote + 1..]
                .windows(close.len())
                .position(|w| w == close)
                .map_or(chars.len(), |at| quote + 1 + at);
            strings.push((line(&out), chars[quote + 1..at].iter().collect()));
            (at + close.len()).min(chars.len())
        } else if c == '"' {
            let mut j = i + 1;
            while j < chars.len() && chars[j] != '"' {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            strings.push((line(&out), chars[i + 1..j.min(chars.len())].iter().collect()));
            j + 1
        } else if c == '\'' && next == Some('\\') {
            // An escaped character ('\n', '\'', '\u{..}').
            chars[i + 3..].iter().position(|&d| d == '\'').map_or(chars.len(), |at| i + 3 + at + 1)
        } else if c == '\'' && chars.get(i + 2) == Some(&'\'') {
            // A character ('x'), not a lifetime ('a).
            i + 3
        } else {
            out.push(c);
            i += 1;
            continue;
        };
        blank(&mut out, i, end);
        i = end;
    }
    (out, strings)
}

/// The paths of the use tree at `toks[at]` (a path, or a `{...}` group of them, nested
/// or not), each `prefix` followed by its segments; `self` in a group names the group's
/// prefix. Returns where the tree ends.
fn use_tree(toks: &[(usize, Tok<'_>)], at: usize, prefix: &[String], out: &mut Vec<(usize, Vec<String>)>) -> usize {
    match toks.get(at) {
        Some((_, Tok::Open)) => {
            let mut at = at + 1;
            while let Some((_, t)) = toks.get(at) {
                match t {
                    Tok::Close => return at + 1,
                    Tok::Comma => at += 1,
                    _ => at = use_tree(toks, at, prefix, out).max(at + 1),
                }
            }
            at
        }
        Some(&(line, Tok::Ident(first))) => {
            let mut path = prefix.to_vec();
            if first != "self" {
                path.push(first.to_owned());
            }
            let mut at = at + 1;
            while toks.get(at).map(|t| t.1) == Some(Tok::Path) {
                match toks.get(at + 1) {
                    Some((_, Tok::Ident(seg))) => {
                        path.push((*seg).to_owned());
                        at += 2;
                    }
                    Some((_, Tok::Open)) => return use_tree(toks, at + 1, &path, out),
                    _ => break,
                }
            }
            out.push((line, path));
            at
        }
        _ => at,
    }
}

/// The module path of a file (relative to its crate's sources): `loaders/scripts/mod.rs` is
/// `["loaders", "scripts"]`; `lib.rs` and `main.rs` are crate roots, `[]`.
fn module_path(file: &str) -> Vec<String> {
    let mut parts: Vec<String> = file.trim_end_matches(".rs").split('/').map(str::to_owned).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        parts.pop();
    }
    parts
}

/// True for the binary's files (`main.rs`, `cli/`).
fn is_binary(file: &str) -> bool {
    file == "main.rs" || file.starts_with("cli/")
}

/// The module of the layers a file belongs to.
fn file_module(layout: &Layout, file: &str) -> String {
    if is_binary(file) {
        return "cli".to_owned();
    }
    layer_module(layout, &module_path(file))
}

/// The module of the layers of a module path.
fn layer_module(layout: &Layout, path: &[String]) -> String {
    match path {
        [] => "lib".to_owned(),
        [first, second, ..] if layout.split.contains(&first.as_str()) => format!("{first}::{second}"),
        [first, ..] => first.clone(),
    }
}

/// What a crate holds, as far as the check needs: its modules, its exported macros
/// (named at the crate root, defined in a module), and the names its root brings in
/// from other crates (`pub use zombies_plugin_abi as abi`, `use arena_system::{clock,
/// process}`), whose paths lead out of the crate.
#[derive(Debug)]
struct Crate {
    layout: Layout,
    /// The module path of every library file (`["loaders", "native"]`, `["bot"]`).
    modules: Vec<Vec<String>>,
    /// `#[macro_export]` macros by name, with the module defining each.
    macros: Vec<(String, String)>,
    /// Names the crate root brings in from other crates.
    external: Vec<String>,
}

impl Crate {
    fn read(layout: &Layout, files: &[(String, String)]) -> Crate {
        let mut krate = Crate { layout: *layout, modules: Vec::new(), macros: Vec::new(), external: Vec::new() };
        for (file, text) in files.iter().filter(|(f, _)| !is_binary(f)) {
            krate.modules.push(module_path(file));
            let code = code_only(text);
            let toks = code_tokens(&code);
            for (i, (_, t)) in toks.iter().enumerate() {
                if *t == Tok::Ident("macro_export") {
                    let name = toks[i..].windows(3).find_map(|w| match w {
                        [(_, Tok::Ident("macro_rules")), (_, Tok::Other), (_, Tok::Ident(name))] => Some(*name),
                        _ => None,
                    });
                    krate.macros.extend(name.map(|n| (n.to_owned(), file_module(layout, file))));
                }
            }
            if file == "lib.rs" {
                krate.external.extend(code.lines().flat_map(imported_from_other_crates));
            }
        }
        krate
    }

    /// The module of the layers that the crate path `path` names (`None`: another
    /// crate), or what is wrong with it (no such module, macro or crate).
    fn target(&self, path: &[String]) -> Result<Option<String>, String> {
        let Some(first) = path.first() else { return Ok(Some("lib".to_owned())) };
        if let Some((_, module)) = self.macros.iter().find(|(m, _)| m == first) {
            return Ok(Some(module.clone()));
        }
        if self.external.contains(first) {
            return Ok(None);
        }
        if !self.modules.iter().any(|m| m.first() == Some(first)) {
            return Err(format!("crate::{first}, which is no module of {}", self.layout.dir));
        }
        // `loaders::Skipped` is `loaders` itself; `loaders::native::...` is its submodule.
        let sub = path.len() > 1 && self.modules.iter().any(|m| m[..] == path[..2]);
        Ok(Some(if sub { layer_module(&self.layout, &path[..2]) } else { first.clone() }))
    }
}

/// The names one line of a crate root's code brings in from another crate: `abi` of
/// `pub use zombies_plugin_abi as abi;`, `clock` and `process` of
/// `use arena_system::{clock, process};` (nothing for `use crate::...`).
fn imported_from_other_crates(line: &str) -> Vec<String> {
    let line = line.trim();
    let Some(path) = line.strip_prefix("pub use ").or_else(|| line.strip_prefix("use ")) else { return Vec::new() };
    let path = path.trim_end_matches(';');
    if path.starts_with("crate::") || path.starts_with("self::") || path.starts_with("super::") {
        return Vec::new();
    }
    if let Some((_, name)) = path.split_once(" as ") {
        return vec![name.trim().to_owned()];
    }
    match path.split_once('{') {
        Some((_, group)) => group.trim_end_matches('}').split(',').map(|n| n.trim().to_owned()).collect(),
        None => path.rsplit("::").next().map(|n| vec![n.trim().to_owned()]).unwrap_or_default(),
    }
}

/// Every path from one file's code to another module: `crate::...` (`use` groups, and
/// `$crate::...` in macros, included), `super::...` (from the file's module and the
/// inline modules around it: `#[cfg(test)] mod tests` is read like any code), a path
/// from a module to its own submodule (`native::load` in `loaders/mod.rs`), and in the
/// binary `arena::...`. Names brought in by a glob (`use super::*`) are not followed.
fn uses_of(krate: &Crate, file: &str, text: &str) -> (Vec<Use>, Vec<String>) {
    let code = code_only(text);
    let toks = code_tokens(&code);
    let layout = krate.layout;
    let (from, binary, here) = (file_module(&layout, file), is_binary(file), module_path(file));
    let (mut uses, mut problems) = (Vec::new(), Vec::new());
    // Inline modules (`mod tests { ... }`) open around the token: name, and the brace
    // depth inside.
    let mut inline: Vec<(&str, usize)> = Vec::new();
    let mut depth = 0;
    for (i, &(line, t)) in toks.iter().enumerate() {
        match t {
            Tok::Open => depth += 1,
            Tok::Close => {
                if inline.last().is_some_and(|&(_, d)| d == depth) {
                    inline.pop();
                }
                depth -= 1;
            }
            Tok::Ident("mod") => {
                if let (Some((_, Tok::Ident(name))), Some((_, Tok::Open))) = (toks.get(i + 1), toks.get(i + 2)) {
                    inline.push((name, depth + 1));
                }
            }
            _ => {}
        }
        let Tok::Ident(word) = t else { continue };
        let at_start = i == 0 || toks[i - 1].1 != Tok::Path;
        if !at_start || toks.get(i + 1).map(|t| t.1) != Some(Tok::Path) {
            continue;
        }
        let mut paths = Vec::new();
        if binary {
            if word == "arena" {
                use_tree(&toks, i + 2, &[], &mut paths);
            }
        } else if word == "crate" {
            use_tree(&toks, i + 2, &[], &mut paths);
        } else if word == "super" {
            let mut base = here.clone();
            base.extend(inline.iter().map(|(name, _)| (*name).to_owned()));
            let mut at = i;
            while toks.get(at).map(|t| t.1) == Some(Tok::Ident("super"))
                && toks.get(at + 1).map(|t| t.1) == Some(Tok::Path)
            {
                base.pop();
                at += 2;
            }
            if use_tree(&toks, at, &base, &mut paths) == at {
                // `use super::*`: the module itself.
                paths.push((line, base));
            }
        } else if inline.is_empty()
            && krate.modules.iter().any(|m| m.len() == here.len() + 1 && m.starts_with(&here) && m[here.len()] == word)
        {
            use_tree(&toks, i, &here, &mut paths);
        }
        for (line, path) in paths {
            match krate.target(&path) {
                // One use per module named on a line (`use crate::game::{Game, Outcome}` is one).
                Ok(Some(to)) if to != from && !uses.iter().any(|u: &Use| u.line == line && u.to == to) => {
                    uses.push(Use { file: file.to_owned(), line, from: from.clone(), to })
                }
                Ok(_) => {}
                Err(what) => problems.push(format!("{}/{file}:{line}: names {what}", layout.dir)),
            }
        }
    }
    (uses, problems)
}

/// The rank of a module's layer in `layout`.
fn rank(layout: &Layout, module: &str) -> Option<usize> {
    layout.layers.iter().position(|(_, modules)| modules.contains(&module)).or_else(|| {
        let others = layout.others?;
        layout.layers.iter().position(|(name, _)| *name == others)
    })
}

/// A cycle among `uses` (all inside one layer) through `m`, if the search from `m` meets
/// one: `stack` holds the path searched so far, `done` the modules searched through.
fn cycle_from<'a>(
    m: &'a str,
    uses: &[&'a Use],
    stack: &mut Vec<&'a Use>,
    done: &mut Vec<&'a str>,
) -> Option<Vec<&'a Use>> {
    for u in uses.iter().filter(|u| u.from == m) {
        if let Some(start) = stack.iter().position(|s| s.from == u.to) {
            return Some(stack[start..].iter().copied().chain(std::iter::once(*u)).collect());
        }
        if !done.contains(&u.to.as_str()) {
            stack.push(u);
            let found = cycle_from(&u.to, uses, stack, done);
            stack.pop();
            if found.is_some() {
                return found;
            }
        }
    }
    done.push(m);
    None
}

/// What breaks the layering among `uses` of `modules` in the crate `layout`: a module in
/// no layer, a use of a higher layer, a cycle inside one layer, a use between two
/// modules of its `others` layer; each names its files, lines and uses.
fn layering_problems(layout: &Layout, modules: &[String], uses: &[Use]) -> Vec<String> {
    let mut problems = Vec::new();
    let rank = |m: &str| rank(layout, m);
    for m in modules.iter().filter(|m| rank(m).is_none()) {
        problems.push(format!("the module {m} is in no layer: add it to {}'s Layout in tests/layout.rs", layout.dir));
    }
    let edge = |u: &Use| format!("{}/{}:{}: {} -> {}", layout.dir, u.file, u.line, u.from, u.to);
    let layers = layout.layers;
    for u in uses {
        if let (Some(from), Some(to)) = (rank(&u.from), rank(&u.to))
            && to > from
        {
            problems.push(format!(
                "{}: the layer \"{}\" uses the higher layer \"{}\"",
                edge(u),
                layers[from].0,
                layers[to].0
            ));
        }
        if let Some(others) = layout.others
            && [&u.from, &u.to].iter().all(|m| rank(m) == layers.iter().position(|(n, _)| *n == others))
        {
            problems.push(format!("{}: one of the \"{others}\" uses another", edge(u)));
        }
    }
    for (r, (layer, _)) in layers.iter().enumerate() {
        let inside: Vec<&Use> = uses.iter().filter(|u| rank(&u.from) == Some(r) && rank(&u.to) == Some(r)).collect();
        let mut done = Vec::new();
        for u in &inside {
            if done.contains(&u.from.as_str()) {
                continue;
            }
            if let Some(cycle) = cycle_from(&u.from, &inside, &mut Vec::new(), &mut done) {
                let cycle: Vec<String> = cycle.into_iter().map(edge).collect();
                problems.push(format!("a cycle inside the layer \"{layer}\":\n  {}", cycle.join("\n  ")));
                break;
            }
        }
    }
    problems
}

/// Every `.rs` file of the crate `layout`, relative to its sources, with its text.
fn sources(layout: &Layout) -> Vec<(String, String)> {
    let src = root().join(layout.dir);
    rust_files(&src)
        .into_iter()
        .map(|f| {
            let rel = f.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
            (rel, std::fs::read_to_string(&f).unwrap())
        })
        .collect()
}

/// The modules of `files`, every use between them, and the paths the check could not
/// place.
fn all_uses(layout: &Layout, files: &[(String, String)]) -> (Vec<String>, Vec<Use>, Vec<String>) {
    let krate = Crate::read(layout, files);
    let mut modules: Vec<String> = files.iter().map(|(f, _)| file_module(layout, f)).collect();
    modules.sort();
    modules.dedup();
    let (mut uses, mut problems) = (Vec::new(), Vec::new());
    for (file, text) in files {
        let (u, p) = uses_of(&krate, file, text);
        uses.extend(u);
        problems.extend(p);
    }
    (modules, uses, problems)
}

#[test]
fn the_layer_check_reads_paths_groups_and_super_but_not_comments_or_strings() {
    let file = |name: &str, text: &str| (name.to_owned(), text.to_owned());
    let files = vec![
        file("lib.rs", "pub mod bot;\npub mod loaders;\npub use zombies_plugin_abi as abi;\n"),
        file("loaders/mod.rs", "pub mod native;\nfn f() { native::load(); }\n"),
        file("loaders/native.rs", "use super::Skipped;\nuse super::super::bot::Bot;\n"),
        file("games/mod.rs", "#[macro_export]\nmacro_rules! with_game { () => {} }\n"),
        file("clock.rs", ""),
        file("tournament.rs", ""),
        file(
            "bot.rs",
            concat!(
                "// use crate::tournament;\n",
                "/* crate::games /* nested */ crate::games */\n",
                "const S: &str = \"crate::games\\\"\"; const R: &str = r#\"crate::\"games\"#;\n",
                "fn f<'a>(c: char) -> bool { c == '\"' || c == '{' || c == '\\'' }\n",
                "use crate::{clock::Stopwatch, loaders::{self, native::X}};\n",
                "use crate::abi::Random;\n",
                "fn g() { crate::with_game!(x); }\n",
                "#[cfg(test)]\nmod tests {\n    use super::*;\n    use crate::tournament::play_game;\n}\n",
            ),
        ),
        file("cli/play.rs", "use crate::outln;\nuse arena::bot::Bot;\n"),
    ];
    let (modules, uses, problems) = all_uses(&WHOLE, &files);
    assert_eq!(problems, Vec::<String>::new());
    let found: Vec<String> = uses.iter().map(|u| format!("{}:{}: {} -> {}", u.file, u.line, u.from, u.to)).collect();
    assert_eq!(
        found,
        [
            "loaders/mod.rs:2: loaders -> loaders::native",
            "loaders/native.rs:1: loaders::native -> loaders",
            "loaders/native.rs:2: loaders::native -> bot",
            "bot.rs:5: bot -> clock",
            "bot.rs:5: bot -> loaders",
            "bot.rs:5: bot -> loaders::native",
            "bot.rs:7: bot -> games",
            "bot.rs:11: bot -> tournament",
            "cli/play.rs:2: cli -> bot",
        ]
    );
    // The bots sit below the loaders, the games and the tournaments: four uses climb,
    // and `loaders` and `loaders::native` use each other.
    let found = layering_problems(&WHOLE, &modules, &uses);
    assert_eq!(found.len(), 5, "{found:#?}");
    assert_eq!(
        found[0],
        "host/src/bot.rs:5: bot -> loaders: the layer \"contract\" uses the higher layer \"loaders and replays\""
    );
    assert!(found[3].starts_with("host/src/bot.rs:11: bot -> tournament: "), "{found:#?}");
    assert_eq!(
        found[4],
        "a cycle inside the layer \"loaders and replays\":\n  host/src/loaders/mod.rs:2: loaders -> loaders::native\n  \
         host/src/loaders/native.rs:1: loaders::native -> loaders"
    );
    // A name that is no module is reported, not passed over.
    let (_, _, problems) = all_uses(&WHOLE, &[file("bot.rs", "use crate::nowhere::X;\n")]);
    assert_eq!(problems, ["host/src/bot.rs:1: names crate::nowhere, which is no module of host/src"]);
}

#[test]
fn the_layer_check_fails_on_a_use_of_a_higher_layer_in_the_library() {
    // The core as it is, with one line added to bot.rs.
    let mut files = sources(&CORE);
    let bot = files.iter_mut().find(|(f, _)| f == "bot.rs").expect("core/src/bot.rs");
    bot.1.push_str("\nuse crate::tournament;\n");
    let line = bot.1.lines().count();
    let (modules, uses, _) = all_uses(&CORE, &files);
    let found = layering_problems(&CORE, &modules, &uses);
    assert!(found.iter().any(|p| p.starts_with(&format!("core/src/bot.rs:{line}: bot -> tournament: "))), "{found:#?}");
    // The games as they are, with one game using another.
    let mut files = sources(&GAMES);
    let games = registered_games();
    let (a, b) = (&games[0], &games[1]);
    let file = files.iter_mut().find(|(f, _)| f == &format!("{}/mod.rs", a.module)).expect("a game's mod.rs");
    file.1.push_str(&format!("\nuse crate::{}::{};\n", b.module, b.ty));
    let line = file.1.lines().count();
    let (modules, uses, _) = all_uses(&GAMES, &files);
    let found = layering_problems(&GAMES, &modules, &uses);
    let expected = format!(
        "games/src/{}/mod.rs:{}: {} -> {}: one of the \"games\" uses another",
        a.module, line, a.module, b.module
    );
    assert!(found.contains(&expected), "{expected}\n{found:#?}");
}

#[test]
fn no_module_of_the_library_uses_a_module_of_a_higher_layer() {
    let mut problems = Vec::new();
    for layout in &CRATES {
        let (modules, uses, found) = all_uses(layout, &sources(layout));
        // Every layer's modules exist, and the scan sees the crate's uses.
        for m in layout.layers.iter().flat_map(|(_, layer)| layer.iter()) {
            assert!(
                modules.iter().any(|f| f == m),
                "{} names {m} in its layers, which is no module: {modules:?}",
                layout.dir
            );
        }
        assert!(!uses.is_empty(), "no use found under {}", layout.dir);
        if layout.dir == CORE.dir {
            assert!(uses.len() > 100, "only {} uses found under {}", uses.len(), layout.dir);
            assert!(uses.iter().any(|u| u.from == "tournament" && u.to == "isolate"), "{uses:#?}");
        }
        problems.extend(found);
        problems.extend(layering_problems(layout, &modules, &uses));
    }
    assert!(
        problems.is_empty(),
        "a module may use only modules of its own layer or of lower ones (ARCHITECTURE.md, \"Layers\"; the layers \
         are each crate's Layout in tests/layout.rs):\n{}",
        problems.join("\n")
    );
}
