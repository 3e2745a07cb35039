"""Components are validated on creation, with errors that name the component and the problem."""

import numpy as np
import pytest

from interp import Embedding, KernelOperator, Method, Option, Penalty, PluginError, RidgeFamily


def test_meijer_family_accepts_consistent_orders():
    fam = RidgeFamily("g", orders=(2, 1, 2, 3), init_a=[1, 2], init_b=[0.5, 1, 1.5])
    assert fam.is_meijer and fam.orders == (2, 1, 2, 3) and fam.init_b == (0.5, 1.0, 1.5)


@pytest.mark.parametrize(
    "orders, a, b, message",
    [
        ((3, 0, 0, 2), (), (1, 2), "0 <= m <= q"),
        ((1, 2, 1, 2), (1,), (1, 2), "0 <= m <= q and 0 <= n <= p"),
        ((1, 0, 1, 2), (), (1, 2), "init_a has 0 values, p = 1"),
        ((1, 0, 0, 2), (), (1,), "init_b has 1 values, q = 2"),
    ],
)
def test_meijer_family_rejects_bad_orders(orders, a, b, message):
    with pytest.raises(PluginError, match=message) as err:
        RidgeFamily("bad", orders=orders, init_a=a, init_b=b)
    assert "'bad'" in str(err.value)


def test_custom_family_needs_callables_and_initial_parameters():
    RidgeFamily("poly", value=lambda t, z: t[0] * z, gradient=lambda t, z: (z[None], t[0] + 0 * z), init_theta=[1])
    with pytest.raises(PluginError, match="value and gradient"):
        RidgeFamily("half", value=lambda t, z: z)
    with pytest.raises(PluginError, match="init_theta"):
        RidgeFamily("noinit", value=lambda t, z: z, gradient=lambda t, z: z)
    with pytest.raises(PluginError, match="not value/gradient"):
        RidgeFamily("both", orders=(1, 0, 0, 1), init_b=[0], value=lambda t, z: z, gradient=lambda t, z: z)


def test_kernel_operator_truth_table_length_and_values():
    assert KernelOperator("and", 2, [0, 0, 0, 1]).truth_table == (0, 0, 0, 1)
    with pytest.raises(PluginError, match="truth table has 3 rows, 2\\*\\*2 = 4 needed"):
        KernelOperator("and", 2, [0, 0, 1])
    with pytest.raises(PluginError, match="entries must be 0 or 1"):
        KernelOperator("and", 2, [0, 0, 2, 1])
    with pytest.raises(PluginError, match="arity must be >= 1"):
        KernelOperator("const", 0, [1])
    with pytest.raises(PluginError, match="identifier"):
        KernelOperator("a-b", 1, [0, 1])


def test_penalty_embedding_method_option_validation():
    Penalty("l1", value=lambda w: np.abs(w).sum(), prox=lambda w, s: w)
    with pytest.raises(PluginError, match="prox must be callable"):
        Penalty("l1", value=lambda w: 0.0, prox=None)
    with pytest.raises(PluginError, match="embed must be callable"):
        Embedding("e", embed=3)
    with pytest.raises(PluginError, match="name must be a non-empty string"):
        Embedding("", embed=len)
    with pytest.raises(PluginError, match="summary must be one"):
        Method("m", summary="two\nlines", run=len)
    with pytest.raises(PluginError, match="reserved"):
        Method("m", summary="s", run=len, options=(Option("seed", int, 0),))
    with pytest.raises(PluginError, match="unique"):
        Method("m", summary="s", run=len, options=(Option("k", int, 0), Option("k", int, 1)))
    with pytest.raises(PluginError, match="type must be"):
        Option("k", list)
    assert Option("max_terms", int, 3).flag == "--max-terms"


def test_components_are_frozen():
    op = KernelOperator("not", 1, [1, 0])
    with pytest.raises(AttributeError):
        op.name = "other"


def _scaled_l1_value(w, c=1.0):
    return c * float(np.abs(w).sum())


def _scaled_l1_prox(w, step, c=1.0):
    return np.sign(w) * np.maximum(np.abs(w) - c * step, 0.0)


def test_a_penalty_binds_its_hyperparameters_and_declares_what_its_prox_takes():
    import pickle

    from interp import InputError

    pen = Penalty("scaled_l1", value=_scaled_l1_value, prox=_scaled_l1_prox, defaults={"c": 2.0},
                  per_coordinate_steps=True)
    assert pen.per_coordinate_steps and not pen.any_shape  # as declared; nothing is probed
    bound = pen.bind()
    assert bound.hyper == {"c": 2.0} and bound.value(np.array([1.0, -2.0])) == 6.0
    assert bound.per_coordinate_steps and not bound.any_shape and not bound.has_subdiff_distance
    np.testing.assert_array_equal(pen.bind(c=0.5).prox(np.array([3.0, -0.2]), np.array([2.0, 1.0])), [2.0, 0.0])
    again = pickle.loads(pickle.dumps(pen.bind(c=0.5)))
    assert again.hyper == {"c": 0.5} and again.value(np.array([4.0])) == 2.0
    with pytest.raises(InputError, match=r"penalty 'scaled_l1' has no parameter 'eps' \(it takes: c\)"):
        pen.bind(eps=0.1)
