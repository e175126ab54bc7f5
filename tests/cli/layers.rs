//! The layers of `src/`, guarded. The front doors (`doors/`: the command
//! line, MCP, the hooks) speak to the engine; the engine uses the rules,
//! the store and the operating system; nothing below calls back up. These tests read the
//! `crate::…` and `super::…` paths of every source file (test modules
//! left out) and fail when an arrow points up or closes a cycle.
//!
//! There are none today; a new one fails with the arrows to cut (move the
//! shared part down a layer, or pass what is needed in from above).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The modules that take input from outside: nothing else imports them.
const FRONT_DOORS: &[&str] = &["doors"];

/// The top-level modules of `src/` by layer, top first: a module imports
/// only modules of the layers below its own (steward-development(7),
/// WHERE THE CODE LIVES). A new module is placed here.
const LAYERS: &[&[&str]] = &[
    &["doors"],
    &["engine"],
    &["context", "rules"],
    &["store"],
    &["config"],
    &["agents", "checks"],
    &["model"],
    &["os"],
    &["error"],
    &["exit", "fast_yaml", "text", "yaml_locate"],
];

type Graph = BTreeMap<String, BTreeSet<String>>;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`, as paths relative to `src/`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path.strip_prefix(src()).unwrap().to_path_buf());
        }
    }
}

/// A file's code: its test module (`#[cfg(test)] mod …`, at the end by
/// this project's habit) and its line comments left out.
fn code(relative: &Path) -> String {
    let text = std::fs::read_to_string(src().join(relative)).unwrap();
    let tests = regex::Regex::new(r"#\[cfg\(test\)\]\s*(pub(\(crate\))?\s+)?mod ").unwrap();
    let text = match tests.find(&text) {
        Some(found) => &text[..found.start()],
        None => &text[..],
    };
    text.lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The names `prefix::name` and `prefix::{a, b::c}` reach in `code`.
fn reached(code: &str, prefix: &str) -> BTreeSet<String> {
    let prefix = regex::escape(prefix);
    let single = regex::Regex::new(&format!(r"\b{prefix}::([a-z_][a-z0-9_]*)")).unwrap();
    let group = regex::Regex::new(&format!(r"\b{prefix}::\{{([^}}]*)\}}")).unwrap();
    let name = regex::Regex::new(r"(?:^|[,{\s])([a-z_][a-z0-9_]*)").unwrap();
    let mut names: BTreeSet<String> = single
        .captures_iter(code)
        .map(|c| c[1].to_string())
        .collect();
    for group in group.captures_iter(code) {
        names.extend(name.captures_iter(&group[1]).map(|c| c[1].to_string()));
    }
    names
}

/// The top-level module a file belongs to (`engine` for
/// `engine/tick.rs`, `git` for `git.rs`).
fn module_of(relative: &Path) -> String {
    let first = relative.components().next().unwrap().as_os_str();
    let first = first.to_string_lossy();
    first.strip_suffix(".rs").unwrap_or(&first).to_string()
}

/// Arrows between top-level modules.
fn module_graph() -> Graph {
    let mut files = Vec::new();
    sources(&src(), &mut files);
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(f)).collect();
    let mut graph = Graph::new();
    for file in &files {
        let from = module_of(file);
        if from == "lib" || from == "main" {
            continue;
        }
        for to in reached(&code(file), "crate") {
            if to != from && modules.contains(&to) {
                graph.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    graph
}

/// Arrows between the files of `folder` (`super::x`, `crate::folder::x`).
fn file_graph(folder: &str) -> Graph {
    let dir = src().join(folder);
    let mut graph = Graph::new();
    let names: BTreeSet<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            name.strip_suffix(".rs").map(str::to_string)
        })
        .filter(|name| name != "mod")
        .collect();
    for from in &names {
        let code = code(&Path::new(folder).join(format!("{from}.rs")));
        let mut to = reached(&code, "super");
        to.extend(reached(
            &code,
            &format!("crate::{}", folder.replace('/', "::")),
        ));
        for to in to {
            if &to != from && names.contains(&to) {
                graph.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    graph
}

/// The arrows of `graph` that close a cycle: `a → b` where `b` leads back
/// to `a`.
fn cycle_arrows(graph: &Graph) -> BTreeSet<(String, String)> {
    let leads_to = |start: &str, goal: &str| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![start.to_string()];
        while let Some(node) = stack.pop() {
            if node == goal {
                return true;
            }
            if seen.insert(node.clone()) {
                stack.extend(graph.get(&node).into_iter().flatten().cloned());
            }
        }
        false
    };
    graph
        .iter()
        .flat_map(|(from, tos)| tos.iter().map(move |to| (from.clone(), to.clone())))
        .filter(|(from, to)| leads_to(to, from))
        .collect()
}

/// Fails with the arrows in `found`.
fn none(found: BTreeSet<String>, what: &str) {
    assert!(
        found.is_empty(),
        "{what} (cut them: move the shared part down a layer, or pass it in from above): {found:?}"
    );
}

#[test]
fn nothing_below_the_front_doors_imports_them() {
    let graph = module_graph();
    let up: Vec<String> = graph
        .iter()
        .filter(|(from, _)| !FRONT_DOORS.contains(&from.as_str()))
        .flat_map(|(from, tos)| {
            tos.iter()
                .filter(|to| FRONT_DOORS.contains(&to.as_str()))
                .map(move |to| format!("{from} → {to}"))
        })
        .collect();
    assert!(up.is_empty(), "arrows up to a front door: {up:?}");
}

#[test]
fn only_the_front_doors_use_the_engine() {
    let graph = module_graph();
    let users: BTreeSet<String> = graph
        .iter()
        .filter(|(from, tos)| tos.contains("engine") && !FRONT_DOORS.contains(&from.as_str()))
        .map(|(from, _)| from.clone())
        .collect();
    none(users, "modules below the front doors that use the engine");
}

#[test]
fn each_layer_imports_only_the_layers_below() {
    let layer_of = |module: &str| LAYERS.iter().position(|layer| layer.contains(&module));
    let mut files = Vec::new();
    sources(&src(), &mut files);
    let unplaced: BTreeSet<String> = (files.iter().map(|f| module_of(f)))
        .filter(|m| m != "lib" && m != "main" && layer_of(m).is_none())
        .collect();
    assert!(
        unplaced.is_empty(),
        "modules missing from LAYERS: {unplaced:?}"
    );
    let up: BTreeSet<String> = module_graph()
        .iter()
        .flat_map(|(from, tos)| tos.iter().map(move |to| (from, to)))
        .filter(|(from, to)| layer_of(to) <= layer_of(from))
        .map(|(from, to)| format!("{from} → {to}"))
        .collect();
    none(up, "arrows to a module of the same layer or one above");
}

#[test]
fn no_new_cycle_between_modules() {
    let found = cycle_arrows(&module_graph())
        .into_iter()
        .map(|(a, b)| format!("{a} → {b}"))
        .collect();
    none(found, "arrows between modules that close a cycle");
}

#[test]
fn no_new_cycle_between_the_files_of_a_folder() {
    let mut found = BTreeSet::new();
    let mut folders = vec![src()];
    while let Some(dir) = folders.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                let folder = path
                    .strip_prefix(src())
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                for (a, b) in cycle_arrows(&file_graph(&folder)) {
                    found.insert(format!("{folder}: {a} → {b}"));
                }
                folders.push(path);
            }
        }
    }
    none(found, "arrows between files that close a cycle");
}

#[test]
fn the_guard_sees_an_arrow_that_closes_a_cycle() {
    // The reader and the cycle search on a made-up graph: a → b → c → a,
    // and c → d, which closes nothing.
    let code = "use crate::b::Thing;\nlet x = super::{c, d::e};";
    assert_eq!(reached(code, "crate"), BTreeSet::from(["b".to_string()]));
    assert_eq!(
        reached(code, "super"),
        BTreeSet::from(["c".to_string(), "d".to_string()])
    );
    let mut graph = Graph::new();
    for (a, b) in [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")] {
        graph.entry(a.into()).or_default().insert(b.into());
    }
    let arrows: Vec<(String, String)> = cycle_arrows(&graph).into_iter().collect();
    assert_eq!(
        arrows,
        [("a", "b"), ("b", "c"), ("c", "a")].map(|(a, b)| (a.to_string(), b.to_string()))
    );
}
