"""SentiCSE's losses against slow, obvious re-implementations of eq. 2-7 on tiny tensors."""

import math

import pytest
import torch

from sentibench.models.methods.senticse.lexicon import MULTI, NEGATIVE, NEUTRAL, POSITIVE
from sentibench.models.methods.senticse.losses import PolarityMaskedLMLoss, QuadrupleContrastiveLoss

POLARITY = torch.tensor([NEUTRAL, POSITIVE, POSITIVE, NEGATIVE, NEGATIVE, MULTI])  # vocabulary of 6 ids


def reference_word_loss(logits, originals, polarity, reduction):
    """Eq. 3-4 by hand: sum_k -log softmax(logits_k)[x_k] * delta(x_k, argmax_k)."""
    total = 0.0
    for row, original in zip(logits.tolist(), originals.tolist()):
        z = max(row)
        log_norm = z + math.log(sum(math.exp(v - z) for v in row))
        predicted = max(range(len(row)), key=lambda i: row[i])
        delta = 0.0 if int(polarity[original]) == int(polarity[predicted]) else 1.0
        total += (log_norm - row[original]) * delta
    return total / len(originals) if reduction == "mean" else total


def test_polarity_indicator_drops_same_polarity_predictions():
    logits = torch.full((4, 6), -5.0)
    logits[0, 2] = 5.0   # original 1 (+), predicted 2 (+): different word, same polarity -> dropped
    logits[1, 3] = 5.0   # original 1 (+), predicted 3 (-): kept
    logits[2, 4] = 5.0   # original 4 (-), predicted 4 (-): exact -> dropped
    logits[3, 5] = 5.0   # original 3 (-), predicted 5 (multi): kept
    originals = torch.tensor([1, 1, 4, 3])
    loss = PolarityMaskedLMLoss(POLARITY, "sum")(logits, originals)
    nll = torch.nn.functional.cross_entropy(logits, originals, reduction="none")
    assert loss.item() == pytest.approx((nll[1] + nll[3]).item(), rel=1e-6)


@pytest.mark.parametrize("reduction", ["sum", "mean"])
def test_word_loss_matches_reference(reduction):
    generator = torch.Generator().manual_seed(3)
    logits = torch.randn(7, 6, generator=generator) * 3
    originals = torch.tensor([1, 2, 3, 4, 1, 3, 2])
    expected = reference_word_loss(logits, originals, POLARITY, reduction)
    got = PolarityMaskedLMLoss(POLARITY, reduction)(logits, originals).item()
    assert expected > 0 and got == pytest.approx(expected, rel=1e-5)


def test_word_loss_without_masked_tokens_is_zero_and_differentiable():
    logits = torch.randn(0, 6, requires_grad=True)
    loss = PolarityMaskedLMLoss(POLARITY)(logits, torch.zeros(0, dtype=torch.long))
    loss.backward()
    assert loss.item() == 0.0


def cosine(a, b):
    return sum(x * y for x, y in zip(a, b)) / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))


def reference_sentence_loss(p, pp, n, nn_, tau, alpha, terms):
    """Eq. 5-7 by hand, with explicit sums over the in-batch negatives j = 1..N."""
    p, pp, n, nn_ = (x.tolist() for x in (p, pp, n, nn_))
    total = 0.0
    for i in range(len(p)):
        if "pos" in terms:
            top = math.exp(cosine(p[i], pp[i]) / tau)
            total += -math.log(top / (top + sum(alpha * math.exp(cosine(p[i], n[j]) / tau) for j in range(len(n)))))
        if "neg" in terms:
            top = math.exp(cosine(n[i], nn_[i]) / tau)
            total += -math.log(top / (top + sum(alpha * math.exp(cosine(n[i], pp[j]) / tau) for j in range(len(pp)))))
    return total / len(p)


@pytest.mark.parametrize("terms", [("pos", "neg"), ("pos",), ("neg",)])
@pytest.mark.parametrize("alpha", [1.0, 0.3])
def test_sentence_loss_matches_reference(terms, alpha):
    generator = torch.Generator().manual_seed(7)
    p, pp, n, nn_ = (torch.randn(5, 4, generator=generator) for _ in range(4))
    tau = 0.5
    expected = reference_sentence_loss(p, pp, n, nn_, tau, alpha, terms)
    got = QuadrupleContrastiveLoss(temperature=tau, alpha=alpha, terms=terms)(p, pp, n, nn_).item()
    assert got == pytest.approx(expected, rel=1e-5)


def test_alpha_weights_the_negatives_in_the_denominator():
    generator = torch.Generator().manual_seed(1)
    p, pp, n, nn_ = (torch.randn(3, 4, generator=generator) for _ in range(4))
    light = QuadrupleContrastiveLoss(0.5, alpha=0.1)(p, pp, n, nn_).item()
    heavy = QuadrupleContrastiveLoss(0.5, alpha=10.0)(p, pp, n, nn_).item()
    assert light < heavy


