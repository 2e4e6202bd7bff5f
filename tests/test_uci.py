"""A scripted UCI session, checked line by line: handshake, isready during a search, stop during
go infinite, garbage, no legal move, mate scores, searchmoves, ponder, exactly one bestmove per go."""
from __future__ import annotations

import io
import re
import subprocess
import sys
import threading
import time

import pytest

import games
from solver.uci import UciEngine, parse_go
from tests.conftest import quickest_mating_moves

CHESS = games.get("chess")
INFO = re.compile(r"^info depth (\d+) seldepth (\d+) multipv 1 score (cp -?\d+|mate -?\d+)( lowerbound| upperbound)? "
                  r"nodes (\d+) nps (\d+) hashfull (\d+) tbhits (\d+) time (\d+)( pv( [a-h][1-8][a-h][1-8][qrbn]?)+)?$")


class Lines(io.TextIOBase):
    """A thread-safe output stream that collects lines."""

    def __init__(self):
        self.lines: list[str] = []
        self._lock = threading.RLock()
        self._partial = ""

    def write(self, text):
        with self._lock:
            self._partial += text
            *complete, self._partial = self._partial.split("\n")
            self.lines.extend(complete)
        return len(text)

    def wait_for(self, predicate, timeout=120.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if any(predicate(line) for line in self.lines):
                    return
            time.sleep(0.01)
        raise AssertionError(f"timed out; output so far: {self.lines[-10:]}")

    def count(self, prefix):
        with self._lock:
            return sum(1 for line in self.lines if line.startswith(prefix))


@pytest.fixture()
def engine():
    out, err = Lines(), Lines()
    engine = UciEngine(out, err)
    engine.out, engine.err = out, err
    engine.handle("uci")
    engine.handle("isready")
    out.wait_for(lambda line: line == "readyok", timeout=1800)  # a cold compile on a busy machine
    yield engine
    engine.handle("quit")
    engine.run([])


def _bestmoves(engine):
    return [line for line in engine.out.lines if line.startswith("bestmove")]


def test_handshake_lists_options_and_ends_with_uciok(engine):
    lines = engine.out.lines
    assert lines[0].startswith("id name ") and lines[1].startswith("id author ")
    uciok = lines.index("uciok")
    options = lines[2:uciok]
    assert all(line.startswith("option name ") for line in options)
    names = " ".join(options)
    for name in ("Hash", "Threads", "Move Overhead", "NullMove", "MultiCut", "LateMoveReductions"):
        assert f"option name {name} type" in names


def test_go_infinite_answers_isready_ignores_garbage_and_stops(engine):
    engine.handle("ucinewgame")
    engine.handle("position startpos moves e2e4 e7e5")
    engine.handle("go infinite")
    engine.out.wait_for(lambda line: line.startswith("info depth 3 "))
    before = engine.out.count("readyok")
    engine.handle("isready")
    engine.out.wait_for(lambda line: engine.out.count("readyok") > before, timeout=2)
    for garbage in ("xyzzy", "gox", "setoption name NoSuchOption value 1", "position nonsense",
                    "setoption", "\x00\x01", "position fen this is not a fen"):
        engine.handle(garbage)
    time.sleep(0.3)
    assert _bestmoves(engine) == []  # infinite never ends by itself
    engine.handle("stop")
    engine.out.wait_for(lambda line: line.startswith("bestmove"), timeout=5)
    time.sleep(0.2)
    (best,) = _bestmoves(engine)
    move = best.split()[1]
    position = CHESS.play_moves(CHESS.start_position(), ["e2e4", "e7e5"])
    CHESS.parse_move(position, move)  # legal, or NotationError
    for line in engine.out.lines:
        if line.startswith("info depth"):
            assert INFO.match(line), line
    assert engine.err.lines  # the garbage was reported on stderr


def test_exactly_one_bestmove_per_go_and_0000_without_legal_moves(engine):
    engine.handle("position fen 7k/6Q1/6K1/8/8/8/8/8 b - - 0 1")  # Black is checkmated
    engine.handle("go depth 3")
    engine.out.wait_for(lambda line: line.startswith("bestmove"))
    assert _bestmoves(engine) == ["bestmove 0000"]
    engine.handle("position fen 7k/8/6QK/8/8/8/8/8 b - - 0 1")  # stalemate
    engine.handle("go wtime 1000 btime 1000")
    engine.out.wait_for(lambda line: engine.out.count("bestmove") == 2)
    assert _bestmoves(engine)[-1] == "bestmove 0000"
    engine.handle("position fen 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1")  # mate in one: Rd8
    engine.handle("go depth 4")
    engine.out.wait_for(lambda line: engine.out.count("bestmove") == 3)
    assert _bestmoves(engine)[-1].startswith("bestmove d1d8")
    assert any(" score mate 1 " in line for line in engine.out.lines)
    engine.handle("position startpos")
    engine.handle("go nodes 5000")
    engine.handle("go movetime 100 searchmoves a2a3 h2h3")  # a go during a search ends the first
    engine.out.wait_for(lambda line: engine.out.count("bestmove") == 5, timeout=10)
    assert _bestmoves(engine)[-1].split()[1] in ("a2a3", "h2h3")


def test_go_mate_is_answered_by_proof_with_the_mate_length(engine):
    engine.handle("position fen r1b1kb1r/pppp1ppp/5q2/4n3/3KP3/2N3PN/PPP4P/R1BQ1B1R b kq - 0 1")
    engine.handle("go mate 3")
    engine.out.wait_for(lambda line: line.startswith("bestmove"), timeout=60)
    assert _bestmoves(engine) == ["bestmove f8c5 ponder d4c5"] or _bestmoves(engine) == ["bestmove f8c5"]
    infos = [line for line in engine.out.lines if line.startswith("info depth")]
    assert " score mate 3 " in infos[-1] and INFO.match(infos[-1]), infos[-1]


def test_database_path_plays_from_the_tables(engine, tmp_path, gaviota):
    from retrograde.build import build_tables

    build_tables("chess", ["KQvK"], tmp_path, show_progress=False)
    engine.handle(f"setoption name DatabasePath value {tmp_path}")
    engine.handle("isready")  # opens the tables, so that the first go's clock does not pay for it
    engine.out.wait_for(lambda line: engine.out.count("readyok") == 2)
    opened = [i for i, line in enumerate(engine.out.lines) if line.startswith("info string") and "endgame tables from" in line]
    assert opened and opened[0] < max(i for i, line in enumerate(engine.out.lines) if line == "readyok")
    engine.handle("position fen 8/8/3k4/8/8/8/8/K1Q5 w - - 0 1")
    engine.handle("go movetime 5000")
    engine.out.wait_for(lambda line: line.startswith("bestmove"), timeout=30)
    assert _bestmoves(engine)[0].split()[1] in quickest_mating_moves("8/8/3k4/8/8/8/8/K1Q5 w - - 0 1", gaviota)
    info = [line for line in engine.out.lines if line.startswith("info depth")][-1]
    assert " score mate 9 " in info and int(INFO.match(info).group(8)) > 0  # tbhits
    engine.handle("setoption name DatabasePath value /no/such/directory")
    engine.handle("go depth 1")
    engine.out.wait_for(lambda line: engine.out.count("bestmove") == 2, timeout=30)
    assert any("DatabasePath" in line and "without tables" in line for line in engine.err.lines)


def test_ponder_then_ponderhit_and_ponder_then_stop(engine):
    engine.handle("position startpos moves d2d4")
    engine.handle("go ponder wtime 3000 btime 3000 winc 10 binc 10")
    time.sleep(0.5)
    assert _bestmoves(engine) == []
    engine.handle("ponderhit")
    engine.out.wait_for(lambda line: line.startswith("bestmove"), timeout=5)
    engine.handle("position startpos moves d2d4 d7d5")
    engine.handle("go ponder wtime 3000 btime 3000")
    time.sleep(0.3)
    engine.handle("stop")
    engine.out.wait_for(lambda line: engine.out.count("bestmove") == 2, timeout=5)


def test_parse_go_reads_every_parameter_and_reports_bad_ones():
    command, problems = parse_go("wtime 1000 btime -5 winc 10 binc 20 movestogo 7 depth 0 nodes 9 mate 3 "
                                 "movetime 50 infinite ponder searchmoves e2e4 d2d4 bogus".split())
    assert (command.wtime, command.btime, command.winc, command.binc, command.movestogo) == (1000, -5, 10, 20, 7)
    assert (command.depth, command.nodes, command.mate, command.movetime) == (1, 9, 3, 50)
    assert command.infinite and command.ponder and command.searchmoves == ["e2e4", "d2d4", "bogus"]
    command, problems = parse_go(["wtime", "x", "depth"])
    assert len(problems) == 3 and command.wtime is None
    assert command.depth == 1 and problems[-1] == "go: no usable limit left: searching one ply"


def test_limits_of_zero_or_less_are_said_not_taken_silently():
    # A user's sweep: "go depth -1", "go nodes 0", "go movetime -5" searched at their least
    # without a word, and "go mate -1" was said to be "0 moves or fewer".
    for text, word in (("depth -1", "go depth -1: not a positive depth: searching depth 1"),
                       ("depth 0", "go depth 0: not a positive depth"),
                       ("nodes 0", "go nodes 0: not a positive count"),
                       ("nodes -5", "go nodes -5: not a positive count"),
                       ("movetime -5", "go movetime -5: not a positive time"),
                       ("movetime 0", "go movetime 0: not a positive time"),
                       ("mate -1", "go mate -1: no mate of -1 moves or fewer")):
        command, problems = parse_go(text.split())
        assert any(problem.startswith(word) for problem in problems), (text, problems)
    assert parse_go("wtime -1000 btime 1000".split())[1] == []  # a GUI's clock past zero: as it is
    assert parse_go("depth 5 nodes 100 movetime 10 mate 2".split())[1] == []


def test_the_fallback_move_castles_as_the_king_taking_its_rook_in_chess960():
    # A user's sweep: with UCI_Chess960 on, the engine still loading answered the mate by
    # castling as e1g1, which the GUI sent back and the engine then refused as illegal.
    from solver.uci import fallback_move

    tokens = "fen 8/8/8/8/1B6/8/7Q/k3K2R w K - 0 1".split()  # O-O mates
    assert fallback_move(tokens) == "e1g1"
    assert fallback_move(tokens, chess960=True) == "e1h1"
    assert fallback_move("fen 8/8/8/8/1B6/8/7Q/k3K2R w H - 0 1".split(), chess960=True) == "e1h1"


def test_the_first_go_after_chess960_is_set_reads_and_writes_the_variant(engine):
    # A user's sweep: the first go after "UCI_Chess960 true" set up its root with the standard
    # game: Shredder-FEN castling letters were refused (the start position searched instead)
    # and its castling came out as e1g1, which the GUI then sent back as illegal.
    engine.handle("setoption name UCI_Chess960 value true")
    for number, letters in enumerate(("H", "K"), 1):
        engine.handle(f"position fen 8/8/8/8/1B6/8/7Q/k3K2R w {letters} - 0 1")  # O-O mates
        engine.handle("go depth 3")
        engine.out.wait_for(lambda line, answered=number: engine.out.count("bestmove") >= answered)
        assert _bestmoves(engine)[-1].split()[1] == "e1h1"
    assert not any("using the start position" in line for line in engine.err.lines)


def test_solver_uci_command_answers_the_handshake_at_once():
    process = subprocess.Popen([sys.executable, "-m", "solver", "uci"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        process.stdin.write("uci\nisready\nposition startpos\ngo depth 2\n")
        process.stdin.flush()
        lines = []
        while not (lines and lines[-1].startswith("bestmove")):
            line = process.stdout.readline()
            assert line, "engine closed its output"
            lines.append(line.strip())
        assert "uciok" in lines and "readyok" in lines
        process.stdin.write("quit\n")
        process.stdin.flush()
        assert process.wait(timeout=30) == 0
    finally:
        process.kill()


def test_go_mate_zero_or_negative_is_a_search_without_a_mate_bound(engine):
    # Found by the UCI fuzzer: "go mate 0" asked df-pn for a proof within -1 plies.
    engine.handle("position startpos")
    for number, text in enumerate(("go mate 0 depth 3", "go mate -2 depth 3"), 1):
        engine.handle(text)
        engine.out.wait_for(lambda line, answered=number: engine.out.count("bestmove") >= answered)
    assert len(_bestmoves(engine)) == 2
    assert "search failed" not in "".join(engine.err.lines)


def test_go_values_beyond_64_bits_are_taken_as_the_largest(engine):
    # Found by the UCI fuzzer: "go nodes 99999999999999999999" overflowed the search's counters.
    engine.handle("position startpos")
    engine.handle("go nodes 99999999999999999999 depth 2")
    engine.out.wait_for(lambda line: line.startswith("bestmove"))
    assert "search failed" not in "".join(engine.err.lines)


def test_movetime_is_a_hard_limit_with_no_soft_one(engine):
    # With a soft limit, the time manager started no iteration after 70% of it (a settled best
    # move) and used 710 ms of a second: "go movetime" asks for all of it, as Stockfish uses it.
    command, problems = parse_go("movetime 1000".split())
    optimum, maximum = engine._budget(command, 0)
    overhead = engine.options["Move Overhead"] / 1000
    assert not problems and optimum is None and maximum == pytest.approx(1.0 - overhead)


@pytest.mark.parametrize("limit", ["nodes 0", "depth 0"])
def test_go_nodes_or_depth_zero_is_the_least_search_not_an_endless_one(engine, limit):
    engine.handle("position startpos")
    engine.handle(f"go {limit}")  # no 'stop' follows: it must answer on its own
    engine.out.wait_for(lambda line: line.startswith("bestmove"), timeout=60)
    assert len(_bestmoves(engine)) == 1 and _bestmoves(engine)[0] != "bestmove 0000"


def test_solver_uci_accepts_json_like_every_command():
    done = subprocess.run([sys.executable, "-m", "solver", "uci", "--json"], input="uci\nquit\n",
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "uciok" in done.stdout and done.stderr == ""


def _tell(process, text: str) -> None:
    """Send ``text`` to a ``solver uci`` process."""
    process.stdin.write(text)
    process.stdin.flush()


def _engine_lines(process, until) -> list[str]:
    """Lines from a ``solver uci`` process up to the first one ``until`` accepts."""
    lines = []
    while not (lines and until(lines[-1])):
        line = process.stdout.readline()
        assert line, "engine closed its output"
        lines.append(line.strip())
    return lines


def test_tables_known_before_the_search_loads_are_opened_while_it_loads(tmp_path):
    # A DatabasePath given before the search has loaded (here `solver uci --db`; also one set
    # before a cold start's isready gave up waiting) is opened by the loader, before the search
    # counts as loaded, so that no go opens it on its own clock: no command is needed for it.
    from retrograde.build import build_tables

    build_tables("chess", ["KQvK"], tmp_path, show_progress=False)
    out, err = Lines(), Lines()
    engine = UciEngine(out, err, database_path=str(tmp_path))
    try:
        out.wait_for(lambda line: line.startswith("info string") and "endgame tables from" in line, timeout=300)
        engine.handle("isready")
        out.wait_for(lambda line: line == "readyok", timeout=30)
        assert sum("endgame tables from" in line for line in out.lines) == 1  # opened once
    finally:
        engine.handle("quit")
        engine.run([])


def test_a_go_during_a_cold_compile_is_answered_without_the_kernels_and_stop_at_once(tmp_path):
    # An empty kernel cache: the engine compiles for many seconds. A go on the clock gets a
    # legal move from python-chess after half its time; a go depth waits, and stop ends it.
    import chess

    environment = {**__import__("os").environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    process = subprocess.Popen([sys.executable, "-m", "solver", "uci"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=environment)
    try:
        _tell(process, "uci\nposition startpos moves e2e4 e7e5 g1f3\ngo wtime 300 btime 300\n")
        lines = _engine_lines(process, lambda line: line.startswith("bestmove"))
        assert "uciok" in lines and "readyok" not in lines
        assert any("still loading: a move without search" in line for line in lines)
        board = chess.Board()
        for move in ("e2e4", "e7e5", "g1f3"):
            board.push_uci(move)
        assert chess.Move.from_uci(lines[-1].split()[1]) in board.legal_moves
        _tell(process, "position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1\ngo depth 9\nstop\n")
        lines += _engine_lines(process, lambda line: line.startswith("bestmove"))
        assert lines[-1] == "bestmove a1a8"
        # issue 74, item 1: the GUI's log says why the engine waits (once, after uciok; the
        # readyok, after the whole compile, would come later)
        compiling = "info string compiling its kernels"
        if not any(line.startswith(compiling) for line in lines):
            _tell(process, "isready\n")
            lines += _engine_lines(process, lambda line: line.startswith(compiling) or line == "readyok")
        said = [i for i, line in enumerate(lines) if line.startswith(compiling)]
        assert len(said) == 1 and said[0] > lines.index("uciok"), lines
        _tell(process, "quit\n")
        assert process.wait(timeout=30) == 0
    finally:
        process.kill()


def test_compile_progress_before_uciok_gives_way_to_the_line_that_says_why():
    # issue 74, item 1: the GUI hears why the engine waits, and then how far along it is;
    # progress said before uciok is passed over (the line that says why comes with uciok)
    engine = UciEngine.__new__(UciEngine)  # no warm-up thread: only the notices are exercised
    engine._output, engine._print_lock, engine._notice_lock = io.StringIO(), threading.Lock(), threading.Lock()
    engine._handshaken, engine._compiling = False, None
    engine.options = {"DatabasePath": ""}
    engine._note_compiling("compiling its kernels (test)")
    engine._note_compiling("compiling kernels (first run only): 50 so far")
    engine._uci([])
    engine._note_compiling("compiling kernels (first run only): 100 so far")
    lines = engine._output.getvalue().splitlines()
    assert lines[lines.index("uciok"):] == [
        "uciok", "info string compiling its kernels (test)",
        "info string compiling kernels (first run only): 100 so far"]


@pytest.mark.parametrize("together", [False, True], ids=["waiting for readyok", "sent together"])
def test_isready_waits_for_the_search_so_the_first_go_searches(together):
    # A warm cache: readyok comes once the search is loaded, and the go after it searches. Sent
    # with the isready before its answer (issue 74, item 1: answered "a move without search",
    # bestmove, and only then readyok), the go is taken after the readyok.
    from solver.search.player import Limits, Player

    chess_game = games.get("chess")  # compiled here first: the engine's cache is warm
    Player(chess_game, hash_mb=1).search(chess_game.start_position(), Limits(depth=2))
    process = subprocess.Popen([sys.executable, "-m", "solver", "uci"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = []
        _tell(process, "uci\nisready\n" + "position startpos\ngo movetime 300\n" * together)
        if not together:
            lines = _engine_lines(process, lambda line: line == "readyok")
            _tell(process, "position startpos\ngo movetime 300\n")
        lines += _engine_lines(process, lambda line: line.startswith("bestmove"))
        assert lines.index("uciok") < lines.index("readyok")
        assert lines.index("readyok") < min(i for i, line in enumerate(lines) if line.startswith("info"))
        assert not any("loading" in line for line in lines)
        assert any(line.startswith("info depth") and " pv " in line for line in lines)
        _tell(process, "quit\n")
        assert process.wait(timeout=30) == 0
    finally:
        process.kill()


def test_the_move_without_kernels_is_legal_mates_and_takes_the_most():
    from solver.uci import fallback_move, fallback_side

    assert fallback_move(["fen", "6k1/5ppp/8/8/8/8/8/R5K1", "w", "-", "-", "0", "1"]) == "a1a8"
    assert fallback_move("fen 4k3/8/8/3q1n2/4P3/8/8/4K3 w - - 0 1".split()) == "e4d5"
    assert fallback_move("startpos moves e2e4 e7e5".split()) is not None
    assert fallback_move("fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1".split()) is None  # stalemate
    assert fallback_move("fen not-a-position".split()) is None
    assert fallback_side("startpos moves e2e4".split()) == 1 and fallback_side(["startpos"]) == 0


def test_a_position_extending_the_last_one_is_set_up_from_it():
    """A GUI sends the whole game before every go: only the new moves are played out, and the
    position and its history equal a set-up from scratch, after a take-back or a new FEN too."""
    parsed = []

    class CountingChess(type(CHESS)):
        def parse_move(self, position, text):
            parsed.append(text)
            return super().parse_move(position, text)

    game = CountingChess()
    engine = UciEngine.__new__(UciEngine)  # no warm-up thread: only the set-up is exercised
    engine._last_root, engine._errors, engine._print_lock = None, io.StringIO(), threading.Lock()
    line = "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6 e1g1".split()
    fen = ["fen", *"r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3".split()]
    steps = [(["startpos"], line[:2], 2), (["startpos"], line[:4], 2), (["startpos"], line, 5),
             (["startpos"], line[:6], 6), (fen, line[4:6], 2), (fen, line[4:9], 3)]
    for setup, moves, newly_parsed in steps:
        del parsed[:]
        position, history = engine._root(game, [*setup, "moves", *moves])
        assert len(parsed) == newly_parsed, (setup, moves, parsed)
        fresh_position = CHESS.start_position() if setup == ["startpos"] else CHESS.parse_position(" ".join(setup[1:]))
        fresh_history = []
        for text in moves:
            fresh_history.append(CHESS.hash(fresh_position))
            fresh_position = CHESS.play(fresh_position, CHESS.parse_move(fresh_position, text))
        assert (position == fresh_position).all() and history == fresh_history
        position[:] = 0  # the caller's copy: the next set-up must not see this


# --- issue 74: hangs and silent acceptance ------------------------------------------------------
@pytest.mark.parametrize("go", ["go mate 0", "go movetime abc", "go winc 100"])
def test_a_go_whose_limits_are_unusable_is_a_one_ply_search_not_an_endless_one(engine, go):
    engine.handle("position startpos")
    engine.handle(go)  # no 'stop' follows: it must answer on its own
    engine.out.wait_for(lambda line: line.startswith("bestmove"), timeout=60)
    assert len(_bestmoves(engine)) == 1 and _bestmoves(engine)[0] != "bestmove 0000"
    assert any("no usable limit left: searching one ply" in line for line in engine.err.lines)


def test_spin_values_out_of_range_are_taken_with_a_word(engine):
    for option, value, taken in (("Hash", "-1", 1), ("Move Overhead", "-50", 0),
                                 ("DatabaseCache", "0", 1)):
        engine.handle(f"setoption name {option} value {value}")
        assert engine.options[option] == taken
        assert f"{option}: {value} is outside" in engine.err.lines[-1]
    engine.handle("setoption name Hash value \u0663")  # an Arabic-Indic three: not a UCI number
    assert engine.options["Hash"] == 1 and "not an integer" in engine.err.lines[-1]


def test_searchmoves_without_a_legal_move_says_so(engine):
    engine.handle("position startpos")
    engine.handle("go depth 2 searchmoves e7e5")
    engine.out.wait_for(lambda line: line.startswith("bestmove"), timeout=60)
    assert any("no legal move among e7e5: searching every move" in line for line in engine.err.lines)


def test_the_root_prover_stops_on_stop_and_quit_through_python_chess():
    # issue 74, item 2: with ProverNodes at its maximum, "go depth 3" from the start position
    # proved for ever and neither stop nor quit was heard
    import chess
    import chess.engine

    engine = chess.engine.SimpleEngine.popen_uci([sys.executable, "-m", "solver", "uci"], timeout=600)
    try:
        engine.configure({"ProverNodes": 100_000_000})  # the advertised maximum
        with engine.analysis(chess.Board(), chess.engine.Limit(depth=3)) as analysis:
            time.sleep(3)
            asked = time.monotonic()
            analysis.stop()
            best = analysis.wait()
            # at once (a chunk of the proof), or after a compile that a cold cache still runs
            assert time.monotonic() - asked < 30 and best.move in chess.Board().legal_moves
        engine.configure({"ProverNodes": 100_000_000})
        engine.analysis(chess.Board(), chess.engine.Limit(depth=3))  # still proving at quit
        time.sleep(3)
    finally:
        asked = time.monotonic()
        engine.quit()
        assert time.monotonic() - asked < 30
