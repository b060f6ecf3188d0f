"""Mutation testing of rulebook's core with Cosmic Ray: do the tests catch wrong code?

Each mutant is one small change to one module (an operator swapped, a
comparison turned, a number moved, a loop that never runs, ...), made by
Cosmic Ray's operators. The module's own test files run against it; a
failing test *kills* the mutant, a passing run lets it *survive*. The kill
rate per part of the core (``PARTS``: binning, losses, objectives, bounds,
the three searches, boosting, weights, rules, prediction, repr escaping) says
how much of its code the tests pin down.

Each part has hundreds or thousands of possible mutants, so the script draws
a seeded random sample per part (``--sample``), runs them on ``--jobs`` private copies
of the last commit (numba caches next to the source, so copies do not share
stale machine code), and re-runs every survivor of a module with numba
kernels with numba's cache off: a kernel cached by another module keeps the
code of an unmutated callee, which could hide a mutant that a cold run kills. Survivors are listed with their
diff; those known to be equivalent (no test can tell them apart: same
behaviour) carry the reason from ``EQUIVALENT`` and are left out of the
adjusted rate.

Setup (Cosmic Ray in an environment of its own; the tests run with
``--python``, the interpreter rulebook is installed in)::

    python3 -m venv ~/cr-venv && ~/cr-venv/bin/pip install cosmic-ray==8.7.0
    ~/cr-venv/bin/python benchmarks/mutation.py --python .venv/bin/python
    ~/cr-venv/bin/python benchmarks/mutation.py --python ... --parts losses boosting --sample 10

Outputs under ``--out``: ``mutants.csv`` (one row per mutant: part, module,
operator, line, outcome, seconds, diff) and ``summary.txt`` (the table and
the survivors), rewritten after every mutant. Each part's sample is seeded
by the part's name, so ``--parts X`` re-measures the same mutants of X (after
new tests, say); ``--retest a/mutants.csv --parts X`` re-runs only the
survivors of X in an earlier run (its killed rows are kept: tests were only
added; a survivor is found again by the change it makes, should edits above
it have renumbered the module's mutants); and ``--merge a/mutants.csv
b/mutants.csv --out c`` combines runs, each part from the last file holding
it::

    ~/cr-venv/bin/python benchmarks/mutation.py --merge run1/mutants.csv rerun/mutants.csv \
        --out merged
"""
import argparse
import concurrent.futures
import csv
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from cosmic_ray.ast import ast_nodes, get_ast_from_path
from cosmic_ray.mutating import use_mutation
from cosmic_ray.plugins import get_operator, operator_names

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

# The core, as the parts the tests are organised by: the modules of each
# part (its mutants are drawn from all of them together) and its test files.
PARTS = {
    # test_hygiene.py checks binning's row-identifier warning.
    "binning": (["binning", "paper_propositions"],
                ["tests/test_binning.py", "tests/test_binning_limits.py",
                 "tests/test_paper_propositions.py", "tests/test_propositions_option.py",
                 "tests/test_hygiene.py"]),
    "losses": (["losses"], ["tests/test_losses.py"]),
    "objectives": (["objectives"], ["tests/test_objectives.py"]),
    "bounds": (["_bound_kernels"], ["tests/test_bounds.py"]),
    "greedy search": (["greedy", "_search_kernels"],
                      ["tests/test_search_kernels.py", "tests/test_greedy.py",
                       "tests/test_canonical.py"]),
    "optimal search": (["optimal", "bnb_search", "_bnb_kernels", "_bnb_extents", "_bnb_subtrees",
                        "_bnb_columns", "_bnb_layout"],
                       # test_bounds.py checks _bnb_extents' fused child evaluation,
                       # implications and critical indices against their definitions.
                       ["tests/test_optimal.py", "tests/test_subtree_kernels.py",
                        "tests/test_bounds.py"]),
    "orthogonal search": (["orthogonal", "_orthogonal_kernels", "_orthogonal_bnb_kernels"],
                          ["tests/test_orthogonal.py", "tests/test_orthogonal_bnb.py"]),
    # test_search_kernels.py tests search.SearchProblem (its splits, histograms
    # and the rows x features from which they go parallel).
    "boosting": (["boosting", "search"], ["tests/test_estimators.py", "tests/test_corrective.py",
                                          "tests/test_search_kernels.py",
                                          "tests/test_boosting_loop.py",
                                          "tests/test_boosting_base_terms.py"]),
    # test_boosting_base_terms.py runs the corrective update (with and
    # without base columns) against the optimum's zero gradient.
    "weights": (["weight_updates", "corrective"],
                ["tests/test_corrective.py", "tests/test_estimators.py",
                 "tests/test_boosting_base_terms.py"]),
    "rules": (["rules"], ["tests/test_rules.py"]),
    "prediction": (["_predict"], ["tests/test_predict.py"]),
    "repr escaping": (["_repr_html", "_formatting"],
                      ["tests/test_repr.py", "tests/test_repr_history_head.py",
                       "tests/test_text_safety.py"]),
}

