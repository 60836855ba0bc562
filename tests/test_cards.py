import dataclasses

import pytest

from sentibench.core.errors import BenchError
from sentibench.models.catalog.cards import packaged_cards, read_card
from sentibench.models.catalog.kinds import model_kind


def test_packaged_cards_are_valid_and_complete():
    cards = packaged_cards()  # not the user cards other tests leave in the shared test home
    for name in ("all-minilm-l6-v2", "all-mpnet-base-v2", "paraphrase-minilm-l3-v2", "roberta-base",
                 "bert-base-uncased", "bow-tfidf-svd", "random", "glove-6b-50d-mean", "spacy-md-vectors-mean"):
        assert name in cards
    for card in cards.values():
        assert card.embedding_size, card.name
        kind = model_kind(card.loader)
        if kind.transformer and not kind.from_recipe:  # a pretrained checkpoint (not bag-of-words, static vectors)
            assert card.hub_id, f"{card.name} must name its hub id"
        for entry in card.registry:
            assert len(entry["sha256"]) == 64, f"{card.name}: registry files are pinned by sha256"


TRAINED = ("name: x\nloader: trained\ndescription: d\nrevision: r\n"
           "recipe: {method: senticse, base: all-minilm-l6-v2, data: mr, preset: plateau, seed: 0}\n")


@pytest.mark.parametrize("text, message", [
    ("name: x\nloader: [unclosed", "not valid YAML at line 2"),
    ("- just\n- a list\n", "expected a mapping"),
    ("name: x\nloader: transformers\ndescription: d\n", "missing 'revision'"),
    ("name: x\nloader: magic\ndescription: d\nrevision: r\n", "loader 'magic' is not one of"),
    ("name: x\nloader: bow\ndescription: d\nrevision: r\ncolour: red\n", "unknown field(s) ['colour']"),
    ("name: x\nloader: trained\ndescription: d\nrevision: r\nrecipe: {method: senticse}\n", "needs recipe.method"),
    ("name: x\nloader: random\ndescription: d\nrevision: r\ntraining_seeds: [1]\n", "needs a card trained here"),
    (TRAINED + "training_seeds: [1, 0]\n", "distinct seeds other than recipe.seed"),
    (TRAINED + "training_seeds: [1, 1]\n", "distinct seeds other than recipe.seed"),
    (TRAINED + "training_seeds: [-1]\n", "training_seeds.0"),
])
def test_malformed_cards_are_one_line_errors(tmp_path, text, message):
    path = tmp_path / "card.yaml"
    path.write_text(text)
    with pytest.raises(BenchError) as error:
        read_card(path)
    assert message in str(error.value) and "\n" not in str(error.value)


BILLION_LAUGHS = """name: lol
loader: random
description: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
revision: *i
"""


@pytest.mark.parametrize("text, message", [
    (BILLION_LAUGHS, "YAML alias '*a' at line 4: aliases are not allowed"),
    ("name: &n x\nloader: random\ndescription: *n\nrevision: r\n", "YAML alias '*n' at line 3"),
    ("name: x\nloader: random\ndescription: d\nrevision: r\nnotes: " + "[" * 40 + "]" * 40 + "\n",
     "nested deeper than 32 levels at line 5"),
    ("name: x\nloader: random\ndescription: d\nrevision: r\nname: y\n",
     "key 'name' appears twice in one mapping (line 5)"),
    ("name: x\nloader: random\ndescription: d\nrevision: r\nnotes: '" + "x" * 70_000 + "'\n", "larger than 64 KiB"),
    ("name: x\nloader: random\ndescription: d\nrevision: r\nnotes: '\x85\udcff'\n", "not UTF-8 text"),
])
def test_cards_are_parsed_under_limits_and_refused_in_one_line_fast(tmp_path, text, message):
    import time

    path = tmp_path / "card.yaml"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    started = time.perf_counter()
    with pytest.raises(BenchError) as error:
        read_card(path)
    assert time.perf_counter() - started < 0.5
    assert message in str(error.value) and "\n" not in str(error.value), str(error.value)


def test_a_billion_laughs_card_in_the_home_folder_stalls_nothing(tmp_path, monkeypatch, capsys):
    import time

    from sentibench.cli import main

    monkeypatch.setenv("SENTIBENCH_HOME", str(tmp_path))
    (tmp_path / "cards").mkdir()
    (tmp_path / "cards" / "lol.yaml").write_text(BILLION_LAUGHS)
    started = time.perf_counter()
    assert main(["card", "check", str(tmp_path / "cards" / "lol.yaml")]) == 2
    assert main(["list", "models"]) == 0
    assert time.perf_counter() - started < 5
    err = capsys.readouterr().err
    assert "aliases are not allowed" in err and "Traceback" not in err


def test_load_yaml_keeps_what_safe_load_gives_for_plain_documents(tmp_path):
    import yaml

    from sentibench.core.safe_yaml import load_yaml

    text = "a: 1\nb: [x, {c: 2.5, d: null}]\ne: 'text'\nf: true\n'1': one\n1: int one\n"
    (tmp_path / "plain.yaml").write_text(text)
    assert load_yaml(tmp_path / "plain.yaml") == yaml.safe_load(text)
    (tmp_path / "code.yaml").write_text("a: !!python/object/apply:os.system ['true']\n")
    with pytest.raises(ValueError, match="not valid YAML"):
        load_yaml(tmp_path / "code.yaml")


def test_a_card_with_training_seeds_stands_for_one_card_per_seed_with_only_the_seed_changed():
    cards = packaged_cards()
    main = cards["senticse-minilm"]
    assert main.training_seeds == [1, 2] and main.recipe["seed"] == 0
    for seed in (1, 2):
        variant = cards[f"senticse-minilm-seed{seed}"]
        assert variant.recipe == {**main.recipe, "seed": seed} and variant.revision == main.revision
        assert variant.training_seeds == [] and variant.pooling == main.pooling
    assert "senticse-minilm-seed0" not in cards and "senticse-minilm-alpha0-seed1" not in cards
    trained = dataclasses.replace(main, checkpoint="/checkpoints/senticse-minilm")  # what `trained.prepare` does
    assert trained.training_seeds == [1, 2]


def test_a_seed_variant_that_takes_another_cards_name_is_refused(tmp_path, monkeypatch):
    from sentibench.models.catalog import cards

    (tmp_path / "x.yaml").write_text(TRAINED + "training_seeds: [1]\n")
    (tmp_path / "x-seed1.yaml").write_text(TRAINED.replace("name: x", "name: x-seed1"))
    monkeypatch.setattr(cards, "PACKAGED_CARDS", tmp_path)
    cards._packaged.cache_clear()
    try:
        with pytest.raises(BenchError, match="'x-seed1' is also .*x-seed1.yaml"):
            cards.packaged_cards()
    finally:
        cards._packaged.cache_clear()
