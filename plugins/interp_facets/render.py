"""What a person reads: a score card as text and Markdown, and the sections of the ``facets``
method's result (the card, notes on its integrity, the rounded baseline, the figures)."""

from __future__ import annotations

import attrs

from interp import Figure, Table, Text

from .space import DataDirections

__all__ = ["fmt", "card_header", "card_text", "card_markdown", "method_sections", "pool_sections", "pool_payload",
           "FIGURE_TITLES"]

#: the baseline rows the method shows (largest points first)
BASELINE_ROWS = 12

#: the titles of the method's figures, by their name in ``Explanation.figures``
FIGURE_TITLES = {
    "path": "regularisation path: points along beta = lambda / gamma^2",
    "heatmaps": "CV score (accuracy, or R^2 for a numeric target) and integrity over the (beta, gamma) grid",
    "risk": "risk by total: the probability of the positive class for every total of the card",
    "predictions": "prediction by total: the card's prediction for every total, over the training rows",
}


def fmt(x: float) -> str:
    """A number as a card shows it: 4 significant digits."""
    return f"{x:.4g}"


def card_header(card) -> str:
    return f"score card (1 point = {fmt(card.gamma)} in the linear model)"


def card_text(card) -> str:
    """The card as fixed-width text: header, one ``feature | points`` row per non-zero point,
    the rule and, when the card has one, its risk table."""
    rows = card.rows()
    width = max([len("feature" if rows else "(no feature)")] + [len(f) for f, _ in rows])
    lines = [card_header(card), f"{'feature':<{width}} | points", f"{'-' * width}-+-------"]
    lines += [f"{f:<{width}} | {card.shown_points(f, p)}" for f, p in rows]
    if not rows:
        lines.append(f"{'(no feature)':<{width}} |")
    lines.append(f"{'-' * width}-+-------")
    lines.append(_total_wording(card))
    lines.append(card.rule())
    if card.risk is not None:
        lines += ["", card.risk.text(card.positive)]
    if card.predictions is not None:
        lines += ["", card.predictions.text(card.target)]
    return "\n".join(lines)


def _total_wording(card) -> str:
    """How the card's total is added up: 0/1 features only, per-unit rows among them, or
    features that are all values."""
    if card.binary_features or not any(f in card.units for f, _ in card.rows()):
        return "total = sum of the points of the features that hold"
    if any(f not in card.units for f, _ in card.rows()):
        return "total = sum of the points of the features that hold, plus points x value on the per-unit rows"
    return "total = sum of the points of the features (times their values)"


#: characters Markdown reads as markup, escaped with a backslash in names and labels
_MARKDOWN_SPECIALS = frozenset("\\`*_[]|~")
#: characters Markdown passes to HTML, written as entities
_HTML_ENTITIES = {"<": "&lt;", ">": "&gt;", "&": "&amp;"}


def markdown_text(text: str) -> str:
    """``text`` (a feature name or a class label: the user's data) as Markdown shows it as
    written: its markup characters escaped, ``<``, ``>`` and ``&`` as entities (a label
    ``<img onerror=...>`` or ``**x**`` is text, never markup)."""
    return "".join(_HTML_ENTITIES.get(c) or (f"\\{c}" if c in _MARKDOWN_SPECIALS else c) for c in text)


def card_markdown(card) -> str:
    """The card as a Markdown table with the rule and the risk table below it; names and labels
    escaped (``markdown_text``)."""
    lines = [f"*{card_header(card)}*", "", "| feature | points |", "|---|---:|"]
    lines += [f"| {markdown_text(f)} | {card.shown_points(f, p)} |" for f, p in card.rows()]
    shown = attrs.evolve(card, positive=markdown_text(card.positive), negative=markdown_text(card.negative),
                         target=markdown_text(card.target))
    lines += ["", f"**{shown.rule()}**"]
    if card.risk is not None:
        lines += ["", card.risk.markdown(shown.positive)]
    if card.predictions is not None:
        lines += ["", card.predictions.markdown(shown.target)]
    return "\n".join(lines)


def method_sections(card, fit, baseline, train_score: float, names, no_card: str | None = None) -> list:
    """The ``facets`` method's sections: the card with its risk table (text) and risk curve
    (the figure ``risk``; a regressor's card: its predictions and the figure ``predictions``),
    or why there is no card (``no_card``), the pool of near-optimal
    cards when one was kept, notes on how the card was made integral, the baseline against the
    card (tables) and the fit's figures.

    ``fit`` and ``baseline`` are the method's records (`.method.Fit`,
    `.method.Baseline`); ``names`` the design's columns.
    """
    sections = [Text(card.text() if card is not None else no_card)]
    if card is not None and (card.predictions if card.regression else card.risk) is not None:
        shown = "predictions" if card.regression else "risk"
        sections.append(Figure(shown, title=FIGURE_TITLES[shown]))
    if hasattr(fit.estimator, "pool_"):
        sections += pool_sections(fit.estimator, names)
    notes = [_fitted_with(fit)] + _notes(fit.model, fit.fallback) + _subsample_note(fit, baseline.regression)
    sections.append(Text("\n".join(notes)))
    sections += _baseline_tables(baseline, train_score, fit.metrics.get("cv_r2" if baseline.regression else "cv_accuracy"))
    sections += [Figure(name, title=FIGURE_TITLES.get(name, name)) for name in fit.figures]
    return sections


