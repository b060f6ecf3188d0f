"""Published results of the two rule-boosting papers, transcribed from the paper files.

Only what the papers print; nothing is computed or estimated here. The table
text is kept verbatim (as in ``shared/papers/*.md``, tab-separated) and parsed,
so that every number can be checked against its source line
(``tests/test_reproduce.py`` does so when the paper files are present).

* :data:`BOLEY_TABLE1` -- Boley et al. (2021), Table 1: per dataset the area
  under the number-of-rules/score curve for 1 to 10 rules (reported as the
  mean score over those sizes, sizes a RuleFit path skips interpolated), for
  RuleFit (``rf``), greedy (``grd``) and optimal (``opt``) rule boosting;
  their computation times in seconds; and the test score and number of
  rules of RuleFit without a bound on the rules. Score: ROC AUC for
  classification, R^2 for regression. Means over five random 80/20 splits.
* :data:`YANG_TABLE5` -- Yang et al. (2024), Table 5 (supplement): normalised
  training and test risks averaged over the complexity levels 1 to 50 for
  SIRUS (``SRS``), gradient sum (``SGS``), gradient boosting (``SGB``),
  XGBoost-objective branch and bound (``SXB``, the optimal learner of Boley
  et al.) and corrective orthogonal boosting with greedy (``COB_G``) and
  branch-and-bound (``COB_B``) search. Risk is normalised by the risk of the
  intercept-only ("offset rule") model, so 1 is no better than a constant.

Transcription caveats
---------------------
* Yang et al., Table 5: in the text version of the paper available to us the
  rows TITANIC, TIC-TAC-TOE, IRIS, BREAST, WINE and IBM HR lost most of their
  cells (presumably the bold and coloured ones). Their numbers are all set to
  None; the raw lines are kept in :data:`YANG_TABLE5_RAW` for reference.
* Yang et al., Table 5 has five computation-time columns for six methods and
  the header does not say which method each belongs to; they are kept, unlabelled,
  as ``times_raw`` and not compared.
* Yang et al., Table 5, friedman2: the SXB training risk reads ``.770`` next
  to a test risk of ``.077``; probably a typo in the paper, transcribed as
  printed.

References
----------
.. [1] Boley, M., Teshuva, S., Le Bodic, P., Webb, G. I. (2021). Better short
   than greedy: interpretable models through optimal rule boosting. SDM.
   Table 1.
.. [2] Yang, F., et al. (2024). Orthogonal gradient boosting for simpler
   additive rule ensembles. AISTATS. Table 5 (supplementary information).
"""

from dataclasses import dataclass

__all__ = ["BoleyRow", "YangRow", "BOLEY_TABLE1", "YANG_TABLE5", "YANG_METHODS",
           "BOLEY_TABLE1_TEXT", "YANG_TABLE5_TEXT", "YANG_TABLE5_RAW"]

