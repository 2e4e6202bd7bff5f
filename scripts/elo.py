"""Match statistics: score <-> Elo, trinomial and pentanomial confidence intervals, SPRT.

Conventions (those of fishtest, cutechess and fastchess):

- A game scores 1, 1/2 or 0 for the engine under test (engine A).
- Games are played in pairs from one opening with colours swapped. A pair scores 0, 1/2, 1, 3/2
  or 2; its five outcomes ``LL, LD, (DD or WL), WD, WW`` are the *pentanomial* counts, always
  given here in that order, lowest pair score first. Pair scores are divided by 2 so that every
  sample lies in [0, 1] and its mean is the match score.
- The *trinomial* counts are ``(losses, draws, wins)``, lowest first as well.
- Elo is the logistic Elo: ``score = 1 / (1 + 10 ** (-elo / 400))``.
- Normalized Elo (nElo) measures the score's distance from 1/2 in per-game standard deviations,
  ``nelo = (score - 1/2) / sigma_per_game * 800 / ln 10``; with pairs, ``sigma_per_game`` is
  ``sqrt(2 * variance_per_pair)``.

The confidence interval is the normal approximation on the mean score, mapped to Elo through the
logistic curve (so it is not symmetric in Elo). The SPRT log-likelihood ratio comes in two forms:
the exact generalized SPRT of the logistic model (the multinomial maximum likelihood under the
constraint ``mean = s0`` or ``s1``, M. Van den Bergh, "Comparing the approximations for the
generalized log likelihood ratio of a multinomial distribution"), and fishtest's closed-form
approximation for normalized Elo bounds.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

#: z for a two-sided 95% interval.
Z95 = 1.959963984540054
#: normalized Elo per unit of t = (mean - 1/2) / sigma.
NELO_PER_T = 800.0 / math.log(10.0)

TRINOMIAL_VALUES = (0.0, 0.5, 1.0)
PENTANOMIAL_VALUES = (0.0, 0.25, 0.5, 0.75, 1.0)


def score_to_elo(score: float) -> float:
    """The logistic Elo difference of an expected score in [0, 1] (+-inf at the ends).

    >>> round(score_to_elo(0.75), 2)
    190.85
    """
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def elo_to_score(elo: float) -> float:
    """The expected score of a logistic Elo difference.

    >>> elo_to_score(0.0)
    0.5
    """
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def mean_and_variance(values: Sequence[float], counts: Sequence[float]) -> tuple[float, float]:
    """Mean and (population) variance of one sample drawn from the empirical distribution.

    ``counts[i]`` is how often ``values[i]`` was seen; raises ValueError on no samples.
    """
    total = float(sum(counts))
    if total <= 0:
        raise ValueError("no samples")
    mean = sum(v * c for v, c in zip(values, counts)) / total
    var = sum(c * (v - mean) ** 2 for v, c in zip(values, counts)) / total
    return mean, var


def pair_index(first: float, second: float) -> int:
    """The pentanomial bucket (0..4) of a pair of game scores of engine A (each 0, 0.5 or 1)."""
    total = first + second
    index = round(total * 2)
    if abs(index - total * 2) > 1e-9 or not 0 <= index <= 4:
        raise ValueError(f"not a pair of game scores: {first}, {second}")
    return index


@dataclass(frozen=True)
class Interval:
    """An estimate with a two-sided confidence interval, in score and in Elo."""

    samples: int          # games (trinomial) or pairs (pentanomial)
    score: float          # mean score of engine A per game, in [0, 1]
    variance: float       # variance of one sample (game or pair, pair scores halved)
    score_low: float
    score_high: float

    @property
    def elo(self) -> float:
        """Logistic Elo of the mean score."""
        return score_to_elo(self.score)

    @property
    def elo_low(self) -> float:
        """Lower end of the interval in Elo."""
        return score_to_elo(self.score_low)

    @property
    def elo_high(self) -> float:
        """Upper end of the interval in Elo."""
        return score_to_elo(self.score_high)

    @property
    def elo_error(self) -> float:
        """Half the interval's width in Elo (the "+/-" that cutechess and fastchess print)."""
        return (self.elo_high - self.elo_low) / 2.0

    @property
    def standard_error(self) -> float:
        """Standard error of the mean score."""
        return math.sqrt(self.variance / self.samples)

    @property
    def los(self) -> float:
        """Likelihood of superiority: P(true score > 1/2) under the normal approximation."""
        if self.variance == 0.0:
            return 1.0 if self.score > 0.5 else 0.0 if self.score < 0.5 else 0.5
        return 0.5 * (1.0 + math.erf((self.score - 0.5) / (self.standard_error * math.sqrt(2.0))))

    def as_dict(self) -> dict:
        """JSON-ready figures (infinite Elo as None)."""

        def finite(x: float) -> float | None:
            return None if math.isinf(x) or math.isnan(x) else round(x, 2)

        return {
            "samples": self.samples,
            "score": round(self.score, 5),
            "elo": finite(self.elo),
            "elo_low": finite(self.elo_low),
            "elo_high": finite(self.elo_high),
            "elo_error": finite(self.elo_error),
            "los": round(self.los, 5),
        }


