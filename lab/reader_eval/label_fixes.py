"""Reviewed corrections of train-photo labels: dice whose labelled value the photo plainly
contradicts, and dice labelled two ways in two photos of one throw. Each was looked at by eye
at full size, after a reader read it another way. A die the photo shows plainly gets the value
it shows; a die whose labels contradict each other, where neither photo settles it, is marked
ignore (`seen` None): it counts neither way in any figure and is taught as nothing.

A die the labels leave out altogether (`MISSING_DICE`) is added to its photo: without it, a
reading of that die is matched to the labelled die next to it when it lies within that die's
matching circle (`lab.reader_eval.evaluate`), and is scored as that die read wrong. It gets the
value its face plainly shows, or is ignored when the face cannot be read whole. The photo's
count (its labelled dice, ignored ones too, as the bench and `decide` tell the reader) grows by
one: the die is there.

Besides single dice, whole photos are set aside (`UNTRUSTED_PHOTOS`) where a set's labels follow
another rule than the game's: rune55's low side views label the face turned to the camera, not
the top face that scores (its SOURCE.md), so every die in them is ignored. Each photo of that
setup among the train photos was picked out by eye.

Why: `decide` refuses a network or a rule that makes one more held-out die sure and wrong, and a
die that is labelled wrong is "wrong" whenever it is read right. Three such labels decided
verdicts on their own. The training scripts read the same corrections, so the networks never
learn a wrong label either.

Only `train` photos are corrected. A `test` split is read exactly as its manifest gives it: the
bench's figures must not depend on anything chosen after looking at them. A fix names the value
it replaces, so a manifest that changed under it is noticed instead of silently "fixed".
"""

from __future__ import annotations

import hashlib
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


@dataclass(frozen=True)
class MissingDie:
    set_name: str
    image: str
    box: tuple[float, float, float, float]  # x0, y0, x1, y1 around its top face, in the photo's pixels
    seen: int | None  # the value the photo shows; None: its face cannot be read whole, the die is ignored
    why: str  # what the photo shows

    def as_label(self) -> dict[str, Any]:
        """The die as a manifest's die (an ignored die has no value to give: 0)."""
        if self.seen is None:
            return {"value": 0, "box": list(self.box), "ignore": True}
        return {"value": self.seen, "box": list(self.box)}


MISSING_DICE = (
    MissingDie("dice3", "images/train/dice_4_jpg_1c4967a0.jpg", (405.0, 285.0, 515.0, 395.0), None,
               "a white die behind the labelled purple 1, most of its top face hidden by it: two pips seen, "
               "one at the face's far edge and one in its middle; a reading of it falls inside the 1's "
               "matching circle and was scored as the 1 read wrong"),
)


@dataclass(frozen=True)
class UntrustedPhotos:
    set_name: str
    why: str  # what the photos show, and why their labels cannot be read as top faces
    images: tuple[str, ...]  # the photos as the manifest names them

    def holds(self, set_name: str, image: object) -> bool:
        return set_name == self.set_name and image in self.images


