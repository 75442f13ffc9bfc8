//! The arena's contest server: web pages and their JSON twins over a ladder's database
//! (the live leaderboard, entries, games with the replay viewer, statistics), and the
//! submission of bots by entrants who hold a token.
//!
//! - [`pages`]: every page and its `/api/...` twin (docs/server.md lists them);
//! - [`submit`]: tokens, uploads (stored by content hash beside the database, checked
//!   before they join), retiring;
//! - [`archive`]: archives of programs with files, read and checked before anything is
//!   written;
//! - [`limit`]: the per-address rate limit;
//! - [`plot`]: the rating-over-time plot, an inline SVG;
//! - [`history`]: the ratings that plot draws, kept up to date with the ladder's;
//! - [`assets`]: the templates and static files, embedded in the binary.
//!
//! Not here: the ladder's loop (the binary runs it on a thread of its own, or another
//! process does, on the same database), the database's statements (`arena-ladder`:
//! `store`, `views`, `accounts`), and how a bot is checked (the caller's [`Checker`],
//! which is `arena check` in the sandbox). Errors are [`ServerError`]; a request's own
//! errors are answered with a status and one line, and never end the server.

pub mod archive;
pub mod assets;
pub mod history;
pub mod limit;
pub mod pages;
pub mod plot;
pub mod submit;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use arena_ladder::LadderError;
use arena_ladder::store::Store;

/// What can end the server, each in one line.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The database cannot be opened.
    #[error(transparent)]
    Ladder(#[from] LadderError),
    /// The address cannot be listened on.
    #[error("cannot listen on {addr}: {why}")]
    Listen {
        /// The address.
        addr: SocketAddr,
        /// Why.
        why: String,
    },
    /// The directory of submitted bots cannot be made.
    #[error("{path}: cannot make the directory of submitted bots: {why}")]
    Bots {
        /// The directory.
        path: PathBuf,
        /// Why.
        why: String,
    },
    /// The game is not one this program knows.
    #[error("unknown game {0:?}")]
    Game(String),
    /// The server stopped on an I/O error.
    #[error("server: {0}")]
    Io(String),
}

/// What a check of a submitted bot found: the entry's name and kind as it loaded, and
/// the check's one-line result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    /// The name it loaded under (a library names itself).
    pub name: String,
    /// Its kind (`lua`, `rhai`, `native`, `program`).
    pub kind: String,
    /// The check's result in one line.
    pub line: String,
}

/// Checks a submitted bot before it joins (in the sandbox, as `arena check` does): its
/// result, or why it is refused, in one line.
pub trait Checker: Send + Sync + 'static {
    /// Checks the bot file `file` of the game `game`.
    fn check(&self, game: &str, file: &Path) -> Result<Checked, String>;
}

/// The rate limits, per client address.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rates {
    /// Requests a second, on average.
    pub per_second: f64,
    /// Requests at once above the average.
    pub burst: u32,
    /// Submissions a minute, on average.
    pub submissions_per_minute: f64,
    /// Submissions at once above the average.
    pub submission_burst: u32,
}

impl Default for Rates {
    fn default() -> Rates {
        Rates { per_second: 20.0, burst: 60, submissions_per_minute: 6.0, submission_burst: 3 }
    }
}

/// How the server runs.
#[derive(Debug, Clone)]
pub struct Config {
    /// The address to listen on.
    pub listen: SocketAddr,
    /// The ladder's database.
    pub db: PathBuf,
    /// The game whose ladder is shown and to which bots are submitted.
    pub game: String,
    /// Where submitted bots are kept ([`submit::bots_dir`] of the database by default):
    /// never under a served path.
    pub bots: PathBuf,
    /// The largest upload, in bytes.
    pub max_upload: usize,
    /// What an uploaded archive may unpack to.
    pub archive: archive::Caps,
    /// The rate limits.
    pub rates: Rates,
    /// The entries' logs directory (`<entry>.log`), whose last lines an entry's page
    /// shows; none: no logs shown.
    pub logs: Option<PathBuf>,
    /// How long one request may take (a check of a submission included).
    pub timeout: Duration,
}

impl Config {
    /// The defaults for the database `db` and the game `game`: 127.0.0.1:8080, uploads up
    /// to 1 MiB, archives unpacking to at most 1,000 entries, 16 MiB a file and 32 MiB.
    pub fn new(db: &Path, game: &str) -> Config {
        Config {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            db: db.to_owned(),
            game: game.to_owned(),
            bots: submit::bots_dir(db),
            max_upload: 1 << 20,
            archive: archive::Caps::default(),
            rates: Rates::default(),
            logs: None,
            timeout: Duration::from_secs(120),
        }
    }
}

