"""rulebook's widgets, charts and tutorials in a real JupyterLab, driven by a headless Chromium.

Both tests start ``jupyter lab`` on 127.0.0.1 (free port, no token,
everything in a temporary directory), open notebooks in it and run them
with every request to another host blocked (Playwright request routing),
as on a machine without network.

``test_slider_changes_the_rules_table_in_jupyterlab`` opens a generated
notebook that shows ``model.explore()``, a chart and a
``LearnerComparison`` with the package defaults. Checks that the charts
draw (an SVG exists, no "Error loading script"), moves the slider with the
keyboard and checks that the rules table in the page changes, then reopens
a saved explorer output without its kernel. About four minutes at most.

``test_every_tutorial_runs_and_draws_its_charts_offline`` runs every
tutorial ``notebooks/*.ipynb`` (copied with its folder) in one JupyterLab,
one after the other: opens it, runs all cells, waits until every code cell
has run, and checks that no output is an error, that every chart output
(Vega, static SVG, image, explorer and comparison widgets) has drawn, that
every cell that makes and shows a chart (read from the cell's source) shows
one, and that nothing was requested from a CDN. Each tutorial's kernel is
shut down before the next one opens. Bounded: a deadline per tutorial and
about five minutes in all; the time of each tutorial is printed.

Skipped, with the reason, when Chromium, Playwright or JupyterLab is
missing or JupyterLab does not start. The server is stopped in
``finally``. With ``RULEBOOK_BROWSER_ARTIFACTS`` set to a directory,
screenshots are written there: ``explorer-offline.png``,
``explorer-reopened.png`` and ``tutorial-<notebook name>.png`` per tutorial
(the whole notebook; CI keeps them; they are not committed).

Chromium comes from the system (Debian package ``chromium``); Playwright's
own browser download is never used. Set ``RULEBOOK_CHROMIUM`` to another
executable if needed.
"""


import ast
import contextlib
import inspect
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

# Bounds against a hang, not timings: generous, because the test suite's
# other pytest-xdist worker shares the two cores with JupyterLab's kernel.
DEADLINE_SECONDS = 480
# All tutorials, server start included, and each one (its cells run in
# about a minute at most on two busy cores).
TUTORIALS_DEADLINE_SECONDS = 600
TUTORIAL_DEADLINE_SECONDS = 240
TUTORIALS = Path(__file__).resolve().parent.parent / "notebooks"
VIEWPORT = {"width": 1400, "height": 2400}
# Chromium draws a full-page screenshot up to about 16,384 px high.
MAX_SCREENSHOT_HEIGHT = 16000
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]

# The package defaults, nothing switched on for the test: the charts must
# draw without network as a user gets them.
NOTEBOOK_CELLS = [
    """\
from rulebook import RuleBoostingClassifier
from rulebook.charts import rule_weights_chart
from rulebook.datasets import load_titanic

X, y = load_titanic()
model = RuleBoostingClassifier(n_rules=4).fit(X, y)
model.explore()
""",
    "rule_weights_chart(model)",
    """\
from rulebook.widgets import LearnerComparison

LearnerComparison(X, y, learners=["greedy"], n_rules=3)
""",
]
LOCAL_HOSTS = {"127.0.0.1", "localhost", "[::1]"}
ERROR_TEXTS = ("Error loading script", "Failed to create view", "JavaScript Error", "Error displaying widget")
# A blocked request whose URL has one of these is a chart library fetched
# from the network: charts that would not draw offline.
CDN_MARKERS = ("vega", "esm.sh", "jsdelivr", "unpkg", "cdnjs")


def _chromium():
    path = os.environ.get("RULEBOOK_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        pytest.skip("no Chromium installed (Debian: apt-get install chromium); browser test not run")
    return path


def _browser_tools():
    """Chromium's path and Playwright's sync API; skip when they, JupyterLab or nbformat are missing."""
    chromium = _chromium()
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="playwright not installed; browser test not run")
    pytest.importorskip("jupyterlab", reason="jupyterlab not installed; browser test not run")
    pytest.importorskip("nbformat", reason="nbformat not installed; browser test not run")
    return chromium, sync_api


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _write_notebook(directory):
    import nbformat

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in NOTEBOOK_CELLS]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, directory / "explorer.ipynb")


