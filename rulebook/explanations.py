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

from ._canonical import escape_unsafe
from ._formatting import format_number, format_weight
from ._predict import reads_by_name, term_values
from .losses import get_loss

KINDS = ("intercept", "rule", "term", "total")
COLUMNS = ("row", "kind", "rule", "condition", "applies", "weight", "contribution", "cumulative",
           "prediction")


def _row_labels(X):
    """The row labels of ``X``: its index for a DataFrame, positions otherwise."""
    return X.index if isinstance(X, pd.DataFrame) else pd.RangeIndex(len(X))


def explain(ensemble, X, *, all_rules=False, output=None):
    """Each row's raw score as the sum of its terms, in a tidy long frame.

    For every row of ``X``, in order: one ``"intercept"`` line, one
    ``"rule"`` line per rule that applies to the row (in the ensemble's
    order), one ``"term"`` line per linear term whose column the row has,
    then one ``"total"`` line with the raw score and the prediction. Rules
    that do not apply, and terms whose value is missing, contribute nothing
    and are left out, unless ``all_rules=True``.

    A model of several outputs (``ensemble.outputs``: the classes of a
    multi-class model, the labels of a multi-label one, the targets of a
    multi-output regression) has a raw score per output, each the sum of
    its own terms: the intercept of the output and the rules' weights for
    it. Its frame has an ``output`` column (after ``row``) and, for every
    row, each output's lines in the order of ``ensemble.outputs``; a rule
    whose head gives an output no weight (0: a single-output head of
    another output) is left out of that output's lines, as a rule that
    does not apply is, unless ``all_rules=True``.

    Parameters
    ----------
    ensemble : RuleEnsemble
    X : DataFrame or array-like of shape (n_samples, n_features)
        Columns are found as in :meth:`RuleEnsemble.decision_function`.
    all_rules : bool, default=False
        Keep a line for every rule and term on every row, with
        ``applies=False`` and a contribution of 0 where the rule does not
        apply or the term's value is missing.
    output : label of ``ensemble.outputs`` or None, default=None
        With several outputs, the one to explain (e.g. a class,
        ``output="setosa"``); None explains them all. A model of one
        output takes None only.

    Returns
    -------
    DataFrame of shape (n_lines, 9), or (n_lines, 10) with several outputs
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
          ``ensemble.predict(X)``;
        * ``output`` (object), with several outputs only: the output's
          label. ``cumulative`` on its total line is that output's column
          of ``decision_function(X)``, to the last bit, and ``prediction``
          its column of ``predict(X)``. For the multinomial loss a line's
          ``prediction`` is the class's probability under the terms so far
          of *every* class (the softmax of the classes' ``cumulative`` on
          their lines of the same term); the other losses map each output
          alone.

    Raises
    ------
    ValueError
        As :meth:`RuleEnsemble.decision_function`: ``X`` lacks a column the
        rules use. An ``output`` that is not one of ``ensemble.outputs``,
        or any ``output`` for a model of one output.

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

    Two classes' scores (a single-output head: the rule weighs ``young`` only):

    >>> heads = RuleEnsemble((0.5, -0.5), (Rule(rule.query, (2.5, 0.0)),), "multinomial",
    ...                      outputs=("young", "old"))
    >>> lines = explain(heads, pd.DataFrame({"Age": [10]}))
    >>> lines[["output", "kind", "rule", "contribution", "cumulative"]]
      output       kind  rule  contribution  cumulative
    0  young  intercept  <NA>           0.5         0.5
    1  young       rule     1           2.5         3.0
    2  young      total  <NA>           NaN         3.0
    3    old  intercept  <NA>          -0.5        -0.5
    4    old      total  <NA>           NaN        -0.5
    >>> explain(heads, pd.DataFrame({"Age": [10]}), output="old")["kind"].tolist()
    ['intercept', 'total']
    """
    positions = output_positions(ensemble, output)
    covered = ensemble.query_matrix(X)
    values = term_values(ensemble, X, reads_by_name(ensemble, X))
    n, n_rules = covered.shape
    n_items = n_rules + len(ensemble.terms)
    heads = _heads(ensemble)
    # One grid of lines per row and output: intercept, the rules, the terms,
    # total. Cumulative sums run left to right from the intercept, the order
    # decision_function adds in, so the totals are its bits.
    terms = np.empty((n, n_items + 1, heads.shape[1]), dtype=np.float64)
    terms[:, 0] = heads[0]
    terms[:, 1:n_rules + 1] = np.where(covered[:, :, None], heads[1:n_rules + 1], 0.0)
    for j, term in enumerate(ensemble.terms):  # one output only
        terms[:, n_rules + 1 + j, 0] = term.contribution(values[:, j])
    cumulative = np.cumsum(terms, axis=1)
    running = np.concatenate([cumulative, cumulative[:, -1:]], axis=1)
    applies = np.ones((n, n_items + 2), dtype=bool)
    applies[:, 1:-1] = np.column_stack([covered, ~np.isnan(values)])
    grid = {
        "applies": applies,
        "weight": np.concatenate([heads, np.full((1, heads.shape[1]), np.nan)]),
        "contribution": np.concatenate([terms, np.full((n, 1, heads.shape[1]), np.nan)], axis=1),
        "cumulative": running,
        "prediction": _partial_predictions(ensemble.loss, running),
    }
    texts = [None] + [str(rule.query) for rule in ensemble.rules] + [
        term.expression() for term in ensemble.terms] + [None]
    if positions is None:
        keep = applies if not all_rules else np.ones_like(applies)
        return _lines(X, n_rules, texts, grid, keep, 0)
    frames, rows = [], []
    for k in positions:
        # A rule whose head gives this output no weight (a single head of
        # another output) says nothing about its score: left out as a rule
        # that does not apply is.
        weighted = np.concatenate([[True], heads[1:, k] != 0, [True]])
        keep = applies & weighted if not all_rules else np.ones_like(applies)
        frames.append(_lines(X, n_rules, texts, grid, keep, k))
        rows.append(np.repeat(np.arange(n), keep.sum(axis=1)))
    frame = pd.concat(frames, keys=[ensemble.outputs[k] for k in positions], names=["output", None])
    frame = frame.reset_index(level="output").reset_index(drop=True)
    frame.insert(1, "output", frame.pop("output").astype(object))
    # Row by row (each row's outputs in the model's order), as one output's lines run.
    order = np.argsort(np.concatenate(rows), kind="stable")
    return frame.iloc[order].reset_index(drop=True)


