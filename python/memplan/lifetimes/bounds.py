"""Symbolic byte counts that hold for every value of the dynamic sizes.

A pool with dynamically sized members places them at offsets computed at
run time, maxima of sums of their aligned sizes. This module is the algebra
the planner, the heap-peak checks and the static pool check reason with:

* an :class:`Atom` is ``align_up(P, a)``: a polynomial ``P`` over leaves
  (:data:`memplan.lifetimes.symbolic.Poly`; leaves are dynamic sizes, never
  negative) rounded up to a multiple of ``a``;
* a :class:`Sum` is a constant, a plain polynomial and a multiset of atoms;
* a :data:`Bound` is the maximum of a few sums (a tuple of them).

``x >= y`` for every value of the leaves is decided conservatively
(:func:`sum_dominates`): the constant, then each atom of ``y`` matched to a
distinct atom of ``x`` that is never smaller (its polynomial is at least as
large coefficient by coefficient and its alignment a multiple), then the
plain polynomials, the unmatched atoms of ``x`` counting as their
polynomials. A bound dominates another when each of the other's sums is
dominated by one of its sums. Every answer ``True`` is a proof; ``False``
means "not proven".
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Mapping, Optional, Sequence

import numpy as np

from memplan.lifetimes import symbolic
from memplan.lifetimes.symbolic import Poly

FrozenPoly = tuple[tuple[tuple[str, ...], int], ...]
"""A polynomial as a sorted tuple of (monomial, coefficient): hashable."""


def freeze(p: Poly) -> FrozenPoly:
    """``p`` as a hashable, canonical tuple (zero terms dropped)."""
    return tuple(sorted((m, c) for m, c in p.items() if c))


def thaw(p: FrozenPoly) -> Poly:
    """The dict form of a frozen polynomial."""
    return dict(p)


def _poly_ge(a: Poly, b: Poly) -> bool:
    """Whether ``a >= b`` coefficient by coefficient (with leaves never
    negative and ``b``'s coefficients non-negative, then ``a >= b`` for every
    value)."""
    return all(a.get(m, 0) >= c for m, c in b.items())


class Atom:
    """``align_up(poly, alignment)`` (``alignment`` 1: ``poly`` itself).

    Interned: one object per (polynomial, alignment), compared and hashed by
    identity, ordered by creation."""

    __slots__ = ("poly", "alignment", "key", "terms")
    _interned: dict[tuple[FrozenPoly, int], "Atom"] = {}

    poly: FrozenPoly
    alignment: int
    key: int
    terms: Poly

    def __new__(cls, poly: FrozenPoly, alignment: int) -> "Atom":
        found = cls._interned.get((poly, alignment))
        if found is None:
            found = object.__new__(cls)
            found.poly, found.alignment, found.terms = poly, alignment, dict(poly)
            found.key = len(cls._interned)
            cls._interned[(poly, alignment)] = found
        return found

    def __lt__(self, other: "Atom") -> bool:
        return self.key < other.key

    def __reduce__(self):
        return (Atom, (self.poly, self.alignment))

    def __repr__(self) -> str:
        return f"Atom({self.poly!r}, {self.alignment})"

    def evaluate(self, env: Mapping[str, int]) -> Optional[int]:
        """The atom's value for the leaves' values in ``env`` (None: a leaf has none)."""
        v = symbolic.evaluate(self.terms, env)
        if v is None:
            return None
        return -(-v // self.alignment) * self.alignment

    def covers(self, other: "Atom") -> bool:
        """Never smaller than ``other``: a larger polynomial, rounded to a
        multiple of ``other``'s alignment."""
        return self is other or _covers(self, other)


@functools.lru_cache(maxsize=1 << 18)
def _covers(x: Atom, y: Atom) -> bool:
    return x.alignment % y.alignment == 0 and _poly_ge(x.terms, y.terms)


