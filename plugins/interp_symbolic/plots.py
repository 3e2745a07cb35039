"""The symbolic model's picture: fidelity to the black box, and the features it leans on."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure


def plot_fidelity(blackbox, symbolic, importances: dict[str, float], r2: float, top_k: int = 10) -> Figure:
    """Held-out black-box vs symbolic outputs (left) and the largest importances (right)."""
    fig = Figure(figsize=(10, 4.2))
    ax, bx = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1, 1.2]})
    ax.scatter(blackbox, symbolic, s=12, alpha=0.7, color="#3b6ea8", edgecolor="none")
    lo, hi = float(np.min([blackbox, symbolic])), float(np.max([blackbox, symbolic]))
    ax.plot([lo, hi], [lo, hi], color="#a4262c", lw=1, label="perfect fidelity")
    ax.set(xlabel="black box", ylabel="symbolic model", title=f"held-out fidelity  R$^2$ = {r2:.4f}")
    ax.legend(loc="upper left", frameon=False)
    names = sorted(importances, key=lambda n: -abs(importances[n]))[:top_k][::-1]
    values = [importances[n] for n in names]
    bx.barh(names, values, color=["#3b6ea8" if v >= 0 else "#c8553d" for v in values])
    bx.axvline(0, color="black", lw=0.8)
    bx.set(title="importance (first-order Taylor coefficient at the mean)", xlabel="d f / d x")
    fig.tight_layout()
    return fig
