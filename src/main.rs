//! The `steward` binary: the C runtime's `main`, straight into
//! [`steward::run`].
//!
//! std's own `main` (the one `fn main` gets) finds, on glibc, the main
//! thread's stack guard by reading `/proc/self/maps`, and sets up an
//! alternate signal stack to report a stack overflow: 0.1 ms of every
//! start (an empty program, interleaved: 0.82 against 0.71 ms here), paid
//! by every hook call and cron pass. This `main` does the rest of what
//! that one does: the standard streams are opened on `/dev/null` when they
//! are closed (so no file steward opens becomes its stdout), SIGPIPE is
//! ignored (a closed pipe is an error steward handles, as before), a panic
//! ends the process with exit code 101, and stdout is flushed at the end.
//! A stack overflow still ends the process, with SIGSEGV and without std's
//! message, and a panic names the thread `<unnamed>`, not `main`.
//!
//! The arguments are read from `argv` here: on musl, std learns them only
//! in its own `main`, so `std::env::args` is empty in steward.
#![no_main]

use std::ffi::{CStr, OsString, c_char, c_int};
use std::io::Write;
use std::os::unix::ffi::OsStringExt;
use std::panic::AssertUnwindSafe;

/// musl's allocator returns memory to the kernel eagerly; a command spends
/// a third of its time there. The static build uses mimalloc instead.
#[cfg(target_env = "musl")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[unsafe(no_mangle)]
extern "C" fn main(argc: c_int, argv: *const *const c_char) -> c_int {
    open_standard_streams();
    // SAFETY: changing a signal's disposition touches no memory of ours.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
    let count = usize::try_from(argc).unwrap_or(0);
    let args = (0..count).map(|i| {
        // SAFETY: the C runtime passes `argc` pointers to NUL-terminated
        // strings in `argv`, alive until the process ends.
        let arg = unsafe { CStr::from_ptr(*argv.add(i)) };
        OsString::from_vec(arg.to_bytes().to_vec())
    });
    // A panic must not unwind into the C runtime (that aborts): it ends
    // the process as std's `main` ends it, its message already printed.
    let code = std::panic::catch_unwind(AssertUnwindSafe(|| steward::run(args)));
    let _ = std::io::stdout().flush();
    code.map_or(PANICKED, c_int::from)
}

/// The exit code of a process a panic ended, as with std's `main`.
const PANICKED: c_int = 101;

/// Opens `/dev/null` on each of the descriptors 0, 1 and 2 that is
/// closed, as std's runtime does.
fn open_standard_streams() {
    for fd in 0..3 {
        // SAFETY: `fcntl` with `F_GETFD` only asks whether `fd` is open.
        let closed = unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1
            && std::io::Error::last_os_error().raw_os_error() == Some(libc::EBADF);
        // SAFETY: a NUL-terminated path; the lowest free descriptor, `fd`,
        // is the one opened, and it stays open for the process.
        if closed && unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) } != fd {
            std::process::abort();
        }
    }
}
