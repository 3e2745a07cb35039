"""Hook specifications: the plugin author's reference.

A plugin is a module (or object) whose functions carry ``@interp.hookimpl`` and are named after
the hooks below.  It is found through an entry point in the group ``interp``:

    [project.entry-points.interp]
    myplugin = "my_package.plugin"

A plugin may also be a class (``myplugin = "my_package.plugin:MyPlugin"``): the core makes one
instance of it, so a downstream plugin can subclass a built-in one (e.g.
``interp_facets.plugin.FacetsPlugin``) and extend a hook by calling the parent's.

Every ``register_*`` hook receives a ``register`` callable: call it once per component you
provide.  A component is an instance of ``interp.RidgeFamily``, ``interp.Penalty``,
``interp.Embedding``, ``interp.KernelOperator`` or ``interp.Method`` (or of a subclass that
defines the behaviour as methods).  The core validates each component and labels it with your
plugin's name.  A name another plugin registers in the same catalogue is settled by the
registry's rules, the same whatever the load order: a plugin that declares ``replaces =
"other"`` takes the names it shares with ``other``; otherwise a built-in plugin keeps its name;
otherwise neither gets it.  Only that name is affected; a warning names both plugins, and
``interp plugins`` shows the outcome on each.
"""

import pluggy

hookspec = pluggy.HookspecMarker("interp")
hookimpl = pluggy.HookimplMarker("interp")


@hookspec(historic=True)
def add_hookspecs(pluginmanager):
    """Add hook specifications of your own on top of interp's (as ``pytest_addhooks`` does).

    Called once for every plugin as it is registered.  Call
    ``pluginmanager.add_hookspecs(module_or_class)`` with functions marked ``@interp.hookspec``;
    plugins of your library then implement them with ``@interp.hookimpl`` and are found through
    the same entry-point group.  Gather what they register with
    ``interp.registry.collect(hook_name, ComponentType)``.  Hooks are checked against their
    specifications once every installed plugin had its turn, so the load order does not matter.
    """


@hookspec
def register_ridge_families(register):
    """Register ridge-function families for Symbolic Pursuit.

    Call ``register(interp.RidgeFamily(...))`` for each family: a Meijer G configuration
    ``orders=(m, n, p, q)`` with initial ``init_a`` (p values), ``init_b`` (q values),
    ``init_scale`` and ``init_power`` for G(a; b | s z^r), or any differentiable family with
    ``value(theta, z)``, ``gradient(theta, z)`` and ``init_theta`` (given as callables, or as
    methods of a subclass), and ``expression(theta, u)``, the sympy expression a fitted term
    prints as, equal to ``value`` to 1e-8 (without it a term prints as ``name(u1)``).  The
    pursuit tries every registered family at every term, keeps the best, and stores the family
    object in the fitted model.
    """


@hookspec
def register_penalties(register):
    """Register penalties for the proximal-gradient solvers (the Facets method and others).

    Call ``register(interp.Penalty(name, value, prox, subdiff_distance=None, defaults={}))``,
    or register an instance of an ``interp.Penalty`` subclass that defines the methods:
    ``value(w, **hyper)`` returns the penalty of a weight vector, ``prox(w, step, **hyper)``
    its proximal operator applied elementwise, ``subdiff_distance(w, grad, **hyper)`` (optional)
    the per-coordinate distance used as the stopping test; ``hyper`` are the parameters
    declared in ``defaults``.  Users select it by name, e.g. ``FacetsClassifier(penalty="name",
    penalty_params={...})`` or ``interp run --method facets --penalty name --penalty-param
    key=value``; the fitted estimator keeps the object.
    """


@hookspec
def register_embeddings(register):
    """Register feature embeddings: ways to turn a feature association matrix into vectors.

    Call ``register(interp.Embedding(name, embed))`` (or register an instance of a subclass that
    defines ``embed``): ``embed(matrix, **hyper)`` takes a symmetric non-negative (n_features,
    n_features) ``scipy.sparse.csr_matrix`` and the embedding's parameters (declared with their
    defaults in ``defaults``), and returns an ``interp.EmbeddedFeatures`` or an array of shape
    (n_features, 2).  Feature Vectors embeds its path co-occurrence matrix with the embedding the
    user names: ``FeatureVectors(embedding="name", embedding_params={...})`` or
    ``interp run --method featurevec --embedding name --embedding-param key=value``.
    """


@hookspec
def register_kernel_operators(register):
    """Register logical operators for propositional kernels.

    Call ``register(interp.KernelOperator(name, arity, truth_table, symbol=""))``.  The truth
    table alone defines the operator's kernel (joint-truth-table rule,
    ``KernelOperator.combine``), so the operator can be used in formulas as
    ``name(f1, ..., fk)`` with no other code; a subclass may override ``combine`` with a closed
    form.  Row order: the operands' values read as a binary number, first operand most
    significant.  ``symbol`` (``&``, ``|``, ``^``, ``->``, ``<->``, ``~``) is a name under the
    same rules: the built-in operators keep theirs unless a plugin declares it replaces
    ``propositional``.
    """


@hookspec
def register_methods(register):
    """Register interpretation methods runnable as ``interp run --method NAME``.

    Call ``register(interp.Method(name, summary, run, options=(interp.Option(...), ...)))``,
    with ``run`` a callable or a ``"package.module:function"`` string imported when the method
    runs.  The options are declared once: the core makes them command-line options, converts
    and checks the values, fills in the declared defaults, loads and validates the data, and
    calls ``run(data, ctx, **options)``, which returns an ``interp.Explanation``.  An
    ``interp.InputError`` from ``run`` is the user's bad input (one line, exit 2); any other
    exception is reported as a bug in the plugin (one line, exit 1).
    """


@hookspec
def register_commands(cli):
    """Add commands to the ``interp`` command line.

    ``cli`` is a ``click.Group`` of your plugin's own: decorate functions with
    ``@cli.command()``; they appear as sub-commands of ``interp``.  Command names follow the
    registry's rules between plugins, and interp's own commands (``run``, ``plugins``, ...) are
    never replaced.
    """
