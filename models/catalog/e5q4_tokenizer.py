"""XLM-R's SentencePiece tokenizer rebuilt from an E5S1 file's unigram vocabulary (`catalog.e5q4_file`), as a
`tokenizers` pipeline that transformers loads like any fast tokenizer.

What the file's engine does (e5.c `tok_content`), and our pipeline step for step:
1. each code point is replaced through the file's normalisation map (XLM-R's NFKC-based map, one code point at
   a time): NFKC, preceded by one `Replace` per replacement where the map is not NFKC (control characters
   deleted; tab, newline, zero-width and a few other spaces, U+2581 and U+FFFD made a space), and the code points
   the map keeps but NFKC changes (U+FF5E, fullwidth tilde, and letters newer than the map) carried through NFKC
   as private-use stand-ins (U+F0000 on) and put back after it;
2. runs of spaces become one space (`Replace(" {2,}", " ")`);
3. a space is prepended unless the text starts with one, and every space becomes U+2581 (`Metaspace`, prepend
   "always"; no piece holds U+2581 past its first character, so splitting on it changes nothing);
4. the Viterbi best segmentation under the pieces' scores, a character that no piece covers scoring the lowest
   piece score minus 10 (`tokenizers`' `Unigram` does the same);
5. `<s> ... </s>` around the pieces.

Where the two can differ (measured against the engine's `e5_token_count` in docs/multilingual-e5.md): NFKC
composes a base letter with a following combining mark (as XLM-R's own SentencePiece normaliser does), the
engine's map does not; `Unigram` fuses a run of unknown characters into one `<unk>`, the engine emits one per
character.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping

from sentibench.core.errors import BenchError
from sentibench.models.catalog.e5q4_file import E5Q4File

STAND_INS = 0xF0000  # the first private-use code point of plane 15 (NFKC leaves it alone)
SPECIAL_TOKENS = {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>", "sep_token": "</s>",
                  "cls_token": "<s>", "pad_token": "<pad>", "mask_token": "<mask>"}


def nfkc_exceptions(normalization: Mapping[int, str]) -> dict[str, list[int]]:
    """The map's entries that NFKC of the code point does not give, grouped by their replacement."""
    groups: dict[str, list[int]] = {}
    for code_point, replacement in sorted(normalization.items()):
        if unicodedata.normalize("NFKC", chr(code_point)) != replacement:
            groups.setdefault(replacement, []).append(code_point)
    return groups


def map_keeps_but_nfkc_changes(normalization: Mapping[int, str]) -> list[int]:
    """Code points the map leaves as they are but NFKC (Python's Unicode version) changes."""
    return [cp for cp in range(0x110000) if not 0xD800 <= cp < 0xE000 and cp not in normalization
            and unicodedata.normalize("NFKC", chr(cp)) != chr(cp)]


def _character_class(code_points: list[int]) -> str:
    return "[" + "".join(f"\\x{{{cp:X}}}" for cp in code_points) + "]"


def build_tokenizer(model_file: E5Q4File, max_length: int):
    """A `PreTrainedTokenizerFast` equal to the engine's tokenizer (module docstring) for `model_file`."""
    from tokenizers import Regex, Tokenizer, decoders, normalizers, pre_tokenizers, processors
    from tokenizers.models import Unigram
    from transformers import PreTrainedTokenizerFast

    ids = model_file.special_ids
    expected = {"bos": "<s>", "pad": "<pad>", "eos": "</s>", "unk": "<unk>"}
    for key, piece in expected.items():
        if model_file.pieces[ids[key]] != piece:
            raise BenchError(f"the E5S1 file's {key} id {ids[key]} is '{model_file.pieces[ids[key]]}', not '{piece}'")
    vocabulary = [(piece, float(score)) for piece, score in zip(model_file.pieces, model_file.scores, strict=True)]
    tokenizer = Tokenizer(Unigram(vocabulary, unk_id=ids["unk"], byte_fallback=False))
    kept = map_keeps_but_nfkc_changes(model_file.normalization)
    tokenizer.normalizer = normalizers.Sequence(
        [normalizers.Replace(Regex(_character_class(points)), replacement)
         for replacement, points in nfkc_exceptions(model_file.normalization).items()]
        + [normalizers.Replace(chr(cp), chr(STAND_INS + i)) for i, cp in enumerate(kept)]
        + [normalizers.NFKC()]
        + [normalizers.Replace(chr(STAND_INS + i), chr(cp)) for i, cp in enumerate(kept)]
        + [normalizers.Replace(Regex(" {2,}"), " ")])
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always", split=True)
    tokenizer.decoder = decoders.Metaspace(replacement="\u2581", prepend_scheme="always", split=True)
    tokenizer.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>",
        special_tokens=[("<s>", ids["bos"]), ("</s>", ids["eos"])])
    return PreTrainedTokenizerFast(tokenizer_object=tokenizer, model_max_length=max_length, **SPECIAL_TOKENS)
