"""Numba settings, declared once (see ``STYLE.md``, habit 5).

Every kernel module builds its decorators from here so that flags such as
``cache`` or ``fastmath`` are never hard-coded per function.

Environment variables
---------------------
RULEBOOK_NUMBA_CACHE : "0" disables numba's on-disk cache (default on).
RULEBOOK_PRECOMPILE : "0" keeps a learner's first fit from compiling half of
    its kernels in a forked child on the other core (``_precompile``;
    default on, Linux only).
RULEBOOK_PARALLEL_MIN_WORK : rows x features below which a node is scanned
    serially; threads only pay off on large nodes (default 65536).
"""

import functools
import os

import numba
from numba.core import types
from numba.core.registry import CPUDispatcher

CACHE = os.environ.get("RULEBOOK_NUMBA_CACHE", "1") != "0"

# fastmath stays off: it would let LLVM reorder the floating-point sums of
# the histograms and prefix scans, and the serial and parallel kernels must
# agree to the last bit.
_FLAGS = dict(cache=CACHE, nogil=True, fastmath=False, error_model="numpy")

PARALLEL_MIN_WORK = int(os.environ.get("RULEBOOK_PARALLEL_MIN_WORK", 2**16))

# Types of the binned data and of the gradient statistics, as in
# scikit-learn's ``common.pyx``.
import numpy as np  # noqa: E402

X_BINNED_DTYPE = np.uint16
G_H_DTYPE = np.float64
ROW_INDEX_DTYPE = np.intp


def _unliteral_call_template(dispatcher, args, kws):
    # Numba types a kernel's call to another kernel while the caller's types
    # are still being inferred, so ``k = 0; ...; helper(k)`` first compiles
    # ``helper`` for the literal ``Literal[int](0)`` and then again for
    # ``int64`` once ``k += 1`` is seen: every helper reached through such a
    # variable was compiled twice, the literal version never run (ten helpers
    # of the optimal search, five of the orthogonal one: 2 s and 5 s of CPU
    # of a cold first fit, benchmarks/README.md "Cold start"). Kernels take
    # no arguments that need their literal value, so calls between kernels
    # are typed by the plain types.
    args = tuple(types.unliteral(a) for a in args)
    kws = {name: types.unliteral(t) for name, t in kws.items()}
    return CPUDispatcher.get_call_template(dispatcher, args, kws)


def _compiled(func, **flags):
    dispatcher = numba.njit(**{**_FLAGS, **flags})(func)
    if isinstance(dispatcher, CPUDispatcher):  # not under NUMBA_DISABLE_JIT
        dispatcher.get_call_template = functools.partial(_unliteral_call_template, dispatcher)
    return dispatcher


def jit(func):
    """Compile ``func`` lazily as a serial, cached, GIL-releasing kernel."""
    return _compiled(func)


def jit_inline(func):
    """:func:`jit`, and inlined into compiled callers at numba's level.

    For small kernels called in the search's inner loops: a call that is
    not inlined increments and decrements the reference count of each
    array argument (two calls into numba's runtime per array per call).
    """
    return _compiled(func, inline="always")


class _HelperDispatcher(CPUDispatcher):
    """A kernel compiled without the entry points a Python call needs.

    Called from Python (tests check each kernel against NumPy), it runs a
    twin compiled with them, uncached: numba's cache index does not tell
    the two variants apart, and the helper's code has no Python entry
    point to jump to (calling it would crash the interpreter).
    """

    def __call__(self, *args, **kwargs):
        twin = self.__dict__.get("_python_twin")
        if twin is None:
            twin = self._python_twin = _compiled(self.py_func, cache=False)
        return twin(*args, **kwargs)


def jit_helper(func):
    """:func:`jit`, for a kernel that only other kernels call.

    numba compiles every kernel with a wrapper that converts Python
    arguments and a C-callable twin; a kernel called only from compiled
    code never uses them, and they were about a third of its compile time
    (the ~25 small helpers of a branch and bound are compiled at a user's
    first fit: ``benchmarks/README.md``, "Cold start"). Its compiled code is
    linked into each caller as before, so it runs exactly as fast.
    """
    dispatcher = _compiled(func, no_cpython_wrapper=True, no_cfunc_wrapper=True)
    if isinstance(dispatcher, CPUDispatcher):
        dispatcher.__class__ = _HelperDispatcher
    return dispatcher


def jit_parallel(func):
    """Compile ``func`` lazily with ``parallel=True`` (``prange`` honoured).

    The same Python function may also be passed to :func:`jit`; numba then
    treats ``prange`` as ``range`` and the two variants give identical
    results because each thread writes only its own output slot.
    """
    return _compiled(func, parallel=True)
