"""An example third-party interp plugin.

It adds a Meijer G configuration for Symbolic Pursuit and a 3-ary majority operator for
propositional kernels.  Nothing in interp changes: the entry point in ``pyproject.toml``
(group ``interp``) is all it takes.
"""

from interp import KernelOperator, RidgeFamily, hookimpl

__version__ = "0.1.0"


@hookimpl
def register_ridge_families(register):
    # G^{1,1}_{2,2}(a1, a2; b1, b2 | s z^r): rational and power functions such as z^b / (1 + z).
    register(
        RidgeFamily(
            name="meijer_1122",
            orders=(1, 1, 2, 2),
            init_a=(0.3, 0.9),
            init_b=(0.1, 0.5),
            init_scale=1.0,
            init_power=1.0,
            description="G^{1,1}_{2,2}: rational functions of z",
        )
    )


@hookimpl
def register_kernel_operators(register):
    # maj(x, y, z) is true when at least two operands are true.  Rows: (x, y, z) read as binary.
    register(
        KernelOperator(
            name="maj",
            arity=3,
            truth_table=(0, 0, 0, 1, 0, 1, 1, 1),
            description="majority of three",
        )
    )
