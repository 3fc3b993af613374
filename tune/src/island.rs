//! One island's generation: tournaments inside random groups (every pair plays both colours,
//! +1 a win, -1 a loss), the better half of each group kept as parents, children by adaptive
//! crossover and mutation, and the next generation the parents and their children (elitism:
//! the former better individuals survive unchanged).

use engine::rng::{derive_seed, Rng};
use serde::{Deserialize, Serialize};

use crate::config::TuneConfig;
use crate::genome::{adaptive, crossover, Coding, Genome};

/// The index that stands for the starting weights in a [`Pairing`] (the yardstick games).
pub const START: usize = usize::MAX;

/// One fitness game: individual `p1` (first player) against `p2` of one island ([`START`]: the
/// starting weights), from the opening numbered `opening`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pairing {
    pub island: usize,
    pub p1: usize,
    pub p2: usize,
    pub opening: u64,
}

/// The seed of everything random in `island`'s generation `generation`, for `purpose`.
fn seed(config: &TuneConfig, island: usize, generation: usize, purpose: u64) -> u64 {
    let s = derive_seed(config.seed, island as u64);
    derive_seed(derive_seed(s, generation as u64), purpose)
}

/// A first population: the starting weights and random individuals.
pub fn first_population(
    config: &TuneConfig,
    coding: &Coding,
    island: usize,
    start: &[f32],
) -> Vec<Genome> {
    let mut rng = Rng::new(seed(config, island, usize::MAX, 0));
    let mut population = vec![coding.encode(start)];
    while population.len() < config.population {
        population.push(coding.random(start.len(), &mut rng));
    }
    population
}

/// The groups of a generation (indices into the population, shuffled) and their games.
pub fn tournament(
    config: &TuneConfig,
    island: usize,
    generation: usize,
) -> (Vec<Vec<usize>>, Vec<Pairing>) {
    let mut order: Vec<usize> = (0..config.population).collect();
    Rng::new(seed(config, island, generation, 1)).shuffle(&mut order);
    let groups: Vec<Vec<usize>> = order
        .chunks(config.group_size)
        .map(|g| g.to_vec())
        .collect();
    let openings = seed(config, island, generation, 2);
    let mut games = Vec::new();
    for group in &groups {
        for &p1 in group {
            for &p2 in group {
                if p1 != p2 {
                    let opening = derive_seed(openings, games.len() as u64);
                    games.push(Pairing {
                        island,
                        p1,
                        p2,
                        opening,
                    });
                }
            }
        }
    }
    (groups, games)
}

/// The yardstick games of a generation: individual `best` against the starting weights,
/// `count` games, each colour half of them.
pub fn yardstick(
    config: &TuneConfig,
    island: usize,
    generation: usize,
    best: usize,
) -> Vec<Pairing> {
    let openings = seed(config, island, generation, 4);
    (0..config.yardstick_games)
        .map(|k| {
            let (p1, p2) = if k % 2 == 0 {
                (best, START)
            } else {
                (START, best)
            };
            // Both colours from the same opening.
            let opening = derive_seed(openings, (k / 2) as u64);
            Pairing {
                island,
                p1,
                p2,
                opening,
            }
        })
        .collect()
}

/// What one generation of one island did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GenerationStats {
    pub generation: usize,
    pub island: usize,
    /// The best and the mean tournament score.
    pub best: f64,
    pub mean: f64,
    /// The weights of the best individual (the first of the best when several tie).
    pub best_weights: Vec<f32>,
    pub games: usize,
    /// The best individual's score (wins + draws / 2, over the games) against the starting
    /// weights in the yardstick games (`None` without them).
    pub vs_start: Option<f64>,
    pub seconds: f64,
    /// Migrants received after this generation, and the islands whose migrants did not come.
    pub immigrants: usize,
    pub missing: Vec<usize>,
}

