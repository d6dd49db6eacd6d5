"""Liveness reports: a text table, a JSON document, and the layout to draw.

The JSON document (``memplan-buffer-liveness{format=json output=FILE}``) is::

    {"version": 1, "alignment": 64, "functions": [
      {"name": "mlp", "num_points": 25, "peak_live_bytes": 16384,
       "total_alloc_bytes": 18432, "eligible_peak_bytes": 16384,
       "pool": {"algorithm": "best-fit", "size": 16384, "lower_bound": 16384},
       "heap_peak": {"input": 18432, "reuse": 18432, "lower_bound": 18432,
                     "dataflow_bound": 18432},
       "peak_site": {"bytes": 18432, "point": 12, "op": "linalg.matmul",
                     "location": "mlp.mlir:9:10", "live": ["%alloc", "%alloc_1"],
                     "subset_copies": [{"source": "%alloc", "target": "%alloc_1",
                                        "bytes": 8192, "location": "mlp.mlir:11:10",
                                        "decision": null}]},
       "floor": {"bytes": 16384, "touched_bytes": 16384, "crossing_bytes": 0,
                 "point": 12, "op": "linalg.matmul", "location": "mlp.mlir:9:10",
                 "touched": ["%alloc", "%alloc_1"], "crossing": [],
                 "highest": {"bytes": 16384, "point": 12, ...}},
       "held_without_contents": [
         {"name": "%alloc_0", "bytes": 8192, "kind": "between-contents",
          "from": {"point": 7, "op": "linalg.generic", "location": "mlp.mlir:7:10"},
          "to": {"point": 15, "op": "linalg.fill", "location": "mlp.mlir:11:10"},
          "points": 8}, ...],
       "stored_at_peak": [
         {"name": "%alloc_2", "kind": "cheap to recompute", "saves": 4096,
          "why": "written whole by linalg.fill (...) from constants and scalars, ...",
          "source": {"point": 3, "op": "linalg.fill", "location": "mlp.mlir:5:10"}}, ...],
       "reasons": {"escapes-return": 1},
       "allocations": [
         {"name": "%alloc", "location": "mlp.mlir:6:14", "kind": "alloc",
          "type": "memref<16x128xf32>", "bytes": 8192, "size": "8192",
          "start": 2, "end": 14, "eligible": true, "reason": null,
          "reasons": [], "group": null, "offset": 0}, ...]}]}

Program points are op ids relative to the function op (the function is 0).
``heap_peak`` holds the heap peak of the IR as it is (``input``: the peak of
whatever pipeline produced it, upstream's or memplan's), with memplan-buffer-reuse's
plan (``reuse``), the bound of the given lifetimes (``lower_bound``: poolable
buffers from allocation to last use) and the ``dataflow_bound`` (every
buffer held only while its contents are needed; see
:mod:`memplan.lifetimes.peaks`). ``peak_site`` is where the heap first
reaches its peak and what is live there (largest first), with the buffers
live there that are copied into a subset of another one (a pad, concat or
insert_slice as upstream bufferizes it: :mod:`memplan.lifetimes.subset_copies`)
whose producers could write into that view (nothing reads it while they run)
and how much computing them there lowers the heap peak (``bytes``: the
view's buffer held from their first write on); ``decision`` is what
``memplan-eliminate-subset-copies`` does with that copy on the tensor
program (``memplan report --bufferize``), else null; ``floor`` is the
floor of the heap in any op order at the op there (the first to access a
buffer: the buffers it touches, plus those whose contents must cross it) and,
in ``highest``, at the op of its block where that floor is highest (no
order goes below it); ``stored_at_peak`` lists the buffers live there that a
rewrite could leave out (``kind``: ``cheap to recompute``, ``permuted
copy``, ``subset copy``), with the bytes each would save (:mod:`memplan.lifetimes.stored`);
``held_without_contents`` lists every buffer held while its contents are not
needed (:mod:`memplan.lifetimes.contents`).
``offset`` is where a single pool over the function's eligible static
buffers would place the buffer (``memplan.reuse.packing``, default algorithm), so
``memplan report`` can draw the plan without the IR. ``group`` numbers the
branch group (see :mod:`memplan.lifetimes.branches`) a buffer belongs to:
members of a group share their interval and offset.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Iterable, Mapping, Optional

import numpy as np

from memplan.ir.graph import value_namer
from memplan.lifetimes import symbolic
from memplan.lifetimes.analysis import FunctionLifetimes, peak_live
from memplan.lifetimes.contents import Site, held_without_contents, peak_site
from memplan.lifetimes.peaks import dataflow_bound, input_peak, lower_bound_peak
from memplan.lifetimes.stored import BlockFloors, BufferAccesses, Floor, op_at_peak, stored_at_peak
from memplan.lifetimes.subset_copies import subset_copies_at
from memplan.reuse import packing
from memplan.reuse.plan import PoolOverflow, plan_function

JSON_VERSION = 1


def heap_peaks(lt: FunctionLifetimes) -> dict[str, Optional[int]]:
    """The function's heap peak as it is (``input``), with
    memplan-buffer-reuse's plan (``reuse``; None when its pools would not fit
    in an ``index``), the bound of the given lifetimes (``lower_bound``) and
    the ``dataflow_bound``."""
    bound = dataflow_bound(lt)
    try:
        plan = plan_function(lt)
    except PoolOverflow:  # memplan-buffer-reuse reports it as an error
        return {
            "input": input_peak(lt),
            "reuse": None,
            "lower_bound": lower_bound_peak(lt),
            "dataflow_bound": bound,
        }
    return {
        "input": plan.input_peak,
        "reuse": plan.peak,
        "lower_bound": plan.lower_bound,
        "dataflow_bound": bound,
    }


def pool_layout(
    lt: FunctionLifetimes, algorithm: str = "best", alignment: int = 64
) -> tuple[dict[int, int], dict[str, Any]]:
    """Offsets of the eligible static buffers packed into one pool, and its summary."""
    rows = np.nonzero(lt.eligible & (lt.bytes >= 0))[0]
    if rows.size == 0:
        return {}, {
            "algorithm": algorithm,
            "size": 0,
            "lower_bound": 0,
            "lower_bound_aligned": 0,
            "alignment": alignment,
        }
    start, end, size, item = lt.items(rows)
    if sum(-(-int(b) // alignment) * alignment for b in size) >= packing.SIZE_LIMIT:
        return {}, {
            "algorithm": algorithm,
            "size": None,
            "lower_bound": peak_live(start, end, size),
            "lower_bound_aligned": None,
            "alignment": alignment,
        }
    res = packing.pack(start, end, size, algorithm=algorithm, alignment=alignment)
    offsets = {int(r): int(o) for r, o in zip(rows, np.asarray(res.offsets)[item])}
    summary = {
        "algorithm": res.algorithm,
        "size": int(res.pool_size),
        "lower_bound": peak_live(start, end, size),
        "lower_bound_aligned": int(res.lower_bound_aligned),
        "alignment": alignment,
    }
    return offsets, summary


def _dynamic_sizes(
    lt: FunctionLifetimes, names: bool, sizes: Optional[Mapping[str, int]]
) -> tuple[FunctionLifetimes, dict[str, Any], dict[int, str]]:
    """With dynamic allocations: their sizes over named argument dimensions
    (``65536 * arg0.dim0``), the peak over them, and, for the given leaf
    values, the function with every size known (so pool and peaks are
    numbers). Returns that function, the document's extra keys and each
    dynamic row's size text."""
    if not lt.num_dynamic:
        return lt, {}, {}

    namer = value_namer(lt.graph, lt.func_op) if names else (lambda v: f"%v{v}")
    sym = symbolic.SymbolicSizes(lt.graph, lt.func_op, namer)
    polys = [
        symbolic.const(int(b)) if b >= 0 else sym.alloc_bytes(int(op))
        for b, op in zip(lt.bytes, lt.op)
    ]
    start, end, _, item = lt.items(np.arange(len(lt)))
    merged: dict[int, symbolic.Poly] = {}
    for row, k in enumerate(item):  # a branch group is sized by its largest member: keep one
        merged.setdefault(int(k), polys[row])
    nonneg = frozenset(sym.nonneg)
    candidates = symbolic.peak(start, end, [merged[k] for k in range(len(start))], nonneg)
    total: symbolic.Poly = {}
    for p in polys:
        total = symbolic.add(total, p)
    eligible = np.nonzero(lt.eligible)[0]
    e_start, e_end, _, e_item = lt.items(eligible)
    e_merged: dict[int, symbolic.Poly] = {}
    for row, k in zip(eligible.tolist(), e_item.tolist()):
        e_merged.setdefault(int(k), polys[row])
    e_candidates = symbolic.peak(e_start, e_end, [e_merged[k] for k in range(len(e_start))], nonneg)
    extra: dict[str, Any] = {
        "peak_live": symbolic.max_text(candidates),
        "total_alloc": symbolic.to_text(total),
        "eligible_peak": symbolic.max_text(e_candidates),
        "size_leaves": sorted(set().union(*(symbolic.leaves(p) for p in polys))),
    }
    texts = {row: symbolic.to_text(p) for row, p in enumerate(polys) if lt.bytes[row] < 0}
    if sizes is None:
        return lt, extra, texts
    values = [symbolic.evaluate(p, sizes) for p in polys]
    texts = {row: f"{texts[row]} = {values[row]}" for row in texts if values[row] is not None}
    missing = sorted(set().union(*(symbolic.leaves(p) for p, v in zip(polys, values) if v is None)))
    if missing:
        raise ValueError(
            f"@{lt.name}: no value for {', '.join(missing)} (give --dim ARG:DIM=SIZE or "
            "--value ARG=N)"
        )
    extra["sizes"] = {k: sizes[k] for k in extra["size_leaves"] if k in sizes}
    return dataclasses.replace(lt, bytes=np.array(values, dtype=np.int64)), extra, texts


