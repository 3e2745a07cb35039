"""interp.testing's contract checkers: every installed component passes, broken ones fail with a
message naming the component and what is wrong."""

import numpy as np
import pytest

import interp
from interp import Embedding, KernelOperator, Penalty, RidgeFamily
from interp.testing import (ContractError, check_embedding, check_kernel_operator, check_penalty,
                            check_ridge_family, check_stands_alone)

CHECKS = {
    "penalties": check_penalty,
    "ridge_families": check_ridge_family,
    "kernel_operators": check_kernel_operator,
    "embeddings": check_embedding,
}


def _installed():
    registry = interp.get_registry()
    return [(catalogue, name) for catalogue in CHECKS for name in getattr(registry, catalogue)]


@pytest.mark.parametrize("catalogue, name", _installed(), ids=lambda v: v)
def test_every_installed_component_keeps_its_contract(catalogue, name):
    CHECKS[catalogue](getattr(interp.get_registry(), catalogue)[name])


def test_the_installed_plugins_register_a_component_of_every_kind():
    assert {catalogue for catalogue, _ in _installed()} == set(CHECKS)


def test_a_penalty_passes_with_other_hyperparameters():
    check_penalty(interp.get_registry().penalties["scf"], {"eps": 0.4})


# -- penalties ------------------------------------------------------------------------------------
def _soft(w, step):
    return np.sign(w) * np.maximum(np.abs(w) - step, 0.0)


class L1(Penalty):
    """A correct Lasso penalty, the base of the broken ones below."""

    name = "lasso"
    per_coordinate_steps = True
    any_shape = True

    def value(self, w):
        return float(np.abs(w).sum())

    def prox(self, w, step):
        return _soft(w, step)

    def subdiff_distance(self, w, grad):
        w, grad = np.asarray(w, dtype=float), np.asarray(grad, dtype=float)
        at_zero = np.maximum(np.abs(grad) - 1.0, 0.0)
        return np.where(w == 0, at_zero, np.abs(grad + np.sign(w)))


def test_a_penalty_defined_as_a_subclass_passes():
    check_penalty(L1())


class Shrunk(L1):
    name = "shrunk"

    def prox(self, w, step):  # off by a factor
        return 0.9 * _soft(w, step)


class Negative(L1):
    name = "negative"

    def value(self, w):
        return float(np.sum(w))


class Norm(L1):
    name = "norm"

    def value(self, w):  # not a sum over coordinates
        return float(np.linalg.norm(w))


class FirstStep(L1):
    name = "first_step"

    def prox(self, w, step):  # ignores all steps but the first
        return _soft(w, np.ravel(step)[0])


class Stub(L1):
    name = "stub"

    def subdiff_distance(self, w, grad):
        return np.abs(grad)


class Zero(L1):
    name = "zero"

    def subdiff_distance(self, w, grad):
        return np.zeros(np.shape(w))


@pytest.mark.parametrize("penalty, message", [
    (Shrunk(), r"penalty 'shrunk': prox\(-3\.7, step=0\.05\) = -3\.285 but the minimiser is -3\.65"),
    (Negative(), r"penalty 'negative': value\(\[-3\.7\]\) = -3\.7, not a finite number >= 0"),
    (Norm(), "penalty 'norm': value of the 11 test points together .* a penalty is a sum over coordinates"),
    (FirstStep(), "penalty 'first_step': prox of 44 points with one step per coordinate gives .* at "
                  r"coordinate 1, but prox\(-3\.7, step=0\.3\) = -3\.4"),
    (Stub(), r"penalty 'stub': subdiff_distance is 1, not 0, at u = prox\(-3\.7, step=0\.05\) = -3\.65"),
    (Zero(), r"'zero': subdiff_distance\(\[-3\.7\], grad=\[-3\]\) = 0 but value's one-sided derivatives "
             r"\[-1, -1\] put -grad at distance 4"),
], ids=lambda v: getattr(v, "name", ""))
def test_a_broken_penalty_fails_naming_what_is_wrong(penalty, message):
    with pytest.raises(ContractError, match=message):
        check_penalty(penalty)


def test_a_prox_for_scalar_steps_only_fails_if_it_declares_more():
    class ScalarOnly(L1):
        name = "scalar_only"

        def prox(self, w, step):
            return _soft(w, float(step))

    with pytest.raises(ContractError, match="'scalar_only': declares per_coordinate_steps but prox does not take "
                                            r"one step per coordinate \(TypeError: .*per_coordinate_steps = False"):
        check_penalty(ScalarOnly())

    class Declared(ScalarOnly):
        per_coordinate_steps = False

    check_penalty(Declared())


