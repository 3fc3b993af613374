//! Chromosomes and the genetic operators: the paper's binary genes (a fixed number of bits a
//! weight) or real genes, uniform crossover with one mask bit a weight, and the adaptive
//! crossover and mutation probabilities of its Formulas (5) and (6).

use engine::rng::Rng;
use serde::{Deserialize, Serialize};

use crate::config::{Encoding, TuneConfig};

/// One individual's genes: a code a weight (binary) or the weight itself (real).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Genome {
    Binary(Vec<u32>),
    Real(Vec<f32>),
}

/// How genes map to weights.
#[derive(Clone, Copy, Debug)]
pub struct Coding {
    pub encoding: Encoding,
    pub bits: u32,
    pub min: f32,
    pub max: f32,
    pub sigma: f32,
}

impl Coding {
    pub fn of(config: &TuneConfig) -> Coding {
        Coding {
            encoding: config.encoding,
            bits: config.bits,
            min: config.min,
            max: config.max,
            sigma: config.sigma,
        }
    }

    fn top(&self) -> u32 {
        (1u32 << self.bits) - 1
    }

    /// The genome closest to `weights` (clamped into the range).
    pub fn encode(&self, weights: &[f32]) -> Genome {
        match self.encoding {
            Encoding::Binary => Genome::Binary(
                weights
                    .iter()
                    .map(|&w| {
                        let x = ((w - self.min) / (self.max - self.min)).clamp(0.0, 1.0);
                        (x * self.top() as f32).round() as u32
                    })
                    .collect(),
            ),
            Encoding::Real => Genome::Real(
                weights
                    .iter()
                    .map(|&w| w.clamp(self.min, self.max))
                    .collect(),
            ),
        }
    }

    pub fn decode(&self, genome: &Genome) -> Vec<f32> {
        match genome {
            Genome::Binary(codes) => codes
                .iter()
                .map(|&c| self.min + (self.max - self.min) * c as f32 / self.top() as f32)
                .collect(),
            Genome::Real(values) => values.clone(),
        }
    }

    /// A uniformly random genome of `len` weights.
    pub fn random(&self, len: usize, rng: &mut Rng) -> Genome {
        match self.encoding {
            Encoding::Binary => Genome::Binary(
                (0..len)
                    .map(|_| (rng.next_u64() & self.top() as u64) as u32)
                    .collect(),
            ),
            Encoding::Real => Genome::Real(
                (0..len)
                    .map(|_| self.min + (self.max - self.min) * rng.unit_f64() as f32)
                    .collect(),
            ),
        }
    }

    /// Mutates every bit (binary) or every weight (real) with probability `pm`.
    pub fn mutate(&self, genome: &mut Genome, pm: f64, rng: &mut Rng) {
        match genome {
            Genome::Binary(codes) => {
                for code in codes.iter_mut() {
                    for bit in 0..self.bits {
                        if rng.unit_f64() < pm {
                            *code ^= 1 << bit;
                        }
                    }
                }
            }
            Genome::Real(values) => {
                let sd = self.sigma * (self.max - self.min);
                for v in values.iter_mut() {
                    if rng.unit_f64() < pm {
                        *v = (*v + sd * gaussian(rng)).clamp(self.min, self.max);
                    }
                }
            }
        }
    }
}