/// The next population from the tournament's `fitness` (per individual), best parents first.
pub fn evolve(
    config: &TuneConfig,
    coding: &Coding,
    island: usize,
    generation: usize,
    population: &[Genome],
    groups: &[Vec<usize>],
    fitness: &[f64],
) -> Vec<Genome> {
    let mut rng = Rng::new(seed(config, island, generation, 3));
    let mean = fitness.iter().sum::<f64>() / fitness.len() as f64;
    let best = fitness.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    // The better half of every group (stable: ties keep the shuffled order).
    let mut parents: Vec<usize> = Vec::new();
    for group in groups {
        let mut ranked = group.clone();
        ranked.sort_by(|&a, &b| fitness[b].total_cmp(&fitness[a]));
        parents.extend_from_slice(&ranked[..group.len() / 2]);
    }
    parents.sort_by(|&a, &b| fitness[b].total_cmp(&fitness[a]));
    let mut next: Vec<Genome> = parents.iter().map(|&p| population[p].clone()).collect();
    let mut mates = parents.clone();
    rng.shuffle(&mut mates);
    let mut k = 0;
    while next.len() < config.population {
        let (a, b) = (mates[k % mates.len()], mates[(k + 1) % mates.len()]);
        k += 2;
        let (mut x, mut y) = (population[a].clone(), population[b].clone());
        let pc = adaptive(
            config.pc1,
            config.pc2,
            fitness[a].max(fitness[b]),
            mean,
            best,
        );
        if rng.unit_f64() < pc {
            crossover(&mut x, &mut y, &mut rng);
        }
        for (child, parent) in [(x, a), (y, b)] {
            if next.len() < config.population {
                let mut child = child;
                let pm = adaptive(config.pm1, config.pm2, fitness[parent], mean, best);
                coding.mutate(&mut child, pm, &mut rng);
                next.push(child);
            }
        }
    }
    next
}

/// The `count` best of a population after `evolve` (its parents come first, best first).
pub fn emigrants(next: &[Genome], count: usize) -> Vec<Genome> {
    next[..count.min(next.len())].to_vec()
}

/// Puts `immigrants` in place of the last children of `next` (never of a parent).
pub fn receive(next: &mut [Genome], immigrants: Vec<Genome>) -> usize {
    let room = next.len() / 2;
    let n = immigrants.len().min(room);
    let len = next.len();
    for (slot, genome) in next[len - n..].iter_mut().zip(immigrants) {
        *slot = genome;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Encoding;

    fn config() -> TuneConfig {
        TuneConfig {
            population: 8,
            group_size: 4,
            ..TuneConfig::default()
        }
    }

    #[test]
    fn every_pair_of_a_group_plays_both_colours() {
        let c = config();
        let (groups, games) = tournament(&c, 0, 0);
        assert_eq!(groups.len(), 2);
        assert_eq!(games.len(), c.games_per_generation());
        assert_eq!(games.len(), 24);
        let mut seen: Vec<usize> = groups.concat();
        seen.sort();
        assert_eq!(seen, (0..8).collect::<Vec<_>>());
        for g in &groups {
            for &a in g {
                for &b in g {
                    let n = games.iter().filter(|p| p.p1 == a && p.p2 == b).count();
                    assert_eq!(n, usize::from(a != b));
                }
            }
        }
        // Every game has its own opening; another generation other groups.
        let mut openings: Vec<u64> = games.iter().map(|p| p.opening).collect();
        openings.sort();
        openings.dedup();
        assert_eq!(openings.len(), games.len());
        assert_eq!(tournament(&c, 0, 0), (groups.clone(), games.clone()));
        assert_ne!(tournament(&c, 0, 1).1, games);
        assert_ne!(tournament(&c, 1, 0).1, games);
    }

    #[test]
    fn the_better_half_survives_and_children_fill_the_rest() {
        let c = config();
        let coding = Coding::of(&c);
        let start = vec![0.5; 15];
        let population = first_population(&c, &coding, 0, &start);
        assert_eq!(population.len(), 8);
        assert_eq!(
            coding.decode(&population[0]),
            coding.decode(&coding.encode(&start))
        );
        let groups = vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7]];
        let fitness = [3.0, -1.0, 1.0, -3.0, -2.0, 0.0, 4.0, -2.0];
        let next = evolve(&c, &coding, 0, 0, &population, &groups, &fitness);
        assert_eq!(next.len(), 8);
        // Parents: 0 and 2 from the first group, 6 and 5 from the second, best first.
        assert_eq!(
            next[..4],
            [
                population[6].clone(),
                population[0].clone(),
                population[2].clone(),
                population[5].clone()
            ]
        );
        assert_eq!(emigrants(&next, 2), next[..2].to_vec());
        let mut received = next.clone();
        let incoming = vec![coding.encode(&[0.0; 15]); 5];
        assert_eq!(receive(&mut received, incoming.clone()), 4);
        assert_eq!(received[..4], next[..4]);
        assert_eq!(received[4..], incoming[..4]);
        // Reproducible.
        assert_eq!(
            next,
            evolve(&c, &coding, 0, 0, &population, &groups, &fitness)
        );
        let real = TuneConfig {
            encoding: Encoding::Real,
            ..c
        };
        assert!(matches!(
            first_population(&real, &Coding::of(&real), 0, &start)[1],
            Genome::Real(_)
        ));
    }
}
