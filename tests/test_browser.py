"""BoostingExplorer in a real JupyterLab, driven by a headless Chromium.

Starts ``jupyter lab`` on 127.0.0.1 (free port, no token, everything in a
temporary directory), opens a notebook that shows a ``BoostingExplorer``,
runs it, moves the slider with the keyboard and checks that the rules table
in the page changes. Skipped, with the reason, when Chromium, Playwright or
JupyterLab is missing or JupyterLab does not start. Bounded: about two
minutes at most; the server is stopped in ``finally``.

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
import urllib.request

import pytest

pytestmark = pytest.mark.browser

DEADLINE_SECONDS = 120
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]

NOTEBOOK_SOURCE = """\
from rulebook import RuleBoostingClassifier
from rulebook.datasets import load_titanic
from rulebook.widgets import BoostingExplorer

X, y = load_titanic()
model = RuleBoostingClassifier(n_rules=4).fit(X, y)
BoostingExplorer(model, offline=True)
"""


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
    notebook.cells = [nbformat.v4.new_code_cell(NOTEBOOK_SOURCE)]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, directory / "explorer.ipynb")


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
            _drive_browser(sync_api, chromium, url, deadline)
        finally:
            _stop(server)
    print(f"browser test took {time.monotonic() - started:.1f} s")


def handle_readout(page):
    return page.locator(".rb-explorer .widget-slider .widget-readout").first.inner_text().strip()


def _drive_browser(sync_api, chromium, url, deadline):
    def remaining_ms():
        return max(1000, int((deadline - time.monotonic()) * 1000))

    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page()
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
            assert page.locator(".rb-explorer").inner_text().count("JavaScript Error") == 0
            bar.click()
            page.wait_for_function(f"({RULE_ROWS})() === 2", timeout=remaining_ms())
            assert handle_readout(page) == "1"
            # Play runs on to the last round (one per second) and stays there:
            # the charts' reports of their redraws must not pull it back.
            page.locator(".rb-explorer .widget-play button").first.click()
            page.wait_for_function(f"({RULE_ROWS})() === 5", timeout=remaining_ms())
            page.wait_for_timeout(1500)
            assert page.evaluate(RULE_ROWS) == 5 and handle_readout(page) == "4"
        finally:
            browser.close()
