"""`lab.reader_eval.printed_words`: the printed-words probe reads both families of letters as the
bench reads them, on seeds of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from lab.reader_eval import printed_words
from lab.reader_eval.decide import DECISION_NEGATIVE_SEEDS
from lab.reader_eval.read_sets import read_negatives


def test_the_probe_reads_both_families_of_letters_on_seeds_no_decision_reads() -> None:
    assert printed_words.FAMILIES == {"OpenCV's faces": ("text", "headline"),
                                      "the lab's faces": ("lab-text", "lab-headline")}
    assert not set(printed_words.PROBE_SEEDS) & set(DECISION_NEGATIVE_SEEDS)


def test_its_table_gives_the_figures_the_bench_reads_family_by_family(capsys) -> None:
    assert printed_words.main(["--pictures", "6", "--seeds", "81"]) == 0
    # rows after the header and its rule, before the closing line: family in 17 columns, then the seed
    rows = {(line[17:23].strip(), line[:17].strip()): line.split()
            for line in capsys.readouterr().out.splitlines()[2:-1]}
    for family, kinds in printed_words.FAMILIES.items():
        bench = read_negatives(6, 81, kinds=kinds)
        one_seed, every_seed = rows[("81", family)], rows[("all", family)]
        found = [bench["sure_extras"], sum(bench["pictures_with_sure_dice_by_kind"].values()), bench["extras"],
                 bench["pictures_with_dice"]]
        assert [int(n) for n in one_seed[-5:-1]] == found
        assert [int(n) for n in every_seed[-4:]] == found  # one seed: the sum is that seed's
    assert any(int(rows[("81", family)][-3]) for family in printed_words.FAMILIES)  # letters give the detector finds


def test_a_model_it_cannot_load_is_named_and_nothing_is_read(tmp_path: Path, capsys) -> None:
    broken = tmp_path / "values.onnx"
    broken.write_bytes(b"not a network")
    assert printed_words.main(["--classifier", str(broken), "--pictures", "1"]) == 2
    captured = capsys.readouterr()
    assert f"printed_words: cannot load {broken}" in captured.err and captured.out == ""


def test_it_asks_for_a_picture_at_least() -> None:
    with pytest.raises(SystemExit):
        printed_words.main(["--pictures", "0"])
