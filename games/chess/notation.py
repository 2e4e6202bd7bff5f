"""FEN and UCI notation for chess positions and moves, with the validity checks of a FEN.

A FEN is refused (``NotationError`` with a one-line reason) when it is malformed or describes a
position that cannot arise: a wrong number of fields, bad ranks or characters (two digits in a
row, as in ``44``), missing or extra kings, pawns on the first or last rank, more than 16 pieces
or 8 pawns a side, more promoted pieces than missing pawns, castling rights without the king and
rook at home, an impossible en-passant square, the side not to move in check, a check by three
or more pieces, bad counters. An en-passant square that is possible but allows no legal capture is
dropped (as python-chess writes FENs), so equal positions give equal arrays and hashes.

Castling: standard chess takes ``KQkq`` with the king on e1/e8 and the rook on the corner.
Chess960 (``chess960=True``) also takes X-FEN / Shredder-FEN file letters (``HAha``), with the
king anywhere on its back rank between the rooks.
"""
from __future__ import annotations

import numpy as np

from games.chess import position as P
from games.chess.makemove import play
from games.chess.movegen import MAX_MOVES, legal_moves
from games.chess.moves import move_origin, move_target, move_promotion
from games.game import NotationError
from runtime.text import is_ascii_number

STANDARD_START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
FILES = "abcdefgh"
PROMOTION_LETTERS = " nbrq"  # by promotion piece type 1..4
SIGNATURE_ORDER = "KQRBNP"
COLOUR_NAMES = ("White", "Black")
MAX_HALFMOVE = 0xFFFF
MAX_FULLMOVE = 2**31 - 1


def square_name(square: int) -> str:
    """``0`` -> ``a1``."""
    return FILES[square & 7] + str((square >> 3) + 1)


def parse_square(text: str) -> int:
    """``a1`` -> ``0``; NotationError for anything else."""
    if len(text) != 2 or text[0] not in FILES or text[1] not in "12345678":
        raise NotationError(f"bad square {text!r}")
    return FILES.index(text[0]) + 8 * (int(text[1]) - 1)


def _parse_board(text: str) -> list[tuple[int, int]]:
    """(piece code, square) pairs of a FEN board field."""
    ranks = text.split("/")
    if len(ranks) != 8:
        raise NotationError(f"FEN board needs 8 ranks separated by '/', got {len(ranks)}")
    pieces = []
    for index, rank_text in enumerate(ranks):
        rank = 7 - index
        file = 0
        previous = ""
        for char in rank_text:
            if char in "12345678":
                if previous and previous in "12345678":
                    raise NotationError(f"FEN rank {rank + 1} ({rank_text!r}) has two digits in a row")
                file += int(char)
            elif char in P.PIECE_SYMBOLS:
                if file < 8:
                    pieces.append((P.PIECE_SYMBOLS.index(char), rank * 8 + file))
                file += 1
            else:
                raise NotationError(f"bad character {char!r} in FEN rank {rank + 1}")
            previous = char
        if file != 8:
            raise NotationError(f"FEN rank {rank + 1} ({rank_text!r}) covers {file} files, not 8")
    return pieces


