"""A fitted estimator as JSON, and back, without running code on load.

``estimator.to_json()`` writes what a fitted estimator is made of, all plain
values: its class (one of four names), ``get_params()`` (a learner object as
its class name and options), the columns of ``fit`` (labels, order, kind,
the categories of nominal columns), ``classes_``, the rules and linear terms
(:meth:`RuleEnsemble.to_dict <rulebook.rules.RuleEnsemble.to_dict>`), and
the training record (``history_``; RuleFit's ``alpha_`` and ``path_``).
:func:`load_model` reads it back into an estimator that predicts as the
saved one did, to the last bit.

Loading runs no code named in the file: no pickle, no ``eval``, no import.
Class names map to classes through fixed tables (:data:`ESTIMATORS`,
:data:`LEARNERS`); the file is checked against a JSON Schema shipped with
the package (``schemas/estimator-v1.schema.json``) and then for consistency
(every rule speaks of a fitted column, with an operator of its kind), each
problem a ``ValueError`` naming the field's path and what is valid. Pickle
is for one's own files only: unpickling a file runs whatever code it names.

The text is strict JSON (RFC 8259: no NaN or Infinity literals; such
floats in ``history_`` are written as the strings ``"nan"``, ``"inf"``,
``"-inf"``), ASCII only, with ``<``, ``>`` and ``&`` escaped as ``\\u003c``
and the like, so that it can sit inside an HTML ``<script>`` element.
The compatibility policy is in ``docs/persistence.md``.
"""

import json
import math
import os
from dataclasses import fields
from functools import cache
from importlib import metadata, resources
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from ._validation import NUMERIC
from .estimators import RuleBoostingClassifier, RuleBoostingRegressor
from .greedy import GreedyLearner
from .optimal import OptimalLearner
from .orthogonal import BeamLearner, OrthogonalLearner
from .rulefit import (
    RuleFitClassifier,
    RuleFitRegressor,
    feature_importances,
    rule_importances,
    term_importances,
)
from .rules import NOMINAL_OPERATORS, NUMERIC_OPERATORS, RuleEnsemble, _json_value

FORMAT = "rulebook.estimator"
# Versions of the format that load_model reads; to_json writes the last.
SUPPORTED_VERSIONS = (1,)
SCHEMAS = {1: "estimator-v1.schema.json"}
# The only classes a file can name: a name maps to a class here, never
# through an import.
ESTIMATORS = {cls.__name__: cls for cls in (RuleBoostingClassifier, RuleBoostingRegressor,
                                            RuleFitClassifier, RuleFitRegressor)}
LEARNERS = {cls.__name__: cls for cls in (GreedyLearner, OptimalLearner, OrthogonalLearner,
                                          BeamLearner)}
_RULEFIT = (RuleFitClassifier, RuleFitRegressor)
_CLASSIFIERS = (RuleBoostingClassifier, RuleFitClassifier)
_TYPES = {"bool": bool, "int": int, "float": float, "str": str, "bytes": bytes.fromhex}
_NONFINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
# An error message quotes at most this many characters of a bad value.
_QUOTE = 200


