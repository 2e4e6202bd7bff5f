"""The match statistics of scripts/elo.py (and the small pure helpers of scripts/match.py).

Reference figures: closed forms worked by hand, and the published test values of fastchess's
Elo and SPRT code (``app/tests/elo_test.cpp``, ``sprt_test.cpp``), which compute the same
quantities independently.
"""
from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


elo = _load("elo")
_load("common")  # match.py imports its neighbours as a script run from scripts/ would


def tri(wins: int, losses: int, draws: int) -> tuple[int, int, int]:
    """fastchess's Stats(wins, losses, draws) as our (L, D, W)."""
    return (losses, draws, wins)


def penta(ll: int, ld: int, wl: int, dd: int, wd: int, ww: int) -> tuple[int, ...]:
    """fastchess's Stats(ll, ld, wl, dd, wd, ww) as our (LL, LD, DD+WL, WD, WW)."""
    return (ll, ld, wl + dd, wd, ww)


# -- score <-> Elo ---------------------------------------------------------------------------

def test_even_score_is_zero_elo():
    assert elo.score_to_elo(0.5) == 0.0


def test_three_quarters_is_190_85_elo():
    # 75% means odds of 3:1, 400 log10(3)
    assert elo.score_to_elo(0.75) == pytest.approx(190.848, abs=1e-3)
    assert elo.score_to_elo(0.25) == pytest.approx(-190.848, abs=1e-3)


def test_elo_score_round_trip_and_ends():
    for x in (-600.0, -35.5, 0.0, 12.0, 400.0):
        assert elo.score_to_elo(elo.elo_to_score(x)) == pytest.approx(x)
    assert elo.elo_to_score(400.0) == pytest.approx(10 / 11)
    assert elo.score_to_elo(1.0) == math.inf
    assert elo.score_to_elo(0.0) == -math.inf


# -- variances and intervals -----------------------------------------------------------------

def test_pentanomial_variance_by_hand():
    # 4 pairs: one LD (pair score 1/2, halved 0.25), two 1-1 (0.5), one WW (1.0)
    # mean = (0.25 + 0.5 + 0.5 + 1.0) / 4 = 0.5625
    # var = ((0.25-0.5625)^2 + 2 (0.5-0.5625)^2 + (1-0.5625)^2) / 4
    #     = (0.09765625 + 0.0078125 + 0.19140625) / 4 = 0.07421875
    interval = elo.pentanomial_interval((0, 1, 2, 0, 1))
    assert interval.samples == 4
    assert interval.score == pytest.approx(0.5625)
    assert interval.variance == pytest.approx(0.07421875)
    half = elo.Z95 * math.sqrt(0.07421875 / 4)
    assert interval.score_low == pytest.approx(0.5625 - half)
    assert interval.score_high == pytest.approx(0.5625 + half)


def test_trinomial_variance_by_hand():
    # 1 loss, 2 draws, 1 win: mean 1/2, variance (0.25 + 0 + 0 + 0.25) / 4 = 1/8
    interval = elo.trinomial_interval(1, 2, 1)
    assert interval.score == 0.5
    assert interval.variance == pytest.approx(0.125)
    assert interval.elo == 0.0
    assert interval.elo_low == pytest.approx(-interval.elo_high)


def test_pair_index():
    assert elo.pair_index(0, 0) == 0
    assert elo.pair_index(0.5, 0) == 1
    assert elo.pair_index(1, 0) == 2
    assert elo.pair_index(0.5, 0.5) == 2
    assert elo.pair_index(1, 0.5) == 3
    assert elo.pair_index(1, 1) == 4
    with pytest.raises(ValueError):
        elo.pair_index(0.3, 0)


def test_interval_shrinks_with_more_games():
    base = (2, 10, 20, 12, 6)
    widths = []
    for k in (1, 4, 16):
        interval = elo.pentanomial_interval([k * c for c in base])
        assert interval.score == pytest.approx(elo.pentanomial_interval(base).score)
        widths.append(interval.elo_high - interval.elo_low)
    assert widths[0] > widths[1] > widths[2]
    # the standard error falls as 1 / sqrt(n): four times the pairs, half the width (nearly,
    # the Elo map is not linear)
    assert widths[1] / widths[0] == pytest.approx(0.5, rel=0.02)


