//! Match statistics as cutechess-cli reports them: the score with a 95% interval, the Elo
//! difference with error bars, the likelihood of superiority, and the sequential probability
//! ratio test.
//!
//! * Score `s = (W + D/2) / N`; its standard error from the per-game variance
//!   `((W (1-s)^2 + D (1/2-s)^2 + L s^2) / N) / N`, the 95% interval `s ± 1.96 σ`.
//! * Elo difference `-400 log10(1/s - 1)`; the error bars are the Elo of the interval's ends
//!   (cutechess's `Elo::diff` and `Elo::errorMargin`).
//! * LOS `= (1 + erf((W - L) / sqrt(2 (W + L)))) / 2` (draws carry no information).
//! * SPRT: the log-likelihood ratio of elo1 against elo0, stopped at `ln(β/(1-α))` (H0) or
//!   `ln((1-β)/α)` (H1). With draws, cutechess's trinomial BayesElo model (the draw Elo is
//!   estimated from the results, and elo0/elo1 are scaled to BayesElo); without draws (5x5 Dots
//!   and Boxes has 25 boxes and cannot be drawn), where that model is undefined, the binomial
//!   model `P(win) = 1 / (1 + 10^(-elo/400))`.

use serde::Serialize;

/// Wins, draws and losses of the first player of a pair.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

impl Tally {
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    pub fn score(&self) -> f64 {
        let n = self.games().max(1) as f64;
        (self.wins as f64 + 0.5 * self.draws as f64) / n
    }

    /// The score's standard error.
    pub fn score_stderr(&self) -> f64 {
        let n = self.games();
        if n == 0 {
            return 0.0;
        }
        let n = n as f64;
        let s = self.score();
        let var = (self.wins as f64 * (1.0 - s).powi(2)
            + self.draws as f64 * (0.5 - s).powi(2)
            + self.losses as f64 * s.powi(2))
            / n;
        (var / n).sqrt()
    }
}

/// The Elo difference for a score (±inf at 0 and 1).
pub fn elo_from_score(s: f64) -> f64 {
    if s <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if s >= 1.0 {
        return f64::INFINITY;
    }
    -400.0 * (1.0 / s - 1.0).log10()
}

/// The error function (Abramowitz and Stegun 7.1.26; absolute error below 1.5e-7).
pub fn erf(x: f64) -> f64 {
    let sign = if x < 0.0 { -1.0 } else { 1.0 };
    let x = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    sign * (1.0 - poly * (-x * x).exp())
}

/// Everything a match report says about a pair.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PairStats {
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    pub score: f64,
    /// 95% interval of the score.
    pub score_low: f64,
    pub score_high: f64,
    pub elo: f64,
    /// Half the width of the Elo interval (the ± figure).
    pub elo_error: f64,
    /// Likelihood that the first player is the stronger.
    pub los: f64,
}

impl PairStats {
    pub fn from_tally(t: Tally) -> PairStats {
        let s = t.score();
        let se = t.score_stderr();
        let (lo, hi) = ((s - 1.959_964 * se).max(0.0), (s + 1.959_964 * se).min(1.0));
        // Infinite when the interval reaches a score of 0 or 1 (a sweep).
        let elo_error = if lo > 0.0 && hi < 1.0 {
            (elo_from_score(hi) - elo_from_score(lo)) / 2.0
        } else {
            f64::INFINITY
        };
        let decisive = (t.wins + t.losses) as f64;
        let los = if decisive == 0.0 {
            0.5
        } else {
            0.5 * (1.0 + erf((t.wins as f64 - t.losses as f64) / (2.0 * decisive).sqrt()))
        };
        PairStats {
            games: t.games(),
            wins: t.wins,
            draws: t.draws,
            losses: t.losses,
            score: s,
            score_low: lo,
            score_high: hi,
            elo: elo_from_score(s),
            elo_error,
            los,
        }
    }
}

/// The settings of a sequential probability ratio test.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

/// Where a test stands.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SprtState {
    pub llr: f64,
    pub lower: f64,
    pub upper: f64,
    /// `"H0"`, `"H1"` or `"continue"`.
    pub verdict: &'static str,
}

impl Sprt {
    pub fn check(&self) -> Result<(), String> {
        let ok = |p: f64| p > 0.0 && p < 0.5;
        if !(ok(self.alpha) && ok(self.beta)) {
            return Err(format!(
                "SPRT alpha and beta must be in (0, 0.5), got {} and {}",
                self.alpha, self.beta
            ));
        }
        if self.elo0.is_nan() || self.elo1.is_nan() || self.elo1 <= self.elo0 {
            return Err(format!(
                "SPRT elo1 must be above elo0, got {} and {}",
                self.elo1, self.elo0
            ));
        }
        Ok(())
    }

