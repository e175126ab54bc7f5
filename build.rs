//! Links the Linux glibc build as a position-dependent executable.
//!
//! A position-independent executable makes the dynamic loader apply some
//! 17,000 relocations before `main`, writing to the pages they touch: about
//! 0.2 ms of every command, as much as one of a write's waits for the disk.
//! steward runs from cron and agent hooks many times a minute.
//! steward-design(7), "Position-dependent executables", says what this costs
//! in address-space randomisation and how to build a position-independent
//! binary anyway: give rustc a relocation model yourself
//! (`RUSTFLAGS="-C relocation-model=pie"`) and it is left to choose. The
//! static musl build gets the same from `.cargo/config.toml`, which a build
//! without `--target` cannot use: it would apply to the proc macros too.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    if os == "linux" && env == "gnu" && !flags.contains("relocation-model") {
        // After rustc's own `-pie`: of the two, the C compiler driver that
        // links takes the last.
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
