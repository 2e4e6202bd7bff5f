"""Endgame conversion: won and drawn positions played to the end against Stockfish.

For each ending (default KQvKR, KRvKP, KBNvK, KPvKP), positions are drawn at random (seeded)
and classified by our own tables (``--db``): ``won`` (the side to move wins; our engine plays it)
and ``drawn`` (our engine plays the side with less material, Stockfish tries to win). Each is
played to the end by ``solver uci`` (with ``DatabasePath`` set: configuration ``tables``; and
without: ``plain``) against Stockfish 15.1, both at a fixed time per move, under the rules
(checkmate, stalemate, insufficient material, threefold repetition, the 50-move rule)::

    python scripts/bench_endgames.py --db DIR [--positions 100] [--time 1.0] [--out FILE] [--concurrency 2]

A won position counts as convertible when its distance to mate fits in the 50-move rule
(``halfmove clock + dtm <= 100``: every position drawn here has clock 0). Bar, with the tables:
every convertible win converted, every drawn position held. Results are appended to ``--out``
(JSON lines) as each game ends, and a rerun skips the games already there, so a long run
resumes where it stopped; the summary is printed from the whole file.
"""
from __future__ import annotations

import argparse
import json
import queue
import random
import sys
import threading
import time
from pathlib import Path

import chess
import chess.engine
from common import find_stockfish

ENDINGS = ("KQvKR", "KRvKP", "KBNvK", "KPvKP")
VALUES = {"Q": 9, "R": 5, "B": 3, "N": 3, "P": 1, "K": 0}
MAX_PLIES = 600


def random_position(ending: str, rng: random.Random) -> chess.Board:
    """A legal, unfinished position of ``ending`` (first side White), side to move at random."""
    white, black = ending.split("v")
    while True:
        board = chess.Board(None)
        pieces = [(symbol, chess.WHITE) for symbol in white] + [(symbol, chess.BLACK) for symbol in black]
        squares = rng.sample(range(64), len(pieces))
        ok = True
        for (symbol, colour), square in zip(pieces, squares):
            if symbol == "P" and chess.square_rank(square) in (0, 7):
                ok = False
                break
            board.set_piece_at(square, chess.Piece(chess.PIECE_SYMBOLS.index(symbol.lower()), colour))
        board.turn = rng.choice([chess.WHITE, chess.BLACK])
        if ok and board.is_valid() and not board.is_game_over():
            return board


def material(board: chess.Board, colour: bool) -> int:
    """Material of one side in pawns."""
    return sum(VALUES[piece.symbol().upper()] for piece in board.piece_map().values() if piece.color == colour)


def draw_positions(database, ending: str, count: int, seed: int) -> dict[str, list[tuple[str, int]]]:
    """``count`` won and ``count`` drawn positions (FEN, dtm in plies) by our tables."""
    import games

    game = games.get("chess")
    rng = random.Random(f"{seed}-{ending}")
    found: dict[str, list[tuple[str, int]]] = {"won": [], "drawn": []}
    seen = set()
    tries = 0
    while min(len(found["won"]), len(found["drawn"])) < count and tries < 2_000_000:
        tries += 1
        board = random_position(ending, rng)
        fen = board.fen()
        if fen in seen:
            continue
        seen.add(fen)
        result = database.probe(game.parse_position(fen))
        kind = "won" if result.wdl == 1 else "drawn" if result.wdl == 0 else None
        if kind is not None and len(found[kind]) < count:
            found[kind].append((fen, result.dtm))
    return found


def play_game(fen: str, ours_white: bool, ours, stockfish, our_time: float, sf_time: float) -> dict:
    """One game to its end; the result from our side: 1 win, 0 draw, -1 loss."""
    board = chess.Board(fen)
    ours_colour = chess.WHITE if ours_white else chess.BLACK
    while not board.is_game_over(claim_draw=True) and board.ply() < MAX_PLIES:
        mover = ours if board.turn == ours_colour else stockfish
        limit = chess.engine.Limit(time=our_time if mover is ours else sf_time)
        played = mover.play(board, limit, game=fen)
        board.push(played.move)
    outcome = board.outcome(claim_draw=True)
    if outcome is None:
        result, reason = 0, "ply limit"
    else:
        result = 0 if outcome.winner is None else (1 if outcome.winner == ours_colour else -1)
        reason = outcome.termination.name.lower()
    return {"result": result, "reason": reason, "plies": len(board.move_stack)}


