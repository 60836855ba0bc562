"""InfoDCL's data: tweet cleaning and surrogate labels on fixture tweets (expected values written by hand),
the leakage filter, the NPMI matrix against a hand-computed fixture, and epoch-wise re-pairing."""

import math
from collections import Counter

import numpy as np
import pytest

from sentibench.core.errors import BenchError
from sentibench.models.methods.infodcl.corpus import ExtractionRules, clean_tweet, extract, final_hashtag, match_key
from sentibench.models.methods.infodcl.npmi import NpmiMatrix, build_npmi
from sentibench.models.methods.infodcl.pairs import epoch_pairs


@pytest.mark.parametrize("raw, cleaned", [
    ("RT @bob: Great  game tonight #NFL http://t.co/abc", "Great game tonight #NFL URL"),
    ("RT @a: RT @b: so tired of this #fail", "so tired of this #fail"),
    ("@united lost my bag again www.united.com #fail", "USER lost my bag again URL #fail"),
])
def test_cleaning_follows_c1(raw, cleaned):
    assert clean_tweet(raw) == cleaned


@pytest.mark.parametrize("cleaned, label", [
    ("Great game tonight #NFL URL", "nfl"),
    ("what a mess #deflategate. USER URL", "deflategate"),
    ("pats fans are upset #Patriots #DeflateGate!!", "deflategate"),
    ("an opinion about #deflategate and more words", None),   # hashtag not at the end
    ("a truncated tweet about the #Deflatäó_", None),          # hashtag cut off by truncation
    ("no hashtag here at all", None),
])
def test_final_hashtag(cleaned, label):
    assert final_hashtag(cleaned) == label


FIXTURE = [
    "RT @fan: The refs missed every call in that game #NFL http://t.co/1",   # nfl
    "Brady says he did nothing wrong with the balls #DeflateGate",            # deflategate
    "#deflategate again? Nobody cares about the footballs #deflategate",      # deflategate, both removed
    "Tom Brady press conference was a total joke today #Patriots #deflategate",  # deflategate (#patriots kept)
    "My flight got delayed three hours and nobody helped #fail",              # fail
    "Lost my luggage on this terrible airline again #fail http://t.co/2",     # fail
    "too short #fail",                                                        # < 5 words
    "Cannot believe the halftime show was that boring #NFL",                  # nfl
    "The whole weekend lineup looks amazing this year #coachella",           # rare label (1 < 2)
    "Watching the big game with friends tonight #NFL #Patriots",              # patriots
]


def test_extraction_on_fixture_tweets():
    corpus = extract(FIXTURE, rules=ExtractionRules(min_words=5, single_label=False, min_label_count=2))
    got = sorted(zip(corpus.texts, (corpus.label_names[y] for y in corpus.labels)))
    assert got == sorted([
        ("The refs missed every call in that game URL", "nfl"),
        ("Brady says he did nothing wrong with the balls", "deflategate"),
        ("again? Nobody cares about the footballs", "deflategate"),
        ("Tom Brady press conference was a total joke today #Patriots", "deflategate"),
        ("My flight got delayed three hours and nobody helped", "fail"),
        ("Lost my luggage on this terrible airline again URL", "fail"),
        ("Cannot believe the halftime show was that boring", "nfl"),
    ])
    assert corpus.label_names == ("deflategate", "fail", "nfl")  # frequency, then name; patriots (1) dropped
    stats = corpus.stats
    assert (stats.source, stats.with_label, stats.label_at_end, stats.enough_words, stats.frequent_label,
            stats.labels) == (10, 10, 10, 9, 7, 3)
    for text, label in zip(corpus.texts, corpus.labels):
        assert f"#{corpus.label_names[label]}" not in text.lower()


def test_the_papers_single_label_rule_drops_multi_hashtag_tweets():
    corpus = extract(FIXTURE, rules=ExtractionRules(min_words=5, single_label=True, min_label_count=2))
    assert corpus.stats.single_label == 8  # the two tweets with #Patriots besides their final hashtag go
    assert "Tom Brady press conference was a total joke today #Patriots" not in corpus.texts


def test_too_few_labels_is_a_one_line_error():
    with pytest.raises(BenchError, match="needs two or more"):
        extract(FIXTURE, rules=ExtractionRules(min_label_count=50))


def test_leakage_filter_catches_copies_retweets_and_other_links():
    held_out = ["The refs missed every call in that game #NFL http://t.co/999",   # same tweet, other link
                "@someone My flight got delayed three hours and nobody helped #fail",  # differs only by a mention
                "Cannot believe the halftime show was that boring",  # the surrogate text of a training tweet
                "#sports #tv"]                                       # no words: blocks nothing
    corpus = extract(FIXTURE, held_out, ExtractionRules(min_words=5, min_label_count=1))
    assert corpus.stats.held_out_matches == 3
    keys = {match_key(text) for text in held_out}
    assert match_key(FIXTURE[0]) in keys
    assert not any(text.startswith(("The refs missed", "My flight", "Cannot believe")) for text in corpus.texts)
    assert len(corpus.label_sets) == len(FIXTURE) - 3