# Boley et al. (2021), Table 1, verbatim. Columns: dataset, features, rows,
# #rules/score AUC (rf, grd, opt), computation time in s (rf, grd, opt),
# unbounded RuleFit (score, #rules).
BOLEY_TABLE1_TEXT = """\
breast cancer\t30\t569\t0.908\t0.949\t0.953\t3.0\t13.9\t44.9\t0.984\t46
digits (5)\t64\t3915\t0.500\t0.923\t0.927\t10.0\t266.4\t947.7\t0.976\t228
gender recog\t20\t3168\t0.940\t0.942\t0.956\t7.9\t77.0\t1642.9\t0.983\t113
IBM HR\t32\t1470\t0.500\t0.677\t0.679\t4.1\t44.1\t5925.0\t0.674\t173
iris (1)\t4\t150\t0.689\t0.910\t0.915\t1.3\t2.5\t10.1\t0.944\t99
wine (1)\t13\t178\t0.794\t0.931\t0.942\t1.5\t3.2\t4.0\t0.978\t85
classification2\t8\t2000\t0.753\t0.869\t0.887\t5.3\t27.2\t228.2\t0.906\t155
telco churn\t18\t7043\t0.500\t0.776\t0.779\t16.3\t82.6\t517.3\t0.725\t88
tic-tac-toe\t27\t958\t0.699\t0.752\t0.804\t3.1\t14.4\t15.6\t0.990\t194
titanic\t7\t1043\t0.699\t0.857\t0.859\t3.0\t14.7\t144.1\t0.837\t35
boston\t13\t506\t0.163\t0.544\t0.565\t2.4\t10.1\t585.1\t0.877\t151
demographics\t13\t6876\t0.209\t0.335\t0.343\t14.5\t112.3\t941.6\t0.529\t170
insurance\t6\t1338\t0.225\t0.747\t0.751\t3.6\t12.0\t16.2\t0.835\t236
load diabetes\t10\t442\t0.182\t0.295\t0.308\t2.1\t5.7\t51.9\t0.456\t53
friedman1\t10\t2000\t0.209\t0.508\t0.553\t5.9\t24.9\t51.4\t0.977\t231
friedman2\t4\t10000\t0.265\t0.788\t0.808\t5.8\t16.9\t18.5\t0.999\t638
friedman3\t4\t5000\t0.161\t0.508\t0.524\t4.8\t16.9\t22.5\t0.881\t192
mobile prices\t20\t2000\t0.132\t0.770\t0.779\t7.2\t39.5\t2437.3\t0.934\t105
red wine quality\t11\t1599\t0.109\t0.256\t0.267\t4.1\t22.0\t623.1\t0.449\t138
suicide rates\t5\t27820\t0.206\t0.298\t0.302\t45.3\t243.1\t259.8\t0.396\t249
used cars\t4\t1770\t0.269\t0.689\t0.720\t4.2\t12.5\t13.3\t0.962\t283
videogamesales\t6\t16327\t0.116\t0.840\t0.860\t34.7\t131.0\t148.8\t0.999\t991
life expectancy\t21\t1649\t0.246\t0.582\t0.599\t6.4\t68.4\t161.2\t0.955\t245
world happiness\t8\t315\t0.274\t0.599\t0.653\t1.8\t5.2\t34.3\t0.969\t108
"""