def _fitted_with(fit) -> str:
    """The penalty the card was fitted with, its parameters, and (lambda, gamma)."""
    model = fit.model
    params = ", ".join(f"{k}={fmt(v) if isinstance(v, float) else v}" for k, v in model.penalty_params_.items())
    penalty = f"{model.penalty_.name} ({params})" if params else model.penalty_.name
    return f"fitted with the penalty {penalty} at lambda = {fmt(fit.lam)}, gamma = {fmt(fit.gamma)}"


def _notes(model, fallback: bool) -> list[str]:
    notes = []
    if isinstance(model.monotone, DataDirections) and model.monotone.orders_any:
        notes.append("each ordered column's points keep the sign of its association with the target "
                     "(--monotone auto)")
    if model.n_snapped_:
        notes.append(f"note: {model.n_snapped_} coefficient(s) of the minimiser were off the grid; "
                     f"rounding them raised the objective by {model.snap_gap_:.1e} (relative), "
                     f"within --snap-tol")
    if model.integrity_ < 1:
        notes.append("warning: this model is not fully integral; the card shows rounded points")
    elif fallback:
        notes.append("note: no grid point was integral on every CV fold; this is the most integral "
                     "model on the full data")
    return notes


def _subsample_note(fit, regression: bool) -> list[str]:
    """When the CV grid or the card search ran on a subsample: on how many rows, and what was
    fitted on all."""
    if fit.cv_sample is None:
        return []
    chosen = ("the card search ran" if "search" in fit.cv else
              f"(lambda, gamma) were chosen by {fit.cv['folds']}-fold CV")
    sample, scores = ("a random", "R^2") if regression else ("a stratified", "accuracies")
    return [f"note: {chosen} on {sample} subsample of {fit.cv['rows']:,} of the "
            f"{fit.cv['total_rows']:,} rows (--max-cv-rows; the CV {scores} are measured on it); the "
            f"card was then fitted on all rows"]


def _baseline_tables(baseline, train_score: float, cv_score: float | None) -> list[Table]:
    """The accuracies (R^2) of the card and of the baseline side by side, then the baseline's
    largest points and its rule."""
    with_cv = baseline.cv_score is not None
    name = baseline.score_name
    columns = ("model", f"train {name}") + ((f"CV {name}",) if with_cv else ())
    rows = [("facets", train_score) + ((cv_score,) if with_cv else ()),
            ("rounded baseline", baseline.train_score) + ((baseline.cv_score,) if with_cv else ())]
    title = f"baseline: {baseline.description}; grid step {fmt(baseline.grid)}"
    comparison = Table(columns, rows, title=title)
    points = baseline.card.rows()
    shown = str(len(points))
    if len(points) > BASELINE_ROWS:
        shown = f"the {BASELINE_ROWS} largest of {shown}"
    cards = Table(("feature", "points"), points[:BASELINE_ROWS],
                  title=f"baseline points ({shown}); {baseline.card.rule()}")
    return [comparison, cards]


def pool_sections(model, names) -> list:
    """The pool of near-optimal cards (a fitted ``FacetsClassifierCV(pool=N)``) as a person
    reads it: how many there are, their table (card 0 is the model's), and per feature the
    share of them using it."""
    from .pool import card_terms

    table = model.cards_
    tol = float(model.pool_tol)
    scores = _pool_scores(table)
    cards = Table(("#", "card", "rows", "loss", "objective", *scores),
                  [(i, card_terms(c.points, names), int(r.rows), float(r.loss), float(r.objective),
                    *(float(getattr(r, column)) for column in scores.values()))
                   for i, (c, r) in enumerate(zip(model.pool_, table.itertuples()))],
                  title=f"{len(model.pool_)} near-optimal cards: objective (training loss plus the card ridge) "
                        f"within {tol:.0%} of the best (card {model.selected_card_} is the model's)")
    shares = Table(("feature", "share of the near-optimal cards"),
                   [(str(f), float(v)) for f, v in model.feature_share_.items()],
                   title="a feature on every near-optimal card is robust; one on a few is a choice among "
                         "equals, not a finding")
    return [cards, shares]


def _pool_scores(table) -> dict[str, str]:
    """The scores of a pool's cards, as a table heads them -> their column of ``cards_``: a
    classifier's training accuracy and AUC, or a regressor's training R^2."""
    return {"train R^2": "r2"} if "r2" in table.columns else {"train accuracy": "accuracy", "AUC": "auc"}


def pool_payload(model, names) -> dict:
    """The pool in the JSON payload: per card its rows, loss, objective, accuracy and AUC, and
    the feature shares."""
    from .pool import card_terms

    scores = _pool_scores(model.cards_).values()
    cards = [{"card": card_terms(c.points, names), "points": [int(p) for p in c.points], "loss": float(r.loss),
              "objective": float(r.objective),
              **{("train_accuracy" if column == "accuracy" else column): float(getattr(r, column)) for column in scores}}
             for c, r in zip(model.pool_, model.cards_.itertuples())]
    return {"tolerance": float(model.pool_tol), "selected": int(model.selected_card_), "cards": cards,
            "feature_share": {str(f): float(v) for f, v in model.feature_share_.items()}}
