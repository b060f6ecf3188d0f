"""Explanations of single predictions: which rules make a row's score.

A rule ensemble ``f(x) = b + sum_k w_k q_k(x) + sum_j w_j l_j(x_j)``
explains itself exactly: the raw score of a row is the intercept ``b`` plus
the weight of each rule whose query holds on the row plus the contribution
of each linear term. :func:`explain` lists those terms, one line each, as
a tidy DataFrame; :func:`explain_row` wraps one row's lines in an
:class:`Explanation` that a notebook shows as a waterfall of contributions.

Per-feature views follow RuleFit's input variable importance (Friedman and
Popescu 2008, Section 6, eq. 36): a column gets its linear term and an
equal share of each rule on it. Two readings, both per row:

* :func:`feature_contributions`, *signed* and against the intercept: the
  shares of ``w_k q_k(x)`` and the term ``w_j l_j(x_j)``, so that a row's
  feature contributions add up, with the intercept, to its raw score;
  :func:`feature_importances` averages their absolute values over rows.
* :func:`local_importances`, the paper's ``J_j(x) = I_j(x) + sum_k I_k(x) /
  m_k`` with ``I_k(x) = |w_k| |q_k(x) - s_k|`` and ``I_j(x) = |b_j| |l_j(x_j)
  - mean(l_j)|``: unsigned and against the *average* training row (``s_k``
  the rule's coverage); ``feature_importances(..., kind="rulefit")``
  averages them over rows. Their root mean square over the training rows
  is the global ``I_k`` and ``I_j`` of :mod:`rulebook.rulefit`.

References
----------
.. [1] Friedman, J. H., Popescu, B. E. (2008). Predictive learning via rule
   ensembles. The Annals of Applied Statistics 2(3), 916-954. Section 6
   (rule and input variable importance, local and global).
"""

import numpy as np
import pandas as pd

from ._formatting import format_number, format_weight
from ._predict import check_single_output, reads_by_name, term_values
from .losses import get_loss

KINDS = ("intercept", "rule", "term", "total")
COLUMNS = ("row", "kind", "rule", "condition", "applies", "weight", "contribution", "cumulative",
           "prediction")


def _row_labels(X):
    """The row labels of ``X``: its index for a DataFrame, positions otherwise."""
    return X.index if isinstance(X, pd.DataFrame) else pd.RangeIndex(len(X))


