//! The release archive (`.ci/package`) and the one-line installer
//! (`.github/install.sh`) end to end: the archive and its `sha256sums.txt`
//! served over HTTP on 127.0.0.1, installed under a temporary prefix with
//! the clean environment every test has. The installer downloads with curl
//! or wget and unpacks with tar: without them a test says SKIPPED and
//! passes.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::mpsc::Receiver;
use std::time::Duration;

use crate::common::TestEnv;

/// Any triple would do: the tests need the archive's layout, not its
/// target. This one is what the release builds for this machine.
const TARGET: &str = "x86_64-unknown-linux-musl";

fn repo(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn archive_name() -> String {
    format!("steward-{TARGET}.tar.gz")
}

/// True, having said SKIPPED, where the installer cannot run: no tar, or
/// neither curl nor wget. Written to the process's stderr itself, which
/// the test harness does not capture, so that a skip is seen.
fn skipped(env: &TestEnv, test: &str) -> bool {
    let installed = |program: &str| {
        env.program(program)
            .arg("--version")
            .output()
            .is_ok_and(|out| out.status.success())
    };
    let why = if !installed("tar") {
        "tar is not installed"
    } else if !installed("curl") && !installed("wget") {
        "neither curl nor wget is installed"
    } else {
        return false;
    };
    let _ = std::io::stderr().write_all(format!("SKIPPED: {test}: {why}\n").as_bytes());
    true
}

/// `.ci/package TARGET binary out`, which must succeed; its stdout (the
/// archive's listing, then what it wrote).
fn package(env: &TestEnv, binary: &Path, out: &Path) -> String {
    let output = env
        .program("bash")
        .arg(repo(".ci/package"))
        .arg(TARGET)
        .arg(binary)
        .arg(out)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        ".ci/package failed:\n{}\n{}",
        text(&output.stderr),
        text(&output.stdout)
    );
    text(&output.stdout)
}

/// The release folder as the workflow publishes it: the archive, its
/// `.sha256`, and `sha256sums.txt` made of the `.sha256` files.
fn release(env: &TestEnv, binary: &Path) -> PathBuf {
    let dir = env.path("release");
    package(env, binary, &dir);
    let sums = std::fs::read(dir.join(format!("{}.sha256", archive_name()))).unwrap();
    std::fs::write(dir.join("sha256sums.txt"), sums).unwrap();
    dir
}

/// A stand-in for the binary where the test never runs it: packaging the
/// debug build takes seconds the failure cases do not need.
fn stand_in(env: &TestEnv) -> PathBuf {
    env.executable("stand-in/steward", "#!/bin/sh\necho 'steward 0.0.0'\n");
    env.path("stand-in/steward")
}

/// Serves the files of `dir` on 127.0.0.1 from a thread that lives as long
/// as the test: GET of a file's name answers 200 with its bytes, anything
/// else 404. Returns the base URL and the paths asked for, in order.
fn serve(dir: PathBuf) -> (String, Receiver<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (sender, requests) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request = String::new();
            let _ = reader.read_line(&mut request);
            // The rest of the head (curl and wget send a few lines): read
            // whole, so that closing does not reset the connection.
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
            }
            let mut words = request.split_whitespace();
            let method = words.next().unwrap_or_default();
            let path = words.next().unwrap_or_default().to_string();
            let name = path.trim_start_matches('/');
            // Plain names only: nothing outside `dir` is served.
            let body = if method == "GET" && !name.is_empty() && !name.contains(['/', '\\']) {
                std::fs::read(dir.join(name)).ok()
            } else {
                None
            };
            let _ = sender.send(path);
            let head = match &body {
                Some(bytes) => format!(
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    bytes.len()
                ),
                None => "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    .to_string(),
            };
            let _ = stream.write_all(head.as_bytes());
            if let Some(bytes) = body {
                let _ = stream.write_all(&bytes);
            }
            let _ = stream.shutdown(std::net::Shutdown::Write);
            let _ = stream.set_read_timeout(Some(Duration::from_millis(10)));
            let _ = stream.read_to_end(&mut Vec::new());
        }
    });
    (base, requests)
}

/// `sh .github/install.sh --prefix <root>/prefix` against `base`, for
/// `target`, in the test's clean environment (its PATH, a temporary HOME).
fn install(env: &TestEnv, base: &str, target: &str) -> Output {
    env.program("sh")
        .arg(repo(".github/install.sh"))
        .arg("--prefix")
        .arg(env.path("prefix"))
        .env("STEWARD_INSTALL_URL", base)
        .env("STEWARD_INSTALL_TARGET", target)
        .output()
        .unwrap()
}

