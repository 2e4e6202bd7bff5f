"""`solver prove GAME POSITION`: proof-number search (df-pn) for a goal."""
from __future__ import annotations

import argparse
import json
import sys
import time

from solver.commands.common import (add_game_argument, add_json_flag, load_game, load_position, megabytes,
                                    non_negative_int, position_inputs, position_text, seconds)
from solver.errors import UsageError
from solver.output import emit


def register(subparsers) -> None:
    """Add the prove subcommand."""
    parser = subparsers.add_parser(
        "prove",
        help="prove or disprove a goal (win, draw) with df-pn",
        description="Depth-first proof-number search. Result: proven (the side to move reaches "
        "GOAL whatever the opponent does), disproven (it cannot), or unknown (a limit was hit "
        "first: never a guess). A Connect Four or tic-tac-toe value follows from two proofs: "
        "win proven = win; else draw proven = draw; else loss. With --max-depth, a result that "
        "leans on the depth horizon is unknown.",
        epilog="Chess: goal win is checkmate; --max-depth 2N-1 proves mate in N. POSITION '-' reads "
        "positions from stdin, one per line, and answers each on one line.",
    )
    add_game_argument(parser)
    parser.add_argument("position", metavar="POSITION", help="position in the game's notation, startpos, or - for stdin")
    parser.add_argument("--goal", choices=("win", "draw"), default="win",
                        help="win: the side to move forces a win (default); draw: it avoids losing")
    parser.add_argument("--max-nodes", type=non_negative_int, default=None, metavar="N",
                        help="stop after N node expansions (result unknown)")
    parser.add_argument("--time", type=seconds, default=None, metavar="S",
                        help="stop after S seconds (result unknown)")
    parser.add_argument("--max-depth", type=non_negative_int, default=None, metavar="PLIES",
                        help="the goal must be reached within PLIES plies")
    parser.add_argument("--table-mb", type=megabytes, default=64.0, metavar="MB",
                        help="transposition table size in MiB (default 64); memory stays bounded by it")
    parser.add_argument("--db", metavar="DIR", default=None, help="database directory: covered positions are leaves")
    parser.add_argument("--proof", metavar="FILE", default=None,
                        help="write the proof (or disproof) tree to FILE (docs/proof-format.md); "
                        "proof_size is reported only then")
    add_json_flag(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Prove one position, or each line of stdin for POSITION '-'."""
    game = load_game(args.game)
    database = open_database_leaves(game, args.db)
    database_value = database.value if database is not None else None
    from proofsearch.dfpn import DfpnSearch
    from proofsearch.table import TranspositionTable

    search = DfpnSearch(game, TranspositionTable.from_megabytes(args.table_mb), database=database)
    lines = position_inputs(args.position, sys.stdin)
    if lines is None:
        position = load_position(game, args.position)
        result = _prove_one(search, game, position, args, database_value, args.proof)
        emit(result, args.json, _summary)
        return 0
    if args.proof:
        raise UsageError("--proof takes a single POSITION, not '-'")
    for line in lines:
        try:
            position = load_position(game, position_text(game.name, line))
            result = {"position": line, **_prove_one(search, game, position, args, database_value, None)}
        except UsageError as error:
            result = {"position": line, "error": str(error)}
        if args.json:
            sys.stdout.write(json.dumps(result) + "\n")
        else:
            sys.stdout.write(f"{line}: {result['error'] if 'error' in result else _summary(result)}\n")
        sys.stdout.flush()
    return 0


def _prove_one(search, game, position, args, database_value, proof_path) -> dict:
    """Run the search (and write the proof) for one position."""
    progress = None
    if not args.json and sys.stderr.isatty():
        def progress(nodes, seconds):
            sys.stderr.write(f"\r{nodes:,} nodes, {seconds:.1f} s, {nodes / max(seconds, 1e-9):,.0f} nodes/s")
            sys.stderr.flush()
    started = time.perf_counter()
    found = search.prove(position, args.goal, max_nodes=args.max_nodes, seconds=args.time,
                         max_depth=args.max_depth, progress=progress)
    if progress is not None:
        sys.stderr.write("\r\033[K")
    proof_size = None
    if proof_path is not None and found.result in ("proven", "disproven"):
        from proofsearch.proof_tree import extract_proof, write_proof

        document = extract_proof(search, position, args.goal, found.result, args.max_depth,
                                 database_value=database_value)
        try:
            write_proof(document, proof_path)
        except OSError as error:
            raise UsageError(f"cannot write {proof_path}: {error.strerror or error}") from None
        proof_size = document["size"]
    result = {
        "result": found.result,
        "goal": args.goal,
        "best": game.format_move(position, found.best) if found.best is not None else None,
        "nodes": found.nodes,
        "seconds": round(time.perf_counter() - started if proof_path else found.seconds, 6),
        "proof_size": proof_size,
    }
    if found.reason:
        result["reason"] = found.reason
    return result


def _summary(result: dict) -> str:
    text = f"{result['goal']}: {result['result']}"
    if result.get("reason"):
        text += f" ({result['reason']})"
    if result["best"] is not None:
        text += f", best {result['best']}"
    text += f"; {result['nodes']:,} nodes in {result['seconds']:.3f} s"
    if result["proof_size"] is not None:
        text += f", proof of {result['proof_size']:,} positions"
    return text


def open_database_leaves(game, directory):
    """The built tables under ``--db DIR`` as search leaves, or None without ``--db``."""
    if directory is None:
        return None
    from databases.errors import DatabaseError
    from databases.families import NoTablesError
    from proofsearch.database_leaves import DatabaseLeaves

    try:
        database = DatabaseLeaves(game, directory)
    except NoTablesError as error:
        raise UsageError(f"--db: {error}") from None
    except DatabaseError as error:
        raise UsageError(str(error)) from None
    if database.tables == 0:
        raise UsageError(f"--db {directory}: no {game.name} tables built there (see `solver build`)")
    return database
