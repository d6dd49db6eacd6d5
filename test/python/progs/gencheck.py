"""Checking one generated program (:func:`progs.randprog.numeric_program`)
end to end, as the tests and ``bench/bench_generated.py`` do.

The reference is the tensor program through upstream's pipeline
(``memplan.passes.pipeline.UPSTREAM_BUFFERIZATION``: one-shot-bufferize,
buffer-deallocation-pipeline, optimize-allocation-liveness); the program
checked is its ``memplan-memory-pipeline`` output. Each must hold:

* the output passes the deallocation verifier (``memplan.deallocation.verify``);
* on every path (each branch condition with zero and two trips), the two run
  bit for bit alike under ``memplan.numerics.compare`` (poisoned memory, an
  isolated run: the heap's quarantine catches uses after free), both with
  clean heaps (no invalid or double free, no leak);
* memplan's run-time heap peak (64-byte blocks) is at most upstream's on that
  path.

Each program is checked in a forked child, so that a crash (of upstream's
passes, or of memplan's) is a defect, not the end of the run. A defect
names the part of memplan it belongs to where the check can tell: a peak
above upstream's is rerun without pools, split destinations and dying-input
reuse to find the step that raises it, and last with upstream's unsound rule
for writes across blocks (``cfg-conflicts``: the peak is the price of a copy
memplan's in-place analysis keeps where upstream's misses a conflict).
"""

from __future__ import annotations

import faulthandler
import os
import pickle
import re
import signal
import traceback
from dataclasses import dataclass, field
from typing import Callable, List, Optional

from progs.randprog import NumericProgram

#: The owner of each kind of defect, where the kind says it.
OWNERS = {
    "verifier": "deallocation",
    "heap-fault": "deallocation",
    "use-after-free": "deallocation",
    "pipeline-error": "memplan",
    "crash": "memplan",
    "mismatch": "memplan",
    "upstream": "upstream",
}

#: A generated program is skipped (not counted as checked) when upstream's
#: own pipeline rejects it: that is upstream's bufferization's limit (e.g. a
#: loop yielding a value not equivalent to its iteration argument).


@dataclass
class Defect:
    """One thing a generated program got wrong."""

    kind: str
    message: str
    #: The inputs that select the path (``values`` of the harness), if any.
    path: Optional[dict] = None
    #: Which part of memplan it belongs to (OWNERS, or the peak's step).
    owner: str = ""

    def __str__(self) -> str:
        where = f" [path {self.path}]" if self.path is not None else ""
        return f"{self.kind} ({self.owner}){where}: {self.message}"

    @property
    def signature(self) -> str:
        """The defect without its locations and numbers: what two programs
        showing the same defect have in common."""
        first = self.message.splitlines()[0] if self.message else ""
        first = re.sub(r"(<\w+>|[\w./-]+\.mlir|\"-\"):\d+:\d+", "LOC", first)
        first = re.sub(r"\{[^}]*\}", "{...}", first)
        first = re.sub(r"\b\d+\b", "N", first)
        return f"{self.kind}: {first}"


@dataclass
class Report:
    """The outcome of checking one program."""

    seed: int
    element: str
    defects: List[Defect] = field(default_factory=list)
    #: Why the program was not checked (upstream's pipeline rejects it).
    skipped: str = ""
    #: Paths run, and (upstream, memplan) run-time peaks per path.
    paths: int = 0
    peaks: List[tuple] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.defects


UPSTREAM = None  # memplan.passes.pipeline.UPSTREAM_BUFFERIZATION, imported lazily
MEMPLAN = "memplan-memory-pipeline"


def _pipeline(text: str, pipeline: str) -> str:
    from mlir import ir

    import memplan
    from memplan.ir import parse_source

    with ir.Context() as ctx:
        ctx.enable_multithreading(False)
        module = parse_source(text, "gen.mlir")
        memplan.run_pipeline(module, f"builtin.module({pipeline})")
        return str(module)


def _verify(text: str) -> List[str]:
    from mlir import ir

    from memplan.deallocation.verify import verify
    from memplan.ir import parse_source

    with ir.Context():
        module = parse_source(text, "memplan.mlir")
        return [str(v) for v in verify(module) if v.is_error]


