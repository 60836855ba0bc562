"""`bench train` bookkeeping with a trivial registered method: checkpoint + card, then the trained model
runs by name and its in-domain result carries the leaderboard's asterisk."""

import json

import yaml

from sentibench.cli import main
from sentibench.results.task_result import read_result
from sentibench.training.methods import Method, register_method


def _copy_base(request):
    request.base.trainable(device="cpu").save(request.out_dir)
    return {"max_length": 256, "notes": "copied the base unchanged"}


register_method(Method("copy-base", presets=("cpu",), entry_point=f"{__name__}:_copy_base",
                       description="Copies the base.", reference="test"))


def test_train_writes_checkpoint_and_card_then_runs_in_domain(fixture_task, tmp_path, capsys, sentibench_home):
    code = main(["train", "copy-base", "--base", "all-minilm-l6-v2", "--data", "fixture-reviews",
                 "--preset", "cpu", "--name", "copied-minilm"])
    assert code == 0, capsys.readouterr().err
    card = yaml.safe_load((sentibench_home / "cards" / "copied-minilm.yaml").read_text())
    assert card["recipe"] == {"method": "copy-base", "base": "all-minilm-l6-v2", "data": "fixture-reviews",
                              "preset": "cpu", "seed": 0, "options": {}}
    assert "fixture-reviews" in card["training_data"] and card["base"] == "all-minilm-l6-v2"
    checkpoint = sentibench_home / "checkpoints" / card["checkpoint"].rsplit("/", 1)[-1]
    assert json.loads((checkpoint / "training_report.json").read_text())["data_hash"]
    assert (checkpoint / "model.safetensors").exists()

    out = tmp_path / "results"
    assert main(["run", "-m", "copied-minilm", "-t", "sgts-fixture-reviews", "--output-folder", str(out)]) == 0
    (result,) = out.rglob("*.json")
    assert read_result(result).provenance.trained_on_eval_dataset is True
    assert main(["leaderboard", "--results", str(out), "--output", str(tmp_path / "lb.md")]) == 0
    assert "*" in (tmp_path / "lb.md").read_text().split("## sgts")[1]


def test_unknown_method_and_preset_are_one_line_errors(capsys):
    assert main(["train", "sentcse"]) == 2
    assert "unknown method 'sentcse'" in capsys.readouterr().err
    assert main(["train", "copy-base", "--preset", "paper"]) == 2
    assert "has no preset 'paper'" in capsys.readouterr().err