# == writing ==========================================================================
def to_dict(estimator):
    """The JSON form of a fitted estimator, as a dict of plain values.

    Parameters
    ----------
    estimator : RuleBoostingClassifier, RuleBoostingRegressor, RuleFitClassifier or RuleFitRegressor
        Fitted.

    Returns
    -------
    dict
        Valid against ``schemas/estimator-v1.schema.json``.

    Raises
    ------
    sklearn.exceptions.NotFittedError
        If the estimator is not fitted.
    ValueError
        For a subclass or another estimator, a parameter value that is not
        plain data (a custom learner object, a ``RandomState``), a category
        or class label of a type JSON cannot hold (e.g. a Timestamp), or a
        column label that is neither a string nor an integer; the message
        names the parameter or column.
    """
    kind = type(estimator)
    if ESTIMATORS.get(kind.__name__) is not kind:
        raise ValueError(f"to_json writes {', '.join(ESTIMATORS)}; got {kind.__module__}."
                         f"{kind.__qualname__} (a subclass could not be rebuilt by load_model).")
    check_is_fitted(estimator)
    ensemble = estimator.ensemble_
    names_in = getattr(estimator, "feature_names_in_", None)
    fit_columns = getattr(estimator, "_fit_columns", None)
    data = {
        "format": FORMAT,
        "version": SUPPORTED_VERSIONS[-1],
        "rulebook_version": _rulebook_version(),
        "estimator": kind.__name__,
        "params": {name: _param_to_json(name, value)
                   for name, value in estimator.get_params(deep=False).items()},
        "n_features_in": int(estimator.n_features_in_),
        "feature_names_in": None if names_in is None else [str(name) for name in names_in],
        "fit_columns": None if fit_columns is None else [_label(c, "fit") for c in fit_columns],
        "features": [_feature_to_json(estimator, name, kind)
                     for name, kind in zip(ensemble.feature_names, estimator._feature_kinds)],
        "classes": _classes_to_json(estimator.classes_) if isinstance(estimator, _CLASSIFIERS) else None,
        "ensemble": _ensemble_to_json(ensemble),
    }
    if isinstance(estimator, _RULEFIT):
        data["rulefit"] = {"alpha": float(estimator.alpha_), "n_candidates": int(estimator.n_candidates_),
                           "path": _path_to_json(estimator.path_)}
    else:
        data["history"] = _frame_to_json(estimator.history_)
    return data


def to_json(estimator, path=None, *, indent=None):
    """Write a fitted estimator as JSON text; see :func:`to_dict`.

    Parameters
    ----------
    estimator : fitted rulebook estimator
    path : str or path-like, optional
        File to write (UTF-8). ``None`` returns the text.
    indent : int or None, default=None
        As :func:`json.dumps`.

    Returns
    -------
    str or None
        The text, or None when written to ``path``.

    Raises
    ------
    ValueError
        As :func:`to_dict`.
    """
    text = json.dumps(to_dict(estimator), indent=indent, allow_nan=False, ensure_ascii=True)
    # Only string contents can hold <, > and &; as escapes they read back the
    # same, and the text cannot end an HTML <script> element it is pasted in.
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    if path is None:
        return text
    Path(path).write_text(text, encoding="utf-8")
    return None


def _rulebook_version():
    try:
        return metadata.version("rulebook")
    except metadata.PackageNotFoundError:  # a source tree that is not installed
        return None


def _ensemble_to_json(ensemble):
    try:
        return ensemble.to_dict()
    except ValueError as error:  # a category of a type JSON cannot hold, named by column
        raise ValueError(f"cannot write the estimator: {error}") from None


def _label(label, where):
    """A column label as JSON: a string or an integer (NumPy integers too)."""
    if isinstance(label, np.integer):
        label = label.item()
    if isinstance(label, str) or (isinstance(label, int) and not isinstance(label, bool)):
        return label
    raise ValueError(f"the column label {label!r} (type {type(label).__name__}) in {where} cannot be "
                     "written; labels must be strings or integers. Rename the columns before fitting.")


def _typed(value, column):
    value, value_type = _json_value(value, column)
    if value_type == "float" and not math.isfinite(value):
        raise ValueError(f"column {column!r}: the value {value!r} cannot be written to JSON.")
    return {"value": value, "value_type": value_type}


def _feature_to_json(estimator, name, kind):
    out = {"kind": kind}
    categories = estimator._categories.get(name)
    if categories is not None:
        typed = [_typed(c, name) for c in categories]
        # A frozenset's order depends on the string hash seed: sort, so that a
        # model writes the same text in every process.
        out["categories"] = sorted(typed, key=lambda t: (t["value_type"], t["value"]))
    return out


def _classes_to_json(classes):
    if classes.dtype.kind not in "biufUSO":
        raise ValueError(f"classes_ of dtype {classes.dtype} cannot be written; class labels must be "
                         "booleans, numbers, strings or bytes.")
    return {"dtype": classes.dtype.str if classes.dtype.kind in "US" else classes.dtype.name,
            "values": [_typed(c, "classes_") for c in classes]}


