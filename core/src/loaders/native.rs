//! Native bots: shared libraries exporting either the abi_stable root module (Rust bots
//! built with `export_bot!` / `export_eggs_bot!`) or the plain C table of
//! `zombies_bot.h`.
//!
//! Loading a library: open it with immediate symbol binding (so a library with an
//! unresolved symbol is rejected here instead of killing the host on its first call),
//! then look for the C entry symbol, else the abi_stable root module, check the ABI
//! version, the layouts and the name, and read the game the library declares (1.0
//! libraries play zombies). A library of another game is skipped with one line; one of
//! this game is handed to the game ([`NativeBots::native_bots`]) as a [`NativeModule`].
//! Libraries are never unloaded: function pointers and statics from them stay valid
//! for the whole process. A library that takes a logger (ABI 1.2 `set_logger`) gets one
//! at load,
//! writing to its entry's log (`super::log`); a library is loaded once per process, so
//! its lines go to the log of the entry it was last loaded as. A library that takes a
//! debug channel (ABI 1.4 `set_debugger`, the C table's `set_debug`) gets one that says
//! its text at the call running on the calling thread (`crate::debug`).
//!
//! This module loads libraries; it does not isolate them (a native bot runs in the
//! host process and can crash it) and does not call bots (each game wraps its own).

use std::ffi::CStr;
use std::path::Path;
use std::sync::Arc;

use zombies_plugin_abi::abi_stable::StableAbi;
use zombies_plugin_abi::abi_stable::abi_stability::abi_checking::check_layout_compatibility;
use zombies_plugin_abi::abi_stable::library::{LibraryError, lib_header_from_path};
use zombies_plugin_abi::abi_stable::std_types::{RErr, ROk, RResult, RString};
use zombies_plugin_abi::{ABI_VERSION, BotModuleRef, C_ENTRY_SYMBOL, CBotTable, GAMES, any_version};

use super::log::{EntryLog, native_logger};
use super::scripts::ScriptLimits;
use crate::bot::{Bot, BotError, BotFactory, Entry, EntryKind, Plays};
use crate::rules::Rules;

/// A loaded library that plays the game asking for it: what the game makes bots from.
#[derive(Clone, Copy)]
#[allow(missing_debug_implementations)]
pub enum NativeModule {
    /// A Rust library's abi_stable root module.
    Rust(BotModuleRef),
    /// A C library's table.
    C(CTable),
}

/// How a library takes the host's log channel (ABI 1.2): the C table's or the Rust root
/// module's `set_logger`.
pub type SetLogger = extern "C" fn(zombies_plugin_abi::Logger);

/// A C library's table, read only up to the size the library declared (fields of a
/// newer minor version are absent from older libraries' tables).
#[derive(Debug, Clone, Copy)]
pub struct CTable {
    ptr: *const CBotTable,
    size: u32,
}

impl CTable {
    /// Field `f` (at `offset`) if the library's table is long enough to hold it.
    fn field<T: Copy>(&self, offset: usize, f: impl FnOnce(*const CBotTable) -> *const T) -> Option<T> {
        // SAFETY: the library's table holds `size` bytes (checked at load to be at least
        // the 1.0 fields), so a field that ends within them can be read.
        (offset + std::mem::size_of::<T>() <= self.size as usize).then(|| unsafe { f(self.ptr).read() })
    }

    /// The NUL-terminated name (1.0).
    pub fn name(&self) -> *const std::ffi::c_char {
        self.field(std::mem::offset_of!(CBotTable, name), |t| unsafe { &raw const (*t).name })
            .unwrap_or(std::ptr::null())
    }

    /// `create` (1.0).
    pub fn create(&self) -> Option<extern "C" fn() -> *mut std::ffi::c_void> {
        self.field(std::mem::offset_of!(CBotTable, create), |t| unsafe { &raw const (*t).create }).flatten()
    }

