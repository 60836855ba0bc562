"""Full fine-tuning of a sentence encoder with a classification head (`FineTuneConfig.head`).

The model and loss the few-shot protocols share (SentiCSE, Kim et al. 2024, §4.4 + Table 12; InfoDCL,
Zhang et al. 2023, D.3); the loop
is the shared training core (`sentibench.training.loop`): AdamW with weight decay on every parameter
except biases and norm weights, linear decay to 0 over the maximum number of steps without warm-up,
gradient clipping at norm 1.0, validation every `eval_steps` steps (or at each epoch's end) with
patience and best-state restore. What is particular here: a fresh shuffle of the training set each epoch
(one seeded generator for the whole run), the last partial batch kept, and the validation metric
(accuracy or macro-F1).

Heads (`finetune_config.HEADS`): `sequence-classification` (`FirstTokenClassifier`, the config's default, the
head of task version 2) is the head transformers' `AutoModelForSequenceClassification` puts on the backbone, on the
unnormalised first-token state, as both papers' code fine-tunes; `pooled-linear` (`PooledClassifier`, version 1) is
a fresh linear layer on the encoder's own pooled, possibly L2-normalised vector; `pooled-sequence-classification`
(`PooledSequenceClassifier`, version 3) is the RoBERTa layout of the sequence-classification head on that same
pooled vector, the one the frozen twin reads.

Selection (`FineTuneConfig.select_by`): the validated state with the highest metric (versions 1 and 2), or with
the lowest mean validation cross-entropy (version 3: the transformers `Trainer`'s rule without
`metric_for_best_model`, strictly lower to count, as its `EarlyStoppingCallback` and best-checkpoint tracking
compare). Either way the validation accuracy and loss of every validation are recorded (`FineTuneRun.validation`).

Cost: each fixed set is tokenised once per run (training rows unpadded, padded per batch; validation
and test rows in pre-padded batches cut as `TransformerEncoder.encode` cuts them, by token count within
its per-pass token budget on the CPU), evaluation runs under `torch.inference_mode()`.
`PretrainedWeights` loads the model once per task in a process and puts the pretrained weights back before
each seed, and keeps the tokenised test set (and a validation set that repeats) across seeds
(benchmarks/bench_fewshot.py measures it).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np
import torch

from sentibench.core.errors import BenchError
from sentibench.embed.batching import token_budget_batches
from sentibench.embed.torch_encoders import TransformerEncoder
from sentibench.training.finetune_config import FineTuneConfig, score
from sentibench.training.loop import LoopConfig, TrainingRun, train_loop


class PooledClassifier(torch.nn.Module):
    """`Linear(encoder.embed(x))`: a linear head on the encoder's own pooled sentence vector."""

    def __init__(self, encoder: TransformerEncoder, num_labels: int) -> None:
        super().__init__()
        self.encoder = encoder
        self.backbone = encoder.model  # registered, so its parameters are trained and saved with the head
        self.head = torch.nn.Linear(encoder.dimension, num_labels).to(encoder.device)

    def forward(self, features: dict[str, torch.Tensor]) -> torch.Tensor:
        return self.head(self.encoder.embed(features))


FIRST_TOKEN_HEAD_TYPES = ("roberta", "xlm-roberta", "camembert", "longformer")
"""Model types whose transformers sequence-classification head is RoBERTa's (`RobertaClassificationHead`:
dropout, a fresh dense + tanh, dropout, projection on the first token), not BERT's pooler + dropout + linear."""


class SequenceClassificationHead(torch.nn.Module):
    """The backbone's own sequence-classification head on the unnormalised first-token state.

    BERT-like backbones (`BertForSequenceClassification`): the pooler's dense + tanh, dropout, a fresh linear
    projection; the pooler is the checkpoint's, or a fresh dense layer when the checkpoint has none (the encoder
    drops a pooler it could not load: `sentibench.embed.torch_encoders.drop_unloaded_pooler`), as transformers would
    initialise the missing layer, but seeded with the run. RoBERTa-like backbones (`RobertaClassificationHead`), and
    any backbone with `fresh_dense=True`: dropout, a fresh dense + tanh, dropout, a fresh projection. Fresh layers
    are initialised as transformers does (normal with the config's `initializer_range`, zero bias) from the random
    state the caller seeded; dropout is the config's `classifier_dropout`, else its `hidden_dropout_prob`."""

    def __init__(self, backbone: torch.nn.Module, num_labels: int, fresh_dense: bool = False) -> None:
        super().__init__()
        config = backbone.config
        hidden = config.hidden_size
        rate = getattr(config, "classifier_dropout", None)
        rate = getattr(config, "hidden_dropout_prob", 0.1) if rate is None else rate
        pooler = getattr(backbone, "pooler", None)
        self.bert_like = not fresh_dense and config.model_type not in FIRST_TOKEN_HEAD_TYPES
        self.dense = (pooler.dense if self.bert_like and hasattr(pooler, "dense")
                      else self._fresh(torch.nn.Linear(hidden, hidden), config))
        self.dropout = torch.nn.Dropout(rate)
        self.out_proj = self._fresh(torch.nn.Linear(hidden, num_labels), config)

    @staticmethod
    def _fresh(layer: torch.nn.Linear, config) -> torch.nn.Linear:
        torch.nn.init.normal_(layer.weight, std=getattr(config, "initializer_range", 0.02))
        torch.nn.init.zeros_(layer.bias)
        return layer

    def forward(self, first_token: torch.Tensor) -> torch.Tensor:
        x = first_token if self.bert_like else self.dropout(first_token)
        return self.out_proj(self.dropout(torch.tanh(self.dense(x))))


