"""How many requests a run keeps in flight, found by measuring the server, not assumed.

Why: a server that runs one request at a time (llama-cpp-python's, llama-server without
``--parallel``) queues the rest, and a queued request's clock runs while it waits; with four
workers and a 20 s timeout, work of 8 s per request times out on queue time alone, and every
retry joins the queue. So a run starts with one request in flight (its latency is the work
alone), then sends up to ``max_workers`` together once and compares: when they took about as
long as one after another (speedup below :data:`PARALLEL_SPEEDUP`), the server serialises
and the run goes on one at a time. While more than one request is in flight, each request's
timeout covers the work of those ahead of it (``timeout`` x requests in flight), so the
timeout measures the work, not the queue; a timeout with others in flight is taken as
queueing: the run drops to one in flight and the request is sent again, not counted as a
failed attempt.
"""

from __future__ import annotations

import threading
import time

__all__ = ["PARALLEL_SPEEDUP", "Gate", "Run"]

# throughput of k requests together over k one after another, below which the server is
# taken to serialise (a parallel server gives up to k; a serialising one about 1)
PARALLEL_SPEEDUP = 1.5


class Run:
    """Counters of one complete() call, shared by its worker threads."""

    def __init__(self, total: int, keep_going: bool = False):
        self.total, self.done, self.failed, self.retried = total, 0, 0, 0
        self.keep_going = keep_going  # a prompt that fails every retry is a Failed, not a stop
        self.lock = threading.Lock()
        self.stop = threading.Event()

    def line(self) -> str:
        return (
            f"llm: {self.done}/{self.total} requests done, {self.failed} failed, "
            f"{self.retried} retried"
        )


class Gate:
    """Admits requests up to the measured concurrency (see the module docstring).

    ``say`` hears the decision once. ``limit`` is the number of requests in flight allowed
    now, ``concurrency`` what the measurement settled on (None until it did)."""

    def __init__(self, max_workers: int, total: int, stop: threading.Event, say=None, known=None):
        self.max = max(1, int(max_workers))
        self.total, self.stop, self.say = total, stop, say
        # a concurrency measured by an earlier run of the same endpoint is kept
        self.concurrency = 1 if self.max == 1 else (min(known, self.max) if known else None)
        self.limit = self.concurrency or 1
        self.in_flight = 0
        self.solo: float | None = None  # seconds of the first request, alone
        self.window: list[tuple[float, float]] = []  # (start, end) of the requests sent together
        self.window_size = 0
        self.cond = threading.Condition()

    def enter(self) -> tuple[int, bool, float]:
        """Wait for a slot; returns (requests in flight with this one, whether others may run
        beside it, its start time)."""
        with self.cond:
            while self.in_flight >= self.limit and not self.stop.is_set():
                self.cond.wait(0.1)
            self.in_flight += 1
            return self.in_flight, self.limit > 1, time.monotonic()

    def timeout(self, base: float, in_flight: int) -> float:
        """The work's timeout: until the server is known to run them at once, a request may
        wait behind every other one in flight (a server's queue need not be first come,
        first served), so it gets the work of all of them."""
        return (
            base
            if self.concurrency == 1 or in_flight <= 1 and self.limit == 1
            else (base * self.limit)
        )

    def leave(self, started: float, answered: bool, with_others: bool) -> None:
        """A request ended: ``answered`` (a reply, even a refused one) or not (timeout...)."""
        end = time.monotonic()
        with self.cond:
            self.in_flight -= 1
            if answered and self.concurrency is None:
                self._measure(started, end, with_others)
            self.cond.notify_all()

    def queued_timeout(self) -> None:
        """A request timed out while others were in flight: the server queues, so one at a time."""
        with self.cond:
            if self.concurrency != 1:
                self._settle(1, "a request timed out while others waited in its queue")

    def _measure(self, started: float, end: float, with_others: bool) -> None:
        if self.solo is None and not with_others:
            self.solo = end - started
            self.window_size = min(self.max, self.total - 1)
            if self.window_size >= 2:
                self.limit = self.max  # now send a window of max_workers together
            return
        if self.solo is None or self.window_size < 2:
            return
        self.window.append((started, end))
        if len(self.window) < self.window_size:
            return
        span = max(e for _, e in self.window) - min(s for s, _ in self.window)
        speedup = len(self.window) * self.solo / max(span, 1e-9)
        if speedup < PARALLEL_SPEEDUP:
            self._settle(
                1,
                f"{len(self.window)} requests sent together took {span:.1f}s, one alone "
                f"{self.solo:.1f}s (speedup {speedup:.2f})",
            )
        else:
            self.concurrency = self.max

    def _settle(self, concurrency: int, why: str) -> None:
        self.concurrency = self.limit = concurrency
        if self.say:
            self.say(f"llm: the server runs one request at a time ({why}): sending one at a time")
