"""Confidence intervals and paired tests: coverage and error rates on synthetic data with a known answer,
the linearised bootstrap against the bootstrap that recomputes the statistic, determinism."""

import numpy as np
import pytest
from scipy import stats

from sentibench.evaluation import metrics, spearman
from sentibench.evaluation.bootstrap import bootstrap_means, interval, paired_bootstrap, t_interval
from sentibench.evaluation.spearman import sort_order, spearman_influence, spearman_pseudo_values
from sentibench.evaluation.units import UnitValues
from sentibench.results.unit_values_file import load_units, save_units


def test_percentile_interval_covers_a_known_mean_at_about_the_nominal_rate():
    rng = np.random.default_rng(0)
    covered = [lo <= 0.3 <= hi for lo, hi in
               (interval(rng.binomial(1, 0.3, size=200).astype(float), resamples=400, seed=i) for i in range(300))]
    # 300 trials at 95%: the binomial 99.9% band around 285 is about 272..294
    assert 0.90 <= np.mean(covered) <= 0.985


def test_t_interval_over_seeds_matches_the_textbook_formula():
    values = [0.61, 0.70, 0.66, 0.58, 0.75]
    mean, sd = np.mean(values), np.std(values, ddof=1)
    half = 2.7764451051977987 * sd / np.sqrt(5)  # t_{0.975, 4}
    got = t_interval(values)
    assert got["low"] == pytest.approx(mean - half) and got["high"] == pytest.approx(mean + half)
    assert t_interval([0.5])["low"] is None


def test_paired_bootstrap_finds_a_planted_difference_and_keeps_its_false_positive_rate():
    rng = np.random.default_rng(1)
    base = rng.normal(size=400)
    planted = paired_bootstrap(base + 0.3 + 0.5 * rng.normal(size=400), base, resamples=500)
    assert planted["p_value"] < 0.01 and planted["low"] > 0
    rejections = []
    for trial in range(200):  # no difference: A and B are the same scores plus independent noise
        shared = rng.normal(size=100)
        a, b = shared + rng.normal(size=100), shared + rng.normal(size=100)
        rejections.append(paired_bootstrap(a, b, resamples=300, seed=trial)["p_value"] < 0.05)
    assert 0.01 <= np.mean(rejections) <= 0.10


def test_resampling_is_deterministic_given_the_seed():
    values = np.arange(50, dtype=float)
    assert np.array_equal(bootstrap_means(values, 200, seed=3), bootstrap_means(values, 200, seed=3))
    assert not np.array_equal(bootstrap_means(values, 200, seed=3), bootstrap_means(values, 200, seed=4))


def all_pair_cosines(vectors, pairs):
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.sum(unit[pairs[:, 0]] * unit[pairs[:, 1]], axis=1)


def _sgts_population(rng, m, shift=0.6):
    labels = np.r_[np.ones(m), np.zeros(m)].astype(int)
    x = rng.normal(size=(2 * m, 8))
    x[:, 0] += (2 * labels - 1) * shift
    pairs = np.stack(np.triu_indices(2 * m, k=1), axis=1)
    cosines = all_pair_cosines(x, pairs)
    return x, labels, pairs, cosines, (labels[pairs[:, 0]] == labels[pairs[:, 1]]).astype(float)


def test_sgts_pseudo_values_give_scipys_spearman_and_the_recomputed_bootstraps_spread():
    rng = np.random.default_rng(2)
    x, labels, pairs, cosines, gold = _sgts_population(rng, 40)
    rho, values = spearman_pseudo_values(cosines, gold, pairs[:, 0], pairs[:, 1], len(x))
    assert rho == pytest.approx(stats.spearmanr(cosines, gold).statistic, abs=1e-12)
    assert values.mean() == pytest.approx(rho, abs=1e-9)
    linearised_sd = bootstrap_means(values, 1000, seed=0).std()
    recomputed = []  # the slow, obvious bootstrap: resample sentences, rebuild every pair, rank again
    for _ in range(300):
        pick = rng.integers(0, len(x), size=len(x))
        cos = all_pair_cosines(x[pick], pairs)
        recomputed.append(stats.spearmanr(cos, labels[pick][pairs[:, 0]] == labels[pick][pairs[:, 1]]).statistic)
    assert linearised_sd == pytest.approx(np.std(recomputed), rel=0.2)


def test_sgts_interval_covers_the_population_value():
    rng = np.random.default_rng(3)
    *_, cosines, gold = _sgts_population(rng, 400)
    truth = stats.spearmanr(cosines, gold).statistic  # a much larger sample stands in for the population
    covered = []
    for trial in range(60):
        x, _, pairs, cosines, gold = _sgts_population(rng, 30)
        _, values = spearman_pseudo_values(cosines, gold, pairs[:, 0], pairs[:, 1], len(x))
        low, high = interval(values, resamples=400, seed=trial)
        covered.append(low <= truth <= high)
    assert 0.83 <= np.mean(covered) <= 1.0


def test_sts_pseudo_values_track_the_pair_bootstrap():
    rng = np.random.default_rng(4)
    gold = rng.uniform(0, 5, size=150)
    predicted = gold + rng.normal(scale=2.0, size=150)
    rho, values = spearman_pseudo_values(predicted, gold, np.arange(150), None, 150)
    assert rho == pytest.approx(stats.spearmanr(predicted, gold).statistic, abs=1e-12)
    recomputed = [stats.spearmanr(predicted[p], gold[p]).statistic
                  for p in (rng.integers(0, 150, size=150) for _ in range(500))]
    assert bootstrap_means(values, 1000).std() == pytest.approx(np.std(recomputed), rel=0.2)


