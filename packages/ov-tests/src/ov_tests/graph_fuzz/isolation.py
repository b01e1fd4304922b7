"""Check graphs in child processes, so a crash inside OpenVINO or ExecuTorch names its graph.

A native crash (a divide error in a CPU plugin's kernel, an abort) ends the
process it happens in. Here each worker is a child process that takes graph
indices from a queue and says which one it starts; when a worker dies, the
parent reports that graph as a ``crash`` with the signal, and a new worker goes
on with the rest. A graph that runs past ``timeout`` seconds is killed and
reported the same way.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import queue
import random
import signal
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from ov_tests.graph_fuzz.check import Outcome
from ov_tests.graph_fuzz.draw import draw_graph
from ov_tests.graph_fuzz.run import Failure, Report, check_index

_CONTEXT = multiprocessing.get_context("spawn")
"""A fresh interpreter per worker: no state inherited from a parent that imported PyTorch."""


@dataclass(frozen=True)
class _Options:
    seed: int
    shrink_failures: bool
    reproducers: Path | None
    finite: bool


def _work(tasks: Any, results: Any, options: _Options) -> None:
    """A worker: check each index from ``tasks`` until a ``None``; say when each starts."""
    while (index := tasks.get()) is not None:
        results.put((os.getpid(), index, None))
        report = check_index(
            index,
            options.seed,
            shrink_failures=options.shrink_failures,
            reproducers=options.reproducers,
            finite=options.finite,
        )
        # Pickled here: a queue would pass the tensors in shared memory, which
        # the parent cannot read once this worker has died.
        results.put((os.getpid(), index, pickle.dumps(report)))


def _death(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        return f"the process died of {signal.Signals(-exitcode).name}"
    return f"the process exited with status {exitcode}"


def _crash_report(index: int, options: _Options, detail: str) -> Report:
    """The report of graph ``index``, drawn again here, whose worker crashed or hung."""
    report = Report(options.seed, options.finite)
    graph, values = draw_graph(random.Random(f"{options.seed}-{index}"), finite=options.finite)
    outcome = Outcome("crash", detail, "unattributed")
    report.count(graph, outcome)
    report.add_failure(Failure(index, graph, values, outcome), options.reproducers)
    return report


class _Workers:
    """The live workers, the graph each is checking and since when."""

    def __init__(self, options: _Options, tasks: Any, results: Any) -> None:
        self.options, self.tasks, self.results = options, tasks, results
        self.processes: dict[int, Any] = {}
        self.checking: dict[int, tuple[int, float]] = {}  # pid: index, start time

    def spawn(self) -> None:
        """Start a worker, and queue the ``None`` that will stop it."""
        worker = _CONTEXT.Process(
            target=_work, args=(self.tasks, self.results, self.options), daemon=True
        )
        worker.start()
        self.processes[cast("int", worker.pid)] = worker
        self.tasks.put(None)

    def receive(self, report: Report, done: set[int], wait: float) -> bool:
        """Take one message from the workers into ``report``; False when none came in ``wait`` s."""
        try:
            pid, index, part = self.results.get(timeout=wait)
        except queue.Empty:
            return False
        if part is None:
            self.checking[pid] = (index, time.monotonic())
        elif index not in done:  # not already reported as a crash
            self.checking.pop(pid, None)
            done.add(index)
            report.merge(pickle.loads(part))
        return True

    def reap(self, report: Report, done: set[int], timeout: float, graphs: int) -> None:
        """Report the graph of each worker that died or hung, and start one in its place.

        No worker is started once all ``graphs`` are done.
        """
        now = time.monotonic()
        for pid, worker in list(self.processes.items()):
            index, started = self.checking.get(pid, (None, now))
            hung = now - started > timeout
            if worker.is_alive() and not hung:
                continue
            while self.receive(report, done, wait=0.5):  # what it said before it died
                index, started = self.checking.get(pid, (None, now))
            if hung:
                worker.kill()
            worker.join()
            del self.processes[pid]
            self.checking.pop(pid, None)
            if index is not None:
                detail = f"hung for over {timeout:.0f} s" if hung else _death(worker.exitcode)
                done.add(index)
                report.merge(_crash_report(index, self.options, detail))
            if (hung or worker.exitcode != 0) and len(done) < graphs:
                self.spawn()

    def stop(self) -> None:
        """Wait for the workers to take their ``None``; kill any that do not."""
        for worker in self.processes.values():
            worker.join(timeout=30)
            if worker.is_alive():
                worker.kill()


def run_isolated(
    graphs: int,
    seed: int,
    *,
    start: int = 0,
    jobs: int = 1,
    shrink_failures: bool = True,
    reproducers: Path | None = None,
    finite: bool = False,
    timeout: float = 600.0,
) -> Report:
    """Check graphs ``start`` to ``start + graphs - 1`` of the run ``seed`` in ``jobs`` child processes.

    Args:
        graphs: How many graphs.
        seed: The run's seed.
        start: Index of the first graph.
        jobs: Worker processes (at least 1).
        shrink_failures: Shrink each failing graph (in its worker) before reporting it.
        reproducers: A folder to write each failure into as a pytest file.
        finite: Draw values without NaN and the infinities.
        timeout: Seconds one graph may take before its worker is killed and
            the graph is reported as a ``crash`` (a hang).

    A crashed graph is reported as drawn, since shrinking it would crash the
    shrinker, and its owner is ``unattributed``.
    """
    options = _Options(seed, shrink_failures, reproducers, finite)
    workers = _Workers(options, _CONTEXT.Queue(), _CONTEXT.Queue())
    for index in range(start, start + graphs):
        workers.tasks.put(index)
    for _ in range(max(1, min(jobs, graphs))):
        workers.spawn()
    report = Report(seed, finite)
    done: set[int] = set()
    while len(done) < graphs:
        workers.receive(report, done, wait=1.0)
        workers.reap(report, done, timeout, graphs)
    workers.stop()
    return report