def test_pentanomial_interval_narrower_than_trinomial_for_correlated_pairs():
    # pairs that mostly split 1-1 (colour advantage) carry little variance per pair
    pairs = (1, 5, 40, 6, 2)
    # the games of those pairs, the 40 middle pairs taken as 20 W+L and 20 D+D
    games = {"L": 2 * 1 + 5 + 20, "D": 5 + 40 + 6, "W": 20 + 6 + 2 * 2}
    p = elo.pentanomial_interval(pairs)
    t = elo.trinomial_interval(games["L"], games["D"], games["W"])
    assert p.score == pytest.approx(t.score)
    assert p.elo_error < t.elo_error


def test_fastchess_elo_values():
    t = elo.trinomial_interval(*tri(136, 96, 111))
    assert t.elo == pytest.approx(40.70, rel=0.01)
    assert t.elo_error == pytest.approx(30.43, rel=0.01)
    assert t.los == pytest.approx(0.9960, abs=1e-4)
    t = elo.trinomial_interval(*tri(76, 89, 123))
    assert elo.normalized_elo(t.score, t.variance) == pytest.approx(-20.76, rel=0.01)

    p = elo.pentanomial_interval(penta(34, 54, 31, 32, 64, 75))
    assert p.elo == pytest.approx(55.58, rel=0.01)
    assert p.elo_error == pytest.approx(27.65, rel=0.01)
    assert elo.normalized_elo(p.score, 2 * p.variance) == pytest.approx(57.94, rel=0.01)
    p = elo.pentanomial_interval(penta(332, 433, 457, 41, 333, 334))
    assert p.elo == pytest.approx(-8.64, rel=0.01)
    assert p.elo_error == pytest.approx(10.33, rel=0.01)
    assert p.los == pytest.approx(0.0505, abs=1e-4)


def test_all_draws_has_zero_width():
    t = elo.trinomial_interval(0, 10, 0)
    assert t.elo == 0 and t.elo_low == 0 and t.elo_high == 0
    d = t.as_dict()
    assert d["elo"] == 0.0


def test_all_wins_as_dict_has_no_infinities():
    d = elo.pentanomial_interval((0, 0, 0, 0, 3)).as_dict()
    assert d["elo"] is None and d["score"] == 1.0


# -- SPRT ------------------------------------------------------------------------------------

def test_sprt_bounds():
    lower, upper = elo.sprt_bounds(0.05, 0.05)
    assert lower == pytest.approx(-2.944, abs=1e-3)
    assert upper == pytest.approx(2.944, abs=1e-3)


@pytest.mark.parametrize(
    "model, bounds, counts, expected",
    [
        ("logistic", (0.5, 2.5), tri(21404, 21184, 40708), -1.57),
        ("logistic", (0, 2), tri(57433, 57030, 106593), -2.59),
        ("logistic", (0.5, 2.5), penta(223, 9863, 20279, 1000, 10037, 246), -3.07),
        ("logistic", (0, 2), penta(871, 26175, 55003, 980, 26678, 821), -4.98),
        ("normalized", (0, 2), tri(36433, 36027, 68692), 0.92),
        ("normalized", (-1.75, 0.25), tri(10871, 10650, 20431), 2.30),
        ("normalized", (0, 10), tri(4250, 0, 0), 120.56),
        ("normalized", (0, 2), penta(365, 16618, 36029, 200, 16974, 390), 2.25),
        ("normalized", (-1.75, 0.25), penta(127, 4883, 10311, 401, 5150, 104), 3.01),
        ("normalized", (0, 5), penta(0, 0, 0, 0, 0, 5550), 111.82),
    ],
)
def test_llr_matches_fastchess(model, bounds, counts, expected):
    sprt = elo.Sprt(bounds[0], bounds[1], model=model)
    assert sprt.llr(counts) == pytest.approx(expected, rel=0.01)