def function_dict(
    lt: FunctionLifetimes,
    names: bool = True,
    algorithm: str = "best",
    alignment: int = 64,
    sizes: Optional[Mapping[str, int]] = None,
    copy_decisions: Optional[Mapping[str, str]] = None,
) -> dict[str, Any]:
    """The JSON object of one function. ``sizes`` gives values to the leaves
    of dynamic sizes (``arg0.dim0``, ``arg2``): the report is then that
    instance's, every size a number. ``copy_decisions`` maps the location of
    a pad, concat or insert_slice of the tensor program to what
    ``memplan-eliminate-subset-copies`` does with it."""
    lt, extra, size_texts = _dynamic_sizes(lt, names, sizes)
    offsets, pool = pool_layout(lt, algorithm, alignment)
    records = lt.allocations(names=names)
    allocations = []
    for a in records:
        allocations.append(
            {
                "name": a.name,
                "location": a.location,
                "kind": a.kind,
                "type": a.type,
                "bytes": a.bytes,
                "size": size_texts.get(a.index, a.size),
                "start": a.start,
                "end": a.end,
                "eligible": a.eligible,
                "reason": a.reason,
                "reasons": list(a.reasons),
                "group": a.group,
                "offset": offsets.get(a.index),
            }
        )
    return {
        "name": lt.name,
        "num_points": lt.num_points,
        "peak_live_bytes": lt.peak_live_bytes,
        "total_alloc_bytes": lt.total_alloc_bytes,
        "eligible_peak_bytes": lt.eligible_peak_bytes,
        "num_allocations": len(lt),
        "num_eligible": int(lt.eligible.sum()),
        "num_dynamic": lt.num_dynamic,
        "pool": pool,
        "heap_peak": heap_peaks(lt),
        "peak_site": _peak_site_dict(lt, records, copy_decisions or {}),
        **_stored_dicts(lt, records),
        "held_without_contents": [
            {
                "name": records[h.row].name,
                "bytes": records[h.row].bytes,
                "kind": h.kind,
                "from": _site_dict(h.start),
                "to": _site_dict(h.end),
                "points": h.points,
            }
            for h in held_without_contents(lt)
        ],
        "reasons": lt.reason_counts(),
        "allocations": allocations,
        **extra,
    }


