//! Programs with files uploaded to `arena serve` as archives: a `.tar.gz` program whose
//! `main` reads a file beside it is checked in the sandbox, joins the running ladder and
//! plays without an error (so its box sees its files, and not the other submitted
//! bots' objects), a `.zip` one is accepted, and
//! every bad archive (a zip bomb, too much unpacked in all, a path through `..`, a
//! symbolic link, no entry point, a corrupt file, a `main` of another game) is refused
//! in one line naming the upload and the reason, leaving nothing stored.

use std::path::Path;

use serde_json::Value;

use crate::serve::{add_entrant, contest, contest_in, get_json, http, serve, wait_for};

/// A tar entry written raw (its path unchecked, as a hostile archive has it): path, type,
/// bytes, mode.
struct Entry<'a>(&'a str, tar::EntryType, &'a [u8], u32);

fn tgz(entries: &[Entry<'_>]) -> Vec<u8> {
    use std::io::Write as _;
    let mut builder = tar::Builder::new(Vec::new());
    for Entry(path, kind, bytes, mode) in entries {
        let mut h = tar::Header::new_gnu();
        h.as_old_mut().name[..path.len()].copy_from_slice(path.as_bytes());
        h.set_entry_type(*kind);
        h.set_mode(*mode);
        h.set_size(bytes.len() as u64);
        if *kind == tar::EntryType::Symlink {
            h.set_link_name("/etc/passwd").unwrap();
        }
        h.set_cksum();
        builder.append(&h, *bytes).unwrap();
    }
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&builder.into_inner().unwrap()).unwrap();
    gz.finish().unwrap()
}

/// A zip of (path, bytes, unix mode), deflated; a mode of 0o120777 makes a symbolic link.
fn zip(entries: &[(&str, &[u8], u32)]) -> Vec<u8> {
    use std::io::Write as _;
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (path, bytes, mode) in entries {
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .unix_permissions(mode & 0o777);
        if mode & 0o170_000 == 0o120_000 {
            w.add_symlink(*path, "/etc/passwd", options).unwrap();
        } else {
            w.start_file(*path, options).unwrap();
            w.write_all(bytes).unwrap();
        }
    }
    w.finish().unwrap().into_inner()
}

/// A zombies program bot in sh that answers what its file `lib/answer.txt` says: it
/// fails every call if it cannot read the file beside it.
const SH_MAIN: &[u8] = b"#!/bin/sh\n# arena: zombies\nread -r answer < lib/answer.txt || exit 1\n\
while read -r line; do echo \"$answer\"; done\n";

/// The same in Python.
const PY_MAIN: &[u8] = b"#!/usr/bin/python3\n# arena: zombies\nimport sys\n\
answer = open('lib/answer.txt').read().strip()\nfor line in sys.stdin:\n    print(answer, flush=True)\n";

fn submit(addr: std::net::SocketAddr, token: &str, name: &str, file: &str, bytes: &[u8]) -> (u16, Value) {
    let (status, body) = http(
        addr,
        &format!("POST /api/submit?name={name}&file={file} HTTP/1.1\r\nAuthorization: Bearer {token}"),
        bytes,
    );
    (status, serde_json::from_str(&body).unwrap_or_else(|_| panic!("{status}: {body}")))
}

fn hex(bytes: &[u8]) -> String {
    arena_server::submit::sha256(bytes)
}