def test_sentence_loss_rewards_polarity_clusters():
    pos, neg = torch.tensor([[1.0, 0.0]]), torch.tensor([[0.0, 1.0]])
    separated = QuadrupleContrastiveLoss(0.05)(pos.repeat(2, 1), pos.repeat(2, 1), neg.repeat(2, 1), neg.repeat(2, 1))
    mixed = QuadrupleContrastiveLoss(0.05)(pos.repeat(2, 1), neg.repeat(2, 1), neg.repeat(2, 1), pos.repeat(2, 1))
    assert separated.item() < 1e-6 < mixed.item()


def test_bad_arguments_raise():
    with pytest.raises(ValueError):
        QuadrupleContrastiveLoss(terms=("both",))
    with pytest.raises(ValueError):
        PolarityMaskedLMLoss(POLARITY, reduction="max")


def test_polar_flip_delta_keeps_only_positive_negative_swaps_and_mean_kept_averages_them():
    logits = torch.full((4, 6), -5.0)
    logits[0, 3] = 5.0   # original 1 (+), predicted 3 (-): a flip, kept
    logits[1, 0] = 5.0   # original 1 (+), predicted 0 (neutral): dropped (kept by any-change)
    logits[2, 5] = 5.0   # original 4 (-), predicted 5 (multi): dropped (kept by any-change)
    logits[3, 2] = 5.0   # original 3 (-), predicted 2 (+): a flip, kept
    originals = torch.tensor([1, 1, 4, 3])
    # every kept row has logit 5 at the prediction and -5 elsewhere (the original among them):
    # nll = log(e^5 + 5 e^-5) - (-5) = 10 + log(1 + 5 e^-10)
    nll = 10 + math.log(1 + 5 * math.exp(-10))
    assert PolarityMaskedLMLoss(POLARITY, "sum", "polar-flip")(logits, originals).item() == pytest.approx(2 * nll)
    assert PolarityMaskedLMLoss(POLARITY, "mean-kept", "polar-flip")(logits, originals).item() == pytest.approx(nll)
    assert PolarityMaskedLMLoss(POLARITY, "sum", "any-change")(logits, originals).item() == pytest.approx(4 * nll)
    assert PolarityMaskedLMLoss(POLARITY, "mean", "polar-flip")(logits, originals).item() == pytest.approx(nll / 2)


def reference_logit_weighted_loss(p, pp, n, nn_, tau, positive_w, hard_w, in_batch_w, negative_anchor="n"):
    """The authors' formulation by hand: log-weights added to the logits (positive, own hard negative j = i,
    other in-batch negatives j != i), cross-entropy on the positive; L_pos + L_neg averaged over anchors.
    L_neg's anchor is n_i (eq. 6) or n_i+ (their code: sim(z4, z3) against sim(z4, z2_j))."""
    p, pp, n, nn_ = (x.tolist() for x in (p, pp, n, nn_))

    def term(anchor, partner, negatives, i):
        top = math.exp(cosine(anchor[i], partner[i]) / tau + positive_w)
        bottom = top + sum(math.exp(cosine(anchor[i], negatives[j]) / tau + (hard_w if j == i else in_batch_w))
                           for j in range(len(negatives)))
        return -math.log(top / bottom)

    anchor, partner = (n, nn_) if negative_anchor == "n" else (nn_, n)
    return sum(term(p, pp, n, i) + term(anchor, partner, pp, i) for i in range(len(p))) / len(p)


@pytest.mark.parametrize("weights", [(0.0, 1.0, 0.5), (0.0, 0.0, 0.0), (0.3, -1.0, 0.2)])
def test_logit_weighted_negatives_match_the_reference(weights):
    generator = torch.Generator().manual_seed(11)
    p, pp, n, nn_ = (torch.randn(4, 3, generator=generator) for _ in range(4))
    positive_w, hard_w, in_batch_w = weights
    loss = QuadrupleContrastiveLoss(0.5, alpha=hard_w, weighting="add-to-logits", positive_log_weight=positive_w,
                                    in_batch_log_weight=in_batch_w)
    expected = reference_logit_weighted_loss(p, pp, n, nn_, 0.5, positive_w, hard_w, in_batch_w)
    assert loss(p, pp, n, nn_).item() == pytest.approx(expected, rel=1e-5)


