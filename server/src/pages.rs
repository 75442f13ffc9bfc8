//! Every page and its JSON twin, and the router that serves them with the layers every
//! request passes (rate limit, body limit, timeout, a caught panic, security headers).
//!
//! Each page is its twin's JSON rendered by a template: the numbers a page shows are
//! those of `/api/...` (docs/server.md lists the routes and fields). The live
//! leaderboard is a page and a script (`static/live.js`) that reloads its JSON whenever
//! `/api/events` (server-sent events) says a game was stored.
//!
//! Not here: submissions' logic (`submit`), the rate limiter's buckets (`limit`), the
//! plot (`plot`) and the rating history it draws (`history`), database statements
//! (`arena_ladder`).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{ConnectInfo, DefaultBodyLimit, FromRequest, Multipart, Path, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use futures_util::StreamExt as _;
use serde_json::{Value, json};

use crate::App;
use crate::limit::Kind;
use crate::submit::{self, Refused, Upload};

/// Games shown on the leaderboard page as they finish.
pub const RECENT: u64 = 10;
/// Games of an entry shown on its page.
pub const ENTRY_GAMES: u64 = 20;
/// Points of each version's rating plot.
pub const PLOT_POINTS: usize = 60;
/// Last lines of an entry's log shown on its page.
pub const LOG_LINES: usize = 40;

/// The content security policy of every page: nothing but this server's own files, no
/// inline script.
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
                   frame-src 'self'; frame-ancestors 'self'; form-action 'self'; base-uri 'none'; object-src 'none'";
/// The viewer's: its own inline script and style, in a sandbox of its own origin.
const VIEWER_CSP: &str = "sandbox allow-scripts; default-src 'none'; script-src 'unsafe-inline'; \
                          style-src 'unsafe-inline'; img-src data: blob:; frame-ancestors 'self'";

/// The server's routes and layers.
pub fn router(app: Arc<App>) -> Router {
    let body_limit = app.config.max_upload + (64 << 10);
    let timeout = app.config.timeout;
    Router::new()
        .route("/", get(leaderboard_page))
        .route("/api/leaderboard", get(leaderboard_json))
        .route("/api/events", get(events))
        .route("/entry/{name}", get(entry_page))
        .route("/api/entry/{name}", get(entry_json))
        .route("/games", get(games_page))
        .route("/api/games", get(games_json))
        .route("/game/{id}", get(game_page))
        .route("/api/game/{id}", get(game_json))
        .route("/game/{id}/viewer", get(viewer))
        .route("/stats", get(stats_page))
        .route("/api/stats", get(stats_json))
        .route("/submit", get(submit_page).post(submit_form))
        .route("/api/submit", post(submit_api))
        .route("/retire", post(retire_form))
        .route("/api/retire", post(retire_api))
        .route("/static/{file}", get(static_file))
        .fallback(not_found)
        .layer(middleware::from_fn_with_state(Arc::clone(&app), rate_limit))
        .layer(DefaultBodyLimit::max(body_limit))
        .layer(tower_http::catch_panic::CatchPanicLayer::custom(|_| {
            (StatusCode::INTERNAL_SERVER_ERROR, "internal error: the request failed (the server goes on)\n")
                .into_response()
        }))
        .layer(tower_http::timeout::TimeoutLayer::with_status_code(StatusCode::REQUEST_TIMEOUT, timeout))
        .layer(tower_http::set_header::SetResponseHeaderLayer::if_not_present(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CSP),
        ))
        .layer(tower_http::set_header::SetResponseHeaderLayer::overriding(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        .layer(tower_http::set_header::SetResponseHeaderLayer::overriding(
            header::REFERRER_POLICY,
            HeaderValue::from_static("same-origin"),
        ))
        .with_state(app)
}

// ----- answers ---------------------------------------------------------------------------

/// An error as a page (`api` false) or as JSON `{"error": line}`.
fn fail(app: &App, api: bool, status: u16, line: &str) -> Response {
    let code = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    if api {
        return (code, axum::Json(json!({ "error": line }))).into_response();
    }
    let page = render(app, "error.html", &json!({ "title": code.as_str(), "status": status, "message": line }));
    (code, page).into_response()
}

fn refused(app: &App, api: bool, r: Refused) -> Response {
    fail(app, api, r.status, &r.line)
}

/// The page `template` of `data` (with the game's name and sides added).
fn render(app: &App, template: &str, data: &Value) -> Response {
    let mut context = data.clone();
    if let Value::Object(m) = &mut context {
        m.insert("game".to_owned(), json!(app.config.game));
        m.insert("sides".to_owned(), json!(app.sides));
        m.insert("pairs".to_owned(), json!(app.pairs));
    }
    let result = app.templates.get_template(template).and_then(|t| t.render(minijinja::value::Serde(&context)));
    match result {
        Ok(html) => Html(html).into_response(),
        Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, format!("template {template}: {e}\n")).into_response(),
    }
}