def explain(ensemble, X, *, all_rules=False):
    """Each row's raw score as the sum of its terms, in a tidy long frame.

    For every row of ``X``, in order: one ``"intercept"`` line, one
    ``"rule"`` line per rule that applies to the row (in the ensemble's
    order), one ``"term"`` line per linear term whose column the row has,
    then one ``"total"`` line with the raw score and the prediction. Rules
    that do not apply, and terms whose value is missing, contribute nothing
    and are left out, unless ``all_rules=True``.

    Parameters
    ----------
    ensemble : RuleEnsemble
    X : DataFrame or array-like of shape (n_samples, n_features)
        Columns are found as in :meth:`RuleEnsemble.decision_function`.
    all_rules : bool, default=False
        Keep a line for every rule and term on every row, with
        ``applies=False`` and a contribution of 0 where the rule does not
        apply or the term's value is missing.

    Returns
    -------
    DataFrame of shape (n_lines, 9)
        ``n_lines = n_samples * (2 + rules applying + terms present)``, or
        ``n_samples * (2 + n_rules + n_terms)`` with ``all_rules``; a
        RangeIndex. Columns:

        * ``row``: the row's label in ``X`` (its index; the position for
          an array), dtype of the index;
        * ``kind`` (object, str values): ``"intercept"``, ``"rule"``,
          ``"term"`` or ``"total"``;
        * ``rule`` (Int64): the rule's rank, 1-based as in
          :meth:`RuleEnsemble.to_frame` (``ensemble[rule - 1]``); on a term
          line the term's, as in :meth:`RuleEnsemble.terms_frame`
          (``ensemble.terms[rule - 1]``); ``<NA>`` on intercept and total
          lines;
        * ``condition`` (object): the rule's query as text (str),
          ``str(rule.query)`` (``"True"`` for a rule without conditions),
          or the term's ``expression()``, ``"(clip(Age, 1, 65) - 29.7)"``;
          None on intercept and total lines;
        * ``applies`` (bool): whether the rule's query holds on the row, or
          the term's column has a value (True on intercept and total lines);
        * ``weight`` (float64): the rule's weight, the term's weight per
          unit of its column, the intercept on the intercept line, NaN on
          the total line;
        * ``contribution`` (float64): what the line adds to the raw score:
          the intercept, the weight of a rule that applies, 0 for one that
          does not, ``weight * (clip(x, lower, upper) - centre)`` for a
          term (0 where ``x`` is missing); NaN on the total line, so that
          summing a row's contributions (NaN skipped) gives its raw score;
        * ``cumulative`` (float64): the raw score so far, the intercept
          plus the contributions of the lines above; on the total line the
          row's raw score, equal to ``ensemble.decision_function(X)`` to
          the last bit (the terms are added in the same order);
        * ``prediction`` (float64): ``cumulative`` through the loss's
          inverse link (the probability of the positive class for the
          logistic loss, ``exp`` for Poisson); on the total line, equal to
          ``ensemble.predict(X)``.

    Raises
    ------
    ValueError
        As :meth:`RuleEnsemble.decision_function`: ``X`` lacks a column the
        rules use.

    See Also
    --------
    explain_row : one row's lines, shown as a waterfall in a notebook.
    feature_contributions : the same terms shared among the features.

    Notes
    -----
    Only the rules that apply change a row's score, so they alone explain
    it; a rule left out is one whose conditions the row fails (a missing
    value fails every condition). This is the local view of Friedman and
    Popescu ([1]_, Section 6) without their centring: they measure a
    rule's local importance as ``|w_k| |q_k(x) - s_k|``, against the
    average row, whereas here a contribution is against the intercept, so
    that the terms add up to the score.

    References
    ----------
    .. [1] Friedman, J. H., Popescu, B. E. (2008). Predictive learning via
       rule ensembles. The Annals of Applied Statistics 2(3), 916-954.
       Section 6.

    Examples
    --------
    >>> import pandas as pd
    >>> from rulebook import Proposition, Query, Rule, RuleEnsemble
    >>> rule = Rule(Query((Proposition("Age", "<=", 19.0),)), 2.5)
    >>> model = RuleEnsemble(1.0, (rule,))
    >>> lines = explain(model, pd.DataFrame({"Age": [10, 30]}, index=["ann", "bob"]))
    >>> lines[["row", "kind", "rule", "contribution", "cumulative"]]
       row       kind  rule  contribution  cumulative
    0  ann  intercept  <NA>           1.0         1.0
    1  ann       rule     1           2.5         3.5
    2  ann      total  <NA>           NaN         3.5
    3  bob  intercept  <NA>           1.0         1.0
    4  bob      total  <NA>           NaN         1.0
    >>> lines["condition"].iloc[1]
    'Age <= 19'
    >>> lines.groupby("row")["contribution"].sum().tolist()  # the raw scores
    [3.5, 1.0]
    """
    check_single_output(ensemble, "explain")
    covered = ensemble.query_matrix(X)
    values = term_values(ensemble, X, reads_by_name(ensemble, X))
    n, n_rules = covered.shape
    n_items = n_rules + len(ensemble.terms)
    weights = np.array([item.weight for item in ensemble.rules + ensemble.terms], dtype=np.float64)
    # One grid of lines per row: intercept, the rules, the terms, total;
    # then keep the lines shown. Cumulative sums run left to right from the
    # intercept, the order decision_function adds in, so the totals are its bits.
    terms = np.empty((n, n_items + 1), dtype=np.float64)
    terms[:, 0] = ensemble.intercept
    terms[:, 1:n_rules + 1] = np.where(covered, weights[:n_rules], 0.0)
    for j, term in enumerate(ensemble.terms):
        terms[:, n_rules + 1 + j] = term.contribution(values[:, j])
    cumulative = np.cumsum(terms, axis=1)
    grid = (n, n_items + 2)
    applies = np.ones(grid, dtype=bool)
    applies[:, 1:-1] = np.column_stack([covered, ~np.isnan(values)])
    keep = applies if not all_rules else np.ones(grid, dtype=bool)
    contribution = np.column_stack([terms, np.full(n, np.nan)])
    running = np.column_stack([cumulative, cumulative[:, -1]])
    weight = np.broadcast_to(np.concatenate([[ensemble.intercept], weights, [np.nan]]), grid)
    kinds = np.array(["intercept"] + ["rule"] * n_rules + ["term"] * len(ensemble.terms) + ["total"],
                     dtype=object)
    texts = np.array([None] + [str(rule.query) for rule in ensemble.rules]
                     + [term.expression() for term in ensemble.terms] + [None], dtype=object)
    column = np.broadcast_to(np.arange(n_items + 2), grid)[keep]
    running = running[keep]
    return pd.DataFrame({
        "row": _row_labels(X).repeat(keep.sum(axis=1)),
        # object, whatever the pandas version and the values (all None
        # when no rule applies): one dtype for every call.
        "kind": pd.Series(kinds[column], dtype=object),
        # Terms are numbered among the terms, as in terms_frame.
        "rule": pd.arrays.IntegerArray(np.where(column > n_rules, column - n_rules, column).astype(np.int64),
                                       (column == 0) | (column > n_items)),
        "condition": pd.Series(texts[column], dtype=object),
        "applies": applies[keep],
        "weight": weight[keep],
        "contribution": contribution[keep],
        "cumulative": running,
        "prediction": get_loss(ensemble.loss).inverse_link(running),
    })


