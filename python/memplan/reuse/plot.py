"""Draw a memory plan: program point against byte offset, one box per buffer.

Pooled (eligible, static) buffers are drawn at their pool offsets; buffers
that stay separate allocations are drawn above the pool, hatched, packed by
the same packer so they do not hide each other. Horizontal lines mark the
pool size and its lower bound (the most pooled bytes ever live at once),
and the dataflow bound (the heap with every buffer held only while its
contents are needed); a vertical line marks the program point where the heap
peaks, with the op and its location. Needs matplotlib (``pip install 'memplan[plot]'``).
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from memplan.reuse import packing


def plot_timeline(func: dict[str, Any], path: str, title: Optional[str] = None) -> None:
    """Write the timeline of one function of a liveness report to ``path`` (png, svg, pdf)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    allocs = [a for a in func["allocations"] if a["bytes"] is not None]
    pooled = [a for a in allocs if a["offset"] is not None]
    others = [a for a in allocs if a["offset"] is None]
    pool = func.get("pool") or {}
    pool_size = int(pool.get("size") or 0)
    lower = int(pool.get("lower_bound") or 0)

    other_offsets: list[int] = []
    if others:
        res = packing.pack(
            np.array([a["start"] for a in others], dtype=np.int64),
            np.array([a["end"] for a in others], dtype=np.int64),
            np.array([a["bytes"] for a in others], dtype=np.int64),
            algorithm="best",
            alignment=1,
        )
        base = pool_size
        other_offsets = [base + int(o) for o in res.offsets]

    fig, ax = plt.subplots(figsize=(12, 5.5))
    cmap = plt.get_cmap("tab20")
    for k, a in enumerate(pooled):
        ax.add_patch(
            Rectangle(
                (a["start"], a["offset"]),
                max(a["end"] - a["start"], 0.6),
                a["bytes"],
                facecolor=cmap(k % 20),
                edgecolor="black",
                linewidth=0.6,
                alpha=0.85,
            )
        )
        if len(pooled) <= 40:
            ax.text(
                a["start"] + 0.15,
                a["offset"] + a["bytes"] / 2,
                a["name"],
                fontsize=7,
                va="center",
                clip_on=True,
            )
    for a, off in zip(others, other_offsets):
        ax.add_patch(
            Rectangle(
                (a["start"], off),
                max(a["end"] - a["start"], 0.6),
                a["bytes"],
                facecolor="lightgray",
                edgecolor="dimgray",
                hatch="//",
                linewidth=0.6,
            )
        )
        if len(others) <= 40:
            ax.text(
                a["start"] + 0.15,
                off + a["bytes"] / 2,
                f"{a['name']} ({a['reason']})",
                fontsize=7,
                va="center",
                clip_on=True,
            )
    if pool_size:
        ax.axhline(
            pool_size,
            color="red",
            linewidth=1.5,
            label=f"pool size {pool_size} B ({pool.get('algorithm')})",
        )
    if lower:
        ax.axhline(
            lower, color="green", linewidth=1.2, linestyle="--", label=f"lower bound {lower} B"
        )
    heap = func.get("heap_peak") or {}
    bound = heap.get("dataflow_bound")
    if isinstance(bound, int) and bound:
        ax.axhline(
            bound,
            color="purple",
            linewidth=1.2,
            linestyle=":",
            label=f"dataflow bound {bound} B (heap)",
        )
    site = func.get("peak_site")
    if site:
        ax.axvline(
            site["point"],
            color="black",
            linewidth=1.0,
            linestyle="-.",
            label=f"heap peak {site['bytes']} B at {site['op']} ({site['location']})",
        )
    top = max(
        [pool_size, lower, bound if isinstance(bound, int) else 0]
        + [o + a["bytes"] for a, o in zip(others, other_offsets)]
        + [1]
    )
    ax.set_xlim(0, max(func["num_points"], 1))
    ax.set_ylim(0, top * 1.08)
    ax.set_xlabel("program point (pre-order op id in the function)")
    ax.set_ylabel("byte offset")
    n_dyn = func.get("num_dynamic", 0)
    given = ", ".join(f"{k} = {v}" for k, v in func.get("sizes", {}).items())
    subtitle = (
        (f"for {given}: " if given else "")
        + f"{len(pooled)} pooled, {len(others)} separate"
        + (f", {n_dyn} dynamic not drawn (give --dim/--value)" if n_dyn else "")
        + f"; peak live {func['peak_live_bytes']} B, total {func['total_alloc_bytes']} B"
    )
    ax.set_title((title or f"memory timeline of @{func['name']}") + "\n" + subtitle, fontsize=10)
    if others:
        ax.add_patch(
            Rectangle(
                (0, 0),
                0,
                0,
                facecolor="lightgray",
                hatch="//",
                edgecolor="dimgray",
                label="not pooled (own allocation)",
            )
        )
    if pool_size or lower or others or site:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, borderaxespad=0)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


__all__ = ["plot_timeline"]
