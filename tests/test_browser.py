"""BoostingExplorer and charts in a real JupyterLab, driven by a headless Chromium.

Starts ``jupyter lab`` on 127.0.0.1 (free port, no token, everything in a
temporary directory), opens a notebook that shows ``model.explore()`` and a
chart with the package defaults, and runs it with every request to another
host blocked (Playwright request routing), as on a machine without network.
Checks that the charts draw (an SVG exists, no "Error loading script"),
moves the slider with the keyboard and checks that the rules table in the
page changes. Skipped, with the reason, when Chromium, Playwright or
JupyterLab is missing or JupyterLab does not start. Bounded: about four
minutes at most; the server is stopped in ``finally``. With
``RULEBOOK_BROWSER_ARTIFACTS`` set to a directory, a screenshot of the
notebook is written there (CI keeps it; it is not committed).

Chromium comes from the system (Debian package ``chromium``); Playwright's
own browser download is never used. Set ``RULEBOOK_CHROMIUM`` to another
executable if needed.
"""

import os
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

DEADLINE_SECONDS = 240
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


def _chromium():
    path = os.environ.get("RULEBOOK_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        pytest.skip("no Chromium installed (Debian: apt-get install chromium); browser test not run")
    return path


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


RULE_ROWS = """() => {
    const table = document.querySelector('.rb-explorer-rules table.rb-rules');
    return table ? table.querySelectorAll('tbody tr').length : -1;
}"""


def test_slider_changes_the_rules_table_in_jupyterlab(tmp_path):
    chromium = _chromium()
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="playwright not installed; browser test not run")
    pytest.importorskip("jupyterlab", reason="jupyterlab not installed; browser test not run")
    pytest.importorskip("nbformat", reason="nbformat not installed; browser test not run")
    started = time.monotonic()
    deadline = started + DEADLINE_SECONDS
    (tmp_path / "notebooks").mkdir()
    _write_notebook(tmp_path / "notebooks")
    reopened_rules = _write_reopened_notebook(tmp_path / "notebooks")
    port = _free_port()
    url = f"http://127.0.0.1:{port}/"
    log_path = tmp_path / "jupyterlab.log"
    with open(log_path, "wb") as log:
        server = _start_lab(tmp_path, port, log)
        try:
            if not _wait_for_server(server, url, min(deadline, time.monotonic() + 45)):
                _stop(server)
                pytest.skip("jupyter lab did not start; its log:\n"
                            + log_path.read_text(errors="replace")[-2000:])
            _drive_browser(sync_api, chromium, url, deadline, reopened_rules)
        finally:
            _stop(server)
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


def _screenshot(page, name):
    directory = os.environ.get("RULEBOOK_BROWSER_ARTIFACTS")
    if directory:
        Path(directory).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(directory) / name), full_page=True)


def _drive_browser(sync_api, chromium, url, deadline, reopened_rules):
    def remaining_ms():
        return max(1000, int((deadline - time.monotonic()) * 1000))

    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS, headless=True)
        try:
            # About a 1,000 px notebook column next to JupyterLab's file browser.
            page = browser.new_page(viewport={"width": 1400, "height": 2400})
            blocked = _block_the_network(page)
            page.goto(url + "lab/tree/explorer.ipynb", timeout=remaining_ms())
            # jupyterapp is exposed by --LabApp.expose_app_in_browser.
            page.wait_for_function("() => window.jupyterapp && document.querySelector('.jp-Notebook')",
                                   timeout=remaining_ms())
            page.wait_for_function(
                "() => { const w = window.jupyterapp.shell.currentWidget;"
                " return w && w.sessionContext && w.sessionContext.session"
                " && w.sessionContext.session.kernel; }", timeout=remaining_ms())
            page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
            page.wait_for_function(f"({RULE_ROWS})() > 0", timeout=remaining_ms())
            # The charts draw offline: the explorer's (vega bundled into the
            # widget) and the chart function's (static SVG from the kernel).
            page.locator(".rb-explorer .vega-embed svg").first.wait_for(timeout=remaining_ms())
            page.locator(".jp-OutputArea-output.jp-RenderedSVG").first.wait_for(timeout=remaining_ms())
            page.locator(".rb-comparison .vega-embed svg").first.wait_for(timeout=remaining_ms())
            _screenshot(page, "explorer-offline.png")
            text = page.locator(".jp-Notebook").inner_text()
            assert not [error for error in ERROR_TEXTS if error in text], text[-2000:]
            assert not [u for u in blocked if "vega" in u or "esm.sh" in u], blocked
            _check_the_explorer(page, remaining_ms)
            _check_the_reopened_notebook(page, url, reopened_rules, remaining_ms)
        finally:
            browser.close()


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
