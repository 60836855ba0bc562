"""The MLM head a method's masked-token objective predicts with (SentiCSE §3.1: Softmax(W h_k + b);
InfoDCL's L_MLM, B.3).

The head is the transformers head class of the base architecture (BertOnlyMLMHead, RobertaLMHead, ...),
loaded from the base checkpoint folder with `AutoModelForMaskedLM`. When the checkpoint has trained head
weights they are used. When it has none (all-MiniLM-L6-v2 and every sentence-transformers model; no MLM
head weights exist in any registry), the head's transform layer (dense + activation + LayerNorm) stays as
transformers freshly initialises it, its bias starts at zero, and its decoder is tied to the encoder's
input embeddings. Either way the decoder weight IS the encoder's input-embedding matrix (tied), so the
head adds only the transform and a bias to the trained parameters.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import torch

from sentibench.core.errors import BenchError


@dataclass
class MaskedLMHead:
    module: torch.nn.Module   # hidden states [..., H] -> logits [..., V]
    source: str               # "checkpoint" or "fresh transform, decoder tied to input embeddings"


def checkpoint_folder(encoder_model: torch.nn.Module) -> Path:
    """The local folder an encoder was loaded from (transformers records it in the config)."""
    folder = Path(getattr(encoder_model.config, "_name_or_path", "") or "")
    if not (folder / "config.json").exists():
        raise BenchError(f"the MLM objective needs the base checkpoint's local folder for its head; "
                         f"'{folder}' is not one")
    return folder


def build_head(encoder_model: torch.nn.Module) -> MaskedLMHead:
    """The base architecture's MLM head, from the checkpoint when it has one, decoder tied to the
    encoder's input embeddings."""
    from transformers import AutoModelForMaskedLM
    from transformers.utils import logging as transformers_logging

    folder = checkpoint_folder(encoder_model)
    safetensors = any(folder.glob("*.safetensors"))
    verbosity = transformers_logging.get_verbosity()
    transformers_logging.set_verbosity_error()  # the expected "missing head weights" report is ours to give
    try:
        mlm, info = AutoModelForMaskedLM.from_pretrained(str(folder), output_loading_info=True,
                                                         local_files_only=True, trust_remote_code=False,
                                                         use_safetensors=safetensors or None)
    finally:
        transformers_logging.set_verbosity(verbosity)
    base = mlm.base_model
    heads = [(name, child) for name, child in mlm.named_children() if child is not base]
    if len(heads) != 1:
        raise BenchError(f"cannot find the MLM head of {type(mlm).__name__}")
    prefix, head = heads[0]
    decoder = mlm.get_output_embeddings()
    missing = [key for key in info.get("missing_keys", [])
               if key.startswith(prefix + ".") and not key.endswith("decoder.weight")]
    from_checkpoint = not missing
    if not from_checkpoint:  # the output bias (size V) starts at zero; the transform keeps its fresh init
        for parameter in head.parameters():
            if parameter.dim() == 1 and parameter.shape[0] == decoder.weight.shape[0]:
                torch.nn.init.zeros_(parameter)
    decoder.weight = encoder_model.get_input_embeddings().weight
    del mlm
    head.to(next(encoder_model.parameters()).device)
    source = "checkpoint" if from_checkpoint else "fresh transform, decoder tied to input embeddings"
    return MaskedLMHead(head, source)
