"""A UCI front for an xboard (CECP) chess engine, so that fastchess, which speaks only UCI,
can play it (``scripts/match.py`` starts it for an engine given with ``proto=xboard``).

    python scripts/xboard_as_uci.py [--name NAME] -- /usr/games/phalanx -l- -b-

It reads UCI on stdin and answers on stdout. Every ``go`` sets the xboard engine up afresh
(``new``, ``force``, ``setboard`` unless the game starts from the initial position, the
moves), gives it the clock (``level`` from ``--level``, the match's time control, then
``time``, ``otim``) or ``st`` for a fixed time a move, passes its thinking lines on as ``info``
(so a runner sees its scores) and answers its ``move`` as ``bestmove``. ``isready`` waits for
``pong`` when the engine offers ``ping``; ``stop`` sends ``?`` (move now), ``quit`` ends the
engine, both also while it thinks. An engine that resigns or claims a result gives no move:
``bestmove 0000``, which the runner scores as its loss. ``go nodes`` has no xboard
counterpart: the engine plays at its own pace (the adapter says so on stderr).
"""
from __future__ import annotations

import argparse
import queue
import subprocess
import sys
import threading
import time

import chess

FEATURES_WAIT = 2.0  # seconds for the engine's "feature ... done=1" (protover 2)


class XboardEngine:
    """The xboard engine's process: its lines read on a thread into a queue."""

    def __init__(self, command: list[str]) -> None:
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True, bufsize=1)
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.features: dict[str, str] = {}
        self.pings = 0

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.put(line.strip())
        self.lines.put(None)  # the engine closed its output

    def send(self, text: str) -> None:
        """One command line to the engine."""
        self.process.stdin.write(text + "\n")
        self.process.stdin.flush()

    def next_line(self, timeout: float | None) -> str | None:
        """The engine's next line; None after ``timeout`` seconds; EOFError once it has quit."""
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            return None
        if line is None:
            raise EOFError("the xboard engine quit")
        return line

    def handshake(self) -> None:
        """``xboard``, ``protover 2`` and the engine's features (accepted as they come)."""
        self.send("xboard")
        self.send("protover 2")
        deadline = time.monotonic() + FEATURES_WAIT
        while (left := deadline - time.monotonic()) > 0:
            line = self.next_line(left)
            if line is None or not line.startswith("feature "):
                continue
            for name, value in parse_features(line[len("feature "):]).items():
                self.features[name] = value
                # moves go out in coordinate notation, and nothing here answers a draw offer
                refused = (name == "san" and value == "1") or name == "draw"
                self.send(f"{'rejected' if refused else 'accepted'} {name}")
            if self.features.get("done") == "1":
                break
        self.send("easy")  # no pondering
        self.send("post")  # thinking lines (ignored here, but some engines want them asked for)

    def drain(self) -> None:
        """Drop what the engine said since the last move (a result claim, thinking)."""
        while True:
            try:
                if self.lines.get_nowait() is None:
                    raise EOFError("the xboard engine quit")
            except queue.Empty:
                return

    def ping(self) -> None:
        """Wait until the engine has read everything sent so far (``ping``/``pong``)."""
        if self.features.get("ping") != "1":
            return
        self.pings += 1
        self.send(f"ping {self.pings}")
        while self.next_line(None) != f"pong {self.pings}":
            pass


def parse_features(text: str) -> dict[str, str]:
    """``name=value`` pairs of a feature line; values may be quoted."""
    features: dict[str, str] = {}
    while text.strip():
        name, _, rest = text.strip().partition("=")
        if rest.startswith('"'):
            value, _, text = rest[1:].partition('"')
        else:
            value, _, text = rest.partition(" ")
        features[name.strip()] = value
    return features


def board_of(words: list[str]) -> tuple[chess.Board, str | None, list[chess.Move]]:
    """From a UCI ``position`` command's words: the board after the moves, the starting FEN
    (None for the initial position) and the moves."""
    if "moves" in words:
        at = words.index("moves")
        setup, moves = words[:at], words[at + 1:]
    else:
        setup, moves = words, []
    fen = " ".join(setup[1:]) if setup and setup[0] == "fen" else None
    board = chess.Board(fen) if fen else chess.Board()
    played = []
    for text in moves:
        move = chess.Move.from_uci(text)
        board.push(move)
        played.append(move)
    return board, fen, played


def clock_seconds(words: list[str], key: str) -> float | None:
    """A ``go`` argument in milliseconds, as seconds."""
    if key in words and words.index(key) + 1 < len(words):
        return int(words[words.index(key) + 1]) / 1000
    return None


def info_of(line: str) -> str | None:
    """An xboard thinking line (``ply score time nodes pv``: centipawns for the side to move,
    centiseconds) as a UCI ``info`` line, else None."""
    parts = line.split()
    if len(parts) < 4 or not all(part.lstrip("-").isdigit() for part in parts[:4]):
        return None
    depth, score, centiseconds, nodes = (int(part) for part in parts[:4])
    text = f"info depth {depth} score cp {score} time {centiseconds * 10} nodes {nodes}"
    return text + (" pv " + " ".join(parts[4:]) if parts[4:] else "")


