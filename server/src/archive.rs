//! Archive uploads: a program bot with files of its own, sent as a `.tar.gz` (`.tgz`), a
//! `.tar` or a `.zip`, read and checked whole in memory before anything is written.
//!
//! An archive is refused, in one line, unless every entry is a regular file or a
//! directory with a plain relative path (no absolute path, no `..`, no backslash or
//! control character, at most [`MAX_DEPTH`] directories deep) given once, within the
//! caps ([`Caps`]: entries, bytes of one file unpacked, bytes unpacked in all: a zip or
//! gzip bomb stops at the cap, whatever its headers claim), and its top directory holds
//! the entry point `main`: a program (starting with `#!`, or an ELF executable). An
//! archive whose entries all sit in one directory (`tar czf mybot.tgz mybot/`) is read
//! from inside it. Symbolic and hard links, devices, FIFOs, sparse files and encrypted
//! zip entries are refused, never followed.
//!
//! Not here: where the tree is put and how it is run (`submit`: `<name>.files/` beside a
//! launcher, the host's convention for a program with files), the check (the caller's
//! `Checker`). [`Tree::write`] writes only regular files and directories into a new
//! directory, so nothing it writes can lead outside it.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

/// The most directories an entry's path may go down.
pub const MAX_DEPTH: usize = 16;
/// The longest path of an entry, in bytes.
pub const MAX_PATH: usize = 1024;
/// The entry point: the program at the archive's top that runs.
pub const MAIN: &str = "main";

/// How much an archive may unpack to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
    /// Entries (files and directories).
    pub entries: usize,
    /// Bytes of one file.
    pub file: u64,
    /// Bytes of all files together.
    pub total: u64,
}

impl Default for Caps {
    /// 1,000 entries, 16 MiB a file, 32 MiB in all.
    fn default() -> Caps {
        Caps { entries: 1_000, file: 16 << 20, total: 32 << 20 }
    }
}

/// The kinds of archive accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// A gzip-compressed tar (`.tar.gz`, `.tgz`).
    TarGz,
    /// A tar (`.tar`).
    Tar,
    /// A zip (`.zip`): stored or deflated entries.
    Zip,
}

impl Format {
    /// The format its file name says (`None`: not an archive's name).
    pub fn of(file_name: &str) -> Option<Format> {
        let lower = file_name.to_ascii_lowercase();
        if lower.ends_with(".tar.gz") || lower.ends_with(".tgz") {
            Some(Format::TarGz)
        } else if lower.ends_with(".tar") {
            Some(Format::Tar)
        } else if lower.ends_with(".zip") {
            Some(Format::Zip)
        } else {
            None
        }
    }

    fn name(self) -> &'static str {
        match self {
            Format::TarGz => "tar.gz",
            Format::Tar => "tar",
            Format::Zip => "zip",
        }
    }
}

/// Why an archive is refused, in one line (without the upload's name, which the caller
/// puts first).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArchiveError {
    /// It cannot be read as what its name says.
    #[error("not a readable {format} archive: {why}")]
    Corrupt {
        /// The format.
        format: &'static str,
        /// What the reader said.
        why: String,
    },
    /// More entries than the cap.
    #[error("more than {cap} entries")]
    TooManyEntries {
        /// The cap.
        cap: usize,
    },
    /// A file larger than the cap.
    #[error("{name:?}: more than {cap} bytes unpacked")]
    FileTooLarge {
        /// The entry.
        name: String,
        /// The cap.
        cap: u64,
    },
    /// More bytes in all than the cap.
    #[error("more than {cap} bytes unpacked in all")]
    TooLarge {
        /// The cap.
        cap: u64,
    },
    /// An absolute path.
    #[error("{name:?}: an absolute path (entries must be relative)")]
    Absolute {
        /// The entry.
        name: String,
    },
    /// A path with `..`.
    #[error("{name:?}: a path through `..` (entries must stay inside the archive)")]
    Parent {
        /// The entry.
        name: String,
    },
    /// A link, a device or another entry that is not a file or a directory.
    #[error("{name:?}: {what}: only regular files and directories are accepted")]
    NotAFile {
        /// The entry.
        name: String,
        /// What it is.
        what: String,
    },
    /// A path given twice, or a file that is also a directory.
    #[error("{name:?}: {why}")]
    Duplicate {
        /// The entry.
        name: String,
        /// How.
        why: &'static str,
    },
    /// A path that is not a plain one.
    #[error("{name:?}: {why}")]
    BadName {
        /// The entry (as text, lossily).
        name: String,
        /// Why.
        why: String,
    },
    /// No entry point.
    #[error("no entry point: the archive's top directory must hold the program `main` (its other files beside it)")]
    NoMain,
    /// An entry point that is not a program.
    #[error("`main` is not a program: it must start with #! or be an ELF executable")]
    MainNotAProgram,
}