def load_done(path: Path) -> list[dict]:
    """The games already in ``path``."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def summary(records: list[dict]) -> str:
    """The table of conversions and holds per configuration and ending."""
    rows = ["| configuration | ending | won: converted / convertible | drawn: held / played | mean plies (won) |",
            "| --- | --- | --- | --- | --- |"]
    keys = sorted({(r["config"], r["ending"]) for r in records}, key=lambda k: (k[0], ENDINGS.index(k[1])
                                                                               if k[1] in ENDINGS else 99))
    for config, ending in keys:
        won = [r for r in records if (r["config"], r["ending"], r["kind"]) == (config, ending, "won")]
        drawn = [r for r in records if (r["config"], r["ending"], r["kind"]) == (config, ending, "drawn")]
        convertible = [r for r in won if r["dtm"] <= 100]
        converted = sum(r["result"] == 1 for r in convertible)
        held = sum(r["result"] >= 0 for r in drawn)
        plies = sum(r["plies"] for r in won) / len(won) if won else 0
        rows.append(f"| {config} | {ending} | {converted} / {len(convertible)} | {held} / {len(drawn)} | {plies:.1f} |")
    return "\n".join(rows)


WARM_UP_SECONDS = 600.0  # a cold numba cache compiles the search on the first move
MOVE_TIMEOUT_SECONDS = 10.0  # beyond the move time, before an answer counts as hung


def warm_up(engine: chess.engine.SimpleEngine) -> None:
    """Play one move in a 4-piece position so that the kernels are compiled before the clock runs."""
    engine.play(chess.Board("8/8/3k4/8/8/8/8/K1Q5 w - - 0 1"), chess.engine.Limit(time=0.1))
    engine.timeout = MOVE_TIMEOUT_SECONDS


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", required=True, help="database directory with the chess tables built")
    parser.add_argument("--endings", nargs="+", default=list(ENDINGS))
    parser.add_argument("--positions", type=int, default=100, help="won and drawn positions per ending")
    parser.add_argument("--time", type=float, default=1.0, help="seconds per move for both engines")
    parser.add_argument("--sf-time", type=float, default=None, help="Stockfish's seconds per move (default --time)")
    parser.add_argument("--configs", nargs="+", default=["tables", "plain"], choices=("tables", "plain"))
    parser.add_argument("--stockfish", default=find_stockfish())
    parser.add_argument("--out", default="endgames.jsonl", help="results file (JSON lines; resumed)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--concurrency", type=int, default=1,
                        help="games played at once, each pair of engines on its own (default 1)")
    args = parser.parse_args()
    sf_time = args.sf_time if args.sf_time is not None else args.time

    from databases.reader import open_database

    out = Path(args.out)
    done = load_done(out)
    finished = {(r["config"], r["ending"], r["kind"], r["fen"]) for r in done}
    solver = [sys.executable, "-m", "solver", "uci"]
    with open_database(args.db, "chess") as database:
        plan = []
        for ending in args.endings:
            positions = draw_positions(database, ending, args.positions, args.seed)
            for kind in ("won", "drawn"):
                for index, (fen, dtm) in enumerate(positions[kind]):
                    for config in args.configs:
                        if (config, ending, kind, fen) not in finished:
                            plan.append((args.configs.index(config), index, config, ending, kind, fen, dtm))
        # Configurations in turn; within one, the i-th position of every ending and kind before
        # the (i+1)-th, so that an interrupted run has covered every ending evenly.
        plan = [entry[2:] for entry in sorted(plan, key=lambda entry: entry[:2])]
    print(f"{len(plan)} games to play ({len(done)} already in {out})", file=sys.stderr)
    pending: queue.Queue = queue.Queue()
    for number, entry in enumerate(plan, 1):
        pending.put((number, *entry))
    lock = threading.Lock()
    failures: list[BaseException] = []

    def worker(sink) -> None:
        """Plays games from ``pending`` with its own engines until none are left."""
        engines = {}
        stockfish = None
        try:
            stockfish = chess.engine.SimpleEngine.popen_uci(args.stockfish)
            for config in args.configs:
                engine = chess.engine.SimpleEngine.popen_uci(solver, timeout=WARM_UP_SECONDS)
                if config == "tables":
                    engine.configure({"DatabasePath": str(Path(args.db).resolve())})
                warm_up(engine)
                engines[config] = engine
            while not failures:
                try:
                    number, config, ending, kind, fen, dtm = pending.get_nowait()
                except queue.Empty:
                    return
                board = chess.Board(fen)
                if kind == "won":
                    ours_white = board.turn == chess.WHITE
                else:
                    white, black = material(board, chess.WHITE), material(board, chess.BLACK)
                    ours_white = white < black if white != black else board.turn == chess.WHITE
                started = time.monotonic()
                game = play_game(fen, ours_white, engines[config], stockfish, args.time, sf_time)
                record = {"config": config, "ending": ending, "kind": kind, "fen": fen, "dtm": abs(dtm),
                          "ours_white": ours_white, **game, "seconds": round(time.monotonic() - started, 2)}
                with lock:
                    sink.write(json.dumps(record) + "\n")
                    sink.flush()
                    done.append(record)
                    print(f"[{number}/{len(plan)}] {config} {ending} {kind} {fen}: {game['result']:+d} "
                          f"({game['reason']}, {game['plies']} plies)", file=sys.stderr)
        except BaseException as error:  # reported once all workers have stopped
            failures.append(error)
        finally:
            for engine in list(engines.values()) + ([stockfish] if stockfish is not None else []):
                engine.quit()

    with out.open("a") as sink:
        workers = [threading.Thread(target=worker, args=(sink,)) for _ in range(max(1, args.concurrency))]
        for thread in workers:
            thread.start()
        for thread in workers:
            thread.join()
    if failures:
        raise failures[0]
    print(f"Endgame conversion against Stockfish ({args.stockfish}), {args.time:g} s/move "
          f"(Stockfish {sf_time:g} s/move), {args.positions} won + {args.positions} drawn per ending, seed {args.seed}")
    print(summary(done))
    return 0


if __name__ == "__main__":
    sys.exit(main())
