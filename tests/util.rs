//! Helpers shared by the integration tests.

use arena::games::zombies::Zombies;
use std::path::PathBuf;

use arena::abi::{Action, Context};
use arena::bot::Bot;

/// Entry names `P0`, `P1`, ...
pub fn names(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("P{i}")).collect()
}

/// One bot per entry, all of whose players always stay.
pub fn stay_bots(n: usize) -> Vec<Box<dyn Bot<Zombies>>> {
    (0..n).map(|_| Box::new(|_: &Context<'_>| Action::stay()) as Box<dyn Bot<Zombies>>).collect()
}

/// A bot that moves at random and sometimes shoots what it sees, using the game's
/// random numbers (so the game stays a function of its seed).
pub fn random_bot() -> impl FnMut(&Context<'_>) -> Action {
    |ctx: &Context<'_>| {
        if ctx.random(4) == 0 {
            let targets: Vec<_> = ctx.shootable().collect();
            if !targets.is_empty() {
                let (_, _, id) = targets[ctx.random(targets.len() as u32) as usize];
                return Action::shoot(id);
            }
        }
        Action::go(ctx.random_move())
    }
}

/// The workspace root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_owned()
}

/// A fixture under `tests/data`.
#[allow(dead_code)]
pub fn data(name: &str) -> PathBuf {
    root().join("tests/data").join(name)
}

/// Where cargo put the test binary and the cdylibs of the dev-dependencies.
pub fn deps_dir() -> PathBuf {
    std::env::current_exe().unwrap().parent().unwrap().to_owned()
}

/// The built library of a plugin crate that is a dev-dependency (`standstill`, ...).
pub fn plugin_lib(crate_name: &str) -> PathBuf {
    let file =
        format!("{}{}{}", std::env::consts::DLL_PREFIX, crate_name.replace('-', "_"), std::env::consts::DLL_SUFFIX);
    let path = deps_dir().join(file);
    assert!(path.exists(), "{} is not built", path.display());
    path
}

/// Compiles a C bot into a shared library `out` with the system C compiler (`$CC` or `cc`).
pub fn compile_c(source: &std::path::Path, out: &std::path::Path, extra: &[&str]) -> PathBuf {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_owned());
    let status = std::process::Command::new(cc)
        .args(["-O1", "-std=c11", "-Wall", "-Werror", "-shared", "-fPIC", "-I"])
        .arg(root().join("plugin-abi/include"))
        .args(extra)
        .arg("-o")
        .arg(out)
        .arg(source)
        .status()
        .expect("a C compiler (cc) is needed for the C ABI tests");
    assert!(status.success(), "compiling {} failed", source.display());
    out.to_owned()
}

/// A library file name for this platform: `lib{stem}.so` on Linux.
pub fn lib_name(stem: &str) -> String {
    format!("{}{stem}{}", std::env::consts::DLL_PREFIX, std::env::consts::DLL_SUFFIX)
}

/// The standard output of a run of the binary that succeeded (the test fails with both
/// outputs otherwise).
pub fn stdout(out: &std::process::Output) -> String {
    assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Plays a whole tournament on one thread.
pub fn tournament(
    entries: &[arena::bot::Entry<Zombies>],
    seed: u64,
    rounds: u64,
) -> arena::tournament::TournamentResult {
    use arena::tournament::{Plan, run};
    let plan = Plan::new(seed, rounds);
    run(entries, &plan, &std::sync::atomic::AtomicBool::new(false), |_, _| {})
}

/// An outcome without its wall-clock timings (which differ from run to run), for
/// comparing two plays of one game.
pub fn untimed(mut o: arena::games::zombies::GameOutcome) -> arena::games::zombies::GameOutcome {
    for s in &mut o.stats {
        (s.timed_calls, s.timed_nanos) = (0, 0);
    }
    o
}

/// An entry whose players always stay.
pub fn tournament_entry_still() -> arena::bot::Entry<Zombies> {
    arena::bot::Entry::builtin("Still", || |_: &Context<'_>| Action::stay())
}

/// A test that cannot run here says so, in `line`, on the process's real standard error
/// (the harness captures `eprintln!` of a passing test, and the skip would go unseen),
/// and returns; under `CI` it fails instead: CI must run every test.
pub fn skip(line: &str) {
    assert!(std::env::var_os("CI").is_none(), "CI must run this test, but: {line}");
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// Headless Chromium through chromedriver, for the browser tests (viewer, report):
/// `None` (after saying so) when chromedriver is missing, which CI does not allow.
/// `ARENA_CHROMEDRIVER` names another chromedriver (or, naming nothing, plays its absence).
pub struct Driver {
    child: std::process::Child,
    base: String,
    agent: ureq::Agent,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Driver {
    /// Starts chromedriver on a free local port.
    pub fn start() -> Option<Driver> {
        let chromedriver = match std::env::var("ARENA_CHROMEDRIVER") {
            Ok(p) => Some(p).filter(|p| std::path::Path::new(p).exists()),
            Err(_) => ["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"]
                .into_iter()
                .find(|p| std::path::Path::new(p).exists())
                .map(str::to_owned),
        };
        let Some(chromedriver) = chromedriver else {
            skip("skipping a browser test: no chromedriver (apt-get install chromium chromium-driver)");
            return None;
        };
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = std::process::Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let driver =
            Driver { child, base: format!("http://127.0.0.1:{port}"), agent: ureq::Agent::new_with_defaults() };
        for _ in 0..100 {
            if driver.agent.get(format!("{}/status", driver.base)).call().is_ok() {
                return Some(driver);
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        panic!("chromedriver did not start");
    }

    /// Opens a headless Chromium session of 1200x900 and returns its id; with
    /// `console_log`, the browser's console is kept for `/se/log`.
    pub fn chromium(&self, console_log: bool) -> String {
        let mut capabilities = serde_json::json!({"goog:chromeOptions": {
            "binary": "/usr/bin/chromium",
            "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     "--window-size=1200,900"]}});
        if console_log {
            capabilities["goog:loggingPrefs"] = serde_json::json!({"browser": "ALL"});
        }
        let session = self.post("/session", serde_json::json!({"capabilities": {"alwaysMatch": capabilities}}));
        session["sessionId"].as_str().expect("a WebDriver session").to_owned()
    }

    /// Ends a WebDriver session (`path`: `/session/<id>`).
    pub fn delete(&self, path: &str) {
        let _ = self.agent.delete(format!("{}{path}", self.base)).call();
    }

    /// A WebDriver query (a screenshot, ...): its JSON `value`.
    #[allow(dead_code)]
    pub fn get(&self, path: &str) -> serde_json::Value {
        let mut resp = self.agent.get(format!("{}{path}", self.base)).call().unwrap();
        resp.body_mut().read_json::<serde_json::Value>().unwrap()["value"].clone()
    }

    /// A WebDriver command: its JSON `value`.
    pub fn post(&self, path: &str, body: serde_json::Value) -> serde_json::Value {
        let mut resp = self.agent.post(format!("{}{path}", self.base)).send_json(&body).unwrap();
        resp.body_mut().read_json::<serde_json::Value>().unwrap()["value"].clone()
    }
}