/// The SHA-256 `sha256sums.txt` in `dir` gives the archive.
fn listed_sha256(dir: &Path) -> String {
    let sums = std::fs::read_to_string(dir.join("sha256sums.txt")).unwrap();
    let line = sums
        .lines()
        .find(|line| line.ends_with(&format!("  {}", archive_name())))
        .unwrap_or_else(|| panic!("the archive is not in sha256sums.txt:\n{sums}"));
    line.split_whitespace().next().unwrap().to_string()
}

/// The man pages (`man/*.1`, `*.5`, `*.7`) in the repository, by section.
fn man_pages() -> Vec<(String, String)> {
    let mut pages: Vec<(String, String)> = std::fs::read_dir(repo("man"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|name| {
            let section = name.rsplit_once('.')?.1.to_string();
            ["1", "5", "7"]
                .contains(&section.as_str())
                .then_some((section, name))
        })
        .collect();
    pages.sort();
    pages
}

/// The completion files in the repository and where the installer puts
/// each under the prefix.
fn completions() -> Vec<(&'static str, &'static str)> {
    [
        ("steward.bash", "share/bash-completion/completions/steward"),
        ("_steward", "share/zsh/site-functions/_steward"),
        (
            "steward.fish",
            "share/fish/vendor_completions.d/steward.fish",
        ),
    ]
    .into_iter()
    .filter(|(file, _)| repo("completions").join(file).is_file())
    .collect()
}

#[test]
fn the_release_archive_installs_the_binary_its_pages_and_completions() {
    let env = TestEnv::new();
    if skipped(&env, "the release archive installs") {
        return;
    }
    // The binary the other tests run: the static build when .ci/run sets
    // CARGO_BIN_EXE_steward to it.
    let binary = assert_cmd::cargo::cargo_bin("steward");
    let dir = env.path("release");
    let listing = package(&env, &binary, &dir);

    // Every entry in one folder named for the target; the binary
    // executable; the roff pages without the Markdown they are made from.
    let folder = format!("steward-{TARGET}/");
    let entries: Vec<&str> = listing
        .lines()
        .filter(|line| line.starts_with('-') || line.starts_with('d'))
        .map(|line| line.split_whitespace().last().unwrap())
        .collect();
    assert!(!entries.is_empty(), "no listing printed:\n{listing}");
    for entry in &entries {
        assert!(
            entry.starts_with(&folder),
            "{entry} is outside {folder}:\n{listing}"
        );
        assert!(
            !entry.ends_with(".md") || entry.ends_with("/README.md"),
            "{entry}: a page's Markdown source is packaged"
        );
    }
    let mut expected = vec![
        format!("{folder}steward"),
        format!("{folder}README.md"),
        format!("{folder}LICENSE"),
    ];
    expected.extend(
        man_pages()
            .iter()
            .map(|(_, name)| format!("{folder}man/{name}")),
    );
    for file in std::fs::read_dir(repo("completions")).unwrap() {
        let name = file.unwrap().file_name();
        expected.push(format!("{folder}completions/{}", name.to_string_lossy()));
    }
    for want in &expected {
        assert!(
            entries.contains(&want.as_str()),
            "{want} is not in the archive:\n{listing}"
        );
    }
    let binary_line = listing
        .lines()
        .find(|line| line.ends_with(&format!(" {folder}steward")))
        .unwrap();
    assert!(binary_line.starts_with("-rwxr-xr-x"), "{binary_line}");

    // The checksum in sha256sum's format, and right.
    let sha_file = format!("{}.sha256", archive_name());
    let sums = std::fs::read_to_string(dir.join(&sha_file)).unwrap();
    let (hex, name) = sums.trim_end().split_once("  ").unwrap();
    assert_eq!(name, archive_name(), "{sums}");
    assert!(
        hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)),
        "{sums}"
    );
    assert!(
        sums.ends_with('\n') && sums.lines().count() == 1,
        "{sums:?}"
    );
    let check = env
        .program("sh")
        .args([
            "-c",
            "sha256sum --check \"$1\" 2>/dev/null || shasum -a 256 --check \"$1\"",
        ])
        .args(["sh", sha_file.as_str()])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(check.status.success(), "{}", text(&check.stdout));

    std::fs::write(dir.join("sha256sums.txt"), sums).unwrap();
    let (base, requests) = serve(dir);
    let output = install(&env, &base, TARGET);
    let stdout = text(&output.stdout);
    assert!(
        output.status.success(),
        "install.sh failed:\n{}\n{stdout}",
        text(&output.stderr)
    );
    assert_eq!(
        requests.try_iter().collect::<Vec<_>>(),
        [
            "/sha256sums.txt".to_string(),
            format!("/{}", archive_name())
        ]
    );

    let prefix = env.path("prefix");
    let installed = prefix.join("bin/steward");
    let mode = std::fs::metadata(&installed).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o755);
    let version = env.program(installed).arg("--version").output().unwrap();
    assert!(version.status.success(), "{}", text(&version.stderr));
    assert_eq!(
        text(&version.stdout).trim(),
        format!("steward {}", env!("CARGO_PKG_VERSION"))
    );

    // Compared as bytes, and said by name: a page's bytes are no message.
    for (section, name) in man_pages() {
        let path = prefix.join(format!("share/man/man{section}/{name}"));
        assert!(
            std::fs::read(&path).ok() == std::fs::read(repo(&format!("man/{name}"))).ok(),
            "{} is missing or not man/{name}",
            path.display()
        );
    }
    let placed = completions();
    assert!(!placed.is_empty());
    for (file, place) in placed {
        assert!(
            std::fs::read(prefix.join(place)).ok()
                == std::fs::read(repo(&format!("completions/{file}"))).ok(),
            "{place} is missing or not completions/{file}"
        );
        assert!(stdout.contains(place), "{place} not reported:\n{stdout}");
    }

    // What it installed, a line a group, and how to put the prefix's bin
    // on PATH: it is a temporary folder, on no PATH.
    for group in [
        "bin/steward",
        "share/man/man1/",
        "share/man/man5/",
        "share/man/man7/",
    ] {
        assert!(stdout.contains(group), "{group} not reported:\n{stdout}");
    }
    assert!(
        stdout.contains(&format!("steward {}", env!("CARGO_PKG_VERSION"))),
        "{stdout}"
    );
    assert!(stdout.contains("is not on your PATH"), "{stdout}");
    assert!(
        stdout.contains(&format!("export PATH=\"{}/bin:$PATH\"", prefix.display())),
        "{stdout}"
    );
}

