import os
if os.environ.get("GC_FACTOR"):
    import numpy as np
    import rulebook.greedy as G
    from rulebook import pair_search, multi_output_search
    from rulebook.search import SearchResult
    FACTOR = float(os.environ.get("GC_FACTOR", "0"))
    FIRST = os.environ.get("GC_FIRST", "free")

    def priced_greedy(problem, max_refinements=None):
        multi = hasattr(problem, "single_head")
        cost = (multi_output_search if multi else pair_search).condition_cost_of(problem, FACTOR) if FACTOR > 0 else 0.0
        rows = problem.rows
        value = problem.extent_value(rows)
        conditions = []
        n_scored = n_steps = 0
        limit = problem.max_rule_length or np.inf
        hist, owned = problem.search_histograms(rows)
        used = np.zeros(len(problem.n_bins), bool)
        n_used = 0
        steps = np.inf if max_refinements is None else max_refinements
        while len(rows) > 1 and len(conditions) < steps:
            values, ops, bins = problem.best_refinements(hist, len(rows))
            n_steps += 1
            if n_used >= limit:
                values = np.where(used, values, -np.inf)
            j = G._first_best(values)
            price = 0.0 if (not conditions and FIRST == "free") else cost
            if not values[j] > value + price:
                break
            condition = (j, int(ops[j]), int(bins[j]))
            conditions.append(condition)
            n_used += not used[j]
            used[j] = True
            rows, removed = problem.split(rows, condition)
            hist = problem.refined_histograms(hist, rows, removed, owned,
                                              np.flatnonzero(used) if n_used >= limit else None)
            owned = True
            value = float(values[j])
        return SearchResult(tuple(conditions), value, rows, {"n_refinements": n_scored, "n_steps": n_steps})

    G.greedy_search = priced_greedy
