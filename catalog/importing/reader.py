"""Reading the files of an import ahead of the importer, in this process or in a worker.

For a large import a worker process prepares the papers (catalog/importing/prepare.py), running ahead
through the files while the importer stores (a thread would fight the storing thread for the
GIL). Small imports read in-process: starting a worker costs more than reading them.

The worker is a Python process running `_serve`, talking pickles over its stdin and stdout: it
reads the whole list of files first, then writes what it finds, so the two sides can never
both wait on a full pipe. (Not multiprocessing: its spawn mode re-runs the caller's main
script, and fork copies a threaded process.) It ignores Ctrl-C, which the importer handles;
it ends when it has read every file, or when the importer stops it or goes away (its next
write fails).
"""

from __future__ import annotations

import os
import pickle
import queue
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

from catalog.importing.prepare import Batch, Job, Opened, read

LOOKAHEAD = 6  # batches read from the worker ahead of the importer
# Below this many bytes of input a worker costs more than it saves.
WORKER_MIN_BYTES = 4 << 20


class WorkerError(RuntimeError):
    pass


_END = None  # written after a file's last batch (an error ends it too)


class Reader:
    """Reads the jobs in order, in a worker process when `parallel`.

    `stream(job)` gives the job's Opened, then its Batches, and raises its reading error.
    Call it for the jobs in the order given; jobs not asked for, and the rest of a stream
    left early (the importer hit an error), are skipped. A job the worker was not given,
    or one it did not begin before it stopped (or never started), is read in this process;
    if the worker dies part-way through a file, that file fails with a WorkerError.
    """

    def __init__(self, jobs: list[Job], parallel: bool):
        self._worker: subprocess.Popen | None = None
        self._queued: list[Job] = []  # given to the worker, not yet streamed
        self._streaming = False  # the worker's output is in the middle of a job
        # Filled by a thread that reads the worker's output as soon as it comes: a pipe holds
        # 64 KiB, a batch 2 MB, so without it the worker could never get ahead of the
        # importer (which stops reading while it indexes and commits each file).
        self._ready: queue.Queue = queue.Queue(maxsize=LOOKAHEAD)
        self._pump = threading.Thread(target=self._read_output, name="catalog-import-reader",
                                      daemon=True)
        self._errors = None  # the worker's stderr, for the reason it died
        if parallel and jobs:
            self._start(jobs)

    def _start(self, jobs: list[Job]) -> None:
        # This very copy of catalog, even when the current directory or an installed
        # package holds another one (`-m` would put the current directory first).
        package_root = str(Path(__file__).resolve().parents[2])
        serve = f"import sys; sys.path.insert(0, {package_root!r}); import catalog.importing.reader as r; r._serve()"
        self._errors = tempfile.TemporaryFile()
        try:
            self._worker = subprocess.Popen(
                [sys.executable, "-c", serve], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=self._errors)
            pickle.dump(jobs, self._worker.stdin, protocol=pickle.HIGHEST_PROTOCOL)
            self._worker.stdin.close()
        except OSError:  # no interpreter to start, or it died at once: read in-process
            self._stop_worker()
            return
        self._queued = list(jobs)
        self._pump.start()

    def stream(self, job: Job) -> Iterator[Opened | Batch]:
        if self._worker is None or job not in self._queued:
            yield from read(job)
            return
        try:
            if self._streaming:
                self._skip_rest()
            while self._queued[0] != job:
                self._queued.pop(0)
                self._skip_rest()
            self._queued.pop(0)
            self._streaming = True
            item = self._receive()
        except WorkerError:  # it stopped before this file began: nothing of it is lost
            yield from read(job)
            return
        while item is not _END:
            if isinstance(item, BaseException):
                self._streaming = False
                raise item
            yield item
            item = self._receive()
        self._streaming = False

    def _skip_rest(self) -> None:
        """Read past the current job's items, up to its end or its error."""
        while (item := self._receive()) is not _END and not isinstance(item, BaseException):
            pass
        self._streaming = False

    def _receive(self):
        item = self._ready.get()
        if isinstance(item, WorkerError):  # put there by the pump: the worker is gone
            self._stop_worker()
            raise WorkerError(f"{item}{self._last_words()}")
        return item

    def _last_words(self) -> str:
        """': ' and the last line the worker wrote on stderr, if any."""
        if self._errors is None:
            return ""
        try:
            self._errors.seek(0)
            lines = self._errors.read()[-2000:].decode("utf-8", "replace").strip().splitlines()
        except (OSError, ValueError):
            return ""
        return f": {lines[-1]}" if lines else ""

    def _read_output(self) -> None:
        output = self._worker.stdout
        while True:
            try:
                item = pickle.load(output)
            except Exception:  # EOF, a closed pipe, a torn pickle: the worker is gone
                self._ready.put(WorkerError("the import worker process stopped unexpectedly"))
                return
            self._ready.put(item)

    def _stop_worker(self) -> None:
        """Stop the worker (whatever it is doing) and its pump; later jobs read in-process."""
        worker, self._worker = self._worker, None
        self._queued, self._streaming = [], False
        if worker is None:
            return
        if worker.poll() is None:
            worker.kill()  # still reading files nobody will store
        worker.wait()
        while self._pump.is_alive():  # it ends at EOF, once it can put its last item
            try:
                self._ready.get(timeout=0.1)
            except queue.Empty:
                pass
        for pipe in (worker.stdin, worker.stdout):
            if pipe and not pipe.closed:
                pipe.close()

    def close(self) -> None:
        self._stop_worker()
        if self._errors is not None:
            self._errors.close()

    def __enter__(self) -> "Reader":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _serve() -> None:
    """The worker: read the job list, then write each job's items and `_END`, or its error."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # The pickles get a descriptor of their own; anything printed goes to stderr instead.
    source, sink = sys.stdin.buffer, os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())

    def send(item) -> None:
        pickle.dump(item, sink, protocol=pickle.HIGHEST_PROTOCOL)
        sink.flush()  # the importer may be waiting for exactly this item

    try:
        jobs = pickle.load(source)
    except EOFError:
        return
    try:
        for job in jobs:
            try:
                for item in read(job):
                    send(item)
            except ConnectionError:  # a broken pipe: the importer is gone (below)
                raise
            except Exception as exc:  # the file's error, for the importer to report
                send(exc)
            else:
                send(_END)
    except OSError:
        return  # the importer went away or stopped reading
