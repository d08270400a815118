"""Whether a training recipe may replace the shipped networks, judged over several of its seeds.

    python -m lab.reader_eval.decide --against BEFORE.json --detector SEED0.onnx --keep SEED0.json
    python -m lab.reader_eval.decide --against BEFORE.json --detector SEED1.onnx --keep SEED1.json
    python -m lab.reader_eval.recipe --against BEFORE.json SEED0.json SEED1.json

One recipe trained with two seeds reads some held-out sets several dice apart (FINDINGS.md,
"How far one detector seed is from the next"), more than the one die a set may lose under
`decide`'s standing rule, so a verdict on one seed is mostly that seed's draw. This judges the
recipe instead, by the same gates split in two:
  * dice scored without asking, dice read right and photos asked about, on the mean of the
    seeds: the recipe reads no worse on average, which no single lucky or unlucky seed decides;
  * the sure side (sure but wrong dice, sure dice on the no-dice pictures), on every seed alone:
    the device runs one network file, not a mean, and a wrong score read surely is the one mistake
    the bar does not forgive, so no seed may be less safe than the shipped pair.
When the recipe passes, the seed that ships is the one with the most held-out dice right (then
the fewest photos asked about): `decide`'s pictures may choose it, since the bench's test splits
never did. Reads no picture: it only compares figures `decide` wrote.

A fine-tuning moves the shipped network whatever it teaches (FINDINGS.md, "A fine-tuning taught
nothing new"), so a lesson is also judged against a control, the same command without the lesson,
over the same seeds: `--against CONTROL0.json --against CONTROL1.json` judges the recipe against the
mean of the control's seeds.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable

from lab.reader_eval.decide import Figures, count, load_saved, reading_failures, right_dice, sure_failures

MIN_SEEDS = 2
RECIPE_GATES = (
    "the mean over the seeds passes decide's gates on dice scored without asking, dice read right and photos "
    "asked about",
    "every seed alone passes decide's gates on sure but wrong dice and sure dice on the no-dice pictures",
)


def mean_summaries(summaries: list[dict]) -> dict:
    """The mean of each number of a set's summaries (one per seed); the tables within are left out."""
    return {key: sum(s[key] for s in summaries) / len(summaries) for key, value in summaries[0].items()
            if isinstance(value, (int, float))}


def mean_figures(seeds: list[Figures]) -> Figures:
    """The figures of a recipe's seeds, each the mean over the seeds (counts become fractions)."""
    first = seeds[0]
    return Figures(
        {name: mean_summaries([s.held_out[name] for s in seeds]) for name in first.held_out},
        {seed: mean_summaries([s.synthetic[seed] for s in seeds]) for seed in first.synthetic},
        {seed: sum(s.negatives[seed] for s in seeds) / len(seeds) for seed in first.negatives},
        sum(s.median_ms for s in seeds) / len(seeds),
        worse={name: mean_summaries([s.worse[name] for s in seeds]) for name in first.worse},
        unseen={seed: mean_summaries([s.unseen[seed] for s in seeds]) for seed in first.unseen})


def photos_asked(figures: Figures) -> float:
    return sum(r["asked"] for r in figures.held_out.values())


def recipe_verdict(shipped: Figures, seeds: dict[str, Figures]) -> list[str]:
    """The gates of RECIPE_GATES the recipe fails, each seed's sure-side failures named by its
    file; none when it passes."""
    failed = [f"mean of the seeds: {failure}" for failure in reading_failures(shipped, mean_figures(list(seeds.values())))]
    for name, figures in seeds.items():
        failed += [f"{name}: {failure}" for failure in sure_failures(shipped, figures)]
    return failed


def chosen_seed(seeds: dict[str, Figures]) -> str:
    """The seed that ships when the recipe passes: the most held-out dice right, then the fewest
    held-out photos asked about, then the first given."""
    return min(seeds, key=lambda name: (-right_dice(seeds[name]), photos_asked(seeds[name])))


