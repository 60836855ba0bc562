import pytest

from sentibench.core.errors import BenchError
from sentibench.models.cards import all_cards, read_card


def test_packaged_cards_are_valid_and_complete():
    cards = all_cards()
    for name in ("all-minilm-l6-v2", "all-mpnet-base-v2", "paraphrase-minilm-l3-v2", "roberta-base",
                 "bert-base-uncased", "bow-tfidf-svd", "random"):
        assert name in cards
    for card in cards.values():
        assert card.embedding_size, card.name
        if card.loader not in ("bow", "random", "trained"):
            assert card.hub_id, f"{card.name} must name its hub id"
        for entry in card.registry:
            assert len(entry["sha256"]) == 64, f"{card.name}: registry files are pinned by sha256"


@pytest.mark.parametrize("text, message", [
    ("name: x\nloader: [unclosed", "not valid YAML at line 2"),
    ("- just\n- a list\n", "expected a mapping"),
    ("name: x\nloader: transformers\ndescription: d\n", "missing 'revision'"),
    ("name: x\nloader: magic\ndescription: d\nrevision: r\n", "loader 'magic' is not one of"),
    ("name: x\nloader: bow\ndescription: d\nrevision: r\ncolour: red\n", "unknown field(s) ['colour']"),
    ("name: x\nloader: trained\ndescription: d\nrevision: r\nrecipe: {method: senticse}\n", "needs recipe.method"),
])
def test_malformed_cards_are_one_line_errors(tmp_path, text, message):
    path = tmp_path / "card.yaml"
    path.write_text(text)
    with pytest.raises(BenchError) as error:
        read_card(path)
    assert message in str(error.value) and "\n" not in str(error.value)