def test_a_prox_for_vectors_only_fails_if_it_declares_any_shape():
    class VectorOnly(L1):
        name = "vector_only"

        def prox(self, w, step):
            if np.ndim(w) != 1:
                raise ValueError("one vector at a time")
            return _soft(w, step)

    with pytest.raises(ContractError, match="'vector_only': declares any_shape but prox does not take a 2-D stack "
                                            r"of points \(ValueError: one vector at a time\); set any_shape = False"):
        check_penalty(VectorOnly())
    check_penalty(VectorOnly(any_shape=False))


def test_a_stacked_prox_that_mixes_rows_fails():
    class RowMixer(L1):
        name = "row_mixer"

        def prox(self, w, step):
            out = _soft(w, step)
            return out[::-1] if np.ndim(w) == 2 else out

    with pytest.raises(ContractError, match="'row_mixer': prox of 44 points stacked in 2-D gives"):
        check_penalty(RowMixer())


def test_declarations_must_be_booleans():
    with pytest.raises(interp.PluginError, match="per_coordinate_steps must be True or False, got 1"):
        L1(per_coordinate_steps=1)


def test_a_penalty_given_as_callables_with_hyperparameters():
    pen = Penalty("scaled_l1", value=lambda w, c=1.0: c * float(np.abs(w).sum()),
                  prox=lambda w, step, c=1.0: _soft(w, c * step), defaults={"c": 2.0})
    check_penalty(pen)
    wrong = Penalty("wrong_hyper", value=lambda w, c=1.0: c * float(np.abs(w).sum()),
                    prox=lambda w, step, c=1.0: _soft(w, step), defaults={"c": 2.0})
    with pytest.raises(ContractError, match=r"'wrong_hyper': prox\(-3\.7, step=0\.05, c=2\.0\) = -3\.65 but the "
                                            r"minimiser is -3\.6"):
        check_penalty(wrong)


# -- ridge families -------------------------------------------------------------------------------
class Quadratic(RidgeFamily):
    """g(z) = t0 z + t1 z^2."""

    name = "quadratic"
    init_theta = (0.5, -1.0)

    def value(self, theta, z):
        return theta[0] * z + theta[1] * z**2

    def gradient(self, theta, z):
        return np.vstack([z, z**2]), theta[0] + 2 * theta[1] * z


def test_a_custom_family_passes():
    check_ridge_family(Quadratic())
    check_ridge_family(Quadratic(), z=np.linspace(-2, 2, 9))


def test_a_wrong_gradient_fails_naming_the_derivative():
    class WrongDz(Quadratic):
        name = "wrong_dz"

        def gradient(self, theta, z):
            dth, dz = super().gradient(theta, z)
            return dth, 2 * dz

    with pytest.raises(ContractError, match=r"ridge family 'wrong_dz': d value / d z at theta=\(0\.5, -1\), "
                                            r"z=0\.05 is 0\.8 by gradient\(\) but 0\.4 by central differences"):
        check_ridge_family(WrongDz())

    class WrongDtheta(Quadratic):
        name = "wrong_dtheta"

        def gradient(self, theta, z):
            return np.vstack([z, z]), theta[0] + 2 * theta[1] * z

    with pytest.raises(ContractError, match=r"'wrong_dtheta': d value / d theta\[1\] at theta=\(0\.5, -1\), "
                                            r"z=0\.05 is 0\.05 by gradient\(\) but 0\.0025"):
        check_ridge_family(WrongDtheta())


def test_a_gradient_of_the_wrong_shape_fails():
    flat = RidgeFamily("flat", init_theta=(1.0, 2.0), value=lambda t, z: t[0] * z + t[1],
                       gradient=lambda t, z: (np.concatenate([z, np.ones_like(z)]), t[0] + 0 * z))
    with pytest.raises(ContractError, match=r"'flat': gradient\(theta, z\) returned shapes \(12,\) and \(6,\), "
                                            r"not \(2, 6\) and \(6,\)"):
        check_ridge_family(flat)


def test_meijer_families_are_checked_for_orders_and_lengths():
    check_ridge_family(RidgeFamily("g", orders=(2, 1, 2, 3), init_a=[1, 2], init_b=[0.5, 1, 1.5]))

    class Unchecked(RidgeFamily):  # skips the validation done on creation
        def validate(self):
            pass

    with pytest.raises(ContractError, match="ridge family 'short': init_a has 0 values, p = 1 needed"):
        check_ridge_family(Unchecked("short", orders=(1, 0, 1, 2), init_b=(1.0, 2.0)))
    with pytest.raises(ContractError, match=r"'big_m': orders \(m, n, p, q\) = \(3, 0, 0, 2\) need 0 <= m <= q"):
        check_ridge_family(Unchecked("big_m", orders=(3, 0, 0, 2), init_b=(1.0, 2.0)))