/// One file of an archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct File {
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// Whether it had a run bit (`main` always gets one).
    pub executable: bool,
}

/// An archive read and checked: its files and directories by relative path, `main` among
/// the files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tree {
    /// Files by path (components joined with `/`).
    pub files: BTreeMap<String, File>,
    /// Directories by path (those given and those above a file).
    pub dirs: std::collections::BTreeSet<String>,
}

impl Tree {
    /// The entry point's bytes.
    pub fn main(&self) -> &[u8] {
        self.files.get(MAIN).map_or(&[], |f| &f.bytes)
    }

    /// Bytes of all files.
    pub fn size(&self) -> u64 {
        self.files.values().map(|f| f.bytes.len() as u64).sum()
    }

    /// Writes the tree into `dir`, which must not exist yet: directories 0755, files
    /// 0644, or 0755 with a run bit (`main` always). Only regular files and directories
    /// are made, each new (`create_new`), under paths checked to be plain.
    pub fn write(&self, dir: &Path) -> std::io::Result<()> {
        use std::io::Write as _;
        use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _, PermissionsExt as _};
        std::fs::DirBuilder::new().mode(0o755).create(dir)?;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755))?;
        for d in &self.dirs {
            let path = dir.join(d);
            std::fs::DirBuilder::new().mode(0o755).create(&path)?;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?;
        }
        for (name, file) in &self.files {
            let mode = if file.executable || name == MAIN { 0o755 } else { 0o644 };
            let path = dir.join(name);
            let mut f = std::fs::OpenOptions::new().write(true).create_new(true).mode(mode).open(&path)?;
            f.write_all(&file.bytes)?;
            f.set_permissions(std::fs::Permissions::from_mode(mode))?;
            f.sync_all()?;
        }
        Ok(())
    }
}

/// Reads the archive `bytes` of `format` within `caps` and checks it (module doc).
pub fn read(format: Format, bytes: &[u8], caps: Caps) -> Result<Tree, ArchiveError> {
    let corrupt = |why: String| ArchiveError::Corrupt { format: format.name(), why };
    let entries = match format {
        Format::TarGz => {
            if !bytes.starts_with(&[0x1f, 0x8b]) {
                return Err(corrupt("it does not start as a gzip stream".to_owned()));
            }
            read_tar(flate2::read::GzDecoder::new(bytes), caps, &corrupt)?
        }
        Format::Tar => read_tar(bytes, caps, &corrupt)?,
        Format::Zip => read_zip(bytes, caps, &corrupt)?,
    };
    build(entries)
}

/// One entry as read: its path as given, and its file (`None`: a directory).
type Raw = (Vec<u8>, Option<File>);

/// A reader that gives at most `cap` bytes and then fails, saying so in `over`: what a
/// compressed stream may unpack to, headers included.
struct Capped<R> {
    inner: R,
    left: u64,
    over: std::rc::Rc<std::cell::Cell<bool>>,
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.left == 0 {
            // Past the cap: fail unless the stream has really ended.
            let mut probe = [0u8; 1];
            return match self.inner.read(&mut probe)? {
                0 => Ok(0),
                _ => {
                    self.over.set(true);
                    Err(std::io::Error::other("the archive unpacks to more than its cap"))
                }
            };
        }
        let n = buf.len().min(usize::try_from(self.left).unwrap_or(usize::MAX));
        let got = self.inner.read(&mut buf[..n])?;
        self.left -= got as u64;
        Ok(got)
    }
}

