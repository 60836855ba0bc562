"""InfoDCL's losses (eq. 3-7) against slow, obvious loops on tiny tensors."""

import math

import pytest
import torch

from sentibench.models.methods.infodcl.losses import (
    CorpusAwareContrastiveLoss,
    DistantContrastiveLoss,
    InfoDCLLoss,
    LabelAwareContrastiveLoss,
    WeightedSupConLoss,
)

LABELS = torch.tensor([0, 1, 0, 2, 1, 0])
W = torch.tensor([[0.0, 0.3, 1.0],     # row = anchor label; the diagonal is never read (same-label weight 1)
                  [0.5, 0.0, 0.8],
                  [1.0, 0.25, 0.0]])


def ccl_loss(h, labels, weight_matrix, tau):
    return CorpusAwareContrastiveLoss(weight_matrix, tau)(h, labels)


def lcl_lit_loss(h, labels, logits, tau, detach=False):
    return LabelAwareContrastiveLoss(tau, detach)(h, labels, logits)


def dcl_loss(h, labels, tau, gamma, weight_matrix, logits):
    return DistantContrastiveLoss(tau, gamma, weight_matrix, label_aware=logits is not None)(h, labels, logits)


def infodcl_loss(dcl, mlm, slp, lambda_mlm, lambda_slp):
    return InfoDCLLoss(lambda_mlm, lambda_slp)(dcl, mlm, slp)


def embeddings(seed=0, n=6, d=4):
    return torch.randn(n, d, generator=torch.Generator().manual_seed(seed))


def cos(a, b):
    return sum(x * y for x, y in zip(a, b)) / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))


def reference(h, labels, weight, tau):
    """mean over anchors with a positive of -1/|P_i| sum_p log(w(i,p) e^{s_ip/tau} / sum_{a!=i} w(i,a) e^{s_ia/tau})."""
    rows, labels = h.tolist(), labels.tolist()
    losses = []
    for i in range(len(rows)):
        positives = [p for p in range(len(rows)) if p != i and labels[p] == labels[i]]
        if not positives:
            continue
        denominator = sum(weight(i, a) * math.exp(cos(rows[i], rows[a]) / tau) for a in range(len(rows)) if a != i)
        terms = [math.log(weight(i, p) * math.exp(cos(rows[i], rows[p]) / tau) / denominator) for p in positives]
        losses.append(-sum(terms) / len(positives))
    return sum(losses) / len(losses)


@pytest.mark.parametrize("tau", [0.1, 0.5])
def test_ccl_is_eq_4_with_npmi_weights_on_other_labels_only(tau):
    h = embeddings()
    labels = LABELS.tolist()

    def weight(i, a):
        return 1.0 if labels[i] == labels[a] else float(W[labels[i], labels[a]])

    expected = reference(h, LABELS, weight, tau)
    assert ccl_loss(h, LABELS, W, tau).item() == pytest.approx(expected, rel=1e-5)


def test_ccl_with_unit_weights_is_plain_scl_and_a_zero_weight_drops_the_negative():
    h = embeddings(1)
    ones = torch.ones(3, 3)
    scl = reference(h, LABELS, lambda i, a: 1.0, 0.2)
    assert ccl_loss(h, LABELS, ones, 0.2).item() == pytest.approx(scl, rel=1e-5)
    zero = ones.clone()
    zero[1, 2] = 0.0  # label-1 anchors ignore label-2 negatives entirely
    labels = LABELS.tolist()
    expected = reference(h, LABELS, lambda i, a: 0.0 if (labels[i], labels[a]) == (1, 2) else 1.0, 0.2)
    assert math.isfinite(ccl_loss(h, LABELS, zero, 0.2).item())
    assert ccl_loss(h, LABELS, zero, 0.2).item() == pytest.approx(expected, rel=1e-5)


@pytest.mark.parametrize("detach", [False, True])
def test_lcl_lit_is_eq_3_with_the_models_own_softmax(detach):
    h = embeddings(2)
    logits = torch.randn(6, 3, generator=torch.Generator().manual_seed(5), requires_grad=True)
    probs = torch.softmax(logits.detach(), dim=-1).tolist()
    labels = LABELS.tolist()
    expected = reference(h, LABELS, lambda i, a: probs[i][labels[a]], 0.3)
    loss = lcl_lit_loss(h, LABELS, logits, 0.3, detach=detach)
    assert loss.item() == pytest.approx(expected, rel=1e-5)
    if not detach:
        loss.backward()
        assert logits.grad is not None and logits.grad.abs().sum() > 0
    else:
        assert not loss.requires_grad


def test_anchors_without_a_positive_are_left_out_and_never_nan():
    h = embeddings(3, n=4).requires_grad_()
    labels = torch.tensor([0, 1, 0, 2])  # anchors 1 and 3 have no positive
    expected = reference(h.detach(), labels, lambda i, a: 1.0, 0.1)
    loss = ccl_loss(h, labels, torch.ones(3, 3), 0.1)
    assert loss.item() == pytest.approx(expected, rel=1e-5)
    none = WeightedSupConLoss(0.1)(h, torch.tensor([0, 1, 2, 3]), torch.zeros(4, 4))
    none.backward()
    assert none.item() == 0.0 and torch.isfinite(h.grad).all()


def test_dcl_mixes_by_gamma_and_its_ablations_keep_one_part():
    h, logits = embeddings(4), torch.randn(6, 3, generator=torch.Generator().manual_seed(7))
    lcl, ccl = lcl_lit_loss(h, LABELS, logits, 0.1).item(), ccl_loss(h, LABELS, W, 0.1).item()
    both, parts = dcl_loss(h, LABELS, 0.1, 0.3, W, logits)
    assert both.item() == pytest.approx(0.3 * lcl + 0.7 * ccl, rel=1e-6) and set(parts) == {"lcl", "ccl"}
    assert dcl_loss(h, LABELS, 0.1, 0.3, None, logits)[0].item() == pytest.approx(lcl, rel=1e-6)
    assert dcl_loss(h, LABELS, 0.1, 0.3, W, None)[0].item() == pytest.approx(ccl, rel=1e-6)
    scl = reference(h, LABELS, lambda i, a: 1.0, 0.1)
    assert dcl_loss(h, LABELS, 0.1, 0.3, None, None)[0].item() == pytest.approx(scl, rel=1e-5)


def test_eq_7_weights_and_ablated_parts():
    dcl, mlm, slp = torch.tensor(2.0), torch.tensor(5.0), torch.tensor(3.0)
    assert infodcl_loss(dcl, mlm, slp, 0.4, 0.1).item() == pytest.approx(0.4 * 5 + 0.1 * 3 + 0.5 * 2)
    assert infodcl_loss(dcl, None, slp, 0.4, 0.1).item() == pytest.approx(0.1 * 3 + 0.9 * 2)
    assert infodcl_loss(dcl, None, None, 0.4, 0.1).item() == pytest.approx(2.0)