@dataclass(frozen=True)
class Sum:
    """``const + poly + sum(atoms)``: every coefficient non-negative."""

    const: int = 0
    poly: FrozenPoly = ()
    atoms: tuple[Atom, ...] = ()

    def __add__(self, other: "Sum") -> "Sum":
        poly = freeze(symbolic.add(thaw(self.poly), thaw(other.poly)))
        total = Sum(self.const + other.const, poly, tuple(sorted(self.atoms + other.atoms)))
        return _Cover(total) if isinstance(self, _Cover) or isinstance(other, _Cover) else total

    @property
    def is_constant(self) -> bool:
        """No leaf occurs in it."""
        return not self.poly and not self.atoms

    def evaluate(self, env: Mapping[str, int]) -> Optional[int]:
        """The value for the leaves' values in ``env`` (None: a leaf has none)."""
        total = self.const
        p = symbolic.evaluate(thaw(self.poly), env)
        if p is None:
            return None
        total += p
        for a in self.atoms:
            v = a.evaluate(env)
            if v is None:
                return None
            total += v
        return total

    def leaves(self) -> set[str]:
        """The leaves that occur in it."""
        out = symbolic.leaves(thaw(self.poly))
        for a in self.atoms:
            out |= symbolic.leaves(a.terms)
        return out

    def text(self) -> str:
        """Readable form: ``align(4 * arg0.dim0, 64) + 128``."""
        parts = [
            f"align({symbolic.to_text(a.terms)}, {a.alignment})"
            if a.alignment > 1
            else symbolic.to_text(a.terms)
            for a in self.atoms
        ]
        if self.poly:
            parts.append(symbolic.to_text(thaw(self.poly)))
        if self.const or not parts:
            parts.append(str(self.const))
        return " + ".join(parts)


Bound = tuple[Sum, ...]
"""The maximum of its sums (the empty tuple is 0)."""

ZERO: Bound = (Sum(),)


def constant(value: int) -> Bound:
    """The bound of a constant byte count."""
    return (Sum(int(value)),)