@pytest.mark.parametrize(("weighting", "alpha", "hard_w"), [("multiply", 1.0, 0.0), ("add-to-logits", 0.7, 0.7)])
def test_negative_term_anchored_on_n_plus_matches_the_reference(weighting, alpha, hard_w):
    generator = torch.Generator().manual_seed(5)
    p, pp, n, nn_ = (torch.randn(4, 3, generator=generator) for _ in range(4))
    anchored = QuadrupleContrastiveLoss(0.5, alpha=alpha, weighting=weighting, negative_anchor="n-plus")
    expected = reference_logit_weighted_loss(p, pp, n, nn_, 0.5, 0.0, hard_w, 0.0, negative_anchor="n-plus")
    assert anchored(p, pp, n, nn_).item() == pytest.approx(expected, rel=1e-5)
    as_printed = QuadrupleContrastiveLoss(0.5, alpha=alpha, weighting=weighting)(p, pp, n, nn_).item()
    assert abs(as_printed - expected) > 1e-3  # the anchor changes the negatives, so the loss


def test_negative_anchor_changes_only_which_similarities_are_negatives_on_a_hand_derived_batch():
    # one quadruple, tau = 1, unit vectors: s(n, n+) = 0.6 either way; s(n, p+) = 0 but s(n+, p+) = 0.8.
    # anchor n:  -log(e^0.6 / (e^0.6 + e^0))   anchor n+: -log(e^0.6 / (e^0.6 + e^0.8))
    pp, n, nn_ = torch.tensor([[1.0, 0.0]]), torch.tensor([[0.0, 1.0]]), torch.tensor([[0.8, 0.6]])
    for anchor, negative in (("n", 0.0), ("n-plus", 0.8)):
        loss = QuadrupleContrastiveLoss(1.0, terms=("neg",), negative_anchor=anchor)(pp, pp, n, nn_).item()
        assert loss == pytest.approx(math.log(1 + math.exp(negative - 0.6)), rel=1e-6)
    with pytest.raises(ValueError, match="negative_anchor"):
        QuadrupleContrastiveLoss(1.0, negative_anchor="p")


def test_alpha_zero_with_zero_log_weights_is_plain_infonce_on_a_hand_derived_batch():
    # one quadruple, orthogonal unit vectors: s(p, p+) = 1, s(p, n) = 0, s(n, n+) = 1, s(n, p+) = 0; tau = 1:
    # each term = -log(e / (e + 1)) = log(1 + e^-1)
    p, pp = torch.tensor([[1.0, 0.0]]), torch.tensor([[1.0, 0.0]])
    n, nn_ = torch.tensor([[0.0, 1.0]]), torch.tensor([[0.0, 1.0]])
    loss = QuadrupleContrastiveLoss(1.0, alpha=0.0, weighting="add-to-logits")(p, pp, n, nn_).item()
    assert loss == pytest.approx(2 * math.log(1 + math.exp(-1)), rel=1e-6)
    # alpha = 1 on the own hard negative: -log(e / (e + e)) = log 2 per term
    heavy = QuadrupleContrastiveLoss(1.0, alpha=1.0, weighting="add-to-logits")(p, pp, n, nn_).item()
    assert heavy == pytest.approx(2 * math.log(2), rel=1e-6)
    with pytest.raises(ValueError, match="alpha must be positive"):
        QuadrupleContrastiveLoss(1.0, alpha=0.0)


@pytest.mark.parametrize("alpha", [0.0, 2.0])
def test_table_14_alpha_with_the_cpu_presets_weights_matches_the_reference(alpha):
    # the alpha cards' loss: add-to-logits, positive 0, own hard negative alpha, other in-batch 0.5, anchor n+
    generator = torch.Generator().manual_seed(3)
    p, pp, n, nn_ = (torch.randn(3, 4, generator=generator) for _ in range(4))
    loss = QuadrupleContrastiveLoss(0.05, alpha=alpha, weighting="add-to-logits", in_batch_log_weight=0.5,
                                    negative_anchor="n-plus")
    expected = reference_logit_weighted_loss(p, pp, n, nn_, 0.05, 0.0, alpha, 0.5, negative_anchor="n-plus")
    assert loss(p, pp, n, nn_).item() == pytest.approx(expected, rel=1e-5)


@pytest.mark.parametrize("alpha", [0.0, 1.0, 2.0])
def test_alpha_is_the_own_hard_negatives_log_weight_on_a_hand_derived_batch(alpha):
    # two identical quadruples, tau = 1: s(p_i, p_i+) = 1, s(p_i, n_j) = 0 for both j. For each anchor the
    # positive logit is 1, the own hard negative's 0 + alpha, the other in-batch negative's 0 + 0.5:
    # L_pos = -log(e / (e + e^alpha + e^0.5)) = log(1 + e^-1 (e^alpha + e^0.5))
    p = pp = torch.tensor([[1.0, 0.0], [1.0, 0.0]])
    n = nn_ = torch.tensor([[0.0, 1.0], [0.0, 1.0]])
    loss = QuadrupleContrastiveLoss(1.0, alpha=alpha, terms=("pos",), weighting="add-to-logits",
                                    in_batch_log_weight=0.5)(p, pp, n, nn_).item()
    assert loss == pytest.approx(math.log(1 + math.exp(-1) * (math.exp(alpha) + math.exp(0.5))), rel=1e-6)