def _param_to_json(name, value):
    """A parameter value as JSON data; see the ``param`` definition of the schema."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, (bool, str, int)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"parameter {name}={value!r} cannot be written to JSON.")
        return value
    if LEARNERS.get(type(value).__name__) is type(value):
        return {"learner": type(value).__name__,
                "options": {f.name: _param_to_json(f"{name}.{f.name}", getattr(value, f.name))
                            for f in fields(value)}}
    if isinstance(value, dict):
        return {"mapping": [[_label(key, name), _param_to_json(f"{name}[{key!r}]", item)]
                            for key, item in value.items()]}
    if isinstance(value, (list, tuple, np.ndarray)):
        kind = "ndarray" if isinstance(value, np.ndarray) else type(value).__name__
        items = [_param_to_json(f"{name}[{i}]", item) for i, item in enumerate(value)]
        if kind in ("list", "tuple", "ndarray") and all(not isinstance(i, dict) for i in items):
            return {"sequence": kind, "items": items}
    raise ValueError(
        f"parameter {name}={_quote(value)} cannot be written to JSON: parameters must be numbers, "
        f"strings, booleans, None, one of the learners {', '.join(LEARNERS)}, or lists and dicts "
        "of numbers. Set it with set_params (e.g. random_state to an int) before fitting.")


def _float_to_json(value):
    value = float(value)
    if math.isfinite(value):
        return value
    return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")


def _cell_to_json(value, column):
    """An object-column cell as JSON: scalars, tuples and lists; NaN as null."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, (bool, str, int)):
        return value
    if isinstance(value, float):
        return None if math.isnan(value) else _float_to_json(value)
    if isinstance(value, (tuple, list)):
        return [_cell_to_json(v, column) for v in value]
    raise ValueError(f"history_ column {column!r} holds {_quote(value)} (type {type(value).__name__}), "
                     "which cannot be written to JSON.")


def _frame_to_json(frame):
    """``history_`` column by column; see the ``frame`` definition of the schema."""
    columns = []
    for name in frame.columns:
        column = frame[name]
        if pd.api.types.is_bool_dtype(column.dtype) and column.dtype != object:
            dtype, values = "bool", [bool(v) for v in column]
        elif pd.api.types.is_integer_dtype(column.dtype):
            dtype, values = "int64", [int(v) for v in column]
        elif pd.api.types.is_float_dtype(column.dtype):
            dtype, values = "float64", [_float_to_json(v) for v in column]
        elif pd.api.types.is_string_dtype(column.dtype) and column.dtype != object:
            dtype, values = "str", [None if pd.isna(v) else str(v) for v in column]
        else:
            dtype, values = "object", [_cell_to_json(v, name) for v in column]
        columns.append({"name": str(name), "dtype": dtype, "values": values})
    return {"index": {"name": frame.index.name, "values": [int(i) for i in frame.index]},
            "columns": columns}


def _path_to_json(path):
    return {"alpha": [float(a) for a in path["alpha"]],
            "n_rules": [int(n) for n in path["n_rules"]],
            "train_loss": [_float_to_json(v) for v in path["train_loss"]],
            "ensemble": [_ensemble_to_json(e) for e in path["ensemble"]]}


def _quote(value):
    text = repr(value)
    return text if len(text) <= _QUOTE else f"{text[:_QUOTE]}... ({len(text)} characters)"