class FirstTokenClassifier(torch.nn.Module):
    """`SequenceClassificationHead(backbone(x).last_hidden_state[:, 0])`: no pooling, no normalisation."""

    def __init__(self, encoder: TransformerEncoder, num_labels: int) -> None:
        super().__init__()
        self.backbone = encoder.model
        dtype = next(encoder.model.parameters()).dtype
        self.head = SequenceClassificationHead(encoder.model, num_labels).to(encoder.device, dtype=dtype)

    def forward(self, features: dict[str, torch.Tensor]) -> torch.Tensor:
        return self.head(self.backbone(**features).last_hidden_state[:, 0]).float()


class PooledSequenceClassifier(torch.nn.Module):
    """`SequenceClassificationHead(encoder.embed(x))` in the RoBERTa layout (dropout, fresh dense + tanh, dropout,
    fresh projection) on the encoder's own sentence vector: its pooling and normalisation, the vector `encode`
    returns and the frozen twin fits. The SentiCSE authors fine-tune `AutoModelForSequenceClassification` on RoBERTa
    models trained with `pooler_type cls` (`few_shot_experiment.py`, `run_senticse_linear_probe.sh`), so their head
    reads the vector their models embed a sentence as; this head does the same for every model card."""

    def __init__(self, encoder: TransformerEncoder, num_labels: int) -> None:
        super().__init__()
        self.encoder = encoder
        self.backbone = encoder.model  # registered, so its parameters are trained and saved with the head
        self.head = SequenceClassificationHead(encoder.model, num_labels, fresh_dense=True).to(encoder.device)

    def forward(self, features: dict[str, torch.Tensor]) -> torch.Tensor:
        return self.head(self.encoder.embed(features))


def build_classifier(encoder: TransformerEncoder, num_labels: int, head: str) -> torch.nn.Module:
    """The encoder plus a fresh head of kind `head` (`finetune_config.HEADS`)."""
    if head == "pooled-linear":
        return PooledClassifier(encoder, num_labels)
    if head == "pooled-sequence-classification":
        return PooledSequenceClassifier(encoder, num_labels)
    return FirstTokenClassifier(encoder, num_labels)


class EvalSet:
    """Texts tokenised once into padded batches for repeated prediction, batched as `TransformerEncoder.encode`
    batches: by token count, longest first, within the encoder's `tokens_per_forward` positions per pass on
    the CPU (1.3x faster than 64 texts a batch by characters on MR, `benchmarks/bench_fewshot.py`)."""

    def __init__(self, encoder: TransformerEncoder, texts: Sequence[str], batch_size: int) -> None:
        texts = list(texts)
        self.size = len(texts)
        tokens = encoder.tokenizer(texts, truncation=True, max_length=encoder.max_length)
        lengths = [len(ids) for ids in tokens["input_ids"]]
        self.batches = []
        for batch in token_budget_batches(lengths, batch_size, encoder.tokens_per_forward):
            features = encoder.tokenizer.pad({k: [v[i] for i in batch] for k, v in tokens.items()},
                                             return_tensors="pt")
            self.batches.append((torch.as_tensor(batch), {k: v.to(encoder.device) for k, v in features.items()}))

    def logits(self, model: torch.nn.Module) -> torch.Tensor:
        """The model's logits (float32, eval mode), in the original text order."""
        out: torch.Tensor | None = None
        was_training = model.training
        model.eval()
        with torch.inference_mode():
            for index, features in self.batches:
                batch = model(features).float().cpu()
                if out is None:
                    out = torch.zeros(self.size, batch.shape[-1])
                out[index] = batch
        model.train(was_training)
        return torch.zeros(0, 1) if out is None else out

    def predict(self, model: torch.nn.Module) -> np.ndarray:
        """Argmax labels, in the original text order."""
        return self.logits(model).argmax(-1).numpy()