class Explanation:
    """One row's explanation: its lines of :func:`explain`, shown as a waterfall.

    Made by :func:`explain_row`. In a notebook it shows as a table of its
    terms with a waterfall of bars (HTML and CSS only); ``str()`` gives the
    same as text; :attr:`frame` is the data.

    Parameters
    ----------
    frame : DataFrame
        The row's lines, as :func:`explain` returns them (one ``row``).
    loss : str
        The ensemble's loss (names the prediction's scale).
    n_rules : int
        Rules in the ensemble (the lines may show fewer: those that apply).
    n_terms : int, default=0
        Linear terms in the ensemble.

    Attributes
    ----------
    frame : DataFrame
    loss : str
    n_rules : int
    n_terms : int
    """

    def __init__(self, frame, loss, n_rules, n_terms=0):
        self.frame = frame
        self.loss = loss
        self.n_rules = int(n_rules)
        self.n_terms = int(n_terms)

    @property
    def row(self):
        """The row's label in ``X`` (a NumPy scalar as the Python value it holds)."""
        label = self.frame["row"].iloc[0]
        return label.item() if isinstance(label, np.generic) else label

    @property
    def raw_score(self):
        """The raw score ``f(x)`` (float)."""
        return float(self.frame["cumulative"].iloc[-1])

    @property
    def prediction(self):
        """The prediction: the raw score through the inverse link (float)."""
        return float(self.frame["prediction"].iloc[-1])

    @property
    def n_applying(self):
        """Rules whose query holds on the row (int)."""
        rules = self.frame[self.frame["kind"] == "rule"]
        return int(rules["applies"].sum())

    def to_frame(self):
        """The row's lines (a copy), as :func:`explain` gives them."""
        return self.frame.copy()

    def __str__(self):
        lines = self.frame
        labels = [_text_label(kind, rule, condition, weight) for kind, rule, condition, weight in
                  zip(lines["kind"], lines["rule"], lines["condition"], lines["weight"])]
        values = [format_weight(c) if kind != "total" else format_number(t)
                  for kind, c, t in zip(lines["kind"], lines["contribution"], lines["cumulative"])]
        width = max(map(len, values))
        body = [f"{v:>{width + 2}}  {label}" for v, label in zip(values, labels)]
        return "\n".join([self._title()] + body)

    def _title(self):
        terms = f", {self.n_terms} linear terms" if self.n_terms else ""
        return (f"row {self.row!r}: raw score {format_number(self.raw_score)}, "
                f"{_prediction_name(self.loss)} {format_number(self.prediction)} "
                f"({self.n_applying} of {self.n_rules} rules apply{terms})")

    def __repr__(self):
        return f"<Explanation>\n{self}"

    def _repr_html_(self):
        """Waterfall of the contributions; None (text repr) with set_options(display="text")."""
        from ._explain_html import explanation_repr_html

        return explanation_repr_html(self)


def _text_label(kind, rule, condition, weight):
    if kind == "intercept":
        return "(intercept)"
    if kind == "total":
        return "= raw score"
    if kind == "term":
        return f"{format_weight(weight)} * {condition}"
    return f"{rule}. if {condition}"


