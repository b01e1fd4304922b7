"""Interval arithmetic on inclusive integer bounds."""

from __future__ import annotations

from collections.abc import Callable, Iterable

Interval = tuple[int, int]
"""Inclusive bounds of every element of an integer tensor (or of an int)."""

RangeOf = Callable[[object], Interval | None]
"""Gives the interval of a node, an int or a ``SymInt``; None when unbounded."""

INT32: Interval = (-(2**31), 2**31 - 1)
INT64: Interval = (-(2**63), 2**63 - 1)


def hull(intervals: Iterable[Interval | None]) -> Interval | None:
    """The smallest interval holding all of ``intervals``; None if any is unbounded or none given."""
    known = list(intervals)
    if not known or any(interval is None for interval in known):
        return None
    return (min(i[0] for i in known if i), max(i[1] for i in known if i))


def meet(a: Interval, b: Interval) -> Interval:
    """The intersection of two bounds of one value."""
    return (max(a[0], b[0]), min(a[1], b[1]))


def within(interval: Interval | None, bounds: Interval) -> bool:
    """Whether ``interval`` is known and lies inside ``bounds``."""
    return interval is not None and bounds[0] <= interval[0] and interval[1] <= bounds[1]


def products(a: Interval, b: Interval) -> Interval:
    """The bounds of ``x * y``."""
    corners = [x * y for x in a for y in b]
    return (min(corners), max(corners))


def quotients(a: Interval, b: Interval) -> Interval:
    """The bounds of ``x / y`` rounded either way (floor, trunc)."""
    if b[0] <= 0 <= b[1]:
        # PyTorch refuses an integer division by zero: |quotient| <= |dividend|.
        largest = max(abs(a[0]), abs(a[1]))
        return (-largest, largest)
    floors = [x // y for x in a for y in b]
    ceilings = [-(-x // y) for x in a for y in b]
    return (min(floors), max(ceilings))


def remainders(a: Interval, b: Interval) -> Interval | None:
    """The bounds of ``remainder`` or ``fmod`` (either sign); None when the divisor is 0."""
    largest = max(abs(b[0]), abs(b[1]))
    return (-largest + 1, largest - 1) if largest else None


def powers(a: Interval, b: Interval) -> Interval | None:
    """The bounds of ``x ** y`` for a known exponent in 0..64; None otherwise."""
    if b[0] != b[1] or not 0 <= b[0] <= 64:
        return None
    results = [a[0] ** b[0], a[1] ** b[0]]
    if b[0] % 2 == 0 and a[0] <= 0 <= a[1]:
        results.append(0)
    return (min(results), max(results))


def absolute(a: Interval) -> Interval:
    """The bounds of ``abs(x)``."""
    low = 0 if a[0] <= 0 <= a[1] else min(abs(a[0]), abs(a[1]))
    return (low, max(abs(a[0]), abs(a[1])))
