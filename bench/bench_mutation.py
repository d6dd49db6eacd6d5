"""How strong the test suite is: planted bugs (mutants) it must catch.

    python bench/bench_mutation.py [--work DIR] [--only NAME ...] [--full]
                                   [--timeout 1200] [--json FILE]

Each mutant of ``bench/mutants.py`` changes one core decision of memplan
(a conflict rule, a lifetime end, an overlap test, a pool offset, a
deallocation, a dying-input condition, the numerics comparison, a rewrite of
the memory pipeline) by replacing one exact piece of text in one file. The
bench applies each in turn to a scratch copy of the committed tree (``git
clone --shared`` of HEAD under ``--work``, default ``/tmp/memplan-mutation``,
with its own venv and build directory, made once and reused: the first run
builds everything and needs the package index), rebuilds, and runs the
tests: the mutant's lit directories (the whole lit suite where it names
none) and its pytest files; ``--full`` runs both whole suites. A mutant is *killed* when a test fails, or when the tests
exceed ``--timeout`` seconds; a test that fails before any mutant is applied
makes the run invalid.

A surviving mutant is either a gap of the suite or an equivalent change (no
program behaves differently); the list marks the latter with the reason,
and the bench prints them apart. Prints one line per mutant (killed by
which test, or survived), then killed/total over the non-equivalent
mutants. Exit status 1 when one of those survives, 2 on a broken setup.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from typing import List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from mutants import MUTANTS, Mutant  # noqa: E402


def build_requirements(tree: str) -> List[str]:
    """The build requirements ``pyproject.toml`` names (the venv builds
    without isolation, so that a mutant rebuilds incrementally)."""
    import tomllib  # Python 3.11; the bench's only use of it

    with open(os.path.join(tree, "pyproject.toml"), "rb") as f:
        return list(tomllib.load(f)["build-system"]["requires"])


@dataclass
class Outcome:
    """What one mutant did to the suite."""

    name: str
    status: str  # killed, survived, equivalent, stale, stillborn, timeout
    killer: str = ""
    seconds: float = 0.0


def _run(cmd: List[str], cwd: str, env: dict, timeout: Optional[float] = None):
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def prepare(work: str, sha: str) -> tuple[str, str, dict]:
    """The scratch tree at ``sha``, its build directory and the environment
    to test in (its venv's ``bin`` first on ``PATH``)."""
    tree, venv, build = (os.path.join(work, d) for d in ("tree", "venv", "build"))
    os.makedirs(work, exist_ok=True)
    if not os.path.isdir(os.path.join(tree, ".git")):
        subprocess.run(["git", "clone", "-q", "--shared", "--no-checkout", ROOT, tree], check=True)
    subprocess.run(["git", "-C", tree, "fetch", "-q", ROOT, sha], check=True)
    subprocess.run(["git", "-C", tree, "checkout", "-q", "-f", "--detach", sha], check=True)
    subprocess.run(["git", "-C", tree, "clean", "-q", "-fdx", "-e", "Output"], check=True)
    python = os.path.join(venv, "bin", "python")
    env = dict(os.environ)
    env["PATH"] = os.path.join(venv, "bin") + os.pathsep + env.get("PATH", "")
    env.pop("PYTHONPATH", None)
    if not os.path.exists(os.path.join(build, "build.ninja")):
        subprocess.run([sys.executable, "-m", "venv", "--clear", venv], check=True)
        subprocess.run(
            [python, "-m", "pip", "install", "-q", *build_requirements(tree)], check=True, env=env
        )
        subprocess.run(
            [
                python,
                "-m",
                "pip",
                "install",
                "-q",
                "--no-build-isolation",
                "-e",
                ".[test]",
                "-Ceditable.rebuild=true",
                "-Ceditable.verbose=false",
                f"-Cbuild-dir={build}",
            ],
            cwd=tree,
            check=True,
            env=env,
        )
    return tree, build, env


def build(build_dir: str, env: dict) -> bool:
    """Rebuilds the extension; False when it does not compile."""
    r = _run(["cmake", "--build", build_dir], cwd=build_dir, env=env)
    if r.returncode != 0:
        sys.stderr.write(r.stdout[-2000:] + r.stderr[-2000:])
    return r.returncode == 0


def run_tests(tree: str, env: dict, lit_args: List[str], files: List[str], timeout: float) -> str:
    """The first failing test's name, or "" when everything passes."""
    venv_bin = env["PATH"].split(os.pathsep)[0]
    lit = _run([os.path.join(venv_bin, "lit"), "-q", *lit_args], tree, env, timeout)
    if lit.returncode != 0:
        failed = re.findall(r"^\s+memplan :: (\S+)", lit.stdout, re.M)
        return "lit " + (failed[0] if failed else "(no name)")
    if files:
        py = _run(
            [
                os.path.join(venv_bin, "python"),
                "-m",
                "pytest",
                "-x",
                "-q",
                "-p",
                "no:cacheprovider",
                *files,
            ],
            tree,
            env,
            timeout,
        )
        if py.returncode != 0:
            failed = re.findall(r"^FAILED (\S+)", py.stdout, re.M)
            if not failed:
                failed = re.findall(r"^ERROR (\S+)", py.stdout, re.M)
            return "pytest " + (failed[0] if failed else "(exit %d)" % py.returncode)
    return ""


def apply(tree: str, m: Mutant) -> bool:
    """Plants ``m``; False when its text is not found exactly once."""
    path = os.path.join(tree, m.file)
    with open(path) as f:
        text = f.read()
    if text.count(m.find) != 1:
        return False
    with open(path, "w") as f:
        f.write(text.replace(m.find, m.replace))
    return True


def revert(tree: str, m: Mutant) -> None:
    """Restores the file ``m`` changed."""
    subprocess.run(["git", "-C", tree, "checkout", "-q", "-f", "--", m.file], check=True)


def pytest_files(m: Mutant, full: bool) -> List[str]:
    """The pytest files run against ``m``."""
    if full:
        return ["test/python"]
    return [os.path.join("test/python", p) for p in m.pytest]


def lit_paths(m: Mutant, full: bool) -> List[str]:
    """The lit directories or files run against ``m``."""
    if full or not m.lit:
        return ["test/lit"]
    return [os.path.join("test/lit", p) for p in m.lit]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", default="/tmp/memplan-mutation")
    parser.add_argument("--only", nargs="*", default=None, help="mutant names to run")
    parser.add_argument(
        "--full", action="store_true", help="the whole lit and pytest suites per mutant"
    )
    parser.add_argument("--timeout", type=float, default=1200.0)
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)

    chosen = [m for m in MUTANTS if args.only is None or m.name in args.only]
    if not chosen:
        print("no mutant of that name", file=sys.stderr)
        return 2
    sha = subprocess.run(
        ["git", "-C", ROOT, "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    tree, build_dir, env = prepare(args.work, sha)
    print(f"tree {sha[:12]} in {tree}", flush=True)
    if not build(build_dir, env):
        print("the unmutated tree does not build", file=sys.stderr)
        return 2
    baseline_files = sorted({p for m in chosen for p in pytest_files(m, args.full)})
    baseline_lit = sorted({p for m in chosen for p in lit_paths(m, args.full)})
    if "test/lit" in baseline_lit:
        baseline_lit = ["test/lit"]
    try:
        failing = run_tests(tree, env, baseline_lit, baseline_files, args.timeout)
    except subprocess.TimeoutExpired:
        failing = f"the tests ran past {args.timeout:.0f} s"
    if failing:
        print(f"invalid run: {failing} fails without a mutant", file=sys.stderr)
        return 2

    outcomes: List[Outcome] = []
    for m in chosen:
        start = time.time()
        if not apply(tree, m):
            outcome = Outcome(m.name, "stale", "its text is not in " + m.file)
        else:
            try:
                if not build(build_dir, env):
                    outcome = Outcome(m.name, "stillborn", "does not compile")
                else:
                    killer = run_tests(
                        tree, env, lit_paths(m, args.full), pytest_files(m, args.full), args.timeout
                    )
                    if killer:
                        outcome = Outcome(m.name, "killed", killer)
                    elif m.equivalent:
                        outcome = Outcome(m.name, "equivalent", m.equivalent)
                    else:
                        outcome = Outcome(m.name, "survived")
            except subprocess.TimeoutExpired:
                outcome = Outcome(m.name, "timeout", f"tests ran past {args.timeout:.0f} s")
            finally:
                revert(tree, m)
        outcome.seconds = time.time() - start
        outcomes.append(outcome)
        print(
            f"{outcome.status:10} {m.name:34} {outcome.killer}  ({outcome.seconds:.0f} s)",
            flush=True,
        )
    build(build_dir, env)

    counted = [o for o in outcomes if o.status in ("killed", "timeout", "survived")]
    killed = [o for o in counted if o.status != "survived"]
    survivors = [o.name for o in counted if o.status == "survived"]
    equivalent = [o for o in outcomes if o.status == "equivalent"]
    broken = [o for o in outcomes if o.status in ("stale", "stillborn")]
    print(
        f"\nkilled {len(killed)}/{len(counted)} non-equivalent mutants"
        f" ({len(equivalent)} equivalent, {len(broken)} stale or not compiling)"
    )
    if survivors:
        print("survivors: " + ", ".join(survivors))
    for o in equivalent:
        print(f"equivalent {o.name}: {o.killer}")
    for o in broken:
        print(f"{o.status} {o.name}: {o.killer}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump([asdict(o) for o in outcomes], f, indent=1)
    if broken:
        return 2
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