def output_positions(ensemble, output):
    """The positions of the outputs a view shows: None for a model of one output.

    Parameters
    ----------
    ensemble : RuleEnsemble
    output : object or None
        A label of ``ensemble.outputs`` (a class, a label's or a target's
        name), or None for all of them.

    Returns
    -------
    list of int or None
        ``[0, ..., K - 1]`` for ``output=None``, ``[k]`` for the output of
        that label; None when the model has one output (and ``output`` is None).

    Raises
    ------
    ValueError
        If ``output`` is given for a model of one output, or is not one of
        its outputs (the message lists them).

    Examples
    --------
    >>> from rulebook import RuleEnsemble
    >>> model = RuleEnsemble((0.0, 0.0), (), "multinomial", outputs=("a", "b"))
    >>> output_positions(model, "b"), output_positions(model, None)
    ([1], [0, 1])
    """
    outputs = ensemble.outputs
    if outputs is None:
        if output is not None:
            raise ValueError(f"output={output!r}: the model has one output; leave output=None.")
        return None
    if output is None:
        return list(range(len(outputs)))
    found = [k for k, label in enumerate(outputs) if _same_label(label, output)]
    if not found:
        raise ValueError(f"output={output!r} is not one of the model's outputs; use one of "
                         f"{list(outputs)} (or None for all of them).")
    return found[:1]


def _same_label(label, output):
    try:
        return bool(label == output)
    except (TypeError, ValueError):  # e.g. an array compared with a label
        return False


def _heads(ensemble):
    """Intercept, rule and term weights as a matrix (1 + n_rules + n_terms, K), float64."""
    k = ensemble.n_outputs
    weights = [ensemble.intercept] + [item.weight for item in ensemble.rules + ensemble.terms]
    return np.array(weights, dtype=np.float64).reshape(len(weights), k)