class Adapter:
    """The UCI side: keeps the position, sets the engine up for each ``go``."""

    def __init__(self, engine: XboardEngine, name: str, level: list[str] | None) -> None:
        self.engine = engine
        self.name = name
        self.level = level  # [moves per period, base seconds, increment seconds], or None
        self.words: list[str] = ["startpos"]
        self.commands: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read_commands, daemon=True).start()

    def _read_commands(self) -> None:
        for line in sys.stdin:
            self.commands.put(line)
        self.commands.put(None)  # the runner closed our input

    def answer(self, text: str) -> None:
        print(text, flush=True)

    def set_up(self, words: list[str]) -> chess.Board:
        """The engine at the position of the last ``position`` command, its clock from ``go``'s
        ``words`` given; returns the board."""
        board, fen, moves = board_of(self.words)
        engine = self.engine
        engine.drain()
        engine.send("new")
        engine.send("force")
        if fen:
            if engine.features.get("setboard") != "1":
                raise EOFError("the xboard engine cannot set up a position (no setboard feature)")
            engine.send(f"setboard {fen}")
        for move in moves:
            engine.send(("usermove " if engine.features.get("usermove") == "1" else "") + move.uci())
        movetime = clock_seconds(words, "movetime")
        if "nodes" in words:
            print("xboard_as_uci: go nodes: xboard has no node limit; the engine plays at its own pace",
                  file=sys.stderr, flush=True)
        if movetime is not None:
            engine.send(f"st {max(1, int(movetime))}")
            return board
        white = board.turn == chess.WHITE
        own = clock_seconds(words, "wtime" if white else "btime")
        other = clock_seconds(words, "btime" if white else "wtime")
        if self.level:
            moves_per_period, base, inc = self.level
            seconds = float(base)
            engine.send(f"level {moves_per_period} {int(seconds // 60)}:{seconds % 60:02g} {inc}")
        if own is not None:
            engine.send(f"time {max(1, round(own * 100))}")
        if other is not None:
            engine.send(f"otim {max(1, round(other * 100))}")
        return board

    def go(self, words: list[str]) -> bool:
        """Let the engine move; False when ``quit`` came meanwhile."""
        board = self.set_up(words)
        engine = self.engine
        engine.send("go")
        while True:
            try:
                command = self.commands.get(timeout=0.005) if engine.lines.empty() else ""
            except queue.Empty:
                command = ""
            if command is None or (command and command.split()[:1] == ["quit"]):
                return False
            if command and command.split()[:1] == ["stop"]:
                engine.send("?")
            elif command and command.split()[:1] == ["isready"]:
                self.answer("readyok")  # (a ping would wait for the move)
            line = engine.next_line(0) if not engine.lines.empty() else None
            if line is None:
                continue
            parts = line.split()
            if len(parts) >= 2 and parts[0] == "move":
                self.answer(f"bestmove {uci_of(board, parts[1])}")
                engine.send("force")
                return True
            if parts[:1] == ["resign"] or line.startswith(("0-1", "1-0", "1/2-1/2")):
                self.answer("bestmove 0000")  # no move: the runner scores the game
                return True
            info = info_of(line)
            if info:
                self.answer(info)

    def run(self) -> None:
        """Answer UCI commands until ``quit`` or the end of input; then end the engine."""
        while (line := self.commands.get()) is not None:
            words = line.split()
            if not words:
                continue
            command, rest = words[0], words[1:]
            if command == "uci":
                self.answer(f"id name {self.name}")
                self.answer("uciok")
            elif command == "isready":
                self.engine.ping()
                self.answer("readyok")
            elif command == "ucinewgame":
                self.engine.send("new")
                self.engine.send("force")
            elif command == "position":
                self.words = rest
            elif command == "go":
                if not self.go(rest):
                    break
            elif command == "quit":
                break
        self.engine.send("quit")
        try:
            self.engine.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.engine.process.kill()


def uci_of(board: chess.Board, text: str) -> str:
    """The engine's move as UCI: coordinate notation as it comes, or SAN read on ``board``."""
    try:
        move = chess.Move.from_uci(text)
        if move in board.legal_moves:
            return move.uci()
    except ValueError:
        pass
    try:
        return board.parse_san(text).uci()
    except ValueError:
        return text  # illegal as it stands: the runner says so


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--name", default=None, help="the UCI id name (default: the engine's myname)")
    parser.add_argument("--level", metavar="'MOVES BASE INC'",
                        help="the time control (xboard's level: moves per period, 0 for the whole game; "
                             "base and increment in seconds), given with every clock")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the xboard engine's command line")
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the xboard engine's command after --")
    try:
        engine = XboardEngine(command)
    except OSError as err:
        print(f"xboard_as_uci: cannot start {command[0]}: {err.strerror}", file=sys.stderr)
        return 1
    try:
        engine.handshake()
        name = args.name or engine.features.get("myname") or command[0]
        Adapter(engine, name, args.level.split() if args.level else None).run()
    except (EOFError, BrokenPipeError) as err:
        print(f"xboard_as_uci: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