#[test]
fn a_tar_gz_program_with_files_joins_the_ladder_and_plays_and_a_zip_one_is_accepted() {
    // Outside /tmp (which every box has empty) and readable by all, as a host's
    // directory usually is: only the box's covers hide the submitted bots there.
    let dir = contest_in(tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap());
    std::fs::set_permissions(dir.path(), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let token = add_entrant(dir.path(), "alice");
    let s = serve(dir.path(), &["--batch", "4"]);
    // It also dies if its box shows it the submitted bots' objects (this very archive
    // is among them by then).
    let objects = dir.path().join("contest.sqlite.bots/objects");
    let main = format!(
        "{}[ -z \"$(ls -A '{}' 2>/dev/null)\" ] || exit 3\n{}",
        std::str::from_utf8(&SH_MAIN[..SH_MAIN.iter().position(|&b| b == b'\n').unwrap() + 1]).unwrap(),
        objects.display(),
        std::str::from_utf8(&SH_MAIN[SH_MAIN.iter().position(|&b| b == b'\n').unwrap() + 1..]).unwrap(),
    );
    let archive = tgz(&[
        Entry("packed/", tar::EntryType::Directory, b"", 0o755),
        Entry("packed/main", tar::EntryType::Regular, main.as_bytes(), 0o755),
        Entry("packed/lib/answer.txt", tar::EntryType::Regular, b"STAY\n", 0o644),
    ]);
    let (status, accepted) = submit(s.addr, &token, "packed", "packed.tar.gz", &archive);
    assert_eq!(status, 200, "{accepted}");
    assert!(accepted["line"].as_str().unwrap().starts_with("ok: played 2 games"), "{accepted}");
    assert_eq!(accepted["kind"], "program");
    assert_eq!(accepted["sha256"], hex(&archive).as_str());
    // Laid out as the host's program with files: the launcher, and its files by the
    // archive's hash.
    let live = dir.path().join("contest.sqlite.bots/live/zombies");
    let launcher = std::fs::read_to_string(live.join("packed")).unwrap();
    assert!(launcher.starts_with("#!/bin/sh\n# arena: zombies\n") && launcher.contains(&hex(&archive)), "{launcher}");
    let link = std::fs::read_link(live.join("packed.files")).unwrap();
    assert_eq!(link, Path::new(".programs").join(hex(&archive)));
    assert_eq!(std::fs::read(live.join("packed.files/lib/answer.txt")).unwrap(), b"STAY\n");
    // It plays in the ladder without an error: its box shows it its files.
    let game = wait_for("packed's first game", || {
        let b = get_json(s.addr, "/api/games?entry=packed&limit=1");
        b["games"].as_array().and_then(|g| g.first()).cloned()
    });
    let seat = game["seats"].as_array().unwrap().iter().find(|st| st["entry"] == "packed").unwrap().clone();
    assert_eq!(seat["stats"]["errors"], 0, "{game}");
    assert!(seat["stats"]["calls"].as_u64() > Some(0), "{game}");
    let entry = get_json(s.addr, "/api/entry/packed");
    assert_eq!(entry["entry"]["kind"], "program", "{entry}");
    assert_eq!(entry["submissions"][0]["status"], "accepted");
    // A zip, in Python, with its top directory's files at its top.
    if !Path::new("/usr/bin/python3").is_file() {
        crate::util::skip("skipping the zip upload: /usr/bin/python3 is missing");
        return;
    }
    let archive = zip(&[("main", PY_MAIN, 0o100_755), ("lib/answer.txt", b"STAY\n", 0o100_644)]);
    let (status, accepted) = submit(s.addr, &token, "zipped", "zipped.zip", &archive);
    assert_eq!(status, 200, "{accepted}");
    assert!(accepted["line"].as_str().unwrap().starts_with("ok: played 2 games"), "{accepted}");
    assert_eq!(std::fs::read_link(live.join("zipped.files")).unwrap(), Path::new(".programs").join(hex(&archive)));
}

/// What is stored beside the database: every file's path.
fn stored(bots: &Path) -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = e.path();
            out.push(p.display().to_string());
            if p.is_dir() && !p.is_symlink() {
                walk(&p, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(bots, &mut out);
    out.sort();
    out
}

#[test]
fn bad_archives_are_refused_in_one_line_naming_the_upload_and_leave_nothing_stored() {
    let dir = contest();
    let token = add_entrant(dir.path(), "alice");
    let s = serve(dir.path(), &["--no-ladder", "--submission-rate", "600"]);
    let bots = dir.path().join("contest.sqlite.bots");
    let before = stored(&bots);
    let zeros = vec![0u8; 20 << 20];
    let twelve = vec![0u8; 12 << 20];
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "bomb.zip",
            zip(&[("main", SH_MAIN, 0o100_755), ("zeros", &zeros, 0o100_644)]),
            "\"zeros\": more than 16777216 bytes unpacked",
        ),
        (
            "big.tar.gz",
            tgz(&[
                Entry("main", tar::EntryType::Regular, SH_MAIN, 0o755),
                Entry("a", tar::EntryType::Regular, &twelve, 0o644),
                Entry("b", tar::EntryType::Regular, &twelve, 0o644),
                Entry("c", tar::EntryType::Regular, &twelve, 0o644),
            ]),
            "more than 33554432 bytes unpacked in all",
        ),
        (
            "out.tgz",
            tgz(&[
                Entry("main", tar::EntryType::Regular, SH_MAIN, 0o755),
                Entry("lib/../../../escaped", tar::EntryType::Regular, b"x", 0o644),
            ]),
            "\"lib/../../../escaped\": a path through `..`",
        ),
        ("out.zip", zip(&[("main", SH_MAIN, 0o100_755), ("/tmp/escaped", b"x", 0o100_644)]), "an absolute path"),
        (
            "link.tar.gz",
            tgz(&[
                Entry("main", tar::EntryType::Regular, SH_MAIN, 0o755),
                Entry("passwd", tar::EntryType::Symlink, b"", 0o777),
            ]),
            "\"passwd\": a symbolic link: only regular files and directories are accepted",
        ),
        ("link.zip", zip(&[("main", SH_MAIN, 0o100_755), ("passwd", b"", 0o120_777)]), "\"passwd\": a symbolic link"),
        (
            "nomain.tar.gz",
            tgz(&[Entry("bot.sh", tar::EntryType::Regular, SH_MAIN, 0o755)]),
            "no entry point: the archive's top directory must hold the program `main`",
        ),
        ("corrupt.zip", b"PK\x03\x04 this is not a zip at all".to_vec(), "not a readable zip archive: "),
        ("corrupt.tgz", vec![0x1f, 0x8b, 8, 0, 1, 2, 3, 4, 5, 6, 7], "not a readable tar.gz archive: "),
        (
            "eggs.tgz",
            tgz(&[Entry("main", tar::EntryType::Regular, b"#!/bin/sh\n# arena: eggs\necho 9\n", 0o755)]),
            "`main`'s `arena:` line plays \"eggs\": this contest plays zombies",
        ),
    ];
    for (file, bytes, reason) in &cases {
        assert!(bytes.len() < 1 << 20, "{file}: {} bytes, over the upload limit", bytes.len());
        let (status, answer) = submit(s.addr, &token, "packed", file, bytes);
        let line = answer["error"].as_str().unwrap_or_else(|| panic!("{file}: {answer}"));
        assert_eq!(status, 400, "{file}: {line}");
        assert!(line.starts_with(&format!("file: \"{file}\": ")), "{file}: {line}");
        assert!(line.contains(reason), "{file}: {line}");
        assert!(!line.contains('\n'), "{file}: {line}");
    }
    assert_eq!(stored(&bots), before, "a refused archive left files behind");
    assert!(!dir.path().join("escaped").exists() && !Path::new("/tmp/escaped").exists());
    let (status, body) = http(s.addr, "GET /api/entry/packed HTTP/1.1", b"");
    assert_eq!(status, 404, "a refused archive made an entry: {body}");
}
