use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(steward::run(std::env::args_os()))
}
