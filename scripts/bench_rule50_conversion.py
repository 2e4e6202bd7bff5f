"""Wins that only the DTZ50 line keeps: does the engine convert them against Stockfish?

A position qualifies when the side to move wins under the 50-move rule with the halfmove clock
it is given, but the line that mates fastest (DTM-optimal, the defender resisting longest)
makes no capture or pawn move before the clock runs out: an engine that steers by distance to
mate alone lets the rule draw it. The clock is set to ``100 - dtz - slack``: the DTZ50 line
still wins, with ``--slack`` plies to spare, while the DTM-optimal line does not zero in time.

Positions are drawn at random (seeded) from the chosen tables of ``--db`` (which must hold their
DTZ50 tables) and played out in the same run by:

* ``ours``: ``solver uci`` with ``DatabasePath`` = ``--db`` (it picks its root move by DTZ50);
* ``stockfish``: Stockfish as the attacker, without tables (the reference: how hard the
  positions are for a strong engine that has to find the conversion itself).

Both attack against Stockfish defending, at ``--movetime`` seconds a move; a game ends at mate,
or as a draw by the 50-move rule (100 plies without a zeroing move, counted from the given
clock), threefold repetition or material. The
figure is the share of positions converted.

    python scripts/bench_rule50_conversion.py --db DIR [--tables KQvKR KQvKN] [--count 20]
"""
from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import chess
import chess.engine

from common import REPOSITORY, find_stockfish
from databases.reader import open_database
from games.chess.random_positions import random_board



def zeroing_distance_of_dtm_line(database, board: chess.Board, limit: int) -> int:
    """Plies until the first capture or pawn move (or mate) on the DTM-optimal line: the
    winner's quickest mate, the loser's slowest; ``limit + 1`` when it is longer than ``limit``."""
    board = board.copy()
    for ply in range(limit + 1):
        if board.is_checkmate():
            return ply
        best, best_key = None, None
        for move in board.legal_moves:
            zeroing = board.is_zeroing(move)
            board.push(move)
            if board.is_checkmate():
                key = (3, 0)
            else:
                probed = database.probe(board.fen())
                # After the move the opponent is to move: its loss is our win.
                key = (2, probed.dtm) if probed.wdl < 0 else (1, 0) if probed.wdl == 0 else (0, probed.dtm)
            board.pop()
            # The winner wants the quickest mate; the loser the longest: from the mover's view a
            # child loss (for the opponent) with a small |dtm| is best for a winner.
            # Among equally quick lines a zeroing one is taken: a position qualifies only when no
            # DTM-optimal line zeroes in time.
            rank = ((key[0], -abs(key[1])) if ply % 2 == 0 else (key[0], abs(key[1]))) + (zeroing,)
            if best_key is None or rank > best_key:
                best, best_key = (move, zeroing), rank
        if best is None:
            return limit + 1
        move, zeroing = best
        if zeroing:
            return ply + 1
        board.push(move)
    return limit + 1


def qualifying_positions(database, table: str, count: int, slack: int, rng: random.Random) -> list[str]:
    """``count`` FENs of ``table`` (with their clocks) where only the DTZ50 line wins."""
    found: list[str] = []
    tries = 0
    while len(found) < count and tries < 200_000:
        tries += 1
        board = random_board(table, rng, en_passant=False)  # either side stronger, either to move
        if board.is_game_over():
            continue
        fen = board.fen()
        if database.probe_wdl50(fen) != 2:
            continue
        dtz = database.probe_dtz(fen)
        clock = 100 - dtz - slack
        if clock <= 0:
            continue
        if zeroing_distance_of_dtm_line(database, board, 100 - clock) <= 100 - clock:
            continue
        board.halfmove_clock = clock
        found.append(board.fen())
    return found


def play_out(attacker: chess.engine.SimpleEngine, defender: chess.engine.SimpleEngine, fen: str,
             movetime: float) -> str:
    """The game from ``fen`` with ``attacker`` moving first: '1-0' (converted) or a draw's reason."""
    board = chess.Board(fen)
    limit = chess.engine.Limit(time=movetime)
    attacker_colour = board.turn
    while True:
        outcome = board.outcome()
        if outcome is not None:
            return "converted" if outcome.winner == attacker_colour else outcome.termination.name.lower()
        # Draws are claimed by the defender only (python-chess's claim_draw lets the side to move
        # claim, which for the attacker at a clock of 99 would end the game before the capture on
        # ply 100 that the rule allows), or stand once the count or the repetition is complete.
        defending = board.turn != attacker_colour
        if board.is_fifty_moves() or (defending and board.can_claim_fifty_moves()):
            return "fifty_moves"
        if board.is_repetition(3) or (defending and board.can_claim_threefold_repetition()):
            return "threefold_repetition"
        engine = attacker if board.turn == attacker_colour else defender
        board.push(engine.play(board, limit).move)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", required=True, help="tables with their DTZ50 tables (solver build chess)")
    parser.add_argument("--tables", nargs="+", default=["KQvKR", "KQvKN", "KRvKN"])
    parser.add_argument("--count", type=int, default=20, help="positions per table")
    parser.add_argument("--slack", type=int, default=4, help="plies the DTZ50 line has to spare")
    parser.add_argument("--movetime", type=float, default=0.2, help="seconds a move, for every engine")
    parser.add_argument("--stockfish", default=find_stockfish(), help="Stockfish (default: PATH, then /usr/games)")
    parser.add_argument("--solver", default=f"{sys.executable} -m solver uci", help="our UCI command")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    database = open_database(args.db, "chess")
    positions = [(table, fen) for table in args.tables
                 for fen in qualifying_positions(database, table, args.count, args.slack, rng)]
    print(f"{len(positions)} positions where only the DTZ50 line wins "
          f"({', '.join(args.tables)}; slack {args.slack} plies; {args.movetime} s a move)")
    ours = chess.engine.SimpleEngine.popen_uci(args.solver.split(), cwd=str(REPOSITORY), timeout=120)
    ours.configure({"DatabasePath": str(Path(args.db).resolve())})
    # Warm up: a search with no clock waits until the search is compiled or loaded, so no game
    # starts on the engine's stand-in moves of a cold start.
    ours.analyse(chess.Board(), chess.engine.Limit(depth=2))
    stockfish = chess.engine.SimpleEngine.popen_uci(args.stockfish)
    defender = chess.engine.SimpleEngine.popen_uci(args.stockfish)
    for engine in (stockfish, defender):
        engine.configure({"Threads": 1, "Hash": 64})
    results = {"ours": [], "stockfish": []}
    try:
        for number, (table, fen) in enumerate(positions, 1):
            for name, attacker in (("ours", ours), ("stockfish", stockfish)):
                for engine in (attacker, defender):
                    engine.protocol.send_line("ucinewgame")
                results[name].append(play_out(attacker, defender, fen, args.movetime))
            print(f"[{number}/{len(positions)}] {table} {fen}: ours {results['ours'][-1]}, "
                  f"stockfish {results['stockfish'][-1]}", flush=True)
    finally:
        for engine in (ours, stockfish, defender):
            engine.quit()
    total = len(positions)
    print("\n| attacker | converted | of | share |\n| --- | ---: | ---: | ---: |")
    for name, outcomes in results.items():
        won = outcomes.count("converted")
        print(f"| {name} | {won} | {total} | {won / total:.0%} |" if total else f"| {name} | 0 | 0 | - |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