class QuadraticPrinted(Quadratic):
    """Prints as its formula: expression(theta, u) = t0 u + t1 u^2."""

    name = "quadratic_printed"

    def expression(self, theta, u):
        return float(theta[0]) * u + float(theta[1]) * u**2


class DecayPrinted(RidgeFamily):
    """exp(-t z), printed as the Meijer G-function that only mpmath evaluates."""

    name = "decay"
    init_theta = (1.5,)

    def value(self, theta, z):
        return np.exp(-theta[0] * z)

    def gradient(self, theta, z):
        g = np.exp(-theta[0] * z)
        return (-z * g)[None, :], -theta[0] * g

    def expression(self, theta, u):
        import sympy as sp

        return sp.meijerg([[], []], [[0], []], float(theta[0]) * u)


def test_a_family_whose_expression_equals_its_value_passes():
    check_ridge_family(QuadraticPrinted())
    check_ridge_family(DecayPrinted())  # numpy cannot evaluate meijerg, mpmath can
    via_keyword = RidgeFamily("kw", init_theta=(0.5, -1.0), value=Quadratic().value, gradient=Quadratic().gradient,
                              expression=QuadraticPrinted().expression)
    check_ridge_family(via_keyword)


class OffByOne(QuadraticPrinted):
    name = "off_by_one"

    def expression(self, theta, u):
        return super().expression(theta, u) + 1


class OtherSymbol(QuadraticPrinted):
    name = "other_symbol"

    def expression(self, theta, u):
        import sympy as sp

        return super().expression(theta, sp.Symbol("z"))


@pytest.mark.parametrize("family, message", [
    (OffByOne(), r"ridge family 'off_by_one': expression\(theta=\(0\.5, -1\), u\) = .* does not equal value\(\) to "
                 r"1e-08: at u=0\.05 it is 1\.0225\+0j, value\(\) is 0\.0225 .*would print the term by the "
                 r"family's name"),
    (OtherSymbol(), r"'other_symbol': expression\(theta=\(0\.5, -1\), u\) = .* is not a sympy expression of u alone"),
], ids=lambda v: getattr(v, "name", ""))
def test_an_expression_that_is_not_the_family_fails(family, message):
    with pytest.raises(ContractError, match=message):
        check_ridge_family(family)


def _boom(*args, **kwargs):
    raise RuntimeError(f"boom in {object()!r}")


class CombineRaises(KernelOperator):
    name = "combine_raises"
    arity = 2
    truth_table = (0, 0, 0, 1)

    def combine(self, blocks):
        return _boom()


class RejectsItsDefaults(Penalty):
    name = "picky"
    defaults = {"cap": 1.0}
    value = staticmethod(lambda w, cap: 0.0)
    prox = staticmethod(lambda w, step, cap: w)

    def check_hyper(self, hyper):
        raise interp.InputError("cap must be > 2")


@pytest.mark.parametrize("check, component, message", [
    (check_penalty, Penalty("boom", value=lambda w: 0.0, prox=_boom),
     r"^penalty 'boom': prox\(-3\.7, step=0\.05\) raised RuntimeError: boom in object$"),
    (check_penalty, Penalty("boom", value=_boom, prox=lambda w, step: w),
     r"^penalty 'boom': value\(\[-3\.7\]\) raised RuntimeError: boom in object$"),
    (check_penalty, RejectsItsDefaults(), r"^penalty 'picky': bind\(\) raised InputError: cap must be > 2$"),
    (check_ridge_family, RidgeFamily("boom", init_theta=(1.0,), value=_boom, gradient=_boom),
     r"^ridge family 'boom': value\(theta=\(1\), z\) raised RuntimeError: boom in object$"),
    (check_ridge_family, RidgeFamily("boom", init_theta=(0.5, -1.0), value=Quadratic().value,
                                     gradient=Quadratic().gradient, expression=_boom),
     r"^ridge family 'boom': expression\(theta=\(0\.5, -1\), u\) raised RuntimeError: boom in object$"),
    (check_kernel_operator, CombineRaises(),
     r"^kernel operator 'combine_raises': combine\(\) of 2 operands' joint-state counts raised RuntimeError"),
    (check_embedding, Embedding("boom", _boom),
     r"^embedding 'boom': embed\(\) on a scipy.sparse CSR 9 x 9 matrix raised RuntimeError: boom in object$"),
], ids=lambda v: getattr(v, "__name__", getattr(v, "name", "")))
def test_an_exception_inside_a_check_is_a_contract_error_naming_the_component(check, component, message):
    with pytest.raises(ContractError, match=message):
        check(component)


