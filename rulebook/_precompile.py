"""Compile a learner's kernels on both cores at its first fit.

numba compiles a kernel, and every kernel it calls, in the process and the
thread that first calls it, one function after another. The first fit of
the optimal or orthogonal learner in a fresh environment spent 13-20 s
there on one core while the other idled (issue 18, "Cold start";
``benchmarks/bench_greedy.py --compile-time-only``).

:func:`prepare` splits that work between the fitting process and a forked
child. Both compile into numba's on-disk cache, so each loads what the
other compiled instead of compiling it again. What to compile is read from
``_kernel_manifest`` (every kernel, signature, compile cost and callee of a
learner's default fit, written by :func:`record`). Who compiles what is
decided as they go: a list schedule of that call graph, run dynamically.
Each process, when free, claims the unclaimed kernel of highest upward
rank (:func:`priorities`) whose callees are all compiled, in a table of
states the two share (an anonymous shared memory map, claims under a POSIX
file lock). A plan fixed in advance from the manifest's costs (the first
version) lost about a second to waits and imbalance: the costs differ from
run to run and with which process first compiles one of numba's own
overloads.

Everything here is an optimisation: whatever is missing, stale or fails is
compiled on demand by numba as before, in the fitting process. It is off
without ``fork`` (Windows, and macOS where forking is unsafe), without the
on-disk cache (``RULEBOOK_NUMBA_CACHE=0``), under ``NUMBA_DISABLE_JIT``,
and with ``RULEBOOK_PRECOMPILE=0``. ``RULEBOOK_PRECOMPILE_LOG=path`` appends
one line per kernel compiled here (process, start, seconds, name): the
schedule as it ran.
"""

import fcntl
import importlib
import mmap
import os
import signal
import sys
import tempfile
import time
import warnings

from . import _config
from ._progress import check_interrupt

ENABLED = os.environ.get("RULEBOOK_PRECOMPILE", "1") != "0"

_prepared = set()
_LOG = os.environ.get("RULEBOOK_PRECOMPILE_LOG")
# The kernels the fitting process compiled at its last prepare() (names):
# what tests and bench_greedy.py check the other process did not repeat.
compiled_here = []
# States of a kernel in the shared table.
_FREE, _CLAIMED, _DONE = 0, 1, 2
# How long a process with nothing ready waits before looking again (s).
_POLL = 0.005


class Kernel:
    """One compiled function of a learner's fit: the unit of scheduling.

    All signatures of a function are compiled by one process: numba keeps
    them in one cache index, which two processes writing at once could
    each overwrite with their own entry.
    """

    def __init__(self, name, cost, callees, signatures):
        self.name = name  # "module:attribute"
        self.cost = float(cost)  # seconds of compile CPU, self only
        self.callees = tuple(callees)
        self.signatures = tuple(signatures)

    def dispatcher(self):
        module, attribute = self.name.split(":")
        return getattr(importlib.import_module(module), attribute)

    def compile(self):
        dispatcher = self.dispatcher()
        for signature in self.signatures:
            dispatcher.compile(_parse_signature(signature))


def _parse_signature(text):
    from numba.core import types
    return eval(text, {"__builtins__": {}}, {**vars(types), "bool": types.boolean})


def kernels(key):
    """The manifest's kernels of ``key`` (a learner name), callees first."""
    from ._kernel_manifest import KERNELS
    return [Kernel(*entry) for entry in KERNELS.get(key, ())]


def priorities(kernels_):
    """Upward rank of each kernel: its cost plus its costliest chain of callers.

    Parameters
    ----------
    kernels_ : list of Kernel
        Callees before their callers (the manifest's order).

    Returns
    -------
    dict
        Kernel name to seconds (the manifest's).

    References
    ----------
    .. [1] Topcuoglu, H., Hariri, S., Wu, M.-Y. (2002). Performance-effective
       and low-complexity task scheduling for heterogeneous computing. IEEE
       TPDS 13(3), Section 4.1, Equation 7.
    """
    callers = {k.name: [] for k in kernels_}
    for k in kernels_:
        for c in k.callees:
            if c in callers:
                callers[c].append(k.name)
    rank = {}
    for k in reversed(kernels_):  # callers come after their callees
        rank[k.name] = k.cost + max((rank[c] for c in callers[k.name]), default=0.0)
    return rank


