"""`solver search GAME POSITION`: the alpha-beta player's best move and score."""
from __future__ import annotations

import argparse
import json
import sys

from solver.commands.common import (add_game_argument, add_json_flag, add_switch_argument, disabled_switches,
                                    load_game, load_position, megabytes, non_negative_int, position_inputs,
                                    position_text, seconds)
from solver.errors import UsageError
from solver.output import emit

DEFAULT_SECONDS = 1.0
DEFAULT_CACHE_MB = 64.0
RESULT_NAMES = {1: "win", 0: "draw", -1: "loss"}


def register(subparsers) -> None:
    """Add the search subcommand."""
    parser = subparsers.add_parser(
        "search",
        help="best move and score by alpha-beta search",
        description="Iterative-deepening alpha-beta search (principal-variation search, "
        "transposition table, quiescence, null-move, multi-cut and late-move pruning). Stops at "
        "the first limit reached; with no limit, after "
        f"{DEFAULT_SECONDS:g} s. Scores are centipawns (chess) or evaluation units for the side to "
        "move; a forced mate is reported as 'mate' (signed moves: positive when the side to move "
        "mates). With --db, positions the endgame tables cover are valued by them inside the search, "
        "and a root they cover is played from them at once. --mate N is answered by df-pn (a proof "
        "of mate within 2N-1 plies, shortened where it can be), confirmed by the search.",
        epilog="POSITION '-' reads positions from stdin, one per line, and answers each on one line. "
        "On a terminal, one line per finished iteration goes to stderr. A position with no legal "
        "move answers best null and its result.",
    )
    add_game_argument(parser)
    parser.add_argument("position", metavar="POSITION", help="position in the game's notation, startpos, or - for stdin")
    parser.add_argument("--depth", type=_depth, default=None, metavar="D", help="search D plies deep (1..120)")
    parser.add_argument("--time", type=seconds, default=None, metavar="S", help="stop after S seconds")
    parser.add_argument("--nodes", type=non_negative_int, default=None, metavar="N", help="stop after about N nodes")
    parser.add_argument("--moves", nargs="+", default=[], metavar="M",
                        help="moves played from POSITION before searching (so repetitions count)")
    parser.add_argument("--hash", type=megabytes, default=64.0, metavar="MB",
                        help="transposition table size in MiB (default 64)")
    parser.add_argument("--mate", type=_mate_moves, default=None, metavar="N",
                        help="look for a mate in at most N moves (df-pn, then the search); stops when found, "
                        "or once no such mate exists (without --time that may take long)")
    parser.add_argument("--db", metavar="DIR", default=None,
                        help="database directory whose tables the search probes (see `solver build`)")
    parser.add_argument("--cache-mb", type=megabytes, default=DEFAULT_CACHE_MB, metavar="MB",
                        help=f"memory for table pages in MiB (default {DEFAULT_CACHE_MB:g})")
    parser.add_argument("--prover-nodes", type=non_negative_int, default=0, metavar="N",
                        help="df-pn nodes spent at the root between iterations, to prove mates the "
                        "search cannot see (0, the default: off)")
    add_switch_argument(parser)
    add_json_flag(parser)
    parser.set_defaults(run=run)


def _mate_moves(text: str) -> int:
    value = non_negative_int(text)
    if not 1 <= value <= 60:
        raise argparse.ArgumentTypeError(f"must be between 1 and 60 moves, got {value}")
    return value


def _depth(text: str) -> int:
    value = non_negative_int(text)
    if not 1 <= value <= 120:
        raise argparse.ArgumentTypeError(f"must be between 1 and 120, got {value}")
    return value


