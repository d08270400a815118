"""The live part: one loop watches the log and pushes the new board to every open page.

The loop polls the log's change token (`LogReader.token`, a stat and a pragma: cheap even
on a Pi Zero) every POLL_S seconds; after a change it rebuilds the board in a worker thread
and hands the same encoded server-sent event to every viewer. A viewer keeps only the latest
board it has not sent yet, so a slow phone never piles up boards in memory: it skips to the
newest. The number of viewers is bounded (`Hub.join` says no past `max_viewers`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any, Callable

from web.board import BoardBuilder
from web.logreader import LogReader

log = logging.getLogger(__name__)

POLL_S = 0.2
# The board is rebuilt at least this often, so that the day's games roll over at the day's
# start and a log that appears is found even when its files looked unchanged.
REBUILD_S = 60.0
RETRY_MS = 3000  # how soon a page reconnects after the service went away


def encode_event(version: int, board: dict[str, Any]) -> bytes:
    """One server-sent event carrying the board (JSON escapes every newline: one data line)."""
    data = json.dumps(board, ensure_ascii=False, separators=(",", ":"))
    return f"retry: {RETRY_MS}\nid: {version}\nevent: board\ndata: {data}\n\n".encode("utf-8")


class Viewer:
    """One open page: the newest event it has not been sent yet."""

    def __init__(self) -> None:
        self.pending: bytes | None = None
        self.closed = False
        self.wake = asyncio.Event()

    def offer(self, message: bytes) -> None:
        self.pending = message
        self.wake.set()

    def close(self) -> None:
        self.closed = True
        self.wake.set()

    def take(self) -> bytes | None:
        message, self.pending = self.pending, None
        self.wake.clear()
        return message


class Hub:
    """Watches the log, keeps the current board, and feeds the viewers."""

    def __init__(self, reader: LogReader, builder: BoardBuilder, max_viewers: int = 100,
                 poll_s: float = POLL_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.reader = reader
        self.builder = builder
        self.max_viewers = max_viewers
        self.poll_s = poll_s
        self.clock = clock
        self.viewers: set[Viewer] = set()
        self.version = 0
        self.board: dict[str, Any] = {}
        self.board_json = b"{}"
        self.message = b""
        self.refused = 0
        self._token: object = None
        self._built_at = -REBUILD_S

    # -- viewers --------------------------------------------------------------------------

    def join(self) -> Viewer | None:
        """A new viewer with the current board waiting for it; None when there are already
        max_viewers."""
        if len(self.viewers) >= self.max_viewers:
            self.refused += 1
            return None
        viewer = Viewer()
        if self.message:
            viewer.offer(self.message)
        self.viewers.add(viewer)
        return viewer

    def leave(self, viewer: Viewer) -> None:
        viewer.close()
        self.viewers.discard(viewer)

    # -- the loop ---------------------------------------------------------------------------

    async def refresh(self, force: bool = False) -> bool:
        """Rebuild the board if the log changed (or `force`); True when the board changed."""
        token = await asyncio.to_thread(self.reader.token)
        due = self.clock() - self._built_at >= REBUILD_S
        if not force and not due and token == self._token and self.message:
            return False
        board = await asyncio.to_thread(self.builder.build)
        self._token, self._built_at = token, self.clock()
        encoded = json.dumps(board, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        if encoded == self.board_json:
            return False
        self.version += 1
        self.board, self.board_json = board, encoded
        self.message = encode_event(self.version, {**board, "v": self.version})
        for viewer in list(self.viewers):
            viewer.offer(self.message)
        return True

    async def run(self) -> None:
        """Poll until cancelled; a failure is logged and the loop goes on."""
        while True:
            try:
                await self.refresh()
            except asyncio.CancelledError:
                raise
            except Exception:  # the board must come back when the log does
                log.exception("could not rebuild the board")
            await asyncio.sleep(self.poll_s)