# == reading ===========================================================================
def load_model(source):
    """Load an estimator written by ``to_json``, ready to predict.

    The file is read as data only: no pickle, no ``eval``, no import of a
    name it contains. It is checked against the package's JSON Schema and
    for consistency before any estimator is built.

    Parameters
    ----------
    source : str, path-like, bytes or file-like
        JSON text (a string starting with ``{``), or the path of a file
        holding it, or an open file.

    Returns
    -------
    RuleBoostingClassifier, RuleBoostingRegressor, RuleFitClassifier or RuleFitRegressor
        Fitted: ``predict`` (and ``predict_proba``, ``decision_function``)
        give the saved estimator's results; ``get_params()``,
        ``classes_``, ``feature_names_in_``, ``ensemble_``, ``history_``
        (RuleFit: ``alpha_``, ``path_``, importances) are restored.

    Raises
    ------
    ValueError
        The text is not JSON (truncated, NaN literals, duplicate keys); it
        is not a rulebook estimator; its version is not one this rulebook
        reads (a newer rulebook wrote it: upgrade); or a field is missing or
        invalid: the message names the field's path (``$.params.n_rules``)
        and what is valid.
    FileNotFoundError
        A path that does not exist.

    Examples
    --------
    >>> from rulebook import RuleBoostingClassifier, load_model
    >>> from rulebook.datasets import load_titanic
    >>> X, y = load_titanic()
    >>> model = RuleBoostingClassifier(n_rules=2, verbose=0).fit(X, y)
    >>> loaded = load_model(model.to_json())
    >>> bool((loaded.predict_proba(X) == model.predict_proba(X)).all())
    True
    """
    data = _parse(_read_text(source))
    version = _check_header(data)
    _validate(data, version)
    cls = ESTIMATORS[data["estimator"]]
    estimator = _build(cls, data["params"])
    ensemble = _ensemble_from_json(data["ensemble"], "$.ensemble")
    _check_model(estimator, data, ensemble)
    _restore_fit(estimator, data, ensemble)
    return estimator


def _read_text(source):
    if hasattr(source, "read"):
        source = source.read()
    if isinstance(source, (bytes, bytearray)):
        try:
            return bytes(source).decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise ValueError(f"a rulebook model file is UTF-8 text; {error}.") from None
    if isinstance(source, str) and source.lstrip().startswith("{"):
        return source
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.is_file():
            raise FileNotFoundError(f"no model file at {_quote(str(source))}; pass the path of a file "
                                    "written by to_json, or its JSON text (starting with '{').")
        return path.read_text(encoding="utf-8-sig")
    raise TypeError(f"load_model reads JSON text, a path or a file; got {type(source).__name__}.")


def _parse(text):
    """Strict JSON: NaN/Infinity literals, overflowing floats and duplicate
    keys are errors rather than values that would silently load."""
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant,
                          parse_float=_finite_float)
    except RecursionError:
        raise ValueError("not a rulebook model file: the JSON is nested too deeply.") from None
    except ValueError as error:  # json.JSONDecodeError and the hooks' errors
        raise ValueError(f"not valid JSON (a truncated or edited file?): {error}") from None


def _no_duplicates(pairs):
    keys = [key for key, _ in pairs]
    if len(set(keys)) != len(keys):
        twice = sorted({key for key in keys if keys.count(key) > 1})
        raise ValueError(f"the key {_quote(twice[0])} appears twice in one object")
    return dict(pairs)


def _no_constant(name):
    raise ValueError(f"{name} is not a JSON number (strict JSON, RFC 8259)")


def _finite_float(text):
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {_quote(text)} overflows a float")
    return value


