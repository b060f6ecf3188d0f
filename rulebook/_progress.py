"""Progress of a fit: the round bar, news from inside a long round, interrupts.

The boosting loop owns the bar (one step per round). A search that runs
for long inside a round (the optimal learner's branch and bound) reports
what it knows through :func:`report`, which does nothing unless a fit
installed a reporter with :func:`reporting`: the learners keep their plain
``search(problem)`` signature, and a search run outside a fit costs one
context-variable lookup per report.
"""

import contextvars
import signal
import threading
import time
from contextlib import contextmanager

from tqdm.auto import tqdm

# Seconds between two reports from inside a round: a few updates a second
# are readable, and each costs a redraw (a widget message in a notebook).
REPORT_INTERVAL = 0.25

# Message of the KeyboardInterrupt a fit re-raises when it is interrupted.
INTERRUPTED = "fit interrupted; the estimator is left unfitted"

# No remaining-time estimate: rounds differ in length by orders of
# magnitude (a certified optimal round can take 1000 times a greedy one),
# so tqdm's extrapolation over rounds was misleading ("02:25 left" at 70%).
BAR_FORMAT = "{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} rounds [{elapsed}{postfix}]"

_REPORTER = contextvars.ContextVar("rulebook_round_reporter", default=None)


def round_bar(n_rules, verbose, desc="boosting"):
    """The bar over boosting rounds: shown once a fit has run for 2 s."""
    # tqdm.auto: a widget in notebooks, text elsewhere; delay keeps quick
    # fits silent.
    return tqdm(total=n_rules, desc=desc, disable=not verbose, leave=False, delay=2.0,
                bar_format=BAR_FORMAT)


def set_status(bar, text):
    """Show ``text`` after the bar, drawing it only once its delay is over."""
    if bar is None or getattr(bar, "disable", False):
        return
    # refresh draws the bar at once, even before tqdm's ``delay`` (which
    # only ``update`` honours): a fit shorter than that stays silent.
    started = getattr(bar, "start_t", None)
    due = started is None or time.time() >= started + getattr(bar, "delay", 0.0)
    bar.set_postfix_str(text, refresh=due)


@contextmanager
def reporting(callback):
    """Within the block, :func:`report` calls ``callback(**status)``."""
    token = _REPORTER.set(callback)
    try:
        yield
    finally:
        _REPORTER.reset(token)


def report(**status):
    """Tell the fit's reporter, if any, how the current round is going."""
    callback = _REPORTER.get()
    if callback is not None:
        callback(**status)


def is_interrupt(error):
    """True if ``error`` is, or was caused by, a ``KeyboardInterrupt``.

    A signal handled while a numba kernel boxes its result (Python code run
    by ``numba.core.serialize._numba_unpickle``) reaches the caller as a
    ``SystemError`` "returned a result with an exception set" whose cause is
    the ``KeyboardInterrupt``: seen with the orthogonal learner's kernel.
    """
    seen = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, KeyboardInterrupt):
            return True
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return False


class _Interrupts:
    """Ctrl-C seen during a fit (see :func:`interrupts_kept`)."""

    seen = False


@contextmanager
def interrupts_kept():
    """Within the block, a Ctrl-C that Python swallowed still stops the fit.

    numba compiles through ctypes callbacks (llvmlite's object cache): a
    ``KeyboardInterrupt`` raised inside one is printed ("Exception ignored
    on calling ctypes callback function") and dropped, and the fit went on
    to the end (2 of 5 Ctrl-C during a cold orthogonal compile). The
    handler installed here notes the signal before passing it on to the
    previous one; :func:`check_interrupt` raises when one was noted. Only
    in the main thread (where Python runs signal handlers), and only over
    a Python handler (under ``SIG_DFL`` the signal ends the process).
    """
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or not callable(previous):
        yield
        return

    def noted(signum, frame):
        _Interrupts.seen = True
        previous(signum, frame)

    _Interrupts.seen = False
    signal.signal(signal.SIGINT, noted)
    try:
        yield
        check_interrupt()
    finally:
        signal.signal(signal.SIGINT, previous)
        _Interrupts.seen = False


def check_interrupt():
    """Raise ``KeyboardInterrupt`` if a Ctrl-C was noted and not raised.

    Called where a fit can stop cleanly: after each kernel a first fit
    compiles, at each boosting round, at the end of the fit.

    Raises
    ------
    KeyboardInterrupt
    """
    if _Interrupts.seen:
        _Interrupts.seen = False
        raise KeyboardInterrupt


def wants_reports():
    """True inside :func:`reporting` (a search may skip computing a status)."""
    return _REPORTER.get() is not None
