//! What steward asks of the operating system and of git, with no rule of
//! steward's in it: commits through libgit2 and the one `git` process
//! helper (`git.rs`), the links in `.git` git would write through
//! (`git_links.rs`), the index patched for the paths a commit wrote
//! (`git_index/`), processes (`process.rs`), the agent
//! clients' sandbox settings (`sandbox.rs`), reading a file anyone who
//! can write the store may have planted (`safe_file.rs`), and the static
//! build's `memcpy` for small copies (`small_copy.rs`). The bottom layer:
//! it imports nothing of steward's but errors.
//!
//! What differs between Linux and macOS is in `platform`, one module each
//! with the same functions (`linux.rs`, `macos.rs`): processes, the boot,
//! orphans, renames that swap or refuse to replace, syncing a file system
//! and random bytes. Nothing outside it names a system call one of them
//! lacks.

pub mod git;
mod git_index;
mod git_links;
#[cfg(target_os = "linux")]
#[path = "linux.rs"]
pub mod platform;
#[cfg(target_os = "macos")]
#[path = "macos.rs"]
pub mod platform;
pub mod process;
pub mod safe_file;
pub mod sandbox;
pub mod small_copy;

/// How `platform::rename` treats what is at the target.
#[derive(Debug, Clone, Copy)]
pub enum Rename {
    /// Fail when something is there.
    NoReplace,
    /// Swap the two.
    Exchange,
}