# Not sampled: removing ``@kernel``/``@njit`` runs the same function in
# Python (equivalent by construction); the variable operators need a
# hand-written list of variables per module.
EXCLUDED_OPERATORS = ("core/RemoveDecorator", "core/VariableReplacer", "core/VariableInserter")

# Survivors that no test can kill, keyed by (module, the source line as it
# reads before and after the mutation, stripped): why they are equivalent.
# The line after, not the operator: one operator makes several mutants of a
# line (each number of ``a, b = 0.0, 0.0`` in turn), not all equivalent.
EQUIVALENT: dict[tuple[str, str, str], str] = {
    ("losses", "p = np.clip(_weighted_mean(y > 0, sample_weight), 1e-12, 1 - 1e-12)",
     "p = np.clip(_weighted_mean(y > -1, sample_weight), 1e-12, 1 - 1e-12)"):
        "the logistic loss holds labels as -1/+1: y > 0 and y > -1 select the same rows",
    ("losses", "p = np.clip(_weighted_mean(y > 0, sample_weight), 1e-12, 1 - 1e-12)",
     "p = np.clip(_weighted_mean(y >= 0, sample_weight), 1e-12, 1 - 1e-12)"):
        "the logistic loss holds labels as -1/+1: y > 0 and y >= 0 select the same rows",
    ("binning", "if len(present) and np.all(weights == weights[0]):",
     "if len(present) and np.all(weights == weights[ -1]):"):
        "all weights equal the first one exactly when they all equal the last one",
    ("objectives", "if code == 1:", "if code <= 1:"):
        "_objective returns for code 0 just above, and codes are 0, 1, 2: past that return "
        "code <= 1 holds exactly when code == 1",
    ("boosting", "if B is None or B.shape[1] == 0:", "if B is None or B.shape[1] == -1:"):
        "a shortcut: with no base column the mutant runs corrective_weights on zero columns "
        "from start (baseline, ()), and the baseline is the exact minimiser of the "
        "intercept-only risk (weighted mean, its log-odds, its log), so the Newton fit returns "
        "its start (tests/test_boosting_loop.py checks the intercept to the last bit)",
    ("boosting", "rows = np.flatnonzero(weights > 0)", "rows = np.flatnonzero(weights != 0)"):
        "sample weights reach the loop checked non-negative (_validation.check_sample_weight "
        "refuses negative ones), so != 0 and > 0 select the same rows",
    ("boosting", "if (progress <= _STOP_TOLERANCE * gradient_scale or not result.value > 0",
     "if (progress <= _STOP_TOLERANCE * gradient_scale or not result.value >= 0"):
        "a round's value is never negative (every objective is a square or an absolute value "
        "over a positive denominator) and NaN fails both tests; a value of exactly 0 means "
        "G = 0 on the extent (or, orthogonal, progress = value = 0), which the progress test "
        "already stops on",
    ("boosting", 'return f"{n / size:.2g}{suffix}" if n < 10 * size else f"{n / size:.0f}{suffix}"',
     'return f"{n / size:.2g}{suffix}" if n < 11 * size else f"{n / size:.0f}{suffix}"'):
        "for n / size in [10, 11) both formats print the value rounded to an integer (two "
        "significant digits of a two-digit number), half to even alike",
    ("_bound_kernels", "rp, rn, cp, cn = 0.0, 0.0, 0.0, 0.0",
     "rp, rn, cp, cn = 0.0, 0.0, 1.0, 0.0"):
        "cp starts the weight of the h == 0 rows of g > 0 that each singleton set adds its "
        "row's weight c[r] to; the second-order objective reads C only as C > 0, and every "
        "row a search holds has c[r] > 0 (the loop keeps rows of positive weight only), so "
        "cp + c[r] > 0 from any start >= 0",
    ("_bnb_columns", "keys[n] = _ratio_key(sums[0, k], sums[2, k] if code == 1 else",
     "keys[n] = _ratio_key(sums[0, k], sums[2, k] if code <= 1 else"):
        "only code 0 (|G|) changes, and it reads the keys only through their order: -g/c and "
        "-g/1 both have the sign of -g (c > 0 for a category with rows, g = c = 0 without; "
        "_ratio_key maps w = 0 to the sign's limit), so both orders put the categories of "
        "positive, zero, then negative gradient sum in that sequence. The best |G| over the "
        "proper sets tried is that of the positives or the negatives (a prefix in either "
        "direction of either order) or of all but one category (tried for each, in both), so "
        "the value found is the same; only which of several sets of exactly equal value is "
        "kept may differ, which the kernel leaves unspecified (its sort of tied keys is not "
        "stable). tests/test_subtree_kernels.py's brute-force check of _best_category_set "
        "passes on the mutant",
    ("_orthogonal_bnb_kernels", "best_condition = np.zeros(3, np.int64)",
     "best_condition = np.zeros( 4, np.int64)"):
        "best_condition, local to the search kernel, is only written and read through its "
        "first three entries (_copy(condition, 3, best_condition, 0) and _copy(best_condition, "
        "3, out[best_depth - 1], 0) in _conditions); a fourth entry is never touched",
}


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--parts", nargs="+", choices=list(PARTS), default=list(PARTS))
    parser.add_argument("--sample", type=int, default=15, help="mutants per part (default 15)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2, help="copies run side by side (default 2)")
    parser.add_argument("--python", default=sys.executable,
                        help="interpreter with rulebook's test dependencies (default: this one)")
    parser.add_argument("--timeout-factor", type=float, default=4.0,
                        help="a run longer than this times the clean run counts as killed")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "mutation")
    parser.add_argument("--commit", default="HEAD",
                        help="the commit whose rulebook/ and tests/ are mutated (default HEAD)")
    parser.add_argument("--retest", type=Path, metavar="CSV",
                        help="re-run only the survivors of an earlier run's mutants.csv (of "
                             "--parts) at --commit, after new tests; its killed rows are kept")
    parser.add_argument("--merge", nargs="+", metavar="CSV[=PART,...]",
                        help="run nothing: merge the mutants.csv of earlier runs (a part's rows "
                             "from the last file that has the part; =PART,... takes only those "
                             "parts of a file), re-read EQUIVALENT, and write the merged table "
                             "and survivors to --out")
    return parser.parse_args()


