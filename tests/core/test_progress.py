"""Progress: callbacks always, a bar only on a terminal or in a notebook and never when quiet."""

import io

from interp import progress


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def test_callbacks_follow_every_step():
    seen = []
    with progress.on_progress(lambda desc, done, total: seen.append((desc, done, total))):
        assert list(progress.track(range(3), "terms")) == [0, 1, 2]
    assert seen == [("terms", 1, 3), ("terms", 2, 3), ("terms", 3, 3)]


def test_bar_on_a_terminal_only(monkeypatch):
    tty = FakeTerminal()
    monkeypatch.setattr("sys.stderr", tty)
    list(progress.track(range(4), "grid"))
    assert "grid:" in tty.getvalue() and "4/4" in tty.getvalue()

    pipe = io.StringIO()
    monkeypatch.setattr("sys.stderr", pipe)
    list(progress.track(range(4), "grid"))
    assert pipe.getvalue() == ""


def test_quiet_silences_the_bar_but_not_callbacks(monkeypatch):
    tty = FakeTerminal()
    monkeypatch.setattr("sys.stderr", tty)
    seen = []
    with progress.quiet(), progress.on_progress(lambda *a: seen.append(a)):
        list(progress.track(iter(range(2)), "paths"))
    assert tty.getvalue() == "" and seen == [("paths", 1, None), ("paths", 2, None)]


def test_bar_in_a_notebook_kernel_even_without_a_terminal(monkeypatch):
    out = io.StringIO()
    monkeypatch.setattr("sys.stderr", out)
    monkeypatch.setattr(progress, "in_notebook", lambda: True)
    list(progress.track(range(3), "paths"))
    assert "paths:" in out.getvalue() and "3/3" in out.getvalue()
    with progress.quiet():
        list(progress.track(range(3), "silent"))
    assert "silent" not in out.getvalue()


def test_a_description_quoting_the_data_is_drawn_visibly(monkeypatch):
    tty = FakeTerminal()
    monkeypatch.setattr("sys.stderr", tty)
    list(progress.track(range(2), "column \x1b]0;title\x07\nnext"))
    drawn = tty.getvalue()
    assert "column \\x1b]0;title\\x07\\x0anext:" in drawn and "\x1b" not in drawn and "\x07" not in drawn


def test_outside_a_kernel_no_notebook_is_detected():
    assert progress.in_notebook() is False


def test_work_that_stops_early_because_it_is_done_ends_complete_and_says_why(monkeypatch):
    tty = FakeTerminal()
    monkeypatch.setattr("sys.stderr", tty)
    seen = []
    with progress.on_progress(lambda *a: seen.append(a)):
        work = progress.Progress("symbolic pursuit", total=5)
        work.update()
        work.update()
        bar = work._bar
        work.stop("converged at 2 terms")
        work.close()
    # a notebook bar closed with n < total is drawn red ("danger"), as an interrupted one
    assert bar.n == bar.total == 2 and work.reason == "converged at 2 terms"
    assert "2/2" in tty.getvalue() and "converged at 2 terms" in tty.getvalue()
    assert seen[-1] == ("symbolic pursuit", 2, 2)


def test_symbolic_pursuit_tells_the_bar_it_converged():
    import numpy as np
    from interp_symbolic import SymbolicPursuitRegressor

    X = np.random.default_rng(0).uniform(size=(120, 2))
    seen = []
    with progress.on_progress(lambda *a: seen.append(a)):
        SymbolicPursuitRegressor(families=["meijer_0131"], max_terms=4, n_restarts=1, loss_tol=0.5,
                                 random_state=0).fit(X, X[:, 0] + X[:, 1])
    desc, done, total = seen[-1]
    assert desc == "symbolic pursuit" and done == total < 4