def _interval(values: Sequence[float], counts: Sequence[int], z: float) -> Interval:
    mean, var = mean_and_variance(values, counts)
    n = int(sum(counts))
    half = z * math.sqrt(var / n)
    return Interval(n, mean, var, max(0.0, mean - half), min(1.0, mean + half))


def trinomial_interval(losses: int, draws: int, wins: int, z: float = Z95) -> Interval:
    """Score and Elo interval treating every game as an independent sample."""
    return _interval(TRINOMIAL_VALUES, (losses, draws, wins), z)


def pentanomial_interval(counts: Sequence[int], z: float = Z95) -> Interval:
    """Score and Elo interval from pair counts ``(LL, LD, DD+WL, WD, WW)``.

    The pairs, not the games, are the independent samples, which removes the opening's share of
    the variance (a pair from a lopsided opening usually ends 1-1).
    """
    if len(counts) != 5:
        raise ValueError("pentanomial counts are (LL, LD, DD+WL, WD, WW)")
    return _interval(PENTANOMIAL_VALUES, counts, z)


def normalized_elo(score: float, variance_per_game: float) -> float:
    """Normalized Elo of a mean score given the variance of one game's score."""
    if variance_per_game <= 0.0:
        return math.copysign(math.inf, score - 0.5) if score != 0.5 else 0.0
    return (score - 0.5) / math.sqrt(variance_per_game) * NELO_PER_T


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's (lower, upper) LLR bounds: accept H0 at or below lower, H1 at or above upper."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def _regularized(counts: Sequence[int]) -> list[float]:
    # An empty bucket would make the likelihood degenerate; a tiny count keeps it well-posed
    # and moves the LLR by a negligible amount (the same device fastchess and fishtest use).
    return [c if c > 0 else 1e-3 for c in counts]


def _mle_with_mean(values: Sequence[float], probs: Sequence[float], s: float) -> list[float]:
    """The distribution on ``values`` closest (in KL) to ``probs`` whose mean is ``s``.

    It is ``p_i = probs_i / (1 + theta (values_i - s))`` with theta the root of
    ``sum probs_i (values_i - s) / (1 + theta (values_i - s)) = 0``, which is decreasing in theta
    on the interval where every denominator is positive; bisection finds it.
    """
    lo = -1.0 / (max(values) - s)
    hi = -1.0 / (min(values) - s)

    def f(theta: float) -> float:
        return sum(p * (v - s) / (1.0 + theta * (v - s)) for v, p in zip(values, probs))

    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if f(mid) > 0.0:
            lo = mid
        else:
            hi = mid
    theta = 0.5 * (lo + hi)
    return [p / (1.0 + theta * (v - s)) for v, p in zip(values, probs)]


def llr_logistic(elo0: float, elo1: float, counts: Sequence[int]) -> float:
    """Generalized SPRT log-likelihood ratio of H1 (Elo = elo1) against H0 (Elo = elo0).

    ``counts`` are trinomial ``(L, D, W)`` or pentanomial ``(LL, LD, DD+WL, WD, WW)``; the
    bounds are logistic Elo (cutechess's and fastchess's "logistic" model).
    """
    values = _values_for(counts)
    regular = _regularized(counts)
    total = sum(regular)
    probs = [c / total for c in regular]
    s0, s1 = elo_to_score(elo0), elo_to_score(elo1)
    p0 = _mle_with_mean(values, probs, s0)
    p1 = _mle_with_mean(values, probs, s1)
    return total * sum(p * (math.log(a) - math.log(b)) for p, a, b in zip(probs, p1, p0))


def llr_logistic_normal(elo0: float, elo1: float, counts: Sequence[int]) -> float:
    """The normal approximation of :func:`llr_logistic`.

    ``N (s1 - s0) (2 mean - s0 - s1) / (2 variance)`` with N samples of the given variance.
    """
    values = _values_for(counts)
    regular = _regularized(counts)
    mean, var = mean_and_variance(values, regular)
    s0, s1 = elo_to_score(elo0), elo_to_score(elo1)
    return sum(regular) * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)


