"""rulebook: gradient rule boosting with greedy, optimal and orthogonal rule learners.

The most accurate model that fits in ten readable rules, for DataFrames, with
named conditions such as ``Age <= 19 & Sex == male``.
"""

from ._options import get_options, set_options
from .compare import (
    area_under_complexity_curve,
    area_under_rules_curve,
    compare_learners,
)
from .cv import RuleBoostingClassifierCV, RuleBoostingRegressorCV
from .estimators import RuleBoostingClassifier, RuleBoostingRegressor
from .greedy import GreedyLearner
from .linear_terms import LinearTerm
from .optimal import OptimalLearner
from .orthogonal import BeamLearner, OrthogonalLearner
from .persistence import load_model
from .rulefit import RuleFitClassifier, RuleFitRegressor
from .rules import Proposition, Query, Rule, RuleEnsemble

__all__ = [
    "BeamLearner",
    "GreedyLearner",
    "LinearTerm",
    "OptimalLearner",
    "OrthogonalLearner",
    "Proposition",
    "Query",
    "Rule",
    "RuleBoostingClassifier",
    "RuleBoostingClassifierCV",
    "RuleBoostingRegressor",
    "RuleBoostingRegressorCV",
    "RuleEnsemble",
    "RuleFitClassifier",
    "RuleFitRegressor",
    "area_under_complexity_curve",
    "area_under_rules_curve",
    "compare_learners",
    "get_options",
    "load_model",
    "set_options",
]

__version__ = "0.1.0.dev0"


def __getattr__(name):
    # The widgets need ipywidgets (the "notebooks" extra); import them only
    # when asked for, so that the core package does not.
    if name in ("BoostingExplorer", "LearnerComparison"):
        from . import widgets

        return getattr(widgets, name)
    raise AttributeError(f"module 'rulebook' has no attribute {name!r}")