/// Why a file could not be read: a cap, or the reader's error.
enum FileRead {
    Refused(ArchiveError),
    Failed(std::io::Error),
}

/// Reads a file's bytes, at most `caps.file` of them and what is left of `caps.total`.
fn read_file(reader: &mut dyn Read, name: &[u8], caps: Caps, total: &mut u64) -> Result<Vec<u8>, FileRead> {
    let mut bytes = Vec::new();
    let limit = caps.file.min(caps.total - *total) + 1;
    reader.take(limit).read_to_end(&mut bytes).map_err(FileRead::Failed)?;
    let len = bytes.len() as u64;
    if len > caps.file {
        return Err(FileRead::Refused(ArchiveError::FileTooLarge { name: lossy(name), cap: caps.file }));
    }
    if *total + len > caps.total {
        return Err(FileRead::Refused(ArchiveError::TooLarge { cap: caps.total }));
    }
    *total += len;
    Ok(bytes)
}

fn lossy(name: &[u8]) -> String {
    let text = String::from_utf8_lossy(name);
    if text.chars().count() > 100 { text.chars().take(100).chain("...".chars()).collect() } else { text.into_owned() }
}

fn read_tar(reader: impl Read, caps: Caps, corrupt: &dyn Fn(String) -> ArchiveError) -> Result<Vec<Raw>, ArchiveError> {
    use tar::EntryType;
    let over = std::rc::Rc::new(std::cell::Cell::new(false));
    // Headers take 512 bytes an entry, and as much again of padding at most; long names
    // and pax records are counted against the same cap.
    let cap = caps.total.saturating_add(2048 * caps.entries as u64).saturating_add(1 << 20);
    let capped = Capped { inner: reader, left: cap, over: std::rc::Rc::clone(&over) };
    let mut archive = tar::Archive::new(capped);
    let mut out = Vec::new();
    let mut total = 0u64;
    let fail = |e: std::io::Error| {
        if over.get() { ArchiveError::TooLarge { cap: caps.total } } else { corrupt(e.to_string()) }
    };
    for entry in archive.entries().map_err(fail)? {
        let mut entry = entry.map_err(fail)?;
        if out.len() >= caps.entries {
            return Err(ArchiveError::TooManyEntries { cap: caps.entries });
        }
        let name = entry.path_bytes().into_owned();
        let header = entry.header();
        let what = match header.entry_type() {
            EntryType::Regular | EntryType::Continuous => None,
            EntryType::Directory => {
                out.push((name, None));
                continue;
            }
            EntryType::Symlink => Some("a symbolic link".to_owned()),
            EntryType::Link => Some("a hard link".to_owned()),
            EntryType::Char | EntryType::Block => Some("a device".to_owned()),
            EntryType::Fifo => Some("a FIFO".to_owned()),
            EntryType::GNUSparse => Some("a sparse file".to_owned()),
            other => Some(format!("an entry of tar type {:?}", other.as_byte() as char)),
        };
        if let Some(what) = what {
            return Err(ArchiveError::NotAFile { name: lossy(&name), what });
        }
        let executable = header.mode().unwrap_or(0o644) & 0o111 != 0;
        if header.size().unwrap_or(0) > caps.file {
            return Err(ArchiveError::FileTooLarge { name: lossy(&name), cap: caps.file });
        }
        let bytes = match read_file(&mut entry, &name, caps, &mut total) {
            Ok(bytes) => bytes,
            Err(FileRead::Refused(refusal)) => return Err(refusal),
            Err(FileRead::Failed(e)) => return Err(fail(e)),
        };
        out.push((name, Some(File { bytes, executable })));
    }
    Ok(out)
}