def test_npmi_matches_a_hand_computed_fixture():
    # 8 tweets with >= 2 labels (the single-label ones are not counted), labels a, b, c, d
    sets = [{"a", "b"}] * 3 + [{"a", "c"}] * 2 + [{"b", "c"}] + [{"a", "b", "d"}] + [{"c", "d"}] + [{"a"}] * 5
    matrix = build_npmi(sets, ["a", "b", "c", "d"], min_count=2, min_ratio=0.3)
    n = 8
    f = {"a": 6, "b": 5, "c": 4, "d": 2}
    both = {("a", "b"): 4, ("a", "c"): 2, ("b", "c"): 1, ("a", "d"): 1, ("b", "d"): 1, ("c", "d"): 1}

    def npmi(x, y):
        p = both[(x, y)] / n
        return math.log(p / (f[x] / n * f[y] / n)) / -math.log(p)

    assert matrix.tweets == n
    w = dict(zip("abcd", matrix.weights))
    # (a, b): 4 >= 2 and >= 0.3 x 6 and 0.3 x 5 -> kept both ways; npmi = log(0.5 / (0.75 * 0.625)) / log 2 > 0
    assert w["a"][1] == pytest.approx(1 - npmi("a", "b")) and w["b"][0] == pytest.approx(1 - npmi("a", "b"))
    # (a, c): 2 >= 2; row a needs 0.3 x 6 = 1.8 (kept), row c needs 1.2 (kept); npmi < 0 -> weight 1
    assert npmi("a", "c") < 0 and w["a"][2] == 1.0 and w["c"][0] == 1.0
    assert ("a", "c", pytest.approx(npmi("a", "c")), 2) in matrix.kept
    # pairs seen once fall under min_count: unrelated
    assert w["b"][2] == w["c"][3] == w["a"][3] == 1.0
    assert [w[x][i] for i, x in enumerate("abcd")] == [1.0] * 4  # the diagonal is 1, never 0
    assert matrix.top_pairs(1) == [("a", "b", pytest.approx(npmi("a", "b")), 4)]


def test_npmi_ratio_filter_is_per_row_and_the_file_round_trips(tmp_path):
    sets = [{"big", "small"}] * 3 + [{"big", "x"}] * 47 + [{"x", "y"}] * 50
    matrix = build_npmi(sets, ["big", "small"], min_count=2, min_ratio=0.1)
    # N = 100, f(big) = 50, f(small) = 3, both = 3: row small keeps (3 >= 0.3), row big drops (3 < 5);
    # npmi = log(0.03 / (0.5 x 0.03)) / -log(0.03)
    assert matrix.weights[0][1] == 1.0
    assert matrix.weights[1][0] == pytest.approx(1 - math.log(2) / -math.log(0.03))
    path = tmp_path / "npmi.json"
    matrix.save(path)
    assert NpmiMatrix.load(path) == matrix and NpmiMatrix.load(path).sha256 == matrix.sha256
    path.write_text(path.read_text().replace('"min_count": 2', '"min_count": 3'))
    with pytest.raises(BenchError, match="sha256"):
        NpmiMatrix.load(path)


LABELS = [0] * 5 + [1] * 4 + [2] * 1 + [3] * 2


def test_re_pairing_uses_each_tweet_once_per_epoch_with_a_same_label_partner():
    for epoch in range(4):
        pairs = epoch_pairs(LABELS, seed=7, epoch=epoch)
        used = pairs.ravel().tolist()
        assert len(used) == len(set(used)) == 10  # 5 -> 4 used, 4, 1 -> 0, 2
        assert all(LABELS[a] == LABELS[p] and a != p for a, p in pairs)
        assert Counter(LABELS[i] for i in used) == {0: 4, 1: 4, 3: 2}


def test_re_pairing_is_deterministic_per_seed_and_changes_every_epoch():
    same = epoch_pairs(LABELS, seed=3, epoch=1)
    assert np.array_equal(same, epoch_pairs(LABELS, seed=3, epoch=1))
    partners = [{frozenset(p) for p in epoch_pairs(LABELS, seed=3, epoch=e).tolist()} for e in range(6)]
    assert len({frozenset(p) for p in partners}) > 1
    assert not np.array_equal(same, epoch_pairs(LABELS, seed=4, epoch=1))


def test_without_re_pairing_the_pairs_stay_and_only_their_order_changes():
    pairs = [{frozenset(p) for p in epoch_pairs(LABELS, seed=3, epoch=e, repair=False).tolist()} for e in range(5)]
    assert all(p == pairs[0] for p in pairs)
