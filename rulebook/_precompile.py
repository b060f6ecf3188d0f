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
learner's default fit, written by :func:`record`); who compiles what is a
two-processor list schedule of that call graph (:func:`schedule`). A
kernel waits for the callees compiled by the other process through a pipe
that carries the name of each kernel as it is written to the cache.

Everything here is an optimisation: whatever is missing, stale or fails is
compiled on demand by numba as before, in the fitting process. It is off
without ``fork`` (Windows, and macOS where forking is unsafe), without the
on-disk cache (``RULEBOOK_NUMBA_CACHE=0``), under ``NUMBA_DISABLE_JIT``,
and with ``RULEBOOK_PRECOMPILE=0``. ``RULEBOOK_PRECOMPILE_LOG=path`` appends
one line per kernel compiled here (process, start, seconds, name): the
schedule as it ran.
"""

import importlib
import os
import signal
import sys
import time
import warnings

from . import _config

ENABLED = os.environ.get("RULEBOOK_PRECOMPILE", "1") != "0"

_prepared = set()
_LOG = os.environ.get("RULEBOOK_PRECOMPILE_LOG")


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


def schedule(kernels_, n_processes=2):
    """Assign kernels to processes: a list schedule of the call graph.

    A kernel is ready when its callees are scheduled; among the ready ones
    the kernel with the longest chain of callers above it goes first (its
    "upward rank", Topcuoglu et al. 2002), to the process free earliest,
    starting when the callees it waits for from the other process are done.

    Parameters
    ----------
    kernels_ : list of Kernel
        Callees before their callers (the manifest's order).
    n_processes : int

    Returns
    -------
    plans : list of list of Kernel
        ``plans[0]`` for the fitting process, the others for children, each
        callees first.
    finish : float
        The schedule's estimated length, in the manifest's seconds.
    """
    by_name = {k.name: k for k in kernels_}
    callers = {k.name: [] for k in kernels_}
    for k in kernels_:
        for c in k.callees:
            if c in callers:
                callers[c].append(k.name)
    rank = {}
    for k in reversed(kernels_):  # callers come after their callees
        rank[k.name] = k.cost + max((rank[c] for c in callers[k.name]), default=0.0)
    done_at = {}
    free = [0.0] * n_processes
    plans = [[] for _ in range(n_processes)]
    pending = list(kernels_)
    while pending:
        ready = [k for k in pending if all(c in done_at or c not in by_name for c in k.callees)]
        k = max(ready, key=lambda k: rank[k.name])
        p = min(range(n_processes), key=free.__getitem__)
        start = max([free[p]] + [done_at[c] for c in k.callees if c in done_at])
        done_at[k.name] = free[p] = start + k.cost
        plans[p].append(k)
        pending.remove(k)
    return plans, max(free)


def prepare(key):
    """Compile the kernels of ``key``'s fit on two cores, once per process.

    Called by a learner before its first search. Returns at once when the
    kernels are compiled or cached, or when precompiling is off (module
    docstring); otherwise forks a child, compiles this process's share,
    and waits for the child.

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
        plans, _ = schedule(todo)
    except Exception:  # noqa: BLE001 (a stale manifest: numba compiles on demand)
        return
    _run_forked(plans[0], plans[1])


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


def _run_forked(mine, theirs):
    fds = []
    try:
        to_child_r, to_child_w = os.pipe()
        fds += [to_child_r, to_child_w]
        to_main_r, to_main_w = os.pipe()
        fds += [to_main_r, to_main_w]
        with warnings.catch_warnings():
            # Python >= 3.12 warns when a threaded process forks (Jupyter's
            # kernel is one). The child only compiles and leaves by
            # os._exit, touching no lock another thread could hold.
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
    except OSError:  # out of processes or descriptors: numba compiles on demand
        for fd in fds:
            os.close(fd)
        return
    if pid == 0:  # the child
        status = 1
        try:
            os.close(to_child_w)
            os.close(to_main_r)
            _silence_output()
            _compile_plan(theirs, {k.name for k in mine}, to_child_r, to_main_w)
            status = 0
        finally:
            os._exit(status)
    os.close(to_child_r)
    os.close(to_main_w)
    try:
        _compile_plan(mine, {k.name for k in theirs}, to_main_r, to_child_w)
        os.close(to_child_w)
        to_child_w = None
        os.waitpid(pid, 0)
    except BaseException:
        # Ctrl-C or an error: the child's half is not waited for.
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise
    finally:
        os.close(to_main_r)
        if to_child_w is not None:
            os.close(to_child_w)


def _silence_output():
    # The child's warnings (numba's, for one) must not reach a notebook
    # through the parent's sockets.
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    warnings.simplefilter("ignore")


def _compile_plan(plan, others, read_fd, write_fd):
    """Compile ``plan`` in order, each after its callees from ``others``."""
    done = set()
    pending = b""
    for kernel in plan:
        needed = [c for c in kernel.callees if c in others]
        while read_fd is not None and not all(c in done for c in needed):
            chunk = os.read(read_fd, 4096)
            if not chunk:  # the other process ended: compile what is missing
                read_fd = None
                break
            *names, pending = (pending + chunk).split(b"\n")
            done.update(n.decode() for n in names)
        t0 = time.perf_counter()
        try:
            kernel.compile()
        except Exception:  # noqa: BLE001, S110 (numba compiles it on demand)
            pass
        if _LOG:
            with open(_LOG, "a") as f:
                f.write(f"{os.getpid()} {t0:.3f} {time.perf_counter() - t0:.3f} {kernel.name}\n")
        try:
            os.write(write_fd, kernel.name.encode() + b"\n")
        except OSError:  # the other process is gone
            pass


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


