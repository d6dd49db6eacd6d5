"""Two forms of one program: how their arguments and outputs correspond.

A rewrite may change the entry function's signature without changing what
it computes:

* **out-params** (upstream ``buffer-results-to-out-params``): memref results
  become arguments appended after the others, which the caller allocates and
  the function writes;
* **transient storage** (``memplan-transients``): one more argument marked
  ``memplan.transients``, working memory the caller provides.

:func:`pair_forms` matches the two signatures: the arguments both take (the
program's inputs, paired in order), the results one returns and the other
writes to an out-param, and each side's storage. Outputs are then named and
compared by what they are in the program (``result0``, ``arg1``: the numbers
of ``before``'s function), whichever form produced them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from .signature import Signature, ValueSpec

__all__ = ["Role", "Pairing", "pair_forms", "same_value_type"]


@dataclass(frozen=True)
class Role:
    """What one argument of one side is: ``"input"`` (before's argument
    ``index``), ``"out"`` (an out-param for the program's result ``index``)
    or ``"storage"`` (transient storage)."""

    kind: str
    index: int = -1


@dataclass
class Pairing:
    """The correspondence of two entry signatures (see module doc)."""

    #: Per argument of each side, its role.
    args_before: List[Role]
    args_after: List[Role]
    #: Per result of each side, the program result it is.
    results_before: List[int]
    results_after: List[int]
    #: The program's results: ``(name, spec)`` with before's numbering.
    program_results: List[ValueSpec] = field(default_factory=list)
    #: Human-readable form of each side ("results as out-params %arg2...").
    notes_before: List[str] = field(default_factory=list)
    notes_after: List[str] = field(default_factory=list)

    def out_params(self, side: str) -> List[int]:
        """The out-parameter argument numbers of ``side`` (``before``/``after``)."""
        roles = self.args_before if side == "before" else self.args_after
        return [i for i, r in enumerate(roles) if r.kind == "out"]

    def storage(self, side: str) -> Optional[int]:
        """The transient-storage argument number of ``side``, or ``None``."""
        roles = self.args_before if side == "before" else self.args_after
        return next((i for i, r in enumerate(roles) if r.kind == "storage"), None)


def same_value_type(a: ValueSpec, b: ValueSpec) -> bool:
    """Same kind, element type and shape: layouts may differ."""
    return (a.is_memref, a.element, a.shape) == (b.is_memref, b.element, b.shape)


def _plain(sig: Signature) -> List[int]:
    return [i for i in range(len(sig.args)) if i != sig.storage]


def _match_results(
    returning: Signature, writing: Signature, plain_w: List[int], shared: int
) -> Optional[Tuple[Dict[int, int], List[int]]]:
    """``writing`` returns some of ``returning``'s results and writes the
    memref ones to the arguments after its ``shared`` inputs (as
    ``buffer-results-to-out-params`` does). Returns out-param argument ->
    result, and for each of ``writing``'s results the result it is; or
    ``None`` when the signatures do not fit that pattern."""
    extra = plain_w[shared:]
    memref_results = [j for j, r in enumerate(returning.results) if r.is_memref]
    kept = [j for j, r in enumerate(returning.results) if not r.is_memref]
    if len(extra) != len(memref_results) or len(writing.results) != len(kept):
        return None
    outs = dict(zip(extra, memref_results))
    for arg, result in outs.items():
        if not same_value_type(writing.args[arg], returning.results[result]):
            return None
    for j, result in enumerate(kept):
        if not same_value_type(writing.results[j], returning.results[result]):
            return None
    return outs, kept


def _names(indices: List[int]) -> str:
    return ", ".join(f"%arg{i}" for i in indices)


def pair_forms(before: Signature, after: Signature) -> Tuple[Optional[Pairing], str]:
    """Match ``after``'s signature to ``before``'s: the pairing, or ``None``
    and why they cannot be the same program."""
    plain_b, plain_a = _plain(before), _plain(after)
    shared = min(len(plain_b), len(plain_a))
    for k in range(shared):
        b, a = before.args[plain_b[k]], after.args[plain_a[k]]
        if not same_value_type(b, a):
            return None, f"argument #{plain_b[k]} is {b.type_str} before, {a.type_str} after"
    args_b = [
        Role("storage") if i == before.storage else Role("input", i)
        for i in range(len(before.args))
    ]
    args_a = [Role("storage")] * len(after.args)
    for k in range(shared):
        args_a[plain_a[k]] = Role("input", plain_b[k])
    notes_b: List[str] = []
    notes_a: List[str] = []
    if len(plain_b) == len(plain_a):
        if len(before.results) != len(after.results):
            return None, f"before {before}, after {after}"
        for j, (b, a) in enumerate(zip(before.results, after.results)):
            if not same_value_type(b, a):
                return None, f"result #{j} is {b.type_str} before, {a.type_str} after"
        results_b = list(range(len(before.results)))
        results_a = list(results_b)
        program_results = list(before.results)
    else:
        # One side ("writing") takes more arguments: the other's memref
        # results as out-params.
        after_writes = len(plain_a) > len(plain_b)
        returning, writing = (before, after) if after_writes else (after, before)
        names = ("before", "after") if after_writes else ("after", "before")
        matched = _match_results(returning, writing, plain_a if after_writes else plain_b, shared)
        if matched is None:
            return None, (
                f"before {before}, after {after}: {names[1]} takes more arguments, but "
                f"not {names[0]}'s memref results as out-params"
            )
        outs, kept = matched
        roles = args_a if after_writes else args_b
        for arg, result in outs.items():
            roles[arg] = Role("out", result)
        results_returning = list(range(len(returning.results)))
        results_b, results_a = (
            (results_returning, kept) if after_writes else (kept, results_returning)
        )
        program_results = list(returning.results)
        (notes_a if after_writes else notes_b).append(
            f"results as out-params {_names(sorted(outs))}"
        )
    if before.storage is not None:
        notes_b.append(f"transient storage %arg{before.storage}")
    if after.storage is not None:
        notes_a.append(f"transient storage %arg{after.storage}")
    return Pairing(args_b, args_a, results_b, results_a, program_results, notes_b, notes_a), ""