# -- kernel operators -----------------------------------------------------------------------------
class AndClosedForm(KernelOperator):
    """Binary AND with the closed form of its kernel."""

    name = "and_cf"
    arity = 2
    truth_table = (0, 0, 0, 1)

    def combine(self, blocks):
        x = [b[1][0] + b[1][1] for b in blocks]  # operand true on x
        z = [b[0][1] + b[1][1] for b in blocks]
        total = [b[0][0] + b[0][1] + b[1][0] + b[1][1] for b in blocks]
        both = blocks[0][1][1] * blocks[1][1][1]
        xt, zt = x[0] * x[1], z[0] * z[1]
        return [[total[0] * total[1] - xt - zt + both, zt - both], [xt - both, both]]


def test_an_operator_with_a_correct_closed_form_passes():
    check_kernel_operator(AndClosedForm())
    check_kernel_operator(KernelOperator("maj", 3, (0, 0, 0, 1, 0, 1, 1, 1)))
    check_kernel_operator(KernelOperator("odd5", 5, [bin(r).count("1") % 2 for r in range(32)]))


class Swapped(AndClosedForm):
    name = "swapped"

    def combine(self, blocks):  # out[0][1] and out[1][0] exchanged
        out = super().combine(blocks)
        return [[out[0][0], out[1][0]], [out[0][1], out[1][1]]]


class ImpReversed(KernelOperator):
    """With literal operands over the same features IMP and its converse have the same kernel;
    the check gives each operand its own data, so the order of the operands counts."""

    name = "imp_reversed"
    arity = 2
    truth_table = (1, 1, 0, 1)

    def combine(self, blocks):  # the rule, applied to the operands in the wrong order
        return KernelOperator.combine(self, blocks[::-1])


class KernelOnly(AndClosedForm):
    name = "kernel_only"

    def combine(self, blocks):  # the kernel alone, not the four counts
        return super().combine(blocks)[1][1]


@pytest.mark.parametrize("op, message", [
    (Swapped(), r"kernel operator 'swapped': combine\(\) gives the joint-state count out\[0\]\[1\] = .* for X "
                r"row 0 and Z row 0, but enumerating the 6 features of swapped\(x1, x2\) gives"),
    (ImpReversed(), r"'imp_reversed': combine\(\) gives the joint-state count out\[0\]\[0\]"),
    (KernelOnly(), r"'kernel_only': combine\(\) must return the 2 x 2 counts out\[u\]\[v\]"),
], ids=lambda v: getattr(v, "name", ""))
def test_an_operator_whose_combine_override_is_wrong_fails(op, message):
    with pytest.raises(ContractError, match=message):
        check_kernel_operator(op)


# -- embeddings -----------------------------------------------------------------------------------
def _top2(matrix):
    dense = matrix.toarray() if hasattr(matrix, "toarray") else np.asarray(matrix)
    vals, vecs = np.linalg.eigh(dense)
    order = np.argsort(-np.abs(vals))[:2]
    return interp.EmbeddedFeatures(vecs[:, order] * np.abs(vals[order]), singular_values=np.abs(vals[order]))


def test_an_embedding_passes():
    check_embedding(Embedding("top2", _top2))


@pytest.mark.parametrize("embed, message", [
    (lambda m: _top2(m).vectors.T, r"'transposed': embed\(\) on a scipy.sparse CSR 9 x 9 matrix returned shape "
                                   r"\(2, 9\), not \(9, 2\) \(Feature Vectors needs 2-D vectors\)"),
    (lambda m: _top2(m).vectors[:, 0], r"returned shape \(9,\), not \(9, 2\)"),
    (lambda m: np.ones((m.shape[0], 3)), r"returned shape \(9, 3\), not \(9, 2\) \(Feature Vectors needs 2-D"),
    (lambda m: np.full((m.shape[0], 2), np.nan), r"on a scipy.sparse CSR 9 x 9 matrix returned non-finite values"),
    (lambda m: np.random.default_rng().random((m.shape[0], 2)), "twice gives different vectors"),
    (lambda m: interp.EmbeddedFeatures(np.ones((m.shape[0], 2)), singular_values=[1.0]),
     r"singular_values on a scipy.sparse CSR 9 x 9 matrix must be 2 finite values"),
    (lambda m: np.asarray(m)[:, :2], r"'transposed': embed\(\) on a scipy.sparse CSR 9 x 9 matrix raised IndexError"),
])
def test_a_broken_embedding_fails_naming_the_problem(embed, message):
    with pytest.raises(ContractError, match=message):
        check_embedding(Embedding("transposed", embed))


