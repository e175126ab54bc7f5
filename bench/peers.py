#!/usr/bin/env python3
"""Times steward beside Taskwarrior (`task`) and minibeads (`mb`) on stores of
the same size, 10% open, and prints a Markdown table with the ratios.

Usage: bench/peers.py [N ...]   (default: 1000 10000)

Needs `task` (Debian package taskwarrior) and `mb` (`cargo install
minibeads`) on PATH; a missing peer is skipped. With libeatmydata (Debian
package eatmydata) it also times one write of each with fsync made a no-op,
to show what a write costs besides waiting for the disk. The writes of all
tools are timed in the same rounds, in shuffled order. steward is the release
binary built with the `testing` feature, which honours the fixed clock
(STEWARD_NOW) the stores are built at ($STEWARD, else target/release/steward,
built when missing); the lists, `show` and the writes are timed again with
the static musl build ($STEWARD_STATIC, else
target/x86_64-unknown-linux-musl/release/steward, built with `--features
testing`) when it exists. Each binary is timed from a copy, as `cargo install`
makes one (see installed), and every store is kept until the run ends (see
settle_inodes).
"""

import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNS = 21
NOW = "2026-11-21T04:00:00Z"


def steward_binary():
    path = Path(os.environ.get("STEWARD", ROOT / "target/release/steward"))
    if not path.exists():
        subprocess.run(["cargo", "build", "--release", "--features", "testing", "--manifest-path", str(ROOT / "Cargo.toml")], check=True)
    return str(path)


def static_binary():
    """The static musl release build (what `.ci/run` builds), when it exists:
    no dynamic loader, no glibc CPU-feature probing at start."""
    path = Path(os.environ.get("STEWARD_STATIC", ROOT / "target/x86_64-unknown-linux-musl/release/steward"))
    return str(path) if path.exists() else None