def prepare(key):
    """Compile the kernels of ``key``'s fit on two cores, once per process.

    Called by a learner before its first search. Returns at once when the
    kernels are compiled or cached, or when precompiling is off (module
    docstring); otherwise forks a child, compiles this process's share,
    and waits for the child (see the module docstring).

    Parameters
    ----------
    key : str
        A learner name in ``_kernel_manifest.KERNELS``; other keys do
        nothing.
    """
    if key in _prepared or not _available():
        return
    _prepared.add(key)
    try:
        todo = kernels(key)
        if not todo or _all_cached(todo):
            return
        rank = priorities(todo)
    except Exception:  # noqa: BLE001 (a stale manifest: numba compiles on demand)
        return
    _run_forked(sorted(todo, key=lambda k: -rank[k.name]))


def _available():
    if not (ENABLED and _config.CACHE and hasattr(os, "fork")
            and sys.platform.startswith("linux")):
        return False
    from numba.core import config
    return not config.DISABLE_JIT


def _all_cached(todo):
    """Whether the kernels nobody in the plan calls load from the cache.

    A cached kernel carries its callees' code, so the fit needs nothing
    else; the callees stay uncompiled as in any warm fit.
    """
    called = {c for k in todo for c in k.callees}
    for k in todo:
        if k.name in called:
            continue
        dispatcher = k.dispatcher()
        for signature in k.signatures:
            sig = _parse_signature(signature)
            if sig in dispatcher.overloads:
                continue
            # numba's own lookup (Dispatcher.compile), only to ask the cache.
            if dispatcher._cache.load_overload(sig, dispatcher.targetctx) is None:
                return False
            # Loaded as numba loads it: also registered for the kernels that
            # call it (add_overload alone is not, and compiling a caller
            # then fails with "No definition for lowering").
            dispatcher.compile(sig)
    return True


def _run_forked(by_priority):
    """Compile ``by_priority`` (highest first) here and in a forked child."""
    del compiled_here[:]
    try:
        table = _SharedTable(len(by_priority))
    except OSError:  # no temporary file: numba compiles on demand
        return
    try:
        with warnings.catch_warnings():
            # Python >= 3.12 warns when a threaded process forks (Jupyter's
            # kernel is one). The child only compiles and leaves by
            # os._exit, touching no lock another thread could hold.
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
    except OSError:  # out of processes: numba compiles on demand
        table.close()
        return
    if pid == 0:  # the child
        status = 1
        try:
            _silence_output()
            parent = os.getppid()
            _compile_claimed(by_priority, table, lambda: os.getppid() == parent)
            status = 0
        finally:
            os._exit(status)
    child = _Child(pid)
    try:
        compiled_here.extend(_compile_claimed(by_priority, table, child.alive))
        child.wait()
    except BaseException:
        # Ctrl-C or an error: the child's half is not waited for.
        child.kill()
        raise
    finally:
        table.close()


class _Child:
    """The forked child, reaped exactly once."""

    def __init__(self, pid):
        self.pid, self.reaped = pid, False

    def alive(self):
        if not self.reaped:
            try:
                self.reaped = os.waitpid(self.pid, os.WNOHANG) != (0, 0)
            except ChildProcessError:  # reaped by someone else (a SIGCHLD handler)
                self.reaped = True
        return not self.reaped

    def wait(self):
        if not self.reaped:
            try:
                os.waitpid(self.pid, 0)
            except ChildProcessError:
                pass
            self.reaped = True

    def kill(self):
        if not self.reaped:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.wait()


class _SharedTable:
    """Kernel states (_FREE, _CLAIMED, _DONE) shared by a process and its fork.

    An anonymous shared map holds one byte per kernel; a claim reads and
    writes it under a POSIX lock on an unlinked temporary file: such locks
    belong to a process, not to a file descriptor (so a forked child does
    not share the parent's), and end with it (a killed process leaves no
    lock held).
    """

    def __init__(self, n):
        self.states = mmap.mmap(-1, max(n, 1))
        fd, path = tempfile.mkstemp(prefix="rulebook-precompile-")
        os.unlink(path)
        self.lock_fd = fd

    def claim(self, ready):
        """Claim the first index ``ready(states)`` returns, under the lock.

        Returns the index, ``None`` when nothing is ready yet, or ``-1``
        when no kernel is left to claim.
        """
        fcntl.lockf(self.lock_fd, fcntl.LOCK_EX)
        try:
            if _FREE not in self.states[:]:
                return -1
            i = ready(self.states[:])
            if i is not None:
                self.states[i] = _CLAIMED
            return i
        finally:
            fcntl.lockf(self.lock_fd, fcntl.LOCK_UN)

    def done(self, i):
        self.states[i] = _DONE  # one byte: no lock needed

    def close(self):
        self.states.close()
        os.close(self.lock_fd)


