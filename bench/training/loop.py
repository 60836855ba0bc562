"""The one training loop every trainable method and the few-shot protocols share.

A method supplies a `torch.nn.Module` holding everything it trains (so the best state can be kept and
restored), its batches per epoch, a loss per batch, and a validation score (higher is better). The loop
owns the rest, identically for every method:

- AdamW, with weight decay on every parameter except biases and norm weights (tensors of rank <= 1);
- a learning-rate schedule: warm-up, then linear decay to 0 at the last step (Hugging Face's
  `get_linear_schedule_with_warmup`, the default) or constant (`get_constant_schedule_with_warmup`: for a
  run that stops on a plateau, so the step cap does not set the learning rate);
- gradient clipping to `max_grad_norm` (None: off);
- validation every `eval_every` steps (None: at the end of every epoch), once more at the last step if
  that was not a validation step, and optionally before the first step (so the untouched start can win);
  a validation counts as an improvement only when strictly higher than the best so far (ties keep the
  earlier state); after `patience` validations in a row without improvement training stops; the best
  state is restored at the end;
- a progress bar with ETA, a loss curve averaged over `log_every` steps, and a JSON-able report.

A non-finite loss stops training with a one-line error. Inside `step_budget(n)` (a smoke-training run,
`bench run --smoke-training N`) every loop stops after at most `n` steps, whatever its method asked for.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np
import torch
from tqdm.auto import tqdm

from sentibench.core.errors import BenchError

LossFn = Callable[[Any], tuple[torch.Tensor, dict[str, float]]]
SCHEDULES = ("linear", "constant")
STEP_BUDGET: ContextVar[int | None] = ContextVar("sentibench_step_budget", default=None)


@contextmanager
def step_budget(steps: int | None) -> Iterator[None]:
    """Within the block, every training loop stops after at most `steps` steps (None: no cap)."""
    token = STEP_BUDGET.set(steps)
    try:
        yield
    finally:
        STEP_BUDGET.reset(token)


def hf_max_steps() -> int:
    """The step budget as a Hugging Face `TrainingArguments.max_steps` (-1: none), for a method whose
    training runs in a library's trainer instead of `train_loop`."""
    return STEP_BUDGET.get() or -1


