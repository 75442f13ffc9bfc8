//! The `zombies` binary end to end.

use std::process::Command;

fn zombies() -> Command {
    Command::new(env!("CARGO_BIN_EXE_zombies"))
}

#[test]
fn play_without_entries_fails_with_one_clear_line() {
    let dir = std::env::temp_dir().join(format!("zombies-empty-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = zombies()
        .args(["--plugins"])
        .arg(&dir)
        .arg("--scripts")
        .arg(&dir)
        .args(["play", "--seed", "1"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no entries found"), "{err}");
}