def _prediction_name(loss):
    """What the prediction is on ``loss``'s scale."""
    return {"logistic": "probability", "poisson": "mean"}.get(loss, "prediction")


def explain_row(ensemble, X, row=0, *, all_rules=False):
    """The explanation of one row of ``X``, shown as a waterfall in a notebook.

    Parameters
    ----------
    ensemble : RuleEnsemble
    X : DataFrame or array-like of shape (n_samples, n_features)
    row : int, default=0
        The row's position in ``X`` (as ``X.iloc[row]``; negative counts
        from the end), not its label.
    all_rules : bool, default=False
        As in :func:`explain`.

    Returns
    -------
    Explanation
        Its ``frame`` holds the row's lines of :func:`explain`.

    Raises
    ------
    IndexError
        If ``row`` is not a position in ``X``.
    ValueError
        As :func:`explain`.

    Examples
    --------
    >>> import pandas as pd
    >>> from rulebook import Proposition, Query, Rule, RuleEnsemble
    >>> rule = Rule(Query((Proposition("Age", "<=", 19.0),)), 2.5)
    >>> model = RuleEnsemble(-1.0, (rule,), loss="logistic")
    >>> print(explain_row(model, pd.DataFrame({"Age": [10, 30]})))
    row 0: raw score 1.5, probability 0.81757 (1 of 1 rules apply)
        -1  (intercept)
      +2.5  1. if Age <= 19
       1.5  = raw score
    """
    check_single_output(ensemble, "explain_row")
    n = len(X)
    if isinstance(row, (bool, np.bool_)) or not isinstance(row, (int, np.integer)):
        raise IndexError(f"row must be an integer position in X; got {row!r}.")
    if not -n <= row < n:
        raise IndexError(f"row {row} is out of range for X with {n} rows.")
    position = [int(row) % n]
    one = X.iloc[position] if isinstance(X, pd.DataFrame) else np.asarray(X)[position]
    frame = explain(ensemble, one, all_rules=all_rules)
    if not isinstance(X, pd.DataFrame):
        frame["row"] = position[0]
    return Explanation(frame, ensemble.loss, len(ensemble.rules), len(ensemble.terms))


# -- per-feature contributions and importances ([1], Sec. 6, eq. 36) ----------------------
def feature_shares(ensemble):
    """How each rule is shared among features: ``1 / m_k`` for each of its columns.

    Parameters
    ----------
    ensemble : RuleEnsemble

    Returns
    -------
    features : Index of object
        ``ensemble.feature_names`` (all of them, used or not), then any
        other column the rules or linear terms name, in order of first use.
    shares : ndarray of shape (n_rules, n_features), float64
        ``shares[k, j] = 1 / m_k`` when rule ``k`` has a condition on
        feature ``j`` and ``m_k`` distinct columns, else 0. A rule without
        conditions has a row of zeros. (A linear term is its column's alone.)

    Examples
    --------
    >>> from rulebook import Proposition, Query, Rule, RuleEnsemble
    >>> query = Query((Proposition("a", ">", 0.0), Proposition("b", "==", "x")))
    >>> features, shares = feature_shares(RuleEnsemble(0.0, (Rule(query, 1.0),), feature_names=("a", "b", "c")))
    >>> list(features), shares.tolist()
    (['a', 'b', 'c'], [[0.5, 0.5, 0.0]])
    """
    check_single_output(ensemble, "feature_shares")
    names = list(ensemble.feature_names or ())
    for rule in ensemble.rules:
        names.extend(p.feature for p in rule.query if p.feature not in names)
    names.extend(dict.fromkeys(t.feature for t in ensemble.terms if t.feature not in names))
    position = {name: j for j, name in enumerate(names)}
    shares = np.zeros((len(ensemble.rules), len(names)), dtype=np.float64)
    for k, rule in enumerate(ensemble.rules):
        used = list(dict.fromkeys(p.feature for p in rule.query))
        for name in used:
            shares[k, position[name]] = 1.0 / len(used)
    return pd.Index(names, dtype=object), shares


