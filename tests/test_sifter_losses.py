"""InfoNCE (SimCSE eq. 1) and SIFTER's three-way loss (eq. 2) against slow, obvious loops; the SIFTER-LSTM
cell (eq. 4) against torch.nn.LSTM and its short-circuited input gate."""

import math

import pytest
import torch

from sentibench.models.methods.sifter.losses import SifterLoss
from sentibench.models.methods.sifter.lstm import SifterLSTM, lstm_layer, lstm_step
from sentibench.training.contrastive import InfoNCELoss


def slow_info_nce(a, b, tau):
    """-1/N sum_i log( e^{cos(a_i,b_i)/tau} / sum_j e^{cos(a_i,b_j)/tau} ), one scalar at a time."""
    def cos(u, v):
        return sum(x * y for x, y in zip(u, v)) / math.sqrt(sum(x * x for x in u) * sum(y * y for y in v))
    a, b = a.tolist(), b.tolist()
    total = 0.0
    for i in range(len(a)):
        denominator = sum(math.exp(cos(a[i], b[j]) / tau) for j in range(len(b)))
        total += -math.log(math.exp(cos(a[i], b[i]) / tau) / denominator)
    return total / len(a)


def info_nce(a, b, tau):
    return InfoNCELoss(tau)(a, b)


def sifter_loss(x, y, z, temperature=0.05, lambdas=(1.0, 1.0, 1.0)):
    return SifterLoss(temperature, lambdas)(x, y, z)


def test_info_nce_matches_a_slow_loop():
    torch.manual_seed(0)
    a, b = torch.randn(5, 3), torch.randn(5, 3)
    for tau in (0.05, 0.5, 1.0):
        assert info_nce(a, b, tau).item() == pytest.approx(slow_info_nce(a, b, tau), rel=1e-5)


def test_info_nce_hand_value_for_two_orthogonal_pairs():
    # a_1 = b_1, a_2 = b_2, a_1 _|_ a_2: l_i = -log e^{1/tau} / (e^{1/tau} + e^0) = log(1 + e^{-1/tau})
    a = torch.tensor([[1.0, 0.0], [0.0, 2.0]])
    assert info_nce(a, a.clone(), 0.5).item() == pytest.approx(math.log(1 + math.exp(-2.0)), rel=1e-6)


def test_sifter_loss_is_the_weighted_sum_of_three_info_nce_terms():
    torch.manual_seed(1)
    x, y, z = torch.randn(4, 6), torch.randn(4, 6), torch.randn(4, 6)
    total, parts = sifter_loss(x, y, z, temperature=0.05, lambdas=(1.0, 0.5, 2.0))
    expected = slow_info_nce(x, y, 0.05) + 0.5 * slow_info_nce(x, z, 0.05) + 2.0 * slow_info_nce(y, z, 0.05)
    assert total.item() == pytest.approx(expected, rel=1e-5)
    assert parts["l_yz"] == pytest.approx(slow_info_nce(y, z, 0.05), rel=1e-5)
    only_xz, parts = sifter_loss(x, y, z, lambdas=(0.0, 1.0, 0.0))  # §6.1's single-pair ablation
    assert set(parts) == {"l_xz"} and only_xz.item() == pytest.approx(slow_info_nce(x, z, 0.05), rel=1e-5)
    with pytest.raises(ValueError):
        sifter_loss(x, y, z, lambdas=(0.0, 0.0, 0.0))


def _torch_lstm(embedding_dim=5, hidden=4, seed=0):
    torch.manual_seed(seed)
    return torch.nn.LSTM(embedding_dim, hidden, batch_first=True)


def test_cell_with_x_empty_equals_torch_lstm():
    reference = _torch_lstm()
    x = torch.randn(3, 7, 5)
    mask = torch.ones(3, 7, dtype=torch.bool)
    short = torch.zeros(3, 7, dtype=torch.bool)
    outputs, last = lstm_layer(x, mask, short, reference.weight_ih_l0, reference.weight_hh_l0,
                               reference.bias_ih_l0 + reference.bias_hh_l0)
    expected, (h_n, _) = reference(x)
    assert torch.allclose(outputs, expected, atol=1e-6) and torch.allclose(last, h_n[0], atol=1e-6)


def test_padding_keeps_each_texts_last_real_state():
    reference = _torch_lstm(seed=3)
    x = torch.randn(2, 5, 5)
    mask = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 0, 0, 0]], dtype=torch.bool)
    _, last = lstm_layer(x, mask, torch.zeros_like(mask), reference.weight_ih_l0, reference.weight_hh_l0,
                         reference.bias_ih_l0 + reference.bias_hh_l0)
    _, (alone, _) = reference(x[1:, :2])
    assert torch.allclose(last[1], alone[0, 0], atol=1e-6)


def test_a_token_in_x_gets_an_input_gate_of_exactly_one():
    reference = _torch_lstm(seed=2)
    w_ih, w_hh, bias = reference.weight_ih_l0, reference.weight_hh_l0, reference.bias_ih_l0 + reference.bias_hh_l0
    x_t, h, c = torch.randn(2, 5), torch.randn(2, 4), torch.randn(2, 4)
    short = torch.tensor([True, False])
    projected = x_t @ w_ih.T + bias
    h_new, c_new, gate = lstm_step(projected, h, c, w_hh, short)
    assert torch.equal(gate[0], torch.ones(4)) and (gate[1] < 1).all()
    i, f, g, o = (projected + h @ w_hh.T).chunk(4, dim=1)  # eq. 4 by hand for both rows
    assert torch.allclose(c_new[0], torch.sigmoid(f[0]) * c[0] + torch.tanh(g[0]), atol=1e-6)
    assert torch.allclose(c_new[1], torch.sigmoid(f[1]) * c[1] + torch.sigmoid(i[1]) * torch.tanh(g[1]), atol=1e-6)
    assert torch.allclose(h_new, torch.sigmoid(o) * torch.tanh(c_new), atol=1e-6)


def test_short_circuit_blocks_the_input_gate_gradient_only_at_tokens_in_x():
    model = SifterLSTM(vocab_size=10, embedding_dim=5, hidden_size=4, dropout=0.0)
    ids = torch.tensor([[1, 2, 3]])
    mask = torch.ones(1, 3, dtype=torch.bool)
    everything = torch.ones(1, 3, dtype=torch.bool)
    model(ids, mask, everything).sum().backward()
    # every input gate is the constant 1: the input-gate rows of W_ih get no gradient
    assert torch.count_nonzero(model.weight_ih.grad[:4]) == 0 and torch.count_nonzero(model.weight_ih.grad[4:]) > 0
