"""Compiling a learner's kernels on two cores (rulebook._precompile).

The dynamic schedule is checked on random call graphs (two processes
compiling kernels that sleep); the manifest against the
kernels that exist; the forked compile end to end in fresh interpreters
with an empty numba cache (the greedy learner: its kernels compile in a
few seconds; with RULEBOOK_SLOW_TESTS=1, every learner).
"""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba.core import types
from numba.core.registry import CPUDispatcher

from rulebook import _precompile
from rulebook._kernel_manifest import KERNELS
from rulebook._precompile import Kernel

ROOT = Path(__file__).resolve().parents[1]


@st.composite
def call_graphs(draw):
    n = draw(st.integers(1, 12))
    kernels = []
    for i in range(n):
        callees = draw(st.sets(st.integers(0, i - 1), max_size=i)) if i else set()
        cost = draw(st.floats(0.01, 5.0))
        kernels.append(Kernel(f"m:k{i}", cost, [f"m:k{j}" for j in sorted(callees)], ()))
    return kernels


def _critical_path(kernels):
    finish = {}
    for k in kernels:
        finish[k.name] = k.cost + max((finish[c] for c in k.callees), default=0.0)
    return max(finish.values())


@given(call_graphs())
@settings(max_examples=200, deadline=None)
def test_a_callee_ranks_above_each_of_its_callers(kernels):
    rank = _precompile.priorities(kernels)
    for k in kernels:
        assert rank[k.name] >= k.cost
        assert all(rank[c] > rank[k.name] for c in k.callees)
    # The highest rank is the costliest chain of calls.
    assert max(rank.values()) == pytest.approx(_critical_path(kernels))


class _LoggedKernel(Kernel):
    """A kernel whose compiling sleeps and is logged (process, name, start, end)."""

    log = None
    dies_in_child = ()

    def compile(self):
        if self.name in self.dies_in_child and os.getpid() != self.parent:
            os._exit(3)
        start = time.monotonic()
        time.sleep(self.cost / 1000)
        with open(self.log, "a") as f:
            f.write(f"{os.getpid()} {self.name} {start} {time.monotonic()}\n")


def _logged(kernels, log, dies_in_child=()):
    for k in kernels:
        k.__class__ = _LoggedKernel
        k.log, k.dies_in_child, k.parent = log, dies_in_child, os.getpid()
    rank = _precompile.priorities(kernels)
    return sorted(kernels, key=lambda k: -rank[k.name])


def _read(log):
    with open(log) as f:
        return [(int(p), name, float(a), float(b)) for p, name, a, b in map(str.split, f)]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forks")
@given(call_graphs())
@settings(max_examples=25, deadline=None)
def test_two_processes_compile_every_kernel_once_after_its_callees(kernels):
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "log")
        _precompile._run_forked(_logged(kernels, log))
        records = _read(log)
    names = [name for _, name, _, _ in records]
    assert sorted(names) == sorted(k.name for k in kernels)
    started = {name: a for _, name, a, _ in records}
    ended = {name: b for _, name, _, b in records}
    for k in kernels:
        assert all(ended[c] <= started[k.name] for c in k.callees)
    here = {name for p, name, _, _ in records if p == os.getpid()}
    assert set(_precompile.compiled_here) == here


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forks")
def test_a_child_that_dies_leaves_its_kernels_to_numba_and_nothing_waits():
    # The child dies at its first claim, the kernel k1 waits for may be
    # that one: the fitting process must return, not wait for it.
    kernels = [Kernel("m:k0", 50.0, [], ()), Kernel("m:k1", 1.0, ["m:k0"], ()),
               Kernel("m:k2", 50.0, [], ())]
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "log")
        started = time.monotonic()
        _precompile._run_forked(_logged(kernels, log, dies_in_child={"m:k0", "m:k1", "m:k2"}))
        assert time.monotonic() - started < 30
        records = _read(log) if os.path.exists(log) else []
    assert records and all(p == os.getpid() for p, _, _, _ in records)
    names = {name for _, name, _, _ in records}
    assert "m:k1" not in names or "m:k0" in names


