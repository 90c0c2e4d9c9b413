"""Timing helpers the micro-benchmarks share."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def median_us(fn: Callable[[], object], n: int) -> float:
    """The median wall time of `n` calls of `fn`, in microseconds."""
    times = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6