def _check_header(data):
    """The version, after checking that this is a rulebook estimator at all;
    before the schema, so that a newer version says so rather than failing
    on a field this rulebook does not know."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        got = (f"'format' {_quote(data.get('format'))}" if isinstance(data, dict) and "format" in data
               else "no 'format' field" if isinstance(data, dict) else f"a JSON {type(data).__name__}")
        hint = (" (that is a RuleEnsemble: read it with RuleEnsemble.from_json)"
                if isinstance(data, dict) and data.get("format") == "rulebook.RuleEnsemble" else "")
        raise ValueError(f"not a rulebook model file: expected a JSON object with 'format': "
                         f"{FORMAT!r}; got {got}{hint}.")
    version = data.get("version")
    if isinstance(version, bool) or version not in SUPPORTED_VERSIONS:
        raise ValueError(
            f"invalid rulebook model file: '$.version' is {_quote(version)}; this rulebook reads "
            f"versions {', '.join(map(str, SUPPORTED_VERSIONS))}. A newer rulebook wrote this file: "
            "upgrade rulebook to read it.")
    name = data.get("estimator")
    if not isinstance(name, str) or name not in ESTIMATORS:
        raise _invalid("$.estimator", f"is {_quote(name)}; valid estimators are {', '.join(ESTIMATORS)}")
    return version


@cache
def _validator(version):
    # Imported when a file is read: jsonschema takes about as long to import
    # as scikit-learn, and most sessions never load a model.
    from jsonschema import Draft202012Validator

    schema = json.loads(resources.files("rulebook").joinpath("schemas", SCHEMAS[version]).read_text())
    return Draft202012Validator(schema)


def schema(version=SUPPORTED_VERSIONS[-1]):
    """The JSON Schema of a format version, as a dict.

    Parameters
    ----------
    version : int, default=the latest
        One of ``SUPPORTED_VERSIONS``.

    Returns
    -------
    dict
    """
    return _validator(version).schema


def _validate(data, version):
    from jsonschema.exceptions import best_match

    error = best_match(_validator(version).iter_errors(data))
    if error is not None:
        message = error.message if len(error.message) <= 2 * _QUOTE else (
            f"{error.message[:2 * _QUOTE]}... ({len(error.message)} characters)")
        raise ValueError(f"invalid rulebook model file: {error.json_path!r}: {message} "
                         f"(see {SCHEMAS[version]} in the rulebook package).")


def _invalid(path, problem):
    return ValueError(f"invalid rulebook model file: {path!r} {problem}.")


def _ensemble_from_json(data, path):
    try:
        return RuleEnsemble.from_dict(data)
    except ValueError as error:
        raise ValueError(f"invalid rulebook model file, in {path!r}: {error}") from None


def _build(cls, params):
    """``cls(**params)``, with unknown names and invalid values named."""
    valid = list(cls().get_params(deep=False))  # __init__ only stores its arguments
    unknown = sorted(set(params) - set(valid))
    if unknown:
        raise _invalid(f"$.params.{unknown[0]}", f"is not a parameter of {cls.__name__} (valid: "
                       f"{', '.join(valid)}); a newer rulebook wrote it? Upgrade rulebook")
    estimator = cls(**{name: _param_from_json(value, f"$.params.{name}")
                       for name, value in params.items()})
    try:
        estimator._check_params()
    except (ValueError, TypeError, OverflowError, NotImplementedError) as error:
        raise ValueError(f"invalid rulebook model file: '$.params': {error}") from None
    return estimator


# Options a learner gained after files were written without them, with the
# value that does what such a file's learner did (its default then); a new
# default would otherwise change the model a loaded estimator fits.
_OPTIONS_BEFORE = {"OrthogonalLearner": {"length_penalty": "none", "ridge": "none"},
                   "OptimalLearner": {"condition_cost": 0.0},
                   "GreedyLearner": {"condition_cost": 0.0}}


def _param_from_json(value, path):
    if not isinstance(value, dict):
        return value
    if "learner" in value:
        cls = LEARNERS[value["learner"]]
        valid = [f.name for f in fields(cls)]
        unknown = sorted(set(value["options"]) - set(valid))
        if unknown:
            raise _invalid(f"{path}.options.{unknown[0]}", f"is not an option of {cls.__name__} "
                           f"(valid: {', '.join(valid)})")
        try:
            return cls(**{**_OPTIONS_BEFORE.get(cls.__name__, {}), **value["options"]})
        except (TypeError, ValueError, OverflowError) as error:  # the learner's own checks
            raise _invalid(f"{path}.options", f"is invalid: {error}") from None
    if "mapping" in value:
        return {key: _param_from_json(item, f"{path}[{key!r}]") for key, item in value["mapping"]}
    items = value["items"]
    return {"list": list, "tuple": tuple, "ndarray": np.array}[value["sequence"]](items)


def _typed_from_json(item):
    return _TYPES[item["value_type"]](item["value"])


def _check_model(estimator, data, ensemble):
    """The parts agree: columns, kinds, rules, loss, classes."""
    names = ensemble.feature_names
    n = data["n_features_in"]
    for path, length in (("$.features", len(data["features"])), ("$.ensemble.feature_names", len(names)),
                         ("$.fit_columns", len(data["fit_columns"] or names))):
        if length != n:
            raise _invalid(path, f"has {length} columns, but n_features_in is {n}")
    names_in = data["feature_names_in"]
    if ensemble.by_name != (names_in is not None):
        raise _invalid("$.ensemble.by_name", "must be true exactly when feature_names_in is set "
                       "(a model fitted on a DataFrame with string column names)")
    if names_in is not None and not (list(names) == names_in == data["fit_columns"]):
        raise _invalid("$.feature_names_in", "must equal fit_columns and ensemble.feature_names")
    if len(set(names)) != len(names):
        raise _invalid("$.ensemble.feature_names", "has a name twice; column names are unique")
    kinds = [feature["kind"] for feature in data["features"]]
    _check_rules(ensemble, "$.ensemble", kinds)
    for k, point in enumerate(data.get("rulefit", {}).get("path", {}).get("ensemble", [])):
        _check_rules(_ensemble_from_json(point, f"$.rulefit.path.ensemble[{k}]"),
                     f"$.rulefit.path.ensemble[{k}]", kinds, names)
    loss = estimator._loss_name_
    multilabel = data["classes"] is not None and ensemble.outputs is not None and \
        ensemble.loss == "logistic"
    if multilabel or data["classes"] is not None and len(data["classes"]["values"]) > 2:
        # Several classes (multinomial loss) or labels (logistic loss on each):
        # the outputs are the classes.
        loss = "logistic" if multilabel else "multinomial"
        classes = _classes_from_json(data["classes"])
        if ensemble.outputs != tuple(classes.tolist()):
            raise _invalid("$.ensemble.outputs", f"must be the classes {_quote(classes.tolist())}; "
                           f"got {_quote(ensemble.outputs)}")
    elif ensemble.outputs is not None and data["classes"] is not None:
        raise _invalid("$.ensemble.outputs", "must be absent: one output for classes of two")
    if ensemble.loss != loss:
        raise _invalid("$.ensemble.loss", f"is {ensemble.loss!r}, but a {type(estimator).__name__} "
                       f"with these parameters has loss {loss!r}")
    if data["classes"] is not None:
        _classes_from_json(data["classes"])
    if "rulefit" in data:
        path = data["rulefit"]["path"]
        if len({len(column) for column in path.values()}) != 1:
            raise _invalid("$.rulefit.path", "must have columns of one length")


def _classes_from_json(data):
    """``classes_``: two or more distinct labels that the dtype holds as they
    are (no ``1`` turned into ``"1"`` by a ``<U1`` array)."""
    labels = [_typed_from_json(c) for c in data["values"]]
    if len(set(labels)) != len(labels) or len({type(label) for label in labels}) != 1:
        raise _invalid("$.classes.values", f"must be different class labels of one type; got "
                       f"{_quote(labels)}")
    try:
        classes = np.array(labels, dtype=np.dtype(data["dtype"]))
    except (OverflowError, TypeError, ValueError):
        classes = None
    if classes is None or [type(c) for c in classes.tolist()] != [type(c) for c in labels] or \
            classes.tolist() != labels:
        raise _invalid("$.classes.dtype", f"is {data['dtype']!r}, which does not hold the labels "
                       f"{_quote(labels)} as they are")
    return classes


def _check_rules(ensemble, path, kinds, names=None):
    """Every proposition names a fitted column, at its position, with an
    operator of the column's kind (thresholds on numeric columns); every
    linear term a numeric column of fit, at its position."""
    names = ensemble.feature_names if names is None else names
    if tuple(ensemble.feature_names) != tuple(names):
        raise _invalid(f"{path}.feature_names", "must be the estimator's columns")
    position = {name: j for j, name in enumerate(names)}
    for i, term in enumerate(ensemble.terms):
        where = f"{path}.linear_terms[{i}]"
        j = position.get(term.feature)
        if j is None or term.index != j or kinds[j] != NUMERIC:
            raise _invalid(where, f"is on the column {_quote(term.feature)} at index {term.index}; a "
                           "linear term needs a numeric column of fit (feature_names) at its position")
    for i, rule in enumerate(ensemble.rules):
        for p in rule.query:
            where = f"{path}.rules[{i}].query"
            if p.feature not in position:
                raise _invalid(where, f"names the column {_quote(p.feature)}, which is not among "
                               "the columns of fit (feature_names)")
            j = position[p.feature]
            if p.index != j:
                raise _invalid(where, f"gives column {_quote(p.feature)} the index {p.index}; "
                               f"its position in feature_names is {j}")
            if (p.operator in NUMERIC_OPERATORS) != (kinds[j] == NUMERIC):
                valid = NUMERIC_OPERATORS if kinds[j] == NUMERIC else NOMINAL_OPERATORS
                raise _invalid(where, f"applies {p.operator!r} to the {kinds[j]} column "
                               f"{_quote(p.feature)}; valid operators are {', '.join(valid)}")


def _restore_fit(estimator, data, ensemble):
    """Set what ``fit`` sets: the fitted attributes and the prediction state
    (``_feature_kinds``, ``_categories``, ``_fit_columns``) that
    :func:`rulebook._validation.check_prediction_frame` reads."""
    names = ensemble.feature_names
    estimator.n_features_in_ = data["n_features_in"]
    if data["feature_names_in"] is not None:
        estimator.feature_names_in_ = np.asarray(data["feature_names_in"], dtype=object)
    estimator._fit_columns = None if data["fit_columns"] is None else tuple(data["fit_columns"])
    estimator._feature_kinds = tuple(feature["kind"] for feature in data["features"])
    estimator._categories = {name: frozenset(_typed_from_json(c) for c in feature["categories"])
                             for name, feature in zip(names, data["features"]) if "categories" in feature}
    if data["classes"] is not None:
        estimator.classes_ = _classes_from_json(data["classes"])
    estimator.ensemble_ = ensemble
    if "rulefit" in data:
        _restore_rulefit(estimator, data["rulefit"], ensemble)
    else:
        estimator.history_ = _frame_from_json(data["history"])


def _restore_rulefit(estimator, data, ensemble):
    path = data["path"]
    estimator.alpha_ = float(data["alpha"])
    estimator.path_ = pd.DataFrame({
        "alpha": np.array(path["alpha"], dtype=np.float64),
        "n_rules": np.array(path["n_rules"], dtype=np.int64),
        "train_loss": np.array([_float_from_json(v) for v in path["train_loss"]], dtype=np.float64),
        "ensemble": pd.Series([RuleEnsemble.from_dict(e) for e in path["ensemble"]], dtype=object),
    })
    # Functions of the ensemble (weights, coverage, terms' std): computed, not stored.
    estimator.rule_importances_ = rule_importances(ensemble)
    estimator.term_importances_ = term_importances(ensemble)
    estimator.feature_importances_ = feature_importances(ensemble)
    estimator.n_candidates_ = data["n_candidates"]


def _float_from_json(value):
    return _NONFINITE[value] if isinstance(value, str) else float(value)


def _cell_from_json(value):
    if value is None:  # a missing cell (NaN) of history_, at any depth
        return math.nan
    if isinstance(value, list):
        return tuple(_cell_from_json(v) for v in value)
    return value


def _frame_from_json(data):
    index = pd.Index(np.array(data["index"]["values"], dtype=np.int64), name=data["index"]["name"])
    columns = {}
    for column in data["columns"]:
        values, dtype = column["values"], column["dtype"]
        if len(values) != len(index):
            raise _invalid("$.history.columns", f"has a column {_quote(column['name'])} of {len(values)} "
                           f"values; the index has {len(index)}")
        if dtype == "float64":
            series = pd.Series([_float_from_json(v) for v in values], index=index, dtype=np.float64)
        elif dtype == "object":
            series = pd.Series([_cell_from_json(v) for v in values], index=index, dtype=object)
        elif dtype == "str":
            series = pd.Series(values, index=index, dtype=object).astype(_STR)
        else:
            series = pd.Series(values, index=index, dtype={"int64": np.int64, "bool": bool}[dtype])
        columns[column["name"]] = series
    return pd.DataFrame(columns, index=index)


# The dtype pandas gives a column of strings: "str" in pandas >= 3
# (history_'s rule column), object in pandas 2.
_STR = pd.Series(["a"]).dtype
