"""Compiling a learner's kernels on two cores (rulebook._precompile).

The schedule is checked on random call graphs; the manifest against the
kernels that exist; the forked compile end to end in fresh interpreters
with an empty numba cache (the greedy learner: its kernels compile in a
few seconds; with RULEBOOK_SLOW_TESTS=1, every learner).
"""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba.core import types
from numba.core.registry import CPUDispatcher

from rulebook import _precompile
from rulebook._kernel_manifest import KERNELS
from rulebook._precompile import Kernel, schedule

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


@given(call_graphs(), st.integers(1, 3))
@settings(max_examples=200, deadline=None)
def test_schedule_assigns_every_kernel_once_callees_first(kernels, n_processes):
    plans, finish = schedule(kernels, n_processes)
    assert len(plans) == n_processes
    names = [k.name for plan in plans for k in plan]
    assert sorted(names) == sorted(k.name for k in kernels)
    for plan in plans:
        position = {k.name: i for i, k in enumerate(plan)}
        for k in plan:  # a callee in the same process comes before its caller
            assert all(position[c] < position[k.name] for c in k.callees if c in position)
    total = sum(k.cost for k in kernels)
    # No schedule beats the longest chain of calls or the work per process;
    # a list schedule keeps some process busy until it ends.
    assert finish >= max(_critical_path(kernels), total / n_processes) - 1e-9
    assert finish <= total + 1e-9


def test_schedule_on_one_process_is_the_manifest_order():
    kernels = _precompile.kernels("optimal")
    plans, finish = schedule(kernels, 1)
    position = {k.name: i for i, k in enumerate(plans[0])}
    for k in kernels:
        assert all(position[c] < position[k.name] for c in k.callees)
    assert finish == pytest.approx(sum(k.cost for k in kernels))


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
share = [k.dispatcher() for k in _precompile.schedule(_precompile.kernels(sys.argv[1]))[0][0]]
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
    kernels = _precompile.kernels("greedy")
    _precompile._run_forked(kernels[:1], kernels[1:])  # returns; nothing raised
    if open_fds is not None:
        assert len(os.listdir("/proc/self/fd")) == open_fds  # the pipes are closed
