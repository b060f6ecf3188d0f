"""Sphinx configuration of the rulebook documentation.

Build: ``python -m sphinx -W -b html docs docs/_build/html`` (after
``pip install ".[docs]"``). The tutorials are the notebooks of ``notebooks/``,
copied into ``tutorials/`` at build time and executed by myst-nb. Their
charts are static SVG made offline by vl-convert: rulebook's by default, and
Altair's own because each notebook's hidden first cell enables Altair's
``"svg"`` renderer.
"""

import os
import shutil
from pathlib import Path

import rulebook

HERE = Path(__file__).parent
NOTEBOOKS = HERE.parent / "notebooks"

# -- tutorials: the notebooks, copied so that they live in the source tree --
TUTORIALS = HERE / "tutorials"
TUTORIALS.mkdir(exist_ok=True)
for old in TUTORIALS.glob("*.ipynb"):
    old.unlink()
for notebook in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")):
    shutil.copy2(notebook, TUTORIALS / notebook.name)
# Progress bars are noise in a static page.
os.environ.setdefault("TQDM_DISABLE", "1")

# -- project -----------------------------------------------------------------
project = "rulebook"
author = "The rulebook developers"
copyright = "the rulebook developers"
release = rulebook.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_nb",
]

source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "**.ipynb_checkpoints", "README.md"]
templates_path = ["_templates"]

# -- API reference (numpydoc) ------------------------------------------------
autosummary_generate = True
# A class page lists its own members; an estimator's page (template
# estimator.rst) also those inherited from rulebook's private bases (fit,
# staged_ensembles, explore). The methods scikit-learn defines (score,
# get_params, ...) and its generated metadata-routing setters
# (set_fit_request, ...) are left out: scikit-learn documents them, and their
# docstrings cross-reference scikit-learn's glossary, which does not resolve
# here.
autodoc_default_options = {
    "members": True,
    "exclude-members": "set_fit_request, set_score_request, set_predict_request, "
                       "set_predict_proba_request, set_transform_request",
}


def _skip_scikit_learn_members(app, what, name, obj, skip, options):
    """Leave out the members that scikit-learn defines."""
    function = getattr(obj, "fget", obj)  # a property's getter
    module = getattr(function, "__module__", None) or ""
    if module.partition(".")[0] == "sklearn":
        return True
    return None


# The class pages list their public methods through autosummary tables of
# numpydoc; listing every attribute as well would duplicate the dataclass
# fields, so members are not auto-listed a second time.
numpydoc_show_class_members = False
numpydoc_xref_param_type = False
# numpydoc's validation is not turned into warnings here: docstring style is
# checked by the package's own tests, not by the docs build.
numpydoc_validation_checks = set()

intersphinx_mapping = {
    "python": ("https://docs.python.org/3", None),
    "numpy": ("https://numpy.org/doc/stable", None),
    "pandas": ("https://pandas.pydata.org/docs", None),
    "sklearn": ("https://scikit-learn.org/stable", None),
}
# Links into other projects' docs need their inventories from the network;
# the build must work offline (and with -W), so they are opt-in.
if not os.environ.get("RULEBOOK_DOCS_INTERSPHINX"):
    intersphinx_mapping = {}

# -- notebooks (myst-nb) -----------------------------------------------------
nb_execution_mode = os.environ.get("RULEBOOK_DOCS_EXECUTE", "force")
nb_execution_timeout = 300
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_merge_streams = True
# Altair's SVG output first, then the usual.
nb_mime_priority_overrides = [("html", "image/svg+xml", 5)]
myst_enable_extensions = ["dollarmath", "amsmath"]

# -- HTML --------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"rulebook {release}"
html_static_path = []
html_theme_options = {
    "github_url": "https://github.com/rulebook-dev/rulebook",
    "navigation_with_keys": False,
    "show_toc_level": 2,
}


def setup(app):
    app.connect("autodoc-skip-member", _skip_scikit_learn_members)