@pytest.mark.parametrize("key", sorted(KERNELS))
def test_manifest_names_kernels_that_exist(key):
    kernels = _precompile.kernels(key)
    names = {k.name for k in kernels}
    assert kernels, key
    for k in kernels:
        assert isinstance(k.dispatcher(), CPUDispatcher), k.name
        assert set(k.callees) <= names, k.name
        assert k.cost >= 0
        for text in k.signatures:
            signature = _precompile._parse_signature(text)
            assert isinstance(signature, tuple)
            assert all(isinstance(t, types.Type) for t in signature), text


def test_unknown_keys_and_disabled_precompiling_do_nothing(monkeypatch):
    def no_fork():
        raise AssertionError("forked")
    monkeypatch.setattr(os, "fork", no_fork)
    _precompile.prepare("no such learner")
    monkeypatch.setattr(_precompile, "ENABLED", False)
    monkeypatch.setattr(_precompile, "_prepared", set())
    _precompile.prepare("orthogonal")


_COLD_FIT = """
import json, os, sys, time
from numba.core import event
from rulebook import RuleBoostingClassifier, _precompile
from rulebook.datasets import load_titanic
compiled = []
class Listener(event.Listener):
    def on_start(self, ev):
        d = ev.data["dispatcher"]
        if d.py_func.__module__.startswith("rulebook."):
            compiled.append(d)
    def on_end(self, ev):
        pass
event.register("numba:compile", Listener())
forks = []
fork = os.fork
def counted_fork():
    forks.append(1)
    return fork()
os.fork = counted_fork
X, y = load_titanic()
RuleBoostingClassifier(n_rules=3, learner=sys.argv[1], verbose=0).fit(X, y)
share = [k.dispatcher() for k in _precompile.kernels(sys.argv[1]) if k.name in _precompile.compiled_here]
again = sorted({d.py_func.__name__ for d in compiled if not any(d is s for s in share)})
try:
    os.waitpid(-1, os.WNOHANG)
    children_left = True
except ChildProcessError:
    children_left = False
print(json.dumps({"forks": len(forks), "compiled": len(compiled), "again": again,
                  "children_left": children_left}))
"""


def _run(code, cache, *args, **env):
    out = subprocess.run([sys.executable, "-c", code, *args], check=False, capture_output=True, text=True,
                         env={**os.environ, "NUMBA_CACHE_DIR": str(cache), **env}, timeout=600)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_cold_fit_compiles_the_childs_share_once_and_a_warm_one_does_not_fork(tmp_path):
    cold = _run(_COLD_FIT, tmp_path, "greedy")
    assert cold["forks"] == 1
    assert cold["again"] == []  # the child's kernels came from the cache
    assert 0 < cold["compiled"]
    assert not cold["children_left"]
    warm = _run(_COLD_FIT, tmp_path, "greedy")
    assert warm == {"forks": 0, "compiled": 0, "again": [], "children_left": False}


_INTERRUPTED = """
import os, sys, time
from rulebook import RuleBoostingClassifier
from rulebook.datasets import load_titanic
X, y = load_titanic()
print("fitting", flush=True)
try:
    RuleBoostingClassifier(n_rules=3, learner="orthogonal", verbose=0).fit(X, y)
except KeyboardInterrupt:
    try:
        os.waitpid(-1, os.WNOHANG)
        print("children left")
    except ChildProcessError:
        print("interrupted", flush=True)
"""


@pytest.mark.skipif(os.name != "posix", reason="sends SIGINT to a subprocess")
def test_ctrl_c_while_compiling_stops_the_child_too(tmp_path):
    # SIG_DFL in the child: a test run started without job control inherits
    # SIGINT ignored (see tests/test_interrupt.py).
    process = subprocess.Popen([sys.executable, "-c", _INTERRUPTED], stdout=subprocess.PIPE,
                               text=True, env={**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)},
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert process.stdout.readline().strip() == "fitting"
    time.sleep(3.0)  # inside the forked compile (about 10 s cold)
    process.send_signal(signal.SIGINT)
    out, _ = process.communicate(timeout=120)
    assert out.strip() == "interrupted"


