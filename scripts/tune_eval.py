"""Texel tuning of the chess evaluation (games/chess/evaluation.py, weights in eval_weights.py).

    nice python scripts/tune_eval.py generate [--data DIR] [--minutes M] [--nodes N] [--workers W]
    python scripts/tune_eval.py fit [--data DIR] [--write]
    python scripts/tune_eval.py seed      # the untuned PeSTO seed into eval_weights.py

``generate`` plays Stockfish against itself at a fixed node count per move from the openings of
$SOLVER_ORACLE_DATA/chess/openings-8moves.epd (in a fixed shuffled order) and appends one JSON line
per finished game to ``DIR/games.jsonl`` (default ./tune-data): the opening, the moves,
Stockfish's score after each search and the result. An interrupted run loses at most the game in
progress; a new run skips the openings already played.

``fit`` turns the games into labelled quiet positions (after the first plies past the book; not
in check; the move Stockfish played is neither a capture nor a promotion, nor was the move before
it; no mate score), computes their feature vectors with
``games.chess.evaluation.evaluation_features`` (the evaluation is linear in its weights), fits
the scaling k of sigmoid(k * eval) against the results with the seed weights, then fits the
weights by minimising the logistic loss (cross-entropy against the result) with Adam, full-batch
numpy over a sparse matrix, with an L2 pull towards the seed. The games of every fifth opening
are held out; the pulls (and optionally a blend of Stockfish's scores into the targets) are
chosen by the held-out loss. With ``--write`` the rounded weights replace eval_weights.py (and
the digest in evaluation.py that keeps numba's cache honest).
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from common import find_stockfish, oracle_data

REPO = Path(__file__).resolve().parent.parent
OPENINGS = oracle_data() / "chess" / "openings-8moves.epd"
DEFAULT_DATA = Path("tune-data")


# --- the seed weights ----------------------------------------------------------------------------
# PeSTO (Ronald Friederich's tables for Rofchade/PeSTO, published on the Chess Programming Wiki,
# "PeSTO's Evaluation Function"): material and piece-square tables, middlegame and endgame, each
# table printed as on a diagram (rank 8 first, files a..h), from White's side.
PESTO_MATERIAL_MG = (82, 337, 365, 477, 1025)
PESTO_MATERIAL_EG = (94, 281, 297, 512, 936)
PESTO_MG = {
    "pawn": """
      0   0   0   0   0   0   0   0
     98 134  61  95  68 126  34 -11
     -6   7  26  31  65  56  25 -20
    -14  13   6  21  23  12  17 -23
    -27  -2  -5  12  17   6  10 -25
    -26  -4  -4 -10   3   3  33 -12
    -35  -1 -20 -23 -15  24  38 -22
      0   0   0   0   0   0   0   0""",
    "knight": """
   -167 -89 -34 -49  61 -97 -15 -107
    -73 -41  72  36  23  62   7  -17
    -47  60  37  65  84 129  73   44
     -9  17  19  53  37  69  18   22
    -13   4  16  13  28  19  21   -8
    -23  -9  12  10  19  17  25  -16
    -29 -53 -12  -3  -1  18 -14  -19
   -105 -21 -58 -33 -17 -28 -19  -23""",
    "bishop": """
    -29   4 -82 -37 -25 -42   7  -8
    -26  16 -18 -13  30  59  18 -47
    -16  37  43  40  35  50  37  -2
     -4   5  19  50  37  37   7  -2
     -6  13  13  26  34  12  10   4
      0  15  15  15  14  27  18  10
      4  15  16   0   7  21  33   1
    -33  -3 -14 -21 -13 -12 -39 -21""",
    "rook": """
     32  42  32  51  63   9  31  43
     27  32  58  62  80  67  26  44
     -5  19  26  36  17  45  61  16
    -24 -11   7  26  24  35  -8 -20
    -36 -26 -12  -1   9  -7   6 -23
    -45 -25 -16 -17   3   0  -5 -33
    -44 -16 -20  -9  -1  11  -6 -71
    -19 -13   1  17  16   7 -37 -26""",
    "queen": """
    -28   0  29  12  59  44  43  45
    -24 -39  -5   1 -16  57  28  54
    -13 -17   7   8  29  56  47  57
    -27 -27 -16 -16  -1  17  -2   1
     -9 -26  -9 -10  -2  -4   3  -3
    -14   2 -11  -2  -5   2  14   5
    -35  -8  11   2   8  15  -3   1
     -1 -18  -9  10 -15 -25 -31 -50""",
    "king": """
    -65  23  16 -15 -56 -34   2  13
     29  -1 -20  -7  -8  -4 -38 -29
     -9  24   2 -16 -20   6  22 -22
    -17 -20 -12 -27 -30 -25 -14 -36
    -49  -1 -27 -39 -46 -44 -33 -51
    -14 -14 -22 -46 -44 -30 -15 -27
      1   7  -8 -64 -43 -16   9   8
    -15  36  12 -54   8 -28  24  14""",
}
PESTO_EG = {
    "pawn": """
      0   0   0   0   0   0   0   0
    178 173 158 134 147 132 165 187
     94 100  85  67  56  53  82  84
     32  24  13   5  -2   4  17  17
     13   9  -3  -7  -7  -8   3  -1
      4   7  -6   1   0  -5  -1  -8
     13   8   8  10  13   0   2  -7
      0   0   0   0   0   0   0   0""",
    "knight": """
    -58 -38 -13 -28 -31 -27 -63 -99
    -25  -8 -25  -2  -9 -25 -24 -52
    -24 -20  10   9  -1  -9 -19 -41
    -17   3  22  22  22  11   8 -18
    -18  -6  16  25  16  17   4 -18
    -23  -3  -1  15  10  -3 -20 -22
    -42 -20 -10  -5  -2 -20 -23 -44
    -29 -51 -23 -15 -22 -18 -50 -64""",
    "bishop": """
    -14 -21 -11  -8  -7  -9 -17 -24
     -8  -4   7 -12  -3 -13  -4 -14
      2  -8   0  -1  -2   6   0   4
     -3   9  12   9  14  10   3   2
     -6   3  13  19   7  10  -3  -9
    -12  -3   8  10  13   3  -7 -15
    -14 -18  -7  -1   4  -9 -15 -27
    -23  -9 -23  -5  -9 -16  -5 -17""",
    "rook": """
     13  10  18  15  12  12   8   5
     11  13  13  11  -3   3   8   3
      7   7   7   5   4  -3  -5  -3
      4   3  13   1   2   1  -1   2
      3   5   8   4  -5  -6  -8 -11
     -4   0  -5  -1  -7 -12  -8 -16
     -6  -6   0   2  -9  -9 -11  -3
     -9   2   3  -1  -5 -13   4 -20""",
    "queen": """
     -9  22  22  27  27  19  10  20
    -17  20  32  41  58  25  30   0
    -20   6   9  49  47  35  19   9
      3  22  24  45  57  40  57  36
    -18  28  19  47  31  34  39  23
    -16 -27  15   6   9  17  10   5
    -22 -23 -30 -16 -16 -23 -36 -32
    -33 -28 -22 -43  -5 -32 -20 -41""",
    "king": """
    -74 -35 -18 -18 -11  15   4 -17
    -12  17  14  17  17  38  23  11
     10  17  23  15  20  45  44  13
     -8  22  24  27  26  33  26   3
    -18  -4  21  24  27  23   9 -11
    -19  -3  11  21  23  16   7  -9
    -27 -11   4  13  14   4  -5 -17
    -53 -34 -21 -11 -28 -14 -24 -43""",
}

SEED_HEADER = """Chess evaluation weights (games/chess/evaluation.py), as PeSTO seeds them: not tuned yet.