# Yang et al. (2024), Table 5, verbatim. Columns: dataset, d, n, train risks
# (SRS, SGS, SGB, SXB, COB_G, COB_B), test risks (same order), five
# computation times (see the module notes).
YANG_TABLE5_TEXT = """\
TITANIC\t7\t1043\t.895\t\t.656\t\t.639\t.616\t\t\t.707\t\t.713\t\t\t\t\t10.21\t
TIC-TAC-TOE\t27\t958\t\t.555\t\t\t.650\t. 492\t\t\t.682\t\t.721\t\t\t3.971\t\t\t13.99
IRIS\t4\t150\t\t.261\t\t\t.192\t.251\t\t\t.440\t\t.531\t\t\t\t\t1.453\t
BREAST\t30\t569\t\t.277\t\t.314\t.290\t.304\t\t\t.362\t\t.383\t\t\t\t\t74.83\t
WINE\t13\t178\t\t.216\t\t.192\t.191\t.183\t\t\t.431\t\t.483\t\t\t\t\t\t55.183
IBM HR\t32\t1470\t\t.567\t\t\t.558\t.558\t\t\t\t\t.652\t\t\t\t\t12.92\t12.03
TELCO CHURN\t18\t7043\t.944\t.679\t.682\t.678\t.664\t.668\t.945\t.663\t.677\t.665\t.650\t.660\t50.83\t40.01\t1883\t1485\t3039
GENDER\t20\t3168\t.566\t.230\t.230\t.249\t.224\t.224\t.570\t.243\t.247\t.263\t.246\t.246\t22.42\t22.73\t25.49\t24.27\t32.95
BANKNOTE\t4\t1372\t.854\t.304\t.267\t.290\t.253\t.228\t.858\t.311\t.268\t.299\t.264\t.229\t8.933\t6.298\t5.648\t7.060\t8.444
LIVER\t6\t345\t.908\t.815\t.834\t.814\t.802\t.834\t.917\t.879\t.927\t.873\t.940\t.891\t9.734\t1.997\t99.72\t124.1\t193.9
MAGIC\t10\t19020\t.906\t.718\t.708\t.710\t.707\t.707\t.903\t.698\t.693\t.693\t.688\t.688\t1.364\t75.14\t89.18\t101.9\t352.2
ADULT\t11\t30162\t.804\t.594\t.599\t.588\t.575\t.576\t.802\t.603\t.615\t.601\t.589\t.589\t2.169\t121.0\t136.7\t146.0\t728.3
digits5\t64\t3915\t.248\t.332\t.312\t.344\t.329\t.315\t.262\t.329\t.314\t.341\t.320\t.315\t52.60\t110.8\t72.74\t101.5\t97.4
INSURANCE\t6\t1338\t.169\t.130\t.142\t.144\t.120\t.123\t.177\t.132\t.145\t.147\t.127\t.128\t14.06\t7.507\t15.94\t12.98\t39.53
friedman1\t10\t2000\t.180\t.089\t.074\t.068\t.067\t.068\t.165\t.091\t.077\t.075\t.070\t.072\t16.79\t2.514\t4.302\t3.171\t6.915
friedman2\t4\t10000\t.082\t.133\t.119\t.115\t.770\t.075\t.082\t.135\t.120\t.115\t.077\t.077\t47.33\t11.79\t17.56\t13.18\t28.4
friedman3\t4\t5000\t.093\t.045\t.042\t.042\t.041\t.041\t.092\t.048\t.047\t.046\t.045\t.045\t29.86\t6.243\t10.61\t8.559\t17.65
WAGE\t5\t1379\t.427\t.370\t.362\t.359\t.352\t.354\t.341\t.358\t.405\t.411\t.368\t.365\t14.18\t5.605\t12.12\t13.17\t25.19
DEMOGRAPHICS\t13\t6876\t.219\t.214\t.214\t.214\t.212\t.212\t.209\t.216\t.217\t.217\t.214\t.215\t38.24\t36.80\t29.40\t33.04\t72.42
GDP\t1\t35\t.063\t.020\t.020\t.020\t.024\t.020\t.059\t.020\t.020\t.020\t.027\t.020\t7.974\t.261\t.351\t.282\t.488
USED CARS\t4\t1770\t.373\t.139\t.123\t.132\t.113\t.121\t.427\t.171\t.131\t.141\t.116\t.130\t15.00\t8.371\t12.10\t9.484\t20.27
DIABETES\t10\t442\t.156\t.138\t.142\t.139\t.132\t.134\t.188\t.141\t.141\t.147\t.136\t.149\t10.50\t2.204\t3.574\t3.920\t7.591
BOSTON\t13\t506\t.101\t.086\t.087\t.086\t.080\t.082\t.105\t.079\t.087\t.089\t.088\t.087\t10.96\t3.055\t6.731\t5.285\t10.44
HAPPINESS\t8\t315\t.109\t.031\t.031\t.031\t.029\t.029\t.109\t.033\t.039\t.039\t.035\t.033\t6.344\t1.160\t11.37\t11.31\t26.43
LIFE EXPECT.\t21\t1649\t.109\t.026\t.026\t.026\t.026\t.026\t.110\t.027\t.027\t.027\t.026\t.026\t21.44\t16.16\t58.43\t63.82\t131.2
MOBILE PRICES\t20\t2000\t.148\t.131\t.137\t.137\t.122\t.126\t.140\t.134\t.143\t.143\t.126\t.132\t33.81\t15.03\t367.7\t442.5\t815.4
SUICIDE RATE\t5\t27820\t.547\t.543\t.540\t.540\t.540\t.532\t.514\t.521\t.521\t.521\t.519\t.512\t52.35\t109.6\t117.1\t139.6\t644.6
VIDEOGAME\t6\t16327\t.895\t.953\t.953\t.953\t.953\t.953\t.850\t.720\t.720\t.720\t.720\t.720\t1.171\t41.91\t34.38\t45.90\t119.1
RED WINE\t11\t1599\t.072\t.034\t.035\t.034\t.034\t.034\t.073\t.035\t.036\t.036\t.035\t.035\t19.94\t9.149\t15.32\t21.99\t35.34
COVID VIC\t4\t85\tNA\t.153\t.121\t.132\t.105\t.086\tNA\t.182\t.100\t.133\t.104\t.086\tNA\t.523\t.600\t.628\t.854
COVID\t2\t225\tNA\t.344\t.371\t.891\t.343\t.321\tNA\t.459\t.411\t.741\t.417\t.395\tNA\t.701\t.690\t.682\t1.143
BICYCLE\t4\t122\tNA\t.317\t.324\t.337\t.296\t.275\tNA\t.366\t.478\t.457\t.529\t.320\tNA\t.695\t1.103\t1.105\t2.124
SHIPS\t4\t34\tNA\t.174\t.181\t.146\t.125\t.168\tNA\t.197\t.203\t.199\t.464\t.155\tNA\t.235\t.296\t.311\t.448
SMOKING\t2\t36\tNA\t.127\t.128\t.163\t.078\t.072\tNA\t.136\t.250\t.322\t.121\t.084\tNA\t.266\t.256\t.208\t.301
"""