def module_path(name):
    return Path("rulebook") / f"{name}.py"


def enumerate_mutants(part, rng, size, root):
    """The part's count of mutants in the tree ``root`` and a seeded sample of
    ``size``: (module, operator, occurrence)."""
    specs = []
    for name in PARTS[part][0]:
        nodes = list(ast_nodes(get_ast_from_path(root / module_path(name))))  # parse once
        for operator_name in operator_names():
            if operator_name in EXCLUDED_OPERATORS:
                continue
            operator = get_operator(operator_name)()
            count = sum(1 for node in nodes for _ in operator.mutation_positions(node))
            specs += [(name, operator_name, occurrence) for occurrence in range(count)]
    chosen = rng.sample(specs, min(size, len(specs)))
    return len(specs), sorted(chosen)


class Copies:
    """``jobs`` private copies of the checkout, handed out one at a time."""

    def __init__(self, jobs, root, commit="HEAD"):
        self.free = []
        self.lock = threading.Lock()
        for index in range(jobs):
            # A committed tree (HEAD by default), not the working tree:
            # mutants of code that is half edited would measure nothing.
            target = root / f"copy{index}"
            target.mkdir()
            archive = subprocess.run(["git", "archive", commit, "rulebook", "tests"], cwd=REPO,
                                     check=True, capture_output=True).stdout
            subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
            self.free.append(target)

    def take(self):
        with self.lock:
            return self.free.pop()

    def give(self, copy):
        with self.lock:
            self.free.append(copy)


