#!/usr/bin/env python3
"""A fleet night: MACHINES clones of one bare remote on this machine, each
with its own key (its own HOME), GOALS goals whose fake agent really does
the work (a file the goal's check looks for) and has the judge close it,
every machine ticking every five simulated minutes through a night.

Machines pair up and tick at the same moment, so claims race through
pushes; one machine sleeps for an hour while the work is under way (its
machine.available says when) and one goes away for good an hour in. It
prints, as Markdown: goals done by their checks, runs started twice (must
be 0), claims lost to races, conflicts left to a person (must be 0), the
time of a sync as the history grows, the remote's size, and how the work
spread across the machines.

Usage: bench/fleet.py [--machines 10] [--goals 1000] [--hours 8]
                      [--no-placement] [--keep]

steward is the release binary built with the `testing` feature, which
honours the fixed clock (STEWARD_NOW) ($STEWARD, else
target/release/steward, built when missing). --no-placement sets
fleet.defer to 0s: each machine takes what it can, as before machines
published their records.
"""

import argparse
import collections
import datetime as dt
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
START = dt.datetime(2026, 11, 21, 22, 0, tzinfo=dt.timezone.utc)
SLEEPS = START + dt.timedelta(minutes=40)
WAKES = START + dt.timedelta(minutes=100)

AGENT = """#!/bin/sh
cat > /dev/null
mkdir -p work
touch "work/$STEWARD_GOAL.done"
echo "$STEWARD_MACHINE_ID $STEWARD_GOAL" >> "$STARTS"
steward complete "$STEWARD_GOAL" --reason "made work/$STEWARD_GOAL.done" >/dev/null 2>&1
"""

CONFIG = """
dispatch:
  enabled: true
  agent: fake
  claim: git
  max_parallel: 4
  timeout: 20m
  pass_at_run_end: false
global_limits:
  max_dispatches_per_hour: 10000
  max_active_goals: 100000
agents:
  fake:
    command: [./agent.sh]
    output: text
"""


def steward_binary():
    path = Path(os.environ.get("STEWARD", ROOT / "target/release/steward"))
    if not path.exists():
        subprocess.run(["cargo", "build", "--release", "--features", "testing",
                        "--manifest-path", str(ROOT / "Cargo.toml")], check=True)
    return path