Material and piece-square tables: PeSTO's (Ronald Friederich, Rofchade/PeSTO; published on the
Chess Programming Wiki, "PeSTO's Evaluation Function"). The other terms: hand-set starting values.
Written by ``python scripts/tune_eval.py seed``."""


def diagram_to_squares(text: str) -> list[int]:
    """A table printed rank 8 first into a list indexed by square (a1 = 0, h8 = 63)."""
    rows = [[int(v) for v in line.split()] for line in text.strip().splitlines()]
    assert len(rows) == 8 and all(len(row) == 8 for row in rows)
    return [rows[7 - (square >> 3)][square & 7] for square in range(64)]


def seed_weights() -> dict[str, list[tuple[int, int]]]:
    """The starting point of the fit: PeSTO's material and tables, hand-set values elsewhere."""
    weights: dict[str, list[tuple[int, int]]] = {
        "MATERIAL": list(zip(PESTO_MATERIAL_MG, PESTO_MATERIAL_EG))}
    for piece in ("pawn", "knight", "bishop", "rook", "queen", "king"):
        weights["PST_" + piece.upper()] = list(zip(diagram_to_squares(PESTO_MG[piece]),
                                                  diagram_to_squares(PESTO_EG[piece])))
    # Mobility: linear around a typical count (PeSTO has none; its tables carry some of it).
    for name, size, centre, mg, eg in (("KNIGHT", 9, 4, 4, 4), ("BISHOP", 14, 6, 5, 5),
                                       ("ROOK", 15, 7, 2, 4), ("QUEEN", 28, 13, 1, 2)):
        weights["MOBILITY_" + name] = [(mg * (m - centre), eg * (m - centre)) for m in range(size)]
    weights["PASSED_PAWN"] = [(0, 5), (0, 10), (5, 20), (15, 35), (30, 60), (50, 90)]
    weights["ISOLATED_PAWN"] = [(-10, -10)]
    weights["DOUBLED_PAWN"] = [(-10, -20)]
    weights["KING_ZONE_ATTACK"] = [(8, 0), (5, 0), (6, 0), (5, 0)]
    weights["PAWN_SHIELD"] = [(10, 0), (5, 0)]
    weights["KING_OPEN_FILE"] = [(-15, 0)]
    weights["ROOK_OPEN_FILE"] = [(25, 10)]
    weights["ROOK_SEMI_OPEN_FILE"] = [(10, 5)]
    weights["BISHOP_PAIR"] = [(30, 50)]
    weights["THREAT_BY_PAWN"] = [(40, 40)]
    weights["THREAT_BY_MINOR"] = [(5, 15), (15, 20), (30, 25), (30, 30)]
    weights["THREAT_BY_ROOK"] = [(30, 20)]
    weights["HANGING"] = [(20, 15)]
    weights["SAFE_CHECK"] = [(20, 5), (15, 5), (25, 5), (15, 5)]
    weights["CONNECTED_PAWN"] = [(5, 0), (8, 3), (10, 8), (15, 20), (30, 40), (50, 60)]
    weights["BACKWARD_PAWN"] = [(-8, -8)]
    weights["PASSED_OWN_KING"] = [(0, -2), (0, -3), (0, -5), (0, -8), (0, -10), (0, -10)]
    weights["PASSED_ENEMY_KING"] = [(0, 2), (0, 5), (0, 8), (0, 12), (0, 18), (0, 20)]
    weights["PASSED_FREE"] = [(0, 2), (0, 5), (3, 10), (6, 15), (10, 25), (20, 40)]
    weights["OUTPOST"] = [(25, 10), (15, 5)]
    weights["ROOK_ON_SEVENTH"] = [(10, 20)]
    weights["BISHOP_PAWNS"] = [(-2, -4)]
    weights["MINOR_BEHIND_PAWN"] = [(8, 2)]
    return weights


