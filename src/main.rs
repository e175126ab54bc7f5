use std::process::ExitCode;

/// musl's allocator returns memory to the kernel eagerly; a command spends
/// a third of its time there. The static build uses mimalloc instead.
#[cfg(target_env = "musl")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    ExitCode::from(steward::run(std::env::args_os()))
}
