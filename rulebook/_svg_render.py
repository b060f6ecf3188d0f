"""Static SVG of Vega-Lite specs, drawn by vl-convert in a child process.

vl-convert runs Vega in an embedded V8 engine, which reserves tens of
gigabytes of virtual address space when it starts (V8's pointer
compression cage, Oilpan's caged heap). Under an address-space limit
(``ulimit -v``, a batch system's memory cap) that reservation fails and V8
stops the whole process with SIGTRAP: no Python exception, the caller's
interpreter (a notebook kernel) dies. So the drawing happens in a child
Python that imports only vl-convert. A crash, a hang (killed after
:data:`TIMEOUT` seconds) or a failed start there becomes a reason here, and
the caller shows its page without that image.

The child is this file run as a script: spec JSON in on stdin, one JSON
line out on stdout, ``{"svg": ...}`` or ``{"error": ...}`` per spec.
"""

import sys

if __name__ == "__main__":
    # Run as a script, Python puts this file's directory (the package) first
    # on sys.path, where its modules could shadow others; the child needs none.
    del sys.path[0]

import importlib.util
import json
import os
import signal
import subprocess

__all__ = ["MISSING", "TIMEOUT", "render_svgs"]

# Seconds a child may take for one batch: V8 starts in about a second and a
# chart takes tens of milliseconds, so a child still running then is stuck.
TIMEOUT = 120

# Why a chart is missing when vl-convert is not installed (no warning:
# the package is an optional dependency).
MISSING = "Charts need the vl-convert-python package."

# Characters of the child's error output quoted in a reason.
_QUOTED = 300


def render_svgs(specs, timeout=TIMEOUT):
    """SVG markup of Vega-Lite specs, drawn by vl-convert in one child process.

    Parameters
    ----------
    specs : list of dict
        Vega-Lite specs (``chart.to_dict()``), JSON-serialisable.
    timeout : float, default=TIMEOUT
        Seconds the child may take for all of them; it is killed after.

    Returns
    -------
    list of (str or None, str or None)
        Per spec ``(svg, None)``, or ``(None, why)`` when it could not be
        drawn: ``why`` is :data:`MISSING` without vl-convert, else says
        what went wrong (the child's crash, time-out or vl-convert's error).
        Never raises for a failure of the child.
    """
    if not specs:
        return []
    if importlib.util.find_spec("vl_convert") is None:
        return [(None, MISSING)] * len(specs)
    payload = json.dumps(list(specs)).encode("ascii")  # ensure_ascii: no locale issues
    try:
        done = subprocess.run(_child_command(), input=payload, capture_output=True,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return [(None, f"vl-convert did not finish within {timeout:g} s and was stopped")] * len(specs)
    except OSError as error:
        return [(None, f"the process for vl-convert could not start ({error})")] * len(specs)
    results = _read_results(done.stdout, len(specs)) if done.returncode == 0 else None
    if results is None:
        return [(None, _failure(done.returncode, done.stderr))] * len(specs)
    return [(r.get("svg"), None if "svg" in r else f"vl-convert: {r.get('error')}") for r in results]


def _child_command():
    """The child's command line: this file run by the current interpreter."""
    # A hook for tests, which replace it by a child that crashes.
    return [sys.executable, os.path.abspath(__file__)]


def _read_results(stdout, n):
    """The child's per-spec results, or None if its output is not what it writes."""
    lines = stdout.decode("utf-8", "replace").strip().splitlines()
    try:
        results = json.loads(lines[-1])
    except (IndexError, ValueError):
        return None
    if not (isinstance(results, list) and len(results) == n
            and all(isinstance(r, dict) for r in results)):
        return None
    return results


def _failure(returncode, stderr):
    """Why a child ended without results, from its exit status and error output."""
    if returncode < 0:
        try:
            how = f"was killed by {signal.Signals(-returncode).name}"
        except ValueError:
            how = f"was killed by signal {-returncode}"
    elif returncode == 0:
        how = "gave no readable output"
    else:
        how = f"exited with status {returncode}"
    text = _first_message(stderr.decode("utf-8", "replace"))
    why = f"vl-convert's process {how}" + (f": {text.rstrip('.')}" if text else "")
    if "out of memory" in text.lower() or -returncode == getattr(signal, "SIGTRAP", None):
        why += (" (vl-convert's JavaScript engine reserves tens of GB of virtual address "
                "space when it starts, which an address-space limit such as 'ulimit -v' forbids)")
    return why


def _first_message(stderr):
    """The line of the child's error output that says what happened.

    V8 prints ``# Fatal process out of memory: ...`` framed by ``#`` lines
    and followed by a C stack trace; Python ends a traceback with the error.
    """
    lines = [line.strip().strip("#").strip() for line in stderr.splitlines()]
    lines = [line for line in lines if line and not line.startswith(("====", "/"))]
    if not lines:
        return ""
    line = lines[-1] if "Traceback (most recent call last):" in stderr else lines[0]
    return line[:_QUOTED]


def _child_main():
    """Draw the specs read from stdin; write one JSON line to stdout."""
    specs = json.loads(sys.stdin.buffer.read().decode("ascii"))
    import vl_convert as vlc

    results = []
    for spec in specs:
        try:
            svg = vlc.vegalite_to_svg(spec)
        except Exception as error:  # noqa: BLE001  vl-convert's errors are plain ValueError or worse
            results.append({"error": f"{type(error).__name__}: {error}"})
        else:
            # Drop the XML declaration, if any, so the SVG can sit inside HTML.
            results.append({"svg": svg[svg.find("<svg"):]})
    sys.stdout.buffer.write(b"\n" + json.dumps(results).encode("ascii") + b"\n")
    sys.stdout.flush()


if __name__ == "__main__":
    _child_main()