def test_llr_approximations_agree_on_large_samples():
    counts = penta(871, 26175, 55003, 980, 26678, 821)
    assert elo.llr_logistic_normal(0, 2, counts) == pytest.approx(elo.llr_logistic(0, 2, counts), rel=0.01)
    counts = penta(365, 16618, 36029, 200, 16974, 390)
    assert elo.llr_normalized_approx(0, 2, counts) == pytest.approx(elo.llr_normalized(0, 2, counts), rel=0.01)


def test_llr_sign_and_decision():
    sprt = elo.Sprt(0, 10)
    assert sprt.llr((0, 0, 0, 0, 0)) == 0.0
    winning = (10, 60, 200, 90, 40)
    losing = tuple(reversed(winning))
    assert sprt.llr(winning) > 0 > sprt.llr(losing)
    # enough of a strong result crosses the upper bound, of a weak one the lower bound
    assert sprt.decision(sprt.llr([10 * c for c in winning])) == "H1"
    assert sprt.decision(sprt.llr([10 * c for c in losing])) == "H0"
    assert sprt.decision(0.0) is None
    # a mean score exactly midway between the hypotheses' scores gives an LLR of 0
    midway = (elo.elo_to_score(0.0) + elo.elo_to_score(10.0)) / 2
    m = 2 * (midway - 0.5)  # mass moved from pair score 0.25 to 0.75
    counts = (0.1, 0.2 - m, 0.4, 0.2 + m, 0.1)
    assert elo.llr_logistic_normal(0, 10, counts) == pytest.approx(0.0, abs=1e-9)
    assert elo.llr_logistic(0, 10, counts) == pytest.approx(0.0, abs=1e-6)


def test_sprt_rejects_bad_parameters():
    with pytest.raises(ValueError):
        elo.Sprt(10, 0)
    with pytest.raises(ValueError):
        elo.Sprt(0, 10, alpha=0.6, beta=0.6)
    with pytest.raises(ValueError):
        elo.Sprt(0, 10, model="bayes")


# -- match.py's pure helpers -----------------------------------------------------------------

chess = pytest.importorskip("chess")
match = _load("match")


def test_parse_engine_spec():
    spec = match.parse_engine_spec(
        "cmd=/bin/sh -c 'exit 0',name=x,proto=xboard,option.Hash=16,option.UCI_Elo=1500")
    assert spec.cmd == ["/bin/sh", "-c", "exit 0"]
    assert spec.name == "x" and spec.proto == "xboard"
    assert spec.options == {"Hash": "16", "UCI_Elo": "1500"}
    for bad in ("name=x", "cmd=/no/such/engine", "cmd=no-such-engine-on-path", "cmd=/bin/sh,proto=cecp",
                "cmd=/bin/sh,colour=white", "cmd=/bin/sh,junk"):
        with pytest.raises(match.UsageError):
            match.parse_engine_spec(bad)


def test_parse_tc_adjudication_sprt():
    assert match.parse_tc("10+0.1") == (10.0, 0.1, None)
    assert match.parse_tc("60") == (60.0, 0.0, None)
    assert match.parse_tc("40/60") == (60.0, 0.0, 40)
    for bad in ("", "x", "10+", "0+1", "10+-1", "inf", "0/60", "x/60"):
        with pytest.raises(match.UsageError):
            match.parse_tc(bad)
    adj = match.parse_adjudication("draw=8/10/40,resign=3/600")
    assert (adj.draw_moves, adj.draw_cp, adj.draw_from, adj.resign_moves, adj.resign_cp) == (8, 10, 40, 3, 600)
    assert adj.describe() == "draw=8/10/40,resign=3/600"
    assert match.Adjudication().describe() == "off"
    for bad in ("draw=8", "resign=3/600/1", "draw=0/10", "foo=1/2"):
        with pytest.raises(match.UsageError):
            match.parse_adjudication(bad)
    sprt = match.parse_sprt("elo0=0,elo1=10,alpha=0.05,beta=0.1,model=normalized")
    assert (sprt.elo0, sprt.elo1, sprt.beta, sprt.model) == (0, 10, 0.1, "normalized")
    for bad in ("elo0=0", "elo0=10,elo1=0", "elo0=0,elo1=5,x=1"):
        with pytest.raises(match.UsageError):
            match.parse_sprt(bad)


