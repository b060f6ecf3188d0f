"""Session 27: put on PYTHONPATH with GC_FACTOR=f to run a benchmark's greedy learner
with GreedyLearner(condition_cost=f) in place of its default (bench_defaults.py runs its
fits in child processes, which import this module first). The run itself copied
greedy_search's loop with the price; the option does the same since 553acbd."""
import os

if os.environ.get("GC_FACTOR"):
    import rulebook.greedy as G

    _search = G.GreedyLearner.search

    def _priced_search(self, problem):
        priced = G.GreedyLearner(self.shorten, self.count_refinements,
                                 float(os.environ["GC_FACTOR"]))
        return _search(priced, problem)

    G.GreedyLearner.search = _priced_search