class Machine:
    def __init__(self, base, name, binary, starts):
        self.name = name
        self.root = base / name
        self.home = base / f"{name}-home"
        self.home.mkdir()
        self.binary = binary
        self.starts = starts
        self.ticks = 0
        self.lost = 0
        self.sync_ms = []

    def env(self, now):
        return {
            "PATH": f"{self.binary.parent}:/usr/bin:/bin",
            "HOME": str(self.home),
            "STEWARD_MACHINE_ID": self.name,
            "STEWARD_NOW": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "STARTS": str(self.starts),
            "TZ": "UTC",
            "GIT_CONFIG_GLOBAL": "/dev/null",
            "GIT_CONFIG_NOSYSTEM": "1",
        }

    def run(self, now, *args, check=True):
        done = subprocess.run([str(self.binary), *args], cwd=self.root, env=self.env(now),
                              capture_output=True, text=True)
        if check and done.returncode not in (0, 3):
            sys.exit(f"{self.name}: steward {' '.join(args)}: exit {done.returncode}\n{done.stderr}")
        return done

    def git(self, *args, check=True):
        return subprocess.run(["git", *args], cwd=self.root, capture_output=True, text=True,
                              check=check, env={"PATH": "/usr/bin:/bin", "GIT_CONFIG_GLOBAL": "/dev/null",
                                                "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(self.home)})

    def identify(self):
        self.git("config", "user.name", self.name)
        self.git("config", "user.email", f"{self.name}@example.com")

    def wait_for_runs(self, now):
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            listed = json.loads(self.run(now, "runs", "--json").stdout or "{}")
            mine = [r for r in listed.get("runs", [])
                    if r.get("machine") == self.name and r.get("state") in ("pending", "running")]
            if not mine:
                return
            time.sleep(0.05)
        sys.exit(f"{self.name}: runs never ended")

    def step(self, now, stats):
        """One pass as cron would run it: sync, tick, the runs, sync."""
        start = time.perf_counter()
        synced = self.run(now, "sync", check=False)
        self.sync_ms.append((time.perf_counter() - start) * 1000)
        if synced.returncode == 3:
            stats["conflicts"] += 1
        ticked = self.run(now, "tick", "-q", check=False)
        self.ticks += 1
        text = ticked.stdout + ticked.stderr
        self.lost += text.count("claimed the goal first")
        self.wait_for_runs(now)
        synced = self.run(now, "sync", check=False)
        if synced.returncode == 3:
            stats["conflicts"] += 1


def build(args, base, binary, starts):
    remote = base / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    names = [f"m{n}" for n in range(args.machines)]
    first = Machine(base, names[0], binary, starts)
    first.root.mkdir()
    first.git("init", "-q", "-b", "main")
    first.identify()
    first.run(START, "init", "--git")
    config = (first.root / "steward.yaml").read_text() + CONFIG
    if args.no_placement:
        config += "fleet:\n  defer: 0s\n"
    (first.root / "steward.yaml").write_text(config)
    (first.root / "agent.sh").write_text(AGENT)
    (first.root / "agent.sh").chmod(0o755)
    (first.root / ".gitignore").write_text("work/\n")
    first.run(START, "config", "accept", "-q")
    for n in range(args.goals):
        label = f"g{n:04}"
        first.run(START, "add", label, "--title", "make its file", "--criterion", "its file is there",
                  "--verify", f"file_exists:work/{label}.done@1")
    first.git("add", "-A")
    first.git("commit", "-q", "-m", "the night's goals")
    first.git("remote", "add", "origin", str(remote))
    first.git("push", "-q", "origin", "main")
    machines = [first]
    for name in names[1:]:
        m = Machine(base, name, binary, starts)
        subprocess.run(["git", "clone", "-q", str(remote), str(m.root)], check=True)
        m.identify()
        m.run(START, "init", "--git")
        m.run(START, "config", "accept", "-q")
        for _ in range(5):
            m.git("pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
            if m.git("push", "-q", "origin", "main", check=False).returncode == 0:
                break
        machines.append(m)
    for m in machines:
        m.git("pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
        for other in names:
            if other != m.name:
                m.run(START, "accept", "--machine", other)
    # The sleeper: its lid closes from 22:40 to 23:40 (UTC), while the
    # work is under way.
    sleeper = machines[len(machines) // 2]
    (sleeper.root / "state/local").mkdir(parents=True, exist_ok=True)
    (sleeper.root / "state/local/steward.yaml").write_text(
        'machine:\n  available: ["23:40-22:40"]\n')
    sleeper.run(START, "config", "accept", "-q")
    return remote, machines, sleeper


def night(args, machines, sleeper):
    stats = collections.Counter()
    gone = machines[-1]
    rounds = args.hours * 12
    pool = ThreadPoolExecutor(max_workers=2)
    started = time.perf_counter()
    for r in range(rounds):
        now = START + dt.timedelta(minutes=5 * r)
        awake = []
        for m in machines:
            if m is gone and now >= START + dt.timedelta(hours=1):
                continue
            if m is sleeper and SLEEPS <= now < WAKES:
                continue
            awake.append(m)
        # Pairs tick at the same moment: their claims race.
        for i in range(0, len(awake), 2):
            pair = awake[i:i + 2]
            list(pool.map(lambda m: m.step(now, stats), pair))
        done = sum(1 for _ in open(machines[0].starts)) if machines[0].starts.exists() else 0
        print(f"round {r:3} {now:%H:%M}: {done} runs so far, {time.perf_counter() - started:.0f}s",
              file=sys.stderr)
        if done >= args.goals and r >= 36:
            break
    return stats, r + 1


def report(args, remote, machines, stats, rounds, starts, elapsed):
    last = machines[0]
    final = START + dt.timedelta(hours=args.hours)
    for m in machines[:-1] + machines[:-1]:
        m.run(final, "sync", check=False)
    listed = json.loads(last.run(final, "list", "--all", "--json").stdout)
    goals = listed["goals"]
    done = sum(1 for g in goals if g["status"] == "completed")
    held = sum(1 for g in goals if (g.get("waiting") or {}).get("for_person"))
    # A goal some machine found changed or removed outside steward: told to
    # a person, though no person touched it.
    outside = set()
    for part in (last.root / "state" / "events").glob("*.jsonl"):
        for line in part.read_text().splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if event.get("action") in ("edited_outside", "deleted_outside", "closed_by_hand"):
                outside.add(event.get("goal_id"))
    runs = collections.Counter()
    spread = collections.Counter()
    for line in starts.read_text().splitlines():
        machine, goal = line.split()
        runs[goal] += 1
        spread[machine] += 1
    twice = sum(1 for n in runs.values() if n > 1)
    size = subprocess.run(["du", "-sk", str(remote)], capture_output=True, text=True).stdout.split()[0]
    early = [ms for m in machines for ms in m.sync_ms[:3]]
    late = [ms for m in machines for ms in m.sync_ms[-3:]]
    print(f"\n### {args.machines} machines, {args.goals} goals, {rounds} rounds of 5 minutes"
          f"{' (no placement: fleet.defer 0s)' if args.no_placement else ''}\n")
    print("| figure | value |\n|---|---|")
    print(f"| goals done by their checks | {done} of {len(goals)} |")
    print(f"| goals held for a person | {held} |")
    print(f"| goals found changed or removed outside steward | {len(outside)} |")
    print(f"| runs started twice | {twice} |")
    print(f"| claims lost to a race (taken back before any run) | {sum(m.lost for m in machines)} |")
    print(f"| syncs stopped on a conflict | {stats['conflicts']} |")
    print(f"| sync, median of the first three a machine ran | {statistics.median(early):.0f} ms |")
    print(f"| sync, median of the last three | {statistics.median(late):.0f} ms |")
    print(f"| the remote's size after the night | {int(size) // 1024} MiB |")
    print(f"| runs by machine | {', '.join(f'{m.name} {spread[m.name]}' for m in machines)} |")
    print(f"| the night (wall clock) | {elapsed:.0f} s |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--machines", type=int, default=10)
    parser.add_argument("--goals", type=int, default=1000)
    parser.add_argument("--hours", type=int, default=8)
    parser.add_argument("--no-placement", action="store_true")
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    binary = steward_binary()
    base = Path(tempfile.mkdtemp(prefix="steward-fleet-"))
    starts = base / "starts.log"
    try:
        remote, machines, sleeper = build(args, base, binary, starts)
        started = time.perf_counter()
        stats, rounds = night(args, machines, sleeper)
        elapsed = time.perf_counter() - started
        report(args, remote, machines, stats, rounds, starts, elapsed)
    finally:
        if args.keep:
            print(f"kept: {base}", file=sys.stderr)
        else:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
