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
built when missing); the writes are timed again with the static musl build
($STEWARD_STATIC, else target/x86_64-unknown-linux-musl/release/steward,
built with `--features testing`) when it exists.
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


def main():
    sizes = [int(a) for a in sys.argv[1:]] or [1000, 10000]
    steward = steward_binary()
    env = dict(os.environ, STEWARD_NOW=NOW)
    print("| items | command | median | ratio to steward |")
    print("|---:|---|---:|---:|")
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            base = Path(tmp)
            root = steward_store(base, n)
            task_env = taskwarrior_store(base, n) if shutil.which("task") else None
            mb_root = minibeads_store(base, n) if shutil.which("mb") else None
            # The stores are written back before anything is timed (the
            # kernel would otherwise flush them in the background half a
            # minute later, while steward's writes wait for the disk), and the
            # disk is woken before the writes (see wake_disk), which are timed
            # side by side (see interleaved_medians).
            os.sync()
            rows = []
            list_time = median_ms(lambda _: [steward, "-C", str(root), "list", "--json"], env)
            rows.append(("`steward list --json`", list_time, list_time))
            if task_env:
                rows.append(("`task list`", median_ms(lambda _: ["task", "list"], task_env), list_time))
            if mb_root:
                mb = ["mb", "--mb-beads-dir", str(mb_root / ".minibeads")]
                rows.append(("`mb list`", median_ms(lambda _: mb + ["list"]), list_time))
            open_labels = [f"goal-{i:05}" for i in range(0, n, 10)]
            pick = lambda r: open_labels[r % len(open_labels)]
            mb_pick = lambda r: f"bd-{(r % (n // 10) + 1) * 10}"
            # Each write: its command, its environment, and the steward write
            # its ratio is to.
            writes, baselines = {}, {}

            def write(name, make_args, environment, baseline):
                writes[name] = (make_args, environment)
                baselines[name] = baseline

            add, update = "`steward add`", "`steward update --note`"
            for build, binary, label in (("", steward, "bench"), (", static build", static_binary(), "static")):
                if not binary:
                    continue
                write(add + build, lambda r, b=binary, label=label: [
                    b, "-C", str(root), "add", f"{label}-{r}", "--title", "Bench", "--criterion", "done"], env, add)
                write(update + build, lambda r, b=binary: [
                    b, "-C", str(root), "update", pick(r), "--note", f"bench {r}"], env, update)
                write(f"`steward assess`{build}", lambda r, b=binary: [
                    b, "-C", str(root), "assess", pick(r), "--summary", f"bench {r}"], env, update)
            if task_env:
                write("`task add`", lambda r: ["task", "add", f"bench {r}"], task_env, add)
                write("`task modify`", lambda r: ["task", str(r % (n // 10) + 1), "modify", f"bench {r}"],
                      task_env, update)
            if mb_root:
                write("`mb create`", lambda r: mb + ["create", f"bench {r}"], None, add)
                write("`mb update --notes`", lambda r: mb + ["update", mb_pick(r), "--notes", f"bench {r}"], None,
                      update)
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
            rows += [(name, ms, medians[baselines[name]]) for name, ms in medians.items()]
            for name, ms, baseline in rows:
                print(f"| {n} | {name} | {ms:.1f} ms | {ms / baseline:.1f}× |")


if __name__ == "__main__":
    main()
