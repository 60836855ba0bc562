"""What the engine offers a method's own commands (`training.methods.Services`): its base models and sweeps.
The command line hands one `EngineServices` to every method command, so method packages never import the
runner, tasks or model cards."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sentibench.models import card_for
from sentibench.models.catalog.trained import CardBase
from sentibench.run.sweep import run_sweep
from sentibench.training.methods import Configuration


class EngineServices:
    def base(self, name: str) -> CardBase:
        return CardBase(name, card_for(name))

    def sweep(self, configurations: list[Configuration], output: Path, device: str | None = None
              ) -> list[dict[str, Any]]:
        return run_sweep(configurations, output, device)