/// A database error's answer: 404 for what is not there, 500 otherwise.
fn db_fail(app: &App, api: bool, e: arena_ladder::LadderError) -> Response {
    let status = if matches!(e, arena_ladder::LadderError::NotFound(_)) { 404 } else { 500 };
    fail(app, api, status, &e.to_string())
}

async fn not_found(State(app): State<Arc<App>>, req: Request) -> Response {
    let api = req.uri().path().starts_with("/api/");
    fail(&app, api, 404, "no such page")
}

// ----- layers ----------------------------------------------------------------------------

/// The rate limit: every request takes a token of its address's bucket, a submission
/// one more of its own.
async fn rate_limit(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    let ip =
        req.extensions().get::<ConnectInfo<SocketAddr>>().map_or(std::net::IpAddr::from([0, 0, 0, 0]), |c| c.0.ip());
    let submission = req.method() == Method::POST && matches!(req.uri().path(), "/submit" | "/api/submit");
    let kinds: &[Kind] = if submission { &[Kind::Request, Kind::Submission] } else { &[Kind::Request] };
    for &kind in kinds {
        if let Err(wait) = app.limiter.take(ip, kind) {
            let what = if kind == Kind::Submission { "submissions" } else { "requests" };
            let mut r = (StatusCode::TOO_MANY_REQUESTS, format!("too many {what} from {ip}: try again in {wait} s\n"))
                .into_response();
            r.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(wait));
            return r;
        }
    }
    next.run(req).await
}

// ----- the leaderboard -----------------------------------------------------------------

/// How long the leaderboard's JSON is served again while no game is stored (ratings,
/// new entries and files that do not load change between games too).
pub const BOARD_FRESH: Duration = Duration::from_secs(1);

/// The leaderboard's JSON as last computed, with the live clock's newest game id then.
#[derive(Debug)]
pub struct Board {
    at: std::time::Instant,
    last_game: i64,
    value: Value,
}

impl Board {
    /// Whether it may be served when the clock says `last_game` at `now`: no game stored
    /// since, and younger than [`BOARD_FRESH`].
    pub fn fresh(&self, last_game: i64, now: std::time::Instant) -> bool {
        self.last_game == last_game && now.saturating_duration_since(self.at) < BOARD_FRESH
    }
}

/// The leaderboard's JSON: the game, the newest game's id, the active versions ranked,
/// the newest games, and the files that did not load. Computed at most once per game
/// stored and once a [`BOARD_FRESH`], however many clients ask (they wait for one
/// computation and share it).
pub async fn leaderboard_data(app: &Arc<App>) -> Result<Value, arena_ladder::LadderError> {
    let mut board = app.board.lock().await;
    let clock = *app.last_game.borrow();
    if let Some(b) = board.as_ref().filter(|b| b.fresh(clock, std::time::Instant::now())) {
        return Ok(b.value.clone());
    }
    let game = app.config.game.clone();
    let value = app
        .db(move |s| {
            let last_game = s.last_game(&game)?;
            let board = s.leaderboard(&game, false)?;
            let recent = s.games(&game, None, RECENT)?;
            let errors = s.load_errors(&game)?;
            Ok(json!({ "last_game": last_game, "leaderboard": board, "recent": recent, "not_loaded": errors }))
        })
        .await?;
    *board = Some(Board { at: std::time::Instant::now(), last_game: clock, value: value.clone() });
    Ok(value)
}

async fn leaderboard_page(State(app): State<Arc<App>>) -> Response {
    match leaderboard_data(&app).await {
        Ok(data) => render(&app, "leaderboard.html", &data),
        Err(e) => db_fail(&app, false, e),
    }
}