/// A standard normal draw (Box-Muller).
fn gaussian(rng: &mut Rng) -> f32 {
    let u = rng.unit_f64().max(1e-12);
    let v = rng.unit_f64();
    ((-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()) as f32
}

/// Uniform crossover with one mask bit a weight: where the mask is 1 the two children swap
/// that weight's whole gene.
pub fn crossover(a: &mut Genome, b: &mut Genome, rng: &mut Rng) {
    match (a, b) {
        (Genome::Binary(x), Genome::Binary(y)) => swap_masked(x, y, rng),
        (Genome::Real(x), Genome::Real(y)) => swap_masked(x, y, rng),
        _ => unreachable!("one run has one encoding"),
    }
}

fn swap_masked<T>(x: &mut [T], y: &mut [T], rng: &mut Rng) {
    for (p, q) in x.iter_mut().zip(y.iter_mut()) {
        if rng.below(2) == 1 {
            std::mem::swap(p, q);
        }
    }
}

/// The adaptive probabilities of the paper (after Srinivas and Patnaik): the high value
/// (`p1`) for an individual at or below the mean fitness, falling linearly to the low value
/// (`p2`) at the best. For crossover `fitness` is the better parent's (Formula 5), for
/// mutation the individual's own (Formula 6).
///
/// Formula (6) as printed subtracts `(f_max - f)`, which would give the best individual the
/// highest rate; its text ("when the fitness is higher than the average, a smaller rate") and
/// Formula (5) agree on the form used here. When every individual is as fit as the best the
/// low value applies.
pub fn adaptive(p1: f64, p2: f64, fitness: f64, mean: f64, best: f64) -> f64 {
    if fitness < mean {
        p1
    } else if best <= mean {
        p2
    } else {
        p1 - (p1 - p2) * (fitness - mean) / (best - mean)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn coding(encoding: Encoding) -> Coding {
        Coding {
            encoding,
            bits: 7,
            min: 0.0,
            max: 1.0,
            sigma: 0.1,
        }
    }

    #[test]
    fn binary_genes_hold_two_decimals() {
        let c = coding(Encoding::Binary);
        let weights = [0.14, 0.37, 0.0, 1.0, 0.8];
        let back = c.decode(&c.encode(&weights));
        for (w, b) in weights.iter().zip(&back) {
            assert!((w - b).abs() <= 0.5 / 127.0 + 1e-6, "{w} -> {b}");
        }
        // Out of range is clamped.
        assert_eq!(c.decode(&c.encode(&[-3.0, 7.0])), vec![0.0, 1.0]);
        assert_eq!(
            coding(Encoding::Real).decode(&coding(Encoding::Real).encode(&[0.3, 2.0])),
            vec![0.3, 1.0]
        );
    }

    #[test]
    fn operators_keep_genes_in_range_and_crossover_only_swaps() {
        let mut rng = Rng::new(4);
        for encoding in [Encoding::Binary, Encoding::Real] {
            let c = coding(encoding);
            for _ in 0..200 {
                let a0 = c.random(15, &mut rng);
                let b0 = c.random(15, &mut rng);
                let (mut a, mut b) = (a0.clone(), b0.clone());
                crossover(&mut a, &mut b, &mut rng);
                let (wa, wb, wa0, wb0) = (c.decode(&a), c.decode(&b), c.decode(&a0), c.decode(&b0));
                for i in 0..15 {
                    assert!(
                        (wa[i] == wa0[i] && wb[i] == wb0[i])
                            || (wa[i] == wb0[i] && wb[i] == wa0[i])
                    );
                }
                c.mutate(&mut a, 0.3, &mut rng);
                assert!(c.decode(&a).iter().all(|w| (0.0..=1.0).contains(w)));
                if let Genome::Binary(codes) = &a {
                    assert!(codes.iter().all(|&x| x < 128));
                }
            }
            // Probability 0 changes nothing, probability 1 changes every binary bit.
            let g = c.random(15, &mut rng);
            let mut same = g.clone();
            c.mutate(&mut same, 0.0, &mut rng);
            assert_eq!(same, g);
        }
        let c = coding(Encoding::Binary);
        let mut g = Genome::Binary(vec![0b1010101; 3]);
        c.mutate(&mut g, 1.0, &mut rng);
        assert_eq!(g, Genome::Binary(vec![0b0101010; 3]));
    }

    #[test]
    fn adaptive_rates_follow_the_formulas() {
        // Below the mean: the high rate; at the best: the low rate; linear between.
        assert_eq!(adaptive(0.9, 0.6, -1.0, 0.0, 4.0), 0.9);
        assert_eq!(adaptive(0.9, 0.6, 0.0, 0.0, 4.0), 0.9);
        assert!((adaptive(0.9, 0.6, 2.0, 0.0, 4.0) - 0.75).abs() < 1e-12);
        assert!((adaptive(0.9, 0.6, 4.0, 0.0, 4.0) - 0.6).abs() < 1e-12);
        assert!((adaptive(0.1, 0.001, 4.0, 0.0, 4.0) - 0.001).abs() < 1e-12);
        // A population of equals.
        assert_eq!(adaptive(0.1, 0.001, 2.0, 2.0, 2.0), 0.001);
    }
}