def _mle_with_t(values: Sequence[float], probs: Sequence[float], t_star: float) -> list[float]:
    """The distribution on ``values`` closest (in KL) to ``probs`` with ``(mean - 1/2) / sigma``
    equal to ``t_star``: a fixed-point iteration from the uniform distribution, each step the
    same one-dimensional root search as :func:`_mle_with_mean` on the linearized constraint
    (M. Van den Bergh, "Comments on normalized Elo", section 4.1)."""
    n = len(values)
    p = [1.0 / n] * n
    for _ in range(100):
        mu, var = mean_and_variance(values, p)
        sigma = math.sqrt(var)
        phi = [a - 0.5 - 0.5 * t_star * sigma * (1.0 + ((a - mu) / sigma) ** 2) for a in values]
        lo, hi = -1.0 / max(phi), -1.0 / min(phi)

        def f(theta: float) -> float:
            return sum(q * x / (1.0 + theta * x) for q, x in zip(probs, phi))

        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if f(mid) > 0.0:
                lo = mid
            else:
                hi = mid
        theta = 0.5 * (lo + hi)
        new = [q / (1.0 + theta * x) for q, x in zip(probs, phi)]
        change = max(abs(a - b) for a, b in zip(new, p))
        p = new
        if change < 1e-12:
            break
    return p


def llr_normalized(nelo0: float, nelo1: float, counts: Sequence[int]) -> float:
    """Generalized SPRT log-likelihood ratio for bounds in normalized Elo (fishtest's model).

    ``counts`` are trinomial or pentanomial. With pairs, one pair's sigma is the per-game sigma
    over sqrt(2), so the bounds' t is multiplied by sqrt(2).
    """
    values = _values_for(counts)
    regular = _regularized(counts)
    total = sum(regular)
    probs = [c / total for c in regular]
    scale = math.sqrt(2.0) if len(counts) == 5 else 1.0
    p0 = _mle_with_t(values, probs, scale * nelo0 / NELO_PER_T)
    p1 = _mle_with_t(values, probs, scale * nelo1 / NELO_PER_T)
    return total * sum(p * (math.log(a) - math.log(b)) for p, a, b in zip(probs, p1, p0))


def llr_normalized_approx(nelo0: float, nelo1: float, counts: Sequence[int]) -> float:
    """Fishtest's closed-form approximation of :func:`llr_normalized`.

    With t the measured ``(mean - 1/2) / sigma_per_game`` and t0, t1 the bounds divided by
    800 / ln 10: ``LLR = games / 2 * ln((1 + (t - t0)^2) / (1 + (t - t1)^2))``. Good when the
    sample is large and not degenerate (it collapses when every game has the same result).
    """
    values = _values_for(counts)
    regular = _regularized(counts)
    mean, var = mean_and_variance(values, regular)
    if len(counts) == 5:
        sigma_per_game = math.sqrt(2.0 * var)
        games = 2.0 * sum(regular)
    else:
        sigma_per_game = math.sqrt(var)
        games = float(sum(regular))
    t = (mean - 0.5) / sigma_per_game
    t0, t1 = nelo0 / NELO_PER_T, nelo1 / NELO_PER_T
    return games / 2.0 * math.log((1.0 + (t - t0) ** 2) / (1.0 + (t - t1) ** 2))


def _values_for(counts: Sequence[int]) -> tuple[float, ...]:
    if len(counts) == 3:
        return TRINOMIAL_VALUES
    if len(counts) == 5:
        return PENTANOMIAL_VALUES
    raise ValueError("counts are trinomial (L, D, W) or pentanomial (LL, LD, DD+WL, WD, WW)")


@dataclass(frozen=True)
class Sprt:
    """An SPRT set-up: the Elo bounds, the error rates and the Elo model of the bounds."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "logistic"  # or "normalized"

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError("SPRT needs elo0 < elo1")
        if not (0 < self.alpha < 1 and 0 < self.beta < 1 and self.alpha + self.beta < 1):
            raise ValueError("SPRT needs 0 < alpha, beta and alpha + beta < 1")
        if self.model not in ("logistic", "normalized"):
            raise ValueError("SPRT model is logistic or normalized")

    @property
    def bounds(self) -> tuple[float, float]:
        """Wald's (lower, upper) bounds of the LLR."""
        return sprt_bounds(self.alpha, self.beta)

    def llr(self, counts: Sequence[int]) -> float:
        """The LLR of the counts (trinomial or pentanomial); 0 with no samples."""
        if sum(counts) == 0:
            return 0.0
        if self.model == "normalized":
            return llr_normalized(self.elo0, self.elo1, counts)
        return llr_logistic(self.elo0, self.elo1, counts)

    def decision(self, llr: float) -> str | None:
        """'H1' (elo1 accepted), 'H0' (elo0 accepted) or None (continue)."""
        lower, upper = self.bounds
        if llr >= upper:
            return "H1"
        if llr <= lower:
            return "H0"
        return None
