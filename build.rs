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
    let cross = std::env::var("HOST").ok() != std::env::var("TARGET").ok();
    if os == "linux" && env == "gnu" && !cross {
        link_unwinder_statically();
    }
}

/// Links GCC's unwinder (`libgcc_eh.a`) into the glibc build, as
/// `-static-libgcc` does for a C++ program, so that the binary does not
/// need `libgcc_s.so.1`: loading it, and the CPU probing its constructor
/// does (`cpuid`, which traps to the hypervisor on a virtual machine),
/// cost every start 0.06–0.14 ms here. std's unwinder calls then resolve
/// to the archive, ahead of the `-lgcc_s` std asks for, and the linker's
/// `--as-needed` drops the library. Where the C compiler (`$CC`, else
/// `cc`) has no such archive, the build links `libgcc_s` as before, and
/// says so. Not when cross-compiling: the host's compiler would name the
/// host's archive.
fn link_unwinder_statically() {
    println!("cargo:rerun-if-env-changed=CC");
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    // `CC` may carry a wrapper or flags (`ccache gcc`).
    let mut words = compiler.split_whitespace();
    let archive = words.next().and_then(|program| {
        let output = std::process::Command::new(program)
            .args(words)
            .arg("-print-file-name=libgcc_eh.a")
            .output()
            .ok()?;
        let path = std::path::PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
        (path.is_absolute() && path.is_file()).then_some(path)
    });
    match archive.as_deref().and_then(std::path::Path::parent) {
        Some(dir) => {
            println!("cargo:rustc-link-search=native={}", dir.display());
            println!("cargo:rustc-link-lib=static:-bundle=gcc_eh");
        }
        None => println!(
            "cargo:warning=`{compiler} -print-file-name=libgcc_eh.a` found no archive: steward links libgcc_s.so.1, which costs every start a little"
        ),
    }
}
