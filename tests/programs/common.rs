//! Helpers for the program tests: bots compiled or written into temporary directories.
#![allow(dead_code)]

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A world-readable temporary directory (so that a bot run as `nobody` can use it).
pub fn open_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).expect("chmod");
    dir
}

/// Compiles C source with `cc -O2`; `None` (after saying so) when there is no compiler.
pub fn compile_c(dir: &Path, name: &str, source: &str) -> Option<PathBuf> {
    let src = dir.join(format!("{name}.c"));
    std::fs::write(&src, source).expect("write C source");
    let exe = dir.join(name);
    match Command::new("cc").arg("-O2").arg("-o").arg(&exe).arg(&src).status() {
        Ok(s) if s.success() => Some(exe),
        Ok(s) => panic!("cc failed: {s}"),
        Err(_) => {
            crate::util::skip("skipped: `cc` not found");
            None
        }
    }
}

/// A python3 that any user can run (the system one if present), or `None` after saying so.
pub fn python() -> Option<PathBuf> {
    for p in ["/usr/bin/python3", "/usr/local/bin/python3"] {
        if Path::new(p).exists() {
            return Some(PathBuf::from(p));
        }
    }
    let out = Command::new("python3").args(["-c", "import sys; print(sys.executable)"]).output().ok();
    match out {
        Some(o) if o.status.success() => Some(PathBuf::from(String::from_utf8_lossy(&o.stdout).trim())),
        _ => {
            crate::util::skip("skipped: `python3` not found");
            None
        }
    }
}

/// Writes a Python bot and returns its argv (`[python, script]`).
pub fn python_bot(python: &Path, dir: &Path, name: &str, source: &str) -> Vec<std::ffi::OsString> {
    let script = dir.join(name);
    std::fs::write(&script, source).expect("write script");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    vec![python.into(), script.into()]
}

pub const C_ECHO: &str = r#"
#include <unistd.h>
int main(void) {
    char b[65536];
    for (;;) {
        ssize_t n = read(0, b, sizeof b);
        if (n <= 0) return 0;
        ssize_t off = 0;
        while (off < n) { ssize_t w = write(1, b + off, n - off); if (w <= 0) return 1; off += w; }
    }
}
"#;

pub const PY_ECHO: &str = "import sys\nfor line in sys.stdin:\n    sys.stdout.write(line)\n    sys.stdout.flush()\n";

/// A sink that tests can read while the process writes to it.
#[derive(Clone, Default)]
pub struct SharedSink(pub Arc<Mutex<Vec<u8>>>);

impl Write for SharedSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl SharedSink {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
    pub fn len(&self) -> usize {
        self.0.lock().unwrap().len()
    }
}

/// (pid, pgid, uid, state) of every process in /proc.
pub fn processes() -> Vec<(i32, i32, u32, char)> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else { return out };
    for e in entries.flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else { continue };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
        let Some(close) = stat.rfind(')') else { continue };
        let fields: Vec<&str> = stat[close + 2..].split_whitespace().collect();
        let state = fields.first().and_then(|s| s.chars().next()).unwrap_or('?');
        let pgid = fields.get(2).and_then(|s| s.parse().ok()).unwrap_or(-1);
        let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else { continue };
        let uid = status
            .lines()
            .find_map(|l| l.strip_prefix("Uid:"))
            .and_then(|l| l.split_whitespace().next())
            .and_then(|u| u.parse().ok())
            .unwrap_or(u32::MAX);
        out.push((pid, pgid, uid, state));
    }
    out
}

/// Processes (zombies included) in process group `pgid`.
pub fn in_group(pgid: i32) -> Vec<(i32, i32, u32, char)> {
    processes().into_iter().filter(|p| p.1 == pgid).collect()
}

/// Waits up to `limit` for `cond`.
pub fn eventually(limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + limit;
    loop {
        if cond() {
            return true;
        }
        if Instant::now() >= end {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The VmRSS of this process in KiB.
pub fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}