    /// The zombies `turn` (1.0).
    pub fn turn(
        &self,
    ) -> Option<extern "C" fn(*mut std::ffi::c_void, &zombies_plugin_abi::Context<'_>) -> zombies_plugin_abi::Action>
    {
        self.field(std::mem::offset_of!(CBotTable, turn), |t| unsafe { &raw const (*t).turn }).flatten()
    }

    /// `destroy` (1.0).
    pub fn destroy(&self) -> Option<extern "C" fn(*mut std::ffi::c_void)> {
        self.field(std::mem::offset_of!(CBotTable, destroy), |t| unsafe { &raw const (*t).destroy }).flatten()
    }

    /// The NUL-terminated game name (1.1), null when absent.
    pub fn game(&self) -> *const std::ffi::c_char {
        self.field(std::mem::offset_of!(CBotTable, game), |t| unsafe { &raw const (*t).game })
            .unwrap_or(std::ptr::null())
    }

    /// The eggs `turn` (1.1).
    pub fn eggs_turn(
        &self,
    ) -> Option<
        extern "C" fn(
            *mut std::ffi::c_void,
            &zombies_plugin_abi::eggs::EggsContext<'_>,
            &mut zombies_plugin_abi::eggs::EggsAnswer,
        ),
    > {
        self.field(std::mem::offset_of!(CBotTable, eggs_turn), |t| unsafe { &raw const (*t).eggs_turn }).flatten()
    }

    /// The target `turn` (1.1).
    pub fn target_turn(
        &self,
    ) -> Option<extern "C" fn(*mut std::ffi::c_void, &zombies_plugin_abi::target::TargetContext<'_>) -> u32> {
        self.field(std::mem::offset_of!(CBotTable, target_turn), |t| unsafe { &raw const (*t).target_turn }).flatten()
    }

    /// `set_logger` (1.2).
    pub fn set_logger(&self) -> Option<SetLogger> {
        self.field(std::mem::offset_of!(CBotTable, set_logger), |t| unsafe { &raw const (*t).set_logger }).flatten()
    }

    /// `set_debug` (1.4).
    pub fn set_debug(&self) -> Option<SetLogger> {
        self.field(std::mem::offset_of!(CBotTable, set_debug), |t| unsafe { &raw const (*t).set_debug }).flatten()
    }

    /// The hex `turn` (1.1).
    pub fn hex_turn(
        &self,
    ) -> Option<
        extern "C" fn(
            *mut std::ffi::c_void,
            &zombies_plugin_abi::hex::HexContext<'_>,
            &mut zombies_plugin_abi::hex::HexAnswer,
        ),
    > {
        self.field(std::mem::offset_of!(CBotTable, hex_turn), |t| unsafe { &raw const (*t).hex_turn }).flatten()
    }

    /// The zombies whole-entry call (1.6).
    #[allow(clippy::type_complexity)]
    pub fn turn_all(
        &self,
    ) -> Option<
        extern "C" fn(
            *mut std::ffi::c_void,
            *const zombies_plugin_abi::Context<'_>,
            usize,
            *mut zombies_plugin_abi::Action,
        ),
    > {
        self.field(std::mem::offset_of!(CBotTable, turn_all), |t| unsafe { &raw const (*t).turn_all }).flatten()
    }

    /// The hex side call (1.3).
    pub fn hex_side(
        &self,
    ) -> Option<extern "C" fn(*mut std::ffi::c_void, &mut zombies_plugin_abi::hex::HexSideTurn<'_>)> {
        self.field(std::mem::offset_of!(CBotTable, hex_side), |t| unsafe { &raw const (*t).hex_side }).flatten()
    }
}

/// The bot factory of a Rust library: each game's bot is `wrap` of what `new_bot` makes;
/// a constructor's error is the entry's error for that game.
pub fn rust_factory<G: Plays, T: 'static>(
    new_bot: extern "C" fn() -> RResult<T, RString>,
    wrap: fn(T) -> Box<dyn Bot<G>>,
) -> Arc<dyn BotFactory<G>> {
    Arc::new(move || match new_bot() {
        ROk(bot) => Ok(wrap(bot)),
        RErr(msg) => Err(BotError::Failed(format!("constructor failed: {msg}"))),
    })
}

/// The bot factory of a C library: each game gets a fresh state from `create` (NULL is
/// the entry's error for that game), which `wrap` turns into the game's bot.
pub fn c_factory<G: Plays>(
    create: extern "C" fn() -> *mut std::ffi::c_void,
    wrap: impl Fn(*mut std::ffi::c_void) -> Box<dyn Bot<G>> + Send + Sync + 'static,
) -> Arc<dyn BotFactory<G>> {
    Arc::new(move || {
        let state = create();
        if state.is_null() { Err(BotError::Failed("create() returned NULL".to_owned())) } else { Ok(wrap(state)) }
    })
}

/// A C table's `create`, the game's `turn` (read by the caller, named `turn_name`) and
/// `destroy`, or the one-line reason the table lacks one.
#[allow(clippy::type_complexity)]
pub fn c_functions<T>(
    table: &CTable,
    turn: Option<T>,
    turn_name: &str,
) -> Result<(extern "C" fn() -> *mut std::ffi::c_void, T, extern "C" fn(*mut std::ffi::c_void)), String> {
    match (table.create(), turn, table.destroy()) {
        (Some(create), Some(turn), Some(destroy)) => Ok((create, turn, destroy)),
        _ => Err(format!("its bot table lacks create, {turn_name} or destroy")),
    }
}

