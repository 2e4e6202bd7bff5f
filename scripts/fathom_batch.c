/* Batch WDL and DTZ probes through Fathom (a C prober for Syzygy tables), for
 * scripts/fathom_probe.py.
 *
 * Built against Fathom's own sources at run time (scripts/fathom_probe.py does it); nothing of
 * Fathom is kept in this repository. One call probes a whole array of positions, so that the
 * exhaustive oracle checks pay no Python cost per position. Fathom's public API gives DTZ only
 * through root probing (every move ranked, no value for a mate), so this file includes
 * Fathom's tbprobe.c (and with it tbchess.c) and calls its internal probe_dtz: it is compiled
 * alone, as one translation unit.
 */
#include "tbprobe.c"

/* Open the tables under `paths` (directories separated by ':'); the largest piece count found,
 * 0 if none. */
int fathom_open(const char *paths)
{
    if (!tb_init(paths))
        return -1;
    return (int)TB_LARGEST;
}

/* For each position i, boards[8 i .. 8 i + 7] are the bitboards white, black, kings, queens,
 * rooks, bishops, knights, pawns (bit 0 = a1), white_to_move[i] the side to move, ep[i] the
 * en-passant square or 0. wdl[i] becomes -2..2 (loss, blessed loss, draw, cursed win, win for
 * the side to move) or 99 when Fathom cannot answer. Returns the number of failed probes. */
long fathom_probe_wdl_batch(const uint64_t *boards, const uint8_t *white_to_move,
                            const uint8_t *ep, long count, int8_t *wdl)
{
    long failed = 0;
    for (long i = 0; i < count; i++) {
        const uint64_t *b = boards + 8 * i;
        unsigned result = tb_probe_wdl(b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], 0, 0,
                                       ep[i], white_to_move[i] != 0);
        if (result == TB_RESULT_FAILED) {
            wdl[i] = 99;
            failed++;
        } else {
            wdl[i] = (int8_t)((int)result - TB_DRAW);
        }
    }
    return failed;
}

/* As fathom_probe_wdl_batch, and dtz[i] the DTZ in plies as python-chess's probe_dtz reports
 * it (signed for the side to move; 0 for a draw or a stalemate, -1 for a mated side; beyond
 * +-100 for a cursed win or blessed loss), with the 50-move count 0 and no castling. A failed
 * probe gives wdl 99 and dtz 0. Returns the number of failed probes. */
long fathom_probe_dtz_batch(const uint64_t *boards, const uint8_t *white_to_move,
                            const uint8_t *ep, long count, int8_t *wdl, int16_t *dtz)
{
    long failed = 0;
    for (long i = 0; i < count; i++) {
        const uint64_t *b = boards + 8 * i;
        Pos pos = {b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                   0, ep[i], white_to_move[i] != 0};
        int success = 0, value = 0, distance = 0;
        if (is_valid(&pos)) {
            value = probe_wdl(&pos, &success);
            if (success)  /* probed apart: probe_dtz alone cannot tell every cursed win */
                distance = probe_dtz(&pos, &success);
        }
        if (!success) {
            failed++;
            wdl[i] = 99;
            dtz[i] = 0;
        } else {
            wdl[i] = (int8_t)value;
            dtz[i] = (int16_t)distance;
        }
    }
    return failed;
}
