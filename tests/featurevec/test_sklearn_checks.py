"""scikit-learn's estimator checks on a small FeatureVectors."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from interp_featurevec import FeatureVectors


@parametrize_with_checks([FeatureVectors(n_paths=200, random_state=0)])
def test_sklearn_compatible(estimator, check):
    check(estimator)
