"""The numba settings of rulebook._config."""

import pytest
from numba.core import types

from rulebook import _config


def _helper(k):
    return k + 1


def _caller(n):
    k = 0  # a literal 0 until type inference sees ``k += 1``
    for _ in range(n):
        k += 1
    return _helper_jit(k)


# Not cached: the test looks at what this process compiles.
_helper_jit = _config._compiled(_helper, cache=False)
_caller_jit = _config._compiled(_caller, cache=False)


@pytest.mark.skipif(not hasattr(_caller_jit, "signatures"), reason="NUMBA_DISABLE_JIT")
def test_helper_compiled_once_for_plain_types():
    # numba would compile the helper for Literal[int](0) and then for int64.
    assert _caller_jit(3) == 4
    assert len(_helper_jit.signatures) == 1
    assert not any(isinstance(t, types.Literal) for sig in _helper_jit.signatures for t in sig)
