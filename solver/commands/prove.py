"""`solver prove GAME POSITION`: proof-number search (df-pn) for a goal."""
from __future__ import annotations

import argparse
import sys
import time

from solver.commands.common import (BATCH_HELP, MAX_COUNT, Failure, add_game_argument, add_json_flag,
                                    add_optional_db_argument, allocation, bounded_int, load_game, load_position,
                                    megabytes, optional_tables_directory, run_batch, seconds, writable_file_path)
from solver.errors import UsageError
from solver.output import emit

# Deeper bounds mean nothing more: the search stack stops at 1000 plies (a horizon, never a guess).
MAX_PROOF_DEPTH = 100_000


def register(subparsers) -> None:
    """Add the prove subcommand."""
    parser = subparsers.add_parser(
        "prove",
        help="prove or disprove a goal (win, draw) with df-pn",
        description="Depth-first proof-number search. Result: proven (the side to move reaches "
        "GOAL whatever the opponent does), disproven (it cannot), or unknown (a limit was hit "
        "first: never a guess). A Connect Four or tic-tac-toe value follows from two proofs: "
        "win proven = win; else draw proven = draw; else loss. With --max-depth, a result that "
        "leans on the depth horizon is unknown. Connect Four: a position df-pn has not solved "
        "after 1,000 nodes is finished by a depth-first alpha-beta that stores what it solves in "
        "the same table (nodes count both), so --proof still works.",
        epilog="Chess: goal win is checkmate; --max-depth 2N-1 proves mate in N. Ctrl-C stops the "
        "search (exit status 130). " + BATCH_HELP,
    )
    add_game_argument(parser)
    parser.add_argument("position", metavar="POSITION", help="position in the game's notation, startpos, or - for stdin")
    parser.add_argument("--goal", choices=("win", "draw"), default="win",
                        help="win: the side to move forces a win (default); draw: it avoids losing")
    parser.add_argument("--max-nodes", type=bounded_int(1, MAX_COUNT), default=None, metavar="N",
                        help="stop after N node expansions (result unknown)")
    parser.add_argument("--time", type=seconds, default=None, metavar="S",
                        help="stop after S seconds (result unknown)")
    parser.add_argument("--max-depth", type=bounded_int(0, MAX_PROOF_DEPTH), default=None, metavar="PLIES",
                        help=f"the goal must be reached within PLIES plies (at most {MAX_PROOF_DEPTH:,})")
    parser.add_argument("--table-mb", type=megabytes, default=64.0, metavar="MB",
                        help="transposition table size in MiB (default 64, at most 65536 and the "
                        "machine's memory); memory stays bounded by it")
    add_optional_db_argument(parser, "positions its tables cover are leaves")
    parser.add_argument("--proof", metavar="FILE", default=None,
                        help="write the proof (or disproof) tree to FILE (docs/proof-format.md); "
                        "proof_size is reported only then")
    add_json_flag(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Prove one position, or each line of stdin for POSITION '-'."""
    game = load_game(args.game)
    batch = args.position == "-"
    if batch and args.proof:
        raise UsageError("--proof takes a single POSITION, not '-'")
    root = None if batch else load_position(game, args.position)  # bad input before any loading
    if args.proof is not None:
        writable_file_path(args.proof, "--proof")
    database = open_database_leaves(game, args.db)
    database_value = database.value if database is not None else None
    from proofsearch.dfpn import DfpnSearch
    from proofsearch.table import TranspositionTable

    table = allocation("transposition table", "--table-mb", lambda: TranspositionTable.from_megabytes(args.table_mb))
    search = DfpnSearch(game, table, database=database)
    if batch:
        return run_batch(game.name, lambda text: _prove_one(search, game, load_position(game, text), args,
                                                            database_value, None), args.json, _summary)
    emit(_prove_one(search, game, root, args, database_value, args.proof), args.json, _summary)
    return 0


def _prove_one(search, game, position, args, database_value, proof_path) -> dict:
    """Run the search (and write the proof) for one position."""
    progress = None
    if not args.json and sys.stderr.isatty():
        def progress(nodes, seconds):
            sys.stderr.write(f"\r{nodes:,} nodes, {seconds:.1f} s, {nodes / max(seconds, 1e-9):,.0f} nodes/s")
            sys.stderr.flush()
    started = time.perf_counter()
    try:
        found = search.prove(position, args.goal, max_nodes=args.max_nodes, seconds=args.time,
                             max_depth=args.max_depth, progress=progress)
    finally:
        if progress is not None:  # also on Ctrl-C: the message that follows gets a clean line
            sys.stderr.write("\r\033[K")
    proof_size = None
    if proof_path is not None and found.result in ("proven", "disproven"):
        proof_size = _save_proof(search, position, args, found.result, database_value, proof_path)
    elif proof_path is not None:  # nothing proven, nothing to check: say so, touch nothing
        sys.stderr.write(f"solver prove: no proof written to {proof_path}: the result is "
                         f"{found.result}\n")
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


def _save_proof(search, position, args, claim: str, database_value, path: str) -> int:
    """Extract the proof of ``claim`` and write it to ``path``; its size."""
    from proofsearch.proof_tree import ProofExtractionError, extract_proof, write_proof

    try:
        document = extract_proof(search, position, args.goal, claim, args.max_depth,
                                 database_value=database_value)
    except ProofExtractionError as error:
        raise Failure(f"the proof was found but could not be written out: {error}") from None
    try:
        write_proof(document, path)
    except OSError as error:  # the path was checked before the search: the disk failed us
        raise Failure(f"cannot write {path}: {error.strerror or error}") from None
    return document["size"]


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


def open_database_leaves(game, explicit: str | None, warn=None):
    """The built tables as search leaves: those under ``--db DIR``, else under ``$SOLVER_DB`` or
    the user data directory when it holds any of the game's (see ``optional_tables_directory``);
    None when there are none to use. ``warn`` hears of each damaged table (default: one line
    on stderr)."""
    directory, named = optional_tables_directory(explicit, game.name)
    if directory is None:
        return None
    from databases.errors import DatabaseError, UnusableTableError
    from databases.families import NoTablesError
    from databases.leaves import DatabaseLeaves

    try:
        database = DatabaseLeaves(game, directory, warn=warn)
    except NoTablesError as error:
        if not named:
            return None
        raise UsageError(f"--db: {error}") from None
    except UnusableTableError:  # a damaged table: exit status 1
        raise
    except DatabaseError as error:
        if not named:  # the default location: tables there are optional
            return None
        raise UsageError(str(error)) from None
    if database.tables == 0:
        if not named or database.unusable:  # only damaged ones (each was reported): without them
            return None
        raise UsageError(f"--db {directory}: no {game.name} tables built there (see `solver build`)")
    return database
