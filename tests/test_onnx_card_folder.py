"""An onnx-bert card's weights folder: the first use converts its ONNX file (`catalog.onnx_convert`) into the
cache, and the conversion module is found where it lives (issue 44's measurement hit an import of its old place)."""

from __future__ import annotations

from pathlib import Path

import sentibench.models.catalog.loaders as loaders
import sentibench.models.catalog.onnx_convert as onnx_convert
from sentibench.models.catalog.cards import get_card


def test_first_use_converts_the_onnx_file_into_the_cache(tmp_path, monkeypatch):
    calls = []

    def convert(onnx_file, vocab, folder, max_length):
        calls.append((onnx_file, Path(vocab).name, max_length))
        (Path(folder) / "config.json").write_text("{}")

    monkeypatch.setattr(onnx_convert, "convert", convert)
    monkeypatch.setattr(loaders, "cache_dir", lambda kind: tmp_path / kind)
    monkeypatch.setattr(loaders, "registry_files", lambda card: [tmp_path / "model.onnx"])
    monkeypatch.setattr(loaders, "weights_folder", lambda card: tmp_path / f"vocab-of-{card.name}")
    card = get_card("paraphrase-minilm-l3-v2")
    folder = loaders.converted_onnx_folder(card)
    assert (folder / "config.json").exists() and folder.parent == tmp_path / "models"
    assert calls == [(tmp_path / "model.onnx", "vocab-of-all-minilm-l6-v2", 128)]
    assert loaders.converted_onnx_folder(card) == folder and len(calls) == 1  # converted once
