"""Generated programs through memplan-memory-pipeline, against upstream's
pipeline: the long run of ``test/python/generated/test_generated.py``.

    python bench/bench_generated.py [--programs 2000] [--first-seed 0] [--ops 10]
                                    [--jobs 1] [--reduce DIR] [--json FILE]

Each seed gives one runnable tensor program (``progs.randprog.numeric_program``:
scf and cf control flow, view chains, calls and recursion, dynamic shapes,
i1 / f16 / bf16 / odd-width integer elements), checked as
``progs.gencheck.check_program`` does: the deallocation verifier on
memplan's output, and on every path (each branch, zero and two trips) the
outputs bit for bit against upstream's pipeline, clean heaps, uses after
free (the heap's quarantine) and a run-time heap peak at most upstream's.

Prints one line per program with a defect, then a table of the distinct
defects (their kind and message without locations), how many programs show
each and the first seed, and the totals. ``--reduce DIR`` shrinks the first
program of each distinct defect to a minimal repro (``DIR/<n>.mlir``, with
the path that shows it in a comment). Exit status 1 when a defect of
memplan's was found (a deallocation or memplan owner); upstream's own defects
are listed but do not fail the run.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import OrderedDict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "python"))

from progs.gencheck import Defect, check_isolated  # noqa: E402
from progs.randprog import numeric_program  # noqa: E402
from progs.reduce import reduce_program  # noqa: E402


def _check(seed: int, ops: int):
    program = numeric_program(seed, n_ops=ops)
    return program, check_isolated(program)


def _still_shows(defect: Defect, program, path):
    """The predicate of the reducer: the program text still shows a defect
    with ``defect``'s signature on ``path``."""
    static = defect.kind in ("verifier", "crash", "pipeline-error", "upstream") and path is None

    def predicate(text: str) -> bool:
        candidate = type(program)(**{**program.__dict__, "text": text})
        report = check_isolated(
            candidate, attribute=False, paths=None if path is None else [path], run=not static
        )
        return any(d.signature == defect.signature for d in report.defects)

    return predicate


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=2000)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--ops", type=int, default=10, help="ops per function body (default 10)")
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="programs checked at once, each in a forked child (default 1)",
    )
    parser.add_argument(
        "--reduce", metavar="DIR", help="write a minimal repro of each distinct defect into DIR"
    )
    parser.add_argument("--json", metavar="FILE", help="write every report as JSON")
    args = parser.parse_args(argv)

    start = time.time()
    seeds = range(args.first_seed, args.first_seed + args.programs)
    classes: "OrderedDict[str, list]" = OrderedDict()
    checked = skipped = paths = 0
    owners = {}
    reports = []

    def record(program, report) -> None:
        nonlocal checked, skipped, paths
        reports.append(report)
        if report.skipped:
            skipped += 1
            return
        checked += 1
        paths += report.paths
        seen = set()
        for defect in report.defects:
            if defect.signature in seen:
                continue
            seen.add(defect.signature)
            classes.setdefault(defect.signature, []).append((program, defect))
            owners[defect.signature] = defect.owner
        if report.defects:
            print(
                f"seed {report.seed} ({report.element}): {len(report.defects)} defects: "
                + "; ".join(sorted(seen))[:300],
                flush=True,
            )

    if args.jobs <= 1:
        for seed in seeds:
            record(*_check(seed, args.ops))
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(args.jobs, mp_context=multiprocessing.get_context("fork")) as pool:
            for program, report in pool.map(_check, seeds, [args.ops] * len(seeds)):
                record(program, report)

    elapsed = time.time() - start
    print()
    print(
        f"{checked} programs checked ({skipped} more rejected by upstream's own pipeline), "
        f"{paths} paths, {elapsed:.0f} s"
    )
    print()
    own = [signature for signature in classes if owners[signature] != "upstream"]
    print(f"Defects of memplan's: {len(own)} distinct; upstream's: {len(classes) - len(own)}.")
    print()
    print("| # | defect | owner | programs | first seed |")
    print("|---:|---|---|---:|---:|")
    for n, (signature, found) in enumerate(classes.items(), 1):
        print(
            f"| {n} | {signature[:160]} | {owners[signature]} | {len(found)} | "
            f"{found[0][0].seed} |"
        )
    if args.reduce:
        os.makedirs(args.reduce, exist_ok=True)
        for n, (signature, found) in enumerate(classes.items(), 1):
            program, defect = found[0]
            print(f"reducing #{n} (seed {program.seed}) ...", flush=True)
            text = reduce_program(program.text, _still_shows(defect, program, defect.path))
            path = os.path.join(args.reduce, f"{n}.mlir")
            with open(path, "w") as f:
                f.write(
                    f"// {signature}\n// owner: {owners[signature]}; seed {program.seed}, "
                    f"element {program.features.element}\n"
                )
                if defect.path is not None:
                    names = {program.cond: "%c", program.offset: "%i", program.trips: "%n"}
                    f.write(
                        "// path: "
                        + ", ".join(f"{names.get(k, k)} = {v}" for k, v in defect.path.items())
                        + "\n"
                    )
                f.write(text)
            print(f"  {path}", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                [
                    {
                        "seed": r.seed,
                        "element": r.element,
                        "skipped": r.skipped,
                        "paths": r.paths,
                        "peaks": r.peaks,
                        "defects": [
                            {
                                "kind": d.kind,
                                "owner": d.owner,
                                "path": d.path and {str(k): v for k, v in d.path.items()},
                                "message": d.message,
                            }
                            for d in r.defects
                        ],
                    }
                    for r in reports
                ],
                f,
                indent=1,
            )
    return 1 if own else 0


if __name__ == "__main__":
    sys.exit(main())
