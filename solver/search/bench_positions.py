"""The fixed positions of ``solver bench``: openings, middlegames with tactics, endgames.

Changing this list changes the bench signature; add positions only together with a note in
docs/benchmarks.md. The perft test positions (Kiwipete and positions 3-6 of the Chess
Programming Wiki's perft results page) are included for their castling, promotion and pin
tricks.
"""

CHESS = (
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "r1bqkb1r/pp2pppp/2np1n2/8/3NP3/2N5/PPP2PPP/R1BQKB1R w KQkq - 2 6",
    "rnbqkb1r/ppp2ppp/4pn2/3p2B1/2PP4/2N5/PP2PPPP/R2QKBNR b KQkq - 3 4",
    "r1bq1rk1/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQ1RK1 w - - 0 6",
    "r2q1rk1/pp2bppp/2n1pn2/3p4/2PP4/1PN1PN2/P4PPP/R1BQ1RK1 w - - 1 10",
    "2rq1rk1/pb1nbppp/1p2pn2/8/2pP4/P1N1PNB1/1PQ1BPPP/2RR2K1 w - - 0 14",
    "r1b2rk1/2q1bppp/p2ppn2/1p6/3NP3/1BN1B3/PPP1QPPP/R4RK1 w - - 0 12",
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 30",
    "8/5pk1/6p1/8/3R4/6P1/5PKP/2r5 w - - 0 40",
    "8/8/4k3/3p4/3P4/4K3/8/8 w - - 0 50",
    "8/8/8/4k3/8/8/3PK3/8 w - - 0 60",
)