def _site_dict(site: Site) -> dict[str, Any]:
    return {"point": site.point, "op": site.op, "location": site.location}


def _peak_site_dict(
    lt: FunctionLifetimes, records: list, copy_decisions: Mapping[str, str]
) -> Optional[dict[str, Any]]:
    site = peak_site(lt)
    if site is None:
        return None
    copies = [
        {
            "source": records[c.source].name,
            "target": records[c.target].name,
            "bytes": c.bytes,
            "location": c.location,
            "decision": copy_decisions.get(c.location),
        }
        for c in subset_copies_at(lt, site.at.point + lt.func_op, site.live)
    ]
    return dict(
        _site_dict(site.at),
        bytes=site.bytes,
        live=[records[r].name for r in site.live],
        subset_copies=copies,
    )


def _floor_dict(floor: Floor, records: list) -> dict[str, Any]:
    return dict(
        _site_dict(floor.at),
        bytes=floor.bytes,
        touched_bytes=floor.touched_bytes,
        crossing_bytes=floor.crossing_bytes,
        touched=[records[r].name for r in floor.touched],
        crossing=[records[r].name for r in floor.crossing],
    )


def _stored_dicts(lt: FunctionLifetimes, records: list) -> dict[str, Any]:
    """``floor`` (at the peak's op and the highest of its block; None
    without a heap peak) and ``stored_at_peak``."""
    site = peak_site(lt)
    if site is None:
        return {"floor": None, "stored_at_peak": []}
    accesses = BufferAccesses(lt)
    op = op_at_peak(lt, site.at.point + lt.func_op, accesses)
    floors = BlockFloors(lt, int(lt.graph.op_block[op]), accesses)
    return {
        "floor": dict(
            _floor_dict(floors.at(floors.ops.index(op)), records),
            highest=_floor_dict(floors.highest(), records),
        ),
        "stored_at_peak": [
            {
                "name": records[s.row].name,
                "kind": s.kind,
                "saves": s.saves,
                "why": s.why,
                "source": _site_dict(s.source),
            }
            for s in stored_at_peak(lt, accesses)
        ],
    }