TRAIN = "images/train/"
UNTRUSTED_PHOTOS = (
    UntrustedPhotos(
        "rune55",
        "low side views of one to a few dice on a grey table, the camera a little above it: each box is "
        "around one face as seen, most often the face turned to the camera and sometimes the top face "
        "seen edge-on, and the value is that face's, so the label does not say which value scores",
        tuple(TRAIN + name for name in (
            "0u9xMiHr1Nvqlv9Wblme_jpg_8d5e8825.jpg", "2nLHs8jFh4scTPB8JqNf_jpg_72e978b5.jpg",
            "2qCO9vgUbp0Loar2XPmF_jpg_dd9e0f82.jpg", "2zlMGVd3DDu2iySrPoid_jpg_d2e56c62.jpg",
            "3sDmk65TaDR1kx2fa20Q_jpg_0d05845d.jpg", "4IUNrrLLzjsNTGfXk4bc_jpg_875fb074.jpg",
            "6yzTr2t1hiKuyZt2Jc35_jpg_5f9f4e6d.jpg", "8pjEGEkMDsjUnXsXC4Ay_jpg_007ed3f6.jpg",
            "AKYvOkMr5c4xXRkTjuMD_jpg_cb846247.jpg", "BXtBdBqh6oTj8J8msnla_jpg_1977f177.jpg",
            "DH4gKIqyq8ESPptzyW8l_jpg_48fc8acd.jpg", "EcjGKE6P4VwBNUMEJush_jpg_ad6e04b0.jpg",
            "F4tp1Qwj62qfKQwkr3gR_jpg_09e57f80.jpg", "FdK0RrLZAQvL0y2ppJ2F_jpg_0f4d1d06.jpg",
            "FicL1h8oQLQGwTD0I2lX_jpg_57c432d3.jpg", "Fnl6iOtCNELtVNctOmSt_jpg_23add56a.jpg",
            "Hrt56G2SyLE4wMESEhYU_jpg_07777a09.jpg", "IMG_0654_jpeg_jpg_534eccc3.jpg",
            "IMG_0655_jpeg_jpg_bde8289d.jpg", "IMG_0657_jpeg_jpg_20bf9f4d.jpg", "IMG_0662_jpeg_jpg_5f432a52.jpg",
            "IMG_0664_jpeg_jpg_80e12e3c.jpg", "IMG_0666_jpeg_jpg_04b82dae.jpg", "IMG_0667_jpeg_jpg_90bc777a.jpg",
            "IMG_0670_jpeg_jpg_552b8f42.jpg", "IMG_0674_jpeg_jpg_e214cea1.jpg", "IMG_0677_jpeg_jpg_5d63216a.jpg",
            "IMG_0681_jpeg_jpg_0941554b.jpg", "IMG_0684_jpeg_jpg_47caff84.jpg",
            "JuXcrqOCq2hdOzvYSMqc_jpg_aa87a6a9.jpg", "LQOPeaWFxQZtMLVDB2Q0_jpg_5f696d1d.jpg",
            "M1H8UdqMqDPe9mA9Pcnt_jpg_e72c01c8.jpg", "M49DlVfOBBTDRj6Gmu0A_jpg_08b7ce24.jpg",
            "MQgYXUjyBNQ2TnT0tbYe_jpg_18bc8567.jpg", "MftXba1u3hxw6DDL2fYg_jpg_384f7337.jpg",
            "MzgQ4ixDBWagGzTLlVAP_jpg_356ef46e.jpg", "OOxZN1qLkDLLFVHvySdT_jpg_4d9f3557.jpg",
            "OQJMVOCFqWThdGwQWwdG_jpg_33c3e2aa.jpg", "QPlYzvwMfYz64irq5Vk7_jpg_45a4b999.jpg",
            "QR8tRfx3aUd4VkV2Q2GN_jpg_06924026.jpg", "SSTcW9gK2BMI3uEicfBD_jpg_a44f1338.jpg",
            "THpN0PPs0xJhlElKvU0m_jpg_71c62e9b.jpg", "TqlOyJmnPJH4kQ7GPCtH_jpg_2277fbec.jpg",
            "TvqEdL2eL0rWLmOw5OHb_jpg_bcba22ef.jpg", "U4WCGOpAUZ00gmaYNNrT_jpg_123cf033.jpg",
            "UgAYJ1zPntD8tdSnO5VW_jpg_341cd0ea.jpg", "Ux8xSFtB5s9mwbdDZLFT_jpg_99da04fb.jpg",
            "V8LfZrkeYFAZ2NLa0eEk_jpg_1e6b88b5.jpg", "VtHXzkvWEUsFexmGnwPh_jpg_2c64219e.jpg",
            "W4OGoCIcz181Fuz8ZqOn_jpg_164306fa.jpg", "WOeURN95G2dvPHyHHiGe_jpg_30533d18.jpg",
            "WuFKPTqXqoCLKFi103Tf_jpg_7210b0ef.jpg", "X1zBtF31Qn4LrP4SpBFW_jpg_34bbafc9.jpg",
            "X9LDeFQNHyU21xK5T0k6_jpg_4ee83c8a.jpg", "XEY9fuIG5tGvxW66ImZA_jpg_c9b39a32.jpg",
            "YHPOcaCnjOf0V1iU0RS2_jpg_945ab032.jpg", "ZmT6iz6tHJIs82hloMf7_jpg_54c07260.jpg",
            "a6bYscjGlrdRIddqKmzB_jpg_74fcb1dd.jpg", "aGpIk6663H3vWCFmC33n_jpg_a300651c.jpg",
            "aPnJxkYTCO78TRYzLWGi_jpg_39836571.jpg", "b0iMxapIwZivjOTw9yiZ_jpg_186d50b5.jpg",
            "bFXzo2WVUROVNLXUIiou_jpg_2936da05.jpg", "bUrH2IrWh0M5vb5TmTpz_jpg_49318528.jpg",
            "fpO85HpRZ2Ff8VTt6yv9_jpg_dbe284f5.jpg", "i_jpg_01bfeb63.jpg", "i_jpg_0282be63.jpg",
            "i_jpg_02d34b1d.jpg", "i_jpg_03cd10ce.jpg", "i_jpg_06bc3f3c.jpg", "i_jpg_0aa9834a.jpg",
            "i_jpg_0ce7b9bc.jpg", "i_jpg_17155337.jpg", "i_jpg_1855d947.jpg", "i_jpg_2140bf02.jpg",
            "i_jpg_32010bfb.jpg", "i_jpg_3b05e23e.jpg", "i_jpg_50845f89.jpg", "i_jpg_57e287d6.jpg",
            "i_jpg_6275c0e1.jpg", "i_jpg_6f556a21.jpg", "i_jpg_830bacde.jpg", "i_jpg_8c11c295.jpg",
            "i_jpg_96f25539.jpg", "i_jpg_9d2e3742.jpg", "i_jpg_a9d4c044.jpg", "i_jpg_b0fbbab3.jpg",
            "i_jpg_b495e972.jpg", "i_jpg_b58728d1.jpg", "i_jpg_b6a6e2d9.jpg", "i_jpg_bea1265c.jpg",
            "i_jpg_c0c5033b.jpg", "i_jpg_cb8b158d.jpg", "i_jpg_d504ee04.jpg", "i_jpg_d512b4f2.jpg",
            "i_jpg_d8d2d925.jpg", "i_jpg_e27dec0e.jpg", "i_jpg_f26d6a33.jpg", "i_jpg_f69e4013.jpg",
            "mtTTnSj77y3QrumbL7nL_jpg_b5a096b4.jpg", "xax0VmUKJrDuLIyVDZUO_jpg_bf965dee.jpg",
        )),
    ),
)