def _per_feature(ensemble, X, rule_terms, term_terms):
    """Rule terms shared among their columns plus term terms on theirs, as a frame.

    ``rule_terms`` (n_samples, n_rules) and ``term_terms`` (n_samples,
    n_terms): one value per row and rule or term.
    """
    features, shares = feature_shares(ensemble)
    values = np.zeros((len(X), len(features)), dtype=np.float64)
    # Zero shares times an infinite weight would be NaN in a matrix product:
    # add each rule's share to its own columns only.
    for k in range(len(ensemble.rules)):
        columns = np.flatnonzero(shares[k])
        values[:, columns] += rule_terms[:, [k]] * shares[k, columns]
    position = {name: j for j, name in enumerate(features)}
    for j, term in enumerate(ensemble.terms):
        values[:, position[term.feature]] += term_terms[:, j]
    return pd.DataFrame(values, index=_row_labels(X), columns=features)


def feature_contributions(ensemble, X):
    """Each row's raw score shared among the features, with signs.

    A rule that applies to a row contributes its weight, shared equally
    among the distinct columns of its conditions; a linear term contributes
    ``w_j (clip(x_j) - centre_j)`` to its column. This is Friedman and
    Popescu's local input variable importance ``J_j(x)`` ([1]_ Section 6,
    eq. 36) with the signed contributions ``w_k q_k(x)`` and ``w_j
    l_j(x_j)`` in place of ``I_k(x)`` and ``I_j(x)``, so that it adds up;
    the paper's own ``J_j(x)`` is :func:`local_importances`.

    Parameters
    ----------
    ensemble : RuleEnsemble
    X : DataFrame or array-like of shape (n_samples, n_features)

    Returns
    -------
    DataFrame of shape (n_samples, n_features), float64
        Indexed as ``X`` (positions for an array); one column per feature
        of :func:`feature_shares` (training columns no rule or term uses
        hold 0). Each row sums, with ``ensemble.intercept``, to the row's
        raw score ``ensemble.decision_function(X)`` (up to rounding). A
        rule without conditions, which a fit never makes, names no feature:
        its weight is in no column, and belongs with the intercept.

    Raises
    ------
    ValueError
        As :meth:`RuleEnsemble.decision_function`.

    See Also
    --------
    explain : the terms rule by rule.
    feature_importances : their mean absolute value per feature.
    local_importances : the paper's unsigned ``J_j(x)``.

    References
    ----------
    .. [1] Friedman, J. H., Popescu, B. E. (2008). Predictive learning via
       rule ensembles. The Annals of Applied Statistics 2(3), 916-954.
       Section 6.

    Examples
    --------
    >>> import pandas as pd
    >>> from rulebook import Proposition, Query, Rule, RuleEnsemble
    >>> query = Query((Proposition("a", ">", 0.0), Proposition("b", "==", "x")))
    >>> model = RuleEnsemble(1.0, (Rule(query, 3.0),))
    >>> feature_contributions(model, pd.DataFrame({"a": [1, 1], "b": ["x", "y"]}))
         a    b
    0  1.5  1.5
    1  0.0  0.0
    """
    check_single_output(ensemble, "feature_contributions")
    weights = np.array([rule.weight for rule in ensemble.rules], dtype=np.float64)
    rule_terms = np.where(ensemble.query_matrix(X), weights, 0.0)
    return _per_feature(ensemble, X, rule_terms, ensemble.term_contributions(X))