def median_ms(make_args, env=None, runs=RUNS):
    times = []
    for run in range(runs + 1):
        args = make_args(run)
        start = time.perf_counter()
        subprocess.run(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        elapsed = time.perf_counter() - start
        if run > 0:  # the first run warms the page cache
            times.append(elapsed * 1000)
    return statistics.median(times)


def interleaved_medians(cases, runs=RUNS):
    """The median time of each write, `cases` mapping a name to (make_args,
    env). The writes are timed in rounds, each running every case once in a
    shuffled order, so the disk's slow spells fall on all tools alike; the
    file system is synced before each timed command, so no command waits for
    the data another left unwritten (a journal commit writes all of it)."""
    order = random.Random(0)
    times = {name: [] for name in cases}
    for run in range(runs + 1):
        names = list(cases)
        order.shuffle(names)
        for name in names:
            make_args, env = cases[name]
            args = make_args(run)
            os.sync()
            start = time.perf_counter()
            subprocess.run(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            elapsed = time.perf_counter() - start
            if run > 0:  # the first round warms the page cache
                times[name].append(elapsed * 1000)
    return {name: statistics.median(t) for name, t in times.items()}


def settle_inodes(base, dirs):
    """Waits, when it must, until inodes freed before the run no longer slow
    the making of files in `dirs`, the directories the timed writes make
    files in. ext4 without a journal (the development VM's root) skips, when
    it makes a file, every free inode of the directory's group freed in the
    last minute (six while its inode table is not written back): after a
    large deletion, such as another run's stores or a build, a file took
    0.4-1.3 ms to make here instead of 10-40 us, and a steward `add` makes
    three files (`mb create` two). Three files are made in each directory
    and moved to `base` (so they free nothing); if making one took over 100
    us in the median, the file system is synced and the run waits 61
    seconds, then probes again."""
    def slowest(round):
        medians = []
        for d in dirs:
            d.mkdir(parents=True, exist_ok=True)
            times = []
            for i in range(3):
                probe = d / f".probe-{round}-{i}"
                start = time.perf_counter()
                os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
                times.append((time.perf_counter() - start) * 1e6)
                probe.rename(base / f"probe-{len(list(base.glob('probe-*')))}")
            medians.append(statistics.median(times))
        return max(medians)
    for round in range(3):
        took = slowest(round)
        if took <= 100:
            return
        print(f"making a file took {took:.0f} us (inodes freed in the last minutes): waiting 61 s", file=sys.stderr)
        os.sync()
        time.sleep(61)


def wake_disk(base):
    """20 small synced writes to a scratch file. On the development VM the
    first flushes after the disk has been idle take 10-20 ms and the next
    dozen 1-2 ms more than usual: the writes timed first would pay it."""
    scratch = base / "scratch"
    for n in range(20):
        with open(scratch, "w") as f:
            f.write(f"{n}\n")
            f.flush()
            os.fsync(f.fileno())
    scratch.unlink()


def steward_store(base, n):
    root = base / "steward"
    goals = root / "state/goals"
    (goals / "closed").mkdir(parents=True)
    (root / "steward.yaml").write_text(f"global_limits:\n  max_active_goals: {n * 10}\n"
                                       "circuit_breaker:\n  max_assessments_without_progress: 0\n")
    for i in range(n):
        label, gid = f"goal-{i:05}", str(uuid.UUID(int=i))
        is_open = i % 10 == 0
        path = goals / f"{label}.md" if is_open else goals / "closed" / f"{label}-{gid[:8]}.md"
        status = "active" if is_open else "completed"
        path.write_text(
            f"---\nid: {gid}\nlabel: {label}\ntitle: Keep {label} healthy\nstatus: {status}\npriority: normal\n"
            "confirmed: true\ncreated_at: 2026-11-20T04:00:00Z\nupdated_at: 2026-11-21T03:55:00Z\nverification: []\n"
            "budget:\n  max_dispatches: 20\n  max_assessments: 50\n  cooldown: 10m\n  escalate_after_failures: 3\n"
            "progress:\n  assessments: 3\n  dispatches: 2\n  consecutive_failures: 0\n  cost_usd: 1.25\n"
            "  last_assessed_at: 2026-11-21T03:55:00Z\n  last_dispatched_at: null\n  last_outcome: tests pass\n"
            "blockers: []\n---\nRun the tests, fix what fails, deploy.\n\n## Acceptance criteria\n\n"
            "- [x] Tests pass\n- [ ] Deployed\n\n## History\n\n- 2026-11-20T04:00:00Z user created: priority normal\n"
        )
    return root


def taskwarrior_store(base, n):
    data = base / "task"
    data.mkdir()
    rc = base / "taskrc"
    rc.write_text(f"data.location={data}\nconfirmation=off\nverbose=nothing\nhooks=off\n")
    tasks = []
    for i in range(n):
        task = {"uuid": str(uuid.UUID(int=i)), "description": f"Keep goal {i} healthy", "entry": "20261120T040000Z",
                "status": "pending" if i % 10 == 0 else "completed"}
        if task["status"] == "completed":
            task["end"] = "20261121T035500Z"
        tasks.append(task)
    env = dict(os.environ, TASKRC=str(rc))
    subprocess.run(["task", "import", "-"], input=json.dumps(tasks).encode(), env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return env


def minibeads_store(base, n):
    root = base / "mb"
    root.mkdir()
    subprocess.run(["mb", "init"], cwd=root, stdout=subprocess.DEVNULL, check=True)
    issues = root / ".minibeads/issues"
    for i in range(1, n + 1):
        status = "open" if i % 10 == 0 else "closed"
        (issues / f"bd-{i}.md").write_text(
            f"---\ntitle: Keep goal {i} healthy\nstatus: {status}\npriority: 2\nissue_type: task\n"
            "created_at: 2026-11-20T04:00:00+00:00\nupdated_at: 2026-11-21T03:55:00+00:00\n---\nRun the tests.\n"
        )
    return root


def eatmydata():
    """The path of libeatmydata.so (Debian package eatmydata), or None."""
    for pattern in ("/usr/lib/*/libeatmydata.so", "/usr/lib/libeatmydata.so", "/usr/lib64/libeatmydata.so"):
        found = sorted(Path("/").glob(pattern.lstrip("/")))
        if found:
            return str(found[0])
    return None


def empty_program(base):
    """An empty Rust program built the way steward's release build is (the
    same profile: fat LTO, one codegen unit, position-dependent), for the
    start-up row; None without cargo."""
    if not shutil.which("cargo"):
        return None
    project = base / "empty"
    (project / "src").mkdir(parents=True)
    manifest = (ROOT / "Cargo.toml").read_text()
    profile = manifest[manifest.index("[profile.release]"):]
    profile = profile[:profile.index("\n[", 1) + 1] if "\n[" in profile[1:] else profile
    (project / "Cargo.toml").write_text(
        '[package]\nname = "empty"\nversion = "0.1.0"\nedition = "2024"\n\n' + profile)
    (project / "src/main.rs").write_text("fn main() {}\n")
    build_rs = ROOT / "build.rs"
    if build_rs.exists():
        shutil.copy(build_rs, project / "build.rs")
    built = subprocess.run(["cargo", "build", "--release", "--quiet", "--manifest-path", str(project / "Cargo.toml")],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    binary = project / "target/release/empty"
    return str(binary) if built.returncode == 0 and binary.exists() else None


def load():
    """The machine's load averages, for the table's reader."""
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


def main():
    sizes = [int(a) for a in sys.argv[1:]] or [1000, 10000]
    bins = Path(tempfile.mkdtemp(prefix="peers-bin-"))
    try:
        run(sizes, bins)
    finally:
        shutil.rmtree(bins)


def installed(binary, bins):
    """A copy of `binary` in `bins`, as `cargo install` copies one (minibeads
    is timed as installed). A binary as the linker left it is slower to
    start: its page cache is in small pages, so a command takes more page
    faults (`steward show` at 1,000 goals: 173-178 against 154-156 for a
    copy, and 0.4 ms more, `perf stat -r 200`)."""
    if binary is None:
        return None
    copy = bins / f"{len(list(bins.iterdir()))}-{Path(binary).name}"
    shutil.copy2(binary, copy)
    return str(copy)


def run(sizes, bins):
    steward = installed(steward_binary(), bins)
    static = installed(static_binary(), bins)
    env = dict(os.environ, STEWARD_NOW=NOW)
    print(f"load average before: {load()}\n")
    print("| items | command | median | ratio |")
    print("|---:|---|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        empty = installed(empty_program(Path(tmp)), bins)
        if empty:
            # Start-up, timed in the same rounds: ratio to the empty program.
            medians = interleaved_medians({
                "empty Rust program": (lambda _: [empty], None),
                "`steward --version`": (lambda _: [steward, "--version"], None),
            }, runs=201)
            base = medians["empty Rust program"]
            for name, ms in medians.items():
                print(f"| – | {name} | {ms:.2f} ms | {ms / base:.2f}× the empty program |")
    # Every store is kept until the run ends: deleting one frees thousands
    # of inodes, which makes the next files slow to create (see
    # settle_inodes).
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            base = Path(tmp) / str(n)
            base.mkdir()
            root = steward_store(base, n)
            task_env = taskwarrior_store(base, n) if shutil.which("task") else None
            mb_root = minibeads_store(base, n) if shutil.which("mb") else None
            # The stores are written back before anything is timed (the
            # kernel would otherwise flush them in the background half a
            # minute later, while steward's writes wait for the disk), and the
            # disk is woken before the writes (see wake_disk), which are timed
            # side by side (see interleaved_medians).
            os.sync()
            # The directories the writes make files in, made now as the
            # first write would.
            settle_inodes(base, [root / "state/goals", root / "state/seals/open", root / "state/undo"]
                          + ([mb_root / ".minibeads", mb_root / ".minibeads/issues"] if mb_root else []))
            rows = []
            # Reads, timed in the same rounds; the ratio is steward's to the
            # best peer's.
            open_labels = [f"goal-{i:05}" for i in range(0, n, 10)]
            mb = ["mb", "--mb-beads-dir", str(mb_root / ".minibeads")] if mb_root else None
            reads = {
                "`steward list --json`": (lambda _: [steward, "-C", str(root), "list", "--json"], env),
                "`steward list`": (lambda _: [steward, "-C", str(root), "list"], env),
                "`steward show`": (lambda r: [steward, "-C", str(root), "show", open_labels[r % len(open_labels)]],
                                   env),
                "`steward prompt --heartbeat`": (lambda _: [steward, "-C", str(root), "prompt", "--heartbeat"], env),
            }
            if static:
                # The build the README gives for cron and hooks.
                reads["`steward list --json`, static build"] = (
                    lambda _: [static, "-C", str(root), "list", "--json"], env)
                reads["`steward list`, static build"] = (lambda _: [static, "-C", str(root), "list"], env)
                reads["`steward show`, static build"] = (
                    lambda r: [static, "-C", str(root), "show", open_labels[r % len(open_labels)]], env)
            hook = json.dumps({"session_id": "bench", "cwd": str(root), "hook_event_name": "UserPromptSubmit",
                               "prompt": "go on"}).encode()
            hook_script = base / "hook.sh"
            hook_script.write_text(f"#!/bin/sh\nexec {steward} hook claude-code < {base / 'hook.json'}\n")
            (base / "hook.json").write_bytes(hook)
            hook_script.chmod(0o755)
            reads["`steward hook claude-code` (UserPromptSubmit)"] = (lambda _: [str(hook_script)], env)
            # The same shell start for the heartbeat, so the two compare.
            heartbeat_script = base / "heartbeat.sh"
            heartbeat_script.write_text(f"#!/bin/sh\nexec {steward} -C {root} prompt --heartbeat\n")
            heartbeat_script.chmod(0o755)
            reads["`steward prompt --heartbeat` (through sh, as the hook)"] = (lambda _: [str(heartbeat_script)], env)
            if task_env:
                reads["`task list`"] = (lambda _: ["task", "list"], task_env)
                reads["`task N info`"] = (lambda r: ["task", str(r % (n // 10) + 1), "info"], task_env)
            if mb:
                reads["`mb list`"] = (lambda _: mb + ["list"], None)
                reads["`mb show`"] = (lambda r: mb + ["show", f"bd-{(r % (n // 10) + 1) * 10}"], None)
            read_medians = interleaved_medians(reads)
            best_list = min(ms for name, ms in read_medians.items() if name in ("`task list`", "`mb list`")) \
                if task_env or mb else None
            best_show = min(ms for name, ms in read_medians.items() if name in ("`task N info`", "`mb show`")) \
                if task_env or mb else None
            for name, ms in read_medians.items():
                if name.startswith("`steward list") and best_list:
                    rows.append((name, ms, best_list, "best peer's list"))
                elif name.startswith("`steward show`") and best_show:
                    rows.append((name, ms, best_show, "best peer's show"))
                elif name == "`steward hook claude-code` (UserPromptSubmit)":
                    heartbeat = read_medians["`steward prompt --heartbeat` (through sh, as the hook)"]
                    rows.append((name, ms, heartbeat, f"{ms - heartbeat:+.2f} ms beside the heartbeat through sh;"))
                else:
                    rows.append((name, ms, None, ""))
            pick = lambda r: open_labels[r % len(open_labels)]
            mb_pick = lambda r: f"bd-{(r % (n // 10) + 1) * 10}"
            # Closing: a goal of its own each round, from the last one back
            # (the updates take theirs from the first).
            last = lambda r: n // 10 - 1 - r
            # Each write: its command, its environment, and the steward write
            # its ratio is to.
            writes, baselines = {}, {}

            def write(name, make_args, environment, baseline):
                writes[name] = (make_args, environment)
                baselines[name] = baseline

            add, update = "`steward add`", "`steward update --note`"
            for build, binary, label in (("", steward, "bench"), (", static build", static, "static")):
                if not binary:
                    continue
                write(add + build, lambda r, b=binary, label=label: [
                    b, "-C", str(root), "add", f"{label}-{r}", "--title", "Bench", "--criterion", "done"], env, add)
                write(update + build, lambda r, b=binary: [
                    b, "-C", str(root), "update", pick(r), "--note", f"bench {r}"], env, update)
                write(f"`steward assess`{build}", lambda r, b=binary: [
                    b, "-C", str(root), "assess", pick(r), "--summary", f"bench {r}"], env, update)
                # A person's complete: every criterion met, no check to run.
                write(f"`steward complete`{build}", lambda r, b=binary, build=build: [
                    b, "-C", str(root), "complete", open_labels[last(r) - (len(open_labels) // 2 if build else 0)],
                    "--met", "2", "--reason", f"bench {r}"], env, "`steward complete`")
            if task_env:
                write("`task add`", lambda r: ["task", "add", f"bench {r}"], task_env, add)
                write("`task modify`", lambda r: ["task", str(r % (n // 10) + 1), "modify", f"bench {r}"],
                      task_env, update)
                write("`task UUID done`", lambda r: ["task", str(uuid.UUID(int=10 * last(r))), "done"],
                      task_env, "`steward complete`")
            if mb_root:
                write("`mb create`", lambda r: mb + ["create", f"bench {r}"], None, add)
                write("`mb update --notes`", lambda r: mb + ["update", mb_pick(r), "--notes", f"bench {r}"], None,
                      update)
                write("`mb close`", lambda r: mb + ["close", f"bd-{10 * last(r)}"], None, "`steward complete`")
            nosync = eatmydata()
            if nosync and mb_root:
                # The same writes with fsync made a no-op for both (libeatmydata
                # preloaded, no wrapper process): what each costs besides
                # waiting for the disk. minibeads never waits; steward waits
                # as steward-reference(5), "RELIABILITY", says.
                unsynced = f"{update}, fsync a no-op"
                write(unsynced, lambda r: [steward, "-C", str(root), "update", pick(r), "--note", f"bench {r}"],
                      dict(env, LD_PRELOAD=nosync), unsynced)
                write("`mb update --notes`, fsync a no-op",
                      lambda r: mb + ["update", mb_pick(r), "--notes", f"bench {r}"],
                      dict(os.environ, LD_PRELOAD=nosync), unsynced)
            wake_disk(base)
            medians = interleaved_medians(writes)
            # Each steward write beside the best peer's of the same kind.
            for name, ms in medians.items():
                if not name.startswith("`steward"):
                    continue
                peers = [m for other, m in medians.items()
                         if not other.startswith("`steward") and baselines[other] == baselines[name]
                         and ("fsync" in other) == ("fsync" in name)]
                if peers:
                    rows.append((name, ms, min(peers), "best peer's"))
                else:
                    rows.append((name, ms, None, ""))
            rows += [(name, ms, None, "") for name, ms in medians.items() if not name.startswith("`steward")]
            for name, ms, baseline, what in rows:
                ratio = f"{ms / baseline:.2f}× {what}" if baseline else what
                print(f"| {n} | {name} | {ms:.1f} ms | {ratio} |")
            print(f"| {n} | load average after | {load()} | |")


if __name__ == "__main__":
    main()
