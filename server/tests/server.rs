//! The contest server over HTTP, on a real socket: pages and their JSON twins, the live
//! events, submissions (with a stand-in for the sandboxed check, which the command
//! line's tests run for real), and every kind of bad request the issue lists: path
//! traversal, huge and malformed uploads, bad tokens, a flood, HTML in names and logs.
//! After each bad request the server still answers.

use std::io::{Read as _, Write as _};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use arena::games::zombies::Zombies;
use arena_ladder::store::{Found, GameRow, Store};
use arena_server::{Checked, Checker, Config, Rates};
use serde_json::Value;

/// Accepts a file holding `good`, names it after its file; refuses anything else with
/// a line holding markup (which the pages must escape).
#[derive(Debug)]
struct Stand;

impl Checker for Stand {
    fn check(&self, _game: &str, file: &Path) -> Result<Checked, String> {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let name = file.file_stem().unwrap().to_string_lossy().into_owned();
        if text.contains("good") {
            Ok(Checked { name, kind: "lua".to_owned(), line: "ok: checked".to_owned() })
        } else {
            Err("broken: <b>no turn function</b>".to_owned())
        }
    }
}

/// A server on a free port over a database of `entries` (names) with `games` games, its
/// directory, and the flag that stops it.
struct Server {
    addr: SocketAddr,
    dir: tempfile::TempDir,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn db(dir: &Path) -> PathBuf {
    dir.join("contest.sqlite")
}

/// Stores `names` as entries and `games` free-for-all games among them (the first
/// always wins), rated.
fn fill(store: &Store, names: &[&str], games: i64, stats: &str) {
    let found: Vec<Found> = names
        .iter()
        .enumerate()
        .map(|(i, n)| Found {
            name: (*n).to_owned(),
            kind: "lua".to_owned(),
            path: PathBuf::from(format!("/bots/{i}.lua")),
            sha256: format!("{i:064x}"),
            size: 10,
        })
        .collect();
    let synced = store.sync("zombies", &found, &[]).unwrap();
    let first = store.next_game_id().unwrap();
    for id in first..first + games {
        let n = synced.versions.len();
        commit(store, id, &synced.versions, (0..n).map(|s| ((n - s) as u32 * 10, stats.to_owned())).collect());
    }
    arena_ladder::run::rerate::<Zombies>(store).unwrap();
}

fn commit(store: &Store, id: i64, lineup: &[i64], seats: Vec<(u32, String)>) {
    store
        .commit_game(&GameRow {
            id,
            game: "zombies".to_owned(),
            seed: id as u64,
            ladder_seed: 0,
            rules_version: 1,
            options: "{}".to_owned(),
            pairing: None,
            lineup: lineup.to_vec(),
            result: Ok((50, seats)),
            replay: None,
        })
        .unwrap();
}

const STATS: &str = r#"{"calls":50,"errors":0,"overruns":0,"disqualified":0,"messages":[]}"#;

fn start_with(prepare: impl FnOnce(&Store, &Path), tune: impl FnOnce(&mut Config)) -> Server {
    let dir = tempfile::tempdir().unwrap();
    {
        let store = Store::open(&db(dir.path()), true).unwrap();
        prepare(&store, dir.path());
    }
    let mut config = Config::new(&db(dir.path()), "zombies");
    config.listen = "127.0.0.1:0".parse().unwrap();
    config.max_upload = 4096;
    config.rates = Rates { per_second: 1000.0, burst: 1000, submissions_per_minute: 600.0, submission_burst: 1000 };
    config.logs = Some(dir.path().join("logs"));
    tune(&mut config);
    let app = arena_server::app(config, Arc::new(Stand)).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let (send, receive) = std::sync::mpsc::channel();
    let s = Arc::clone(&stop);
    let thread = std::thread::spawn(move || {
        arena_server::serve_until(app, move |a| send.send(a).unwrap(), s).unwrap();
    });
    let addr = receive.recv_timeout(Duration::from_secs(30)).expect("the server did not start");
    Server { addr, dir, stop, thread: Some(thread) }
}

fn start(names: &[&str], games: i64) -> Server {
    start_with(|store, _| fill(store, names, games, STATS), |_| {})
}

/// An answer: status, headers (lower-case names) and body.
#[derive(Debug)]
struct Answer {
    status: u16,
    headers: String,
    body: String,
}

/// Sends `head` (request line and headers, without the blank line) and `body`; reads the
/// whole answer.
fn raw(addr: SocketAddr, head: &str, body: &[u8]) -> Answer {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let mut req = format!("{head}\r\nHost: {addr}\r\nConnection: close\r\n");
    if !body.is_empty() {
        req.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    req.push_str("\r\n");
    let _ = s.write_all(req.as_bytes());
    let _ = s.write_all(body);
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out).into_owned();
    let (headers, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = headers.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let body = if headers.to_ascii_lowercase().contains("transfer-encoding: chunked") {
        dechunk(body)
    } else {
        body.to_owned()
    };
    Answer { status, headers: headers.to_ascii_lowercase(), body }
}

fn dechunk(body: &str) -> String {
    let mut out = String::new();
    let mut rest = body;
    while let Some((size, after)) = rest.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else { break };
        if n == 0 || after.len() < n {
            break;
        }
        out.push_str(&after[..n]);
        rest = after[n..].trim_start_matches("\r\n");
    }
    out
}

fn get(addr: SocketAddr, path: &str) -> Answer {
    raw(addr, &format!("GET {path} HTTP/1.1"), b"")
}

fn json(addr: SocketAddr, path: &str) -> Value {
    let a = get(addr, path);
    assert_eq!(a.status, 200, "{path}: {a:?}");
    serde_json::from_str(&a.body).unwrap_or_else(|e| panic!("{path}: {e}: {}", a.body))
}

/// A multipart body of `fields` (name, file name or none, bytes).
fn multipart(fields: &[(&str, Option<&str>, &[u8])]) -> (String, Vec<u8>) {
    let boundary = "XarenaBoundaryX";
    let mut body = Vec::new();
    for (name, file, bytes) in fields {
        body.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
        match file {
            Some(f) => body.extend_from_slice(
                format!(
                    "Content-Disposition: form-data; name=\"{name}\"; filename=\"{f}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
                )
                .as_bytes(),
            ),
            None => body.extend_from_slice(format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n").as_bytes()),
        }
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

fn upload(addr: SocketAddr, path: &str, token: &str, name: &str, file: &str, bytes: &[u8]) -> Answer {
    let (kind, body) =
        multipart(&[("token", None, token.as_bytes()), ("name", None, name.as_bytes()), ("file", Some(file), bytes)]);
    raw(addr, &format!("POST {path} HTTP/1.1\r\nContent-Type: {kind}"), &body)
}

fn token(server: &Server, name: &str, admin: bool) -> String {
    let store = Store::open(&db(server.dir.path()), false).unwrap();
    arena_server::submit::add_entrant(&store, name, admin).unwrap()
}

fn alive(addr: SocketAddr) {
    assert_eq!(get(addr, "/api/leaderboard").status, 200, "the server stopped answering");
}

#[test]
fn every_page_and_its_json_twin_show_the_same_numbers() {
    let s = start(&["alpha", "beta", "gamma"], 12);
    let board = json(s.addr, "/api/leaderboard");
    assert_eq!(board["game"], "zombies");
    assert_eq!(board["last_game"], 12);
    let rows = board["leaderboard"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[0]["entry"], "alpha", "the entry that always wins leads: {board}");
    let page = get(s.addr, "/").body;
    for r in rows {
        let row = format!(
            "<td>{}</td><td><a href=\"/entry/{}\">{}</a></td><td class=\"hash\">{}</td><td>{}</td><td>{}</td>",
            r["rank"],
            r["entry"].as_str().unwrap(),
            r["entry"].as_str().unwrap(),
            &r["sha256"].as_str().unwrap()[..8],
            r["games"],
            round2(r["mu"].as_f64().unwrap()),
        );
        assert!(page.contains(&row), "{row} not in the page:\n{page}");
    }
    let entry = json(s.addr, "/api/entry/alpha");
    assert_eq!(entry["entry"]["versions"][0]["games"], 12);
    let against = entry["against"].as_array().unwrap();
    assert_eq!(against.len(), 2, "{entry}");
    assert!(against.iter().all(|a| a["games"] == 12 && a["wins"] == 12 && a["losses"] == 0), "{entry}");
    let points = entry["history"][0]["points"].as_array().unwrap();
    assert_eq!(points.len(), 12, "a point after each of its 12 games");
    let last = points.last().unwrap();
    assert!(
        (last["mu"].as_f64().unwrap() - rows[0]["mu"].as_f64().unwrap()).abs() < 1e-9,
        "the plot ends at the rating"
    );
    let entry_page = get(s.addr, "/entry/alpha").body;
    assert!(
        entry_page.contains("<svg class=\"plot\"") && entry_page.contains("<td>12</td><td>12</td><td>0</td><td>0</td>")
    );
    let stats = json(s.addr, "/api/stats");
    assert_eq!(stats["totals"]["played"], 12);
    assert_eq!(stats["totals"]["with_disqualification"], 0);
    assert!(get(s.addr, "/stats").body.contains("<td id=\"played\">12</td>"));
    let game = json(s.addr, "/api/game/3");
    assert_eq!(game["seats"][0]["score"], 30);
    assert!(get(s.addr, "/game/3").body.contains("No replay stored"));
    let games = json(s.addr, "/api/games?entry=beta&limit=5");
    assert_eq!(games["games"].as_array().unwrap().len(), 5);
    assert_eq!(get(s.addr, "/api/game/99").status, 404);
    assert_eq!(get(s.addr, "/api/entry/nobody").status, 404);
}

/// minijinja's `round(2)` as text.
fn round2(x: f64) -> String {
    let r = (x * 100.0).round() / 100.0;
    let t = format!("{r}");
    if t.contains('.') { t } else { format!("{t}.0") }
}

#[test]
fn the_events_say_each_new_game_as_it_is_stored() {
    let s = start(&["alpha", "beta"], 3);
    let mut stream = std::net::TcpStream::connect(s.addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(stream, "GET /api/events HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    let mut seen = String::new();
    let mut read_until = |want: &str, seen: &mut String| {
        let mut buf = [0u8; 1024];
        while !seen.contains(want) {
            let n = stream.read(&mut buf).unwrap();
            assert!(n > 0, "the stream ended: {seen}");
            seen.push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    };
    read_until("data: 3", &mut seen);
    assert!(seen.contains("text/event-stream") && seen.contains("event: game"), "{seen}");
    let store = Store::open(&db(s.dir.path()), false).unwrap();
    let versions: Vec<i64> = store.leaderboard("zombies", false).unwrap().iter().map(|r| r.version).collect::<Vec<_>>();
    commit(&store, 4, &versions, vec![(1, STATS.to_owned()), (2, STATS.to_owned())]);
    read_until("data: 4", &mut seen);
}

#[test]
fn names_messages_and_logs_with_html_are_shown_as_text() {
    let evil = "<img src=x onerror=alert(1)>";
    let stats = r#"{"calls":50,"errors":2,"overruns":0,"disqualified":1,"messages":["<script>alert(2)</script>"]}"#;
    let s = start_with(
        |store, dir| {
            fill(store, &[evil, "plain"], 2, stats);
            std::fs::create_dir_all(dir.join("logs")).unwrap();
            std::fs::write(dir.join("logs/plain.log"), "turn 1: <script>alert(3)</script>\n").unwrap();
        },
        |_| {},
    );
    for path in [
        "/",
        "/stats",
        "/games",
        "/game/1",
        "/entry/plain",
        &format!("/entry/{}", "%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E"),
    ] {
        let a = get(s.addr, path);
        assert_eq!(a.status, 200, "{path}: {a:?}");
        for bad in ["<img src=x", "<script>alert", "<b>"] {
            assert!(!a.body.contains(bad), "{path} holds {bad:?} as markup:\n{}", a.body);
        }
        assert!(a.headers.contains("content-security-policy: default-src 'self'"), "{path}: {}", a.headers);
    }
    let entry = get(s.addr, "/entry/plain").body;
    assert!(entry.contains("&lt;script&gt;alert(3)"), "the log line is shown escaped: {entry}");
    assert!(entry.contains("&lt;script&gt;alert(2)"), "the message is shown escaped");
    assert!(get(s.addr, "/").body.contains("&lt;img src=x onerror=alert(1)&gt;"));
    assert_eq!(json(s.addr, "/api/stats")["totals"]["with_disqualification"], 2, "both games had a disqualification");
}

#[test]
fn no_path_reaches_a_file_outside_the_embedded_ones() {
    let s = start(&["alpha", "beta"], 1);
    std::fs::write(s.dir.path().join("secret.txt"), "TOPSECRET").unwrap();
    for path in [
        "/static/..%2f..%2fCargo.toml",
        "/static/%2e%2e%2fsrc%2flib.rs",
        "/static/../../Cargo.toml",
        "/../../../../etc/passwd",
        "/static/..%5c..%5cCargo.toml",
        "/entry/..%2f..%2f..%2fetc%2fpasswd",
        "/entry/..%2fsecret",
        "/game/1%2f..%2f..%2fsecret.txt",
        "/game/..%2fsecret.txt/viewer",
        "/contest.sqlite",
        "/contest.sqlite.bots/objects",
        "/static/%00",
    ] {
        let a = get(s.addr, path);
        assert!(matches!(a.status, 400 | 404), "{path}: {a:?}");
        for leak in ["root:", "[package]", "TOPSECRET", "SQLite format"] {
            assert!(!a.body.contains(leak), "{path} leaked {leak}");
        }
    }
    // A file name with a path is only read for its extension; the name must be a word.
    let t = token(&s, "alice", false);
    let a = upload(s.addr, "/api/submit", &t, "../../evil", "x.lua", b"good");
    assert_eq!(a.status, 400, "{a:?}");
    assert!(a.body.contains("name: does not start with a letter"), "{}", a.body);
    let a = upload(s.addr, "/api/submit", &t, "a..b", "x.lua", b"good");
    assert!(a.status == 400 && a.body.contains("name: has '.'"), "{a:?}");
    let a = upload(s.addr, "/api/submit", &t, "fine", "../../../../tmp/evil.lua", b"-- good");
    assert_eq!(a.status, 200, "{a:?}");
    assert!(s.dir.path().join("contest.sqlite.bots/live/zombies/fine.lua").is_file());
    assert!(!Path::new("/tmp/evil.lua").exists() || std::fs::read_to_string("/tmp/evil.lua").unwrap() != "-- good");
    alive(s.addr);
}

#[test]
fn bad_tokens_and_other_entrants_entries_are_refused_in_one_line() {
    let s = start(&["bundled", "other"], 1);
    let alice = token(&s, "alice", false);
    let bob = token(&s, "bob", false);
    let cases: [(&str, &str, u16, &str); 4] = [
        ("", "mine", 401, "token: missing"),
        ("not-a-token", "mine", 401, "token: unknown"),
        (&"x".repeat(5000), "mine", 400, "form field token: longer than 256 bytes"),
        (&alice, "bundled", 403, "bot of the ladder's own directories"),
    ];
    for (tok, name, status, says) in cases {
        let a = upload(s.addr, "/api/submit", tok, name, "b.lua", b"good");
        assert_eq!(a.status, status, "{name}: {a:?}");
        let v: Value = serde_json::from_str(&a.body).unwrap();
        let line = v["error"].as_str().unwrap();
        assert!(line.contains(says) && !line.contains('\n'), "{line}");
    }
    assert_eq!(upload(s.addr, "/api/submit", &alice, "mine", "b.lua", b"good").status, 200);
    let a = upload(s.addr, "/api/submit", &bob, "mine", "b.lua", b"good v2");
    assert_eq!(a.status, 403, "bob replaced alice's bot: {a:?}");
    assert!(a.body.contains("belongs to another entrant"));
    // Retiring: not bob; alice, or the host.
    let retire = |tok: &str, name: &str| {
        raw(
            s.addr,
            "POST /api/retire HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded",
            format!("token={tok}&name={name}").as_bytes(),
        )
    };
    assert_eq!(retire(&bob, "mine").status, 403);
    assert!(s.dir.path().join("contest.sqlite.bots/live/zombies/mine.lua").is_file());
    let host = token(&s, "host", true);
    assert_eq!(retire(&host, "bundled").status, 409, "a directory's bot is not the server's to remove");
    let a = retire(&host, "mine");
    assert_eq!(a.status, 200, "{a:?}");
    assert!(!s.dir.path().join("contest.sqlite.bots/live/zombies/mine.lua").exists());
    let subs = Store::open(&db(s.dir.path()), false).unwrap().submissions("zombies", Some("mine"), 10).unwrap();
    assert_eq!(subs[0].status, "retired");
    assert_eq!(subs[0].message, "retired by host");
    alive(s.addr);
}

#[test]
fn a_submission_is_checked_stored_by_hash_and_joins_or_is_refused_with_its_line() {
    let s = start(&["bundled", "other"], 1);
    let t = token(&s, "alice", false);
    let bots = s.dir.path().join("contest.sqlite.bots");
    // Refused by the check: its line is kept and shown, nothing joins.
    let a = upload(s.addr, "/submit", &t, "mybot", "mybot.lua", b"-- broken");
    assert_eq!(a.status, 422);
    assert!(a.body.contains("refused: broken: &lt;b&gt;no turn function"), "{}", a.body);
    assert!(!bots.join("live/zombies/mybot.lua").exists());
    // Accepted: stored by its hash, and in the ladder's directory.
    let a = upload(s.addr, "/submit", &t, "mybot", "mybot.lua", b"-- good 1");
    assert_eq!(a.status, 200, "{a:?}");
    assert!(a.body.contains("mybot accepted: ok: checked"), "{}", a.body);
    let hash = arena_server::submit::sha256(b"-- good 1");
    assert_eq!(std::fs::read(bots.join("objects").join(&hash)).unwrap(), b"-- good 1");
    assert_eq!(std::fs::read(bots.join("live/zombies/mybot.lua")).unwrap(), b"-- good 1");
    // A raw body with the token in the header: a new version of the same entry.
    let a = raw(
        s.addr,
        &format!("POST /api/submit?name=mybot&file=mybot.lua HTTP/1.1\r\nAuthorization: Bearer {t}"),
        b"-- good 2",
    );
    assert_eq!(a.status, 200, "{a:?}");
    assert_eq!(std::fs::read(bots.join("live/zombies/mybot.lua")).unwrap(), b"-- good 2");
    let store = Store::open(&db(s.dir.path()), false).unwrap();
    let subs = store.submissions("zombies", Some("mybot"), 10).unwrap();
    let states: Vec<&str> = subs.iter().map(|s| s.status.as_str()).collect();
    assert_eq!(states, ["accepted", "replaced", "rejected"]);
    assert_eq!(subs[2].message, "broken: <b>no turn function</b>");
    assert!(std::fs::read_dir(bots.join("pending")).unwrap().next().is_none(), "the checked copies are gone");
    // The submissions page lists them, escaped.
    let page = get(s.addr, "/submit").body;
    assert!(page.contains("&lt;b&gt;no turn function") && !page.contains("<b>no turn"), "{page}");
}

#[test]
fn huge_empty_and_malformed_uploads_are_refused_and_the_server_goes_on() {
    let s = start(&["alpha", "beta"], 1);
    let t = token(&s, "alice", false);
    let big = vec![b'x'; 200 << 10];
    let a = upload(s.addr, "/api/submit", &t, "big", "big.lua", &big);
    assert_eq!(a.status, 413, "{a:?}");
    let a = upload(s.addr, "/api/submit", &t, "big", "big.lua", &vec![b'-'; 5000]);
    assert_eq!(a.status, 413, "over max_upload, under the body limit: {a:?}");
    assert!(a.body.contains("file: 5000 bytes, more than 4096"), "{}", a.body);
    let a = upload(s.addr, "/api/submit", &t, "empty", "e.lua", b"");
    assert_eq!((a.status, a.body.contains("file: empty")), (400, true), "{a:?}");
    let a = upload(s.addr, "/api/submit", &t, "txt", "notes.txt", b"hello");
    assert_eq!((a.status, a.body.contains("not a bot file")), (400, true), "{a:?}");
    let a = raw(
        s.addr,
        "POST /api/submit HTTP/1.1\r\nContent-Type: multipart/form-data; boundary=zzz",
        b"--zzz\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.lua\"\r\n\r\nno end",
    );
    assert_eq!(a.status, 400, "{a:?}");
    assert!(a.body.contains("form"), "{}", a.body);
    let a = raw(s.addr, "POST /api/submit HTTP/1.1\r\nContent-Type: multipart/form-data", b"junk");
    assert_eq!(a.status, 400, "{a:?}");
    let a = raw(s.addr, "POST /api/retire HTTP/1.1\r\nContent-Type: application/json", b"{\"name\": 5");
    assert_eq!(a.status, 400, "{a:?}");
    let a = raw(s.addr, "GARBAGE / HTTP/9.9\r\nX: \x01", b"");
    assert!(a.status == 400 || a.status == 0, "{a:?}");
    let a = raw(s.addr, &format!("GET /{} HTTP/1.1", "a".repeat(100_000)), b"");
    assert!(a.status == 414 || a.status == 431 || a.status == 400 || a.status == 404 || a.status == 0, "{a:?}");
    alive(s.addr);
}

#[test]
fn a_flood_from_one_address_is_answered_429_with_when_to_come_back() {
    let s = start_with(
        |store, _| fill(store, &["alpha", "beta"], 1, STATS),
        |c| c.rates = Rates { per_second: 0.5, burst: 5, submissions_per_minute: 1.0, submission_burst: 1 },
    );
    let statuses: Vec<u16> = (0..8).map(|_| get(s.addr, "/api/leaderboard").status).collect();
    assert_eq!(statuses[..5], [200; 5], "{statuses:?}");
    assert!(statuses[5..].iter().all(|&c| c == 429), "{statuses:?}");
    let a = get(s.addr, "/");
    assert_eq!(a.status, 429);
    assert!(a.headers.contains("retry-after: "), "{}", a.headers);
    assert!(a.body.starts_with("too many requests from 127.0.0.1"), "{}", a.body);
}
