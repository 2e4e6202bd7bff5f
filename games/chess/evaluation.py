"""The tapered chess evaluation, linear in its weights (games/chess/eval_weights.py).

Every term is a count of some pattern, White's count minus Black's, with a middlegame and an
endgame weight. With ``f`` the feature counts and ``phase`` the game phase (PeSTO's convention:
knight and bishop 1, rook 2, queen 4, capped at 24; 24 is the opening, 0 a pawn ending)::

    mg = sum(W_MG * f)    eg = sum(W_EG * f)    s = +1 White to move, -1 Black to move
    evaluate = clamp((s * mg * phase + s * eg * (24 - phase)) // 24, +-(EVAL_LIMIT - 1))

(the side's sign is applied before the floor division, so mirrored positions score the same),
except that ``eg`` is first scaled by ``endgame_scale`` (below).
``evaluation_features`` writes ``f`` and returns ``phase``: the tuner (scripts/tune_eval.py)
fits the weights by logistic regression over those vectors.

Terms (feature blocks, in order; sizes in ``TERMS``), for each side:
    MATERIAL              pawns, knights, bishops, rooks, queens
    PST_<piece>           a piece on a square (White's view; Black's squares flipped)
    MOBILITY_<piece>      a knight/bishop/rook/queen attacking m squares that hold no own piece
                          and no enemy pawn attacks (one feature per m)
    PASSED_PAWN           a passed pawn (no enemy pawn ahead on its or a neighbouring file, no
                          own pawn ahead on its file) on relative rank 2..7
    ISOLATED_PAWN         a pawn with no own pawn on a neighbouring file
    DOUBLED_PAWN          a pawn beyond the first on its file
    KING_ZONE_ATTACK      squares of the enemy king's zone (the king's square, its neighbours
                          and the three squares two ranks ahead of it) attacked, counted per
                          attacking knight, bishop, rook, queen
    PAWN_SHIELD           own pawns one / two ranks ahead of the king on its and the neighbouring
                          files, while the king is on its first two ranks
    KING_OPEN_FILE        files at or next to the king without own pawns
    ROOK_OPEN_FILE        a rook on a file without pawns
    ROOK_SEMI_OPEN_FILE   a rook on a file with enemy but no own pawns
    BISHOP_PAIR           two bishops or more
    THREAT_BY_PAWN        enemy knights, bishops, rooks, queens attacked by our pawns
    THREAT_BY_MINOR       enemy knights / bishops / rooks / queens attacked by our knights or bishops
    THREAT_BY_ROOK        enemy queens attacked by our rooks
    HANGING               enemy knights, bishops, rooks, queens we attack and they do not defend
    SAFE_CHECK            squares from which our knight / bishop / rook / queen could check the
                          enemy king, that such a piece of ours attacks, not ours and not
                          attacked by the enemy
    CONNECTED_PAWN        a pawn defended by an own pawn or beside one, by relative rank 2..7
    BACKWARD_PAWN         a pawn whose stop square an enemy pawn attacks and no own pawn on a
                          neighbouring file can ever defend
    PASSED_OWN_KING       per passed pawn, by rank: our king's distance to its stop square
    PASSED_ENEMY_KING     the same for the enemy king
    PASSED_FREE           a passed pawn, by rank, whose stop square is empty and not attacked
    OUTPOST               a knight / bishop on relative rank 4..6, defended by an own pawn, where
                          no enemy pawn can ever attack it
    ROOK_ON_SEVENTH       a rook on the relative seventh rank
    BISHOP_PAWNS          per bishop, own pawns on squares of its colour
    MINOR_BEHIND_PAWN     a knight or bishop right behind a pawn (either side's)

Measured: the terms from THREAT_BY_PAWN on, added with a refit of every weight on 5,134 games,
+144 Elo [+102, +191] at 10+0.1 against the evaluation before them (206 games, docs/benchmarks.md).

No tempo term: the start position evaluates to 0 (tests/test_chess_rules.py relies on it).

Outside the tuned linear model, ``mop_up`` steers pawnless endings where one side is a rook or
more ahead towards the mate: the lone defending king driven to the edge (to a corner of the
bishop's colour with bishop and knight alone) and the kings brought together. Such positions are
too rare in games for the tuner to learn it, and a search that cannot see the mate needs it.
Against a bare king (``lone_defence_score``) the evaluation is only the endgame material and the
mop-up, as Stockfish's KXK: mobility and piece-square terms there pull the pieces away from the
mate (long mates of eight endings at 1,000,000 nodes: 68 -> 76 of 80; KBBvK 6 -> 10 of 10).
When those pieces force mate (a queen, a rook, bishops of both colours, bishop and knight),
``KNOWN_WIN_BONUS`` more: such a position is decided, and without the bonus a rook and a knight
sat near 1000 cp, on both sides of the search's decided-node thresholds (long mates at
1,000,000 nodes 240 -> 244 of 260; KRNvK found where it was not). A queen against one lesser
piece (KQvKR, KQvKB, KQvKN, and more beside the queen) is scored the same way, the material
difference plus mop-up and bonus: it sat near 950 cp before (long mates 244 -> 246; from the
endgame suite at 25,000 nodes +10.9 Elo [+2.5, +19.2]).

The endgame score counts in part when the side it favours has little to win with
(``endgame_scale``, in 64ths, Stockfish's material scale factors in ``PIECE_VALUES``): without
pawns, nothing for a minor piece or less, 4/64 for a rook or more against at most a minor piece
and 14/64 against more, unless it is over a bishop ahead (the mop-up's case: all of it); with
bishops of opposite colours, 18/64 plus 4/64 per passed pawn when they are the only pieces, else
22/64 plus 3/64 per man of the strong side; otherwise 36/64 plus 7/64 per pawn of the strong side,
at most all of it. Measured from the endgame suite: +26.7 Elo [+12.4, +41.1] at 50,000 nodes
(300 games; from the ordinary openings -2.3 [-28.1, +23.4]; docs/benchmarks.md).

numba freezes the weight arrays into the compiled code, and its on-disk cache is invalidated only
when *this* file changes: ``WEIGHTS_DIGEST`` below must match the weights (the tuner rewrites it
with them), or the import fails instead of serving stale compiled weights.
"""
import hashlib