def _write_reopened_notebook(directory):
    """A notebook as saved after showing an explorer, its kernel long gone.

    Not signed, so JupyterLab treats its outputs as untrusted, as for any
    notebook someone else ran; the widget cannot render there, the
    explorer's text/HTML fallback must.
    """
    import nbformat

    from rulebook import RuleBoostingClassifier
    from rulebook.datasets import load_titanic
    from rulebook.widgets import BoostingExplorer

    X, y = load_titanic()
    model = RuleBoostingClassifier(n_rules=3, verbose=0).fit(X, y)
    bundle = BoostingExplorer(model)._repr_mimebundle_()
    notebook = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("model.explore()", execution_count=1)
    cell.outputs = [nbformat.v4.new_output("display_data", data=bundle)]
    notebook.cells = [cell]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, directory / "reopened.ipynb")
    return [str(rule.query) for rule in model.ensemble_.rules]


def _start_lab(directory, port, log):
    env = dict(os.environ)
    for name, sub in (("JUPYTER_CONFIG_DIR", "config"), ("JUPYTER_RUNTIME_DIR", "runtime"),
                      ("JUPYTERLAB_SETTINGS_DIR", "settings"), ("JUPYTERLAB_WORKSPACES_DIR", "workspaces")):
        env[name] = str(directory / sub)
    # No "get notified about Jupyter news?" toast over the screenshots.
    settings = directory / "settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True, exist_ok=True)
    (settings / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    command = [
        sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
        "--ServerApp.port_retries=0", "--IdentityProvider.token=", "--ServerApp.password=",
        "--ServerApp.disable_check_xsrf=True", "--LabApp.expose_app_in_browser=True",
        "--LabApp.news_url=", "--LabApp.extension_manager=readonly", "--ServerApp.terminals_enabled=False",
        f"--ServerApp.root_dir={directory / 'notebooks'}",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")  # CI containers run as root
    return subprocess.Popen(command, cwd=directory, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)


def _wait_for_server(process, url, deadline):
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        try:
            with urllib.request.urlopen(url + "api/status", timeout=2) as response:
                if response.status == 200:
                    return True
        except OSError:
            time.sleep(0.3)
    return False


def _stop(process):
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


@contextlib.contextmanager
def _jupyter_lab(directory, deadline):
    """JupyterLab serving ``directory / "notebooks"``: its URL; skip if it does not start."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}/"
    log_path = directory / "jupyterlab.log"
    with open(log_path, "wb") as log:
        server = _start_lab(directory, port, log)
        try:
            if not _wait_for_server(server, url, min(deadline, time.monotonic() + 45)):
                _stop(server)
                pytest.skip("jupyter lab did not start; its log:\n"
                            + log_path.read_text(errors="replace")[-2000:])
            yield url
        finally:
            _stop(server)


@contextlib.contextmanager
def _offline_page(sync_api, chromium):
    """A Chromium page with the network blocked, and the list of the URLs it was refused."""
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS, headless=True)
        try:
            # About a 1,000 px notebook column next to JupyterLab's file browser.
            page = browser.new_page(viewport=VIEWPORT)
            yield page, _block_the_network(page)
        finally:
            browser.close()


def _remaining_ms(deadline):
    return max(1000, int((deadline - time.monotonic()) * 1000))


RULE_ROWS = """() => {
    const table = document.querySelector('.rb-explorer-rules table.rb-rules');
    return table ? table.querySelectorAll('tbody tr').length : -1;
}"""


def test_slider_changes_the_rules_table_in_jupyterlab(tmp_path):
    chromium, sync_api = _browser_tools()
    started = time.monotonic()
    deadline = started + DEADLINE_SECONDS
    (tmp_path / "notebooks").mkdir()
    _write_notebook(tmp_path / "notebooks")
    reopened_rules = _write_reopened_notebook(tmp_path / "notebooks")
    with _jupyter_lab(tmp_path, deadline) as url, _offline_page(sync_api, chromium) as (page, blocked):
        _drive_browser(page, blocked, url, deadline, reopened_rules)
    print(f"browser test took {time.monotonic() - started:.1f} s")


def handle_readout(page):
    return page.locator(".rb-explorer .widget-slider .widget-readout").first.inner_text().strip()


def _block_the_network(page):
    """Abort every request to another host; return the list of their URLs."""
    blocked = []

    def route(request_route):
        url = request_route.request.url
        parts = urllib.parse.urlsplit(url)
        if parts.scheme in ("data", "blob") or parts.hostname in LOCAL_HOSTS:
            request_route.continue_()
        else:
            blocked.append(url)
            request_route.abort("internetdisconnected")

    page.route("**/*", route)
    return blocked


def _cdn_requests(blocked):
    return [url for url in blocked if any(marker in url for marker in CDN_MARKERS)]


def _screenshot(page, name):
    directory = os.environ.get("RULEBOOK_BROWSER_ARTIFACTS")
    if directory:
        Path(directory).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(directory) / name), full_page=True)


def _drive_browser(page, blocked, url, deadline, reopened_rules):
    def remaining_ms():
        return _remaining_ms(deadline)

    page.goto(url + "lab/tree/explorer.ipynb", timeout=remaining_ms())
    # jupyterapp is exposed by --LabApp.expose_app_in_browser.
    page.wait_for_function("() => window.jupyterapp && document.querySelector('.jp-Notebook')",
                           timeout=remaining_ms())
    page.wait_for_function(
        "() => { const w = window.jupyterapp.shell.currentWidget;"
        " return w && w.sessionContext && w.sessionContext.session"
        " && w.sessionContext.session.kernel; }", timeout=remaining_ms())
    page.evaluate("() => { window.rbRunning = window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
    page.wait_for_function(f"({RULE_ROWS})() > 0", timeout=remaining_ms())
    # The charts draw offline: the explorer's (vega bundled into the
    # widget) and the chart function's (static SVG from the kernel).
    page.locator(".rb-explorer .vega-embed svg").first.wait_for(timeout=remaining_ms())
    page.locator(".jp-OutputArea-output.jp-RenderedSVG").first.wait_for(timeout=remaining_ms())
    page.locator(".rb-comparison .vega-embed svg").first.wait_for(timeout=remaining_ms())
    _screenshot(page, "explorer-offline.png")
    text = page.locator(".jp-Notebook").inner_text()
    assert not [error for error in ERROR_TEXTS if error in text], text[-2000:]
    assert not _cdn_requests(blocked), blocked
    _check_the_explorer(page, remaining_ms)
    _check_the_reopened_notebook(page, url, reopened_rules, remaining_ms)


def _check_the_explorer(page, remaining_ms):
    before = page.evaluate(RULE_ROWS)
    assert before == 1 + 4  # intercept + 4 rules, after the last round
    handle = page.locator(".rb-explorer .widget-slider .noUi-handle").first
    handle.focus()
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    page.wait_for_function(f"({RULE_ROWS})() === {before - 2}", timeout=remaining_ms())
    assert handle_readout(page) == "2"
    page.keyboard.press("Home")
    page.wait_for_function(f"({RULE_ROWS})() === 1", timeout=remaining_ms())
    # The first tab is the rule weights chart (no test data given); its
    # first bar is rule 1's weight. Clicking it must move the slider.
    bar = page.locator(".rb-explorer .vega-embed .mark-rect path").first
    bar.wait_for(timeout=remaining_ms())
    bar.click()
    page.wait_for_function(f"({RULE_ROWS})() === 2", timeout=remaining_ms())
    assert handle_readout(page) == "1"
    # Play runs on to the last round (one per second) and stays there:
    # the charts' reports of their redraws must not pull it back.
    page.locator(".rb-explorer .widget-play button").first.click()
    page.wait_for_function(f"({RULE_ROWS})() === 5", timeout=remaining_ms())
    page.wait_for_timeout(1500)
    assert page.evaluate(RULE_ROWS) == 5 and handle_readout(page) == "4"


def _check_the_reopened_notebook(page, url, rules, remaining_ms):
    """The saved explorer output reads as the model's rules, not a raw widget repr."""
    page.goto(url + "lab/tree/reopened.ipynb", timeout=remaining_ms())
    output = page.locator(".jp-OutputArea-output").first
    output.wait_for(timeout=remaining_ms())
    _screenshot(page, "explorer-reopened.png")
    text = output.inner_text()
    assert "run the cell" in text and "BoostingExplorer(children" not in text, text
    assert all(rule in text for rule in rules), text
    assert "Error displaying widget" not in text


# -- every tutorial ------------------------------------------------------------
def _chart_makers():
    """Names whose call makes a chart: rulebook's chart functions, widgets, ``alt.Chart``.

    rulebook's are the functions of ``rulebook.charts`` documented to return
    a chart, so that a new chart function counts without editing this test.
    """
    import rulebook.charts

    functions = {name for name, function in vars(rulebook.charts).items()
                 if inspect.isfunction(function) and function.__module__ == rulebook.charts.__name__
                 and not name.startswith("_")
                 and re.search(r"Returns\n-+\n\S*Chart\b", inspect.getdoc(function) or "")}
    assert {"score_curve", "rule_weights_chart"} <= functions, functions
    return functions | {"Chart", "explore", "BoostingExplorer", "LearnerComparison"}


def _cells_showing_charts(notebook):
    """Indexes of the code cells whose shown value is a chart, read from their source.

    A cell shows a chart when its last statement is an expression (no
    closing ";", not a ``print``) that calls a chart maker or uses a
    variable an earlier statement of the notebook set to one, e.g.
    ``score_curve(...)``, ``chart.properties(...)`` or ``(a | b)``.
    """
    from IPython.core.inputtransformer2 import TransformerManager

    makers, variables, cells = _chart_makers(), set(), []
    transform = TransformerManager().transform_cell

    def makes_a_chart(node):
        for inner in ast.walk(node):
            if isinstance(inner, ast.Call):
                function = inner.func
                name = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", None)
                if name in makers:
                    return True
            if isinstance(inner, ast.Name) and inner.id in variables:
                return True
        return False

    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code":
            continue
        body = ast.parse(transform(cell.source)).body
        for statement in body:
            if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None \
                    and makes_a_chart(statement.value):
                targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                variables.update(node.id for target in targets for node in ast.walk(target)
                                 if isinstance(node, ast.Name))
        last = body[-1].value if body and isinstance(body[-1], ast.Expr) else None
        printed = isinstance(last, ast.Call) and getattr(last.func, "id", None) == "print"
        if last is not None and not printed and not cell.source.rstrip().endswith(";") and makes_a_chart(last):
            cells.append(index)
    return cells


# Opening is started here and polled with NOTEBOOK_OPENED: a page.evaluate
# that awaits JupyterLab's promises failed once in CI with "Resulting promise
# was garbage collected". The chain is kept on window so it is not collected.
OPEN_NOTEBOOK = """(path) => {
    const app = window.jupyterapp;
    window.rbNotebook = null;
    window.rbOpened = null;
    window.rbOpenError = null;
    window.rbOpening = app.commands.execute('docmanager:open', {path, factory: 'Notebook'})
        .then(panel => { window.rbNotebook = panel; return panel.context.ready.then(() => panel); })
        .then(panel => { app.shell.activateById(panel.id); window.rbOpened = path; })
        .catch(error => { window.rbOpenError = String(error); });
}"""
NOTEBOOK_OPENED = "(path) => window.rbOpened === path || window.rbOpenError !== null"
KERNEL_IDLE = """() => {
    const session = window.rbNotebook.sessionContext.session;
    return Boolean(session && session.kernel && session.kernel.status === 'idle');
}"""
RUN_ALL_CELLS = """() => {
    const app = window.jupyterapp;
    if (app.shell.currentWidget !== window.rbNotebook) throw new Error('the tutorial is not the current tab');
    // Not awaited (see OPEN_NOTEBOOK): polled with RUN_STATE.
    window.rbRunStarted = false;
    window.rbRunning = app.commands.execute('notebook:clear-all-cell-outputs')
        .then(() => { window.rbRunStarted = true; return app.commands.execute('notebook:run-all-cells'); });
}"""
# Done when the kernel is idle and every code cell has an execution count,
# or a cell failed (JupyterLab then runs no further cell).
RUN_STATE = """() => {
    const panel = window.rbNotebook;
    const session = panel.sessionContext.session;
    const cells = panel.content.widgets.filter(cell => cell.model.type === 'code');
    const failed = cells.some(cell => Array.from({length: cell.model.outputs.length},
                                                 (_, i) => cell.model.outputs.get(i).type).includes('error'));
    return {started: window.rbRunStarted, kernel: session && session.kernel ? session.kernel.status : 'none',
            cells: cells.length,
            run: cells.filter(cell => cell.model.executionCount !== null).length, failed};
}"""
# Per cell: its execution count, errors, output text and chart outputs,
# each with whether it drew (an SVG with content, a canvas, a decoded image).
CELL_REPORT = """() => {
    const drawn = element => {
        const tag = element.tagName.toLowerCase();
        return (tag === 'svg' && element.childElementCount > 0)
            || (tag === 'canvas' && element.width > 0 && element.height > 0)
            || (tag === 'img' && element.complete && element.naturalWidth > 0);
    };
    const drewIn = node => Array.from(node.querySelectorAll('svg, canvas, img')).some(drawn);
    const visible = node => node.getClientRects().length > 0;
    const text = node => {  // what the output says, not its scripts or styles
        const walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
        const parts = [];
        while (walker.nextNode()) {
            if (!walker.currentNode.parentElement.closest('script, style')) parts.push(walker.currentNode.data);
        }
        return parts.join('');
    };
    const chart = node => {
        const mime = node.getAttribute('data-mime-type') || '';
        let kind = null;
        if (node.querySelector('.rb-explorer')) kind = 'explorer';
        else if (node.querySelector('.rb-comparison')) kind = 'comparison';
        else if (mime.includes('vega') || node.querySelector('.vega-embed')) kind = 'vega';
        else if (node.classList.contains('jp-RenderedSVG')) kind = 'svg';
        else if (node.classList.contains('jp-RenderedImage')) kind = 'image';
        if (kind === null) return null;
        let drew;
        if (kind === 'svg' || kind === 'image') {
            drew = drewIn(node);
        } else {
            // Every vega view drew; one in a hidden tab of a widget may wait until shown.
            const views = Array.from(node.querySelectorAll('.vega-embed'));
            drew = views.some(drewIn) && views.filter(visible).every(drewIn);
        }
        return {kind, mime, drew};
    };
    return window.rbNotebook.content.widgets.map((cell, index) => {
        if (cell.model.type !== 'code') return null;
        const outputs = Array.from({length: cell.model.outputs.length}, (_, i) => cell.model.outputs.get(i).toJSON());
        const nodes = Array.from(cell.node.querySelectorAll('.jp-OutputArea-output'))
            .filter(node => !node.parentElement.closest('.jp-OutputArea-output'));
        return {
            index, count: cell.model.executionCount,
            errors: outputs.filter(output => output.output_type === 'error')
                           .map(output => `${output.ename}: ${output.evalue}`),
            text: nodes.map(text).join('\\n'),
            charts: nodes.map(chart).filter(Boolean),
        };
    });
}"""
# How much higher the page must be to show the notebook down to its last
# cell (it scrolls in its own element, not the page; negative: lower).
NOTEBOOK_OVERFLOW = """() => {
    const content = window.rbNotebook.content;
    const node = content.node.querySelector('.jp-WindowedPanel-outer') || content.node;
    node.scrollTop = 0;
    const last = content.widgets[content.widgets.length - 1].node;
    const bottom = last.getBoundingClientRect().bottom - node.getBoundingClientRect().top;
    return Math.ceil(bottom + 20 - node.clientHeight);
}"""
CLOSE_NOTEBOOK = """() => {
    const panel = window.rbNotebook;
    window.rbNotebook = null;
    window.rbClosed = false;
    window.rbClosing = panel.sessionContext.shutdown()
        .finally(() => {
            panel.context.model.dirty = false;  // its outputs are not saved
            panel.close();
            window.rbClosed = true;
        });
}"""


def test_every_tutorial_runs_and_draws_its_charts_offline(tmp_path):
    chromium, sync_api = _browser_tools()
    import nbformat

    started = time.monotonic()
    deadline = started + TUTORIALS_DEADLINE_SECONDS
    tutorials = sorted(TUTORIALS.glob("*.ipynb"))
    assert tutorials, f"no tutorials in {TUTORIALS}"
    # The whole folder: a tutorial may read files next to it (the datasets
    # come from the installed package).
    shutil.copytree(TUTORIALS, tmp_path / "notebooks",
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    with _jupyter_lab(tmp_path, deadline) as url, _offline_page(sync_api, chromium) as (page, blocked):
        page.goto(url + "lab", timeout=_remaining_ms(deadline))
        page.wait_for_function("() => window.jupyterapp && window.jupyterapp.commands.hasCommand('docmanager:open')",
                               timeout=_remaining_ms(deadline))
        page.evaluate("() => { window.jupyterapp.restored.then(() => { window.rbRestored = true; }); }")
        page.wait_for_function("() => window.rbRestored === true", timeout=_remaining_ms(deadline))
        print(f"\njupyter lab ready after {time.monotonic() - started:.1f} s")
        for path in tutorials:
            _run_tutorial(page, blocked, url, path, nbformat.read(path, as_version=4), deadline)
    print(f"tutorials browser test took {time.monotonic() - started:.1f} s")


def _run_tutorial(page, blocked, url, path, notebook, deadline):
    started = time.monotonic()
    own_deadline = min(deadline, started + TUTORIAL_DEADLINE_SECONDS)
    name = path.name
    expected = _cells_showing_charts(notebook)
    first_blocked = len(blocked)
    page.evaluate(OPEN_NOTEBOOK, name)
    page.wait_for_function(NOTEBOOK_OPENED, arg=name, timeout=_remaining_ms(own_deadline))
    assert page.evaluate("() => window.rbOpenError") is None, (name, page.evaluate("() => window.rbOpenError"))
    page.wait_for_function(KERNEL_IDLE, timeout=_remaining_ms(own_deadline))
    page.evaluate(RUN_ALL_CELLS)
    page.wait_for_function("() => window.rbRunStarted === true", timeout=_remaining_ms(own_deadline))
    state = page.evaluate(RUN_STATE)
    while time.monotonic() < own_deadline:
        if state["kernel"] in ("dead", "none", "restarting", "autorestarting"):
            break
        if state["kernel"] == "idle" and (state["run"] == state["cells"] or state["failed"]):
            break
        page.wait_for_timeout(500)
        state = page.evaluate(RUN_STATE)
    finished = state["kernel"] == "idle" and (state["run"] == state["cells"] or state["failed"])
    # Static charts are there with their output; widgets draw a moment later.
    cells = page.evaluate(CELL_REPORT)
    while finished and not state["failed"] and time.monotonic() < own_deadline and not _all_drawn(cells, expected):
        page.wait_for_timeout(250)
        cells = page.evaluate(CELL_REPORT)
    ran = time.monotonic() - started
    _screenshot_notebook(page, f"tutorial-{path.stem}.png")

    def where(index):
        lines = notebook.cells[index].source.strip().splitlines()
        return f"{name}, cell {index} ({lines[-1] if lines else ''!r})"

    assert finished, f"{name}: not run in {time.monotonic() - started:.0f} s (or its kernel died): {state}"
    code_cells = [cell for cell in cells if cell is not None]
    errors = [f"{where(cell['index'])}: {cell['errors'] or _error_lines(cell['text'])}" for cell in code_cells
              if cell["errors"] or _error_lines(cell["text"])]
    assert not errors, "\n".join(errors)
    not_drawn = [f"{where(cell['index'])}: {chart}" for cell in code_cells for chart in cell["charts"]
                 if not chart["drew"]]
    assert not not_drawn, f"charts that did not draw offline in {ran:.0f} s:\n" + "\n".join(not_drawn)
    missing = [where(index) for index in expected if not cells[index]["charts"]]
    assert not missing, "cells that make a chart show none:\n" + "\n".join(missing)
    n_charts = sum(len(cell["charts"]) for cell in code_cells)
    assert n_charts >= (1 if expected else 0), name
    assert not _cdn_requests(blocked[first_blocked:]), (name, blocked[first_blocked:])
    page.evaluate(CLOSE_NOTEBOOK)
    page.wait_for_function("() => window.rbClosed === true", timeout=_remaining_ms(own_deadline))
    _wait_for_no_kernels(url, own_deadline)
    print(f"tutorial {path.stem}: {ran:.1f} s to run and draw, {n_charts} charts drew"
          f" ({len(expected)} cells show one); {time.monotonic() - started:.1f} s in all")


def _error_lines(text):
    return [line.strip()[:300] for line in text.splitlines()
            if any(error in line for error in ERROR_TEXTS + ("Traceback",))]


def _all_drawn(cells, expected):
    return (all(chart["drew"] for cell in cells if cell for chart in cell["charts"])
            and all(cells[index] and cells[index]["charts"] for index in expected))


def _screenshot_notebook(page, name):
    """A screenshot of the whole notebook: the page made as high as the notebook, for a moment."""
    if not os.environ.get("RULEBOOK_BROWSER_ARTIFACTS"):
        return
    height = VIEWPORT["height"]
    try:
        # Cells out of view have an estimated height until drawn: measure again.
        for _ in range(4):
            wanted = max(VIEWPORT["height"], min(MAX_SCREENSHOT_HEIGHT, height + page.evaluate(NOTEBOOK_OVERFLOW)))
            if wanted == height:
                break
            height = wanted
            page.set_viewport_size({"width": VIEWPORT["width"], "height": height})
            page.wait_for_timeout(500)
        _screenshot(page, name)
    finally:
        page.set_viewport_size(VIEWPORT)


def _wait_for_no_kernels(url, deadline):
    """Until the closed tutorial's kernel has gone, so that the next one has its memory."""
    while time.monotonic() < deadline:
        with urllib.request.urlopen(url + "api/kernels", timeout=5) as response:
            if not json.load(response):
                return
        time.sleep(0.3)