class PretrainedWeights:
    """The model under test, loaded on first use and reset to its pretrained weights for every later seed.

    `fresh()` is what a new load gives (the same tensors, eval mode, no gradients, the card's max length unless
    `max_length` says otherwise) without reading the checkpoint again; `eval_set(texts)` keeps the last
    `EVAL_SETS_KEPT` tokenised sets, so the test set (and a validation set every seed shares) is tokenised once.
    Pickling (a remote executor's worker) drops the loaded model: each worker loads its own."""

    EVAL_SETS_KEPT = 2

    def __init__(self, load: Callable[[], TransformerEncoder]) -> None:
        self.load = load
        self._encoder: TransformerEncoder | None = None
        self._state: dict[str, torch.Tensor] = {}
        self._card_max_length = 0
        self._eval_sets: OrderedDict[tuple[tuple[str, ...], int, int], EvalSet] = OrderedDict()

    def __getstate__(self) -> dict:
        return {"load": self.load}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["load"])

    def fresh(self, max_length: int | None = None) -> TransformerEncoder:
        """The encoder with its pretrained weights (loaded now, or restored in place from memory), truncating at
        `max_length` tokens (None: the card's max length)."""
        if self._encoder is None:
            self._encoder = self.load()
            self._state = {k: v.detach().clone() for k, v in self._encoder.model.state_dict().items()}
            self._card_max_length = self._encoder.max_length
        else:
            model = self._encoder.model
            model.load_state_dict(self._state)
            model.zero_grad(set_to_none=True)
            model.eval()
        self._encoder.max_length = max_length or self._card_max_length
        return self._encoder

    def eval_set(self, texts: Sequence[str], batch_size: int) -> EvalSet:
        """`texts` tokenised for prediction (at the encoder's current max length), reused when the same texts
        come again."""
        encoder = self._encoder or self.fresh()
        key = (tuple(texts), batch_size, encoder.max_length)
        if key in self._eval_sets:
            self._eval_sets.move_to_end(key)
            return self._eval_sets[key]
        made = self._eval_sets[key] = EvalSet(encoder, texts, batch_size)
        while len(self._eval_sets) > self.EVAL_SETS_KEPT:
            self._eval_sets.popitem(last=False)
        return made


@dataclass
class FineTuneRun(TrainingRun):
    """The loop's trace plus what each validation measured: (step, mean cross-entropy, `config.metric`)."""

    validation: list[tuple[int, float, float]] = field(default_factory=list)

    def at_best(self) -> tuple[float, float]:
        """(loss, metric) of the restored state."""
        return next((loss, value) for step, loss, value in self.validation if step == self.best_step)


def fine_tune(encoder: TransformerEncoder, train_texts: Sequence[str], train_labels: Sequence[int],
              validation: EvalSet, validation_labels: Sequence[int], num_labels: int,
              config: FineTuneConfig, seed: int) -> tuple[torch.nn.Module, FineTuneRun]:
    """Fine-tune `encoder` (in place) plus a fresh `config.head`; returns the model in its best validated state
    (highest `config.metric`, or lowest validation loss: `config.select_by`)."""
    if not train_texts:
        raise BenchError("fine-tuning needs at least one training example")
    torch.manual_seed(seed)  # the head's initialisation and dropout
    model = build_classifier(encoder, num_labels, config.head).train()
    tokens = encoder.tokenizer(list(train_texts), truncation=True, max_length=encoder.max_length)
    labels = torch.as_tensor(list(train_labels), dtype=torch.long, device=encoder.device)
    order_rng = torch.Generator().manual_seed(seed)
    gold = list(validation_labels)
    gold_tensor = torch.as_tensor(gold, dtype=torch.long)
    measured: list[tuple[float, float]] = []  # (loss, metric) of each validation, in the order of run.history

    def validate() -> float:
        """The selection score of the current state (higher is better): the metric, or minus the mean loss."""
        logits = validation.logits(model)
        value = score(config.metric, gold, logits.argmax(-1).numpy())
        loss = float(torch.nn.functional.cross_entropy(logits, gold_tensor))
        measured.append((loss, value))
        return value if config.select_by == "metric" else -loss

    def epoch_batches(_epoch: int) -> list[torch.Tensor]:
        return list(torch.randperm(len(train_texts), generator=order_rng).split(config.batch_size))

    def loss(batch: torch.Tensor) -> tuple[torch.Tensor, dict[str, float]]:
        rows = batch.tolist()
        features = encoder.tokenizer.pad({k: [v[i] for i in rows] for k, v in tokens.items()}, return_tensors="pt")
        logits = model({k: v.to(encoder.device) for k, v in features.items()})
        return torch.nn.functional.cross_entropy(logits, labels[batch.to(encoder.device)]), {}

    loop = LoopConfig(learning_rate=config.learning_rate, max_epochs=config.max_epochs,
                      weight_decay=config.weight_decay, max_grad_norm=config.max_grad_norm,
                      eval_every=config.eval_steps, patience=config.patience, log_every=10**9)
    run = train_loop(model, epoch_batches, loss, validate, loop,
                     steps_per_epoch=math.ceil(len(train_texts) / config.batch_size),
                     description="fine-tune", progress=False)
    return model, FineTuneRun(**asdict(run), validation=[(step, loss_value, value) for (step, _), (loss_value, value)
                                                         in zip(run.history, measured, strict=True)])
