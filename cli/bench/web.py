"""`cubilete bench web`: the live scoreboard under load, on a recorded game.

Runs `cubilete web` in a subprocess on a state directory whose log this bench writes as the
game service does (`firmware.eventlog`, WAL, the writer kept open), and measures:

- event recorded -> page updated: from `EventLog.append` returning to the new board
  arriving at each of 50 server-sent-event viewers (target: median <= 1 s);
- the web service's peak memory (VmHWM) with those 50 viewers (target <= 60 MB);
- 200 viewers connecting at once plus clients that never read and connections that never
  send a request: how many streams were served and refused, the open connections, the
  peak memory, and whether the writer (the game service's side) slowed down.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import engine
from firmware.eventlog import EventLog
from web.serve import IDLE_S

TARGET_LATENCY_S = 1.0
TARGET_PEAK_MB = 60.0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("web", help="the scoreboard: event-to-page latency, memory, a flood of viewers")
    parser.add_argument("--viewers", type=int, default=50, help="live viewers for the latency and memory figures")
    parser.add_argument("--events", type=int, default=20, help="events appended while they watch")
    parser.add_argument("--flood", type=int, default=200, help="viewers connecting at once")
    parser.add_argument("--stalled", type=int, default=30, help="clients that never read, and as many that never send")
    parser.add_argument("--max-viewers", type=int, default=100, help="web.max_viewers of the service")
    parser.add_argument("--seed", type=int, default=1)
    parser.set_defaults(handler=run)


class Game:
    """A Generala game recorded as the service records one, played at random."""

    def __init__(self, state_dir: Path, seed: int) -> None:
        self.random = random.Random(seed)
        self.log = EventLog.open(state_dir)
        started = engine.new_game("generala", ["Ana", "Beto", "Caro"], stake="0.10")
        self.game_id = self.log.begin_game(started)
        self.state = engine.start(started)

    def append(self, event: dict) -> float:
        """Record one event; seconds the writer took."""
        self.state = engine.apply(self.state, event)
        started = time.perf_counter()
        self.log.append(self.game_id, event)
        return time.perf_counter() - started

    def next_event(self) -> dict:
        if self.state.finished:
            raise RuntimeError("the game is over")
        if not self.state.turn.throws:
            values = [self.random.randint(1, 6) for _ in range(self.state.rules.dice)]
            return engine.events.throw(self.state.turn.player, values)
        option = next(o for o in engine.score_options(self.state) if o.allowed)
        return engine.events.category_scored(self.state.turn.player, option.category)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def peak_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


class Viewer:
    """A live page: reads the stream and notes when each board version arrived."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.arrived: dict[int, float] = {}
        self.status = 0
        self.task: asyncio.Task | None = None

    async def watch(self) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        writer.write(b"GET /events HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n")
        await writer.drain()
        try:
            head = await reader.readline()
            self.status = int(head.split()[1]) if head else 0
            while self.status == 200:
                line = await reader.readline()
                if not line:
                    return
                if line.startswith(b"id: "):
                    self.arrived[int(line[4:])] = time.monotonic()
        finally:
            writer.close()


async def get_ms(port: int, path: str) -> tuple[int, float]:
    started = time.monotonic()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n".encode())
    await writer.drain()
    head = await reader.readline()
    await reader.read()
    writer.close()
    return int(head.split()[1]), (time.monotonic() - started) * 1000


async def latest_version(port: int) -> int:
    viewer = Viewer(port)
    task = asyncio.create_task(viewer.watch())
    for _ in range(100):
        await asyncio.sleep(0.05)
        if viewer.arrived:
            break
    task.cancel()
    return max(viewer.arrived, default=0)


async def measure(port: int, pid: int, game: Game, args: argparse.Namespace) -> dict:
    viewers = [Viewer(port) for _ in range(args.viewers)]
    for viewer in viewers:
        viewer.task = asyncio.create_task(viewer.watch())
    await asyncio.sleep(2.0)
    latencies, writer_s = [], []
    for _ in range(args.events):
        before = {v: max(v.arrived, default=0) for v in viewers}
        appended_s = game.append(game.next_event())
        writer_s.append(appended_s)
        recorded = time.monotonic()
        deadline = recorded + 5
        while time.monotonic() < deadline and any(max(v.arrived, default=0) == before[v] for v in viewers):
            await asyncio.sleep(0.005)
        for viewer in viewers:
            newer = [t for version, t in viewer.arrived.items() if version > before[viewer]]
            latencies.append(min(newer) - recorded if newer else float("inf"))
        await asyncio.sleep(0.3 + game.random.random() * 0.2)
    figures = {"latencies": latencies, "peak_50": peak_mb(pid), "writer_idle_ms": writer_s,
               "streams_ok": sum(1 for v in viewers if v.status == 200)}
    for viewer in viewers:
        assert viewer.task is not None
        viewer.task.cancel()
    await asyncio.sleep(0.5)
    return figures