/// Why a Rust library cannot play `game`: it was built before that game's bots.
pub fn without_bots(game: &str) -> String {
    format!("this library has no {game} bots (built before {game} was added to the ABI)")
}

/// What a library is, before any bot is made: its name, kind and game.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LibraryInfo {
    /// The entry's name.
    pub name: String,
    /// Rust or C ABI.
    pub kind: EntryKind,
    /// The game it plays.
    pub game: String,
}

/// Loads one library and says what it is (the probe of isolation reports this).
pub fn inspect(path: &Path) -> Result<LibraryInfo, String> {
    let (module, kind, _, _) = open(path)?;
    let (name, game) = identify(&module)?;
    Ok(LibraryInfo { name, kind, game })
}

/// True for a file name a native library has on this platform.
pub fn is_library_name(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()) == Some(std::env::consts::DLL_EXTENSION)
}

/// How a game makes the bots of a native library that declares it (each game's
/// `native.rs`: the ABI's bot objects as its `Bot`s).
pub trait NativeBots: Plays {
    /// The bots of a native library that declares this game.
    fn native_bots(module: &NativeModule) -> Result<Arc<dyn BotFactory<Self>>, String>;
}

/// Loads one library as an entry of game `G`, or says in one line why not (a library
/// of another game: "plays eggs; this is a zombies tournament"). A library that takes
/// a logger (ABI 1.2) is handed one writing to the entry's log in `limits.log_dir`.
pub fn load<G: Rules + NativeBots>(path: &Path, limits: &ScriptLimits) -> Result<Entry<G>, String> {
    let (module, kind, set_logger, set_debugger) = open(path)?;
    let (name, game) = identify(&module)?;
    check_game::<G>(&game)?;
    let bots = G::native_bots(&module)?;
    if let Some(set_logger) = set_logger {
        let log = Arc::new(EntryLog::new(limits.log_dir.as_deref(), &name, limits.log_append));
        set_logger(native_logger(log));
    }
    if let Some(set_debugger) = set_debugger {
        set_debugger(crate::debug::native_debugger());
    }
    Ok(Entry::new(name, kind, path.to_owned(), bots))
}

/// The one-line reason a library of `game` is not an entry of `G`, if it is not.
pub fn check_game<G: Rules>(game: &str) -> Result<(), String> {
    let article = if G::NAME.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
    if game == G::NAME { Ok(()) } else { Err(format!("plays {game}; this is {article} {} tournament", G::NAME)) }
}

/// Opens a library and finds its module, and how it takes a logger and a debug channel.
fn open(path: &Path) -> Result<(NativeModule, EntryKind, Option<SetLogger>, Option<SetLogger>), String> {
    let lib = open_now(path)?;
    // SAFETY: the symbol, if present, has the type the C header declares.
    let c_entry = unsafe { lib.get::<extern "C" fn() -> *const CBotTable>(c_symbol().as_bytes()) };
    match c_entry {
        Ok(entry) => {
            let entry = *entry;
            std::mem::forget(lib); // never unloaded
            let table = c_table(entry)?;
            Ok((NativeModule::C(table), EntryKind::NativeC, table.set_logger(), table.set_debug()))
        }
        Err(_) => {
            std::mem::forget(lib); // keeps the immediate binding done above
            let module = rust_module(path)?;
            Ok((NativeModule::Rust(module), EntryKind::Native, module.set_logger(), module.set_debugger()))
        }
    }
}

/// The name and the game a module declares.
fn identify(module: &NativeModule) -> Result<(String, String), String> {
    let (name, game) = match *module {
        NativeModule::Rust(m) => {
            (m.name().as_str().to_owned(), m.game().map_or(zombies_plugin_abi::FIRST_GAME, |g| g.as_str()).to_owned())
        }
        NativeModule::C(table) => {
            if table.name().is_null() {
                return Err("its bot table has no name".to_owned());
            }
            // SAFETY: the header requires a NUL-terminated string.
            let name = unsafe { CStr::from_ptr(table.name()) }
                .to_str()
                .map_err(|_| "its name is not UTF-8".to_owned())?
                .to_owned();
            let game = match table.game() {
                p if p.is_null() => zombies_plugin_abi::FIRST_GAME.to_owned(),
                // SAFETY: as for the name.
                p => unsafe { CStr::from_ptr(p) }.to_str().map_err(|_| "its game is not UTF-8")?.to_owned(),
            };
            (name, game)
        }
    };
    if !GAMES.contains(&game.as_str()) {
        return Err(format!(
            "declares the game {game:?}, which this host does not know (it plays {})",
            GAMES.join(", ")
        ));
    }
    Ok((name, game))
}

