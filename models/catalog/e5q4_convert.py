"""An E5S1 file (`catalog.e5q4_file`) as a transformers `BertModel` folder (safetensors) with its rebuilt XLM-R
tokenizer (`catalog.e5q4_tokenizer`).

multilingual-e5-small is a BERT encoder (post-LayerNorm, exact-erf GELU, absolute positions from 0) over XLM-R's
vocabulary, and e5.c's forward pass is exactly that (`forward_batch`: word + position + token-type 0 embeddings,
LayerNorm; per layer self-attention, LayerNorm(x + attention), GELU feed-forward, LayerNorm(x + ffn)); the file
has no pooler. The weights are the dequantised 4-bit values, so this model is the 4-bit model computed in
float32; the engine also rounds each activation block to 8 bits before a matrix product, which this model does
not (docs/multilingual-e5.md measures what that changes).
"""

from __future__ import annotations

from pathlib import Path

from sentibench.core.errors import BenchError
from sentibench.models.catalog.e5q4_file import E5Q4File, read_e5q4
from sentibench.models.catalog.e5q4_tokenizer import build_tokenizer

EMBEDDINGS = {"emb.word": "word_embeddings.weight", "emb.pos": "position_embeddings.weight",
              "emb.type": "token_type_embeddings.weight", "emb.ln.w": "LayerNorm.weight", "emb.ln.b": "LayerNorm.bias"}
LAYER_MODULES = {"q": "attention.self.query", "k": "attention.self.key", "v": "attention.self.value",
                 "ao": "attention.output.dense", "aln": "attention.output.LayerNorm", "fi": "intermediate.dense",
                 "fo": "output.dense", "oln": "output.LayerNorm"}


def bert_name(name: str) -> str:
    """The `BertModel` key of an E5S1 tensor name (`l3.fi.w`: `encoder.layer.3.intermediate.dense.weight`)."""
    if name in EMBEDDINGS:
        return f"embeddings.{EMBEDDINGS[name]}"
    layer, module, part = name.split(".")
    return f"encoder.layer.{layer[1:]}.{LAYER_MODULES[module]}.{'weight' if part == 'w' else 'bias'}"


def bert_model(model_file: E5Q4File):
    """A `BertModel` (no pooler) holding the file's dequantised weights; every weight must find its place."""
    import torch
    from transformers import BertConfig, BertModel

    c = model_file.config
    config = BertConfig(vocab_size=c.vocabulary, hidden_size=c.hidden, num_hidden_layers=c.layers,
                        num_attention_heads=c.heads, intermediate_size=c.intermediate, hidden_act="gelu",
                        max_position_embeddings=c.positions, type_vocab_size=c.token_types,
                        layer_norm_eps=c.layer_norm_eps, pad_token_id=model_file.special_ids["pad"])
    model = BertModel(config, add_pooling_layer=False)
    state = {bert_name(name): torch.from_numpy(values) for name, values in model_file.tensors.items()}
    missing, unexpected = model.load_state_dict(state, strict=False)
    missing = [key for key in missing if not key.endswith("position_ids")]
    if missing or unexpected:
        raise BenchError(f"the E5S1 tensors do not map onto BERT (missing {missing[:3]}, unexpected {unexpected[:3]})")
    return model


def convert(model_path: Path, out_folder: Path, max_length: int) -> Path:
    """Write `out_folder` as a transformers BERT checkpoint (safetensors) with the file's own tokenizer."""
    model_file = read_e5q4(model_path)
    out_folder.mkdir(parents=True, exist_ok=True)
    bert_model(model_file).save_pretrained(out_folder, safe_serialization=True)
    build_tokenizer(model_file, max_length).save_pretrained(out_folder)
    return out_folder