import numba as nb
import numpy as np
from numba import types

from games import kernels as K
from games.chess import eval_weights
from games.chess.attacks import bishop_attacks, pawn_attacks_set, rook_attacks
from games.chess.bitops import lsb, popcount
from games.chess.position import BISHOPS, KINGS, KNIGHTS, PAWNS, QUEENS, ROOKS, STATE
from games.chess.tables import KING_ATTACKS, KNIGHT_ATTACKS, PIECE_VALUES

WEIGHTS_DIGEST = "ccb4c1cbbdd65f7d"

TERMS = (("MATERIAL", 5), ("PST_PAWN", 64), ("PST_KNIGHT", 64), ("PST_BISHOP", 64), ("PST_ROOK", 64),
         ("PST_QUEEN", 64), ("PST_KING", 64), ("MOBILITY_KNIGHT", 9), ("MOBILITY_BISHOP", 14),
         ("MOBILITY_ROOK", 15), ("MOBILITY_QUEEN", 28), ("PASSED_PAWN", 6), ("ISOLATED_PAWN", 1),
         ("DOUBLED_PAWN", 1), ("KING_ZONE_ATTACK", 4), ("PAWN_SHIELD", 2), ("KING_OPEN_FILE", 1),
         ("ROOK_OPEN_FILE", 1), ("ROOK_SEMI_OPEN_FILE", 1), ("BISHOP_PAIR", 1),
         ("THREAT_BY_PAWN", 1), ("THREAT_BY_MINOR", 4), ("THREAT_BY_ROOK", 1), ("HANGING", 1), ("SAFE_CHECK", 4),
         ("CONNECTED_PAWN", 6), ("BACKWARD_PAWN", 1), ("PASSED_OWN_KING", 6), ("PASSED_ENEMY_KING", 6),
         ("PASSED_FREE", 6), ("OUTPOST", 2), ("ROOK_ON_SEVENTH", 1), ("BISHOP_PAWNS", 1),
         ("MINOR_BEHIND_PAWN", 1))
OFFSETS = {}
_offset = 0
for _name, _size in TERMS:
    OFFSETS[_name] = _offset
    _offset += _size
N_FEATURES = _offset
PHASE_MAX = 24

MATERIAL = OFFSETS["MATERIAL"]
PST = OFFSETS["PST_PAWN"]
MOB_KNIGHT = OFFSETS["MOBILITY_KNIGHT"]
MOB_BISHOP = OFFSETS["MOBILITY_BISHOP"]
MOB_ROOK = OFFSETS["MOBILITY_ROOK"]
MOB_QUEEN = OFFSETS["MOBILITY_QUEEN"]
PASSED = OFFSETS["PASSED_PAWN"]
ISOLATED = OFFSETS["ISOLATED_PAWN"]
DOUBLED = OFFSETS["DOUBLED_PAWN"]
ZONE = OFFSETS["KING_ZONE_ATTACK"]
SHIELD = OFFSETS["PAWN_SHIELD"]
KING_OPEN = OFFSETS["KING_OPEN_FILE"]
ROOK_OPEN = OFFSETS["ROOK_OPEN_FILE"]
ROOK_SEMI = OFFSETS["ROOK_SEMI_OPEN_FILE"]
BISHOP_PAIR = OFFSETS["BISHOP_PAIR"]
THREAT_PAWN = OFFSETS["THREAT_BY_PAWN"]
THREAT_MINOR = OFFSETS["THREAT_BY_MINOR"]
THREAT_ROOK = OFFSETS["THREAT_BY_ROOK"]
HANGING = OFFSETS["HANGING"]
SAFE_CHECK = OFFSETS["SAFE_CHECK"]
CONNECTED = OFFSETS["CONNECTED_PAWN"]
BACKWARD = OFFSETS["BACKWARD_PAWN"]
PASSED_OWN_KING = OFFSETS["PASSED_OWN_KING"]
PASSED_ENEMY_KING = OFFSETS["PASSED_ENEMY_KING"]
PASSED_FREE = OFFSETS["PASSED_FREE"]
OUTPOST = OFFSETS["OUTPOST"]
ROOK_SEVENTH = OFFSETS["ROOK_ON_SEVENTH"]
BISHOP_PAWNS = OFFSETS["BISHOP_PAWNS"]
MINOR_BEHIND_PAWN = OFFSETS["MINOR_BEHIND_PAWN"]