async fn leaderboard_json(State(app): State<Arc<App>>) -> Response {
    match leaderboard_data(&app).await {
        Ok(mut data) => {
            data["game"] = json!(app.config.game);
            axum::Json(data).into_response()
        }
        Err(e) => db_fail(&app, true, e),
    }
}

/// Server-sent events: `game` with the newest game's id, at once and whenever it
/// changes.
async fn events(State(app): State<Arc<App>>) -> Response {
    let mut stopping = app.stopping.clone();
    let stream = tokio_stream::wrappers::WatchStream::new(app.last_game.clone())
        .map(|id| Ok::<Event, Infallible>(Event::default().event("game").data(id.to_string())))
        .take_until(async move {
            let _ = stopping.wait_for(|s| *s).await;
        });
    Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))).into_response()
}

// ----- an entry ----------------------------------------------------------------------------

/// An entry's JSON: its versions, games, results against each opponent (per side in
/// games of pairs), each version's rating after its games, its submissions and the last
/// lines of its log.
pub async fn entry_data(app: &Arc<App>, name: String) -> Result<Value, arena_ladder::LadderError> {
    let game = app.config.game.clone();
    let pairs = app.pairs;
    let logs = app.config.logs.clone();
    let ratings = Arc::clone(&app.history);
    app.db(move |s| {
        let entry = s.entry(&game, &name, ENTRY_GAMES)?;
        let against = s.against(&game, &name, pairs)?;
        let ids: Vec<i64> = entry.versions.iter().map(|v| v.id).collect();
        let plots = ratings.plots(s, &ids)?;
        let history: Vec<Value> = entry
            .versions
            .iter()
            .zip(&plots)
            .map(|(v, points)| json!({ "version": v.id, "sha256": v.sha256, "points": points }))
            .collect();
        let series: Vec<(String, Vec<arena_ladder::views::Point>)> = entry
            .versions
            .iter()
            .zip(plots)
            .map(|(v, points)| (format!("version {} ({})", v.id, &v.sha256[..8.min(v.sha256.len())]), points))
            .collect();
        let submissions = s.submissions(&game, Some(&name), 20)?;
        let log = logs.map(|dir| log_tail(&dir, &name)).unwrap_or_default();
        let problems: Vec<Value> = entry
            .games
            .iter()
            .flat_map(|g| {
                g.seats.iter().enumerate().filter(|(_, st)| st.entry == entry.name).filter_map(move |(seat, st)| {
                    let stats = st.stats.as_ref()?;
                    let count = |k: &str| stats.get(k).and_then(Value::as_u64).unwrap_or(0);
                    let (errors, overruns, out) = (count("errors"), count("overruns"), count("disqualified"));
                    (errors + overruns + out > 0).then(|| {
                        json!({ "game": g.id, "seat": seat, "errors": errors, "overruns": overruns,
                                "disqualified": out > 0, "messages": stats.get("messages").cloned().unwrap_or(json!([])) })
                    })
                })
            })
            .collect();
        Ok(json!({
            "entry": entry, "against": against, "history": history, "submissions": submissions,
            "problems": problems, "log": log, "plot": crate::plot::rating_svg(&series),
        }))
    })
    .await
}

/// The last [`LOG_LINES`] lines of the entry `name`'s log in `dir` (none when the name
/// could name another file, or there is no log).
fn log_tail(dir: &std::path::Path, name: &str) -> Vec<String> {
    use std::io::{Read as _, Seek as _, SeekFrom};
    if name.is_empty() || name.contains(['/', '\\', '\0']) || name.starts_with('.') {
        return Vec::new();
    }
    let Ok(mut f) = std::fs::File::open(dir.join(format!("{name}.log"))) else { return Vec::new() };
    let len = f.metadata().map_or(0, |m| m.len());
    let _ = f.seek(SeekFrom::Start(len.saturating_sub(64 << 10)));
    let mut bytes = Vec::new();
    let _ = f.take(64 << 10).read_to_end(&mut bytes);
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(LOG_LINES)..].iter().map(|l| submit::one_line(l)).collect()
}

