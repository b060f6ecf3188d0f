"""The parts of the estimators' docstrings they share (parameters,
attributes, notes, references), kept apart so that :mod:`rulebook.estimators`
holds code; the Dask estimators reuse them too.
"""

_REFERENCES = """
    References
    ----------
    .. [1] Boley, M., Teshuva, S., Le Bodic, P., Webb, G. I. (2021). Better
       short than greedy: interpretable models through optimal rule boosting.
       SIAM International Conference on Data Mining. Sections 2 and 3.
    .. [2] Yang, F., et al. (2024). Orthogonal gradient boosting for simpler
       additive rule ensembles. AISTATS.
"""

_PARAMETERS = """
    n_rules : int >= 1, default=10
        Number of boosting rounds, i.e. rules after the intercept. Boosting
        stops earlier, with a warning, when no rule can reduce the loss.
    learner : {"greedy", "optimal", "orthogonal"} or learner object, default="greedy"
        How each rule's query is chosen. ``"greedy"`` adds the best
        proposition one at a time while the objective improves;
        ``"optimal"`` finds the best query by branch and bound;
        ``"orthogonal"`` is corrective orthogonal boosting (COB, [2],
        Algorithm 1): the orthogonal objective, searched as configured in
        :class:`OrthogonalLearner`, with corrective weight updates. A
        learner object (e.g. ``GreedyLearner()``) carries learner-specific
        options.
    objective : {"second_order", "gradient_boosting", "gradient_sum", "orthogonal"}, default="second_order"
        Objective the learner maximises (see :mod:`rulebook.objectives`).
        With ``"second_order"`` and stagewise updates the rule weight is the
        closed form ``-G / (reg_lambda + H)`` (eq. 2.2 of [1]), one Newton
        step on the regularised loss of the rule's extent; where that step
        goes past the loss's minimiser (logistic and Poisson losses; a
        Poisson rule over counts above its prediction always does), and for
        the other objectives, a 1-D search finds the minimiser itself. ``"orthogonal"`` is ``obj_ogb`` of [2], eq. 14. With
        ``learner="orthogonal"`` the objective is always ``"orthogonal"``.
    search : {None, "greedy", "beam", "branch_and_bound"}, default=None
        Replaces the named learner's search strategy (for the ablations of
        [2], Section 4): ``None`` keeps it. ``"beam"`` has width 5 (pass a
        ``BeamLearner`` or ``OrthogonalLearner`` for another width);
        ``"branch_and_bound"`` is exact for the standard objectives and uses
        the paper's heuristic bound for ``"orthogonal"``. Only with a
        learner given by name.
    weight_update : {"auto", "stagewise", "corrective"}, default="auto"
        ``"stagewise"`` fixes a rule's weight when it is added ([2], eq. 3);
        ``"corrective"`` re-fits the intercept and all weights jointly after
        each rule ([2], eq. 7). ``"auto"``: corrective for the orthogonal
        objective, stagewise otherwise.
    reg_lambda : float >= 0, default=1.0
        L2 regularisation of rule weights (``lambda`` in eq. 2.1-2.3 of [1]).
        The squared loss is ``(y - f)^2`` as in [1], so the paper's values
        carry over. It is measured against the Hessian, not the target: a
        rule's weight is ``-G / (reg_lambda + H)``, ``H`` the Hessians summed
        over its extent (2 per unit of sample weight for the squared loss),
        so a target in dollars and the same in thousands of dollars give the
        same rules, with weights in their units (a test checks it). What it
        weighs against is the size of an extent: the default pulls little on
        large ones, and on small tables larger values (10-100) often test
        better; :class:`~rulebook.cv.RuleBoostingRegressorCV` and
        :class:`~rulebook.cv.RuleBoostingClassifierCV` choose it by
        cross-validation.
    max_bins : int in [2, 65535] or None, default=255
        Equal-frequency cut points per numeric column; ``None`` uses every
        distinct value.
    cut_points : dict of {str: sequence of float}, optional
        Explicit cut points for some numeric columns. Naming a column that
        is not in ``X``, or a nominal one, raises ``ValueError``.
    max_categories : int in [2, 65535] or None, default=100
        Most categories a nominal column may have; a column with more
        raises ``ValueError`` at fit, naming it, as an identifier column
        does. Its rules would be chains of ``x != c`` and categories that
        cover a few rows each. An error rather than grouping the rare
        categories into "other": a rule speaks of single values, so such a
        group could not be written as a condition, and which categories
        belong together is the user's knowledge. 100 is well above the
        nominal columns of the benchmark datasets (at most 41 categories)
        and far below a column of numbers read as text or of free text
        (thousands). Raise it for, e.g., a column of the world's ~200
        countries; ``None`` allows up to 65535.
    propositions : int >= 2, dict of {str: int} or None, default=None
        ``None``: every proposition of the bins (``x <= t`` and ``x > t``
        at each cut point, ``x == c`` and ``x != c`` per category). A
        number (or one per column) propositionalises as Boley et al. (2021)
        and their code do: ``k`` propositions per numeric column are
        ``k / 2`` equal-frequency thresholds ``c``, each giving ``x <= c``
        and ``x >= c``; nominal columns give ``x == c``. The greedy and
        optimal learners then search exactly these, so results compare
        with the paper's (see :func:`rulebook.paper_propositions.paper_cut_points`).
        Replaces ``max_bins`` and cannot be combined with ``cut_points``.
    max_rule_length : int >= 1, "auto" or None, default="auto"
        Most conditions per rule; ``None`` for no limit. A condition is all
        a rule says about one column, so ``9.35 < Fare <= 35`` (two
        propositions) is one condition, as is ``Embarked not in {C, Q}``;
        rules print in that form and complexity counts these conditions.
        Every learner honours it; ``GreedyLearner(count_refinements=True)``
        also caps the propositions (thresholds) at this number, as BOOMER's
        ``max_conditions`` does. ``"auto"`` is 2, or no limit when
        ``propositions`` reproduces the papers' settings (which have none).
        Short rules are readable and keep the optimal learner's search at
        full resolution (255 bins) within reach; ``benchmarks/bench_defaults.py``
        prints, per dataset, the time, certified rounds and test scores at
        this default.
    include_linear : bool, default=False
        Add a linear term on every numeric column, before the rules:
        RuleFit's winsorised term ``w (clip(x, lower, upper) - centre)``
        (:class:`~rulebook.linear_terms.LinearTerm`; bounds the 2.5% and
        97.5% quantiles, a missing value contributes 0), standardised
        (divided by its standard deviation) while fitting, so that
        ``reg_lambda`` shrinks every term alike whatever the column's unit.
        The terms are fitted with the intercept before the first rule; the
        stagewise weight update keeps them, the corrective one re-fits them
        with every rule, and the orthogonal learner searches only what they
        and the rules cannot fit. The model prints them after the rules,
        ``history_["term_weights"]`` holds their weights after each round.
        ``benchmarks/bench_linear_terms.py`` measures what they do to test
        scores (see ``benchmarks/README.md``).
    head : {"complete", "single"}, default="complete"
        The rule heads of a target of several outputs (classes, labels or
        regression outputs; ignored for one): ``"complete"`` gives each
        rule a weight for every output and maximises the sum over outputs
        of ``G_k^2 / (2 n (reg_lambda + H_k))``; ``"single"`` a weight for
        the one output where the rule helps most (the others 0),
        maximising the largest of these terms (BOOMER's single-label
        heads, Rapp et al. 2023, Section 2.4.2). See
        :doc:`/multi_output` for what each measures on benchmark data.
    verbose : int >= 0 or bool, default=1
        ``1`` shows a progress bar over boosting rounds once a fit has run
        for two seconds (short fits stay silent); ``0`` never shows it.
"""

_NOTES = """
    Notes
    -----
    Columns are identified by name whenever ``fit`` saw a DataFrame, whatever
    the type of its column labels (strings, or the integers of
    ``pd.DataFrame(array)``): a DataFrame passed to ``predict``,
    ``decision_function`` or ``predict_proba`` must have the columns of
    ``fit`` in the same order. Missing or unexpected columns raise a
    ``ValueError`` listing them; the same columns in another order raise
    one too, as scikit-learn does for string names, rather than being
    reordered silently or read by position. Select ``X[columns]`` in the
    order of ``fit``. Arrays are read by position.
"""

_ATTRIBUTES = """
    ensemble_ : RuleEnsemble
        The fitted model: intercept and rules with real-valued conditions.
    history_ : DataFrame
        One row per boosting round (round 0 is the intercept): the rule,
        its weight (a tuple, one per class, for a multi-class model), objective value, training loss, coverage, length,
        cumulative complexity, wall time in seconds and learner statistics.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` was a DataFrame with string column names.
"""