def _compile_claimed(by_priority, table, other_alive):
    """Claim and compile ready kernels until none is left; returns their names.

    A kernel is ready when its callees in the list are compiled (numba then
    loads those the other process compiled from the cache). When the other
    process has ended, kernels it claimed and did not finish are left to
    numba, compiled on demand.
    """
    index = {k.name: i for i, k in enumerate(by_priority)}
    needs = [[index[c] for c in k.callees if c in index] for k in by_priority]

    def ready(states):
        return next((i for i, s in enumerate(states) if s == _FREE
                     and all(states[c] == _DONE for c in needs[i])), None)

    compiled = []
    while True:
        i = table.claim(ready)
        if i == -1:
            return compiled
        if i is None:
            if not other_alive():
                return compiled
            time.sleep(_POLL)
            continue
        kernel = by_priority[i]
        t0 = time.perf_counter()
        try:
            kernel.compile()
        except Exception:  # noqa: BLE001, S110 (numba compiles it on demand)
            pass
        table.done(i)
        compiled.append(kernel.name)
        # A Ctrl-C during numba's code generation is raised in a ctypes
        # callback, which drops it: it stops the fit here instead.
        check_interrupt()
        if _LOG:
            with open(_LOG, "a") as f:
                f.write(f"{os.getpid()} {t0:.3f} {time.perf_counter() - t0:.3f} {kernel.name}\n")


def _silence_output():
    # The child's warnings (numba's, for one) must not reach a notebook
    # through the parent's sockets.
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    warnings.simplefilter("ignore")


def record(fit):
    """Compile ``fit()`` from a cold cache and return its manifest entry.

    Run in a fresh process with an empty ``NUMBA_CACHE_DIR`` and
    ``RULEBOOK_PRECOMPILE=0`` (``benchmarks/record_kernel_manifest.py`` does).

    Returns
    -------
    list of tuple
        ``(name, cost, callees, signatures)`` per kernel, callees first.
    """
    from numba.core import event

    records, stack = [], []

    class Listener(event.Listener):
        def on_start(self, ev):
            stack.append([time.process_time(), ev.data["dispatcher"], 0.0])

        def on_end(self, ev):
            started, dispatcher, nested = stack.pop()
            total = time.process_time() - started
            if not _is_ours(dispatcher):
                return  # numba's own overloads count to the kernel above them
            parent = next((s for s in reversed(stack) if _is_ours(s[1])), None)
            if parent is not None:
                parent[2] += total
            records.append((dispatcher, total - nested, ev.data["args"]))

    listener = Listener()
    event.register("numba:compile", listener)
    try:
        fit()
    finally:
        event.unregister("numba:compile", listener)
    names = _dispatcher_names()
    # Callees from what each compiled kernel links: the compile events
    # alone miss a callee that an earlier fit or caller had compiled.
    library_of = {}
    for dispatcher, _, args in records:
        library_of[id(dispatcher.overloads[tuple(args)].library)] = names[id(dispatcher)]
    order, cost, callees, sigs = [], {}, {}, {}
    for dispatcher, seconds, args in records:
        name = names[id(dispatcher)]
        if name not in cost:
            order.append(name)
            cost[name], sigs[name], callees[name] = 0.0, [], set()
        cost[name] += seconds
        sigs[name].append(repr(tuple(args)))
        linked = dispatcher.overloads[tuple(args)].library._linking_libraries
        callees[name].update(library_of[id(lib)] for lib in linked if id(lib) in library_of)
    return [(n, round(cost[n], 2), tuple(sorted(callees[n])), tuple(sigs[n])) for n in order]


def _is_ours(dispatcher):
    return dispatcher.py_func.__module__.startswith("rulebook.")


def _dispatcher_names():
    from numba.core.registry import CPUDispatcher
    names = {}
    for module_name, module in sorted(sys.modules.items()):
        if not module_name.startswith("rulebook.") or module is None:
            continue
        for attribute, value in sorted(vars(module).items()):
            # Named after the module that defines it when it is there.
            if isinstance(value, CPUDispatcher) and (
                    id(value) not in names or value.py_func.__module__ == module_name):
                names[id(value)] = f"{module_name}:{attribute}"
    return names