def report_dict(functions: Iterable[FunctionLifetimes], **kwargs: Any) -> dict[str, Any]:
    """The whole JSON document for a module's functions (``kwargs`` go to
    :func:`function_dict`)."""
    return {"version": JSON_VERSION, "functions": [function_dict(lt, **kwargs) for lt in functions]}


def to_json(functions: Iterable[FunctionLifetimes], **kwargs: Any) -> str:
    """The JSON report of ``functions`` (``kwargs`` go to :func:`function_dict`)."""
    return json.dumps(report_dict(functions, **kwargs), indent=1)


def _bytes_line(doc: dict[str, Any], key: str, expression: str) -> str:
    """``key = N``; with dynamic sizes, the figure as an expression over them
    (``doc[expression]``) and, for given sizes, its value."""
    if expression not in doc:
        return f"  {key} = {doc[key]}"
    if "sizes" in doc:
        given = ", ".join(f"{k} = {v}" for k, v in doc["sizes"].items())
        return f"  {key} = {doc[key]} for {given} ({doc[expression]})"
    return (
        f"  {key} = {doc[expression]} (static buffers alone: {doc[key]}; "
        "--dim/--value give a number)"
    )


def format_function(doc: dict[str, Any]) -> str:
    """Text table of one function's JSON object."""
    allocs = doc["allocations"]
    lines = [
        f"liveness @{doc['name']}: {doc['num_allocations']} allocations, "
        f"{doc['num_eligible']} eligible, {doc['num_points']} program points",
        _bytes_line(doc, "peak_live_bytes", "peak_live"),
        _bytes_line(doc, "total_alloc_bytes", "total_alloc"),
        _bytes_line(doc, "eligible_peak_bytes", "eligible_peak"),
    ]
    pool = doc.get("pool")
    if pool and pool.get("size"):
        lines.append(
            f"  pool = {pool['size']} bytes ({pool['algorithm']}, alignment {pool['alignment']}),"
            f" lower bound {pool['lower_bound']} (aligned {pool.get('lower_bound_aligned', '?')})"
        )
    heap = doc.get("heap_peak")
    if heap:
        # Without values for the dynamic sizes the heap figures count the
        # statically sized buffers only: say so rather than print a bare 0.
        static_only = " (static buffers alone)" if "peak_live" in doc and "sizes" not in doc else ""
        lines.append(
            f"  heap peak (64-byte blocks, every buffer) = {heap['input']} as is,"
            f" {'n/a' if heap['reuse'] is None else heap['reuse']} after "
            f"memplan-buffer-reuse{static_only}"
        )
        floor = doc.get("floor")
        floor_text = ""
        if floor:
            top = floor["highest"]
            floor_text = (
                f"; floor in any order {top['bytes']} at {top['op']} ({top['location']}:"
                f" {top['touched_bytes']} touched, {top['crossing_bytes']} in"
                f" {len(top['crossing'])} buffers whose contents must cross it), at the peak's op"
                f" {floor['op']} ({floor['location']}) {floor['bytes']}"
            )
        lines.append(
            f"  bounds: {heap['lower_bound']} for the given lifetimes (poolable buffers from"
            f" allocation to last use), dataflow bound {heap['dataflow_bound']} (each buffer only"
            f" while its contents are needed){floor_text}"
        )
    site = doc.get("peak_site")
    if site:
        by_name = {a["name"]: a for a in allocs}
        live = ", ".join(f"{n} {by_name[n]['size']}" for n in site["live"][:8])
        more = f", ... ({len(site['live'])} in all)" if len(site["live"]) > 8 else ""
        lines.append(
            f"  peak at point {site['point']}, {site['op']} ({site['location']}): {live}{more}"
        )
        for c in site.get("subset_copies") or []:
            decision = c.get("decision")
            said = f" (memplan-eliminate-subset-copies: {decision})" if decision else ""
            lines.append(
                f"    {c['source']} is copied into a subset of {c['target']} at {c['location']}"
                f" and dies there: computing it in place frees {c['bytes']} B at the peak{said}"
            )
    stored = doc.get("stored_at_peak") or []
    if stored:
        total = sum(s["saves"] for s in stored)
        lines.append(
            f"  stored at the peak that a rewrite could leave out: {len(stored)} buffers,"
            f" {total} B"
        )
        for s in stored[:10]:
            lines.append(f"    {s['name']} ({s['kind']}, saves {s['saves']} B): {s['why']}")
    held = doc.get("held_without_contents") or []
    if held:
        lines.append(f"  held without contents: {len(held)} stretches")
        for h in sorted(held, key=lambda h: -(h["bytes"] or 0) * h["points"])[:10]:
            what = "allocated at" if h["kind"] == "before-first-write" else "contents die at"
            lines.append(
                f"    {h['name']} ({h['bytes'] if h['bytes'] is not None else 'dynamic'} B): {what}"
                f" {h['from']['op']} ({h['from']['location']}), next written at {h['to']['op']}"
                f" ({h['to']['location']}), {h['points']} points later"
            )
    if allocs:
        rows = [("name", "bytes", "interval", "status", "location")]
        for a in allocs:
            status = "eligible" if a["eligible"] else a["reason"]
            if a.get("group") is not None:
                status += f" (branch group {a['group']})"
            rows.append(
                (a["name"], a["size"], f"[{a['start']}, {a['end']})", status, a["location"])
            )
        widths = [max(len(r[c]) for r in rows) for c in range(5)]
        for r in rows:
            cells = [
                r[0].ljust(widths[0]),
                r[1].rjust(widths[1]),
                r[2].ljust(widths[2]),
                r[3].ljust(widths[3]),
                r[4],
            ]
            lines.append("  " + "  ".join(cells).rstrip())
    if doc["reasons"]:
        lines.append("  not pooled: " + ", ".join(f"{k}={v}" for k, v in doc["reasons"].items()))
    return "\n".join(lines)


def format_text(doc: dict[str, Any]) -> str:
    """Text report of a whole JSON document."""
    # Declarations (no body) have nothing to report.
    return "\n".join(format_function(f) for f in doc["functions"] if f["num_points"] > 1)


def load_report(path: str) -> dict[str, Any]:
    """Read a JSON report written by ``memplan-buffer-liveness{format=json}``."""
    with open(path) as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or doc.get("version") != JSON_VERSION:
        raise ValueError(f"{path}: not a memplan liveness report (version {JSON_VERSION})")
    return doc


def find_function(doc: dict[str, Any], name: Optional[str]) -> dict[str, Any]:
    """The function named ``name`` (or the first one) of a report."""
    funcs = doc["functions"]
    if not funcs:
        raise ValueError("the report has no functions")
    if name is None:
        return funcs[0]
    for f in funcs:
        if f["name"] == name:
            return f
    raise ValueError(f"no function '{name}' in the report")


__all__ = [
    "JSON_VERSION",
    "find_function",
    "format_function",
    "format_text",
    "function_dict",
    "load_report",
    "pool_layout",
    "report_dict",
    "to_json",
]