# --- writing eval_weights.py -------------------------------------------------------------------
WEIGHTS_FILE = REPO / "games" / "chess" / "eval_weights.py"
EVALUATION_FILE = REPO / "games" / "chess" / "evaluation.py"
TERM_NOTES = {
    "MATERIAL": "pawn, knight, bishop, rook, queen",
    "PASSED_PAWN": "relative ranks 2..7",
    "KING_ZONE_ATTACK": "per attacked zone square: knight, bishop, rook, queen",
    "PAWN_SHIELD": "pawns one, two ranks ahead of the king",
    "THREAT_BY_MINOR": "victim: knight, bishop, rook, queen",
    "SAFE_CHECK": "by knight, bishop, rook, queen",
    "CONNECTED_PAWN": "relative ranks 2..7",
    "PASSED_OWN_KING": "per passed pawn on relative ranks 2..7: our king's distance to its stop square",
    "PASSED_ENEMY_KING": "per passed pawn on relative ranks 2..7: the enemy king's distance to its stop square",
    "PASSED_FREE": "relative ranks 2..7",
    "OUTPOST": "knight, bishop",
}


def format_weights(weights: dict[str, list[tuple[int, int]]], header: str) -> str:
    """The text of eval_weights.py: ``header`` as its docstring, one tuple of (mg, eg) pairs per
    term (piece-square tables a1..h8, one rank per line, from White's side)."""
    lines = ['"""' + header.strip() + '\n"""',
             "# Generated by scripts/tune_eval.py; each entry is (middlegame, endgame)."]
    for name, pairs in weights.items():
        note = TERM_NOTES.get(name, "mobility count 0.." + str(len(pairs) - 1) if name.startswith("MOBILITY") else "")
        lines.append("")
        if note:
            lines.append(f"# {note}")
        if name.startswith("PST_"):
            lines.append(f"{name} = (")
            for rank in range(8):
                row = ", ".join(f"({mg}, {eg})" for mg, eg in pairs[rank * 8:rank * 8 + 8])
                lines.append(f"    {row},  # rank {rank + 1}")
            lines.append(")")
        else:
            body = ", ".join(f"({mg}, {eg})" for mg, eg in pairs)
            lines.append(f"{name} = ({body},)")
    return "\n".join(lines) + "\n"