def flat_weights(weights) -> tuple[np.ndarray, np.ndarray]:
    """(mg, eg) int64 vectors in feature order from a module or dict of per-term (mg, eg) pairs."""
    mg, eg = [], []
    for name, size in TERMS:
        pairs = weights[name] if isinstance(weights, dict) else getattr(weights, name)
        if len(pairs) != size:
            raise ValueError(f"eval weights: {name} has {len(pairs)} entries, expected {size}")
        mg.extend(int(p[0]) for p in pairs)
        eg.extend(int(p[1]) for p in pairs)
    return np.array(mg, dtype=np.int64), np.array(eg, dtype=np.int64)


def weights_digest(mg: np.ndarray, eg: np.ndarray) -> str:
    """A short digest of the weight vectors (what ``WEIGHTS_DIGEST`` must equal)."""
    return hashlib.sha256(mg.astype(np.int64).tobytes() + eg.astype(np.int64).tobytes()).hexdigest()[:16]


W_MG, W_EG = flat_weights(eval_weights)
if weights_digest(W_MG, W_EG) != WEIGHTS_DIGEST:
    raise ImportError(f"games/chess/eval_weights.py does not match WEIGHTS_DIGEST in {__file__}: set it to "
                      f"{weights_digest(W_MG, W_EG)!r} (numba's cache would otherwise keep the old weights)")

# Material folded into the piece-square tables: PSQ_*[piece_type * 64 + square], White's view.
PSQ_MG = np.array([W_MG[PST + t * 64 + sq] + (W_MG[MATERIAL + t] if t < 5 else 0)
                   for t in range(6) for sq in range(64)], dtype=np.int64)
PSQ_EG = np.array([W_EG[PST + t * 64 + sq] + (W_EG[MATERIAL + t] if t < 5 else 0)
                   for t in range(6) for sq in range(64)], dtype=np.int64)


def _mask(squares) -> int:
    bits = 0
    for square in squares:
        bits |= 1 << square
    return bits


def _king_tables():
    """KING_ZONE, SHIELD_NEAR, SHIELD_FAR indexed [colour * 64 + king square]."""
    zone, near, far = [], [], []
    for colour in range(2):
        forward = 1 if colour == 0 else -1
        for square in range(64):
            file, rank = square & 7, square >> 3
            files = [f for f in (file - 1, file, file + 1) if 0 <= f < 8]
            ahead = [r for r in (rank + 2 * forward,) if 0 <= r < 8]
            zone.append(int(KING_ATTACKS[square]) | (1 << square) | _mask(r * 8 + f for r in ahead for f in files))
            home = rank if colour == 0 else 7 - rank
            if home <= 1:
                near.append(_mask((rank + forward) * 8 + f for f in files))
                far.append(_mask((rank + 2 * forward) * 8 + f for f in files))
            else:
                near.append(0)
                far.append(0)
    as_array = lambda values: np.array(values, dtype=np.uint64)  # noqa: E731
    return as_array(zone), as_array(near), as_array(far)


KING_ZONE, SHIELD_NEAR, SHIELD_FAR = _king_tables()
# KING_FILES[file]: the king's file and its neighbours, as a byte of files.
KING_FILES = np.array([(0b111 << f >> 1) & 0xFF for f in range(8)], dtype=np.uint64)

