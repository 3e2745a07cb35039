"""Hook specifications: the plugin author's reference.

A plugin is a module (or object) whose functions carry ``@interp.hookimpl`` and are named after
the hooks below.  It is found through an entry point in the group ``interp``::

    [project.entry-points.interp]
    myplugin = "my_package.plugin"

Every ``register_*`` hook receives a ``register`` callable: call it once per component you
provide.  The core validates each component, labels it with your plugin's name and rejects a
name that another plugin already registered in the same catalogue (the error names both).
"""

import pluggy

hookspec = pluggy.HookspecMarker("interp")
hookimpl = pluggy.HookimplMarker("interp")


@hookspec
def register_ridge_families(register):
    """Register ridge-function families for Symbolic Pursuit.

    Call ``register(interp.RidgeFamily(...))`` for each family: a Meijer G configuration
    ``orders=(m, n, p, q)`` with initial ``init_a`` (p values), ``init_b`` (q values),
    ``init_scale`` and ``init_power`` for G(a; b | s z^r), or any differentiable family with
    ``value(theta, z)``, ``gradient(theta, z)`` and ``init_theta``.  The pursuit tries every
    registered family at every term and keeps the best.
    """


@hookspec
def register_penalties(register):
    """Register penalties for the proximal-gradient solvers (the Facets method and others).

    Call ``register(interp.Penalty(name, value, prox, subdiff_distance=None, defaults={}))``:
    ``value(w, **hyper)`` returns the penalty of a weight vector, ``prox(w, step, **hyper)``
    its proximal operator applied elementwise, ``subdiff_distance(w, grad, **hyper)`` (optional)
    the per-coordinate distance used as the stopping test.  Users select it by name, e.g.
    ``FacetsClassifier(penalty="name")``.
    """


@hookspec
def register_embeddings(register):
    """Register feature embeddings: ways to turn a fitted model and its data into vectors.

    Call ``register(interp.Embedding(name, embed))`` where ``embed(model, X, y=None,
    **options)`` returns an array of shape (n_features, n_dims).
    """


@hookspec
def register_kernel_operators(register):
    """Register logical operators for propositional kernels.

    Call ``register(interp.KernelOperator(name, arity, truth_table))``.  The truth table alone
    defines the operator's kernel (joint-truth-table rule), so the operator can be used in
    formulas as ``name(f1, ..., fk)`` with no other code.  Row order: the operands' values read
    as a binary number, first operand most significant.
    """


@hookspec
def register_methods(register):
    """Register interpretation methods runnable as ``interp run --plugin NAME``.

    Call ``register(interp.Method(name, summary, run, options=(interp.Option(...), ...)))``.
    The core parses the declared options on the command line, loads and validates the data, and
    calls ``run(data, ctx, **options)``, which returns an ``interp.Explanation``.
    """


@hookspec
def register_commands(cli):
    """Add commands to the ``interp`` command line.

    ``cli`` is the root ``click.Group``: decorate functions with ``@cli.command()``.  A command
    whose name is already taken is an error naming the plugin.
    """
