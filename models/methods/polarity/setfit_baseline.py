"""The SetFit baseline of the polarity-aware retrieval paper (Tables 5-7, "Cosine (SetFit)"), with the `setfit`
library (optional extra `setfit`): a balanced sample of the train split, `num_iterations` = 20 pair
iterations per sentence under CosineSimilarityLoss, then a differentiable head trained end to end; body
learning rate 3e-5, head learning rate 1e-2, L2 weight 0.01, batch 32, 1 body epoch and 5 head epochs
(what the authors' baseline script ran). The body is saved as a sentence-transformers folder, which is
what the benchmark's tasks encode with (the head only shapes the body during training).

Presets: `paper` samples 625 sentences per label (the authors' 625: about 50,000 pairs); `cpu` samples 16
per label (about 1,280 pairs, the same order as polarity-st's cpu preset sees per epoch).
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import asdict

from sentibench.core.errors import BenchError
from sentibench.data import get_dataset
from sentibench.training.loop import hf_max_steps
from sentibench.training.options import Count, apply_options, preset


@preset
class SetFitConfig:
    samples_per_label: int
    num_iterations: int = 20
    body_lr: float = 3e-5
    head_lr: float = 1e-2
    l2_weight: float = 0.01
    batch_size: Count = 32
    body_epochs: int = 1
    head_epochs: int = 5
    max_length: Count | None = None


PRESETS = {"paper": SetFitConfig(samples_per_label=625), "cpu": SetFitConfig(samples_per_label=16, max_length=64)}


def _setfit():
    try:
        import setfit
    except ImportError:
        raise BenchError("the SetFit baseline needs the optional extra: pip install 'sentibench[setfit]' "
                         "(setfit==1.2.0)") from None
    return setfit


def train(request) -> dict:
    setfit = _setfit()
    from sentence_transformers.sentence_transformer.losses import CosineSimilarityLoss

    config = apply_options(PRESETS[request.preset], request.options, owner="SetFit")
    split = get_dataset(request.data).split("train")
    sample = setfit.sample_dataset(split.select_columns(["text", "label"]), label_column="label",
                                   num_samples=config.samples_per_label, seed=request.seed)
    body = request.base.sentence_transformer(request.device)
    evaluation_length = body.max_seq_length        # the checkpoint keeps the base's; training may cap it
    head = setfit.SetFitHead(in_features=body.get_embedding_dimension(), out_features=2,
                             device=body.device)
    model = setfit.SetFitModel(model_body=body, model_head=head)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as scratch:
        args = setfit.TrainingArguments(
            output_dir=scratch, batch_size=config.batch_size, num_epochs=(config.body_epochs, config.head_epochs),
            num_iterations=config.num_iterations, body_learning_rate=(config.body_lr, config.body_lr),
            head_learning_rate=config.head_lr, l2_weight=config.l2_weight, loss=CosineSimilarityLoss,
            end_to_end=True, max_length=config.max_length, seed=request.seed, report_to="none", save_strategy="no",
            show_progress_bar=True, max_steps=hf_max_steps())
        trainer = setfit.Trainer(model=model, args=args, train_dataset=sample)
        trainer.train()
    losses = [{"step": e.get("step"), "loss": e["embedding_loss"]} for e in trainer.st_trainer.state.log_history
              if "embedding_loss" in e]
    model.model_body.max_seq_length = evaluation_length
    model.model_body.save(str(request.out_dir))
    return {"training": {"loss_curve": losses, "seconds": round(time.perf_counter() - started, 1),
                         "sentences": len(sample)},
            "config": asdict(config), "max_length": int(body.max_seq_length),
            "embedding_size": int(body.get_embedding_dimension()), "training_data": [request.data],
            "notes": f"SetFit baseline ({request.preset} preset): {len(sample)} sentences, "
                     f"{config.num_iterations} pair iterations, CosineSimilarityLoss, differentiable head end to end."}