#[test]
fn an_archive_that_does_not_match_its_checksum_installs_nothing() {
    let env = TestEnv::new();
    if skipped(&env, "a corrupted archive installs nothing") {
        return;
    }
    let dir = release(&env, &stand_in(&env));
    let expected = listed_sha256(&dir);
    // One byte changed in the middle, as a broken mirror or download would.
    let path = dir.join(archive_name());
    let mut bytes = std::fs::read(&path).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xff;
    std::fs::write(path, bytes).unwrap();

    let (base, requests) = serve(dir);
    let output = install(&env, &base, TARGET);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("does not match sha256sums.txt"), "{stderr}");
    assert!(
        stderr.contains(&format!("expected SHA-256 {expected}")),
        "{stderr}"
    );
    assert!(stderr.contains("got "), "{stderr}");
    assert_eq!(
        requests.try_iter().collect::<Vec<_>>(),
        [
            "/sha256sums.txt".to_string(),
            format!("/{}", archive_name())
        ]
    );
    assert!(
        !env.path("prefix").exists(),
        "the prefix was written to: {stderr}"
    );
}

#[test]
fn a_target_the_release_lacks_is_refused_naming_those_it_has() {
    let env = TestEnv::new();
    if skipped(&env, "a target the release lacks") {
        return;
    }
    let dir = release(&env, &stand_in(&env));
    let (base, requests) = serve(dir);
    let output = install(&env, &base, "riscv64gc-unknown-linux-gnu");
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let (refusal, has) = stderr
        .split_once("has no build for riscv64gc-unknown-linux-gnu")
        .unwrap_or_else(|| panic!("{stderr}"));
    assert!(!refusal.is_empty());
    assert!(has.contains(TARGET), "{stderr}");
    // It knew from sha256sums.txt alone: the archive was never asked for.
    assert_eq!(requests.try_iter().collect::<Vec<_>>(), ["/sha256sums.txt"]);
    assert!(!env.path("prefix").exists());
}