# Paper dataset name -> rulebook.datasets registry name (or generator); None
# when the dataset is not among shared/datasets.
_BOLEY_NAMES = {
    "breast cancer": "breast_cancer", "digits (5)": "digits5", "gender recog": "gender_recognition",
    "IBM HR": None, "iris (1)": "iris", "wine (1)": "wine", "classification2": None,
    "telco churn": None, "tic-tac-toe": "tic_tac_toe", "titanic": "titanic", "boston": "boston",
    "demographics": "demographics", "insurance": "insurance", "load diabetes": "diabetes",
    "friedman1": "friedman1", "friedman2": "friedman2", "friedman3": "friedman3",
    "mobile prices": "mobile_prices", "red wine quality": None, "suicide rates": "suicide_rates",
    "used cars": "used_cars", "videogamesales": "videogames", "life expectancy": None,
    "world happiness": "world_happiness",
}
_YANG_NAMES = {
    "TITANIC": "titanic", "TIC-TAC-TOE": "tic_tac_toe", "IRIS": "iris", "BREAST": "breast_cancer",
    "WINE": "wine", "IBM HR": None, "TELCO CHURN": None, "GENDER": "gender_recognition",
    "BANKNOTE": "banknote", "LIVER": None, "MAGIC": "magic", "ADULT": "adult", "digits5": "digits5",
    "INSURANCE": "insurance", "friedman1": "friedman1", "friedman2": "friedman2",
    "friedman3": "friedman3", "WAGE": None, "DEMOGRAPHICS": "demographics", "GDP": "gdp",
    "USED CARS": "used_cars", "DIABETES": "diabetes", "BOSTON": "boston", "HAPPINESS": "world_happiness",
    "LIFE EXPECT.": None, "MOBILE PRICES": "mobile_prices", "SUICIDE RATE": "suicide_rates",
    "VIDEOGAME": "videogames", "RED WINE": None, "COVID VIC": "covid_vic", "COVID": "covid",
    "BICYCLE": "bicycle", "SHIPS": "ships", "SMOKING": None,
}
# Rows whose cells were lost in the text version of Yang et al. (module notes).
_YANG_GARBLED = ("TITANIC", "TIC-TAC-TOE", "IRIS", "BREAST", "WINE", "IBM HR")
YANG_METHODS = ("SRS", "SGS", "SGB", "SXB", "COB_G", "COB_B")


