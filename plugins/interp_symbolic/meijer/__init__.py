"""Vectorised Meijer G-function G^{m,n}_{p,q}(a; b | z) for real parameters and z > 0.

Argument convention of ``mpmath.meijerg``: ``a_s = [[a_1..a_n], [a_{n+1}..a_p]]``,
``b_s = [[b_1..b_m], [b_{m+1}..b_q]]``.  ``meijerg_grad`` also returns the gradient with
respect to every a, b and z (the same sums with digamma factors, term by term).

Laid out as mpmath's ``meijerg``, which describes the function as a list of series and hands
them to one generic engine:

* ``series``: Slater's theorem, which residue series (direct in z or mirrored in 1/z) and the
  Gamma factors of each term;
* ``coefficients``: the z-independent coefficients c_k in log space (memoised per parameter set);
* ``scaled``: all points at once, coefficients scaled to the largest argument, one matrix
  product; ``logspace``: per point in log space, for points spanning too many magnitudes;
* ``bounds``: the choice of K, the rounding and tail bounds, which points are accepted;
* ``strategy``: the series length per group of points; ``extrapolation``: coincident poles;
* ``continuation``: values the residue sums do not certify (close poles cancelling, p == q near
  |z| = 1), continued along G's differential equation from an anchor where the sums converge;
* ``fallback``: ``mpmath.meijerg`` at 30 digits for the points nothing else certifies;
* ``evaluate``: ``meijerg`` / ``meijerg_grad``, which path computes each point.

No silently wrong number is returned: a point is NaN rather than wrong.

Records are attrs classes: those built on every call (``SeriesResult``, ``Estimate``, ...) are
``attrs.define`` (never modified after construction; cheaper to build than frozen ones on this
hot path), the cached and per-parameter-set ones (``BlockCoeffs``, ``GammaFactors``, ...) frozen.
"""

from .evaluate import meijerg, meijerg_grad

__all__ = ["meijerg", "meijerg_grad"]
