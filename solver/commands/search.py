"""`solver search GAME POSITION`: the alpha-beta player's best move and score."""
from __future__ import annotations

import argparse
import sys

from solver.commands.common import (BATCH_HELP, add_game_argument, add_json_flag, add_optional_db_argument,
                                    add_switch_argument, allocation, bounded_int, disabled_switches, load_game,
                                    load_position, megabytes, non_negative_int, optional_tables_directory,
                                    run_batch, seconds)
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
        epilog="On a terminal, one line per finished iteration goes to stderr. A position with no "
        "legal move answers best null and its result. Ctrl-C stops the search (exit status 130). "
        + BATCH_HELP,
    )
    add_game_argument(parser)
    parser.add_argument("position", metavar="POSITION", help="position in the game's notation, startpos, or - for stdin")
    parser.add_argument("--depth", type=_depth, default=None, metavar="D", help="search D plies deep (1..120)")
    parser.add_argument("--time", type=seconds, default=None, metavar="S", help="stop after S seconds")
    parser.add_argument("--nodes", type=bounded_int(1, 1 << 62), default=None, metavar="N",
                        help="stop after about N nodes")
    parser.add_argument("--moves", nargs="+", default=[], metavar="M",
                        help="moves played from POSITION before searching (so repetitions count)")
    parser.add_argument("--hash", type=megabytes, default=64.0, metavar="MB",
                        help="transposition table size in MiB (default 64)")
    parser.add_argument("--mate", type=_mate_moves, default=None, metavar="N",
                        help="look for a mate in at most N moves (df-pn, then the search); stops when found, "
                        "or once no such mate exists (without --time that may take long)")
    add_optional_db_argument(parser, "the search probes its tables (see `solver build`)")
    parser.add_argument("--cache-mb", type=megabytes, default=DEFAULT_CACHE_MB, metavar="MB",
                        help=f"memory for table pages in MiB (default {DEFAULT_CACHE_MB:g})")
    parser.add_argument("--prover-nodes", type=non_negative_int, default=0, metavar="N",
                        help="df-pn nodes spent at the root between iterations, to prove mates the "
                        "search cannot see (0, the default: off)")
    add_switch_argument(parser)
    add_json_flag(parser)
    parser.set_defaults(run=run)


_mate_moves = bounded_int(1, 60)
_depth = bounded_int(1, 120)


def run(args: argparse.Namespace) -> int:
    """Search one position, or each line of stdin for POSITION '-'."""
    game = load_game(args.game)
    if game.player is None:
        raise UsageError(f"{game.name} cannot be searched: it has no player kernels")
    switches = disabled_switches(args)
    batch = args.position == "-"
    if batch and args.moves:
        raise UsageError("--moves takes a single POSITION, not '-'")
    # Parse before loading the search, so bad input is answered at once.
    history, root = ([], None) if batch else _play_moves(game, load_position(game, args.position), args.moves)

    tables = open_endgame_tables(game, args.db, args.cache_mb)

    from solver.search.player import Limits, Player

    player = allocation("transposition table", "--hash", lambda: Player(
        game, hash_mb=args.hash, switches=switches, tables=tables, prover_nodes=args.prover_nodes))
    if args.depth is None and args.time is None and args.nodes is None and args.mate is None:
        limits = Limits(time=DEFAULT_SECONDS)
    else:
        limits = Limits(depth=args.depth, time=args.time, nodes=args.nodes, mate=args.mate)
    if not batch:
        emit(_search_one(player, game, root, history, limits, args.json), args.json, _summary)
        return 0

    def answer(text: str) -> dict:
        position = load_position(game, text)
        player.new_game()
        return _search_one(player, game, position, [], limits, args.json)

    return run_batch(game.name, answer, args.json, _summary)


def open_endgame_tables(game, explicit: str | None, cache_mb: float):
    """The built tables for the player: those under ``--db DIR``, else under ``$SOLVER_DB`` or the
    user data directory when it holds any of the game's; None when there are none to use."""
    directory, named = optional_tables_directory(explicit, game.name)
    if directory is None:
        return None
    from databases.errors import DatabaseError, UnusableTableError
    from databases.families import NoTablesError
    from solver.search.table_leaves import EndgameTables

    try:
        return allocation("table page cache", "--cache-mb", lambda: EndgameTables(game, directory, cache_mb))
    except NoTablesError as error:
        if not named:
            return None
        raise UsageError(f"--db: {error}") from None
    except UnusableTableError:  # a damaged table: exit status 1
        raise
    except DatabaseError as error:
        if not named:  # the default location: tables there are optional
            return None
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
    from runtime.interrupt import run_interruptibly

    found = run_interruptibly(lambda: player.search(position, limits, history=history, on_iteration=show),
                              player.stop)
    if found.best is None:
        return {"best": None, "score": None, "mate": None, "result": RESULT_NAMES.get(found.outcome, "draw"),
                "depth": 0, "seldepth": 0, "nodes": 0, "nps": 0, "pv": [], "seconds": round(found.seconds, 6),
                "tbhits": 0}
    if found.mate is not None and found.mate > 0:  # a reported mate comes with its whole line
        found.pv = player.mate_line(position, history, found.pv, found.mate)
    decided = {"result": RESULT_NAMES[found.outcome]} if found.outcome in RESULT_NAMES else {}
    return {
        "best": game.format_move(position, found.best),
        **decided,  # a position decided with moves left (chess: a dead position, drawn)
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
    if "result" in result:
        return f"best {result['best']} (score {result['score']}: the game is a {result['result']} " \
               "whatever is played)"
    score = f"mate {result['mate']}" if result["mate"] is not None else f"score {result['score']}"
    return (f"best {result['best']} ({score}), depth {result['depth']}/{result['seldepth']}, "
            f"{result['nodes']:,} nodes in {result['seconds']:.2f} s ({result['nps']:,} nodes/s); "
            f"pv {' '.join(result['pv'])}")