def test_an_embedding_is_checked_with_its_parameters():
    def powered(matrix, power=1.0):
        if power > 2:  # a bug that only some parameters reach
            return np.full((matrix.shape[0], 2), np.inf)
        return _top2(np.power(matrix.toarray() if hasattr(matrix, "toarray") else matrix, power))

    embedding = Embedding("powered", powered, defaults={"power": 0.5})
    check_embedding(embedding)
    check_embedding(embedding, {"power": 2.0})
    with pytest.raises(ContractError, match="'powered': embed\\(\\) on a scipy.sparse CSR 9 x 9 matrix returned non-finite"):
        check_embedding(embedding, {"power": 3.0})
    with pytest.raises(interp.InputError, match="embedding 'powered' has no parameter 'pow' \\(it takes: power\\)"):
        check_embedding(embedding, {"pow": 3.0})


def test_an_embedding_that_changes_its_input_fails():
    def scale_in_place(matrix):
        matrix *= 2
        return np.ones((matrix.shape[0], 2))

    with pytest.raises(ContractError, match=r"'in_place': embed\(\) changed its input \(a scipy.sparse CSR 9 x 9 "
                                            r"matrix\)"):
        check_embedding(Embedding("in_place", scale_in_place))


def test_an_embedding_of_any_dimension_passes_when_the_consumer_takes_any():
    wide = Embedding("wide", lambda m: np.ones((m.shape[0], 3)) * np.arange(1, 4))
    check_embedding(wide, n_dims=None)
    with pytest.raises(ContractError, match=r"returned shape \(9, 3\), not \(9, 2\)"):
        check_embedding(wide)


class FirstTwo(Embedding):
    """The featurevec docs' example: each feature's counts with features 0 and 1."""

    name = "firsttwo"

    def embed(self, matrix):
        return matrix.toarray()[:, :2]


def _counts_3d(matrix):
    return matrix.toarray()[:, :3]


def _flat(matrix):
    return np.asarray(matrix.sum(axis=1)).ravel()


@pytest.mark.parametrize("embedding", [FirstTwo(), Embedding("svd2", _top2), Embedding("three", _counts_3d),
                                       Embedding("flat", _flat)], ids=lambda e: e.name)
def test_the_checker_accepts_what_feature_vectors_accepts(embedding):
    from interp_featurevec import FeatureVectors

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 5))
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(int)
    try:
        FeatureVectors(n_paths=300, random_state=0, embedding=embedding).fit(X, y)
        consumer = None
    except interp.InterpError as err:
        consumer = str(err)
    try:
        check_embedding(embedding)
        checker = None
    except ContractError as err:
        checker = str(err)
    assert (consumer is None) == (checker is None), (consumer, checker)


def test_checks_take_only_their_component_type_and_its_hyperparameters():
    with pytest.raises(TypeError, match="check_penalty takes an interp.Penalty, got Embedding"):
        check_penalty(Embedding("e", _top2))
    with pytest.raises(ValueError, match="penalty 'scf' has no hyperparameter 'cap' \\(its defaults name: eps\\)"):
        check_penalty(interp.get_registry().penalties["scf"], {"cap": 1.0})


class _KeepsItsPenalty:
    """A fitted object that stores the penalty it resolved."""

    def __init__(self):
        self.penalty = interp.get_registry().penalties["l1"]

    def shrink(self, w):
        return self.penalty.prox(np.asarray(w, dtype=float), 1.0).tolist()


class _LooksItUpAgain(_KeepsItsPenalty):
    """A fitted object that reaches back into the registry when it is used."""

    def shrink(self, w):
        return interp.get_registry().penalties["l1"].prox(np.asarray(w, dtype=float), 1.0).tolist()


def _shrunk(model):
    return {"shrunk": model.shrink([3.0, -0.5, -2.0])}


def test_check_stands_alone_tells_a_self_contained_model_from_one_that_needs_its_plugin():
    check_stands_alone(_shrunk, _KeepsItsPenalty(), disabled=["facets"])
    with pytest.raises(ContractError, match="without plugins facets: _shrunk failed: KeyError"):
        check_stands_alone(_shrunk, _LooksItUpAgain(), disabled=["facets"])