def untrusted_key(photos: UntrustedPhotos) -> str:
    return f"{photos.set_name}: {len(photos.images)} photos untrusted ({hashlib.sha1(' '.join(photos.images).encode()).hexdigest()[:12]})"


FINGERPRINT = "; ".join([f"{f.set_name}/{f.image}#{f.die}:{f.labelled}->{f.seen}" for f in LABEL_FIXES]
                        + [f"{m.set_name}/{m.image}+{m.box}:{m.seen}" for m in MISSING_DICE]
                        + [untrusted_key(u) for u in UNTRUSTED_PHOTOS])
"""The fixes in force, in a line: the training scripts key their photo windows and checkpoints on it."""


def fixed_row(set_name: str, row: dict[str, Any], fixes: tuple[LabelFix, ...] | None = None,
              untrusted: tuple[UntrustedPhotos, ...] | None = None,
              missing: tuple[MissingDie, ...] | None = None) -> dict[str, Any]:
    """A manifest row with the fixes (default LABEL_FIXES) for its photo applied, the dice its
    labels leave out (default MISSING_DICE) added after its own, and every die ignored when the
    photo is untrusted (default UNTRUSTED_PHOTOS); the row itself when none applies. Raises
    ValueError when a fix no longer fits the row, or when the photo is both fixed or added to
    and untrusted (a fix there would go unchecked and unused)."""
    fixes = LABEL_FIXES if fixes is None else fixes
    untrusted = UNTRUSTED_PHOTOS if untrusted is None else untrusted
    missing = MISSING_DICE if missing is None else missing
    if not isinstance(row, dict):
        return row  # not a photo: the manifest's reader says so
    mine = [f for f in fixes if f.set_name == set_name and f.image == row.get("image")]
    added = [m.as_label() for m in missing if m.set_name == set_name and m.image == row.get("image")]
    set_aside = any(u.holds(set_name, row.get("image")) for u in untrusted)
    if not mine and not added and not set_aside:
        return row
    where = f"{set_name}/{row.get('image')}"
    if row.get("split") != "train":
        raise ValueError(f"{where}: label fixes are for train photos only, this one is in {row.get('split')!r}")
    if (mine or added) and set_aside:
        raise ValueError(f"{where}: the photo is both fixed and untrusted; keep one of the two")
    dice = [dict(d) for d in row.get("dice", [])]
    if set_aside:
        return {**row, "dice": [{**d, "ignore": True} for d in dice]}
    for fix in mine:
        if not 0 <= fix.die < len(dice) or int(dice[fix.die]["value"]) != fix.labelled:
            raise ValueError(f"{where}: die {fix.die} is no longer labelled {fix.labelled}; "
                             "review the fix against the new manifest")
        if fix.seen is None:
            dice[fix.die]["ignore"] = True
        else:
            dice[fix.die]["value"] = fix.seen
    return {**row, "dice": dice + added}
