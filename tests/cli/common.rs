//! A temporary store root, a clean environment and a fixed clock.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

pub const NOW: &str = "2026-11-21T04:00:00Z";

pub struct TestEnv {
    dir: tempfile::TempDir,
    now: String,
}

impl TestEnv {
    pub fn new() -> TestEnv {
        TestEnv {
            dir: tempfile::tempdir().expect("temp dir"),
            now: NOW.to_string(),
        }
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }

    pub fn set_now(&mut self, now: &str) {
        self.now = now.to_string();
    }

    /// `steward` run in the root with only the variables a test sets.
    pub fn steward(&self) -> Command {
        let mut cmd = Command::cargo_bin("steward").expect("binary built");
        cmd.env_clear()
            .current_dir(self.root())
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("STEWARD_NOW", &self.now)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1");
        cmd
    }

    pub fn read(&self, relative: &str) -> String {
        std::fs::read_to_string(self.path(relative))
            .unwrap_or_else(|err| panic!("{relative}: {err}"))
    }

    pub fn write(&self, relative: &str, contents: &str) {
        let path = self.path(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, contents).unwrap();
    }
}