def table(shipped: Figures, seeds: dict[str, Figures]) -> str:
    """Per die and photos asked about on each held-out set and synthetic seed (game and unseen looks), the sure side and
    the no-dice pictures: the shipped pair, every seed, their mean and their spread."""
    names = list(seeds)
    mean = mean_figures(list(seeds.values()))
    columns = ["against"] + names + ["mean", "spread"]
    width = max(16, *(len(c) for c in columns))
    lines = [f"{'per die % / asked %':<24}" + "".join(f"{c:>{width + 2}}" for c in columns)]

    def cells(summaries: list[dict], key: str, scale: float, fmt: str) -> list[str]:
        values = [scale * s[key] for s in summaries]
        seed_values = values[1:-1]
        return [format(v, fmt) for v in values] + [format(max(seed_values) - min(seed_values), fmt)]

    def row(label: str, summaries: list[dict]) -> str:
        accuracy = cells(summaries, "accuracy", 100, ".2f")
        asked = cells(summaries, "asked_rate", 100, ".1f")
        return f"{label:<24}" + "".join(f"{a + ' / ' + b:>{width + 2}}" for a, b in zip(accuracy, asked))

    for name in shipped.held_out:
        lines.append(row(f"held-out {name}", [shipped.held_out[name]] + [seeds[n].held_out[name] for n in names]
                         + [mean.held_out[name]]))
    for name in shipped.worse:
        lines.append(row(f"worse {name}", [shipped.worse[name]] + [seeds[n].worse[name] for n in names]
                         + [mean.worse[name]]))
    for seed in shipped.synthetic:
        lines.append(row(f"synthetic seed {seed}", [shipped.synthetic[seed]]
                         + [seeds[n].synthetic[seed] for n in names] + [mean.synthetic[seed]]))
    for seed in shipped.unseen:
        lines.append(row(f"unseen looks seed {seed}", [shipped.unseen[seed]]
                         + [seeds[n].unseen[seed] for n in names] + [mean.unseen[seed]]))

    def totals(label: str, of: Callable[[Figures], float]) -> str:
        values = [of(shipped)] + [of(seeds[n]) for n in names] + [of(mean)]
        spread = max(values[1:-1]) - min(values[1:-1])
        return f"{label:<24}" + "".join(f"{count(v):>{width + 2}}" for v in values + [spread])

    lines.append(totals("held-out right dice", right_dice))
    lines.append(totals("held-out scored unasked", lambda f: sum(r["sure_right"] for r in f.held_out.values())))
    lines.append(totals("held-out sure and wrong", lambda f: sum(r["sure_wrong"] for r in f.held_out.values())))
    lines.append(totals("worse copies sure and wrong", lambda f: sum(r["sure_wrong"] for r in f.worse.values())))
    lines.append(totals("synthetic sure and wrong", lambda f: sum(r["sure_wrong"] for r in f.synthetic.values())))
    if shipped.unseen:
        lines.append(totals("unseen looks sure, wrong", lambda f: sum(r["sure_wrong"] for r in f.unseen.values())))
    lines.append(totals("no-dice sure dice", lambda f: sum(f.negatives.values())))
    return "\n".join(lines)


def figures_on(path: Path, pictures: dict, first: Path) -> Figures:
    """The figures `decide` wrote to `path`; ValueError unless measured on the same `pictures` as `first`'s."""
    measured_on, figures = load_saved(path)
    if measured_on != pictures:
        raise ValueError(f"{path}: measured on other pictures than {first} ({measured_on} against {pictures})")
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lab.reader_eval.recipe", description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, required=True, action="append", metavar="FILE",
                        help="the shipped pair's figures, written by decide --save; given again for each seed "
                             "of a control (figures written by decide --keep), judged against as their mean")
    parser.add_argument("seeds", type=Path, nargs="+", metavar="SEED.json",
                        help=f"each seed's figures, written by decide --keep ({MIN_SEEDS} or more)")
    args = parser.parse_args(argv)
    if len(args.seeds) < MIN_SEEDS:
        parser.error(f"a recipe is judged over {MIN_SEEDS} seeds or more; one seed alone is decide's verdict")
    try:
        pictures, shipped = load_saved(args.against[0])
        controls = [shipped]
        for path in args.against[1:]:
            controls.append(figures_on(path, pictures, args.against[0]))
        shipped = mean_figures(controls) if len(controls) > 1 else shipped
        seeds = {}
        for path in args.seeds:
            seeds[path.stem] = figures_on(path, pictures, args.against[0])
    except ValueError as error:
        print(f"recipe: {error}", file=sys.stderr)
        return 2
    if len(seeds) < len(args.seeds):
        print("recipe: two seed files share a name; give each seed's figures a name of its own", file=sys.stderr)
        return 2
    failed = recipe_verdict(shipped, seeds)
    print(table(shipped, seeds))
    print("the rule over seeds: " + "; ".join(RECIPE_GATES))
    if failed:
        print("verdict: fails: " + "; ".join(failed))
    else:
        print(f"verdict: passes; the seed that ships: {chosen_seed(seeds)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
