//! The layout of the host's code (ARCHITECTURE.md, "Bird's eye view"): nothing outside
//! `host/src/games/` names a particular game, except the registry (`games/mod.rs`, which
//! is inside it). A game is named by its type (`Zombies`, `EggHunt`, ...) or by its
//! module's path (`games::zombies`, `games::{eggs, ...}`), in code or in comments.
//!
//! The games are not listed here: they are read from the registry's `with_game!` (each
//! game's module and type) and checked against the directories under `games/`, so a
//! new game is checked as soon as it is registered.

use std::path::{Path, PathBuf};

use crate::util::root;

/// A game as the registry names it: its module (its directory under `games/`) and its
/// type.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct GameName {
    module: String,
    ty: String,
}

/// The games of the registry: from each `type $g = $crate::games::<module>::<Type>;` of
/// `with_game!`, checked against the directories under `games/` and `arena::games::NAMES`.
fn registered_games() -> Vec<GameName> {
    let games_dir = root().join("host/src/games");
    let registry = std::fs::read_to_string(games_dir.join("mod.rs")).unwrap();
    let mut games: Vec<GameName> = registry
        .lines()
        .filter_map(|l| l.trim().strip_prefix("type $g = $crate::games::"))
        .map(|path| {
            let (module, ty) = path.trim_end_matches(';').split_once("::").unwrap_or_else(|| panic!("{path}"));
            GameName { module: module.to_owned(), ty: ty.to_owned() }
        })
        .collect();
    games.sort();
    assert!(!games.is_empty(), "no game found in the registry's with_game! (games/mod.rs)");
    assert_eq!(games.len(), arena::games::NAMES.len(), "with_game! and NAMES list different games: {games:?}");
    let mut dirs: Vec<String> = std::fs::read_dir(&games_dir)
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    dirs.sort();
    let modules: Vec<String> = games.iter().map(|g| g.module.clone()).collect();
    assert_eq!(modules, dirs, "every directory under host/src/games/ is a game of the registry, and only those");
    games
}

/// A token of Rust source, as far as this check needs: an identifier, or one of `::`,
/// `{`, `}`, with its line.
#[derive(Debug, PartialEq)]
enum Token<'a> {
    Ident(&'a str),
    Path,
    Open,
    Close,
    Other,
}

fn tokens(text: &str) -> Vec<(usize, Token<'_>)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let bytes = line.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if b.is_ascii_alphabetic() || b == b'_' {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                out.push((n + 1, Token::Ident(&line[start..i])));
                continue;
            }
            let token = match b {
                b':' if bytes.get(i + 1) == Some(&b':') => {
                    i += 1;
                    Token::Path
                }
                b'{' => Token::Open,
                b'}' => Token::Close,
                b' ' | b'\t' | b',' => {
                    i += 1;
                    continue;
                }
                _ => Token::Other,
            };
            out.push((n + 1, token));
            i += 1;
        }
    }
    out
}

/// Where `text` names one of `games`: (line, what), for its type as a whole word, its
/// module after `games::`, or its module in a `games::{...}` group.
fn names_of_games(text: &str, games: &[GameName]) -> Vec<(usize, String)> {
    let toks = tokens(text);
    let mut hits = Vec::new();
    let module = |name: &str| games.iter().find(|g| g.module == name);
    for (i, (line, t)) in toks.iter().enumerate() {
        let Token::Ident(word) = t else { continue };
        if let Some(g) = games.iter().find(|g| g.ty == *word) {
            hits.push((*line, format!("the type {} (game {})", g.ty, g.module)));
        }
        if *word != "games" || toks.get(i + 1).map(|t| &t.1) != Some(&Token::Path) {
            continue;
        }
        match toks.get(i + 2) {
            Some((l, Token::Ident(m))) if module(m).is_some() => hits.push((*l, format!("the module games::{m}"))),
            Some((_, Token::Open)) => {
                // A group: `games::{eggs, zombies::Zombies}`, over several lines maybe.
                let mut depth = 0;
                for (j, (l, t)) in toks.iter().enumerate().skip(i + 2) {
                    match t {
                        Token::Open => depth += 1,
                        Token::Close => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        Token::Ident(m) if depth == 1 && toks[j - 1].1 != Token::Path && module(m).is_some() => {
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
    let registry = std::fs::read_to_string(root().join("host/src/games/mod.rs")).unwrap();
    let found = names_of_games(&registry, &games);
    for g in &games {
        assert!(found.iter().any(|(_, what)| what.contains(&format!("the type {} ", g.ty))), "{g:?}: {found:?}");
        assert!(found.iter().any(|(_, what)| what == &format!("the module games::{}", g.module)), "{g:?}: {found:?}");
    }
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
fn nothing_outside_the_games_directory_names_a_game_but_the_registry() {
    let games = registered_games();
    let src = root().join("host/src");
    let outside: Vec<PathBuf> = rust_files(&src).into_iter().filter(|f| !f.starts_with(src.join("games"))).collect();
    // The binary's commands and the library's modules: far more than a handful.
    assert!(outside.len() > 20, "only {} files found under {}", outside.len(), src.display());
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
        "only host/src/games/ (and its registry, games/mod.rs) may name a game; move the code to its game, or \
         dispatch through the registry:\n{}",
        problems.join("\n")
    );
}
