"""The run-time comparison's statistic (``bench/run_time.py``) on given numbers.

No clock here: the timing itself lives in ``bench/bench_peaks.py --time``;
these cases check the median of paired ratios, its distribution-free interval
and the three-way decision against a limit.
"""

from __future__ import annotations

import math
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "bench"))

from run_time import compare, median, median_interval, verdict  # noqa: E402


def test_median_odd_and_even() -> None:
    """The middle value, or the mean of the two middle ones."""
    assert median([3.0, 1.0, 2.0]) == 2.0
    assert median([4.0, 1.0, 3.0, 2.0]) == 2.5


def test_interval_needs_six_values_at_95() -> None:
    """Five values cannot bound the median at 95% (2 / 2**5 > 0.05): no
    interval; six give (min, max), whose coverage is 1 - 2 / 64."""
    assert median_interval([1.0, 2.0, 3.0, 4.0, 5.0]) == (-math.inf, math.inf)
    assert median_interval([6.0, 1.0, 5.0, 2.0, 4.0, 3.0]) == (1.0, 6.0)


def test_interval_order_statistics_of_twenty() -> None:
    """n = 20: P(Binomial(20, 1/2) <= 5) = 0.0207 (twice: 0.041 <= 0.05) and
    P(<= 6) = 0.0577, so the interval is the 6th and the 15th value."""
    values = [float(v) for v in range(20, 0, -1)]
    assert median_interval(values) == (6.0, 15.0)
    # At 50%: P(<= 7) = 0.132 (twice 0.263), P(<= 8) = 0.252 (twice 0.503).
    assert median_interval(values, level=0.5) == (8.0, 13.0)


def test_compare_pairs_rounds() -> None:
    """The ratio is the median of each round's other / base (a round whose
    base was slowed by a burst of load does not move it), not the ratio of
    the two medians or minima."""
    base = [1.0, 2.0, 1.0, 1.0, 2.0, 1.0, 1.0]
    other = [1.02, 2.04, 1.02, 1.02, 2.04, 1.02, 0.5]
    c = compare(base, other)
    assert c.rounds == 7
    assert c.ratio == 1.02
    assert (c.low, c.high) == (0.5, 1.02)
    assert c.cell() == "1.020 [0.500, 1.020]"
    assert (c.base_seconds, c.other_seconds) == (1.0, 1.02)


def test_verdict_decides_only_outside_the_interval() -> None:
    """Within when the whole interval is at or below the limit, above when
    it is all above, undecided when it straddles the limit or is unbounded."""
    base = [1.0] * 8
    assert verdict(compare(base, [0.97, 0.99, 1.0, 1.01, 1.02, 1.03, 1.04, 1.05]), 1.05) == (
        "within"
    )
    assert verdict(compare(base, [1.06, 1.07, 1.08, 1.09, 1.1, 1.1, 1.1, 1.2]), 1.05) == "above"
    assert verdict(compare(base, [1.0, 1.0, 1.01, 1.02, 1.03, 1.04, 1.06, 1.07]), 1.05) == (
        "undecided"
    )
    short = compare([1.0] * 3, [1.0] * 3)
    assert verdict(short, 1.05) == "undecided"
    assert short.cell() == "1.000 [too few rounds]"
