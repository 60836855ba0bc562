"""The shared training core: typed options, the loop's selection/patience rules against a hand-written
reference, module checkpoints that load back as encoders, and `bench train`'s file safety."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
import yaml

from sentibench.cli import main
from sentibench.core.errors import BenchError
from sentibench.results.task_result import read_result
from sentibench.training.checkpoint import load_state, register_encoder_kind, save_module_checkpoint
from sentibench.training.loop import LoopConfig, build_optimizer, train_loop
from sentibench.training.methods import Method, register_method
from sentibench.training.options import Count, Fraction, Rate, apply_options, parse_option_pairs, preset


@preset
class Preset:
    lr: Rate
    steps: Count
    fused: bool
    pooling: str | None
    terms: tuple[str, ...] = ("pos", "neg")


PRESET = Preset(lr=1e-3, steps=10, fused=True, pooling=None)


def test_options_are_typed_from_the_annotations():
    new = apply_options(PRESET, parse_option_pairs(["fused=false", "steps=7", "lr=2e-5", "pooling=cls",
                                                    "terms=pos"]), owner="test")
    assert new == Preset(lr=2e-5, steps=7, fused=False, pooling="cls", terms=("pos",))
    assert apply_options(PRESET, {"fused": "TRUE", "pooling": "none"}, owner="test").fused is True
    assert apply_options(PRESET, {"pooling": "none"}, owner="test").pooling is None


@pytest.mark.parametrize("options, message", [
    ({"fused": "maybe"}, "is not a boolean"), ({"steps": "7.5"}, "is not a int"), ({"steps": "true"}, "not a int"),
    ({"lr": "nan"}, "not a finite number"), ({"lr": "inf"}, "not a finite number"),
    ({"epochs": "3"}, "unknown test option 'epochs'; options: lr, steps"),
    ({"steps": "0"}, "steps='0' must be at least 1"), ({"steps": "-3"}, "must be at least 1"),
    ({"lr": "0"}, "lr='0' must be above 0"), ({"lr": "-1e-5"}, "must be above 0"),
])
def test_bad_options_are_one_line_errors(options, message):
    with pytest.raises(BenchError, match=message):
        apply_options(PRESET, options, owner="test")


@pytest.mark.parametrize("key, bad, good", [
    ("batch_size", "0", "1"), ("max_length", "0", "8"), ("epochs", "0", "1"), ("dropout", "1.5", "0.1"),
    ("warmup_ratio", "-0.1", "0"), ("temperature", "0", "0.05"),
])
def test_counts_sizes_and_rates_are_checked_by_their_declared_range(key, bad, good):
    @preset
    class Config:
        batch_size: Count = 8
        max_length: Count | None = 32
        epochs: Count = 1
        dropout: Fraction = 0.1
        warmup_ratio: Fraction = 0.1
        temperature: Rate = 0.05

    with pytest.raises(BenchError, match=f"option {key}={bad!r} must"):
        apply_options(Config(), {key: bad}, owner="test")
    assert str(getattr(apply_options(Config(), {key: good}, owner="test"), key)) in (good, str(float(good)))
    assert apply_options(Config(), {"max_length": "none"}, owner="test").max_length is None


def test_option_pairs_need_key_and_value():
    with pytest.raises(BenchError, match="KEY=VALUE"):
        parse_option_pairs(["steps"])


def _reference_selection(scores: list[float], patience: int) -> tuple[int, int]:
    """(index of the kept validation, number of validations run): strictly-better keeps, ties do not."""
    best, misses = 0, 0
    for i in range(1, len(scores)):
        if scores[i] > scores[best]:
            best, misses = i, 0
        else:
            misses += 1
            if misses >= patience:
                return best, i + 1
    return best, len(scores)


@pytest.mark.parametrize("scores, patience", [([0.1, 0.5, 0.4, 0.5, 0.9, 0.2], 2), ([0.3, 0.2, 0.6, 0.1, 0.0, 0.7], 3),
                                              ([0.2] * 6, 6)])
def test_loop_keeps_the_best_validated_state_and_stops_on_patience(scores, patience):
    torch.manual_seed(0)
    module = torch.nn.Linear(3, 1)
    x, y = torch.randn(12, 3), torch.randn(12, 1)
    snapshots, scripted = [], iter(scores)

    def validate() -> float:
        snapshots.append(module.weight.detach().clone())
        return next(scripted)

    config = LoopConfig(learning_rate=0.1, max_steps=6, eval_every=1, patience=patience, log_every=2)
    run = train_loop(module, lambda epoch: [(x[:6], y[:6]), (x[6:], y[6:])],
                     lambda b: (torch.nn.functional.mse_loss(module(b[0]), b[1]), {}), validate, config,
                     progress=False)
    kept, ran = _reference_selection(scores, patience)
    assert [s for s, _ in run.history] == list(range(1, ran + 1))
    assert (run.best_step, run.best_score, run.stopped_early) == (kept + 1, scores[kept], ran < 6)
    assert torch.equal(module.weight, snapshots[kept]) and not module.training
    assert run.epochs == (ran + 1) // 2


def test_loop_lowers_the_loss_and_validates_the_start_when_asked():
    torch.manual_seed(0)
    module = torch.nn.Linear(4, 1)
    x = torch.randn(64, 4)
    y = x @ torch.tensor([[1.0], [-2.0], [0.5], [3.0]])
    config = LoopConfig(learning_rate=0.05, max_epochs=30, eval_every=None, validate_at_start=True, log_every=8)
    run = train_loop(module, lambda epoch: list(zip(x.split(16), y.split(16))),
                     lambda b: (torch.nn.functional.mse_loss(module(b[0]), b[1]), {"n": float(len(b[0]))}),
                     lambda: -float(torch.nn.functional.mse_loss(module(x), y).detach()), config, steps_per_epoch=4,
                     progress=False)
    assert run.history[0][0] == 0 and len(run.history) == 31  # the start, then each epoch's end
    assert run.loss_curve[-1]["loss"] < 0.1 * run.loss_curve[0]["loss"] and run.loss_curve[0]["n"] == 16
    assert run.best_step == 120 and run.report()["history"][-1] == {"step": 120, "validation": run.best_score}


@pytest.mark.parametrize("schedule, expected", [("linear", [0.1, 0.075, 0.05, 0.025]), ("constant", [0.1] * 4)])
def test_the_learning_rate_decays_to_zero_or_holds_after_warm_up(schedule, expected, monkeypatch):
    """No warm-up, 4 steps at 0.1: linear gives 0.1 x (4 - t) / 4 at step t; constant keeps 0.1."""
    from sentibench.training import loop

    module, optimizers, seen = torch.nn.Linear(1, 1), [], []
    monkeypatch.setattr(loop, "build_optimizer", lambda *a: optimizers.append(build_optimizer(*a)) or optimizers[0])

    def loss(batch):
        seen.append(optimizers[0].param_groups[0]["lr"])
        return module.weight.sum() ** 2, {}

    train_loop(module, lambda e: [0, 1, 2, 3], loss, lambda: 0.0,
               LoopConfig(learning_rate=0.1, max_steps=4, schedule=schedule), progress=False)
    assert seen == pytest.approx(expected)


def test_an_unknown_schedule_is_refused_in_one_line():
    with pytest.raises(BenchError, match="schedule must be one of linear, constant"):
        LoopConfig(learning_rate=0.1, max_steps=4, schedule="cosine")


def test_loop_refuses_a_non_finite_loss_in_one_line():
    module = torch.nn.Linear(1, 1)
    with pytest.raises(BenchError, match="loss became nan at step 1"):
        train_loop(module, lambda e: [0], lambda b: (module.weight.sum() * float("nan"), {}), lambda: 0.0,
                   LoopConfig(learning_rate=0.1, max_steps=2), progress=False)


class BagEncoder(torch.nn.Module):
    """A toy non-transformer encoder: the mean of hashed-word embeddings."""

    name = "bag"

    def __init__(self, buckets: int, dim: int) -> None:
        super().__init__()
        self.buckets, self.dim = buckets, dim
        self.bag = torch.nn.EmbeddingBag(buckets, dim, mode="mean")

    def ids(self, text: str) -> list[int]:
        return [sum(map(ord, w)) % self.buckets for w in text.split()] or [0]

    def encode(self, texts, batch_size=32, show_progress_bar=None) -> np.ndarray:
        with torch.no_grad():
            rows = [self.bag(torch.tensor([self.ids(t)])) for t in texts]
        return torch.cat(rows).numpy().astype(np.float32) if rows else np.zeros((0, self.dim), np.float32)


def _load_bag(folder: Path, config: dict, device: str | None) -> BagEncoder:
    encoder = BagEncoder(**config)
    encoder.bag.load_state_dict(load_state(folder))
    return encoder


register_encoder_kind("test-bag", _load_bag)


def _train_bag(request) -> dict:
    torch.manual_seed(request.seed)
    encoder = BagEncoder(buckets=50, dim=4)
    save_module_checkpoint(request.out_dir, "test-bag", {"buckets": 50, "dim": 4}, encoder.bag.state_dict())
    return {"max_length": None, "embedding_size": 4, "notes": "a toy module checkpoint"}


register_method(Method("test-bag", presets=("cpu",), entry_point=f"{__name__}:_train_bag",
                       description="Toy bag of words.", reference="test"))


def test_a_module_checkpoint_trains_loads_and_runs_like_any_model(fixture_task, tmp_path, sentibench_home):
    assert main(["train", "test-bag", "--data", "fixture-reviews", "--name", "bag-model"]) == 0
    card = yaml.safe_load((sentibench_home / "cards" / "bag-model.yaml").read_text())
    folder = Path(card["checkpoint"])
    assert not (folder / "config.json").exists() and (folder / "model.safetensors").exists()
    assert card["embedding_size"] == 4
    out = tmp_path / "results"
    assert main(["run", "-m", "bag-model", "-t", "sgts-fixture-reviews", "--output-folder", str(out)]) == 0
    (result,) = out.rglob("*.json")
    assert read_result(result).main_score() is not None
    # the same folder, run as a local path, gets a path-hashed name and the same vectors
    from sentibench.models import card_for, open_encoder

    local = card_for(str(folder))
    assert local.name.startswith(f"{folder.name}-") and local.name != folder.name and local.loader == "trained"
    by_card, by_path = open_encoder("bag-model", use_cache=False), open_encoder(str(folder), use_cache=False)
    texts = ["a fine film", "a dull film"]
    assert np.array_equal(by_card.encode(texts), by_path.encode(texts))


def test_train_never_deletes_a_users_folder_or_writes_outside(fixture_task, tmp_path, capsys, sentibench_home):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    assert main(["train", "test-bag", "--data", "fixture-reviews", "--output", str(mine), "--name", "x1"]) == 2
    assert "already exists" in capsys.readouterr().err and (mine / "notes.txt").read_text() == "keep me"
    assert main(["train", "test-bag", "--data", "fixture-reviews", "--name", "../../escaped"]) == 2
    assert "is not allowed" in capsys.readouterr().err
    assert not (sentibench_home.parent / "escaped.yaml").exists() and not list(tmp_path.rglob("escaped*"))
    fresh = tmp_path / "fresh"
    assert main(["train", "test-bag", "--data", "fixture-reviews", "--output", str(fresh), "--name", "x2"]) == 0
    assert (fresh / "model.safetensors").exists() and not list(tmp_path.glob(".fresh.*"))


def test_train_accepts_a_local_folder_as_base(fixture_task, tmp_path, sentibench_home):
    base = tmp_path / "base-folder"
    assert main(["train", "test-bag", "--data", "fixture-reviews", "--output", str(base), "--name", "b0"]) == 0
    assert main(["train", "test-bag", "--base", str(base), "--data", "fixture-reviews", "--name", "from-folder"]) == 0
    card = yaml.safe_load((sentibench_home / "cards" / "from-folder.yaml").read_text())
    assert card["recipe"]["base"] == str(base)