fn c_symbol() -> String {
    format!("{C_ENTRY_SYMBOL}\0")
}

#[cfg(unix)]
fn open_now(path: &Path) -> Result<libloading::Library, String> {
    use libloading::os::unix::{Library, RTLD_LOCAL, RTLD_NOW};
    // SAFETY: loading a library runs its initialisers; plugins are trusted to that extent.
    unsafe { Library::open(Some(path), RTLD_NOW | RTLD_LOCAL) }
        .map(libloading::Library::from)
        .map_err(|e| format!("not a loadable library ({})", error_chain(&e)))
}

#[cfg(not(unix))]
fn open_now(path: &Path) -> Result<libloading::Library, String> {
    // SAFETY: as above; Windows resolves imports at load time.
    unsafe { libloading::Library::new(path) }.map_err(|e| format!("not a loadable library ({})", error_chain(&e)))
}

fn rust_module(path: &Path) -> Result<BotModuleRef, String> {
    let header = lib_header_from_path(path).map_err(|e| describe(&e))?;
    // abi_stable's own checks (the version first, then the layout), against the 1.0
    // fields only: it accepts a library only with at least the checked type's fields,
    // and every 1.x library has these.
    let module = header.init_root_module::<any_version::BotModuleRef>().map_err(|e| describe(&e))?.into_current();
    // Then every field the library and this host both have, type by type (the other
    // games' contexts and answers included), whichever side has more fields.
    if let Some(library) = header.layout() {
        let host = <BotModuleRef as StableAbi>::LAYOUT;
        check_layout_compatibility(host, library)
            .or_else(|_| check_layout_compatibility(library, host))
            .map_err(|_| ABI_TYPES_DIFFER.to_owned())?;
    }
    if module.abi_version() != ABI_VERSION {
        return Err(format!("built for bot ABI version {}, this host speaks {ABI_VERSION}", module.abi_version()));
    }
    Ok(module)
}

/// Why a library whose types do not match this host's is skipped.
const ABI_TYPES_DIFFER: &str =
    "its ABI types differ from this host's (built against a changed or incompatible zombies-plugin-abi?)";

/// One line for an abi_stable loading error (some are pages long).
fn describe(err: &LibraryError) -> String {
    match err {
        LibraryError::OpenError { err, .. } => format!("not a loadable library ({})", error_chain(&**err)),
        LibraryError::GetSymbolError { .. } => {
            format!("not an arena bot: exports neither `{C_ENTRY_SYMBOL}` nor the abi_stable root module")
        }
        LibraryError::ParseVersionError(e) => format!("unreadable ABI version ({})", one_line(&e.to_string())),
        LibraryError::IncompatibleVersionNumber { expected_version, actual_version, .. } => format!(
            "built against zombies-plugin-abi {actual_version}, incompatible with this host's {expected_version}"
        ),
        LibraryError::AbiInstability(_) => ABI_TYPES_DIFFER.to_owned(),
        LibraryError::InvalidAbiHeader(_) | LibraryError::InvalidCAbi { .. } => {
            "built with an incompatible abi_stable or compiler ABI".to_owned()
        }
        LibraryError::RootModule { err, .. } => format!("its root module failed: {}", one_line(&err.to_string())),
        LibraryError::Many(errs) => errs.iter().next().map_or_else(|| "unknown loading error".to_owned(), describe),
    }
}

/// An error and its sources on one line (libloading puts the dlerror text in a source).
fn error_chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(s) = source {
        text = format!("{text}: {s}");
        source = s.source();
    }
    one_line(&text)
}

fn one_line(s: &str) -> String {
    let line = s.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    if line.chars().count() > 200 {
        format!("{}...", line.chars().take(200).collect::<String>())
    } else {
        line.to_owned()
    }
}

fn c_table(entry: extern "C" fn() -> *const CBotTable) -> Result<CTable, String> {
    let table = entry();
    if table.is_null() {
        return Err(format!("`{C_ENTRY_SYMBOL}` returned no table"));
    }
    // Read the two leading fields first: an old or foreign table may be shorter.
    // SAFETY: every version of the table starts with these two u32 fields.
    let (version, size) = unsafe {
        let head = table.cast::<u32>();
        (head.read(), head.add(1).read())
    };
    if version != ABI_VERSION {
        return Err(format!("built for bot ABI version {version}, this host speaks {ABI_VERSION}"));
    }
    if size < CBotTable::V1_0_SIZE {
        return Err(format!(
            "its bot table is {size} bytes, version {ABI_VERSION} needs at least {}",
            CBotTable::V1_0_SIZE
        ));
    }
    Ok(CTable { ptr: table, size })
}