    pub fn state(&self, t: Tally) -> SprtState {
        let lower = (self.beta / (1.0 - self.alpha)).ln();
        let upper = ((1.0 - self.beta) / self.alpha).ln();
        let llr = self.llr(t);
        let verdict = if llr >= upper {
            "H1"
        } else if llr <= lower {
            "H0"
        } else {
            "continue"
        };
        SprtState {
            llr,
            lower,
            upper,
            verdict,
        }
    }

    fn llr(&self, t: Tally) -> f64 {
        let (w, d, l) = (t.wins as f64, t.draws as f64, t.losses as f64);
        if t.draws == 0 {
            if t.wins == 0 && t.losses == 0 {
                return 0.0;
            }
            let p = |elo: f64| 1.0 / (1.0 + 10f64.powf(-elo / 400.0));
            let (p0, p1) = (p(self.elo0), p(self.elo1));
            return w * (p1 / p0).ln() + l * ((1.0 - p1) / (1.0 - p0)).ln();
        }
        if t.wins == 0 || t.losses == 0 {
            // cutechess gives no verdict until every kind of result has happened.
            return 0.0;
        }
        let n = w + d + l;
        let (pw, pl) = (w / n, l / n);
        let draw_elo = 200.0 * ((1.0 - pl) / pl * (1.0 - pw) / pw).log10();
        let x = 10f64.powf(-draw_elo / 400.0);
        let scale = 4.0 * x / ((1.0 + x) * (1.0 + x));
        let probs = |bayes_elo: f64| {
            let win = 1.0 / (1.0 + 10f64.powf((draw_elo - bayes_elo) / 400.0));
            let loss = 1.0 / (1.0 + 10f64.powf((draw_elo + bayes_elo) / 400.0));
            (win, loss, 1.0 - win - loss)
        };
        let (w0, l0, d0) = probs(self.elo0 / scale);
        let (w1, l1, d1) = probs(self.elo1 / scale);
        w * (w1 / w0).ln() + l * (l1 / l0).ln() + d * (d1 / d0).ln()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn score_elo_and_los_of_known_results() {
        let even = PairStats::from_tally(Tally {
            wins: 50,
            draws: 0,
            losses: 50,
        });
        assert_eq!(even.score, 0.5);
        assert!(even.elo.abs() < 1e-9);
        assert!((even.los - 0.5).abs() < 1e-9);
        // 60-40 over 100 games: score 0.6, Elo +70.4, sigma 0.049, LOS 97.7%.
        let t = Tally {
            wins: 60,
            draws: 0,
            losses: 40,
        };
        let p = PairStats::from_tally(t);
        assert!((p.elo - 70.437).abs() < 0.01, "{}", p.elo);
        assert!((t.score_stderr() - 0.04899).abs() < 1e-4);
        assert!((p.score_low - (0.6 - 1.959964 * 0.048990)).abs() < 1e-4);
        assert!((p.los - 0.97725).abs() < 1e-3, "{}", p.los);
        assert!(p.elo_error > 60.0 && p.elo_error < 80.0, "{}", p.elo_error);
        // All wins: infinite Elo, LOS 1.
        let sweep = PairStats::from_tally(Tally {
            wins: 10,
            draws: 0,
            losses: 0,
        });
        assert!(sweep.elo.is_infinite() && sweep.los > 0.999);
        assert!(sweep.elo_error.is_infinite());
    }

    #[test]
    fn erf_is_accurate() {
        for (x, want) in [
            (0.0, 0.0),
            (0.5, 0.520_499_877_8),
            (1.0, 0.842_700_792_9),
            (-2.0, -0.995_322_265),
        ] {
            assert!((erf(x) - want).abs() < 2e-7, "{x}");
        }
    }

    #[test]
    fn sprt_accepts_the_right_hypothesis() {
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 50.0,
            alpha: 0.05,
            beta: 0.05,
        };
        sprt.check().unwrap();
        let strong = sprt.state(Tally {
            wins: 80,
            draws: 0,
            losses: 20,
        });
        assert_eq!(strong.verdict, "H1");
        let weak = sprt.state(Tally {
            wins: 40,
            draws: 0,
            losses: 60,
        });
        assert_eq!(weak.verdict, "H0");
        let early = sprt.state(Tally {
            wins: 3,
            draws: 0,
            losses: 2,
        });
        assert_eq!(early.verdict, "continue");
        // With draws: the trinomial model; 300-200-500 is clearly better than +0.
        let drawish = sprt.state(Tally {
            wins: 300,
            draws: 500,
            losses: 200,
        });
        assert_eq!(drawish.verdict, "H1");
        assert!((drawish.upper - (19f64).ln()).abs() < 1e-12);
        assert!(Sprt { elo0: 5.0, ..sprt }.check().is_ok());
        assert!(Sprt { elo1: -5.0, ..sprt }.check().is_err());
    }
}