def run(args: argparse.Namespace) -> int:
    """Search one position, or each line of stdin for POSITION '-'."""
    game = load_game(args.game)
    if game.player is None:
        raise UsageError(f"{game.name} cannot be searched: it has no player kernels")
    switches = disabled_switches(args)
    lines = position_inputs(args.position, sys.stdin)
    if lines is not None and args.moves:
        raise UsageError("--moves takes a single POSITION, not '-'")
    # Parse before loading the search, so bad input is answered at once.
    root = load_position(game, args.position) if lines is None else None
    history, root = (_play_moves(game, root, args.moves) if root is not None else ([], None))

    tables = open_endgame_tables(game, args.db, args.cache_mb)

    from solver.search.player import Limits, Player

    player = Player(game, hash_mb=args.hash, switches=switches, tables=tables, prover_nodes=args.prover_nodes)
    if args.depth is None and args.time is None and args.nodes is None and args.mate is None:
        limits = Limits(time=DEFAULT_SECONDS)
    else:
        limits = Limits(depth=args.depth, time=args.time, nodes=args.nodes, mate=args.mate)
    if lines is None:
        emit(_search_one(player, game, root, history, limits, args.json), args.json, _summary)
        return 0
    failed = False
    for line in lines:
        try:
            position = load_position(game, position_text(game.name, line))
            player.new_game()
            result = {"position": line, **_search_one(player, game, position, [], limits, args.json)}
        except UsageError as error:
            result = {"position": line, "error": str(error)}
            failed = True
        if args.json:
            sys.stdout.write(json.dumps(result) + "\n")
        else:
            sys.stdout.write(f"{line}: {result['error'] if 'error' in result else _summary(result)}\n")
        sys.stdout.flush()
    return 1 if failed else 0


def open_endgame_tables(game, directory: str | None, cache_mb: float):
    """The built tables under ``--db DIR`` for the player, or None without ``--db``."""
    if directory is None:
        return None
    from databases.errors import DatabaseError
    from databases.families import NoTablesError
    from solver.search.table_leaves import EndgameTables

    try:
        return EndgameTables(game, directory, cache_mb)
    except NoTablesError as error:
        raise UsageError(f"--db: {error}") from None
    except DatabaseError as error:
        message = str(error)
        raise UsageError(message if message.startswith("--db") else f"--db {message}") from None


def _play_moves(game, position, moves: list[str]):
    """Play ``moves`` from ``position``: the hashes of the positions left behind, and the last."""
    history = []
    for text in moves:
        try:
            move = game.parse_move(position, text)
        except Exception as error:  # NotationError: one line naming the move
            raise UsageError(f"--moves: {text!r}: {error}") from None
        history.append(game.hash(position))
        position = game.play(position, move)
    return history, position


def _search_one(player, game, position, history, limits, as_json) -> dict:
    """Search one position; the JSON-ready result."""
    show = None
    if not as_json and sys.stderr.isatty():
        def show(iteration):
            if iteration.bound != "exact":
                return
            score = f"mate {iteration.mate}" if iteration.mate is not None else f"cp {iteration.centipawns}"
            pv = " ".join(game.format_moves(position, iteration.pv))
            sys.stderr.write(f"depth {iteration.depth:>2} seldepth {iteration.seldepth:>2} {score:>10} "
                             f"nodes {iteration.nodes:>11,} nps {iteration.nps:>10,} "
                             f"{iteration.seconds:7.2f} s  pv {pv}\n")
            sys.stderr.flush()
    found = player.search(position, limits, history=history, on_iteration=show)
    if found.best is None:
        return {"best": None, "score": None, "mate": None, "result": RESULT_NAMES.get(found.outcome, "draw"),
                "depth": 0, "seldepth": 0, "nodes": 0, "nps": 0, "pv": [], "seconds": round(found.seconds, 6),
                "tbhits": 0}
    return {
        "best": game.format_move(position, found.best),
        "score": found.centipawns,
        "mate": found.mate,
        "depth": found.depth,
        "seldepth": found.seldepth,
        "nodes": found.nodes,
        "nps": found.nps,
        "pv": game.format_moves(position, found.pv),
        "seconds": round(found.seconds, 6),
        "tbhits": found.tbhits,
    }



def _summary(result: dict) -> str:
    if result["best"] is None:
        return f"no legal move: {result['result']}"
    score = f"mate {result['mate']}" if result["mate"] is not None else f"score {result['score']}"
    return (f"best {result['best']} ({score}), depth {result['depth']}/{result['seldepth']}, "
            f"{result['nodes']:,} nodes in {result['seconds']:.2f} s ({result['nps']:,} nodes/s); "
            f"pv {' '.join(result['pv'])}")
