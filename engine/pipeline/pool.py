"""Many files through the pipeline: here for small inputs, on hipport's one worker pool for large ones
(engine/workers.py: forkserver-started workers, the engine imported once in the fork server, gone when
this process dies however it dies). `hipport convert`/`scan` and the app's background analysis both run
their files through `on_workers`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Generator, Iterator, Sequence
from typing import Any, TypeVar

from .files import FileResult, Job, port_file

T = TypeVar("T")
R = TypeVar("R")

# Below these, a pool costs more than it saves: starting the fork server and its workers takes about
# 0.5 s (measured against fork's 0.1 s on 10 files), and 2 MB take about 3 s on one core.
PARALLEL_MIN_FILES = 8
PARALLEL_MIN_BYTES = 2 * 1024 * 1024


def on_workers(func: Callable[[T], R], items: Sequence[T], workers: int, chunksize: int = 1, *,
               ordered: bool = True, initializer: Callable[..., object] | None = None,
               initargs: tuple[Any, ...] = (), started: Callable[[Any], None] | None = None
               ) -> Generator[R, None, None]:
    """func(item) for every item on `workers` pool processes, `chunksize` items a task; in item order
    unless not `ordered`. `started` gets the pool (to terminate it from another thread). A worker that
    dies is a workers.WorkerDied error, not a wait without end."""
    from ..workers import pool_results, worker_pool

    with worker_pool(workers, initializer, initargs) as pool:
        if started is not None:
            started(pool)
        yield from pool_results(pool, func, items, chunksize, ordered=ordered)


def port_files(jobs: Sequence[Job], jobs_n: int | None = None) -> Iterator[FileResult]:
    """A FileResult per job, in job order: on the worker pool when the input is large (or `jobs_n` asks)."""
    total = 0
    for j in jobs:
        try:
            total += os.path.getsize(j.path)
        except OSError:
            pass
    cpus = os.cpu_count() or 1
    n = cpus if jobs_n is None else max(1, jobs_n)
    parallel = n > 1 and len(jobs) >= PARALLEL_MIN_FILES and (total >= PARALLEL_MIN_BYTES or jobs_n is not None)
    if not parallel:
        yield from map(port_file, jobs)
        return
    from ..workers import WorkerDied

    workers = min(n, len(jobs))
    done = 0
    try:
        for r in on_workers(port_file, jobs, workers, max(1, len(jobs) // (workers * 4))):
            done += 1
            yield r
    except WorkerDied as e:  # the files not done yet cost an error each, not a wait without end
        for j in jobs[done:]:
            yield FileResult(j.path, j.rel, error=f"{j.path}: not translated: {e}")
