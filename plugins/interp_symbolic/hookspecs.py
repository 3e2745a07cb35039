"""The hook the symbolic plugin adds to interp's: ``register_closed_forms``.

The plugin adds it through interp's historic ``add_hookspecs`` hook, so any installed plugin can
implement it with ``@interp.hookimpl`` and give Symbolic Pursuit a closed form to print fitted
terms as, without a change to this plugin.  It is a hook of its own rather than part of
``register_ridge_families``: a ridge family is fitted at every new term of the pursuit, while a
closed form only rewrites a term already fitted, so adding one neither slows nor changes the
pursuit itself.
"""

from interp import hookspec


@hookspec
def register_closed_forms(register):
    """Register closed forms a fitted Symbolic Pursuit term may be rewritten as.

    Call ``register(form)`` with an instance of a subclass of
    ``interp_symbolic.closed_forms.ClosedForm``: a ridge family g(theta, u) (``value``,
    ``gradient``, ``init_theta``) with a ``complexity`` (operations of its printed formula),
    ``expression(theta, u)`` (g as a real sympy expression of ``u``) and optionally ``bounds``,
    ``grid`` (or ``starts(u, g)``) and ``snaps(theta)``.  After each term is fitted, the
    estimators try every registered form, simplest first, and keep the first whose loss is
    within ``simplify_tol`` of the term's; the fitted model stores the form object, so it
    predicts and prints without the registry.  ``interp_symbolic.testing.check_closed_form``
    checks a form's contract.  A name another plugin registered is rejected (the error names
    both).
    """