@dataclass(frozen=True)
class LoopConfig:
    """How long and how to optimise; a method's preset builds one."""

    learning_rate: float
    max_steps: int | None = None        # None: max_epochs x steps_per_epoch
    max_epochs: int | None = None       # None: as many epochs as max_steps needs
    weight_decay: float = 0.0
    warmup_steps: int = 0
    max_grad_norm: float | None = 1.0
    eval_every: int | None = None       # None: validate at the end of each epoch
    patience: int | None = None         # None: never stop early
    validate_at_start: bool = False     # score the starting point (step 0) as a candidate
    log_every: int = 25
    fused_optimizer: bool = True        # one-kernel AdamW (the same update, faster on CPU)
    schedule: Literal["linear", "constant"] = "linear"  # after warm-up: decay to 0 at the last step, or hold

    def __post_init__(self) -> None:
        if self.schedule not in SCHEDULES:
            raise BenchError(f"training option schedule must be one of {', '.join(SCHEDULES)}, got {self.schedule!r}")
        if self.max_steps is None and self.max_epochs is None:
            raise BenchError("a training loop needs max_steps or max_epochs")
        for name in ("max_steps", "max_epochs", "eval_every", "patience", "log_every"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise BenchError(f"training option {name} must be at least 1, got {value}")
        if not (self.learning_rate > 0 and math.isfinite(self.learning_rate)):
            raise BenchError(f"learning rate must be a positive number, got {self.learning_rate}")


@dataclass
class TrainingRun:
    """What happened: the restored state's validation score and step, and the whole trace."""

    best_score: float = -math.inf
    best_step: int = 0
    steps: int = 0
    epochs: int = 0
    stopped_early: bool = False
    seconds: float = 0.0
    history: list[tuple[int, float]] = field(default_factory=list)     # (step, validation score)
    loss_curve: list[dict[str, float]] = field(default_factory=list)   # window means of loss and its parts

    def report(self) -> dict[str, Any]:
        out = asdict(self)
        out["history"] = [{"step": s, "validation": v} for s, v in self.history]
        out["best_score"] = None if not math.isfinite(self.best_score) else self.best_score
        return out


def build_optimizer(module: torch.nn.Module, config: LoopConfig) -> torch.optim.Optimizer:
    """AdamW, decaying only tensors of rank > 1 (not biases or norm weights)."""
    parameters = [p for p in module.parameters() if p.requires_grad]
    if not parameters:
        raise BenchError("nothing to train: the module has no trainable parameters")
    decay = [p for p in parameters if p.ndim > 1]
    no_decay = [p for p in parameters if p.ndim <= 1]
    fused = config.fused_optimizer and parameters[0].device.type in ("cpu", "cuda")
    return torch.optim.AdamW([{"params": decay, "weight_decay": config.weight_decay},
                              {"params": no_decay, "weight_decay": 0.0}],
                             lr=config.learning_rate, fused=fused or None)


def total_steps(config: LoopConfig, steps_per_epoch: int | None) -> int:
    by_epochs = config.max_epochs * steps_per_epoch if config.max_epochs and steps_per_epoch else None
    candidates = [n for n in (config.max_steps, by_epochs) if n]
    if not candidates:
        raise BenchError("max_epochs needs steps_per_epoch to size the learning-rate schedule")
    return min(candidates)


def train_loop(module: torch.nn.Module, epoch_batches: Callable[[int], Iterable[Any]], loss_fn: LossFn,
               validate: Callable[[], float], config: LoopConfig, steps_per_epoch: int | None = None,
               description: str = "train", progress: bool = True) -> TrainingRun:
    """Train `module` in place and leave it in its best validated state (eval mode); the run's trace.

    `epoch_batches(epoch)` yields the batches of one epoch (called once per epoch, epochs from 0);
    `loss_fn(batch)` returns the loss and a dict of named parts to log; `validate()` scores the current
    state (higher is better) and may switch modes: the loop puts the module back in training mode.
    """
    from transformers import get_constant_schedule_with_warmup, get_linear_schedule_with_warmup

    steps, budget = total_steps(config, steps_per_epoch), STEP_BUDGET.get()
    steps = steps if budget is None else min(steps, budget)
    optimizer = build_optimizer(module, config)
    schedule = (get_linear_schedule_with_warmup(optimizer, num_warmup_steps=config.warmup_steps,
                                                num_training_steps=steps) if config.schedule == "linear"
                else get_constant_schedule_with_warmup(optimizer, num_warmup_steps=config.warmup_steps))
    run = TrainingRun()
    best_state: dict[str, torch.Tensor] | None = None
    misses = 0
    started = time.perf_counter()

    def check() -> bool:
        """Validate; keep the state when strictly best; True when patience is exhausted."""
        nonlocal best_state, misses
        value = float(validate())
        module.train()
        run.history.append((run.steps, value))
        if value > run.best_score or best_state is None:
            run.best_score, run.best_step, misses = value, run.steps, 0
            best_state = {k: v.detach().clone() for k, v in module.state_dict().items()}
            return False
        misses += 1
        return config.patience is not None and misses >= config.patience

    module.train()
    if config.validate_at_start:
        check()
    bar = tqdm(total=steps, desc=description, disable=not progress, file=sys.stderr)
    window: list[dict[str, float]] = []
    epoch = 0
    while run.steps < steps and not run.stopped_early and (config.max_epochs is None or epoch < config.max_epochs):
        run.epochs += 1
        seen = 0
        for batch in epoch_batches(epoch):
            seen += 1
            loss, parts = loss_fn(batch)
            value = float(loss.detach())
            if not math.isfinite(value):
                bar.close()
                raise BenchError(f"{description}: the loss became {value} at step {run.steps + 1}; "
                                 "lower the learning rate")
            loss.backward()
            if config.max_grad_norm is not None:
                torch.nn.utils.clip_grad_norm_(module.parameters(), config.max_grad_norm)
            optimizer.step()
            schedule.step()
            optimizer.zero_grad(set_to_none=True)
            run.steps += 1
            bar.update(1)
            window.append({"loss": value, **parts})
            if run.steps % config.log_every == 0 or run.steps == steps:
                run.loss_curve.append({"step": run.steps, **{k: float(np.mean([w.get(k, 0.0) for w in window]))
                                                            for k in window[0]}})
                window = []
            if config.eval_every and run.steps % config.eval_every == 0 and check():
                run.stopped_early = True
            best = f"{run.best_score:.4f}" if math.isfinite(run.best_score) else "-"
            bar.set_postfix(loss=f"{value:.3f}", best=best)
            if run.stopped_early or run.steps >= steps:
                break
        if seen == 0:
            bar.close()
            raise BenchError(f"{description}: epoch {epoch} has no batches (too little training data?)")
        epoch += 1
        if config.eval_every is None and not run.stopped_early and check():
            run.stopped_early = True
    bar.close()
    if not run.history or run.history[-1][0] != run.steps:
        check()
    assert best_state is not None
    module.load_state_dict(best_state)
    module.eval()
    run.seconds = round(time.perf_counter() - started, 1)
    return run