async fn entry_page(State(app): State<Arc<App>>, Path(name): Path<String>) -> Response {
    match entry_data(&app, name).await {
        Ok(data) => render(&app, "entry.html", &data),
        Err(e) => db_fail(&app, false, e),
    }
}

async fn entry_json(State(app): State<Arc<App>>, Path(name): Path<String>) -> Response {
    match entry_data(&app, name).await {
        Ok(mut data) => {
            if let Value::Object(m) = &mut data {
                m.remove("plot");
            }
            axum::Json(data).into_response()
        }
        Err(e) => db_fail(&app, true, e),
    }
}

// ----- games -------------------------------------------------------------------------------

/// The options of the games' list.
#[derive(Debug, serde::Deserialize)]
pub struct GamesQuery {
    /// Only the games of this entry.
    pub entry: Option<String>,
    /// At most this many (the newest; at most 500).
    pub limit: Option<u64>,
}

async fn games_data(app: &Arc<App>, q: GamesQuery) -> Result<Value, arena_ladder::LadderError> {
    let game = app.config.game.clone();
    let limit = q.limit.unwrap_or(50).min(500);
    app.db(move |s| {
        let games = s.games(&game, q.entry.as_deref(), limit)?;
        Ok(json!({ "entry": q.entry, "games": games }))
    })
    .await
}

async fn games_page(State(app): State<Arc<App>>, Query(q): Query<GamesQuery>) -> Response {
    match games_data(&app, q).await {
        Ok(data) => render(&app, "games.html", &data),
        Err(e) => db_fail(&app, false, e),
    }
}

async fn games_json(State(app): State<Arc<App>>, Query(q): Query<GamesQuery>) -> Response {
    match games_data(&app, q).await {
        Ok(data) => axum::Json(data).into_response(),
        Err(e) => db_fail(&app, true, e),
    }
}

/// A game id from the path: a number, or a one-line refusal.
fn game_id(id: &str) -> Result<i64, String> {
    id.parse::<i64>().map_err(|_| format!("game id: {:?} is not a number", submit::one_line(id)))
}

async fn game_data(app: &Arc<App>, id: i64) -> Result<Value, arena_ladder::LadderError> {
    let game = app.config.game.clone();
    app.db(move |s| {
        let g = s.game(id)?;
        if g.game != game {
            return Err(arena_ladder::LadderError::NotFound(format!("game {id} is a game of {}", g.game)));
        }
        Ok(json!({ "game_row": g }))
    })
    .await
}

async fn game_page(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    let id = match game_id(&id) {
        Ok(id) => id,
        Err(line) => return fail(&app, false, 400, &line),
    };
    match game_data(&app, id).await {
        Ok(data) => render(&app, "game.html", &data),
        Err(e) => db_fail(&app, false, e),
    }
}

async fn game_json(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    let id = match game_id(&id) {
        Ok(id) => id,
        Err(line) => return fail(&app, true, 400, &line),
    };
    match game_data(&app, id).await {
        Ok(data) => axum::Json(data["game_row"].clone()).into_response(),
        Err(e) => db_fail(&app, true, e),
    }
}

/// The stored game's replay in the game's own viewer page (as `arena ladder replay`
/// writes it), under a policy that sandboxes it.
async fn viewer(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    let id = match game_id(&id) {
        Ok(id) => id,
        Err(line) => return fail(&app, false, 400, &line),
    };
    let page = app.db(move |s| s.replay(id)).await.and_then(|(game, bytes)| {
        arena::with_game!(game.as_str(), G => {
            use arena::game::Recorded as _;
            arena::replay::Replay::<G>::from_bytes(&bytes)
                .and_then(|r| G::viewer_page(&r))
                .map_err(|e| arena_ladder::LadderError::Db(format!("game {id}: {e}")))
        }, _ => Err(arena_ladder::LadderError::NotFound(format!("game {id}: a replay of {game:?}, a game this server does not know"))))
    });
    match page {
        Ok(html) => {
            let mut r = Html(html).into_response();
            r.headers_mut().insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(VIEWER_CSP));
            r
        }
        Err(e) => db_fail(&app, false, e),
    }
}

// ----- statistics --------------------------------------------------------------------------

