"""Worker processes that end with the process that started them, even when it is killed with kill -9.

One mechanism for every pool hipport starts (the app's background analysis, `hipport convert` on large
trees; both through on_workers below): multiprocessing.Pool with forkserver-started workers. A forkserver worker holds only the read
end of its task pipe (Pool's worker closes the ends it does not use, and nothing else is inherited), so
when the starting process dies, however it dies, the pipe has no writer left: the worker's next read is
an EOF and it exits, and the fork server, whose "alive" pipe every worker held, follows. Fork-started
workers inherit every descriptor of the parent, the task pipe's write end included, and so waited
forever (they were found alive 16 minutes after a kill -9 of `hipport convert`).

The fork server imports the engine once (PRELOAD); each worker is forked from it, warm.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.pool
from collections.abc import Callable, Generator, Iterator, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

# imported once in the fork server, so every worker starts with them loaded
PRELOAD = ["hipport.engine.translate.driver", "hipport.engine.warp", "hipport.engine.pipeline",
           "hipport.engine.pipeline.files"]
POLL_S = 0.5  # how often a wait for a result looks for a worker that died


class WorkerDied(RuntimeError):
    """A worker process died (a crash, or killed) while it held a task: its result will never come."""


def worker_pool(processes: int, initializer: Callable[..., object] | None = None,
                initargs: tuple[Any, ...] = ()) -> multiprocessing.pool.Pool:
    """A Pool of `processes` forkserver-started workers (see the module docstring)."""
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    return ctx.Pool(processes, initializer=initializer, initargs=initargs)


def _apply(task: tuple[Callable[[T], R], Sequence[T]]) -> list[R]:
    func, chunk = task
    return [func(x) for x in chunk]


def pool_results(pool: multiprocessing.pool.Pool, func: Callable[[T], R], items: Sequence[T],
                 chunksize: int = 1, *, ordered: bool = True) -> Iterator[R]:
    """pool.imap(func, items, chunksize) (imap_unordered unless `ordered`), but a worker that dies is a
    WorkerDied error, not a wait without end (Pool replaces a dead worker and forgets the task it held)."""
    started = list(getattr(pool, "_pool", ()))  # the workers as started; none of them exits on its own
    chunks = ((func, items[i:i + chunksize]) for i in range(0, len(items), chunksize))
    it = (pool.imap if ordered else pool.imap_unordered)(_apply, chunks)  # one chunk a task; imap's own chunks give no wait with a timeout
    while True:
        try:
            results = it.next(timeout=POLL_S)
        except StopIteration:
            return
        except multiprocessing.TimeoutError:
            dead = [p for p in started if p.exitcode is not None]
            if dead:
                code = dead[0].exitcode
                how = f"signal {-code}" if code is not None and code < 0 else f"exit status {code}"
                raise WorkerDied(f"a worker process died ({how}) while converting") from None
            continue
        yield from results


def on_workers(func: Callable[[T], R], items: Sequence[T], workers: int, chunksize: int = 1, *,
               ordered: bool = True, initializer: Callable[..., object] | None = None,
               initargs: tuple[Any, ...] = (), started: Callable[[Any], None] | None = None
               ) -> Generator[R, None, None]:
    """func(item) for every item on `workers` pool processes, `chunksize` items a task; in item order
    unless not `ordered`. `started` gets the pool (to terminate it from another thread). A worker that
    dies is a workers.WorkerDied error, not a wait without end."""
    with worker_pool(workers, initializer, initargs) as pool:
        if started is not None:
            started(pool)
        yield from pool_results(pool, func, items, chunksize, ordered=ordered)