async def flood(port: int, pid: int, game: Game, args: argparse.Namespace) -> dict:
    stalled = []
    for _ in range(args.stalled):  # never read: a tiny receive buffer, and nothing read
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(("127.0.0.1", port))
        sock.sendall(b"GET /events HTTP/1.1\r\nHost: bench\r\n\r\n")
        stalled.append(sock)
    silent = [socket.create_connection(("127.0.0.1", port)) for _ in range(args.stalled)]  # never send
    silent_since = time.monotonic()
    viewers = [Viewer(port) for _ in range(args.flood)]
    started = time.monotonic()
    for viewer in viewers:
        viewer.task = asyncio.create_task(viewer.watch())
    await asyncio.sleep(2.0)
    connections_at_peak = open_fds(pid)
    writer_s, board_ms = [], []
    for _ in range(args.events):
        writer_s.append(game.append(game.next_event()))
        board_ms.append((await get_ms(port, "/api/board"))[1])
        await asyncio.sleep(0.3)
    served = sum(1 for v in viewers if v.status == 200)
    refused = sum(1 for v in viewers if v.status == 503)
    figures = {"served": served, "refused": refused, "other": args.flood - served - refused,
               "fds": connections_at_peak, "peak": peak_mb(pid), "writer_flood_ms": writer_s,
               "board_ms": board_ms, "seconds": time.monotonic() - started,
               "silent_closed": 0}
    await asyncio.sleep(max(0.0, IDLE_S + 1 - (time.monotonic() - silent_since)))
    for sock in silent:  # the service closes connections that send no request in time
        sock.settimeout(0.01)
        try:
            figures["silent_closed"] += sock.recv(1) == b""
        except (socket.timeout, OSError):
            pass
        sock.close()
    for sock in stalled:
        sock.close()
    for viewer in viewers:
        assert viewer.task is not None
        viewer.task.cancel()
    return figures


def run(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="cubilete-bench-web-") as temporary:
        work = Path(temporary)
        state = work / "state"
        game = Game(state, args.seed)
        for _ in range(6):  # a game under way
            game.append(game.next_event())
        config = work / "web.toml"
        config.write_text(f'[device]\nlanguage = "es"\n\n[web]\nmax_viewers = {args.max_viewers}\n', encoding="utf-8")
        port = free_port()
        command = [sys.executable, "-m", "cli.main", "web", "--config", str(config), "--state-dir", str(state),
                   "--bind", "127.0.0.1", "--port", str(port)]
        print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at start")
        with open(work / "web.log", "w", encoding="utf-8") as log:
            service = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    break
                except OSError:
                    time.sleep(0.1)
            idle_mb = peak_mb(service.pid)
            figures = asyncio.run(measure(port, service.pid, game, args))
            flooded = asyncio.run(flood(port, service.pid, game, args))
            alive = service.poll() is None
        finally:
            service.terminate()
            service.wait(10)
        game.log.close()
        print((work / "web.log").read_text(encoding="utf-8")[-2000:], end="")
    report(args, idle_mb, figures, flooded, alive)
    return 0


def report(args: argparse.Namespace, idle_mb: float, figures: dict, flooded: dict, alive: bool) -> None:
    latencies = sorted(figures["latencies"])
    missed = sum(1 for v in latencies if v == float("inf"))
    median = statistics.median(latencies)
    p95 = latencies[int(0.95 * (len(latencies) - 1))]
    verdict = "meets" if median <= TARGET_LATENCY_S else "misses"
    print(f"event recorded -> page updated, {args.viewers} viewers x {args.events} events: median "
          f"{median * 1000:.0f} ms, 95th percentile {p95 * 1000:.0f} ms, max {latencies[-1] * 1000:.0f} ms, "
          f"{missed} missed ({verdict} the target of {TARGET_LATENCY_S * 1000:.0f} ms)")
    verdict = "meets" if figures["peak_50"] <= TARGET_PEAK_MB else "misses"
    print(f"web service peak memory (VmHWM): {idle_mb:.1f} MB started, {figures['peak_50']:.1f} MB with "
          f"{figures['streams_ok']} viewers ({verdict} the target of {TARGET_PEAK_MB:.0f} MB)")
    print(f"flood: {args.flood} viewers at once + {args.stalled} never reading + {args.stalled} never sending, "
          f"max_viewers {args.max_viewers}: {flooded['served']} streams served, {flooded['refused']} refused "
          f"(503), {flooded['other']} other; {flooded['fds']} open files in the service; peak memory "
          f"{flooded['peak']:.1f} MB; /api/board during the flood median "
          f"{statistics.median(flooded['board_ms']):.0f} ms; {flooded['silent_closed']} of {args.stalled} "
          f"silent connections closed by the service; service {'still running' if alive else 'DIED'}")
    print(f"the writer (the game service's side) per append: median {statistics.median(figures['writer_idle_ms']) * 1000:.1f} ms "
          f"with {args.viewers} viewers, {statistics.median(flooded['writer_flood_ms']) * 1000:.1f} ms during the flood")