/// The statistics' JSON: the contest's totals, whether the top places are settled (with
/// the numbers behind it), every version ranked (retired ones too), and the files that
/// did not load.
pub async fn stats_data(app: &Arc<App>) -> Result<Value, arena_ladder::LadderError> {
    let game = app.config.game.clone();
    let pairs = app.pairs;
    app.db(move |s| {
        let totals = s.totals(&game)?;
        let board = s.leaderboard(&game, true)?;
        let active: Vec<_> = board.iter().filter(|s| s.active).cloned().collect();
        // Only the top versions' games (as `ladder status` reads them): a season's
        // million games are never read for one page.
        let top = arena_ladder::settled::top_versions(&active);
        let settled = arena_ladder::settled::top_places(&active, &s.played_games_of(&game, &top)?, pairs);
        let top_places = settled.as_ref().map(|d| json!({ "line": d.line(), "settled": d }));
        Ok(json!({ "totals": totals, "top_places": top_places, "all_versions": board,
                   "not_loaded": s.load_errors(&game)? }))
    })
    .await
}

async fn stats_page(State(app): State<Arc<App>>) -> Response {
    match stats_data(&app).await {
        Ok(data) => render(&app, "stats.html", &data),
        Err(e) => db_fail(&app, false, e),
    }
}

async fn stats_json(State(app): State<Arc<App>>) -> Response {
    match stats_data(&app).await {
        Ok(data) => axum::Json(data).into_response(),
        Err(e) => db_fail(&app, true, e),
    }
}

// ----- submissions -------------------------------------------------------------------------

async fn submit_page(State(app): State<Arc<App>>) -> Response {
    let game = app.config.game.clone();
    match app.db(move |s| s.submissions(&game, None, 30)).await {
        Ok(subs) => render(
            &app,
            "submit.html",
            &json!({ "submissions": subs, "max_upload": app.config.max_upload, "result": Value::Null }),
        ),
        Err(e) => db_fail(&app, false, e),
    }
}

/// The options of a raw upload (`curl --data-binary @bot.lua '/api/submit?name=..&file=bot.lua'`).
#[derive(Debug, Default, serde::Deserialize)]
pub struct RawUpload {
    /// The entry's name.
    pub name: Option<String>,
    /// The file's name (its extension says the kind).
    pub file: Option<String>,
}

/// Reads an upload: a multipart form (fields `token`, `name`, `file`), or a raw body
/// with the token in `Authorization: Bearer` and the name and file name in the query.
async fn read_upload(req: Request) -> Result<Upload, Refused> {
    let bad = |line: String| Refused { status: 400, line };
    let bearer = bearer(req.headers());
    let multipart = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("multipart/form-data"));
    if !multipart {
        let Query(q) = Query::<RawUpload>::try_from_uri(req.uri()).map_err(|e| bad(format!("query: {e}")))?;
        let bytes = axum::body::to_bytes(req.into_body(), usize::MAX).await.map_err(|e| too_big(&e.to_string()))?;
        return Ok(Upload {
            token: bearer.unwrap_or_default(),
            name: q.name.unwrap_or_default(),
            file_name: q.file.unwrap_or_default(),
            bytes: bytes.to_vec(),
        });
    }
    let mut form = Multipart::from_request(req, &()).await.map_err(|e| bad(format!("form: {}", e.body_text())))?;
    let mut upload = Upload { token: bearer.unwrap_or_default(), ..Upload::default() };
    let mut fields = 0;
    while let Some(field) = form.next_field().await.map_err(|e| too_big(&e.body_text()))? {
        fields += 1;
        if fields > 8 {
            return Err(bad("form: more than 8 fields".to_owned()));
        }
        let name = field.name().unwrap_or("").to_owned();
        match name.as_str() {
            "file" => {
                upload.file_name = field.file_name().unwrap_or("").to_owned();
                upload.bytes = field.bytes().await.map_err(|e| too_big(&e.body_text()))?.to_vec();
            }
            "token" | "name" => {
                let text = field.text().await.map_err(|e| bad(format!("form field {name}: {}", e.body_text())))?;
                if text.len() > 256 {
                    return Err(bad(format!("form field {name}: longer than 256 bytes")));
                }
                if name == "token" {
                    if !text.trim().is_empty() {
                        upload.token = text;
                    }
                } else {
                    upload.name = text;
                }
            }
            _ => {}
        }
    }
    Ok(upload)
}