def _peak_step(program: NumericProgram, path: dict, upstream_peak: int) -> str:
    """The memplan step that raises the peak above upstream's on ``path``:
    the first variant of the pipeline, each the default one with one step
    taken out or turned off, whose peak is back at most upstream's."""
    from memplan.numerics import compare
    from memplan.passes import lookup

    info = lookup(MEMPLAN)
    steps = info.expand(info.resolve_options({})).split(", ")
    assert steps[-1].startswith("memplan-buffer-reuse"), steps
    dead = "memplan-buffer-deallocation{drop-dead-values=true copy-where-loops-run=true}"
    assert dead in steps, steps
    bufferize = next(s for s in steps if s.startswith("memplan-one-shot-bufferize{"))
    as_upstream = bufferize[:-1] + " cfg-conflicts-as-upstream}"
    variants = [
        ("pools", ",".join(steps[:-1])),
        # Deallocation dropping dead region results and block arguments first.
        (
            "dead-values",
            ",".join(
                s if s != dead else "memplan-buffer-deallocation{copy-where-loops-run=true}"
                for s in steps
            ),
        ),
        # Deallocation making a loop's copied init only where the loop runs.
        (
            "loop-copies",
            ",".join(
                s if s != dead else "memplan-buffer-deallocation{drop-dead-values=true}"
                for s in steps
            ),
        ),
        ("split-destinations", f"{MEMPLAN}{{split-destinations=false}}"),
        ("reuse-dying-inputs", f"{MEMPLAN}{{reuse-dying-inputs=false}}"),
        # Not a step: upstream's rule that a write outside a block argument's
        # block never clobbers it (unsound under cf branches, see
        # docs/inplace-analysis.md). A peak back at upstream's with it is the
        # price of the copies memplan's sound rule keeps.
        ("cfg-conflicts", ",".join(s.replace(bufferize, as_upstream) for s in steps)),
    ]
    for step, pipeline in variants:
        try:
            text = _pipeline(program.text, pipeline)
            result = compare(program.text, text, "main", values=path, dims=program.dims)
        except Exception:  # noqa: BLE001 - only a hint
            continue
        if result.heap_after.peak_blocks_bytes <= upstream_peak:
            return step
    return "memplan"


#: memplan-memory-pipeline's steps (its default expansion), to name the one
#: that crashes.
STEPS = (
    "memplan-split-destinations",
    "memplan-reuse-dying-inputs",
    None,
    "memplan-buffer-deallocation",
    "memplan-buffer-reuse",
)


def _crashing_step(text: str) -> str:
    """The first step of memplan-memory-pipeline whose run crashes."""
    from memplan.passes.pipeline import MEMPLAN_ONE_SHOT

    steps = [step or MEMPLAN_ONE_SHOT for step in STEPS]
    for k in range(1, len(steps) + 1):
        outcome = run_forked(_pipeline, text, ",".join(steps[:k]))
        if isinstance(outcome, tuple) and outcome[0] == "crash":
            return steps[k - 1].split("{")[0]
        if not isinstance(outcome, str):
            return "?"
    return "?"


def _pipeline_outcome(text: str, pipeline: str):
    """The pipeline's output text, an ``("error", message)`` or a
    ``("crash", how)`` pair (run in a forked child)."""

    def run() -> object:
        from mlir import ir

        try:
            return _pipeline(text, pipeline)
        except (ir.MLIRError, ValueError) as err:
            return ("error", str(err))

    return run_forked(run)


def _first_error(message: str) -> str:
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    return next((line for line in lines if line.startswith("error")), lines[0] if lines else "")