FASTCHESS_GAMES = """[Event "match"]
[Round "1"]
[White "new"]
[Black "old"]
[Result "1-0"]
[Termination "normal"]

1. e4 {+0.30/10 0.1s} e5 {-0.20/9 0.1s} 2. Qh5 {+0.5/8 0.1s} Nc6 3. Bc4 Nf6 4. Qxf7# {+M1/1 0.1s, White mates} 1-0

[Event "match"]
[Round "1"]
[White "old"]
[Black "new"]
[Result "0-1"]
[Termination "time forfeit"]

1. d4 {+0.1/5 1.0s, White loses on time (921ms overrun)} 0-1

[Event "match"]
[Round "2"]
[White "new"]
[Black "old"]
[Result "1/2-1/2"]
[Termination "adjudication"]

1. c4 {+0.00/5 0.1s, Draw by adjudication} 1/2-1/2

[Event "match"]
[Round "3"]
[White "new"]
[Black "old"]
[Result "0-1"]
[Termination "abandoned"]

0-1

[Event "match"]
[Round "2"]
[White "old"]
[Black "new"]
[Result "*"]
[Termination "unterminated"]

1. c4 {Game interrupted} *

"""


def test_fastchess_games_read_back(tmp_path):
    """fastchess's PGN becomes ours: its rounds mapped onto the pairs still to play, game 1
    A's White game, its reasons our Termination, the side that forfeited the Offender; an
    interrupted game left out; and the tally counts them from A's side."""
    source = tmp_path / "fastchess.pgn"
    source.write_text(FASTCHESS_GAMES)
    games = match.convert_games(source, [4, 7, 9], {"A": "new", "B": "old"})
    assert [(g.headers["Round"], g.headers["Termination"], g.headers.get("Offender")) for g in games] == [
        ("5.1", match.CHECKMATE, None), ("5.2", match.TIME_FORFEIT, "White"),
        ("8.1", match.ADJUDICATION_DRAW, None), ("10.1", match.CRASH, "White")]  # (no move: the loser)
    out = tmp_path / "ours.pgn"
    out.write_text("".join(str(g) + "\n\n" for g in games))
    tally = match.Tally()
    for record in match.read_pgn_records(out):
        tally.add(record)
    assert tally.complete_pairs == {4}
    assert tally.wdl() == (2, 1, 1)  # the checkmate, old's time forfeit, the adjudicated draw; the crash
    assert tally.forfeits()["B"][match.TIME_FORFEIT] == 1 and tally.forfeits()["A"][match.TIME_FORFEIT] == 0
    assert tally.forfeits()["A"][match.CRASH] == 1


def test_fastchess_command(tmp_path):
    """The limits, rules and engines of the command line in fastchess's terms; an xboard
    engine through the adapter; an engine without fastchess is one usage line."""
    args = match.build_parser().parse_args(
        ["--engine", "cmd=/bin/sh -c 'exit 0',name=x,option.Hash=16", "--engine", "cmd=/bin/sh,proto=xboard",
         "--tc", "40/60", "--adjudicate", "draw=8/10/40,resign=3/600", "--sprt", "elo0=0,elo1=10",
         "--concurrency", "1", "--time-margin", "0.5"])
    specs, settings, _, _, sprt, cores = match.configure(args)
    names = match.engine_names(specs)
    assert names == {"A": "x", "B": "sh"}
    command = match.fastchess_command("fastchess", args, specs, names, settings, 3, tmp_path / "book.epd",
                                      tmp_path / "games.pgn", sprt, cores, tmp_path)
    text = " ".join(command)
    assert text.index("timemargin=500") > text.index("tc=40/60+0")  # fastchess's tc= resets the margin
    for part in ("name=x", "option.Hash=16", "-rounds 3", "-repeat",
                 "-draw movenumber=40 movecount=8 score=10", "-resign movecount=3 score=600 twosided=true",
                 "-sprt elo0=0 elo1=10 alpha=0.05 beta=0.05 model=logistic"):
        assert part in text, part
    scripts = sorted(tmp_path.glob("engine-*.sh"))
    assert "exit 0" in scripts[0].read_text()
    assert "xboard_as_uci.py" in scripts[1].read_text() and "--level '40 60 0'" in scripts[1].read_text()
    assert match.main(["--engine", "cmd=/bin/sh", "--fastchess", str(tmp_path / "none")]) == 2
    for argv in (["--engine", "cmd=/bin/sh,proto=xboard", "--nodes", "100"],
                 ["--engine", "cmd=/bin/sh,proto=xboard", "--movetime", "0.5"],
                 ["--engine", "cmd=/bin/sh,proto=xboard,option.Hash=1"],
                 ["--engine", "cmd=/bin/sh", "--sprt", "elo0=0,elo1=5", "--pgn", "x.pgn", "--resume"]):
        assert match.main(argv) == 2, argv


