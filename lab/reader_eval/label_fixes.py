"""Reviewed corrections of train-photo labels: dice whose labelled value the photo plainly
contradicts, and dice labelled two ways in two photos of one throw. Each was looked at by eye
at full size, after a reader read it another way. A die the photo shows plainly gets the value
it shows; a die whose labels contradict each other, where neither photo settles it, is marked
ignore (`seen` None): it counts neither way in any figure and is taught as nothing.

Why: `decide` refuses a network or a rule that makes one more held-out die sure and wrong, and a
die that is labelled wrong is "wrong" whenever it is read right. Three such labels decided
verdicts on their own. The training scripts read the same corrections, so the networks never
learn a wrong label either.

Only `train` photos are corrected. A `test` split is read exactly as its manifest gives it: the
bench's figures must not depend on anything chosen after looking at them. A fix names the value
it replaces, so a manifest that changed under it is noticed instead of silently "fixed".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class LabelFix:
    set_name: str  # the photo set's folder under dice-photos/
    image: str  # the photo as its manifest names it
    die: int  # the die's index in the photo's labels
    labelled: int  # the value the manifest gives
    seen: int | None  # the value the photo shows; None: no value can be trusted, the die is ignored
    why: str  # what the photo shows


LABEL_FIXES = (
    LabelFix("rune55", "images/train/00075_jpg_4a34f9b7.jpg", 0, 5, 1,
             "a white die with one large ringed pip in the middle of its top face"),
    LabelFix("rune55", "images/train/00077_jpg_1ba5c681.jpg", 2, 3, 5,
             "a see-through die at the bottom edge: four corner pips and a middle one"),
    LabelFix("nell-byler", "images/train/IMG_20191209_095439.jpg", 9, 5, 4,
             "a purple die between a red 4 and a red 6: four pips, none in the middle"),
    # One throw of 32 dice photographed twice, two seconds apart, from two sides of the tray
    LabelFix("rune55", "images/train/PXL_20240219_192104357_jpg_6f7cf25f.jpg", 1, 2, None,
             "a pink, blue and purple marbled die with gold pips below the white marbled one: one pip "
             "a little off its face's middle and no second one to be seen; labelled 1 in the photo "
             "two seconds later (PXL_20240219_192106262), which shows the same"),
    LabelFix("rune55", "images/train/PXL_20240219_192106262_jpg_30f0db83.jpg", 30, 1, None,
             "the same marbled die, seen lower: one gold pip on its top face, a little off the middle; "
             "labelled 2 in the photo two seconds earlier (PXL_20240219_192104357)"),
)

FINGERPRINT = "; ".join(f"{f.set_name}/{f.image}#{f.die}:{f.labelled}->{f.seen}" for f in LABEL_FIXES)
"""The fixes in force, in a line: the training scripts key their photo windows and checkpoints on it."""


def fixed_row(set_name: str, row: dict[str, Any], fixes: tuple[LabelFix, ...] | None = None) -> dict[str, Any]:
    """A manifest row with the fixes (default LABEL_FIXES) for its photo applied; the row itself
    when none applies. Raises ValueError when a fix no longer fits the row."""
    fixes = LABEL_FIXES if fixes is None else fixes
    if not isinstance(row, dict):
        return row  # not a photo: the manifest's reader says so
    mine = [f for f in fixes if f.set_name == set_name and f.image == row.get("image")]
    if not mine:
        return row
    where = f"{set_name}/{row.get('image')}"
    if row.get("split") != "train":
        raise ValueError(f"{where}: label fixes are for train photos only, this one is in {row.get('split')!r}")
    dice = [dict(d) for d in row.get("dice", [])]
    for fix in mine:
        if not 0 <= fix.die < len(dice) or int(dice[fix.die]["value"]) != fix.labelled:
            raise ValueError(f"{where}: die {fix.die} is no longer labelled {fix.labelled}; "
                             "review the fix against the new manifest")
        if fix.seen is None:
            dice[fix.die]["ignore"] = True
        else:
            dice[fix.die]["value"] = fix.seen
    return {**row, "dice": dice}