fn too_big(why: &str) -> Refused {
    let line = submit::one_line(why);
    if line.contains("length limit") || line.contains("too large") {
        Refused { status: 413, line: format!("file: larger than the upload limit ({line})") }
    } else {
        Refused { status: 400, line: format!("form: {line}") }
    }
}

fn bearer(headers: &HeaderMap) -> Option<String> {
    let v = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    v.strip_prefix("Bearer ").map(|t| t.trim().to_owned())
}

async fn submit_form(State(app): State<Arc<App>>, req: Request) -> Response {
    let result = match read_upload(req).await {
        Ok(upload) => submit::submit(&app, upload).await,
        Err(r) => Err(r),
    };
    let game = app.config.game.clone();
    let subs = app.db(move |s| s.submissions(&game, None, 30)).await.unwrap_or_default();
    let (status, result) = match result {
        Ok(a) => (StatusCode::OK, json!({ "ok": true, "name": a.name, "line": a.line, "sha256": a.sha256 })),
        Err(r) => {
            (StatusCode::from_u16(r.status).unwrap_or(StatusCode::BAD_REQUEST), json!({ "ok": false, "line": r.line }))
        }
    };
    let page = render(
        &app,
        "submit.html",
        &json!({ "submissions": subs, "max_upload": app.config.max_upload, "result": result }),
    );
    (status, page).into_response()
}

async fn submit_api(State(app): State<Arc<App>>, req: Request) -> Response {
    let result = match read_upload(req).await {
        Ok(upload) => submit::submit(&app, upload).await,
        Err(r) => Err(r),
    };
    match result {
        Ok(a) => axum::Json(json!({ "status": "accepted", "name": a.name, "kind": a.kind, "sha256": a.sha256,
                                    "line": a.line }))
        .into_response(),
        Err(r) => refused(&app, true, r),
    }
}

/// The retire form's fields.
#[derive(Debug, serde::Deserialize)]
pub struct RetireForm {
    /// The token (or `Authorization: Bearer`).
    #[serde(default)]
    pub token: String,
    /// The entry.
    pub name: String,
}

async fn retire_with(app: &Arc<App>, req: Request) -> Result<String, Refused> {
    let bad = |line: String| Refused { status: 400, line };
    let headers = req.headers().clone();
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    let form: RetireForm = if json {
        axum::Json::<RetireForm>::from_request(req, &()).await.map_err(|e| bad(format!("body: {}", e.body_text())))?.0
    } else {
        axum::Form::<RetireForm>::from_request(req, &()).await.map_err(|e| bad(format!("form: {}", e.body_text())))?.0
    };
    let token = if form.token.trim().is_empty() { bearer(&headers).unwrap_or_default() } else { form.token };
    submit::retire(app, &token, &form.name).await
}

async fn retire_form(State(app): State<Arc<App>>, req: Request) -> Response {
    match retire_with(&app, req).await {
        Ok(_) => Redirect::to("/submit").into_response(),
        Err(r) => refused(&app, false, r),
    }
}

async fn retire_api(State(app): State<Arc<App>>, req: Request) -> Response {
    match retire_with(&app, req).await {
        Ok(line) => axum::Json(json!({ "status": "retired", "line": line })).into_response(),
        Err(r) => refused(&app, true, r),
    }
}

// ----- static files ------------------------------------------------------------------------

async fn static_file(State(app): State<Arc<App>>, Path(file): Path<String>) -> Response {
    match crate::assets::static_file(&file) {
        Some((bytes, kind)) => {
            ([(header::CONTENT_TYPE, kind), (header::CACHE_CONTROL, "max-age=300")], bytes).into_response()
        }
        None => fail(&app, false, 404, "no such file"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_board_is_served_again_only_until_a_game_is_stored_or_a_second_passes() {
        let at = std::time::Instant::now();
        let b = Board { at, last_game: 7, value: Value::Null };
        assert!(b.fresh(7, at));
        assert!(b.fresh(7, at + BOARD_FRESH / 2));
        assert!(!b.fresh(8, at), "a game was stored");
        assert!(!b.fresh(7, at + BOARD_FRESH), "a second old");
    }
}