def test_xboard_adapter_helpers():
    adapter = _load("xboard_as_uci")
    assert adapter.parse_features('myname="Phalanx XXV" ping=1 setboard=1 done=1') == \
        {"myname": "Phalanx XXV", "ping": "1", "setboard": "1", "done": "1"}
    board, fen, moves = adapter.board_of("startpos moves e2e4 e7e5".split())
    assert fen is None and [m.uci() for m in moves] == ["e2e4", "e7e5"]
    board, fen, _ = adapter.board_of("fen 8/8/4k3/8/8/3K4/8/R7 w - - 0 1".split())
    assert fen == "8/8/4k3/8/8/3K4/8/R7 w - - 0 1"
    assert adapter.uci_of(chess.Board(), "Nf3") == "g1f3"
    assert adapter.uci_of(chess.Board(), "e2e4") == "e2e4"
    assert adapter.info_of("12 -35 150 123456 e2e4 e7e5") == \
        "info depth 12 score cp -35 time 1500 nodes 123456 pv e2e4 e7e5"
    assert adapter.info_of("move e2e4") is None


def test_opening_order_is_stable():
    assert match.opening_order(5, None) == [0, 1, 2, 3, 4]
    order = match.opening_order(100, 7)
    assert sorted(order) == list(range(100)) and order == match.opening_order(100, 7)
    assert order != match.opening_order(100, 8)


def test_tally_and_pgn_round_trip(tmp_path):
    records = [
        match.GameRecord(0, 1, "1-0", match.CHECKMATE),            # A white wins
        match.GameRecord(0, 2, "1/2-1/2", match.REPETITION),       # A black draws -> WD
        match.GameRecord(1, 1, "0-1", match.TIME_FORFEIT, "A"),    # A white flags
        match.GameRecord(1, 2, "0-1", match.ILLEGAL_MOVE, "B"),    # B white illegal -> A wins: WL
        match.GameRecord(2, 2, "1-0", match.CRASH, "A"),           # unfinished pair
    ]
    tally = match.Tally()
    for r in records:
        tally.add(r)
    assert tally.complete_pairs == {0, 1}
    assert tally.wdl() == (2, 1, 2)
    assert tally.pentanomial() == [0, 0, 1, 1, 0]
    forfeits = tally.forfeits()
    assert forfeits["A"][match.TIME_FORFEIT] == 1 and forfeits["A"][match.CRASH] == 1
    assert forfeits["B"][match.ILLEGAL_MOVE] == 1

    path = tmp_path / "games.pgn"
    with open(path, "w") as handle:
        for r in records:
            game = chess.pgn.Game()
            game.headers["Round"] = f"{r.pair + 1}.{r.game}"
            game.headers["Result"] = r.result
            game.headers["Termination"] = r.reason
            if r.offender:
                white_offends = (r.offender == "A") == r.a_white
                game.headers["Offender"] = "White" if white_offends else "Black"
            print(game, file=handle, end="\n\n")
    back = match.read_pgn_records(path)
    assert [(r.pair, r.game, r.result, r.reason, r.offender) for r in back] == \
        [(r.pair, r.game, r.result, r.reason, r.offender) for r in records]


def test_command_line_errors_exit_2(capsys):
    for argv in (["--engine", "cmd=no-such-engine-xyz"], ["--engine", "cmd=/bin/sh", "--tc", "fast"],
                 ["--engine", "cmd=/bin/sh", "--games", "5"], ["--engine", "cmd=/bin/sh", "--resume"]):
        assert match.main(argv) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("match.py: ")