_RECORD = """
import json, sys
sys.path.insert(0, sys.argv[2])
from record_kernel_manifest import default_fits
from rulebook._precompile import record
print(json.dumps(record(default_fits(sys.argv[1]))))
"""


def _recorded(key, cache):
    out = subprocess.run([sys.executable, "-c", _RECORD, key, str(ROOT / "benchmarks")],
                         check=False, capture_output=True, text=True,
                         env={**os.environ, "NUMBA_CACHE_DIR": str(cache),
                              "RULEBOOK_PRECOMPILE": "0"}, timeout=900)
    assert out.returncode == 0, out.stderr
    return {name: (set(callees), set(signatures))
            for name, _, callees, signatures in json.loads(out.stdout.strip().splitlines()[-1])}


def _manifest(key):
    return {name: (set(callees), set(signatures))
            for name, _, callees, signatures in KERNELS[key]}


def test_the_greedy_manifest_is_what_a_cold_fit_compiles(tmp_path):
    # Stale entries only cost speed (numba compiles what is missing), but
    # then the first fit is slow again: re-run
    # benchmarks/record_kernel_manifest.py after changing a kernel.
    assert _recorded("greedy", tmp_path) == _manifest("greedy")


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("RULEBOOK_SLOW_TESTS") != "1",
                    reason="about a minute of compiling: RULEBOOK_SLOW_TESTS=1 runs it "
                           "(benchmarks/README.md, 'Cold start')")
@pytest.mark.parametrize("key", ["optimal", "orthogonal"])
def test_the_manifest_is_what_a_cold_fit_compiles(key, tmp_path):
    assert _recorded(key, tmp_path) == _manifest(key)


_CACHED_ROOT_THEN_CALLER = """
import numba, numpy as np
from rulebook import RuleBoostingClassifier, _precompile
from rulebook._config import X_BINNED_DTYPE, jit
from rulebook._search_kernels import split_rows
from rulebook.datasets import load_titanic
X, y = load_titanic()
if sys.argv[1] == "fill":
    RuleBoostingClassifier(n_rules=2, learner="greedy", verbose=0).fit(X, y)
else:
    _precompile.prepare("greedy")  # loads its kernels from the cache
    assert split_rows.signatures
    def caller(X_binned, rows, kept, removed):
        return split_rows(X_binned, rows, 0, 0, 1, 3, kept, removed)
    caller = numba.njit(caller)
    X_binned = np.asfortranarray(np.array([[0, 1], [2, 1], [1, 0]], X_BINNED_DTYPE))
    rows = np.arange(3)
    kept, removed = np.empty(3, np.int64), np.empty(3, np.int64)
    print(json.dumps(int(caller(X_binned, rows, kept, removed))))
print(json.dumps(0))
"""


def test_a_kernel_loaded_from_the_cache_can_be_called_by_a_new_kernel(tmp_path):
    # prepare() finds a learner's kernels in the cache and loads them; a
    # kernel compiled afterwards that calls one of them (the orthogonal
    # search calls the greedy learner's split_rows) must link it.
    code = "import json, sys\n" + _CACHED_ROOT_THEN_CALLER
    _run(code, tmp_path, "fill")
    assert _run(code, tmp_path, "call") == 0


def test_a_failing_fork_leaves_the_compiling_to_numba(monkeypatch):
    def no_fork():
        raise BlockingIOError(11, "Resource temporarily unavailable")
    open_fds = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    monkeypatch.setattr(os, "fork", no_fork)
    _precompile._run_forked(_precompile.kernels("greedy"))  # returns; nothing raised
    if open_fds is not None:
        assert len(os.listdir("/proc/self/fd")) == open_fds  # the lock file is closed