/// What every handler shares.
pub struct App {
    /// The configuration.
    pub config: Config,
    /// The database (its calls block: handlers call it through [`App::db`]).
    pub store: Arc<Store>,
    /// Checks submissions.
    pub checker: Arc<dyn Checker>,
    /// Whether the game is played in pairs (hex): results per side.
    pub pairs: bool,
    /// The game's seat names in games of pairs (`humans`, `zombies`).
    pub sides: Vec<String>,
    /// The newest game's id, as last seen (the live pages' clock).
    pub last_game: tokio::sync::watch::Receiver<i64>,
    /// The rate limiter.
    pub limiter: limit::Limiter,
    /// The versions' rating history (the entry pages' plots).
    pub history: Arc<history::History>,
    /// The leaderboard's JSON as last computed ([`pages::leaderboard_data`]).
    pub board: tokio::sync::Mutex<Option<pages::Board>>,
    /// One check at a time (a check plays games: the ladder keeps its cores).
    pub checking: tokio::sync::Semaphore,
    /// The templates.
    pub templates: minijinja::Environment<'static>,
    /// Set when the server stops (the live pages' streams end).
    pub stopping: tokio::sync::watch::Receiver<bool>,
    stop: tokio::sync::watch::Sender<bool>,
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App").field("config", &self.config).field("pairs", &self.pairs).finish_non_exhaustive()
    }
}

impl App {
    /// Runs `f` on the database on a blocking thread.
    pub async fn db<T: Send + 'static>(
        self: &Arc<Self>,
        f: impl FnOnce(&Store) -> Result<T, LadderError> + Send + 'static,
    ) -> Result<T, LadderError> {
        let store = Arc::clone(&self.store);
        tokio::task::spawn_blocking(move || f(&store))
            .await
            .unwrap_or_else(|e| Err(LadderError::Db(format!("a query failed: {e}"))))
    }
}

/// The shared state of a server for `config` (the database opened, created when missing),
/// without listening: what [`serve`] runs, and what tests call the router of.
pub fn app(config: Config, checker: Arc<dyn Checker>) -> Result<Arc<App>, ServerError> {
    let store = Store::open(&config.db, true)?;
    submit::make_dirs(&config.bots, &config.game)?;
    let (pairs, sides) = arena::with_game!(config.game.as_str(), G => {
        use arena::game::{Game as _, Rules as _};
        let pairs = G::RANKING == arena::game::Ranking::Pairs;
        let roles = arena::games::seat_roles(G::NAME);
        let sides: Vec<String> = match (pairs, roles) {
            (false, _) => Vec::new(),
            (true, []) => vec!["first seat".to_owned(), "second seat".to_owned()],
            (true, roles) => roles.iter().map(|s| (*s).to_owned()).collect(),
        };
        (pairs, sides)
    }, _ => return Err(ServerError::Game(config.game.clone())));
    let last = store.last_game(&config.game)?;
    let (send, receive) = tokio::sync::watch::channel(last);
    let store = Arc::new(store);
    let (stop, stopping) = tokio::sync::watch::channel(false);
    let history = Arc::new(history::History::new(&config.game, pairs, pages::PLOT_POINTS));
    let app = Arc::new(App {
        limiter: limit::Limiter::new(config.rates),
        history: Arc::clone(&history),
        board: tokio::sync::Mutex::new(None),
        templates: assets::templates(),
        config,
        store: Arc::clone(&store),
        checker,
        pairs,
        sides,
        last_game: receive,
        checking: tokio::sync::Semaphore::new(1),
        stopping,
        stop,
    });
    // The rating history, folded once now (at a million games, seconds) rather than
    // while the first entry page waits.
    let warm = Arc::clone(&store);
    std::thread::Builder::new()
        .name("arena-server-history".to_owned())
        .spawn(move || {
            let _ = history.update(&warm);
        })
        .map_err(|e| ServerError::Io(e.to_string()))?;
    // The clock of the live pages: the newest game's id, read once a second (one query
    // for every watcher), whoever plays the games.
    let game = app.config.game.clone();
    std::thread::Builder::new()
        .name("arena-server-clock".to_owned())
        .spawn(move || {
            loop {
                std::thread::sleep(Duration::from_millis(500));
                if send.is_closed() {
                    break;
                }
                if let Ok(id) = store.last_game(&game) {
                    send.send_if_modified(|old| std::mem::replace(old, id) != id);
                }
            }
        })
        .map_err(|e| ServerError::Io(e.to_string()))?;
    Ok(app)
}

/// Serves `app` on its address until `shutdown` resolves. `ready` is told the address
/// listened on (useful with port 0).
pub async fn serve(
    app: Arc<App>,
    ready: impl FnOnce(SocketAddr),
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), ServerError> {
    let addr = app.config.listen;
    let listener =
        tokio::net::TcpListener::bind(addr).await.map_err(|e| ServerError::Listen { addr, why: e.to_string() })?;
    let local = listener.local_addr().map_err(|e| ServerError::Listen { addr, why: e.to_string() })?;
    ready(local);
    let stop = app.stop.clone();
    let shutdown = async move {
        shutdown.await;
        let _ = stop.send(true);
    };
    axum::serve(listener, pages::router(app).into_make_service_with_connect_info::<SocketAddr>())
        .with_graceful_shutdown(shutdown)
        .await
        .map_err(|e| ServerError::Io(e.to_string()))
}

/// [`serve`] on a runtime of its own, until `stop` is set (the command line's Ctrl-C).
pub fn serve_until(
    app: Arc<App>,
    ready: impl FnOnce(SocketAddr),
    stop: Arc<std::sync::atomic::AtomicBool>,
) -> Result<(), ServerError> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("arena-server")
        .enable_all()
        .build()
        .map_err(|e| ServerError::Io(e.to_string()))?;
    rt.block_on(serve(app, ready, async move {
        while !stop.load(std::sync::atomic::Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }))
}