def write_weights(weights: dict[str, list[tuple[int, int]]], header: str) -> None:
    """Write eval_weights.py and set evaluation.py's WEIGHTS_DIGEST to match (which also makes
    numba recompile the evaluation instead of serving the old weights from its cache)."""
    import re

    from games.chess.evaluation import flat_weights, weights_digest

    digest = weights_digest(*flat_weights(weights))
    WEIGHTS_FILE.write_text(format_weights(weights, header))
    source = EVALUATION_FILE.read_text()
    source, count = re.subn(r'^WEIGHTS_DIGEST = "[0-9a-f]*"$', f'WEIGHTS_DIGEST = "{digest}"', source, flags=re.M)
    assert count == 1, "WEIGHTS_DIGEST line not found in evaluation.py"
    EVALUATION_FILE.write_text(source)


# --- generating games --------------------------------------------------------------------------

def played_openings(path: Path) -> set[int]:
    """Opening indices of the games already in ``path`` (a truncated last line is ignored)."""
    done: set[int] = set()
    if not path.exists():
        return done
    with path.open() as handle:
        for line in handle:
            try:
                done.add(json.loads(line)["opening"])
            except (json.JSONDecodeError, KeyError):
                continue
    return done


def play_game(engine, start_fen: str, nodes: int) -> dict:
    """One Stockfish self-play game from ``start_fen``; adjudicated as a win when both sides
    agree on a score of at least 1000 cp for 4 plies in a row, as a draw when the score stays
    within 10 cp for 12 plies after ply 80 of the game, or at 400 plies."""
    import chess
    import chess.engine

    board = chess.Board(start_fen)
    engine.configure({"Clear Hash": None})
    moves: list[str] = []
    scores: list[int | None] = []  # White's point of view, centipawns; None: a mate score
    big, small, last_value = 0, 0, 0
    result = None
    limit = chess.engine.Limit(nodes=nodes)
    while result is None:
        if board.is_checkmate():
            result = "0-1" if board.turn == chess.WHITE else "1-0"
            break
        if (board.is_stalemate() or board.is_insufficient_material() or board.halfmove_clock >= 100
                or board.is_repetition(3)):
            result = "1/2-1/2"
            break
        if len(moves) >= 400:
            result = "1/2-1/2"
            break
        played = engine.play(board, limit, info=chess.engine.INFO_SCORE)
        score = played.info.get("score")
        white = score.white() if score is not None else None
        cp = None if white is None or white.is_mate() else white.score()
        moves.append(played.move.uci())
        scores.append(cp)
        board.push(played.move)
        value = white.score(mate_score=100000) if white is not None else 0
        if abs(value) >= 1000:
            big = big + 1 if big and (value > 0) == (last_value > 0) else 1
        else:
            big = 0
        last_value = value
        small = small + 1 if abs(value) <= 10 and board.ply() >= 80 else 0
        if big >= 4:
            result = "1-0" if value > 0 else "0-1"
        elif small >= 12:
            result = "1/2-1/2"
    return {"start": start_fen, "moves": moves, "scores": scores, "result": result}