fn read_zip(bytes: &[u8], caps: Caps, corrupt: &dyn Fn(String) -> ArchiveError) -> Result<Vec<Raw>, ArchiveError> {
    if !(bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06")) {
        return Err(corrupt("it does not start as a zip file".to_owned()));
    }
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).map_err(|e| corrupt(e.to_string()))?;
    if zip.len() > caps.entries {
        return Err(ArchiveError::TooManyEntries { cap: caps.entries });
    }
    let mut out = Vec::new();
    let mut total = 0u64;
    for i in 0..zip.len() {
        let shown = zip.name_for_index(i).and_then(Result::ok).map_or_else(|| "?".to_owned(), |n| lossy(n.as_bytes()));
        let mut file = match zip.by_index(i) {
            Ok(file) => file,
            Err(zip::result::ZipError::UnsupportedArchive(why)) => {
                return Err(ArchiveError::NotAFile { name: shown, what: format!("unsupported ({why})") });
            }
            Err(e) => return Err(corrupt(e.to_string())),
        };
        let name = file.name_raw().to_vec();
        const TYPE: u32 = 0o170_000;
        let mode = file.unix_mode();
        let what = match mode.map(|m| m & TYPE) {
            None | Some(0) | Some(0o100_000) | Some(0o040_000) => None,
            Some(0o120_000) => Some("a symbolic link"),
            Some(0o020_000) | Some(0o060_000) => Some("a device"),
            Some(0o010_000) => Some("a FIFO"),
            Some(0o140_000) => Some("a socket"),
            Some(_) => Some("an entry of unknown type"),
        };
        if let Some(what) = what {
            return Err(ArchiveError::NotAFile { name: lossy(&name), what: what.to_owned() });
        }
        if file.is_dir() || mode.is_some_and(|m| m & TYPE == 0o040_000) {
            out.push((name, None));
            continue;
        }
        if file.size() > caps.file {
            return Err(ArchiveError::FileTooLarge { name: lossy(&name), cap: caps.file });
        }
        let executable = mode.is_some_and(|m| m & 0o111 != 0);
        let bytes = match read_file(&mut file, &name, caps, &mut total) {
            Ok(bytes) => bytes,
            Err(FileRead::Refused(refusal)) => return Err(refusal),
            Err(FileRead::Failed(e)) => return Err(corrupt(format!("{:?}: {e}", lossy(&name)))),
        };
        out.push((name, Some(File { bytes, executable })));
    }
    Ok(out)
}

/// An entry's path checked to be plain: its components (`.` dropped), or why not.
fn components(raw: &[u8]) -> Result<Vec<String>, ArchiveError> {
    let bad = |why: &str| ArchiveError::BadName { name: lossy(raw), why: why.to_owned() };
    let name = std::str::from_utf8(raw).map_err(|_| bad("not UTF-8"))?;
    if name.starts_with('/') {
        return Err(ArchiveError::Absolute { name: lossy(raw) });
    }
    if name.len() > MAX_PATH {
        return Err(bad(&format!("a path longer than {MAX_PATH} bytes")));
    }
    if name.contains('\\') {
        return Err(bad("a backslash (directories are separated by /)"));
    }
    if name.chars().any(char::is_control) {
        return Err(bad("a control character"));
    }
    let mut parts = Vec::new();
    for part in name.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err(ArchiveError::Parent { name: lossy(raw) }),
            _ => parts.push(part.to_owned()),
        }
    }
    if parts.len() > MAX_DEPTH + 1 {
        return Err(bad(&format!("more than {MAX_DEPTH} directories deep")));
    }
    Ok(parts)
}

