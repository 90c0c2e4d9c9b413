"""The idle-gap bench, shortened (fast tier: a cost model, no HTTP): the adaptive policy
beats 5m-only on the issue's mixture and costs nothing extra without pauses."""

from __future__ import annotations

from bench.idle_gaps import bench


def test_short_idle_bench():
    mixture = bench(80, 18, True)
    assert mixture["adaptive (ours)"] <= 0.80 * mixture["5m only"]
    assert mixture["adaptive (ours)"] <= 1.15 * mixture["offline optimum"]
    assert mixture["offline optimum"] <= min(mixture.values())
    calm = bench(40, 18, False)
    assert calm["adaptive (ours)"] <= 1.02 * calm["5m only"]
    assert calm["1h everywhere"] > 1.10 * calm["5m only"]  # the bench can see a premium
