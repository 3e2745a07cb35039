"""The pursuit's progress bar ends full and says why when the pursuit stops before max_terms."""

import io

import numpy as np
from interp import progress
from interp_symbolic import SymbolicPursuitRegressor


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def _fit_on_a_terminal(monkeypatch, X, y, **params):
    tty = FakeTerminal()
    monkeypatch.setattr("sys.stderr", tty)
    SymbolicPursuitRegressor(n_restarts=1, maxiter=40, families=["meijer_0131"], random_state=0,
                             **params).fit(X, y)
    return tty.getvalue()


def test_a_pursuit_that_converges_early_says_so_on_a_full_bar(monkeypatch):
    rng = np.random.default_rng(0)
    X = rng.uniform(1, 5, size=(120, 2))
    drawn = _fit_on_a_terminal(monkeypatch, X, 0.5 * X[:, 0] * X[:, 1] ** 2, max_terms=3)
    last = drawn.replace("\r", "\n").strip().splitlines()[-1]
    assert last.startswith("symbolic pursuit: 100%") and "1/1" in last and "converged at 1 term" in last, last
    assert "/3" not in last


def test_a_pursuit_that_reaches_max_terms_ends_as_before(monkeypatch):
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, size=(120, 2))
    y = np.sin(3 * X[:, 0]) + X[:, 1] ** 2 + 0.1 * rng.standard_normal(120)
    last = _fit_on_a_terminal(monkeypatch, X, y, max_terms=1).replace("\r", "\n").strip().splitlines()[-1]
    assert last.startswith("symbolic pursuit: 100%") and "1/1" in last, last


class FakeNotebookBar:
    """What ``Progress.stop`` uses of tqdm's notebook bar (a widget ``container``)."""

    def __init__(self, total):
        self.n, self.total, self.container, self.colour, self.closed, self.postfix = 0, total, object(), None, False, ""

    def update(self, n):
        self.n += n

    def set_postfix_str(self, text, refresh=True):
        self.postfix = text

    def refresh(self):
        pass

    def close(self):
        self.closed = True


def test_a_notebook_bar_finished_early_is_full_and_neutral(monkeypatch):
    bars = []
    monkeypatch.setattr(progress, "_bar_enabled", lambda: True)
    monkeypatch.setattr(progress, "_new_bar", lambda desc, total: bars.append(FakeNotebookBar(total)) or bars[-1])
    bar = progress.Progress("fit", total=3)
    bar.update()
    bar.stop("converged at 1 term")
    bar.close()
    (drawn,) = bars
    assert drawn.closed and drawn.n == drawn.total == 1 and drawn.colour == progress.NEUTRAL_COLOUR
    assert drawn.postfix == "converged at 1 term"