/// The tree of the entries read: paths checked, given once, `main` found.
fn build(entries: Vec<Raw>) -> Result<Tree, ArchiveError> {
    let mut seen: BTreeMap<Vec<String>, bool> = BTreeMap::new();
    let mut files: Vec<(Vec<String>, File)> = Vec::new();
    for (raw, file) in entries {
        let parts = components(&raw)?;
        if parts.is_empty() {
            if file.is_some() {
                return Err(ArchiveError::BadName { name: lossy(&raw), why: "a file without a name".to_owned() });
            }
            continue;
        }
        if seen.insert(parts.clone(), file.is_some()).is_some() {
            return Err(ArchiveError::Duplicate { name: parts.join("/"), why: "given twice" });
        }
        if let Some(file) = file {
            files.push((parts, file));
        }
    }
    // A file must not stand where a directory is needed.
    for parts in seen.keys() {
        for depth in 1..parts.len() {
            if seen.get(&parts[..depth]) == Some(&true) {
                return Err(ArchiveError::Duplicate {
                    name: parts[..depth].join("/"),
                    why: "both a file and a directory",
                });
            }
        }
    }
    // Everything in one directory, and no `main` above it: read from inside it.
    let top: Option<&String> = seen.keys().next().map(|p| &p[0]);
    let strip = match top {
        Some(top) => {
            !seen.contains_key(&vec![MAIN.to_owned()])
                && seen.get(std::slice::from_ref(top)) != Some(&true)
                && seen.keys().all(|p| &p[0] == top)
                && seen.get(&vec![top.clone(), MAIN.to_owned()]) == Some(&true)
        }
        None => false,
    };
    let mut tree = Tree::default();
    for (parts, file) in files {
        let parts = if strip { &parts[1..] } else { &parts[..] };
        for depth in 1..parts.len() {
            tree.dirs.insert(parts[..depth].join("/"));
        }
        tree.files.insert(parts.join("/"), file);
    }
    for parts in seen.iter().filter(|(_, f)| !**f).map(|(p, _)| p) {
        let parts = if strip { &parts[1..] } else { &parts[..] };
        if !parts.is_empty() {
            tree.dirs.insert(parts.join("/"));
        }
    }
    match tree.files.get(MAIN) {
        None => Err(ArchiveError::NoMain),
        Some(f) if !(f.bytes.starts_with(b"#!") || f.bytes.starts_with(b"\x7fELF")) => {
            Err(ArchiveError::MainNotAProgram)
        }
        Some(_) => Ok(tree),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tar entry: its path (written raw, unchecked), type, bytes and mode.
    struct Entry<'a>(&'a str, tar::EntryType, &'a [u8], u32);

    fn tar_bytes(entries: &[Entry<'_>]) -> Vec<u8> {
        let mut builder = tar::Builder::new(Vec::new());
        for Entry(path, kind, bytes, mode) in entries {
            let mut h = tar::Header::new_gnu();
            let name = &mut h.as_old_mut().name;
            name[..path.len()].copy_from_slice(path.as_bytes());
            h.set_entry_type(*kind);
            h.set_mode(*mode);
            h.set_size(bytes.len() as u64);
            if matches!(kind, tar::EntryType::Symlink | tar::EntryType::Link) {
                h.set_link_name("main").unwrap();
            }
            h.set_cksum();
            builder.append(&h, *bytes).unwrap();
        }
        builder.into_inner().unwrap()
    }

    fn tgz(entries: &[Entry<'_>]) -> Vec<u8> {
        use std::io::Write as _;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(&tar_bytes(entries)).unwrap();
        gz.finish().unwrap()
    }

    /// A zip of `(path, bytes, unix mode)`; a mode of 0o120777 makes a symbolic link.
    fn zip_bytes(entries: &[(&str, &[u8], u32)]) -> Vec<u8> {
        use std::io::Write as _;
        use zip::write::SimpleFileOptions;
        let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        for (path, bytes, mode) in entries {
            let options = SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Deflated)
                .unix_permissions(*mode & 0o777);
            if mode & 0o170_000 == 0o120_000 {
                w.add_symlink(*path, "main", options).unwrap();
            } else if path.ends_with('/') {
                w.add_directory(*path, options).unwrap();
            } else {
                w.start_file(*path, options).unwrap();
                w.write_all(bytes).unwrap();
            }
        }
        w.finish().unwrap().into_inner()
    }

    const MAIN_SH: &[u8] = b"#!/bin/sh\nread -r a < lib/answer.txt\nwhile read -r l; do echo \"$a\"; done\n";

    fn good() -> Vec<Entry<'static>> {
        vec![
            Entry("main", tar::EntryType::Regular, MAIN_SH, 0o644),
            Entry("lib/", tar::EntryType::Directory, b"", 0o755),
            Entry("lib/answer.txt", tar::EntryType::Regular, b"STAY\n", 0o644),
            Entry("tool", tar::EntryType::Regular, b"#!/bin/sh\n", 0o755),
        ]
    }

    #[test]
    fn a_good_tar_gz_zip_and_tar_give_the_same_tree_and_write_it_with_run_bits_only_where_due() {
        let caps = Caps::default();
        let a = read(Format::TarGz, &tgz(&good()), caps).unwrap();
        let b = read(Format::Tar, &tar_bytes(&good()), caps).unwrap();
        let c = read(
            Format::Zip,
            &zip_bytes(&[
                ("main", MAIN_SH, 0o100_644),
                ("lib/", b"", 0o040_755),
                ("lib/answer.txt", b"STAY\n", 0o100_644),
                ("tool", b"#!/bin/sh\n", 0o100_755),
            ]),
            caps,
        )
        .unwrap();
        assert_eq!(a, b);
        assert_eq!(a, c);
        assert_eq!(a.files.keys().collect::<Vec<_>>(), ["lib/answer.txt", "main", "tool"]);
        assert_eq!(a.size(), (MAIN_SH.len() + 5 + 10) as u64);
        let dir = tempfile::tempdir().unwrap();
        let to = dir.path().join("t");
        a.write(&to).unwrap();
        use std::os::unix::fs::PermissionsExt as _;
        let mode = |p: &str| std::fs::metadata(to.join(p)).unwrap().permissions().mode() & 0o777;
        assert_eq!((mode("main"), mode("tool"), mode("lib/answer.txt"), mode("lib")), (0o755, 0o755, 0o644, 0o755));
        assert_eq!(std::fs::read(to.join("lib/answer.txt")).unwrap(), b"STAY\n");
        assert!(a.write(&to).is_err(), "a tree is written only into a new directory");
    }

    #[test]
    fn an_archive_of_one_directory_is_read_from_inside_it() {
        let t = tgz(&[
            Entry("./mybot/", tar::EntryType::Directory, b"", 0o755),
            Entry("./mybot/main", tar::EntryType::Regular, MAIN_SH, 0o755),
            Entry("./mybot/lib/answer.txt", tar::EntryType::Regular, b"STAY\n", 0o644),
        ]);
        let tree = read(Format::TarGz, &t, Caps::default()).unwrap();
        assert_eq!(tree.files.keys().collect::<Vec<_>>(), ["lib/answer.txt", "main"]);
        assert!(tree.dirs.contains("lib"));
    }

    fn refusal(format: Format, bytes: &[u8]) -> String {
        read(format, bytes, Caps::default()).unwrap_err().to_string()
    }

    #[test]
    fn paths_out_of_the_archive_are_refused() {
        let mut e = good();
        e.push(Entry("lib/../../evil", tar::EntryType::Regular, b"x", 0o644));
        assert_eq!(
            refusal(Format::TarGz, &tgz(&e)),
            "\"lib/../../evil\": a path through `..` (entries must stay inside the archive)"
        );
        let mut e = good();
        e.push(Entry("/etc/evil", tar::EntryType::Regular, b"x", 0o644));
        assert_eq!(refusal(Format::Tar, &tar_bytes(&e)), "\"/etc/evil\": an absolute path (entries must be relative)");
        let z = zip_bytes(&[("main", MAIN_SH, 0o100_755), ("../evil", b"x", 0o100_644)]);
        assert!(refusal(Format::Zip, &z).contains("\"../evil\": a path through `..`"));
        let z = zip_bytes(&[("main", MAIN_SH, 0o100_755), ("a\\..\\evil", b"x", 0o100_644)]);
        assert!(refusal(Format::Zip, &z).contains("a backslash"));
        let deep = format!("{}f", "d/".repeat(MAX_DEPTH + 1));
        let z = zip_bytes(&[("main", MAIN_SH, 0o100_755), (&deep, b"x", 0o100_644)]);
        assert!(refusal(Format::Zip, &z).contains("directories deep"));
    }

    #[test]
    fn links_devices_and_fifos_are_refused_never_followed() {
        for (kind, what) in [
            (tar::EntryType::Symlink, "a symbolic link"),
            (tar::EntryType::Link, "a hard link"),
            (tar::EntryType::Char, "a device"),
            (tar::EntryType::Block, "a device"),
            (tar::EntryType::Fifo, "a FIFO"),
        ] {
            let mut e = good();
            e.push(Entry("lib/x", kind, b"", 0o644));
            assert_eq!(
                refusal(Format::TarGz, &tgz(&e)),
                format!("\"lib/x\": {what}: only regular files and directories are accepted")
            );
        }
        let z = zip_bytes(&[("main", MAIN_SH, 0o100_755), ("link", b"", 0o120_777)]);
        assert_eq!(
            refusal(Format::Zip, &z),
            "\"link\": a symbolic link: only regular files and directories are accepted"
        );
    }

    #[test]
    fn names_given_twice_are_refused() {
        let mut e = good();
        e.push(Entry("./lib/answer.txt", tar::EntryType::Regular, b"MOVE\n", 0o644));
        assert_eq!(refusal(Format::TarGz, &tgz(&e)), "\"lib/answer.txt\": given twice");
        let mut e = good();
        e.push(Entry("tool/inner", tar::EntryType::Regular, b"x", 0o644));
        assert_eq!(refusal(Format::TarGz, &tgz(&e)), "\"tool\": both a file and a directory");
    }

    #[test]
    fn bombs_stop_at_the_caps_whatever_the_headers_say() {
        let zeros = vec![0u8; 20 << 20];
        // One file over the cap of a file (16 MiB), compressed to a few kilobytes.
        let z = zip_bytes(&[("main", MAIN_SH, 0o100_755), ("zeros", &zeros, 0o100_644)]);
        assert!(z.len() < 100_000, "{} bytes", z.len());
        assert_eq!(refusal(Format::Zip, &z), "\"zeros\": more than 16777216 bytes unpacked");
        let mut e = good();
        e.push(Entry("zeros", tar::EntryType::Regular, &zeros, 0o644));
        let t = tgz(&e);
        assert!(t.len() < 100_000, "{} bytes", t.len());
        assert_eq!(refusal(Format::TarGz, &t), "\"zeros\": more than 16777216 bytes unpacked");
        // Files under that cap, over the total's (32 MiB).
        let twelve = vec![0u8; 12 << 20];
        let z = zip_bytes(&[
            ("main", MAIN_SH, 0o100_755),
            ("a", &twelve, 0o644),
            ("b", &twelve, 0o644),
            ("c", &twelve, 0o644),
        ]);
        assert_eq!(refusal(Format::Zip, &z), "more than 33554432 bytes unpacked in all");
        let mut e = good();
        for n in ["a", "b", "c"] {
            e.push(Entry(n, tar::EntryType::Regular, &twelve, 0o644));
        }
        assert_eq!(refusal(Format::TarGz, &tgz(&e)), "more than 33554432 bytes unpacked in all");
        // Smaller caps, and a header over them: refused before it is read.
        let caps = Caps { entries: 10, file: 1 << 10, total: 4 << 10 };
        let mut e = good();
        e.push(Entry("big", tar::EntryType::Regular, &zeros[..64 << 10], 0o644));
        assert_eq!(
            read(Format::TarGz, &tgz(&e), caps).unwrap_err().to_string(),
            "\"big\": more than 1024 bytes unpacked"
        );
        // Too many entries.
        let names: Vec<String> = (0..12).map(|i| format!("f{i}")).collect();
        let mut e = good();
        e.extend(names.iter().map(|n| Entry(n, tar::EntryType::Regular, b"x", 0o644)));
        assert_eq!(read(Format::TarGz, &tgz(&e), caps).unwrap_err().to_string(), "more than 10 entries");
        let many: Vec<(&str, &[u8], u32)> = names.iter().map(|n| (n.as_str(), &b"x"[..], 0o100_644)).collect();
        assert_eq!(read(Format::Zip, &zip_bytes(&many), caps).unwrap_err().to_string(), "more than 10 entries");
    }

    #[test]
    fn a_stream_past_its_cap_fails_and_says_so() {
        let over = std::rc::Rc::new(std::cell::Cell::new(false));
        let mut capped = Capped { inner: &[7u8; 10][..], left: 6, over: std::rc::Rc::clone(&over) };
        let mut out = Vec::new();
        assert!(capped.read_to_end(&mut out).is_err());
        assert!(over.get());
        assert_eq!(out.len(), 6);
        let over = std::rc::Rc::new(std::cell::Cell::new(false));
        let mut exact = Capped { inner: &[7u8; 10][..], left: 10, over: std::rc::Rc::clone(&over) };
        assert_eq!(exact.read_to_end(&mut Vec::new()).unwrap(), 10);
        assert!(!over.get());
    }

    #[test]
    fn an_archive_without_a_program_named_main_is_refused() {
        let e = [Entry("bot.py", tar::EntryType::Regular, b"#!/usr/bin/python3\n", 0o755)];
        assert!(
            refusal(Format::TarGz, &tgz(&e))
                .starts_with("no entry point: the archive's top directory must hold the program `main`")
        );
        let e = [Entry("main", tar::EntryType::Regular, b"print('STAY')\n", 0o755)];
        assert_eq!(
            refusal(Format::TarGz, &tgz(&e)),
            "`main` is not a program: it must start with #! or be an ELF executable"
        );
        let e = [
            Entry("sub/main", tar::EntryType::Regular, MAIN_SH, 0o755),
            Entry("other", tar::EntryType::Regular, b"", 0o644),
        ];
        assert!(refusal(Format::TarGz, &tgz(&e)).starts_with("no entry point"));
        assert!(refusal(Format::Zip, &zip_bytes(&[])).starts_with("no entry point"));
    }

    #[test]
    fn corrupt_archives_are_refused_saying_what_they_are_not() {
        assert_eq!(
            refusal(Format::TarGz, b"hello"),
            "not a readable tar.gz archive: it does not start as a gzip stream"
        );
        assert_eq!(refusal(Format::Zip, b"hello"), "not a readable zip archive: it does not start as a zip file");
        let t = tgz(&good());
        assert!(refusal(Format::TarGz, &t[..t.len() / 2]).starts_with("not a readable tar.gz archive: "));
        let z = zip_bytes(&[("main", MAIN_SH, 0o100_755)]);
        assert!(refusal(Format::Zip, &z[..z.len() - 10]).starts_with("not a readable zip archive: "));
        let mut t = tar_bytes(&good());
        t[600] ^= 0xff;
        t[148] ^= 0x01;
        assert!(refusal(Format::Tar, &t).starts_with("not a readable tar archive: "), "{}", refusal(Format::Tar, &t));
    }

    #[test]
    fn formats_come_from_the_file_name() {
        assert_eq!(Format::of("a.tar.gz"), Some(Format::TarGz));
        assert_eq!(Format::of("a.TGZ"), Some(Format::TarGz));
        assert_eq!(Format::of("a.tar"), Some(Format::Tar));
        assert_eq!(Format::of("a.zip"), Some(Format::Zip));
        assert_eq!(Format::of("a.gz"), None);
        assert_eq!(Format::of("main"), None);
    }
}