def _partial_predictions(loss, running):
    """Each line's prediction: the raw scores so far through the inverse link.

    ``running`` (n, lines, K). The multinomial link maps all outputs at
    once (a line's class probability is the softmax of every class's score
    after the same terms); the others map each output alone.
    """
    inverse_link = get_loss(loss).inverse_link
    if loss == "multinomial":
        return inverse_link(running.reshape(-1, running.shape[2])).reshape(running.shape)
    return inverse_link(running)


def _lines(X, n_rules, texts, grid, keep, k):
    """Output ``k``'s lines of :func:`explain`, those of ``keep`` (n, lines)."""
    n_lines = keep.shape[1]
    n_items = n_lines - 2
    kinds = np.array(["intercept"] + ["rule"] * n_rules + ["term"] * (n_items - n_rules) + ["total"],
                     dtype=object)
    column = np.broadcast_to(np.arange(n_lines), keep.shape)[keep]
    weight = np.broadcast_to(grid["weight"][:, k], keep.shape)[keep]
    return pd.DataFrame({
        "row": _row_labels(X).repeat(keep.sum(axis=1)),
        # object, whatever the pandas version and the values (all None
        # when no rule applies): one dtype for every call.
        "kind": pd.Series(kinds[column], dtype=object),
        # Terms are numbered among the terms, as in terms_frame.
        "rule": pd.arrays.IntegerArray(np.where(column > n_rules, column - n_rules, column).astype(np.int64),
                                       (column == 0) | (column > n_items)),
        "condition": pd.Series(np.array(texts, dtype=object)[column], dtype=object),
        "applies": grid["applies"][keep],
        "weight": weight,
        "contribution": grid["contribution"][:, :, k][keep],
        "cumulative": grid["cumulative"][:, :, k][keep],
        "prediction": grid["prediction"][:, :, k][keep],
    })