def local_importances(ensemble, X):
    """The paper's local input variable importance ``J_j(x)`` of each row.

    ``J_j(x) = I_j(x) + sum over rules k on column j of I_k(x) / m_k``
    ([1]_ Section 6, eq. 36), with the local rule importance ``I_k(x) =
    |w_k| |q_k(x) - s_k|`` (``s_k`` the rule's training coverage) and the
    local term importance ``I_j(x) = |b_j| |l_j(x_j) - mean(l_j)| = |w_j|
    |clip(x_j) - centre_j|`` (0 where ``x_j`` is missing, which the model
    reads as the mean). Unlike :func:`feature_contributions` these are
    unsigned and measured against the average training row, not against
    the intercept: a rule that does *not* apply matters too, by ``|w_k|
    s_k``.

    Parameters
    ----------
    ensemble : RuleEnsemble
        Every rule with its training ``coverage`` (as fitted models have).
    X : DataFrame or array-like of shape (n_samples, n_features)

    Returns
    -------
    DataFrame of shape (n_samples, n_features), float64
        Indexed and with columns as :func:`feature_contributions`. Each
        row sums to ``sum_k I_k(x) + sum_j I_j(x)`` over the rules (with
        conditions) and terms. Over the training rows (weighted) the root
        mean square of ``I_k(x)`` is the global ``I_k`` and that of
        ``I_j(x)`` the global ``I_j`` (:func:`rulebook.rulefit.rule_importances`,
        :func:`rulebook.rulefit.term_importances`); averaging ``J_j(x)`` over
        rows is ``feature_importances(ensemble, X, kind="rulefit")``.

    Raises
    ------
    ValueError
        If a rule has no coverage (the message gives its rank), or as
        :meth:`RuleEnsemble.decision_function`.

    References
    ----------
    .. [1] Friedman, J. H., Popescu, B. E. (2008). Predictive learning via
       rule ensembles. The Annals of Applied Statistics 2(3), 916-954.
       Section 6.

    Examples
    --------
    >>> import pandas as pd
    >>> from rulebook import Proposition, Query, Rule, RuleEnsemble
    >>> query = Query((Proposition("a", ">", 0.0), Proposition("b", "==", "x")))
    >>> model = RuleEnsemble(1.0, (Rule(query, 3.0, coverage=0.25),))
    >>> local_importances(model, pd.DataFrame({"a": [1, 1], "b": ["x", "y"]}))
           a      b
    0  1.125  1.125
    1  0.375  0.375
    """
    check_single_output(ensemble, "local_importances")
    missing = [k for k, rule in enumerate(ensemble.rules, start=1) if rule.coverage is None]
    if missing:
        raise ValueError(f"rule {missing[0]} has no coverage; the local importance |w_k| |q_k(x) - "
                         "s_k| needs each rule's training coverage s_k (a fitted model's rules have it).")
    weights = np.array([rule.weight for rule in ensemble.rules], dtype=np.float64)
    coverage = np.array([rule.coverage for rule in ensemble.rules], dtype=np.float64)
    rule_terms = np.abs(weights) * np.abs(ensemble.query_matrix(X) - coverage)
    return _per_feature(ensemble, X, rule_terms, np.abs(ensemble.term_contributions(X)))


def feature_importances(ensemble, X, *, kind="contribution"):
    """Feature importance over the rows of ``X``: a mean of per-row values.

    ``kind="contribution"``: ``mean over rows x of |c_j(x)|``, ``c_j(x)``
    the signed contributions of :func:`feature_contributions`.
    ``kind="rulefit"``: ``mean over rows x of J_j(x)``, the paper's local
    importances of :func:`local_importances` (Friedman and Popescu
    aggregate local importances over a set of rows, [1]_ Section 6). Unlike
    the global importance of a fitted RuleFit model
    (:func:`rulebook.rulefit.feature_importances`: rule and term
    importances from training statistics, shared among columns), these need
    only the model and rows, so they serve every ensemble and any subset
    of rows (a class, a segment, the test set).

    Parameters
    ----------
    ensemble : RuleEnsemble
    X : DataFrame or array-like of shape (n_samples, n_features)
        At least one row.
    kind : {"contribution", "rulefit"}, default="contribution"

    Returns
    -------
    Series of float64, named ``"importance"``
        Indexed by feature as the columns of :func:`feature_contributions`.

    Raises
    ------
    ValueError
        If ``X`` has no rows, ``kind`` is unknown, or as
        :func:`feature_contributions` / :func:`local_importances`.

    References
    ----------
    .. [1] Friedman, J. H., Popescu, B. E. (2008). Predictive learning via
       rule ensembles. The Annals of Applied Statistics 2(3), 916-954.
       Section 6.

    Examples
    --------
    >>> import pandas as pd
    >>> from rulebook import Proposition, Query, Rule, RuleEnsemble
    >>> query = Query((Proposition("a", ">", 0.0), Proposition("b", "==", "x")))
    >>> model = RuleEnsemble(1.0, (Rule(query, -3.0),))
    >>> feature_importances(model, pd.DataFrame({"a": [1, 1], "b": ["x", "y"]})).tolist()
    [0.75, 0.75]
    """
    check_single_output(ensemble, "feature_importances")
    if kind not in ("contribution", "rulefit"):
        raise ValueError(f"kind must be 'contribution' or 'rulefit'; got {kind!r}.")
    if len(X) == 0:
        raise ValueError("X has 0 rows; feature importances average over at least one row.")
    if kind == "rulefit":
        return local_importances(ensemble, X).mean(axis=0).rename("importance")
    contributions = feature_contributions(ensemble, X)
    return contributions.abs().mean(axis=0).rename("importance")