def check_program(
    program: NumericProgram,
    attribute: bool = True,
    paths: Optional[List[dict]] = None,
    run: bool = True,
    pipeline: str = MEMPLAN,
) -> Report:
    """Check ``program`` (see the module doc); each pipeline runs in a
    forked child, so that a crash is a defect. Without ``run``, only the
    pipelines and the verifier (no execution). ``pipeline`` is what is
    checked (memplan-memory-pipeline)."""
    from memplan.numerics import compare_paths
    from memplan.numerics.heap import UseAfterFree
    from memplan.passes.pipeline import UPSTREAM_BUFFERIZATION

    report = Report(program.seed, program.features.element)
    upstream = _pipeline_outcome(program.text, UPSTREAM_BUFFERIZATION)
    after = _pipeline_outcome(program.text, pipeline)
    if isinstance(upstream, tuple):
        if upstream[0] == "crash":
            report.defects.append(
                Defect(
                    "upstream",
                    f"upstream's pipeline crashes: {upstream[1]}",
                    owner=OWNERS["upstream"],
                )
            )
        else:
            report.skipped = f"upstream's pipeline rejects it: {_first_error(upstream[1])}"
        if isinstance(after, tuple) and after[0] == "crash":
            report.defects.append(
                Defect(
                    "crash",
                    f"memplan-memory-pipeline crashes too ({after[1]}, in "
                    f"{_crashing_step(program.text)})",
                    owner=_crash_owner(program.text),
                )
            )
        if isinstance(upstream, tuple) and upstream[0] == "error":
            return report
        # No reference: memplan's output is still verified and run alone.
        upstream = None
    if isinstance(after, tuple):
        if after[0] == "crash":
            if not report.defects:
                report.defects.append(
                    Defect(
                        "crash",
                        f"memplan-memory-pipeline crashes ({after[1]}, in "
                        f"{_crashing_step(program.text)})",
                        owner=_crash_owner(program.text),
                    )
                )
        else:
            report.defects.append(
                Defect("pipeline-error", _first_error(after[1]), owner=OWNERS["pipeline-error"])
            )
        return report
    for violation in _verify(after):
        report.defects.append(Defect("verifier", violation, owner=OWNERS["verifier"]))
    if not run:
        return report
    # Without a trusted reference (upstream crashed, or its output uses freed
    # memory on a path), values are compared with upstream's bufferization
    # without deallocation, and peaks are not compared.
    paths = list(paths if paths is not None else program.paths())
    report.paths = len(paths)
    outcomes = [None] * len(paths)
    if upstream is not None:
        outcomes = compare_paths(
            upstream,
            after,
            "main",
            paths,
            dims=program.dims,
            isolate=True,
            raise_errors=False,
            keep_outputs=True,
        )
    retry = []
    interpreted = set()
    for k, outcome in enumerate(outcomes):
        if outcome is None:
            retry.append(k)
        elif isinstance(outcome, UseAfterFree) and str(outcome).startswith("before"):
            report.defects.append(
                Defect("upstream", f"upstream's output: {outcome}", paths[k], OWNERS["upstream"])
            )
            retry.append(k)
        elif not isinstance(outcome, Exception):
            decided, upstream_wrong = _interpret(report, program, upstream, paths[k], outcome)
            if decided and (upstream_wrong or _departs(program, outcome)):
                interpreted.add(k)
    if retry:
        unfreed = _pipeline(
            program.text, UPSTREAM_BUFFERIZATION.split(",buffer-deallocation-pipeline")[0]
        )
        again = compare_paths(
            unfreed,
            after,
            "main",
            [paths[k] for k in retry],
            dims=program.dims,
            isolate=True,
            raise_errors=False,
            keep_outputs=True,
        )
        for k, outcome in zip(retry, again):
            outcomes[k] = (outcome, False)
            if (
                not isinstance(outcome, Exception)
                and _interpret(report, program, unfreed, paths[k], outcome)[0]
            ):
                interpreted.add(k)
    for k, (path, outcome) in enumerate(zip(paths, outcomes)):
        trusted = k not in retry
        outcome = outcome[0] if not trusted else outcome
        if isinstance(outcome, UseAfterFree):
            report.defects.append(
                Defect("use-after-free", str(outcome), path, OWNERS["use-after-free"])
            )
            continue
        if isinstance(outcome, Exception):
            report.defects.append(
                Defect("crash", f"{type(outcome).__name__}: {outcome}", path, OWNERS["crash"])
            )
            continue
        _judge(report, outcome, path, trusted, k in interpreted)
        heap = outcome.heap_after
        # A peak is compared with upstream's only where upstream computes right.
        if (
            trusted
            and k not in interpreted
            and heap.peak_blocks_bytes > outcome.heap_before.peak_blocks_bytes
        ):
            upstream_peak = outcome.heap_before.peak_blocks_bytes
            owner = _peak_step(program, path, upstream_peak) if attribute else ""
            report.defects.append(
                Defect(
                    "peak",
                    f"run-time heap peak {heap.peak_blocks_bytes} B above upstream's "
                    f"{upstream_peak} B",
                    path,
                    owner,
                )
            )
    return report


def _crash_owner(text: str) -> str:
    step = _crashing_step(text)
    return {
        "memplan-buffer-deallocation": "deallocation",
        "memplan-buffer-reuse": "pools",
        "memplan-split-destinations": "split destinations",
    }.get(step, "memplan")