def run_tests(python, copy, tests, timeout, cache=True):
    """Run ``tests`` in ``copy``; ``(outcome, seconds, output tail)``."""
    env = {**os.environ, "PYTHONPATH": str(copy), "PYTHONDONTWRITEBYTECODE": "1",
           "RULEBOOK_NUMBA_CACHE": "1" if cache else "0", "NUMBA_NUM_THREADS": "1"}
    command = [python, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests]
    start = time.perf_counter()
    try:
        done = subprocess.run(command, cwd=copy, env=env, capture_output=True, text=True,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return "killed (timeout)", time.perf_counter() - start, "timeout"
    seconds = time.perf_counter() - start
    outcome = "survived" if done.returncode == 0 else "killed"
    return outcome, seconds, (done.stdout + done.stderr)[-2000:]


def test_mutant(spec, copies, python, tests, timeout):
    """Apply one mutant in a free copy, run its tests, restore; the row of results."""
    copy = copies.take()
    try:
        name, operator_name, occurrence = spec
        target = copy / module_path(name)
        with use_mutation(target, get_operator(operator_name)(), occurrence) as (original, mutated):
            if mutated is None:
                return None
            line = _changed_line(original, mutated)
            outcome, seconds, tail = run_tests(python, copy, tests, timeout)
            if outcome == "survived" and _has_kernels(original):
                # A kernel cached in another module may hide the mutant: check cold.
                outcome, more, tail = run_tests(python, copy, tests, timeout * 4, cache=False)
                seconds += more
        return {"module": name, "operator": operator_name, "occurrence": occurrence,
                "line": line[0], "before": line[1], "after": line[2],
                "outcome": outcome, "seconds": round(seconds, 1),
                "output": tail if outcome == "survived" else ""}
    finally:
        copies.give(copy)


def _has_kernels(source):
    return "@kernel" in source or "njit" in source


def _changed_line(original, mutated):
    """(line number, line before, line after) of the first difference."""
    before, after = original.splitlines(), mutated.splitlines()
    for number, (old, new) in enumerate(zip(before, after), start=1):
        if old != new:
            return number, old.strip(), new.strip()
    return len(before), "", ""


def summarise(rows):
    """The per-part table and the survivors' list, as text."""
    lines = [(f"{'part':<20}{'mutants':>8}{'sampled':>8}{'killed':>8}{'survived':>9}"
              f"{'equiv.':>7}{'kill rate':>10}{'w/o equiv.':>11}")]
    by_part = {}
    for row in rows:
        by_part.setdefault(row["part"], []).append(row)
    totals = [0, 0, 0]
    for part, group in by_part.items():
        killed = sum(row["outcome"].startswith("killed") for row in group)
        equivalent = sum(bool(row["equivalent"]) for row in group if row["outcome"] == "survived")
        lines.append(_rate_line(part, group[0]["mutants"], len(group), killed, equivalent))
        totals = [totals[0] + len(group), totals[1] + killed, totals[2] + equivalent]
    if totals[0]:
        lines.append(_rate_line("all", "", *totals))
    survivors = [row for row in rows if row["outcome"] == "survived"]
    lines += ["", f"Survivors ({len(survivors)}):"]
    for row in survivors:
        why = f"\n    equivalent: {row['equivalent']}" if row["equivalent"] else ""
        lines.append(f"- [{row['part']}] {row['module']}.py:{row['line']} {row['operator']}"
                     f"\n    - {row['before']}\n    + {row['after']}{why}")
    return "\n".join(lines)


def _rate_line(part, mutants, sampled, killed, equivalent):
    survived = sampled - killed
    adjusted = killed / max(1, sampled - equivalent)
    return (f"{part:<20}{mutants:>8}{sampled:>8}{killed:>8}{survived:>9}{equivalent:>7}"
            f"{killed / sampled:>10.0%}{adjusted:>11.0%}")


def write(rows, out):
    out.mkdir(parents=True, exist_ok=True)
    fields = ["part", "module", "mutants", "operator", "occurrence", "line", "before", "after",
              "outcome", "seconds", "equivalent", "output"]
    with open(out / "mutants.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
    (out / "summary.txt").write_text(summarise(rows) + "\n")


def survivors_of(path, parts):
    """The rows of an earlier run (of ``parts``): those not survived, and the survivors."""
    with open(path, newline="") as handle:
        rows = [row for row in csv.DictReader(handle) if row["part"] in parts]
    for row in rows:
        row["line"], row["occurrence"] = int(row["line"]), int(row["occurrence"])
    return ([row for row in rows if row["outcome"] != "survived"],
            [row for row in rows if row["outcome"] == "survived"])


def relocate(row, root):
    """The spec of an earlier run's mutant ``row`` in the tree ``root``.

    A mutant is its module, operator and occurrence, and an edit above it
    renumbers the occurrences: so the occurrence making the same change (the
    line before and after) as ``row``, its own if it still does, else the
    one nearest its line. None when no occurrence does (the line was
    rewritten): that mutant no longer exists.
    """
    name, operator_name = row["module"], row["operator"]
    path = root / module_path(name)
    operator = get_operator(operator_name)()
    count = sum(1 for node in ast_nodes(get_ast_from_path(path))
                for _ in operator.mutation_positions(node))
    candidates = sorted(range(count), key=lambda k: k != row["occurrence"])  # its own first
    found = []
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp) / path.name
        for occurrence in candidates:
            shutil.copyfile(path, scratch)
            with use_mutation(scratch, operator, occurrence) as (original, mutated):
                if mutated is None:
                    continue
                line = _changed_line(original, mutated)
            if (line[1], line[2]) == (row["before"], row["after"]):
                if occurrence == row["occurrence"]:
                    return name, operator_name, occurrence
                found.append((abs(line[0] - row["line"]), occurrence))
    return (name, operator_name, min(found)[1]) if found else None


def merge(paths, out):
    """The rows of several runs' ``mutants.csv``, each part from the last run measuring it."""
    by_part = {}
    for entry in paths:
        path, _, only = entry.partition("=")
        with open(path, newline="") as handle:
            rows = list(csv.DictReader(handle))
        parts = {row["part"] for row in rows} & (set(only.split(",")) if only else set(PARTS))
        by_part.update({part: [row for row in rows if row["part"] == part] for part in parts})
    rows = []
    for part in sorted(by_part, key=list(PARTS).index):
        for row in by_part[part]:
            row["line"] = int(row["line"])
            row["equivalent"] = EQUIVALENT.get((row["module"], row["before"], row["after"]), "")
            rows.append(row)
    write(rows, out)
    print(summarise(rows))


def main():
    args = parse_args()
    if args.merge:
        merge(args.merge, args.out)
        return
    rows, lock = [], threading.Lock()
    order = lambda row: (row["part"], row["module"], row["line"])
    earlier = {}  # retest: (part, spec now) -> the earlier survivor's row
    if args.retest:
        rows, survivors = survivors_of(args.retest, args.parts)
    with tempfile.TemporaryDirectory(prefix="rulebook-mutation-") as tmp:
        copies = Copies(args.jobs, Path(tmp), args.commit)
        # Mutants of the committed modules (the working tree may differ). A
        # generator per part, seeded by the part's name: ``--parts X`` draws
        # the same mutants of X as the full run, so a part can be re-measured.
        plan = {part: enumerate_mutants(part, random.Random(f"{args.seed}:{part}"), args.sample,
                                        copies.free[0])
                for part in args.parts}
        if args.retest:  # the earlier survivors only, as (count, specs) per part
            specs = {part: [] for part in args.parts}
            for row in survivors:
                spec = relocate(row, copies.free[0])
                if spec is None:
                    row["equivalent"] = EQUIVALENT.get((row["module"], row["before"],
                                                        row["after"]), "")
                    rows.append(row)  # kept as it was measured
                    print(f"  {row['part']}: {row['module']}.py:{row['line']} "
                          f"{row['operator']}: no longer in the module, kept as measured",
                          flush=True)
                    continue
                specs[row["part"]].append(spec)
                earlier[(row["part"], *spec)] = row
            plan = {part: (plan[part][0], specs[part]) for part in args.parts}
        timeouts = {}
        for part in args.parts:  # clean runs: the tests must pass; warms each copy's cache
            tests = PARTS[part][1]
            results = [run_tests(args.python, copy, tests, None) for copy in list(copies.free)]
            if any(outcome != "survived" for outcome, _, _ in results):
                sys.exit(f"the tests of {part} fail without a mutant:\n{results[0][2]}")
            timeouts[part] = args.timeout_factor * max(seconds for _, seconds, _ in results) + 30
            print(f"{part}: {plan[part][0]} mutants, {len(plan[part][1])} sampled, clean run "
                  f"{min(seconds for _, seconds, _ in results):.0f} s", flush=True)

        def one(part, spec):
            row = test_mutant(spec, copies, args.python, PARTS[part][1], timeouts[part])
            if row is None:
                return
            row.update(part=part, mutants=plan[part][0])
            before = earlier.get((part, *spec))
            if before is not None and (before["before"], before["after"]) != (row["before"],
                                                                              row["after"]):
                # Not the earlier mutant after all (relocate found it by its
                # first changed line): the earlier survivor stays as measured.
                row = before
            row["equivalent"] = EQUIVALENT.get((row["module"], row["before"], row["after"]), "")
            with lock:
                rows.append(row)
                write(sorted(rows, key=order), args.out)
                print(f"  {part}: {row['module']}.py:{row['line']} {row['operator']}: "
                      f"{row['outcome']} ({row['seconds']} s)", flush=True)

        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            futures = [pool.submit(one, part, spec) for part in args.parts
                       for spec in plan[part][1]]
            for future in concurrent.futures.as_completed(futures):
                future.result()
    print("\n" + summarise(sorted(rows, key=order)))


if __name__ == "__main__":
    main()
