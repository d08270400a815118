"""`lab.reader_eval.decide`: a candidate network passes only when no gate of the standing rule
fails; `lab.reader_eval.profile`: where a reading's time goes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from lab.reader_eval import decide, label_fixes, worse_cameras
from lab.reader_eval.evaluate import LabelledDie, LabelledPhoto


def summary(accuracy: float, sure_wrong: int = 0, dice: int = 1000, asked: int = 10, photos: int = 100,
            guessed_right: int = 20) -> dict:
    """A set's figures: of its dice read right, `guessed_right` were asked about (their best guess
    right) and the rest scored without asking."""
    right = round(accuracy * dice)
    return {"accuracy": accuracy, "dice": dice, "right": right, "exact_rate": 0.5, "sure_wrong": sure_wrong,
            "sure_right": right - guessed_right, "photos": photos, "asked": asked, "asked_rate": asked / photos}


def figures(held: dict[str, dict], synthetic: dict[int, dict] | None = None, negatives: dict[int, int] | None = None
            ) -> decide.Figures:
    return decide.Figures(held, synthetic or {11: summary(0.97)}, negatives or {77: 5, 78: 5}, 20.0)


SHIPPED = figures({"a": summary(0.90, 2), "b": summary(0.95, 1)})


def test_a_candidate_no_worse_anywhere_passes() -> None:
    better = figures({"a": summary(0.92, 1), "b": summary(0.95, 2)}, negatives={77: 6, 78: 4})
    assert decide.verdict(SHIPPED, better) == []
    # a drop within the allowance on one set passes too, when the sets together lose nothing
    assert decide.verdict(SHIPPED, figures({"a": summary(0.898, 2), "b": summary(0.952, 1)})) == []


def test_one_more_photo_asked_about_on_a_small_set_is_within_the_allowance_two_are_not() -> None:
    shipped = figures({"small": summary(0.90, asked=10, photos=30), "big": summary(0.95)})
    one = figures({"small": summary(0.90, asked=11, photos=30), "big": summary(0.95, asked=12)})
    assert decide.verdict(shipped, one) == []
    two = figures({"small": summary(0.90, asked=12, photos=30), "big": summary(0.95)})
    assert decide.verdict(shipped, two) == ["photos asked about rose (points): held-out small 6.67"]


def test_one_die_lost_on_a_small_set_is_within_the_allowance_two_are_not() -> None:
    shipped = figures({"small": summary(120 / 129, dice=129), "big": summary(0.90)})
    one = figures({"small": summary(119 / 129, dice=129), "big": summary(0.901)})
    assert decide.verdict(shipped, one) == []
    two = figures({"small": summary(118 / 129, dice=129), "big": summary(0.903)})
    assert decide.verdict(shipped, two) == ["dice scored without asking dropped (points): held-out small 1.55"]


def test_guesses_flipped_on_asked_dice_count_only_in_the_pooled_dice_right() -> None:
    # two asked dice of a small set guessed wrong now: nothing scored silently changed
    shipped = figures({"small": summary(38 / 40, dice=40, guessed_right=5), "big": summary(0.90)})
    flipped = figures({"small": summary(36 / 40, dice=40, guessed_right=3), "big": summary(0.902)})
    assert decide.verdict(shipped, flipped) == []
    # not made up anywhere else, the held-out photos together read fewer dice right
    unmade = figures({"small": summary(36 / 40, dice=40, guessed_right=3), "big": summary(0.90)})
    assert decide.verdict(shipped, unmade) == ["right dice on the held-out photos fell from 938 to 936"]


def test_dice_no_longer_scored_silently_fail_though_every_guess_is_still_right() -> None:
    # two dice of a small set the shipped pair scored are asked about now, their guesses right:
    # per die nothing changed, and the two photos more asked about are within their allowance
    shipped = figures({"small": summary(38 / 40, dice=40, guessed_right=5, asked=10, photos=100),
                       "big": summary(0.90)})
    asking = figures({"small": summary(38 / 40, dice=40, guessed_right=7, asked=11, photos=100),
                      "big": summary(0.90)})
    assert decide.verdict(shipped, asking) == ["dice scored without asking dropped (points): held-out small 5.00"]


@pytest.mark.parametrize("candidate, failure", [
    (figures({"a": summary(0.896, 2), "b": summary(0.99, 0)}), "dice scored without asking dropped (points): held-out a 0.40"),
    (figures({"a": summary(0.90, 2), "b": summary(0.95, 1)}, synthetic={11: summary(0.96)}),
     "dice scored without asking dropped (points): synthetic 11 1.00"),
    (figures({"a": summary(0.899, 2), "b": summary(0.949, 1)}), "right dice on the held-out photos fell from 1850 to 1848"),
    (figures({"a": summary(0.93, 3), "b": summary(0.96, 1)}), "sure but wrong on the held-out pictures rose from 3 to 4"),
    (figures({"a": summary(0.90, 2), "b": summary(0.95, 1)}, synthetic={11: summary(0.97, 1)}),
     "sure but wrong on the synthetic pictures rose from 0 to 1"),
    (figures({"a": summary(0.90, 2), "b": summary(0.95, 1)}, negatives={77: 11, 78: 0}),
     "sure dice on the no-dice pictures rose from 10 to 11"),
    (figures({"a": summary(0.90, 2, asked=13), "b": summary(0.95, 1)}),
     "photos asked about rose (points): held-out a 3.00"),
    (figures({"a": summary(0.90, 2), "b": summary(0.95, 1)}, synthetic={11: summary(0.97, asked=30)}),
     "photos asked about rose (points): synthetic 11 20.00"),
])
def test_a_candidate_worse_on_any_gate_fails_and_says_where(candidate: decide.Figures, failure: str) -> None:
    assert decide.verdict(SHIPPED, candidate) == [failure]


def test_sure_mistakes_on_the_worse_copies_are_judged_like_those_on_the_photos() -> None:
    shipped = figures({"a": summary(0.90, 2)})
    shipped.worse = {"a": summary(0.80, 1)}
    safe = figures({"a": summary(0.90, 2)})
    safe.worse = {"a": summary(0.81, 0)}
    assert decide.verdict(shipped, safe) == []
    unsafe = figures({"a": summary(0.90, 2)})
    unsafe.worse = {"a": summary(0.80, 2)}
    assert decide.verdict(shipped, unsafe) == ["sure but wrong on the worse copies pictures rose from 1 to 2"]
    unsafe.worse = {"a": summary(0.79, 1)}
    assert decide.verdict(shipped, unsafe) == ["dice scored without asking dropped (points): worse copies a 1.00"]
    assert "worse a" in decide.table(shipped, unsafe)
    assert decide.Figures.from_json(json.loads(json.dumps(unsafe.to_json()))).worse == unsafe.worse


def test_scenes_of_unseen_looks_are_judged_like_the_game_scenes() -> None:
    shipped = figures({"a": summary(0.90, 2)})
    shipped.unseen = {11: summary(0.95, 1)}
    safe = figures({"a": summary(0.90, 2)})
    safe.unseen = {11: summary(0.951, 0)}
    assert decide.verdict(shipped, safe) == []
    unsafe = figures({"a": summary(0.90, 2)})
    unsafe.unseen = {11: summary(0.95, 2)}
    assert decide.verdict(shipped, unsafe) == ["sure but wrong on the unseen looks pictures rose from 1 to 2"]
    unsafe.unseen = {11: summary(0.94, 1)}
    assert decide.verdict(shipped, unsafe) == ["dice scored without asking dropped (points): unseen looks 11 1.00"]
    assert "unseen looks seed 11" in decide.table(shipped, unsafe)
    assert decide.Figures.from_json(json.loads(json.dumps(unsafe.to_json()))).unseen == unsafe.unseen
    # figures saved before the judge had them read as none
    old = unsafe.to_json()
    del old["unseen"]
    assert decide.Figures.from_json(old).unseen == {}


def test_decide_reads_the_scenes_again_with_dice_of_unseen_looks(tmp_path: Path) -> None:
    from lab import synth

    synth.write_manifest(tmp_path / "photos" / "scenes", n=10, seed=4243, split="train")  # 1 held out
    saved = tmp_path / "saved.json"
    assert decide.main(["--photos", str(tmp_path / "photos"), "--negatives", "1", "--synthetic", "2",
                        "--unseen", "2", "--worse", "0", "--save", str(saved)]) == 0
    data = json.loads(saved.read_text())
    assert data["pictures"]["unseen"] == 2
    unseen = data["figures"]["unseen"]
    assert sorted(unseen) == [str(s) for s in decide.DECISION_SYNTHETIC_SEEDS]
    assert all(u["photos"] == 2 for u in unseen.values())
    assert sum(key.startswith("unseen looks ") for key in data["figures"]["photos"]) == 4
    # an unseen scene is the game scene of its seed and number with other dice: as many dice counted
    photos = data["figures"]["photos"]
    compared = 0
    for key, outcomes in photos.items():
        if key.startswith("unseen looks 11/"):
            game = photos[key.replace("unseen looks", "synthetic")]
            compared += 1
            assert sum(outcomes[decide.COUNTED_DICE]) == sum(game[decide.COUNTED_DICE])
    assert compared == 2


def test_a_worse_copy_is_smaller_softer_and_the_same_every_time_with_its_labels_scaled(tmp_path: Path) -> None:
    import cv2

    rng = np.random.default_rng(3)
    photo = rng.integers(0, 255, (1200, 1600, 3), np.uint8)
    cv2.rectangle(photo, (700, 500), (820, 620), (255, 255, 255), -1)
    cv2.imwrite(str(tmp_path / "p.png"), photo)
    labelled = LabelledPhoto("p.png", "train", (LabelledDie(4, (700.0, 500.0, 820.0, 620.0)),))
    first = worse_cameras.write_worse_copies(tmp_path, [labelled], tmp_path / "a", copies=2)
    again = worse_cameras.write_worse_copies(tmp_path, [labelled], tmp_path / "b", copies=2)
    assert [p.image for p in first] == ["00000-0.png", "00000-1.png"]
    for one, other in zip(first, again):
        a, b = cv2.imread(str(tmp_path / "a" / one.image)), cv2.imread(str(tmp_path / "b" / other.image))
        assert np.array_equal(a, b) and one == other
        # read as the reader would (at most 640 px) and then shrunk further: the dice fewer pixels across
        factor = a.shape[1] / 1600
        assert worse_cameras.MIN_SIDE <= min(a.shape[:2]) and max(a.shape[:2]) <= 640 * worse_cameras.SHRINK[1] + 1
        (die,) = one.dice
        assert die.value == 4 and die.box == pytest.approx((700 * factor, 500 * factor, 820 * factor, 620 * factor),
                                                           rel=0.01)
        x0, y0, x1, y1 = (round(v) for v in die.box)
        assert a[y0 + 2:y1 - 2, x0 + 2:x1 - 2].mean() > a.mean()  # the white square is where its label says
    a0, a1 = (cv2.imread(str(tmp_path / "a" / p.image)) for p in first)
    assert a0.shape != a1.shape or not np.array_equal(a0, a1)  # each copy its own camera
    with pytest.raises(OSError, match="missing.png"):
        worse_cameras.write_worse_copies(tmp_path, [LabelledPhoto("missing.png", "train", ())], tmp_path / "c")


def test_without_a_candidate_or_with_an_unreadable_one_it_stops_with_a_clear_message(tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        decide.main([])
    assert stop.value.code == 2
    assert "give a candidate" in capsys.readouterr().err
    broken = tmp_path / "values.onnx"
    broken.write_bytes(b"not a network")
    assert decide.main(["--classifier", str(broken)]) == 2
    assert "cannot load the candidate" in capsys.readouterr().err


def test_the_pictures_read_otherwise_are_listed_the_dice_lost_first() -> None:
    shipped, candidate = figures({"a": summary(0.9)}), figures({"a": summary(0.9)})
    #                    right wrong missed extra sure-wrong asked
    shipped.photos = {"a/same.jpg": [5, 0, 0, 0, 0, 0], "a/gains.jpg": [3, 1, 1, 0, 0, 1],
                      "a/loses.jpg": [5, 0, 0, 0, 0, 0], "a/sure.jpg": [4, 1, 0, 0, 0, 1],
                      "synthetic 11/s.png": [2, 0, 0, 1, 0, 1], "a/only-shipped.jpg": [1, 0, 0, 0, 0, 0]}
    candidate.photos = {"a/same.jpg": [5, 0, 0, 0, 0, 0], "a/gains.jpg": [5, 0, 0, 0, 0, 0],
                        "a/loses.jpg": [3, 2, 0, 0, 0, 1], "a/sure.jpg": [4, 1, 0, 0, 1, 0],
                        "synthetic 11/s.png": [2, 0, 0, 0, 0, 0]}
    assert decide.changed_photos(shipped, candidate) == [
        "a/loses.jpg: right 5 -> 3, wrong 0 -> 2, asked 0 -> 1",
        "a/sure.jpg: sure wrong 0 -> 1, asked 1 -> 0",
        "synthetic 11/s.png: extra 1 -> 0, asked 1 -> 0",
        "a/gains.jpg: right 3 -> 5, wrong 1 -> 0, missed 1 -> 0, asked 1 -> 0"]
    assert "pictures read otherwise (4), the dice lost first:\n  a/loses.jpg" in decide.table(shipped, candidate)
    # figures saved before the photos were kept still load, and list none
    saved = shipped.to_json()
    del saved["photos"]
    assert decide.changed_photos(decide.Figures.from_json(saved), candidate) == []
    assert decide.Figures.from_json(json.loads(json.dumps(shipped.to_json()))).photos == shipped.photos


def test_the_profile_splits_a_reading_into_its_stages_and_puts_the_networks_back() -> None:
    from lab import synth
    from lab.reader_eval import profile
    from vision.reader import classifier, detector
    from vision.reader.reader import SCALE_LOOKS

    scene = synth.render(synth.random_scene(np.random.default_rng(5)))
    methods = (detector.DieDetector.detect, classifier.ValueNet.windows, classifier.ValueNet.logits)
    total, stages = profile.profile([scene.image, scene.image], [len(scene.labels)] * 2)
    assert set(stages.seconds) == {"detector", "cutting windows", "classifier network"}
    assert all(seconds > 0 for seconds in stages.seconds.values())
    assert sum(stages.seconds.values()) <= total + 1e-3
    # every die found was read at least once, and again at the other scales
    assert stages.windows >= 2 * (1 + len(SCALE_LOOKS)) * len(scene.labels) * 0.8
    assert (detector.DieDetector.detect, classifier.ValueNet.windows, classifier.ValueNet.logits) == methods


def test_a_change_of_the_readers_code_is_judged_against_saved_figures(tmp_path: Path, capsys,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from lab import synth
    from vision.reader import reader

    synth.write_manifest(tmp_path / "photos" / "scenes", n=30, seed=4242, split="train")  # 3 held out
    before = tmp_path / "before.json"
    pictures = ["--photos", str(tmp_path / "photos"), "--negatives", "1", "--synthetic", "0", "--unseen", "0"]
    assert decide.main(pictures + ["--save", str(before)]) == 0
    saved_figures = json.loads(before.read_text())["figures"]
    assert saved_figures["held_out"]["scenes"]["photos"] == 3
    assert saved_figures["worse"]["scenes"]["photos"] == 3 * worse_cameras.WORSE_COPIES
    capsys.readouterr()
    kept = tmp_path / "kept.json"
    assert decide.main(pictures + ["--against", str(before), "--keep", str(kept)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "verdict: passes"
    # --keep writes the candidate's figures as --save writes the shipped pair's, for lab.reader_eval.recipe
    (saved_on, saved), (kept_on, kept_figures) = decide.load_saved(before), decide.load_saved(kept)
    assert kept_on == saved_on and kept_figures.photos == saved.photos
    # a detector of several files averages their networks: the shipped one twice reads as once
    from vision.reader import detector
    twice = tmp_path / "twice.json"
    assert decide.main(pictures + ["--against", str(before), "--detector", str(detector.MODEL_PATH),
                                   str(detector.MODEL_PATH), "--keep", str(twice)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "verdict: passes"
    assert decide.load_saved(twice)[1].photos == saved.photos
    assert json.loads(twice.read_text())["networks"]["detector"] == f"{detector.MODEL_PATH}, {detector.MODEL_PATH}"
    # the sure and wrong dice are given out of the sure dice, a rate to weigh a difference of one by
    (held_out_row,) = [line for line in out.splitlines() if line.startswith("held-out scenes")]
    saved = json.loads(before.read_text())["figures"]["held_out"]["scenes"]
    assert f"{saved['sure_wrong']}/{saved['sure_right'] + saved['sure_wrong']} ->" in held_out_row

    # a change that asks about every die fails the rule, as a network that did would
    never_sure = reader.die_reading
    monkeypatch.setattr(reader, "die_reading", lambda *a, **k: reader.replace(never_sure(*a, **k), confidence=0.5))
    assert decide.main(pictures + ["--against", str(before)]) == 0
    assert "photos asked about rose (points): held-out scenes" in capsys.readouterr().out

    # a die read surely and wrong is named, photo and place, for a look by eye: a label can be wrong
    monkeypatch.setattr(reader, "die_reading", lambda *a, **k: reader.replace(
        never_sure(*a, **k), value=never_sure(*a, **k).value % 6 + 1, confidence=1.0, cocked=False))
    assert decide.main(pictures + ["--against", str(before)]) == 0
    out = capsys.readouterr().out
    listed = out.split("sure but wrong only with the candidate (look at them: a label can be wrong too):\n")[1]
    assert listed.startswith("  scenes/") and " read " in listed.splitlines()[0]
    assert "sure but wrong only with the shipped" not in out
    # ... and each held-out photo read otherwise is listed with what changed
    changed = out.split("pictures read otherwise (")[1].splitlines()
    assert changed[0] == f"{3 + 3 * worse_cameras.WORSE_COPIES}), the dice lost first:"
    assert sum(line.startswith("  scenes/") for line in changed) == 3
    assert sum(line.startswith("  worse scenes/") for line in changed) == 3 * worse_cameras.WORSE_COPIES

    # figures of other pictures are no baseline, nor figures read under other label fixes
    assert decide.main(["--photos", str(tmp_path / "photos"), "--negatives", "2", "--synthetic", "0",
                        "--unseen", "0", "--against", str(before)]) == 2
    assert "measured on other pictures" in capsys.readouterr().err
    manifest = tmp_path / "photos" / "scenes" / "manifest.jsonl"
    rows = [json.loads(line) for line in manifest.read_text().splitlines()]
    held_out = rows[9]  # every tenth train photo
    die = held_out["dice"][0]
    fix = label_fixes.LabelFix("scenes", held_out["image"], 0, die["value"], None, "labelled two ways")
    monkeypatch.setattr(label_fixes, "LABEL_FIXES", (fix,))
    assert decide.main(pictures + ["--against", str(before)]) == 2
    assert "measured on other pictures" in capsys.readouterr().err
    monkeypatch.undo()
    # ... nor figures saved under another OpenCV, which draws the synthetic and no-dice pictures
    monkeypatch.setattr(decide.cv2, "__version__", "0.0.1")
    assert decide.main(pictures + ["--against", str(before)]) == 2
    assert "measured on other pictures" in capsys.readouterr().err
    monkeypatch.undo()
    (tmp_path / "broken.json").write_text("{not json")
    assert decide.main(pictures + ["--against", str(tmp_path / "broken.json")]) == 2
    assert "not figures written by --save" in capsys.readouterr().err
    for other in (["--classifier", str(before)], ["--keep", str(kept)]):
        with pytest.raises(SystemExit):
            decide.main(pictures + ["--save", str(before), *other])


def test_photos_asked_about_count_only_among_photos_holding_a_counted_die(tmp_path: Path) -> None:
    # 30 photos of one die each, and 3 low side views whose every die is ignored (outcomes all 0)
    def read(asked_with_dice: int, asked_side_views: int) -> decide.Figures:
        photos = {f"r/{i}.jpg": [1, 0, 0, 0, 0, int(i < asked_with_dice)] for i in range(30)}
        photos |= {f"r/side{i}.jpg": [0, 0, 0, 0, 0, int(i < asked_side_views)] for i in range(3)}
        photos |= {f"worse r/{key.removeprefix('r/')}": row for key, row in photos.items()}
        asked = asked_with_dice + asked_side_views
        held = summary(1.0, dice=30, asked=asked, photos=33, guessed_right=10)
        return decide.Figures({"r": held}, {11: summary(0.97)}, {77: 0}, 20.0, photos=photos,
                              worse={"r": dict(held)})

    shipped = decide.asked_where_dice_count(read(asked_with_dice=10, asked_side_views=0))
    assert shipped.held_out["r"]["photos"] == 30 and shipped.held_out["r"]["asked"] == 10
    assert shipped.worse["r"]["asked_rate"] == pytest.approx(10 / 30, abs=1e-4)
    # asking about the side views, where the labels say no scoring face, is neither right nor wrong
    assert decide.verdict(shipped, decide.asked_where_dice_count(read(10, asked_side_views=3))) == []
    # two more photos with dice asked about fail as before (2 of 30: 6.67 points)
    assert decide.verdict(shipped, decide.asked_where_dice_count(read(12, 0))) == [
        "photos asked about rose (points): held-out r 6.67, worse copies r 6.67"]
    # figures kept before the rule are judged the same way when read again
    saved = tmp_path / "kept.json"
    saved.write_text(decide.saved_figures_json({"photos": "p"}, read(10, 3)))
    _, again = decide.load_saved(saved)
    assert (again.held_out["r"]["photos"], again.held_out["r"]["asked"]) == (30, 10)
    assert decide.asked_where_dice_count(again) == again


def test_the_classifier_bench_s_held_out_photos_of_joined_networks_are_those_none_of_them_fitted_on(
        tmp_path: Path) -> None:
    from lab.reader_eval import classifier_bench
    from vision.reader import classifier

    shipped = classifier.MODEL_PATH
    meta = json.loads(shipped.with_suffix(".json").read_text())
    partners = {"files": ["draw.onnx", "other.onnx"], "temperature": 0.8}
    for name, held, joined in (("main", ["a/1.jpg", "a/2.jpg", "c/4.jpg"], partners),
                               ("draw", ["a/2.jpg", "b/3.jpg", "c/4.jpg"], None),
                               ("other", ["a/1.jpg", "a/2.jpg", "b/3.jpg"], None)):
        (tmp_path / f"{name}.onnx").write_bytes(shipped.read_bytes())
        trained = {**meta["trained"], "held_out_photos": held}
        (tmp_path / f"{name}.json").write_text(json.dumps({**meta, "trained": trained} |
                                                          ({"partners": joined} if joined else {})))
    assert classifier_bench.held_out_photos(tmp_path / "main.onnx") == {"a/2.jpg"}
    assert classifier_bench.held_out_photos(tmp_path / "draw.onnx") == {"a/2.jpg", "b/3.jpg", "c/4.jpg"}
