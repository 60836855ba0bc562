"""Tests that kill the mutants mutmut left alive in `submission/merged.py` (docs/reliability.md, "Mutation
testing"): where a verified submission's weights are stored, how its card's checkpoint is resolved and
confined, which merged cards are refused, and the exact card `install` writes. Every expected value is worked
out by hand from the documented rule, not read off the code's output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from huggingface_hub.constants import HF_HUB_CACHE
from one_line import fails

from sentibench.core.errors import Rejected
from sentibench.submission.merged import _resolved, install, merged_card, store_weights, submitted_weights

REVISION = "r1"


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    """A fresh sentibench home (no user cards, no stored weights), with symlinks resolved."""
    root = tmp_path.resolve() / "home"
    monkeypatch.setenv("SENTIBENCH_HOME", str(root))
    return root


def _files(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


def _card(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "card.yaml").write_text(text, encoding="utf-8")
    return folder / "card.yaml"


# --- submitted_weights and store_weights ---------------------------------------------------------------------------

def test_submitted_weights_live_under_models_submitted_name_revision(home):
    assert submitted_weights("tiny", REVISION) == home / "models" / "submitted" / "tiny" / REVISION


def test_store_weights_copies_only_weight_files_into_nested_folders(home, tmp_path):
    source = tmp_path / "weights"
    (source / "a" / "b").mkdir(parents=True)
    (source / "a" / "b" / "config.json").write_text("{}")   # two new folders deep: parents are made
    (source / "model.safetensors").write_bytes(b"w")
    (source / "code.py").write_text("import os")             # code is never copied
    (source / "README.md").write_text("hi")
    target = store_weights(source, "tiny", REVISION)
    assert target == home / "models" / "submitted" / "tiny" / REVISION
    assert _files(target) == {"a/b/config.json", "model.safetensors"}
    assert (target / "model.safetensors").read_bytes() == b"w"


def test_store_weights_replaces_an_existing_folder_whole(home, tmp_path):
    old, new = tmp_path / "old", tmp_path / "new"
    old.mkdir()
    new.mkdir()
    (old / "old.safetensors").write_bytes(b"o")
    (new / "new.safetensors").write_bytes(b"n")
    store_weights(old, "tiny", REVISION)
    target = store_weights(new, "tiny", REVISION)
    assert _files(target) == {"new.safetensors"}


# --- _resolved: the card's checkpoint ------------------------------------------------------------------------------

def test_a_checkpoint_under_weights_resolves_to_the_stored_weights(home):
    data = _resolved({"name": "tiny", "revision": REVISION, "checkpoint": "weights/sub"})
    assert data["checkpoint"] == str(home / "models" / "submitted" / "tiny" / REVISION / "sub")
    data = _resolved({"name": "tiny", "revision": REVISION, "checkpoint": "weights"})
    assert data["checkpoint"] == str(home / "models" / "submitted" / "tiny" / REVISION)


def test_a_relative_checkpoint_outside_weights_is_refused():
    fails("card: a submitted checkpoint lies under weights/, not 'other/sub'",
           _resolved, {"name": "tiny", "revision": REVISION, "checkpoint": "other/sub"})


def test_an_absolute_checkpoint_outside_the_caches_is_refused_naming_the_card(home, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    roots = f"{home / 'models'}, {home / 'checkpoints'}, {HF_HUB_CACHE}"
    fails(f"card: checkpoint '{elsewhere}' lies outside {roots}; weights must be inside the submission or a "
           "sentibench cache", _resolved, {"name": "tiny", "revision": REVISION, "checkpoint": str(elsewhere)})


def test_stored_weights_that_ask_for_custom_code_are_refused_naming_the_model(home):
    stored = home / "models" / "submitted" / "tiny" / REVISION
    stored.mkdir(parents=True)
    (stored / "config.json").write_text(json.dumps({"auto_map": {"AutoModel": "x.Y"}}))
    fails(f"model 'tiny': {stored / 'config.json'} maps classes to custom code (auto_map); sentibench never runs "
           "a model's own code", _resolved, {"name": "tiny", "revision": REVISION, "checkpoint": "weights"})


# --- merged_card ---------------------------------------------------------------------------------------------------

def test_a_folder_without_a_merged_card_is_named(tmp_path):
    fails(f"no card.yaml beside the results in {tmp_path}", merged_card, tmp_path)


def test_a_merged_card_that_fails_card_check_is_rejected_with_every_problem(home, tmp_path):
    _card(tmp_path, "name: tiny\nloader: transformers\ndescription: d\nrevision: r1\n"
                    "trust_remote_code: true\nlicense: 'FILL IN: the license'\n")
    with pytest.raises(Rejected) as caught:
        merged_card(tmp_path)
    assert caught.value.problems == [
        "card: 'trust_remote_code' is not allowed: sentibench never runs a model's own code",
        "card: 'license' is still a blank to fill in (FILL IN: ...)",
    ]


def test_a_good_merged_card_is_read_from_its_file_with_the_checkpoint_resolved(home, tmp_path):
    path = _card(tmp_path, "name: tiny\nloader: trained\ndescription: d\nrevision: r1\ncheckpoint: weights\n")
    card = merged_card(tmp_path)
    assert card.path == str(path)
    assert card.checkpoint == str(home / "models" / "submitted" / "tiny" / REVISION)


# --- install -------------------------------------------------------------------------------------------------------

# 60 + 1 + 10 + 1 + 36 characters: after "description: " (13) the `b`s end at column 121, one past the
# 120-character width, so the emitter breaks the line at the next space (and at 80, the default width, the
# `c`s would already end past it); the continuation is indented by 2.
LONG = f"{'a' * 60} {'c' * 10} {'b' * 36}"
CARD = f"name: tiny-merged\nloader: trained\ndescription: {LONG} tail \u00fc\nrevision: r1\ncheckpoint: weights\n"


def test_install_writes_the_card_in_its_own_key_order_with_unicode_and_width_120(home, tmp_path):
    card_file = _card(tmp_path, CARD)
    target = home / "cards" / "tiny-merged.yaml"
    assert install(card_file) == f"installed card 'tiny-merged' as {target}"
    stored = home / "models" / "submitted" / "tiny-merged" / REVISION
    assert target.read_text(encoding="utf-8") == (
        "name: tiny-merged\n"
        "loader: trained\n"
        f"description: {LONG}\n"
        "  tail \u00fc\n"
        "revision: r1\n"
        f"checkpoint: {stored}\n")


def test_install_over_a_known_card_keeps_it_and_says_whether_its_revision_differs(home, tmp_path):
    install(_card(tmp_path / "first", CARD))
    target = home / "cards" / "tiny-merged.yaml"
    installed = target.read_text(encoding="utf-8")
    assert install(_card(tmp_path / "same", CARD)) == "card 'tiny-merged' is already known here"
    other = _card(tmp_path / "other", CARD.replace("revision: r1", "revision: r2"))
    assert install(other) == ("card 'tiny-merged' is already known here with revision r1 (not r2); "
                              "the merged card was not installed")
    assert target.read_text(encoding="utf-8") == installed
