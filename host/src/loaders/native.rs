//! Native bots: shared libraries exporting either the abi_stable root module (Rust bots
//! built with `export_bot!`) or the plain C table of `zombies_bot.h`.
//!
//! Loading a library: open it with immediate symbol binding (so a library with an
//! unresolved symbol is rejected here instead of killing the host on its first call),
//! then look for the C entry symbol, else the abi_stable root module, and check the ABI
//! version, the layouts and the name. Libraries are never unloaded: function pointers
//! and statics from them stay valid for the whole process.
//!
//! This module loads and wraps bots; it does not isolate them (a native bot runs in
//! the host process and can crash it).

use std::ffi::{CStr, c_void};
use std::path::Path;
use std::sync::Arc;

use zombies_plugin_abi::abi_stable::library::{LibraryError, RootModule, lib_header_from_path};
use zombies_plugin_abi::abi_stable::std_types::{RErr, ROk};
use zombies_plugin_abi::{ABI_VERSION, Action, BotBox, BotModuleRef, C_ENTRY_SYMBOL, CBotTable, Context};

use crate::bot::{Bot, BotError, Entry, EntryKind};

/// True for a file name a native library has on this platform.
pub fn is_library_name(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()) == Some(std::env::consts::DLL_EXTENSION)
}

/// Loads one library as an entry, or says in one line why not.
pub fn load(path: &Path) -> Result<Entry, String> {
    let lib = open_now(path)?;
    // SAFETY: the symbol, if present, has the type the C header declares.
    let c_entry = unsafe { lib.get::<extern "C" fn() -> *const CBotTable>(c_symbol().as_bytes()) };
    match c_entry {
        Ok(entry) => {
            let entry = *entry;
            std::mem::forget(lib); // never unloaded
            load_c(path, entry)
        }
        Err(_) => {
            std::mem::forget(lib); // keeps the immediate binding done above
            load_abi_stable(path)
        }
    }
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

fn load_abi_stable(path: &Path) -> Result<Entry, String> {
    let header = lib_header_from_path(path).map_err(|e| describe(&e))?;
    let module = header.init_root_module::<BotModuleRef>().map_err(|e| describe(&e))?;
    if module.abi_version() != ABI_VERSION {
        return Err(format!("built for bot ABI version {}, this host speaks {ABI_VERSION}", module.abi_version()));
    }
    let name = module.name().as_str().to_owned();
    let new_bot = module.new_bot();
    let factory = move || match new_bot() {
        ROk(bot) => Ok(Box::new(NativeBot(bot)) as Box<dyn Bot>),
        RErr(msg) => Err(BotError::Failed(format!("constructor failed: {msg}"))),
    };
    Ok(Entry::new(name, EntryKind::Native, path.to_owned(), Arc::new(factory)))
}

/// One line for an abi_stable loading error (some are pages long).
fn describe(err: &LibraryError) -> String {
    match err {
        LibraryError::OpenError { err, .. } => format!("not a loadable library ({})", error_chain(&**err)),
        LibraryError::GetSymbolError { .. } => {
            format!("not a zombies bot: exports neither `{C_ENTRY_SYMBOL}` nor the abi_stable root module")
        }
        LibraryError::ParseVersionError(e) => format!("unreadable ABI version ({})", one_line(&e.to_string())),
        LibraryError::IncompatibleVersionNumber { expected_version, actual_version, .. } => format!(
            "built against zombies-plugin-abi {actual_version}, incompatible with this host's {expected_version}"
        ),
        LibraryError::AbiInstability(_) => format!(
            "its ABI types differ from this host's (built against another zombies-plugin-abi {}?)",
            BotModuleRef::VERSION_STRINGS.version
        ),
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

/// A Rust bot behind the abi_stable trait object.
struct NativeBot(BotBox);

impl Bot for NativeBot {
    #[inline]
    fn turn(&mut self, ctx: &Context<'_>) -> Result<Action, BotError> {
        match self.0.turn(ctx) {
            ROk(action) => Ok(action),
            RErr(msg) => Err(BotError::Failed(msg.into_string())),
        }
    }
}

/// The checked C table of a library.
#[derive(Clone, Copy)]
struct CFns {
    create: extern "C" fn() -> *mut c_void,
    turn: extern "C" fn(*mut c_void, &Context<'_>) -> Action,
    destroy: extern "C" fn(*mut c_void),
}

fn load_c(path: &Path, entry: extern "C" fn() -> *const CBotTable) -> Result<Entry, String> {
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
    if (size as usize) < std::mem::size_of::<CBotTable>() {
        return Err(format!(
            "its bot table is {size} bytes, version {ABI_VERSION} needs {}",
            std::mem::size_of::<CBotTable>()
        ));
    }
    // SAFETY: version and size say the table has every field of `CBotTable`.
    let table = unsafe { &*table };
    if table.name.is_null() {
        return Err("its bot table has no name".to_owned());
    }
    // SAFETY: the header requires a NUL-terminated string.
    let name =
        unsafe { CStr::from_ptr(table.name) }.to_str().map_err(|_| "its name is not UTF-8".to_owned())?.to_owned();
    let (Some(create), Some(turn), Some(destroy)) = (table.create, table.turn, table.destroy) else {
        return Err("its bot table lacks create, turn or destroy".to_owned());
    };
    let fns = CFns { create, turn, destroy };
    let factory = move || {
        let state = (fns.create)();
        if state.is_null() {
            Err(BotError::Failed("create() returned NULL".to_owned()))
        } else {
            Ok(Box::new(CBot { fns, state }) as Box<dyn Bot>)
        }
    };
    Ok(Entry::new(name, EntryKind::NativeC, path.to_owned(), Arc::new(factory)))
}

/// A C bot instance; destroyed with its game.
struct CBot {
    fns: CFns,
    state: *mut c_void,
}

impl Bot for CBot {
    #[inline]
    fn turn(&mut self, ctx: &Context<'_>) -> Result<Action, BotError> {
        Ok((self.fns.turn)(self.state, ctx))
    }
}

impl Drop for CBot {
    fn drop(&mut self) {
        (self.fns.destroy)(self.state);
    }
}
