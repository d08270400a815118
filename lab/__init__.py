"""The lab: what develops and measures the device, never shipped to the Pi.

The device's packages (`engine`, `vision`, `hardware`, `firmware`) never import the lab;
the lab drives them. Only the command line (`cli.demo`, `cli.run --player`),
the bench commands (`cli.bench`), the training scripts and the tests import it.

- `synth/`: seeded synthetic photos of dice with exact labels (`python -m lab.synth`).
- `sessions/`: synthetic camera sessions with ground truth (`synth`), their throw scripts
  (`script`), dice motion (`motion`) and the truth the tracker is scored against (`truth`).
- `reader_eval/`: the reader's evaluation helpers (matching against labels, the suite, the
  detector's and classifier's figures).
- `fuzz_inputs`: hostile files and arrays for `cubilete bench fuzz`.
- `scripted_game`, `autoplayer`, `demo`: a whole game played through the real service from a
  synthetic session with scripted or simulated button presses (`cubilete demo`).
- `soak`, `soak_game`, `soak_log`, `soak_service`: SIGKILL the service over whole games
  (`python -m lab.soak`).

Packaging: the lab is its own distribution (`lab/pyproject.toml`, `cubilete-lab`), which
`make demo` and `make test` install beside the device's (`cubilete`, the root
`pyproject.toml`); `systemd/install.sh` installs only the device's on the Pi.
"""