def generate(args) -> None:
    """Append Stockfish self-play games to ``games.jsonl`` until the time is up, with
    ``args.workers`` engines (one thread each) taking openings from one queue."""
    import fcntl
    import threading

    import chess.engine

    args.data.mkdir(parents=True, exist_ok=True)
    out = args.data / "games.jsonl"
    handle = out.open("a")
    try:
        # One run at a time on a file: each reads the openings already played once, at its
        # start, so two runs side by side would play the same openings twice.
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        sys.exit(f"tune_eval: another generate run is appending to {out}; wait for it, "
                 "or give this one its own --data")
    openings = [line.strip() for line in OPENINGS.read_text().splitlines() if line.strip()]
    order = list(range(len(openings)))
    random.Random(2024).shuffle(order)
    done = played_openings(out)
    pending = iter([index for index in order if index not in done])
    deadline = time.monotonic() + 60 * args.minutes
    lock = threading.Lock()
    count = 0

    def next_opening() -> int | None:
        with lock:
            if time.monotonic() >= deadline or (args.games and count >= args.games):
                return None
            return next(pending, None)

    def worker(handle) -> None:
        nonlocal count
        engine = chess.engine.SimpleEngine.popen_uci(args.stockfish)
        try:
            engine.configure({"Threads": 1, "Hash": 16})
            while (index := next_opening()) is not None:
                game = play_game(engine, " ".join(openings[index].split()[:4]) + " 0 1", args.nodes)
                game["opening"] = index
                game["nodes"] = args.nodes
                with lock:  # whole lines only, so an interrupted run loses at most the games in play
                    handle.write(json.dumps(game) + "\n")
                    handle.flush()
                    count += 1
                    if count % 50 == 0:
                        print(f"{len(done) + count} games", file=sys.stderr, flush=True)
        finally:
            engine.quit()

    with handle:
        threads = [threading.Thread(target=worker, args=(handle,)) for _ in range(args.workers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    print(f"played {count} games this run, {len(done) + count} in {out}")


# --- fitting -------------------------------------------------------------------------------------

def load_positions(path: Path, skip_plies: int):
    """Quiet positions of the games in ``path`` as (features CSR matrix, phase / 24, endgame
    scale in 64ths, White's result 0 / 0.5 / 1, held-out mask, Stockfish's score in centipawns,
    game count). The scale is the evaluation's ``endgame_scale``, which side it favours judged by
    the weights in use: the fit holds it fixed, so the model stays linear. A position
    is kept when it is at least ``skip_plies`` plies past the book, not in check, Stockfish's
    score for it is not a mate, and neither the move played from it nor the move that led to it
    is noisy."""
    import numpy as np
    import scipy.sparse

    import games
    from games.chess.evaluation import N_FEATURES, W_EG, endgame_scale, evaluation_features
    from games.chess.position import in_check
    from games.chess.rules import is_noisy

    game = games.get("chess")
    buffer = np.zeros(N_FEATURES, dtype=np.int32)
    rows, cols, vals, phases, scales, results, held, scores = [], [], [], [], [], [], [], []
    n_games = 0
    with path.open() as handle:
        for line in handle:
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut short by an interrupted run
            n_games += 1
            white_result = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[record["result"]]
            holdout = record["opening"] % 5 == 0
            position = game.parse_position(record["start"])
            previous_noisy = False
            for ply, (text, score) in enumerate(zip(record["moves"], record["scores"])):
                move = np.int32(game.parse_move(position, text))
                noisy = bool(is_noisy(position, move))
                if ply >= skip_plies and score is not None and not noisy and not previous_noisy \
                        and not in_check(position):
                    phase = evaluation_features(position, buffer)
                    nonzero = np.flatnonzero(buffer)
                    rows.append(np.full(len(nonzero), len(phases), dtype=np.int32))
                    cols.append(nonzero.astype(np.int32))
                    vals.append(buffer[nonzero].astype(np.float32))
                    phases.append(phase / 24.0)
                    scales.append(endgame_scale(position, int(buffer[nonzero] @ W_EG[nonzero])))
                    results.append(white_result)
                    held.append(holdout)
                    scores.append(score)
                position = game.play(position, move)
                previous_noisy = noisy
    features = scipy.sparse.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                                       shape=(len(phases), N_FEATURES), dtype=np.float64)
    return (features, np.array(phases), np.array(scales, dtype=np.int64), np.array(results),
            np.array(held, dtype=bool), np.array(scores, dtype=float), n_games)


def white_eval(features, phase, eg_share, w_mg, w_eg):
    """The evaluation from White's side (before rounding) of every row; ``eg_share`` is the
    endgame part's weight, (1 - phase) times the endgame scale."""
    return (features @ w_mg) * phase + (features @ w_eg) * eg_share


def integer_eval(features, phase24, scale, w_mg, w_eg):
    """The evaluation from White's side exactly as ``evaluate`` computes it for White to move
    (integer weights, the endgame part scaled towards zero, floor division by 24; Black to move
    differs by the floor's rounding)."""
    import numpy as np

    mg = np.rint(features @ w_mg).astype(np.int64)
    eg = np.rint(features @ w_eg).astype(np.int64)
    eg = np.sign(eg) * (np.abs(eg) * scale // 64)
    return (mg * phase24 + eg * (24 - phase24)) // 24


def log_loss(evals, results, k):
    """Mean cross-entropy of sigmoid(k * eval) against the results."""
    import numpy as np

    z = k * evals
    # log(1 + exp(-z)) for result 1, log(1 + exp(z)) for 0, mixed for draws.
    return float(np.mean(results * np.logaddexp(0.0, -z) + (1.0 - results) * np.logaddexp(0.0, z)))


def fit_k(evals, results) -> float:
    """The scaling k minimising the log loss of the given evaluations (golden-section search)."""
    low, high = 1e-4, 0.05
    ratio = (5 ** 0.5 - 1) / 2
    for _ in range(80):
        a = high - ratio * (high - low)
        b = low + ratio * (high - low)
        if log_loss(evals, results, a) < log_loss(evals, results, b):
            high = b
        else:
            low = a
    return (low + high) / 2


def adam_fit(features, phase, eg_share, results, k, w_mg, w_eg, seed_mg, seed_eg, epochs, l2, rate):
    """Minimise the mean log loss + sum(l2 * (w - seed)^2) / positions over the weights (Adam,
    full batch); ``l2`` is one pull per weight (a vector as long as ``w_mg``). Returns the new
    (w_mg, w_eg) as floats."""
    import numpy as np

    w = np.concatenate([w_mg, w_eg]).astype(np.float64)
    seed = np.concatenate([seed_mg, seed_eg]).astype(np.float64)
    n = features.shape[1]
    first = np.zeros_like(w)
    second = np.zeros_like(w)
    transposed = features.T.tocsr()
    pull = np.concatenate([l2, l2])
    beta1, beta2 = 0.9, 0.999
    for step in range(1, epochs + 1):
        evals = white_eval(features, phase, eg_share, w[:n], w[n:])
        residual = (1.0 / (1.0 + np.exp(-k * evals)) - results) * k / len(results)
        gradient = np.concatenate([transposed @ (residual * phase), transposed @ (residual * eg_share)])
        gradient += 2.0 * pull * (w - seed) / len(results)
        first = beta1 * first + (1 - beta1) * gradient
        second = beta2 * second + (1 - beta2) * gradient * gradient
        step_rate = rate * (0.05 + 0.95 * (1 - step / epochs))  # linear decay to 5 %
        w -= step_rate * (first / (1 - beta1 ** step)) / (np.sqrt(second / (1 - beta2 ** step)) + 1e-12)
    return w[:n], w[n:]


def check_imported_checkout() -> None:
    """Exit with one line when ``games`` comes from another checkout than this script's (an
    editable install of the main tree while running a worktree's script): the features would
    be that checkout's while the weights are written here."""
    import games

    source = Path(games.__file__).resolve().parent.parent
    if source != REPO:
        sys.exit(f"tune_eval: games is imported from {source}, not from {REPO}; run with PYTHONPATH={REPO}")


def fit(args) -> None:
    """Fit k with the seed weights, then the weights; print the losses; maybe write them."""
    import numpy as np

    check_imported_checkout()

    from games.chess.evaluation import TERMS, flat_weights

    started = time.time()
    features, phase, scale, results, held, sf_scores, n_games = load_positions(args.data / "games.jsonl",
                                                                               args.skip_plies)
    phase24 = np.rint(phase * 24).astype(np.int64)
    eg_share = (1.0 - phase) * scale / 64.0
    train = ~held
    print(f"{n_games} games, {len(results)} positions ({train.sum()} training, {held.sum()} held out) "
          f"in {time.time() - started:.0f} s", flush=True)
    seed_mg, seed_eg = (v.astype(np.float64) for v in flat_weights(seed_weights()))
    x_train, x_held = features[train], features[held]
    k = fit_k(integer_eval(x_train, phase24[train], scale[train], seed_mg, seed_eg), results[train])
    before_train = log_loss(integer_eval(x_train, phase24[train], scale[train], seed_mg, seed_eg), results[train], k)
    before_held = log_loss(integer_eval(x_held, phase24[held], scale[held], seed_mg, seed_eg), results[held], k)
    print(f"k = {k:.6f}; seed loss: training {before_train:.5f}, held out {before_held:.5f}", flush=True)
    # Stockfish's own scores, mapped to an expected result the same way, can soften the labels:
    # target = (1 - blend) * result + blend * sigmoid(k_sf * score). Losses are always measured
    # against the results.
    k_sf = fit_k(sf_scores[train], results[train])
    sf_held = log_loss(sf_scores[held], results[held], k_sf)
    print(f"k_sf = {k_sf:.6f}; Stockfish's scores as the evaluation: held-out loss {sf_held:.5f}", flush=True)
    expected_sf = 1.0 / (1.0 + np.exp(-k_sf * sf_scores[train]))
    # PeSTO's material and tables were tuned on far more data than we have: pull them towards
    # the seed harder than the hand-set terms.
    tables = sum(size for name, size in TERMS if name == "MATERIAL" or name.startswith("PST_"))
    best = None
    for blend in args.blend:
        target = (1.0 - blend) * results[train] + blend * expected_sf
        for l2_tables in args.l2_tables:
            for l2 in args.l2:
                pull = np.full(len(seed_mg), float(l2))
                pull[:tables] = l2_tables
                w_mg, w_eg = adam_fit(x_train, phase[train], eg_share[train], target, k, seed_mg, seed_eg,
                                      seed_mg, seed_eg, args.epochs, pull, args.rate)
                r_mg, r_eg = np.rint(w_mg), np.rint(w_eg)
                train_loss = log_loss(integer_eval(x_train, phase24[train], scale[train], r_mg, r_eg),
                                      results[train], k)
                held_loss = log_loss(integer_eval(x_held, phase24[held], scale[held], r_mg, r_eg), results[held], k)
                print(f"blend {blend:g}, l2 tables {l2_tables:g}, others {l2:g}: training {train_loss:.5f}, "
                      f"held out {held_loss:.5f} ({time.time() - started:.0f} s)", flush=True)
                if best is None or held_loss < best[0]:
                    best = (held_loss, train_loss, (blend, l2_tables, l2), r_mg.astype(int), r_eg.astype(int))
    held_loss, train_loss, (blend, l2_tables, l2), r_mg, r_eg = best
    print(f"chosen blend {blend:g}, l2 tables {l2_tables:g}, others {l2:g}: held-out loss {before_held:.5f} -> "
          f"{held_loss:.5f}")
    if not args.write:
        return
    weights, offset = {}, 0
    for name, size in TERMS:
        weights[name] = [(int(r_mg[offset + i]), int(r_eg[offset + i])) for i in range(size)]
        offset += size
    nodes = sorted({json.loads(line).get("nodes") for line in (args.data / "games.jsonl").open()
                    if line.strip().endswith("}")})
    header = f"""Chess evaluation weights (games/chess/evaluation.py), Texel-tuned; generated, do not edit.

Seed: material and piece-square tables from PeSTO (Ronald Friederich, Rofchade/PeSTO; published
on the Chess Programming Wiki, "PeSTO's Evaluation Function"); hand-set values for the other
terms (scripts/tune_eval.py, ``seed_weights``).

Data: {n_games} games of Stockfish 15.1 against itself at {", ".join(map(str, nodes))} nodes per move
(one thread, 16 MB hash) from the openings of openings-8moves.epd (shuffled, seed 2024),
adjudicated at +-1000 cp for 4 plies or within 10 cp for 12 plies after ply 80. Positions: the
quiet ones (>= {args.skip_plies} plies past the book, not in check, no mate score, neither the move
played nor the one before a capture or promotion) labelled with the game result: {len(results)},
{train.sum()} for training and {held.sum()} held out (the games of every fifth opening).

Fit: logistic loss of sigmoid(k * eval) against the result (White's view), k = {k:.6f} fitted
with the seed weights; Adam, {args.epochs} full-batch epochs, rate {args.rate:g}, L2 pull towards the
seed {l2_tables:g} on material and tables, {l2:g} on the other terms (per position; chosen on the
held-out set among {", ".join(f"{v:g}" for v in args.l2_tables)} and {", ".join(f"{v:g}" for v in args.l2)});
weights rounded.
Loss (cross-entropy per position): seed {before_train:.5f} training / {before_held:.5f} held out;
tuned {train_loss:.5f} training / {held_loss:.5f} held out.

Command: python scripts/tune_eval.py generate --nodes {nodes[0]} (resumed until the budget),
then python scripts/tune_eval.py fit --write --epochs {args.epochs} --rate {args.rate:g} \\
    --l2-tables {" ".join(f"{v:g}" for v in args.l2_tables)} --l2 {" ".join(f"{v:g}" for v in args.l2)} \\
    --skip-plies {args.skip_plies}"""
    write_weights(weights, header)
    print(f"wrote {WEIGHTS_FILE} and the digest in {EVALUATION_FILE}")


def main(argv: list[str] | None = None) -> None:
    """Command line: ``generate`` or ``fit``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    gen = sub.add_parser("generate", help="play Stockfish self-play games into DATA/games.jsonl")
    gen.add_argument("--data", type=Path, default=DEFAULT_DATA)
    gen.add_argument("--minutes", type=float, default=25.0)
    gen.add_argument("--games", type=int, default=0, help="stop after this many games (0: no limit)")
    gen.add_argument("--nodes", type=int, default=3000)
    gen.add_argument("--stockfish", default=find_stockfish())
    gen.add_argument("--workers", type=int, default=1, help="engines playing at once (one core each)")
    fit_parser = sub.add_parser("fit", help="fit K and the weights; --write updates eval_weights.py")
    fit_parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    fit_parser.add_argument("--skip-plies", type=int, default=8, help="plies after the book to skip")
    fit_parser.add_argument("--epochs", type=int, default=1500)
    fit_parser.add_argument("--rate", type=float, default=1.0, help="Adam step size (centipawns)")
    fit_parser.add_argument("--l2", type=float, nargs="+", default=[0.003, 0.01],
                            help="pulls towards the seed of the hand-set terms to try (the best pair on the "
                                 "held-out set wins)")
    fit_parser.add_argument("--l2-tables", type=float, nargs="+", default=[0.1, 1.0],
                            help="pulls towards the seed of PeSTO's material and tables to try")
    fit_parser.add_argument("--blend", type=float, nargs="+", default=[0.0],
                            help="weights of Stockfish's scores in the training targets to try")
    fit_parser.add_argument("--write", action="store_true")
    sub.add_parser("seed", help="write the untuned seed weights (PeSTO) into eval_weights.py")
    args = parser.parse_args(argv)
    if args.command == "generate":
        generate(args)
    elif args.command == "seed":
        write_weights(seed_weights(), SEED_HEADER)
    else:
        fit(args)


if __name__ == "__main__":
    main()