def _interpret(
    report: Report, program: NumericProgram, reference: str, path: dict, result
) -> tuple:
    """The results of ``path`` by the tensor-level interpreter
    (:mod:`progs.interp`), on the inputs ``result`` was run with: memplan's
    results must equal them bit for bit, and where upstream's (``reference``,
    the before side) differ, that is upstream's defect. The arguments'
    contents after the call are not compared: tensor semantics leave them
    open; a trusted reference's decisions fix them (:func:`_judge` compares
    the two sides). Where upstream's pipeline is no reference (it crashed,
    or its output reads freed memory), the interpreter alone decides; where
    upstream's results are wrong, too. Returns whether the interpreter
    decided (it knows every op of the program) and whether upstream's
    results were wrong."""
    from mlir import ir

    from memplan.numerics.inputs import make_arguments
    from memplan.numerics.signature import entry_signature
    from progs import interp

    with ir.Context():
        signature = entry_signature(ir.Module.parse(reference), "main")
    args = make_arguments(signature, None, result.seed, program.dims, path)
    try:
        expected = interp.run(program.text, "main", [a.view() for a in args])
    except interp.Unsupported:
        return False, False
    upstream_wrong = False
    for k, want in enumerate(expected):
        name = f"result{k}"
        for side, outputs in (
            ("memplan", result.outputs_after),
            ("upstream", result.outputs_before),
        ):
            got = outputs[name]
            where = interp.differences(want, got.data)
            if not where:
                continue
            first = where[0]
            message = (
                f"{got.name} (output {k}), element {first}: the tensor-level interpreter "
                f"gives {want.data.flat[first]}, the program {got.data.flat[first]} "
                f"({len(where)} of {want.data.size} elements differ)"
            )
            if side == "memplan":
                report.defects.append(Defect("mismatch", message, path, OWNERS["mismatch"]))
            else:
                upstream_wrong = True
                report.defects.append(
                    Defect(
                        "upstream",
                        f"upstream's bufferization computes it wrong: {message}",
                        path,
                        OWNERS["upstream"],
                    )
                )
    return True, upstream_wrong


def _departs(program: NumericProgram, result) -> bool:
    """Whether only the arguments' contents differ from upstream's output, in
    a program where memplan's in-place analysis may decide otherwise than
    upstream's: under unstructured control flow, where upstream misses the
    conflict of a write to a block argument in a later block (memplan copies
    there, and so leaves an argument unwritten that upstream writes)."""
    mismatch = result.mismatch
    return (
        "cf.cond_br" in program.text
        and mismatch is not None
        and mismatch.output_name.startswith("arg ")
    )


def _judge(report: Report, result, path: dict, trusted: bool, interpreted: bool = False) -> None:
    """The defects of one compared path (``interpreted``: its values were
    decided by the interpreter, not by comparing the two sides)."""
    before, heap = result.heap_before, result.heap_after
    if trusted and not interpreted:
        for line in before.fault_lines():
            report.defects.append(
                Defect("upstream", f"upstream's output: {line}", path, OWNERS["upstream"])
            )
        report.peaks.append((before.peak_blocks_bytes, heap.peak_blocks_bytes))
    for line in heap.fault_lines():
        report.defects.append(Defect("heap-fault", line, path, OWNERS["heap-fault"]))
    asserts = result.assert_counts_before != result.assert_counts_after
    # Where the interpreter decided the values, the two sides' difference is
    # no longer memplan's (see _interpret).
    mismatch = None if interpreted else result.mismatch
    if mismatch is not None or result.uninitialized or asserts:
        detail = "; ".join(str(x) for x in [mismatch, *result.uninitialized] if x)
        if asserts:
            detail += (
                ("; " if detail else "") + "failed assertions differ: "
                f"{result.assert_counts_before} vs {result.assert_counts_after}"
            )
        report.defects.append(Defect("mismatch", detail, path, OWNERS["mismatch"]))


def run_forked(fn: Callable, *args) -> object:
    """``fn(*args)`` in a forked child; its result, or a ``("crash", text)``
    pair when the child dies (a signal, an exception)."""
    import sys

    read_end, write_end = os.pipe()
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    pid = os.fork()
    if pid == 0:
        code = 0
        faulthandler.disable()  # a crash is reported by the parent, once
        try:
            os.close(read_end)
            payload = pickle.dumps(("ok", fn(*args)))
        except BaseException:  # noqa: BLE001 - reported to the parent
            payload, code = pickle.dumps(("error", traceback.format_exc())), 3
        with os.fdopen(write_end, "wb") as pipe:
            pipe.write(payload)
        os._exit(code)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        payload = pipe.read()
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return ("crash", f"killed by signal {signal.Signals(os.WTERMSIG(status)).name}")
    if not payload:
        return ("crash", f"exit code {os.WEXITSTATUS(status)}")
    kind, value = pickle.loads(payload)
    return value if kind == "ok" else ("crash", value)


def check_isolated(
    program: NumericProgram,
    attribute: bool = True,
    paths: Optional[List[dict]] = None,
    run: bool = True,
    pipeline: str = MEMPLAN,
) -> Report:
    """:func:`check_program` in a forked child; a child that dies is a
    ``crash`` defect (with its signal)."""
    outcome = run_forked(check_program, program, attribute, paths, run, pipeline)
    if isinstance(outcome, Report):
        return outcome
    report = Report(program.seed, program.features.element)
    report.defects.append(Defect("crash", outcome[1], owner="memplan or upstream"))
    return report
