"""Convert a sentence-transformers BERT exported to ONNX back into a transformers `BertModel` folder.

The ONNX export keeps named biases and LayerNorm weights but stores each Linear weight as an anonymous
MatMul initializer. We recover each one's name from the graph: a MatMul(x, W) feeds an Add(., b) whose
bias `b` is named `...<module>.bias`, so `W` is `<module>.weight` (transposed: ONNX computes x @ W).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import torch
from onnx import numpy_helper

from sentibench.core.errors import BenchError

PREFIX = "model.0.auto_model."


def bert_state_dict(onnx_path: Path) -> dict[str, torch.Tensor]:
    graph = onnx.load(str(onnx_path)).graph
    inits = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    consumers: dict[str, list] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    state = {k[len(PREFIX):]: v for k, v in inits.items() if k.startswith(PREFIX)}
    for node in graph.node:
        if node.op_type != "MatMul" or node.input[1] not in inits or node.input[1].startswith(PREFIX):
            continue
        adds = [n for n in consumers.get(node.output[0], []) if n.op_type == "Add"]
        biases = [i for n in adds for i in n.input if i.startswith(PREFIX) and i.endswith(".bias")]
        if len(biases) != 1:
            raise BenchError(f"{onnx_path}: cannot name the weight {node.input[1]} (no unique bias after it)")
        state[biases[0][len(PREFIX):-len(".bias")] + ".weight"] = inits[node.input[1]].T
    return {k: torch.tensor(np.ascontiguousarray(v)) for k, v in state.items()}


def convert(onnx_path: Path, vocab_folder: Path, out_folder: Path, max_length: int) -> Path:
    """Write `out_folder` as a transformers BERT checkpoint (safetensors) with `vocab_folder`'s tokenizer."""
    from transformers import AutoTokenizer, BertConfig, BertModel

    state = bert_state_dict(onnx_path)
    hidden = state["embeddings.word_embeddings.weight"].shape[1]
    layers = 1 + max(int(k.split(".")[2]) for k in state if k.startswith("encoder.layer."))
    config = BertConfig(
        # Heads are not recoverable from the weights; MiniLM uses 32-wide heads (12 at 384-d), checked
        # against the ONNX model's own output in tests/test_encoders.py (slow).
        vocab_size=state["embeddings.word_embeddings.weight"].shape[0], hidden_size=hidden,
        num_hidden_layers=layers, num_attention_heads=hidden // 32,
        intermediate_size=state["encoder.layer.0.intermediate.dense.weight"].shape[0],
        max_position_embeddings=state["embeddings.position_embeddings.weight"].shape[0],
        type_vocab_size=state["embeddings.token_type_embeddings.weight"].shape[0],
    )
    model = BertModel(config, add_pooling_layer=False)
    missing, unexpected = model.load_state_dict(state, strict=False)
    missing = [k for k in missing if not k.endswith("position_ids")]
    if missing or unexpected:
        raise BenchError(f"{onnx_path}: ONNX weights do not map onto BERT (missing {missing[:3]}, "
                         f"unexpected {unexpected[:3]})")
    out_folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out_folder, safe_serialization=True)
    tokenizer = AutoTokenizer.from_pretrained(str(vocab_folder), local_files_only=True)
    tokenizer.model_max_length = max_length
    tokenizer.save_pretrained(out_folder)
    return out_folder