#[test]
fn the_installer_prints_its_usage_and_refuses_unknown_options() {
    let env = TestEnv::new();
    let help = env
        .program("sh")
        .arg(repo(".github/install.sh"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(help.status.success());
    let usage = text(&help.stdout);
    for word in [
        "--prefix",
        "STEWARD_INSTALL_PREFIX",
        "STEWARD_INSTALL_TARGET",
        "STEWARD_INSTALL_URL",
        "STEWARD_VERSION",
    ] {
        assert!(usage.contains(word), "{word} is not in the usage:\n{usage}");
    }

    let unknown = env
        .program("sh")
        .arg(repo(".github/install.sh"))
        .arg("--bogus")
        .output()
        .unwrap();
    assert_eq!(unknown.status.code(), Some(2));
    assert!(unknown.stdout.is_empty());
    let stderr = text(&unknown.stderr);
    assert!(
        stderr.contains("--bogus") && stderr.contains("usage:"),
        "{stderr}"
    );
}

/// The release's plan, read from the workflow: the targets it builds, and
/// what it publishes. What the installer picks and cargo-binstall fetches
/// must be among them, named as `.ci/package` names its archives.
#[test]
fn the_release_publishes_what_the_installer_and_binstall_fetch() {
    let workflow: serde_yaml::Value = serde_yaml::from_str(
        &std::fs::read_to_string(repo(".github/workflows/release.yml")).unwrap(),
    )
    .unwrap();
    assert_eq!(workflow["on"]["push"]["tags"][0], "v*.*.*");
    let mut built: Vec<String> = workflow["jobs"]["build"]["strategy"]["matrix"]["include"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|entry| entry["target"].as_str().unwrap().to_string())
        .collect();
    built.sort();
    assert_eq!(
        built,
        [
            "aarch64-apple-darwin",
            "aarch64-unknown-linux-musl",
            "x86_64-apple-darwin",
            "x86_64-unknown-linux-musl"
        ]
    );
    let steps = |job: &str| -> String {
        workflow["jobs"][job]["steps"]
            .as_sequence()
            .unwrap()
            .iter()
            .filter_map(|step| step["run"].as_str())
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(
        steps("build").contains(".ci/package \"$TARGET\" \"target/$TARGET/release/steward\" dist")
    );
    let release = steps("release");
    for published in [
        "dist/steward-*.tar.gz ",
        "dist/sha256sums.txt",
        "dist/install.sh",
    ] {
        assert!(
            release.contains(published),
            "the release attaches {published}"
        );
    }
    assert_eq!(
        workflow["jobs"]["release"]["permissions"]["contents"], "write",
        "only the release job writes"
    );

    // The installer picks only targets the release builds.
    let installer = std::fs::read_to_string(repo(".github/install.sh")).unwrap();
    for line in installer
        .lines()
        .filter(|l| l.trim_start().starts_with("Linux/") || l.trim_start().starts_with("Darwin/"))
    {
        let target = line
            .split("echo ")
            .nth(1)
            .unwrap()
            .trim_end_matches(" ;;")
            .trim();
        assert!(
            built.iter().any(|t| t == target),
            "install.sh picks {target}"
        );
    }

    // cargo-binstall's address and folder are .ci/package's names.
    assert_eq!(
        binstall("pkg-url"),
        "{ repo }/releases/download/v{ version }/steward-{ target }.tar.gz"
    );
    assert_eq!(
        binstall("bin-dir"),
        "steward-{ target }/{ bin }{ binary-ext }"
    );
    let package = std::fs::read_to_string(repo(".ci/package")).unwrap();
    assert!(
        package.contains("name=\"steward-$target\"")
            && package.contains("archive=\"$name.tar.gz\"")
    );
}

/// A key of Cargo.toml's `[package.metadata.binstall]`, read as a line:
/// no TOML parser is among the dependencies.
fn binstall(key: &str) -> String {
    let text = std::fs::read_to_string(repo("Cargo.toml")).unwrap();
    let section = (text.split("[package.metadata.binstall]").nth(1))
        .expect("Cargo.toml has [package.metadata.binstall]");
    (section.lines())
        .find_map(|line| line.strip_prefix(key)?.trim_start().strip_prefix('='))
        .map(|value| value.trim().trim_matches('"').to_string())
        .unwrap_or_else(|| panic!("{key} in [package.metadata.binstall]"))
}
