"""The fuzz suite's long profile (issue 26): the properties of
``tests/test_fuzz.py`` with many more examples, random (or ``--seed``) rather
than CI's fixed ones.

    python benchmarks/fuzz.py                      # 1,000 cases per estimator, ...
    python benchmarks/fuzz.py --scale 0.1 --seed 1 # a quicker run, reproducible
    python benchmarks/fuzz.py --only classifier-optimal ensembles

Prints how many cases each property ran and every failure hypothesis found
(shrunk, with the ``@reproduce_failure`` blob); exits 1 if any.
"""

import argparse
import collections
import sys
import tempfile
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fuzz_strategies import (  # tests/ on the path first
    BOOSTING,
    RULEFIT,
    check_charts,
    check_explorer,
    check_report,
    ensemble_property,
    fit_property,
    fitted_model,
)
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

# Examples per property at --scale 1 (the short profile runs about 155, 30,
# 400, 25, 6 and 8).
EXAMPLES = {**{name: 1000 for name in BOOSTING}, **{name: 150 for name in RULEFIT},
            "ensembles": 5000, "charts": 200, "widgets": 40, "report": 40}


def _properties(directory):
    """``{name: body(data)}``: the property each name runs on one example."""
    properties = {name: (lambda data, name=name: fit_property(name, data)) for name in BOOSTING}
    properties.update({name: (lambda data, name=name: fit_property(name, data, max_rows=300))
                       for name in RULEFIT})
    properties["ensembles"] = ensemble_property
    properties["charts"] = lambda data: check_charts(*fitted_model(data), directory)
    properties["widgets"] = lambda data: check_explorer(*fitted_model(data))
    properties["report"] = lambda data: check_report(*fitted_model(data))
    return properties


def run(name, body, max_examples, random_seed):
    """Run one property; ``(cases run, failure text or None)``."""
    cases = collections.Counter()

    @settings(max_examples=max_examples, deadline=None, database=None, print_blob=True,
              report_multiple_bugs=True, suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def check(data):
        cases["run"] += 1
        body(data)

    if random_seed is not None:
        check = seed(random_seed)(check)
    try:
        check()
    except Exception:  # noqa: BLE001 (a finding: print it, go on with the next property)
        return cases["run"], traceback.format_exc()
    return cases["run"], None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0,
                        help="multiply every property's number of examples (default 1)")
    parser.add_argument("--seed", type=int, default=None, help="hypothesis seed (default: random)")
    parser.add_argument("--only", nargs="+", choices=sorted(EXAMPLES), help="run these properties only")
    args = parser.parse_args(argv)
    total, failures = 0, {}
    with tempfile.TemporaryDirectory() as directory:
        properties = _properties(Path(directory))
        for name in args.only or EXAMPLES:
            examples = max(1, round(EXAMPLES[name] * args.scale))
            start = time.perf_counter()
            cases, failure = run(name, properties[name], examples, args.seed)
            total += cases
            status = "FAILED" if failure else "ok"
            print(f"{name:32s} {cases:6d} cases {time.perf_counter() - start:8.1f} s  {status}", flush=True)
            if failure:
                failures[name] = failure
    print(f"\n{total} cases, {len(failures)} properties failed")
    for name, failure in failures.items():
        print(f"\n=== {name} ===\n{failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
