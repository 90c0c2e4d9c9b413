"""A command's setns into its session: a transient EINVAL is tried again (a failed setns
changes nothing) while the descriptor is still the namespace opened; any other error fails
at once, and the tries are bounded and counted."""

from __future__ import annotations

import errno

from agent.sandbox.joining import SETNS_TRIES, join


class Kernel:
    """setns results in order (0 = joined), and the errno each failure leaves."""

    def __init__(self, *results: int) -> None:
        self.results = list(results)
        self.calls = 0
        self.last = 0

    def setns(self) -> int:
        self.calls += 1
        self.last = self.results.pop(0) if self.results else errno.EINVAL
        return 0 if self.last == 0 else -1

    def errno(self) -> int:
        return self.last


def test_a_transient_einval_is_tried_again_until_it_joins() -> None:
    kernel, pauses = Kernel(errno.EINVAL, errno.EINVAL, 0), list[float]()
    assert join(kernel.setns, kernel.errno, lambda: True, pause=pauses.append) == (0, 3)
    assert kernel.calls == 3 and pauses == [0.002, 0.004]


def test_other_errors_fail_at_once() -> None:
    kernel, pauses = Kernel(errno.EPERM, 0), list[float]()
    assert join(kernel.setns, kernel.errno, lambda: True, pause=pauses.append) == (errno.EPERM, 1)
    assert kernel.calls == 1 and pauses == []


def test_a_lasting_einval_gives_up_after_its_tries_in_bounded_time() -> None:
    kernel, pauses = Kernel(), list[float]()
    assert join(kernel.setns, kernel.errno, lambda: True, pause=pauses.append) == (errno.EINVAL, SETNS_TRIES)
    assert kernel.calls == SETNS_TRIES and len(pauses) == SETNS_TRIES - 1
    assert sum(pauses) < 0.5


def test_an_einval_from_a_descriptor_no_longer_the_namespace_fails_at_once() -> None:
    kernel, pauses = Kernel(errno.EINVAL, 0), list[float]()
    assert join(kernel.setns, kernel.errno, lambda: False, pause=pauses.append) == (errno.EINVAL, 1)
    assert kernel.calls == 1 and pauses == []