class Explanation:
    """One row's explanation: its lines of :func:`explain`, shown as a waterfall.

    Made by :func:`explain_row`. In a notebook it shows as a table of its
    terms with a waterfall of bars (HTML and CSS only); ``str()`` gives the
    same as text; :attr:`frame` is the data. With several outputs, one
    waterfall per output (:meth:`for_output` picks one).

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
    outputs : tuple or None, default=None
        The outputs whose lines ``frame`` holds (its ``output`` column), in
        order; None for a model of one output.

    Attributes
    ----------
    frame : DataFrame
    loss : str
    n_rules : int
    n_terms : int
    outputs : tuple or None
    """

    def __init__(self, frame, loss, n_rules, n_terms=0, outputs=None):
        self.frame = frame
        self.loss = loss
        self.n_rules = int(n_rules)
        self.n_terms = int(n_terms)
        self.outputs = None if outputs is None else tuple(outputs)

    @property
    def row(self):
        """The row's label in ``X`` (a NumPy scalar as the Python value it holds)."""
        label = self.frame["row"].iloc[0]
        return label.item() if isinstance(label, np.generic) else label

    @property
    def raw_score(self):
        """The raw score ``f(x)``: a float, or with several outputs a Series
        of float64 indexed by output."""
        return self._totals("cumulative")

    @property
    def prediction(self):
        """The prediction, the raw score through the inverse link: a float,
        or with several outputs a Series of float64 indexed by output (the
        class probabilities of a multi-class model)."""
        return self._totals("prediction")

    def _totals(self, column):
        totals = self.frame[self.frame["kind"] == "total"]
        if not self._several():
            return float(totals[column].iloc[-1])
        return pd.Series(totals[column].to_numpy(dtype=np.float64),
                         index=pd.Index(totals["output"].tolist(), dtype=object, name="output"), name=column)

    def _several(self):
        return self.outputs is not None and len(self.outputs) > 1

    @property
    def n_applying(self):
        """Rules whose query holds on the row (int); with several outputs,
        those with a weight for at least one of the outputs shown."""
        rules = self.frame[(self.frame["kind"] == "rule") & self.frame["applies"]]
        return int(rules["rule"].nunique())

    def for_output(self, output):
        """The explanation of one output's raw score (its waterfall).

        Parameters
        ----------
        output : label of :attr:`outputs`

        Returns
        -------
        Explanation

        Raises
        ------
        ValueError
            If the explanation has no such output (the message lists them).
        """
        if self.outputs is None or not any(_same_label(label, output) for label in self.outputs):
            shown = "it explains a model of one output" if self.outputs is None else (
                f"use one of {list(self.outputs)}")
            raise ValueError(f"output={output!r} is not an output of this explanation; {shown}.")
        lines = self.frame[[_same_label(label, output) for label in self.frame["output"]]]
        return Explanation(lines.reset_index(drop=True), self.loss, self.n_rules, self.n_terms, (output,))

    def to_frame(self):
        """The row's lines (a copy), as :func:`explain` gives them."""
        return self.frame.copy()

    def __str__(self):
        if self._several():
            return "\n\n".join(str(self.for_output(label)) for label in self.outputs)
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
        output = "" if self.outputs is None else f", output {escape_unsafe(str(self.outputs[0]))}"
        return (f"row {self.row!r}{output}: raw score {format_number(self.raw_score)}, "
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
    return {"logistic": "probability", "multinomial": "probability", "poisson": "mean"}.get(
        loss, "prediction")


def explain_row(ensemble, X, row=0, *, all_rules=False, output=None):
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
    output : label of ``ensemble.outputs`` or None, default=None
        As in :func:`explain`: with several outputs, the one to explain
        (one waterfall); None, all of them (a waterfall each).

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
    >>> heads = RuleEnsemble((0.0, 0.0), (Rule(rule.query, (2.5, -2.5)),), "multinomial",
    ...                      outputs=("young", "old"))
    >>> print(explain_row(heads, pd.DataFrame({"Age": [10]}), output="old"))
    row 0, output old: raw score -2.5, probability 0.0066929 (1 of 1 rules apply)
        +0  (intercept)
      -2.5  1. if Age <= 19
      -2.5  = raw score
    """
    positions = output_positions(ensemble, output)
    n = len(X)
    if isinstance(row, (bool, np.bool_)) or not isinstance(row, (int, np.integer)):
        raise IndexError(f"row must be an integer position in X; got {row!r}.")
    if not -n <= row < n:
        raise IndexError(f"row {row} is out of range for X with {n} rows.")
    position = [int(row) % n]
    one = X.iloc[position] if isinstance(X, pd.DataFrame) else np.asarray(X)[position]
    frame = explain(ensemble, one, all_rules=all_rules, output=output)
    if not isinstance(X, pd.DataFrame):
        frame["row"] = position[0]
    outputs = None if positions is None else tuple(ensemble.outputs[k] for k in positions)
    return Explanation(frame, ensemble.loss, len(ensemble.rules), len(ensemble.terms), outputs)


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


def _per_feature(ensemble, X, rule_terms, term_terms, output=None):
    """Rule terms shared among their columns plus term terms on theirs, as a frame.

    ``rule_terms`` (n_samples, n_rules, K) and ``term_terms`` (n_samples,
    n_terms): one value per row, rule or term, and output. One output: a
    frame of a column per feature; several (``output=None``): a column per
    output and feature (a MultiIndex ``(output, feature)``); one of several
    chosen: that output's frame.
    """
    features, shares = feature_shares(ensemble)
    positions = output_positions(ensemble, output)
    frames = [_shared(ensemble, X, features, shares, rule_terms[:, :, k], term_terms)
              for k in (positions or [0])]
    if positions is None or output is not None:
        return frames[0]
    labels = [ensemble.outputs[k] for k in positions]
    return pd.concat(frames, axis=1, keys=labels, names=["output", "feature"])


def _shared(ensemble, X, features, shares, rule_terms, term_terms):
    """One output's per-feature frame (n_samples, n_features)."""
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


def _rule_heads(ensemble):
    """The rules' weights, (n_rules, K), float64."""
    return _heads(ensemble)[1:len(ensemble.rules) + 1]


def feature_contributions(ensemble, X, *, output=None):
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
    output : label of ``ensemble.outputs`` or None, default=None
        With several outputs, the one whose raw score is shared; None,
        every output's.

    Returns
    -------
    DataFrame of shape (n_samples, n_features), float64
        Indexed as ``X`` (positions for an array); one column per feature
        of :func:`feature_shares` (training columns no rule or term uses
        hold 0). Each row sums, with ``ensemble.intercept``, to the row's
        raw score ``ensemble.decision_function(X)`` (up to rounding). A
        rule without conditions, which a fit never makes, names no feature:
        its weight is in no column, and belongs with the intercept.

        With several outputs and ``output=None``, of shape (n_samples,
        n_outputs * n_features): columns ``(output, feature)`` (a
        MultiIndex, levels named ``"output"`` and ``"feature"``), so that
        ``frame[label]`` is one output's frame, whose rows sum, with that
        output's intercept, to its column of ``decision_function(X)``.
        SHAP's layout (n_samples, n_features, n_outputs) is
        ``frame.to_numpy().reshape(n_samples, n_outputs, -1).transpose(0, 2, 1)``.

    Raises
    ------
    ValueError
        As :meth:`RuleEnsemble.decision_function`; an unknown ``output``
        (see :func:`explain`).

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
    output_positions(ensemble, output)  # an unknown output before any work
    rule_terms = np.where(ensemble.query_matrix(X)[:, :, None], _rule_heads(ensemble), 0.0)
    return _per_feature(ensemble, X, rule_terms, ensemble.term_contributions(X), output)


def local_importances(ensemble, X, *, output=None):
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
    output : label of ``ensemble.outputs`` or None, default=None
        As in :func:`feature_contributions` (``|w_k|`` the rule's weight
        for the output).

    Returns
    -------
    DataFrame of shape (n_samples, n_features), float64
        Indexed and with columns as :func:`feature_contributions` (with
        several outputs and ``output=None``, a column per output and
        feature). Each
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
        :func:`feature_contributions`.

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
    output_positions(ensemble, output)
    missing = [k for k, rule in enumerate(ensemble.rules, start=1) if rule.coverage is None]
    if missing:
        raise ValueError(f"rule {missing[0]} has no coverage; the local importance |w_k| |q_k(x) - "
                         "s_k| needs each rule's training coverage s_k (a fitted model's rules have it).")
    coverage = np.array([rule.coverage for rule in ensemble.rules], dtype=np.float64)
    rule_terms = np.abs(_rule_heads(ensemble)) * np.abs(ensemble.query_matrix(X) - coverage)[:, :, None]
    return _per_feature(ensemble, X, rule_terms, np.abs(ensemble.term_contributions(X)), output)


def feature_importances(ensemble, X, *, kind="contribution", output=None):
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
    output : label of ``ensemble.outputs`` or None, default=None
        With several outputs, the one whose importances are wanted; None,
        every output's.

    Returns
    -------
    Series of float64, named ``"importance"``
        Indexed by feature as the columns of :func:`feature_contributions`.
        With several outputs and ``output=None``, a DataFrame of shape
        (n_features, n_outputs), float64: a column per output (columns
        named ``"output"``), since a feature may matter for one class and
        not for another; ``.mean(axis=1)`` pools them.

    Raises
    ------
    ValueError
        If ``X`` has no rows, ``kind`` or ``output`` is unknown, or as
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
    if kind not in ("contribution", "rulefit"):
        raise ValueError(f"kind must be 'contribution' or 'rulefit'; got {kind!r}.")
    positions = output_positions(ensemble, output)
    if len(X) == 0:
        raise ValueError("X has 0 rows; feature importances average over at least one row.")
    if kind == "rulefit":
        per_row = local_importances(ensemble, X, output=output)
    else:
        per_row = feature_contributions(ensemble, X, output=output).abs()
    if positions is None or output is not None:
        return per_row.mean(axis=0).rename("importance")
    labels = [ensemble.outputs[k] for k in positions]
    # Per output, not pooled: what matters for one class need not for another.
    return pd.DataFrame({k: per_row[label].mean(axis=0) for k, label in enumerate(labels)}).set_axis(
        pd.Index(labels, dtype=object, name="output"), axis=1)
