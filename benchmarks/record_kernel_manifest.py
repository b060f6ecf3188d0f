"""Write ``rulebook/_kernel_manifest.py``: the kernels each learner's first fit compiles.

Usage::

    python benchmarks/record_kernel_manifest.py [greedy optimal orthogonal]

For each learner, a fresh interpreter with an empty ``NUMBA_CACHE_DIR``
fits the learner's defaults once per loss (titanic, insurance, ships) and
records every kernel numba compiles: its signatures, its own compile CPU
time and the kernels it calls (``rulebook._precompile.record``). Re-run it
after changing a kernel's arguments or callees; ``bench_greedy.py
--compile-time-only`` lists kernels the manifest missed, and
``tests/test_precompile.py`` checks the manifest against the code.
"""

import json
import os
import pprint
import subprocess
import sys
import tempfile
from pathlib import Path

MANIFEST = Path(__file__).resolve().parents[1] / "rulebook" / "_kernel_manifest.py"

HEADER = '''"""The kernels each learner's default fit compiles (see ``_precompile``).

Written by ``benchmarks/record_kernel_manifest.py``; do not edit by hand.
Each entry: ("module:attribute", its own compile CPU seconds on the
recording machine, the kernels it calls, argument types per signature),
callees first.
"""

KERNELS = '''

_CHILD = """
import json, sys
sys.path.insert(0, sys.argv[2])
from record_kernel_manifest import default_fits
from rulebook._precompile import record
print(json.dumps(record(default_fits(sys.argv[1]))))
"""


def default_fits(key):
    """The learner's default fits, one per loss: what the manifest records.

    Titanic (logistic), insurance (squared) and ships (Poisson), every
    parameter at its default but ``learner=key``.
    """
    from rulebook import RuleBoostingClassifier, RuleBoostingRegressor
    from rulebook.datasets import load_insurance, load_ships, load_titanic

    def fit():
        RuleBoostingClassifier(learner=key, verbose=0).fit(*load_titanic())
        RuleBoostingRegressor(learner=key, verbose=0).fit(*load_insurance())
        RuleBoostingRegressor(loss="poisson", learner=key, verbose=0).fit(*load_ships())
    return fit


def record(key):
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "RULEBOOK_PRECOMPILE": "0"}
        out = subprocess.run([sys.executable, "-c", _CHILD, key, str(Path(__file__).parent)],
                             env=env, check=True,
                             capture_output=True, text=True).stdout
    return tuple((name, cost, tuple(callees), tuple(signatures))
                 for name, cost, callees, signatures in json.loads(out.splitlines()[-1]))


def main():
    keys = sys.argv[1:] or ["greedy", "optimal", "orthogonal"]
    manifest = {}
    if MANIFEST.exists() and sys.argv[1:]:
        namespace = {}
        exec(MANIFEST.read_text(), namespace)  # noqa: S102 (our own generated file)
        manifest.update(namespace["KERNELS"])
    for key in keys:
        manifest[key] = record(key)
        print(f"{key}: {len(manifest[key])} kernels, "
              f"{sum(entry[1] for entry in manifest[key]):.1f} s of compile CPU")
    MANIFEST.write_text(HEADER + pprint.pformat(manifest, width=100, sort_dicts=False) + "\n")
    print("wrote", MANIFEST)


if __name__ == "__main__":
    main()
