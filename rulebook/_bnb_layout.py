"""State layout and tuning constants of the branch and bound (:mod:`rulebook._bnb_kernels`).

Slots of the integer and float state arrays, the pruning counters (the first
four are the columns of Table 2 of Boley et al. 2021), the open-list orders,
why the resumable kernel returned, and the measured thresholds of the
subtree bounds.
"""

# Orders of the open list.
BEST_FIRST, BREADTH_FIRST, DEPTH_FIRST = 0, 1, 2

# Integer state slots (``istate``).
(N_OPEN, OPEN_HEAD, N_RECORDS, AUG_USED, TIE, EXPANDED, PUSHED, EVALUATED,
 BEST_RECORD, BEST_PROP, N_ISTATE) = range(11)
# Float state slots (``fstate``).
BEST_VALUE, PRUNED_MAX, N_FSTATE = 0, 1, 2

# Pruning counters; the first four are the columns of Table 2 of [1].
(BOUND_IMMEDIATE, BOUND_PROPAGATED, EQUIV_IMMEDIATE, EQUIV_PROPAGATED,
 CRIT_REUSED, BOUND_AFTER_CHILDREN, OPEN_PRUNED, NOT_CORE, IMPLIED, BOUND_SUBTREE,
 SUBTREE_SOLVED, CLASS_TRIED, CLASS_PRUNED, COLUMNS_SOLVED, N_COUNTERS) = range(15)

# The subtree's class bound is given up once a child's rows fall into more
# than this fraction of its row count in classes. Measured (CPU s, 10 rules;
# digits5 4 rules): always computing it cut the nodes of diabetes 131k -> 37k
# and boston 832k -> 208k but slowed digits5 (wide: 266 propositions) from
# 14.9 to 19.3 s; the old rule (fewer than m / 2 classes in all the data)
# was the slowest on boston; 0.7 gave diabetes 0.47 s, boston 4.7 s,
# digits5 14.0 s against 0.73, 8.0 and 14.9.
CLASS_BOUND_MAX_FRACTION = 0.7

# The class bound is computed while it prunes: in every node for the first
# CLASS_TRIAL calls, then only while at least one call in
# CLASS_PRUNE_RATE_INV prunes its child, and else in one node in
# CLASS_SAMPLE, which keeps the rate current. Measured (session 8, 10
# rules, one thread; pruned / computed): titanic 50%, digits5 48%, gender
# recognition 42%, boston 20%, breast cancer 1.9%, diabetes 1.2%, mobile
# prices 3 in 20860 (computed in sampled nodes only), where switching it
# off took round 8 from 4.4 to 4.05 s (it and its codes for up to 64
# entries). A rate of 1% instead of 0.1% also switched it off at times on
# wine, boston, diabetes and friedman1 with 8 bins and 6 rules: 1-2.5% more
# nodes than at 0.1% there, at times within 3% (diabetes 2.6% slower).
CLASS_TRIAL = 1000
# The trial ends early when its first CLASS_TRIAL_BARREN calls pruned
# nothing (friedman1: 0 of 2,568 calls in a fit, all in the trials).
# Measured (session 26, CPU per fit, paper settings): friedman1 -4%,
# titanic +2%, diabetes unchanged; models unchanged.
CLASS_TRIAL_BARREN = 100
CLASS_PRUNE_RATE_INV = 1000
CLASS_SAMPLE = 64
# While the class bound is on, solves of at least this many entries try it
# first (titanic: 12 -5%, 10 -9% CPU a fit; friedman1: 12 -4%, but 10 +5%,
# where the bound's rare prunes kept its trial going).
CLASS_FIRST_LIST = 12

# Subtrees of a child with at most this many augmentations left, and 2^L
# at most this factor times its rows, are solved exactly (2^L sums) instead
# of bounded and pushed. Measured (10 rules, one thread): factor 16 -> 64
# cut mobile prices from 1.30M to 0.82M expansions, 25.7 -> 23.2 s, and
# left the other datasets within 5%; 14 entries (factor 64) expanded
# fewer nodes still but took as long on mobile prices and longer on
# digits5 (13.8 -> 14.6 s). Session 26, with the solves' filters (the
# sieve, the gradient floors, single precision first) and the class bound
# tried first at 12 or more entries (CLASS_FIRST_LIST): 12 -> 13 took
# friedman1 (paper settings) -4% and titanic -5% CPU a fit, diabetes,
# suicide rates and videogames within noise; 11 was 10% slower on
# friedman1, 14 and 15 about as 13 (not measured on digits5 or mobile
# prices).
EXACT_MAX_LIST = 13
EXACT_ROWS_FACTOR = 64

# The children of a node that may be solved are sieved together
# (``_bnb_subtrees._sieve_subtrees``) when there are at least this many.
SIEVE_MIN_CHILDREN = 2
SIEVE_MAX_LIST = 8

# Solves of at least this many entries test in single precision first
# (``_bnb_subtrees._may_beat``).
SINGLE_MIN_LIST = 6

# Why ``run_search`` returned.
DONE, GROW, BATCH, IMPROVED = 0, 1, 2, 3
