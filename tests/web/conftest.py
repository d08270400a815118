"""Fixtures of the scoreboard's tests: a recorded game in a state directory, and the service
running on it (uvicorn in a thread, on a free port of 127.0.0.1)."""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Iterator

import pytest

pytest.importorskip("starlette", reason="the scoreboard needs starlette and uvicorn (pip install -e '.[dev]')")
pytest.importorskip("uvicorn", reason="the scoreboard needs starlette and uvicorn (pip install -e '.[dev]')")

import uvicorn  # noqa: E402

from firmware.config import Config, DeviceConfig  # noqa: E402
from tests.web.support import Recorder  # noqa: E402
from web.serve import bounded_protocol, build, max_connections  # noqa: E402


@pytest.fixture
def recorded(tmp_path: Path) -> Recorder:
    """A state directory with one finished game and one being played (a throw waiting)."""
    state = tmp_path / "state"
    state.mkdir()
    Recorder(state, seed=3, players=("Ana", "Beto", "Caro")).finish()
    playing = Recorder(state, seed=11)
    for _ in range(5):
        playing.turn()
    playing.throw()
    return playing


def config_for(state_dir: Path, language: str = "en", max_viewers: int = 100) -> Config:
    config = Config()
    return replace(config, device=DeviceConfig(language=language, state_dir=str(state_dir)),
                   web=replace(config.web, max_viewers=max_viewers))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class LiveServer:
    """The scoreboard served by uvicorn in a thread."""

    def __init__(self, config: Config, poll_s: float = 0.1) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        app = build(config, poll_s=poll_s)
        self.server = uvicorn.Server(uvicorn.Config(
            app, host="127.0.0.1", port=self.port, http=bounded_protocol(max_connections(config.web.max_viewers)),
            ws="none", lifespan="on", access_log=False, log_level="warning", timeout_graceful_shutdown=1))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> "LiveServer":
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the scoreboard did not start")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(10)


@pytest.fixture
def live(recorded: Recorder) -> Iterator[LiveServer]:
    with LiveServer(config_for(recorded.state_dir)) as server:
        yield server