def aligned(p: Poly, alignment: int) -> Bound:
    """``align_up(p, alignment)`` of a size polynomial ``p`` (non-negative
    coefficients): a constant when ``p`` is one."""
    fp = freeze(p)
    if all(m == () for m, _ in fp):
        c = sum(c for _, c in fp)
        return constant(-(-c // alignment) * alignment)
    if all(c % alignment == 0 for _, c in fp):
        # Every value is a multiple of the alignment already: exact.
        return (Sum(dict(fp).get((), 0), freeze({m: c for m, c in fp if m != ()}), ()),)
    const = dict(fp).get((), 0)
    if const % alignment == 0 and const:
        # align(c + q) = c + align(q) when c is a multiple of the alignment.
        rest = freeze({m: c for m, c in fp if m != ()})
        return (Sum(const, (), (Atom(rest, alignment),)),)
    if alignment == 1:
        return (Sum(const, freeze({m: c for m, c in fp if m != ()}), ()),)
    return (Sum(0, (), (Atom(fp, alignment),)),)


@functools.lru_cache(maxsize=1 << 16)
def sum_dominates(x: Sum, y: Sum) -> bool:
    """Whether ``x >= y`` for every value of the leaves (proven; False: not
    proven; cached: the heap checks ask the same pairs plan after plan).
    Atoms of ``y`` are matched to distinct atoms of ``x`` that cover them;
    the others count as what they are at least (``x``: their
    polynomial) or at most (``y``: their polynomial plus alignment - 1), and
    the rest is compared constant and coefficient by coefficient."""
    if x.const < y.const:
        return False
    if not y.atoms and not y.poly:
        return True
    if y.atoms:
        # Equal atoms go together first; the others are matched.
        common = Counter(x.atoms) & Counter(y.atoms)
        if common:
            x = Sum(x.const, x.poly, tuple((Counter(x.atoms) - common).elements()))
            y = Sum(y.const, y.poly, tuple((Counter(y.atoms) - common).elements()))
    partner = _match_most(x.atoms, y.atoms)
    used = {i for i in partner if i >= 0}
    plain_x = thaw(x.poly)
    for i, a in enumerate(x.atoms):
        if i not in used:
            plain_x = symbolic.add(plain_x, a.terms)
    # An unmatched atom of y is at most its polynomial with every
    # coefficient rounded up to a multiple of the alignment (each term is a
    # multiple then, and the rounding is subadditive), or at most its
    # polynomial plus alignment - 1: the first where x's constant has no
    # slack for the second.
    plain_y, const_y, rounded_y = thaw(y.poly), y.const, thaw(y.poly)
    for j, a in enumerate(y.atoms):
        if partner[j] < 0:
            plain_y = symbolic.add(plain_y, a.terms)
            const_y += a.alignment - 1
            up = {m: -(-c // a.alignment) * a.alignment for m, c in a.poly}
            rounded_y = symbolic.add(rounded_y, up)
    if x.const >= y.const + rounded_y.pop((), 0) and _poly_ge(plain_x, rounded_y):
        return True
    return x.const >= const_y and _poly_ge(plain_x, plain_y)


def _match_most(x: Sequence[Atom], y: Sequence[Atom]) -> list[int]:
    """A matching of as many of ``y``'s atoms as can be into distinct atoms
    of ``x`` that cover them (augmenting paths): the partner of each atom of
    ``y``, -1 for none."""
    owner: list[int] = [-1] * len(x)

    def augment(j: int, seen: set[int]) -> bool:
        for i, xa in enumerate(x):
            if i in seen or not xa.covers(y[j]):
                continue
            seen.add(i)
            if owner[i] < 0 or augment(owner[i], seen):
                owner[i] = j
                return True
        return False

    for j in range(len(y)):
        augment(j, set())
    partner = [-1] * len(y)
    for i, j in enumerate(owner):
        if j >= 0:
            partner[j] = i
    return partner


def dominates(x: Bound, y: Bound) -> bool:
    """Whether ``max(x) >= max(y)`` for every value of the leaves: each sum of
    ``y`` is dominated by one of ``x``."""
    return all(any(sum_dominates(a, b) for a in x) for b in y)


LIMIT = 32
"""The most sums a bound keeps exactly (:func:`prune`)."""


def prune(sums: Iterable[Sum], limit: int = LIMIT) -> Bound:
    """The sums no other one dominates (the maximum is theirs). Past
    ``limit`` sums, the smallest ones are merged into a sum that dominates
    them all (still a bound from above, less tight: :func:`is_exact` then
    says so)."""
    kept: list[Sum] = []
    for s in sorted(set(sums), key=_weight, reverse=True):
        if not any(sum_dominates(k, s) for k in kept):
            kept = [k for k in kept if not sum_dominates(s, k)] + [s]
    if len(kept) > limit:
        kept.sort(key=_weight, reverse=True)
        kept = kept[: limit - 1] + [_Cover(cover(kept[limit - 1 :]))]
    return tuple(sorted(kept, key=_weight, reverse=True))


class _Cover(Sum):
    """A sum standing for several (:func:`cover`): above their maximum."""

    def __init__(self, s: Sum):
        super().__init__(s.const, s.poly, s.atoms)


def is_exact(x: Bound) -> bool:
    """Whether ``x`` is the maximum it stands for, not a bound above it."""
    return not any(isinstance(s, _Cover) for s in x)


def _weight(s: Sum) -> tuple:
    """An order for pruning: more atoms and larger constants first."""
    return (len(s.atoms), sum(len(a.poly) for a in s.atoms), s.const, s.atoms, s.poly)


def cover(sums: Sequence[Sum]) -> Sum:
    """One sum at least as large as each of ``sums``: the largest constant,
    the largest coefficient of each plain monomial, the union of the atoms
    (each kept as often as the sum that holds it most often)."""
    const = max((s.const for s in sums), default=0)
    poly: Poly = {}
    counts: dict[Atom, int] = {}
    for s in sums:
        for m, c in s.poly:
            poly[m] = max(poly.get(m, 0), c)
        here: dict[Atom, int] = {}
        for a in s.atoms:
            here[a] = here.get(a, 0) + 1
        for a, n in here.items():
            counts[a] = max(counts.get(a, 0), n)
    atoms = tuple(sorted(a for a, n in counts.items() for _ in range(n)))
    return Sum(const, freeze(poly), atoms)


def total(sums: Iterable[Sum]) -> Sum:
    """``Sum() + s1 + s2 + ...`` made at once (one polynomial, one sort of
    the atoms), not one :meth:`Sum.__add__` per term: the same sum, a
    :class:`_Cover` where one of ``sums`` is."""
    const = 0
    poly: Poly = {}
    atoms: list[Atom] = []
    covers = False
    for s in sums:
        const += s.const
        for m, c in s.poly:
            poly[m] = poly.get(m, 0) + c
        atoms += s.atoms
        covers = covers or isinstance(s, _Cover)
    out = Sum(const, freeze(poly), tuple(sorted(atoms)))
    return _Cover(out) if covers else out


class Running:
    """A sum of terms added and taken away one at a time: :meth:`value` is
    :func:`total` of the terms in it, without going over them."""

    def __init__(self) -> None:
        self.const = 0
        self.poly: Poly = {}
        self.atoms: dict[Atom, int] = {}
        self.covers = 0
        self._value: Optional[Sum] = Sum()

    def change(self, s: Sum, sign: int) -> None:
        """Adds ``s`` (``sign`` 1) or takes it away (-1: it was added)."""
        self.const += sign * s.const
        for m, c in s.poly:
            self.poly[m] = self.poly.get(m, 0) + sign * c
        for a in s.atoms:
            self.atoms[a] = self.atoms.get(a, 0) + sign
        self.covers += sign * isinstance(s, _Cover)
        self._value = None

    def value(self) -> Sum:
        """The sum of the terms in it (made once per change)."""
        if self._value is None:
            atoms = tuple(sorted(a for a, n in self.atoms.items() for _ in range(n)))
            out = Sum(self.const, freeze(self.poly), atoms)
            self._value = _Cover(out) if self.covers else out
        return self._value


def add(x: Bound, y: Bound, limit: int = LIMIT) -> Bound:
    """``max(x) + max(y)``."""
    return prune((a + b for a in x for b in y), limit)


def maximum(*bounds: Bound, limit: int = LIMIT) -> Bound:
    """The maximum of ``bounds``."""
    return prune((s for b in bounds for s in b), limit)


def evaluate(x: Bound, env: Mapping[str, int]) -> Optional[int]:
    """The bound's value for the leaves' values (None: a leaf has none)."""
    values = [s.evaluate(env) for s in x]
    if any(v is None for v in values):
        return None
    return max(values, default=0)


def leaves(x: Bound) -> set[str]:
    """The leaves that occur in ``x``."""
    out: set[str] = set()
    for s in x:
        out |= s.leaves()
    return out


def text(x: Bound) -> str:
    """Readable form of a bound."""
    if len(x) == 1:
        return x[0].text()
    return "max(" + ", ".join(s.text() for s in x) + ")"


def is_constant(x: Bound) -> bool:
    """No leaf occurs in ``x``."""
    return all(s.is_constant for s in x)


def constant_value(x: Bound) -> Optional[int]:
    """The value of a constant bound, else None."""
    return max((s.const for s in x), default=0) if is_constant(x) else None


SCAN_LIMIT = 1 << 14
"""The most leaf values evaluated one by one (:func:`below_max`,
:meth:`memplan.lifetimes.paths.HeapCheck.ok`)."""


def _poly1(p: Poly, leaf: str) -> dict[int, int]:
    """A polynomial of one leaf as {degree: coefficient}."""
    out: dict[int, int] = {}
    for m, c in p.items():
        if any(x != leaf for x in m):
            raise ValueError("more than one leaf")
        out[len(m)] = out.get(len(m), 0) + c
    return {d: c for d, c in out.items() if c}


def _difference(x: Sum, y: Sum, match: bool) -> Poly:
    """A polynomial never above ``x - y``: ``x``'s atoms count as their
    polynomials, ``y``'s as theirs plus alignment - 1, except (with
    ``match``) the atoms of ``y`` that atoms of ``x`` cover, which go with
    them."""
    partner = _match_most(x.atoms, y.atoms) if match else [-1] * len(y.atoms)
    used = {i for i in partner if i >= 0}
    diff: Poly = symbolic.add(thaw(x.poly), {m: -c for m, c in y.poly})
    diff = symbolic.add(diff, {(): x.const - y.const})
    for i, a in enumerate(x.atoms):
        if i not in used:
            diff = symbolic.add(diff, a.terms)
    for j, a in enumerate(y.atoms):
        if partner[j] < 0:
            diff = symbolic.add(diff, {m: -c for m, c in a.poly})
            diff = symbolic.add(diff, {(): -(a.alignment - 1)})
    return diff


def _positive_from(d: dict[int, int]) -> Optional[int]:
    """A value past which the one-leaf polynomial ``d`` ({degree:
    coefficient}) is positive (0: it never is negative), or None when its
    leading coefficient is negative. Past ``(k |c| / lead)^(1 / (n - d))``
    for each of its ``k`` negative coefficients ``c`` of degree ``d``, the
    leading term outweighs them all."""
    if all(c >= 0 for c in d.values()):
        return 0
    top = max(d)
    lead = d[top]
    if lead < 0:
        return None
    negative = [(k, -c) for k, c in d.items() if c < 0]
    worst = max((len(negative) * c / lead) ** (1.0 / (top - k)) for k, c in negative)
    return int(worst) + 2


@functools.lru_cache(maxsize=1 << 16)
def _range1(s: Sum, leaf: str) -> tuple[dict[int, int], dict[int, int]]:
    """Polynomials of one leaf never above and never below ``s``: its atoms
    as their polynomials, and as those plus alignment - 1."""
    low: Poly = symbolic.add(thaw(s.poly), {(): s.const})
    slack = 0
    for a in s.atoms:
        low = symbolic.add(low, a.terms)
        slack += a.alignment - 1
    d = _poly1(low, leaf)
    high = dict(d)
    high[0] = high.get(0, 0) + slack
    return d, {k: c for k, c in high.items() if c}


@functools.lru_cache(maxsize=1 << 16)
def tail_from(x: Sum, y: Sum, leaf: str, match: bool = True) -> Optional[int]:
    """A value of ``leaf`` from which on ``x >= y`` holds for every larger
    one (0: everywhere), or None when the bounds do not give one
    (:func:`_difference`, without matching the atoms first, then, with
    ``match``, with)."""
    low, _ = _range1(x, leaf)
    _, high = _range1(y, leaf)
    diff = dict(low)
    for k, c in high.items():
        diff[k] = diff.get(k, 0) - c
    quick = _positive_from({k: c for k, c in diff.items() if c})
    if quick == 0 or not match or not y.atoms:
        return quick
    matched = _positive_from(_poly1(_difference(x, y, True), leaf))
    known = [n for n in (quick, matched) if n is not None]
    return min(known) if known else None


def below_max(f: Sum, targets: Sequence[Sum], limit: int = SCAN_LIMIT) -> bool:
    """Whether ``f <= max(targets)`` for every value of the leaves (proven;
    False: not proven). One of the targets dominating ``f`` proves it; with
    a single leaf, so does a value past which one target stays above ``f``
    (:func:`tail_from`) with ``f`` at most the largest target at every
    value below it, evaluated exactly (at most ``limit`` values)."""
    if any(sum_dominates(t, f) for t in targets):
        return True
    names = set(f.leaves())
    for t in targets:
        names |= t.leaves()
    if len(names) != 1 or not targets:
        return False
    (leaf,) = names
    tails = [tail_from(t, f, leaf) for t in targets]
    known = [n for n in tails if n is not None]
    if not known:
        return False
    top = min(known)
    if top > limit:
        return False
    for value in range(top + 1):
        env = {leaf: value}
        fv = f.evaluate(env)
        if fv is None or all(fv > (t.evaluate(env) or 0) for t in targets):
            return False
    return True


class Values:
    """Sums and bounds evaluated at every value ``0..top`` of one leaf, as
    numpy arrays (int64, or Python integers with ``exact``)."""

    def __init__(self, leaf: str, top: int, exact: bool = False):
        self.leaf = leaf
        self.dtype = object if exact else np.int64
        self.x = np.arange(top + 1, dtype=np.int64).astype(self.dtype)
        self._memo: dict = {}

    def full(self, value: int) -> np.ndarray:
        """``value`` at every value of the leaf."""
        if self.dtype is object:
            return np.array([value] * len(self.x), dtype=object)
        return np.full(len(self.x), value, dtype=np.int64)

    def poly(self, p: FrozenPoly) -> np.ndarray:
        """A polynomial of the leaf."""
        key = ("p", p)
        if key not in self._memo:
            out = self.full(0)
            for m, c in p:
                if any(x != self.leaf for x in m):
                    raise ValueError("more than one leaf")
                out = out + c * self.x ** len(m) if m else out + c
            self._memo[key] = out
        return self._memo[key]

    def atom(self, a: Atom) -> np.ndarray:
        """An atom: its polynomial rounded up to its alignment."""
        key = ("a", a)
        if key not in self._memo:
            p = self.poly(a.poly)
            self._memo[key] = (p + (a.alignment - 1)) // a.alignment * a.alignment
        return self._memo[key]

    def sum(self, s: Sum) -> np.ndarray:
        """A sum (made once per sum)."""
        key = ("s", s)
        if key not in self._memo:
            out = self.poly(s.poly) + s.const
            for a in s.atoms:
                out = out + self.atom(a)
            self._memo[key] = out
        return self._memo[key]

    def bound(self, b: Bound) -> np.ndarray:
        """A bound: the largest of its sums."""
        key = ("b", b)
        if key not in self._memo:
            out = self.sum(b[0]) if b else self.full(0)
            for s in b[1:]:
                out = np.maximum(out, self.sum(s))
            self._memo[key] = out
        return self._memo[key]


__all__ = [
    "Atom",
    "Bound",
    "FrozenPoly",
    "LIMIT",
    "Running",
    "SCAN_LIMIT",
    "Sum",
    "Values",
    "ZERO",
    "add",
    "aligned",
    "below_max",
    "constant",
    "constant_value",
    "cover",
    "dominates",
    "evaluate",
    "freeze",
    "is_constant",
    "is_exact",
    "leaves",
    "maximum",
    "prune",
    "sum_dominates",
    "tail_from",
    "text",
    "thaw",
    "total",
]