def _check_material(pieces: list[tuple[int, int]]) -> None:
    for colour in (0, 1):
        name = COLOUR_NAMES[colour]
        codes = [code for code, _ in pieces if code // 6 == colour]
        kings = codes.count(colour * 6 + P.KING)
        if kings != 1:
            raise NotationError(f"{name} has {kings} kings (needs exactly 1)")
        if len(codes) > 16:
            raise NotationError(f"{name} has {len(codes)} pieces (at most 16)")
        pawns = codes.count(colour * 6 + P.PAWN)
        if pawns > 8:
            raise NotationError(f"{name} has {pawns} pawns (at most 8)")
        promoted = sum(max(0, codes.count(colour * 6 + kind) - start)
                       for kind, start in ((P.QUEEN, 1), (P.ROOK, 2), (P.BISHOP, 2), (P.KNIGHT, 2)))
        if pawns + promoted > 8:
            raise NotationError(f"{name} has {pawns} pawns and at least {promoted} promoted pieces "
                                "(at most 8 together)")
    for code, square in pieces:
        if code % 6 == P.PAWN and square >> 3 in (0, 7):
            raise NotationError(f"pawn on {square_name(square)}: pawns cannot stand on the first or last rank")


def _parse_castling(text: str, board: dict[int, int], chess960: bool) -> int:
    """The castling-rook bitboard of a FEN castling field."""
    if text == "-":
        return 0
    rooks = 0
    seen = set()
    for char in text:
        if char in seen:
            raise NotationError(f"castling right {char!r} given twice")
        seen.add(char)
        colour = 0 if char.isupper() else 1
        back_rank = 56 * colour
        king_code, rook_code = colour * 6 + P.KING, colour * 6 + P.ROOK
        king_square = next((sq for sq, code in board.items() if code == king_code), -1)
        name = COLOUR_NAMES[colour]
        if char.lower() not in "kq" and not (chess960 and char.lower() in FILES):
            raise NotationError(f"bad castling field {text!r}")
        if not chess960:
            rook_square = back_rank + (7 if char.lower() == "k" else 0)
            if king_square != back_rank + 4 or board.get(rook_square) != rook_code:
                raise NotationError(f"castling right {char} needs the {name} king on {square_name(back_rank + 4)} "
                                    f"and a rook on {square_name(rook_square)}")
        else:
            if king_square >> 3 != back_rank >> 3:
                raise NotationError(f"castling right {char} needs the {name} king on its back rank")
            if char.lower() == "k":
                files = [f for f in range(7, (king_square & 7), -1) if board.get(back_rank + f) == rook_code]
            elif char.lower() == "q":
                files = [f for f in range(0, king_square & 7) if board.get(back_rank + f) == rook_code]
            else:
                files = [FILES.index(char.lower())] if board.get(back_rank + FILES.index(char.lower())) == rook_code else []
            if not files:
                raise NotationError(f"castling right {char} has no {name} rook to castle with")
            rook_square = back_rank + files[0]
        side = "k" if rook_square > king_square else "q"
        if (colour, side) in seen:
            raise NotationError(f"{name} has two castling rights on the same side ({text!r})")
        seen.add((colour, side))
        rooks |= 1 << rook_square
    return rooks


def _parse_counter(text: str, name: str, low: int, high: int) -> int:
    if not is_ascii_number(text) or not low <= int(text) <= high:
        raise NotationError(f"bad {name} {text!r} (an integer from {low} to {high})")
    return int(text)


def parse_fen(text: str, chess960: bool = False) -> np.ndarray:
    """A position array from a FEN (6 fields, or the first 4 as in EPD) or ``startpos``."""
    text = text.strip()
    if text == "startpos":
        text = STANDARD_START
    fields = text.split()
    if len(fields) > 4 and fields[4][:1].isalpha() and text.endswith(";"):  # "... w - - bm Qc5;": EPD
        raise NotationError(f"a FEN's fields 5 and 6 are the move counters, got {' '.join(fields[4:])!r} "
                            f"(an EPD line's operations are not read: give its first 4 fields)")
    if len(fields) not in (4, 6):
        raise NotationError(f"FEN needs 6 fields (or 4 as in EPD), got {len(fields)}: {text!r}")
    board_text, side_text, castling_text, ep_text = fields[:4]
    pieces = _parse_board(board_text)
    _check_material(pieces)
    board = {square: code for code, square in pieces}
    if side_text not in ("w", "b"):
        raise NotationError(f"side to move must be 'w' or 'b', got {side_text!r}")
    side = 0 if side_text == "w" else 1
    castling = _parse_castling(castling_text, board, chess960)
    halfmove = _parse_counter(fields[4], "halfmove clock", 0, MAX_HALFMOVE) if len(fields) == 6 else 0
    fullmove = _parse_counter(fields[5], "fullmove number", 1, MAX_FULLMOVE) if len(fields) == 6 else 1

    codes = np.array([code for code, _ in pieces], dtype=np.int8)
    squares = np.array([square for _, square in pieces], dtype=np.int8)
    pos = np.zeros(P.POSITION_WIDTH, dtype=np.uint64)
    P.build_position(codes, squares, len(pieces), side, pos)
    if P.opponent_in_check(pos):
        raise NotationError(f"the side not to move ({COLOUR_NAMES[1 - side]}) is in check")
    pos[P.CASTLING] = np.uint64(castling)
    ep = _parse_en_passant(ep_text, board, side)
    _check_checkers(pos, side)
    pos[P.STATE] = np.uint64(side | ep << P.STATE_EP_SHIFT | halfmove << P.STATE_HALFMOVE_SHIFT
                             | fullmove << P.STATE_FULLMOVE_SHIFT)
    if ep and not _has_en_passant_capture(pos, ep):
        pos[P.STATE] &= ~np.uint64(63 << P.STATE_EP_SHIFT)
    pos[P.HASH] = P.hash_from_scratch(pos)
    return pos


def _parse_en_passant(text: str, board: dict[int, int], side: int) -> int:
    """The en-passant square of a FEN (0 for ``-``), checked against the board."""
    if text == "-":
        return 0
    try:
        square = parse_square(text)
    except NotationError:
        raise NotationError(f"bad en-passant field {text!r}") from None
    expected_rank = 5 if side == 0 else 2
    forward = 8 if side == 0 else -8  # from the ep square towards the pushed pawn's origin
    pushed_pawn = (1 - side) * 6 + P.PAWN
    if (square >> 3 != expected_rank or board.get(square - forward) != pushed_pawn
            or square in board or square + forward in board):
        raise NotationError(f"impossible en-passant square {text}: no pawn can just have passed it")
    return square


def _check_checkers(pos: np.ndarray, side: int) -> None:
    """Refuse a check by more than two pieces: one move gives check with the piece it moves and
    may discover one slider behind it, no more. (Double checks that no move can give, like two
    checkers in line with the king, are kept: the perft suites use them to test generators.)"""
    occupied = np.uint64(int(pos[P.WHITE]) | int(pos[P.BLACK]))
    king = (int(pos[P.KINGS]) & int(pos[side])).bit_length() - 1
    checkers = bin(int(P.attackers_of(pos, king, occupied)) & int(pos[1 - side])).count("1")
    if checkers > 2:
        raise NotationError(f"{COLOUR_NAMES[side]} is in check by {checkers} pieces (at most 2 are possible)")


def _has_en_passant_capture(pos: np.ndarray, ep: int) -> bool:
    moves = np.empty(MAX_MOVES, dtype=np.int32)
    count = legal_moves(pos, moves)
    pawns = int(pos[P.PAWNS])
    return any((int(m) >> 6) & 63 == ep and pawns >> (int(m) & 63) & 1 for m in moves[:count])


def format_fen(pos: np.ndarray, chess960: bool = False) -> str:
    """The FEN of a position (castling as ``KQkq``; in Chess960 a file letter when the rook is
    not the outermost one on its side)."""
    rows = []
    for rank in range(7, -1, -1):
        row, empty = "", 0
        for file in range(8):
            code = P.piece_on(pos, rank * 8 + file)
            if code < 0:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            row += P.PIECE_SYMBOLS[code]
        rows.append(row + (str(empty) if empty else ""))
    state = int(pos[P.STATE])
    ep = (state >> P.STATE_EP_SHIFT) & 63
    halfmove = (state >> P.STATE_HALFMOVE_SHIFT) & 0xFFFF
    fullmove = state >> P.STATE_FULLMOVE_SHIFT
    return " ".join(["/".join(rows), "wb"[state & 1], _format_castling(pos, chess960),
                     square_name(ep) if ep else "-", str(halfmove), str(fullmove)])


def _format_castling(pos: np.ndarray, chess960: bool) -> str:
    rooks = int(pos[P.CASTLING])
    text = ""
    for colour in (0, 1):
        back_rank = 56 * colour
        own_rooks = int(pos[colour]) & int(pos[P.ROOKS])
        king_square = (int(pos[P.KINGS]) & int(pos[colour])).bit_length() - 1
        for side in ("k", "q"):
            files = range(7, -1, -1) if side == "k" else range(8)
            for file in files:
                square = back_rank + file
                if not rooks >> square & 1 or (side == "k") != (square > king_square):
                    continue
                outermost = next(f for f in files if own_rooks >> (back_rank + f) & 1)
                letter = side if not chess960 or outermost == file else FILES[file]
                text += letter.upper() if colour == 0 else letter
    return text or "-"


def format_uci(pos: np.ndarray, move: int, chess960: bool = False) -> str:
    """UCI long algebraic: ``e2e4``, ``e7e8q``; castling as ``e1g1`` (``e1h1`` in Chess960)."""
    origin, to, promotion = int(move_origin(move)), int(move_target(move)), int(move_promotion(move))
    if not chess960 and int(pos[P.KINGS]) >> origin & 1 and int(pos[int(pos[P.STATE]) & 1]) >> to & 1:
        to = (to & 56) + (6 if to > origin else 2)
    return square_name(origin) + square_name(to) + (PROMOTION_LETTERS[promotion] if promotion else "")


def parse_uci(pos: np.ndarray, text: str, chess960: bool = False) -> int:
    """The legal move written ``text`` in UCI; NotationError when it is malformed or illegal."""
    text = text.strip()
    if not 4 <= len(text) <= 5:
        raise NotationError(f"bad UCI move {text!r} (like e2e4 or e7e8q)")
    moves = np.empty(MAX_MOVES, dtype=np.int32)
    count = legal_moves(pos, moves)
    for move in moves[:count]:
        if format_uci(pos, int(move), chess960) == text:
            return int(move)
    raise NotationError(f"illegal move {text!r} in {format_fen(pos, chess960)}")


def material_signature(pos: np.ndarray) -> str:
    """Material as Syzygy names tables, e.g. ``KQvKR``: pieces K, Q, R, B, N, P per side; the
    side with more pieces first, on equal counts the one with the stronger pieces."""
    sides = []
    for colour in (0, 1):
        pieces = int(pos[colour])
        sides.append("".join(letter * bin(pieces & int(pos[P.PAWNS + "PNBRQK".index(letter)])).count("1")
                             for letter in SIGNATURE_ORDER))
    white, black = sides
    if (len(white), [SIGNATURE_ORDER.index(c) for c in black]) < (len(black), [SIGNATURE_ORDER.index(c) for c in white]):
        white, black = black, white
    return white + "v" + black


def piece_list(pos: np.ndarray) -> list[tuple[int, int]]:
    """(piece code, square) for every piece, by square."""
    return [(P.piece_on(pos, square), square) for square in range(64) if P.piece_on(pos, square) >= 0]


def play_uci(pos: np.ndarray, moves: list[str], chess960: bool = False) -> np.ndarray:
    """The position after a sequence of UCI moves."""
    for text in moves:
        child = np.zeros_like(pos)
        play(pos, np.int32(parse_uci(pos, text, chess960)), child)
        pos = child
    return pos