# Chebyshev distance between two squares, indexed [a * 64 + b].
DISTANCE = np.array([max(abs(a % 8 - b % 8), abs(a // 8 - b // 8)) for a in range(64) for b in range(64)],
                    dtype=np.int64)
# Per colour: relative ranks 4..6 (outposts) and the relative seventh rank.
OUTPOST_RANKS = np.array([0x0000FFFFFF000000, 0x000000FFFFFF0000], dtype=np.uint64)
SEVENTH_RANK = np.array([0x00FF000000000000, 0x000000000000FF00], dtype=np.uint64)

U64 = types.uint64
ONE = types.uint64(1)
DARK_SQUARES = types.uint64(0xAA55AA55AA55AA55)  # a1 is dark
NOT_A_FILE = types.uint64(0xFEFEFEFEFEFEFEFE)
NOT_H_FILE = types.uint64(0x7F7F7F7F7F7F7F7F)
BYTE = types.uint64(0xFF)
EVERY_RANK = types.uint64(0x0101010101010101)
FEATURES = types.Array(types.int32, 1, "C")


@nb.njit(U64(U64), cache=True)
def file_set(bits):
    """The files holding a piece of ``bits``, as a byte (bit f = file f)."""
    bits |= bits >> types.uint64(32)
    bits |= bits >> types.uint64(16)
    bits |= bits >> types.uint64(8)
    return bits & BYTE


@nb.njit(U64(U64), cache=True)
def fill_down(bits):
    """``bits`` and every square below them on their files."""
    bits |= bits >> types.uint64(8)
    bits |= bits >> types.uint64(16)
    bits |= bits >> types.uint64(32)
    return bits


@nb.njit(U64(U64), cache=True)
def fill_up(bits):
    """``bits`` and every square above them on their files."""
    bits |= bits << types.uint64(8)
    bits |= bits << types.uint64(16)
    bits |= bits << types.uint64(32)
    return bits


@nb.njit(U64(U64), cache=True)
def beside(bits):
    """The squares beside ``bits`` on the same rank."""
    return ((bits & NOT_A_FILE) >> ONE) | ((bits & NOT_H_FILE) << ONE)


@nb.njit(U64(U64), cache=True)
def with_neighbour_files(bits):
    """``bits`` and the squares beside them on the same rank."""
    return bits | beside(bits)


# No signature: compiled for each way it is called (``evaluate``: ``out`` None; the tuner's
# ``evaluation_features``: an int32 array), so that playing never compiles the tuner's variant.
@nb.njit(cache=True)
def terms(pos, out):
    """(mg, eg, phase) of ``pos`` from White's side; with an ``out`` array (zeroed by the
    caller) the feature counts are added to it instead and mg, eg are 0. The ``out is None``
    branches are pruned at compile time, so ``evaluate`` carries none of the feature writes."""
    white = pos[0]
    black = pos[1]
    occupied = white | black
    pawns = pos[PAWNS]
    bishops = pos[BISHOPS]
    rooks = pos[ROOKS]
    queens = pos[QUEENS]
    kings = pos[KINGS]
    pawn_attacks = (pawn_attacks_set(pawns & white, 0), pawn_attacks_set(pawns & black, 1))
    king_squares = (lsb(kings & white), lsb(kings & black))
    pawn_files = (file_set(pawns & white), file_set(pawns & black))
    phase = popcount(pos[KNIGHTS] | bishops) + 2 * popcount(rooks) + 4 * popcount(queens)
    if phase > PHASE_MAX:
        phase = PHASE_MAX
    mg = 0
    eg = 0
    zero = U64(0)
    # Squares attacked per colour by its knights, bishops, rooks, queens (for the threat terms).
    white_attacks = (zero, zero, zero, zero)
    black_attacks = (zero, zero, zero, zero)
    for colour in range(2):
        sign = 1 - 2 * colour
        flip = 56 * colour
        own = pos[colour]
        own_pawns = pawns & own
        own_files = pawn_files[colour]
        enemy_files = pawn_files[1 - colour]
        own_king = king_squares[colour]
        zone = KING_ZONE[(1 - colour) * 64 + king_squares[1 - colour]]
        area = ~own & ~pawn_attacks[1 - colour]
        c_mg = 0
        c_eg = 0

        # Material and piece-square tables.
        for piece_type in range(6):
            bits = pos[PAWNS + piece_type] & own
            while bits:
                square = lsb(bits) ^ flip
                if out is None:
                    c_mg += PSQ_MG[piece_type * 64 + square]
                    c_eg += PSQ_EG[piece_type * 64 + square]
                else:
                    out[PST + piece_type * 64 + square] += sign
                    if piece_type < 5:
                        out[MATERIAL + piece_type] += sign
                bits &= bits - ONE

        # Mobility and attacks on the enemy king's zone, per piece type.
        zone_knight = 0
        zone_bishop = 0
        zone_rook = 0
        zone_queen = 0
        open_rooks = 0
        semi_open_rooks = 0
        by_knights = zero
        by_bishops = zero
        by_rooks = zero
        by_queens = zero
        bits = pos[KNIGHTS] & own
        while bits:
            attacks = KNIGHT_ATTACKS[lsb(bits)]
            index = MOB_KNIGHT + popcount(attacks & area)
            if out is None:
                c_mg += W_MG[index]
                c_eg += W_EG[index]
            else:
                out[index] += sign
            zone_knight += popcount(attacks & zone)
            by_knights |= attacks
            bits &= bits - ONE
        bits = bishops & own
        while bits:
            attacks = bishop_attacks(occupied, lsb(bits))
            index = MOB_BISHOP + popcount(attacks & area)
            if out is None:
                c_mg += W_MG[index]
                c_eg += W_EG[index]
            else:
                out[index] += sign
            zone_bishop += popcount(attacks & zone)
            by_bishops |= attacks
            bits &= bits - ONE
        bits = rooks & own
        while bits:
            square = lsb(bits)
            attacks = rook_attacks(occupied, square)
            index = MOB_ROOK + popcount(attacks & area)
            if out is None:
                c_mg += W_MG[index]
                c_eg += W_EG[index]
            else:
                out[index] += sign
            zone_rook += popcount(attacks & zone)
            by_rooks |= attacks
            file_bit = ONE << types.uint64(square & 7)
            if not (own_files & file_bit):
                if enemy_files & file_bit:
                    semi_open_rooks += 1
                else:
                    open_rooks += 1
            bits &= bits - ONE
        bits = queens & own
        while bits:
            square = lsb(bits)
            attacks = bishop_attacks(occupied, square) | rook_attacks(occupied, square)
            index = MOB_QUEEN + popcount(attacks & area)
            if out is None:
                c_mg += W_MG[index]
                c_eg += W_EG[index]
            else:
                out[index] += sign
            zone_queen += popcount(attacks & zone)
            by_queens |= attacks
            bits &= bits - ONE
        if colour == 0:
            white_attacks = (by_knights, by_bishops, by_rooks, by_queens)
        else:
            black_attacks = (by_knights, by_bishops, by_rooks, by_queens)

        # Pawn structure: isolated and doubled pawns (passed pawns in threat_and_pawn_terms).
        lonely_files = own_files & ~(((own_files << ONE) | (own_files >> ONE)) & BYTE)
        isolated = popcount(own_pawns & (lonely_files * EVERY_RANK))
        doubled = popcount(own_pawns) - popcount(own_files)

        # King safety: the pawn shield and open files around our king.
        shield_near = popcount(own_pawns & SHIELD_NEAR[colour * 64 + own_king])
        shield_far = popcount(own_pawns & SHIELD_FAR[colour * 64 + own_king])
        king_open = popcount(KING_FILES[own_king & 7] & ~own_files)
        bishop_pair = 1 if popcount(bishops & own) >= 2 else 0

        if out is None:
            c_mg += (W_MG[ISOLATED] * isolated + W_MG[DOUBLED] * doubled + W_MG[ZONE] * zone_knight
                     + W_MG[ZONE + 1] * zone_bishop + W_MG[ZONE + 2] * zone_rook + W_MG[ZONE + 3] * zone_queen
                     + W_MG[SHIELD] * shield_near + W_MG[SHIELD + 1] * shield_far + W_MG[KING_OPEN] * king_open
                     + W_MG[ROOK_OPEN] * open_rooks + W_MG[ROOK_SEMI] * semi_open_rooks
                     + W_MG[BISHOP_PAIR] * bishop_pair)
            c_eg += (W_EG[ISOLATED] * isolated + W_EG[DOUBLED] * doubled + W_EG[ZONE] * zone_knight
                     + W_EG[ZONE + 1] * zone_bishop + W_EG[ZONE + 2] * zone_rook + W_EG[ZONE + 3] * zone_queen
                     + W_EG[SHIELD] * shield_near + W_EG[SHIELD + 1] * shield_far + W_EG[KING_OPEN] * king_open
                     + W_EG[ROOK_OPEN] * open_rooks + W_EG[ROOK_SEMI] * semi_open_rooks
                     + W_EG[BISHOP_PAIR] * bishop_pair)
            mg += sign * c_mg
            eg += sign * c_eg
        else:
            out[ISOLATED] += sign * isolated
            out[DOUBLED] += sign * doubled
            out[ZONE] += sign * zone_knight
            out[ZONE + 1] += sign * zone_bishop
            out[ZONE + 2] += sign * zone_rook
            out[ZONE + 3] += sign * zone_queen
            out[SHIELD] += sign * shield_near
            out[SHIELD + 1] += sign * shield_far
            out[KING_OPEN] += sign * king_open
            out[ROOK_OPEN] += sign * open_rooks
            out[ROOK_SEMI] += sign * semi_open_rooks
            out[BISHOP_PAIR] += sign * bishop_pair
    attacks = (white_attacks, black_attacks)
    attacked = (all_attacks(white_attacks, pawn_attacks[0], king_squares[0]),
                all_attacks(black_attacks, pawn_attacks[1], king_squares[1]))
    for colour in range(2):
        c_mg, c_eg = threat_and_pawn_terms(pos, colour, attacks[colour], attacked, pawn_attacks, king_squares, out)
        mg += c_mg
        eg += c_eg
    return mg, eg, phase


@nb.njit(cache=True)
def add_term(out, index, count, sign):
    """``count`` times the term at ``index``: its signed (mg, eg), or, with an ``out`` array,
    added to the feature counts (then (0, 0))."""
    if out is None:
        return sign * W_MG[index] * count, sign * W_EG[index] * count
    out[index] += sign * count
    return 0, 0


@nb.njit(cache=True)
def all_attacks(piece_attacks, pawn_attacks, king_square):
    """Every square one side attacks: ``piece_attacks`` (by its knights, bishops, rooks, queens),
    its pawns' and its king's."""
    return (piece_attacks[0] | piece_attacks[1] | piece_attacks[2] | piece_attacks[3] | pawn_attacks
            | KING_ATTACKS[king_square])


@nb.njit(U64(K.POSITION, types.int64), cache=True)
def passed_pawns(pos, colour):
    """``colour``'s passed pawns: no enemy pawn ahead on its or a neighbouring file, no own pawn
    ahead on its file."""
    own_pawns = pos[PAWNS] & pos[colour]
    enemy_pawns = pos[PAWNS] & pos[1 - colour]
    if colour == 0:
        stoppers = fill_down(with_neighbour_files(enemy_pawns) >> types.uint64(8))
        behind_own = fill_down(own_pawns >> types.uint64(8))
    else:
        stoppers = fill_up(with_neighbour_files(enemy_pawns) << types.uint64(8))
        behind_own = fill_up(own_pawns << types.uint64(8))
    return own_pawns & ~stoppers & ~behind_own


@nb.njit(cache=True)
def threat_and_pawn_terms(pos, colour, own_attacks, attacked, pawn_attacks, king_squares, out):
    """The signed (mg, eg) of ``colour``'s threats, safe checks, connected and backward pawns,
    passed-pawn details, outposts and piece placement (the terms from THREAT_BY_PAWN on);
    ``own_attacks``: squares attacked by our (knights, bishops, rooks, queens); ``attacked``:
    every square each side attacks (White's, Black's)."""
    sign = 1 - 2 * colour
    own = pos[colour]
    enemy = pos[1 - colour]
    occupied = own | enemy
    pawns = pos[PAWNS]
    own_pawns = pawns & own
    own_king = king_squares[colour]
    enemy_king = king_squares[1 - colour]
    own_minors = own_attacks[0] | own_attacks[1]
    own_all = attacked[colour]
    enemy_all = attacked[1 - colour]
    enemy_pieces = enemy & (pos[KNIGHTS] | pos[BISHOPS] | pos[ROOKS] | pos[QUEENS])
    mg = 0
    eg = 0

    # Threats against enemy pieces.
    a, b = add_term(out, THREAT_PAWN, popcount(pawn_attacks[colour] & enemy_pieces), sign)
    mg += a
    eg += b
    for victim in range(4):
        a, b = add_term(out, THREAT_MINOR + victim, popcount(own_minors & enemy & pos[KNIGHTS + victim]), sign)
        mg += a
        eg += b
    a, b = add_term(out, THREAT_ROOK, popcount(own_attacks[2] & enemy & pos[QUEENS]), sign)
    mg += a
    eg += b
    a, b = add_term(out, HANGING, popcount(enemy_pieces & own_all & ~enemy_all), sign)
    mg += a
    eg += b

    # Safe checks: squares that would check the enemy king, reachable and not defended.
    safe = ~own & ~enemy_all
    diagonal = bishop_attacks(occupied, enemy_king)
    straight = rook_attacks(occupied, enemy_king)
    checks = (KNIGHT_ATTACKS[enemy_king] & own_attacks[0], diagonal & own_attacks[1], straight & own_attacks[2],
              (diagonal | straight) & own_attacks[3])
    for piece in range(4):
        a, b = add_term(out, SAFE_CHECK + piece, popcount(checks[piece] & safe), sign)
        mg += a
        eg += b

    # Pawns: connected (defended or side by side), backward.
    flip = 56 * colour
    connected = own_pawns & (pawn_attacks[colour] | beside(own_pawns))
    while connected:
        a, b = add_term(out, CONNECTED + ((lsb(connected) ^ flip) >> 3) - 1, 1, sign)
        mg += a
        eg += b
        connected &= connected - ONE
    if colour == 0:
        stops = own_pawns << types.uint64(8)
        own_spans = fill_up(pawn_attacks[0])
        enemy_spans = fill_down(pawn_attacks[1])
        backward = (stops & pawn_attacks[1] & ~own_spans) >> types.uint64(8)
        behind_pawn = pawns >> types.uint64(8)
    else:
        stops = own_pawns >> types.uint64(8)
        own_spans = fill_down(pawn_attacks[1])
        enemy_spans = fill_up(pawn_attacks[0])
        backward = (stops & pawn_attacks[0] & ~own_spans) << types.uint64(8)
        behind_pawn = pawns << types.uint64(8)
    a, b = add_term(out, BACKWARD, popcount(backward), sign)
    mg += a
    eg += b

    # Passed pawns: by rank, the kings' distances to the stop square, and a free stop square.
    passed = passed_pawns(pos, colour)
    while passed:
        square = lsb(passed)
        rank_index = ((square ^ flip) >> 3) - 1
        stop = square + 8 - 16 * colour
        a, b = add_term(out, PASSED + rank_index, 1, sign)
        mg += a
        eg += b
        a, b = add_term(out, PASSED_OWN_KING + rank_index, DISTANCE[own_king * 64 + stop], sign)
        mg += a
        eg += b
        a, b = add_term(out, PASSED_ENEMY_KING + rank_index, DISTANCE[enemy_king * 64 + stop], sign)
        mg += a
        eg += b
        if not ((occupied | enemy_all) & (ONE << types.uint64(stop))):
            a, b = add_term(out, PASSED_FREE + rank_index, 1, sign)
            mg += a
            eg += b
        passed &= passed - ONE

    # Pieces: outposts, rooks on the seventh, bishops hemmed in by own pawns, minors behind pawns.
    outposts = OUTPOST_RANKS[colour] & pawn_attacks[colour] & ~enemy_spans
    own_bishops = pos[BISHOPS] & own
    for piece in range(2):
        a, b = add_term(out, OUTPOST + piece, popcount(pos[KNIGHTS + piece] & own & outposts), sign)
        mg += a
        eg += b
    a, b = add_term(out, ROOK_SEVENTH, popcount(pos[ROOKS] & own & SEVENTH_RANK[colour]), sign)
    mg += a
    eg += b
    same_colour = 0
    bits = own_bishops
    while bits:
        square_colour = DARK_SQUARES if (ONE << types.uint64(lsb(bits))) & DARK_SQUARES else ~DARK_SQUARES
        same_colour += popcount(own_pawns & square_colour)
        bits &= bits - ONE
    a, b = add_term(out, BISHOP_PAWNS, same_colour, sign)
    mg += a
    eg += b
    a, b = add_term(out, MINOR_BEHIND_PAWN, popcount((pos[KNIGHTS] | own_bishops) & own & behind_pawn), sign)
    mg += a
    eg += b
    return mg, eg


# Mop-up (pawnless endings a rook or more ahead): centipawns per step of the weak king from the
# centre (or from a corner of the bishop's colour, with bishop and knight alone) and per step the
# kings come closer. Material is counted in PIECE_VALUES (a bishop and a knight: 650).
# The steps are large enough to outweigh the pull of the piece-square and mobility terms: at 10
# and 4 cp the search found 12 of 20 long KQvK mates at 1 s, at 25 and 10 14 (Stockfish 20, same
# run; checks no longer extended in decided nodes in both).
MOPUP_LEAD = 400
KNOWN_WIN_BONUS = 1000  # a bare king against a forced mate: decided beyond every threshold (Stockfish's KXK)
MOPUP_EDGE = 25
MOPUP_CLOSE = 10
CENTRE_DISTANCE = np.array([max(3 - f, f - 4) + max(3 - r, r - 4) for r in range(8) for f in range(8)],
                           dtype=np.int64)  # Manhattan steps to the four centre squares: 0..6


@nb.njit(types.int64(K.POSITION, types.int64), cache=True)
def non_pawn_material(pos, colour):
    """``colour``'s knights, bishops, rooks and queens counted in ``PIECE_VALUES``."""
    material = 0
    for piece_type in range(1, 5):
        material += PIECE_VALUES[piece_type] * popcount(pos[PAWNS + piece_type] & pos[colour])
    return material


@nb.njit(types.int64(K.POSITION), cache=True)
def mop_up(pos):
    """The mop-up bonus from White's side: nonzero only without pawns and with one side at least
    ``MOPUP_LEAD`` of material ahead (module docstring)."""
    if pos[PAWNS]:
        return 0
    material = (non_pawn_material(pos, 0), non_pawn_material(pos, 1))
    lead = material[0] - material[1]
    if abs(lead) < MOPUP_LEAD:
        return 0
    strong = 0 if lead > 0 else 1
    strong_king = lsb(pos[KINGS] & pos[strong])
    weak_king = lsb(pos[KINGS] & pos[1 - strong])
    edge = CENTRE_DISTANCE[weak_king]
    bishops = pos[BISHOPS] & pos[strong]
    if material[strong] == PIECE_VALUES[1] + PIECE_VALUES[2] and bishops and material[1 - strong] == 0:
        # Bishop and knight mate only in a corner of the bishop's colour: 6 minus the weak
        # king's (Chebyshev) distance to the nearer of those two corners.
        corners = (0, 63) if bishops & DARK_SQUARES else (7, 56)
        near = 7
        for corner in corners:
            near = min(near, max(abs(corner % 8 - weak_king % 8), abs(corner // 8 - weak_king // 8)))
        edge = 6 - min(near, 6)
    apart = abs(strong_king % 8 - weak_king % 8) + abs(strong_king // 8 - weak_king // 8)
    bonus = MOPUP_EDGE * edge + MOPUP_CLOSE * (14 - apart)
    return bonus if strong == 0 else -bonus


@nb.njit(types.boolean(K.POSITION, types.int64), cache=True)
def mates_by_force(pos, strong):
    """Whether ``strong``'s pieces can force mate on a bare king: a queen, a rook, bishops of
    both colours, or a bishop and a knight."""
    own = pos[strong]
    bishops = pos[BISHOPS] & own
    return bool((pos[QUEENS] | pos[ROOKS]) & own) or (bishops & DARK_SQUARES != 0 and bishops & ~DARK_SQUARES != 0) \
        or (bishops != 0 and pos[KNIGHTS] & own != 0)


@nb.njit(types.int64(K.POSITION), cache=True)
def lone_defence_score(pos):
    """From White's side, for a pawnless position where one side defends with a bare king, or
    with one piece other than a queen against a queen, and the other leads by at least
    ``MOPUP_LEAD`` (counted as ``mop_up`` counts it): the difference of their endgame material
    weights plus the mop-up bonus, ``KNOWN_WIN_BONUS`` more when the strong side's pieces force
    mate, and nothing else (module docstring); 0 for any other position."""
    for weak in range(2):
        strong = 1 - weak
        defenders = pos[weak] & ~pos[KINGS]
        if defenders:
            # A queen against one lesser piece wins as surely as against a bare king (Stockfish's KQKR).
            if popcount(defenders) != 1 or defenders & pos[QUEENS] or not pos[QUEENS] & pos[strong]:
                continue
        lead = 0
        material = 0
        for piece_type in range(1, 5):
            count = popcount(pos[PAWNS + piece_type] & pos[strong])
            lead += PIECE_VALUES[piece_type] * count
            material += W_EG[MATERIAL + piece_type] * count
            count = popcount(pos[PAWNS + piece_type] & pos[weak])
            lead -= PIECE_VALUES[piece_type] * count
            material -= W_EG[MATERIAL + piece_type] * count
        if lead < MOPUP_LEAD:
            return 0
        if mates_by_force(pos, strong):
            material += KNOWN_WIN_BONUS
        return mop_up(pos) + (material if strong == 0 else -material)
    return 0


# Endgame scale: how much of the endgame score counts, in 64ths, by the material the side it
# favours has to win with (Stockfish's scale factors, in PIECE_VALUES).
SCALE_FULL = 64


@nb.njit(types.int64(K.POSITION, types.int64), cache=True)
def endgame_scale(pos, eg):
    """The share of the endgame score ``eg`` (White's side) that counts, in 64ths
    (``SCALE_FULL`` is all of it), judged by the side ``eg`` favours (module docstring)."""
    strong = 0 if eg > 0 else 1
    strong_pawns = popcount(pos[PAWNS] & pos[strong])
    strong_pieces = non_pawn_material(pos, strong)
    weak_pieces = non_pawn_material(pos, 1 - strong)
    if strong_pawns == 0:
        if strong_pieces - weak_pieces > PIECE_VALUES[2]:
            return SCALE_FULL  # more than a bishop ahead: a win (the mop-up steers it from 400 up)
        if strong_pieces < PIECE_VALUES[3]:
            return 0  # less than a rook's worth cannot win
        return 4 if weak_pieces <= PIECE_VALUES[2] else 14
    bishops = pos[BISHOPS]
    if (popcount(bishops & pos[0]) == 1 and popcount(bishops & pos[1]) == 1
            and popcount(bishops & DARK_SQUARES) == 1):  # bishops of opposite colours
        if strong_pieces == PIECE_VALUES[2] and weak_pieces == PIECE_VALUES[2]:
            return 18 + 4 * popcount(passed_pawns(pos, strong))
        return min(SCALE_FULL, 22 + 3 * popcount(pos[strong]))
    return min(SCALE_FULL, 36 + 7 * strong_pawns)


@nb.njit(types.int64(types.int64, types.int64), cache=True)
def scaled(eg, scale):
    """``eg * scale / 64`` rounded towards zero (so that mirrored positions score the same)."""
    return eg * scale // SCALE_FULL if eg >= 0 else -(-eg * scale // SCALE_FULL)


@nb.njit(K.EVALUATE_SIGNATURE, cache=True)
def evaluate(pos):
    """The tapered evaluation of ``pos`` in centipawns from the side to move's point of view,
    strictly inside ``+-EVAL_LIMIT``."""
    bare = 0 if pos[PAWNS] else lone_defence_score(pos)
    if bare:
        score = -bare if pos[STATE] & ONE else bare
    else:
        mg, eg, phase = terms(pos, None)
        eg = scaled(eg, endgame_scale(pos, eg))
        if pos[STATE] & ONE:
            mg = -mg
            eg = -eg
        score = (mg * phase + eg * (PHASE_MAX - phase)) // PHASE_MAX
        if not pos[PAWNS]:
            score += -mop_up(pos) if pos[STATE] & ONE else mop_up(pos)
    limit = K.EVAL_LIMIT - 1
    return np.int32(max(-limit, min(limit, score)))


@nb.njit(cache=True)  # the tuner's: compiled on its first call, not when the evaluation loads
def evaluation_features(pos, out):
    """Write the ``N_FEATURES`` feature counts of ``pos`` (White minus Black) into ``out`` (an
    int32 array, ``FEATURES``) and return the game phase (0..24): ``evaluate`` is their tapered
    dot product with the weights (module docstring)."""
    for i in range(N_FEATURES):
        out[i] = 0
    return terms(pos, out)[2]
