"""Issue 29's tracebacks and wrong successes: each is a one-line error (user text shown escaped) or a
correct result."""

from __future__ import annotations

import pytest

from sentibench.cli import main, printable


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_compare_of_a_model_with_itself_is_refused(tmp_path, capsys):
    (tmp_path / "results").mkdir()
    code, out, err = run_cli(capsys, "compare", "random", "random", "--results", str(tmp_path / "results"))
    assert code == 2 and out == "" and err == "error: compare needs two different models; got 'random' twice\n"


def test_leaderboard_of_an_empty_folder_writes_nothing(tmp_path, capsys):
    (tmp_path / "results").mkdir()
    board = tmp_path / "leaderboard.md"
    code, _, err = run_cli(capsys, "leaderboard", "--results", str(tmp_path / "results"), "--output", str(board))
    assert code == 2 and "no results under" in err and err.count("\n") == 1 and not board.exists()


@pytest.mark.parametrize("name, shown", [("bell\x07x", "bell\\x07x"), ("rlo\u202ex", "rlo\\u202ex"),
                                         ("two\nlines", "two\\nlines")])
def test_a_card_named_with_control_characters_is_refused_and_shown_escaped(tmp_path, capsys, monkeypatch,
                                                                           name, shown):
    import yaml

    monkeypatch.setenv("SENTIBENCH_HOME", str(tmp_path))
    card = tmp_path / "cards" / "odd.yaml"
    card.parent.mkdir()
    card.write_text(yaml.safe_dump({"name": name, "loader": "random", "description": "d", "revision": "r"}))
    code, _, err = run_cli(capsys, "card", "check", str(card))
    assert code == 2 and err.count("\n") == 1 and "must be printable" in err
    assert "\x07" not in err and "\u202e" not in err
    code, out, err = run_cli(capsys, "list", "models")
    assert code == 0 and name not in out and "\x07" not in out + err and "\u202e" not in out + err
    code, _, err = run_cli(capsys, "run", "-m", name, "-t", "sgts-mr", "--output-folder", str(tmp_path / "out"))
    assert code == 2 and err.count("\n") == 1 and shown in err, err


def test_printable_escapes_what_would_ring_reorder_or_break_a_line():
    assert printable("a\x07b\u202ec\nd\te é ü 中") == "a\\x07b\\u202ec\\nd\\te é ü 中"
    assert printable("plain text, 'quoted'") == "plain text, 'quoted'"


@pytest.mark.parametrize("margins", ["", ",", "nan", "-1", "0.1,x"])
def test_sweep_margins_that_are_no_numbers_are_one_line(tmp_path, capsys, margins):
    code, _, err = run_cli(capsys, "sweep", "polarity-st", "--base", "all-minilm-l6-v2", "--data", "mr",
                           "--margins", margins, "--render-only", "--output", str(tmp_path / "sweep"),
                           "--docs", str(tmp_path / "polarity.md"), "--figure", str(tmp_path / "p.png"))
    assert code == 2 and "--margins expects" in err and err.count("\n") == 1


def test_sweep_render_only_with_nothing_finished_says_so_and_writes_nothing(tmp_path, capsys):
    docs, figure = tmp_path / "polarity.md", tmp_path / "p.png"
    code, _, err = run_cli(capsys, "sweep", "polarity-st", "--base", "all-minilm-l6-v2", "--data", "mr",
                           "--render-only",
                           "--output", str(tmp_path / "sweep"), "--docs", str(docs), "--figure", str(figure))
    assert code == 2 and "no finished configuration under" in err and err.count("\n") == 1
    assert not docs.exists() and not figure.exists()


@pytest.mark.parametrize("base, message", [
    ("nope,,,", "error: an empty name in 'nope,,,': give comma-separated names without empty entries\n"),
    ("all-minilm-l6-v2,", "error: an empty name in 'all-minilm-l6-v2,': give comma-separated names without empty "
                          "entries\n"),
    (",", "error: no name given in ',': give comma-separated names\n"),
    ("nope", "error: unknown model 'nope'. See `bench list models`.\n"),
    ("./nowhere", "error: model folder './nowhere' does not exist\n"),
])
def test_sweep_bases_that_name_no_model_are_one_line_before_anything_runs(tmp_path, capsys, base, message):
    docs, figure = tmp_path / "polarity.md", tmp_path / "p.png"
    code, _, err = run_cli(capsys, "sweep", "polarity-st", "--base", base, "--data", "mr", "--render-only",
                           "--output", str(tmp_path / "sweep"), "--docs", str(docs), "--figure", str(figure))
    assert (code, err) == (2, message) and not docs.exists() and not figure.exists()


def test_list_models_and_its_warnings_show_a_cards_control_characters_escaped(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SENTIBENCH_HOME", str(tmp_path))
    cards = tmp_path / "cards"
    cards.mkdir()
    (cards / "mine.yaml").write_text('name: mine\nloader: random\ndescription: d\nrevision: "r\\e[2J\\a"\n'
                                     'training_data: ["x\\u202ey"]\n')
    (cards / "bad\x1b[2J.yaml").write_text("name: [oops\n")
    code, out, err = run_cli(capsys, "list", "models")
    assert code == 0
    assert "r\\x1b[2J\\x07" in out and "x\\u202ey" in out  # the revision and training data, escaped
    assert "warning: skipping model card " in err and "bad\\x1b[2J.yaml" in err and err.count("\n") == 1
    assert not [c for c in out + err if not c.isprintable() and c != "\n"]