@dataclass(frozen=True)
class BoleyRow:
    """One row of Boley et al. (2021), Table 1.

    Attributes
    ----------
    paper_name : str
        The dataset as the paper names it.
    name : str or None
        rulebook's dataset name, None if not in ``shared/datasets``.
    task : {"binary", "regression"}
        Upper (ROC AUC) or lower (R^2) section of the table.
    n_features, n_rows : int
    auc : dict of {"rf", "grd", "opt": float}
        Mean test score over models of 1 to 10 rules.
    time : dict of {"rf", "grd", "opt": float}
        Computation time in seconds (greatest ensemble size, 10).
    unbounded_rf_score : float
    unbounded_rf_rules : int
    """

    paper_name: str
    name: str | None
    task: str
    n_features: int
    n_rows: int
    auc: dict
    time: dict
    unbounded_rf_score: float
    unbounded_rf_rules: int


@dataclass(frozen=True)
class YangRow:
    """One row of Yang et al. (2024), Table 5.

    Attributes
    ----------
    paper_name : str
    name : str or None
        rulebook's dataset name, None if not in ``shared/datasets``.
    n_features, n_rows : int
    train_risk, test_risk : dict of {method: float or None}
        Keys :data:`YANG_METHODS`; None where the paper has ``NA`` (SIRUS on
        Poisson data) or the transcription lost the cell.
    times_raw : tuple of (float or None)
        The five computation-time cells, unlabelled (module notes).
    """

    paper_name: str
    name: str | None
    n_features: int
    n_rows: int
    train_risk: dict
    test_risk: dict
    times_raw: tuple


def _number(cell):
    cell = cell.strip()
    return None if cell in ("", "NA") else float(cell)


def _parse_boley(text):
    rows = {}
    for index, line in enumerate(text.strip("\n").split("\n")):
        cells = line.split("\t")
        paper_name = cells[0]
        values = [float(c) for c in cells[1:]]
        # The first ten rows are the classification section of the table.
        row = BoleyRow(
            paper_name=paper_name, name=_BOLEY_NAMES[paper_name],
            task="binary" if index < 10 else "regression",
            n_features=int(values[0]), n_rows=int(values[1]),
            auc=dict(zip(("rf", "grd", "opt"), values[2:5])),
            time=dict(zip(("rf", "grd", "opt"), values[5:8])),
            unbounded_rf_score=values[8], unbounded_rf_rules=int(values[9]),
        )
        rows[row.name or paper_name] = row
    return rows


def _parse_yang(text):
    rows, raw = {}, {}
    for line in text.strip("\n").split("\n"):
        cells = line.split("\t")
        paper_name = cells[0]
        if paper_name in _YANG_GARBLED:
            raw[paper_name] = line
            numbers = [None] * 17
        else:
            numbers = [_number(c) for c in cells[3:20]]
        row = YangRow(
            paper_name=paper_name, name=_YANG_NAMES[paper_name],
            n_features=int(cells[1]), n_rows=int(cells[2]),
            train_risk=dict(zip(YANG_METHODS, numbers[0:6])),
            test_risk=dict(zip(YANG_METHODS, numbers[6:12])),
            times_raw=tuple(numbers[12:17]),
        )
        rows[row.name or paper_name] = row
    return rows, raw


#: Boley et al. (2021), Table 1, by rulebook dataset name (the paper's name
#: for datasets not in ``shared/datasets``).
BOLEY_TABLE1 = _parse_boley(BOLEY_TABLE1_TEXT)
#: Yang et al. (2024), Table 5, keyed like :data:`BOLEY_TABLE1`.
YANG_TABLE5, YANG_TABLE5_RAW = _parse_yang(YANG_TABLE5_TEXT)