def test_tolerance_pseudo_values_are_the_weighted_statistics_derivative():
    rng = np.random.default_rng(5)
    x, labels = rng.normal(size=(12, 4)), rng.integers(0, 2, size=12)
    unit = x / np.linalg.norm(x, axis=1, keepdims=True)

    def weighted_tolerance(w):  # slow: every same-label pair i < j, weight w_i w_j
        num = den = 0.0
        for i in range(12):
            for j in range(i + 1, 12):
                if labels[i] == labels[j]:
                    num += w[i] * w[j] * unit[i] @ unit[j]
                    den += w[i] * w[j]
        return num / den

    theta = metrics.tolerance(x, labels)
    values = metrics.tolerance_pseudo_values(x, labels)
    for s in range(12):
        bumped = np.ones(12)
        bumped[s] += 1e-6
        derivative = (weighted_tolerance(bumped) - theta) / 1e-6
        assert values[s] == pytest.approx(theta + 12 * derivative, abs=1e-4)


def test_unit_values_round_trip(tmp_path):
    units = UnitValues(np.array([0.25, 1.0, 0.0]), "query", "percentile bootstrap of the mean", "abc")
    save_units(tmp_path / "x.units.npz", units)
    back = load_units(tmp_path / "x.units.npz")
    assert back.values.tolist() == [0.25, 1.0, 0.0] and (back.unit, back.units_hash) == ("query", "abc")


def _slow_weighted_spearman(similarity, gold, weight, rank_gold):
    """Weighted mid-ranks by a double loop (items below count fully, tied items half, itself included),
    then the weighted Pearson correlation."""
    def ranks(values):
        return np.array([sum(w * (1.0 if v < values[k] else 0.5 if v == values[k] else 0.0)
                             for v, w in zip(values, weight)) for k in range(len(values))])

    x = ranks(similarity)
    y = ranks(gold) if rank_gold else np.asarray(gold, dtype=float)
    share = weight / weight.sum()
    mx, my = share @ x, share @ y
    return (share @ ((x - mx) * (y - my))) / np.sqrt((share @ (x - mx) ** 2) * (share @ (y - my) ** 2))


@pytest.mark.parametrize("paired_units,tied", [(True, True), (False, True), (True, False)])
def test_pseudo_values_are_finite_difference_derivatives_with_ties(paired_units, tied):
    rng = np.random.default_rng(6)
    n_units = 7
    if paired_units:  # SgTS: items are the pairs of 7 sentences, 0/1 gold, tied (or distinct) cosines
        first, second = np.triu_indices(n_units, k=1)
        similarity = np.round(rng.uniform(size=len(first)), 1 if tied else 12)
        gold = rng.integers(0, 2, size=len(first)).astype(float)
    else:  # STS: items are the units, graded gold with ties on both sides
        first, second = np.arange(n_units), None
        similarity = np.round(rng.uniform(size=n_units), 1)
        gold = np.array([0.0, 1.5, 1.5, 3.0, 4.2, 4.2, 2.0])
    rho, values = spearman_pseudo_values(similarity, gold, first, second, n_units)
    assert rho == pytest.approx(stats.spearmanr(similarity, gold).statistic, abs=1e-12)
    for s in range(n_units):
        w = np.ones(n_units)
        w[s] += 1e-6
        weight = w[first] * (w[second] if second is not None else 1.0)
        bumped = _slow_weighted_spearman(similarity, gold, weight, rank_gold=not paired_units)
        assert values[s] == pytest.approx(rho + n_units * (bumped - rho) / 1e-6, abs=1e-4)


def test_sort_order_sorts_and_finds_ties_like_argsort():
    """The packed-key sort against numpy's argsort: a valid ascending order and the same tie verdict, on
    values that share their high bits (runs), exact ties, -0.0 beside 0.0, negatives and tiny magnitudes."""
    rng = np.random.default_rng(7)
    awkward = np.array([-1.0, -0.0, 0.0, 5e-324, -5e-324, 0.5, np.nextafter(0.5, 1), 2.0, -3.0, 1e300])
    cases = [awkward, awkward[[0, 3, 5, 6, 7]], np.array([0.25]), np.array([1.0, 1.0])]
    cases += [rng.choice(awkward, size=int(rng.integers(2, 400))) for _ in range(50)]
    cases += [0.5 + rng.integers(0, 1 << 20, size=3000) * 2.0 ** -52 for _ in range(5)]  # one high-bit run
    cases += [rng.normal(size=int(rng.integers(2, 5000))) * 10.0 ** float(rng.integers(-8, 8)) for _ in range(20)]
    for values in cases:
        order, tied = sort_order(values)
        assert sorted(order.tolist()) == list(range(len(values)))
        ordered = values[order]
        assert (ordered[1:] >= ordered[:-1]).all()
        assert tied == (len(np.unique(values)) < len(values))  # np.unique counts -0.0 and 0.0 as one


def test_fast_binary_path_gives_the_general_paths_bits():
    """SgTS's lean path (0/1 gold, untied similarities) against the operation-by-operation path on the
    same items: equal to the last bit, rho and every item's influence."""
    rng = np.random.default_rng(8)
    for size in (2, 5, 1000, 70_000):  # 70,000 items: more than one block
        similarity = rng.normal(size=size)
        gold = rng.integers(0, 2, size=size).astype(float)
        gold[:2] = (0.0, 1.0)
        order, tied = sort_order(similarity)
        assert not tied
        rho_fast, fast = spearman._binary_untied_influence(order, gold)
        rho_general, general = spearman._general_influence(similarity, gold, order, binary=True)
        assert rho_fast == rho_general and np.array_equal(fast, general)
        assert spearman_influence(similarity, gold)[0] == pytest.approx(stats.spearmanr(similarity, gold).statistic,
                                                                         abs=1e-12)
