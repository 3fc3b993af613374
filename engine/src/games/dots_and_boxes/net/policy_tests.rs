use std::collections::BTreeMap;

use super::policy::{load_policy_net, DabPolicy};
use super::*;
use crate::game::{Action, Game};
use crate::nn::tests::{random_net, temp_file};
use crate::nn::{ModelMeta, PolicyNet, ValueNet};
use crate::rng::Rng;

/// A policy net of random weights for 5x5 boards (86 inputs, 60 outputs).
fn random_policy(hidden: usize, seed: u64) -> PolicyNet {
    let mut rng = Rng::new(seed);
    let mut values = |n: usize| -> Vec<f32> {
        (0..n)
            .map(|_| (rng.unit_f64() * 2.0 - 1.0) as f32)
            .collect()
    };
    let (inputs, outputs) = (86, 60);
    PolicyNet {
        meta: ModelMeta {
            game: crate::games::DotsAndBoxes::spec_for(5, 5).unwrap(),
            encoding: DAB_ENCODING_TO_MOVE.into(),
            inputs,
            hidden,
            extra: BTreeMap::from([("kind".to_string(), "policy".to_string())]),
        },
        outputs,
        hidden_weight: values(inputs * hidden),
        hidden_bias: values(hidden),
        output_weight: values(outputs * hidden),
        output_bias: values(outputs),
    }
}

#[test]
fn a_policy_net_round_trips_and_is_not_a_value_net() {
    let net = random_policy(37, 1);
    let path = temp_file("policy-round-trip");
    net.save(&path).unwrap();
    assert_eq!(PolicyNet::load(&path, crate::registry::GAMES).unwrap(), net);
    let err = ValueNet::load(&path, crate::registry::GAMES)
        .unwrap_err()
        .to_string();
    assert!(err.contains("policy net"), "{err}");
    // And a value net is not a policy net.
    random_net(85, 10, 2).save(&path).unwrap();
    let err = PolicyNet::load(&path, crate::registry::GAMES)
        .unwrap_err()
        .to_string();
    assert!(err.contains("value net"), "{err}");
    std::fs::remove_file(path).unwrap();
}

#[test]
fn a_policy_net_is_refused_for_another_board_or_encoding() {
    let path = temp_file("policy-fits");
    random_policy(8, 3).save(&path).unwrap();
    let err = load_policy_net(&path, &DotsAndBoxes::new(3, 3).unwrap())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("trained for") && err.contains(&*path.to_string_lossy()),
        "{err}"
    );
    let mut net = random_policy(8, 3);
    net.meta.encoding = DAB_ENCODING.into();
    net.save(&path).unwrap();
    let err = load_policy_net(&path, &DotsAndBoxes::new(5, 5).unwrap())
        .unwrap_err()
        .to_string();
    assert!(err.contains(DAB_ENCODING_TO_MOVE), "{err}");
    std::fs::remove_file(path).unwrap();
}

/// The search's shares are the softmax of the reference forward pass over the given moves, on
/// positions of random games with either player to move.
#[test]
fn shares_are_the_softmax_of_the_reference_logits_over_the_moves() {
    let net = random_policy(45, 4);
    let mut policy = DabPolicy::new(&net);
    let mut rng = Rng::new(5);
    let mut input = vec![0f32; 86];
    let (mut moves, mut shares) = (Vec::new(), Vec::new());
    for game in 0..20 {
        let mut state = DotsAndBoxes::new(5, 5).unwrap();
        let plies = rng.below(60) as usize;
        for _ in 0..plies {
            state.legal_actions(&mut moves);
            let a = moves[rng.below(moves.len() as u32) as usize];
            state.apply(a);
        }
        if state.is_terminal() {
            continue;
        }
        state.legal_actions(&mut moves);
        // A few of the legal moves, as a node of the tree may have.
        let keep: Vec<Action> = moves
            .iter()
            .copied()
            .filter(|_| rng.below(2) == 0)
            .collect();
        let keep = if keep.is_empty() { moves.clone() } else { keep };
        policy.shares(&state, &keep, &mut shares);
        state.encode_features(&mut input[..85]);
        input[85] = if state.to_move() == crate::game::Player::P1 {
            1.0
        } else {
            0.0
        };
        let logits = net.forward(&input);
        let z: Vec<f64> = keep.iter().map(|&a| logits[a as usize] as f64).collect();
        let top = z.iter().cloned().fold(f64::MIN, f64::max);
        let sum: f64 = z.iter().map(|v| (v - top).exp()).sum();
        assert_eq!(shares.len(), keep.len());
        for (s, v) in shares.iter().zip(&z) {
            let want = (v - top).exp() / sum;
            assert!(
                (*s as f64 - want).abs() < 1e-5,
                "game {game}: {s} vs {want}"
            );
        }
    }
}

/// A draw from a pool of edges follows the softmax of the logits at the temperature: the
/// search's shares at temperature 1 (the same position, the same moves), close to the
/// favourite alone at a low one, close to even at a high one; every draw is in the pool.
#[test]
fn draws_follow_the_shares_at_the_temperature() {
    let net = random_policy(30, 8);
    let mut policy = DabPolicy::new(&net);
    let mut rng = Rng::new(9);
    let mut state = DotsAndBoxes::new(5, 5).unwrap();
    for a in [0, 7, 13, 21, 40] {
        state.apply(a);
    }
    let geo = state.geometry();
    let pool: u128 = (1u128 << 2) | (1u128 << 9) | (1u128 << 30) | (1u128 << 55);
    let moves: Vec<Action> = vec![2, 9, 30, 55];
    let mut shares = Vec::new();
    policy.shares(&state, &moves, &mut shares);
    let position = crate::games::dots_and_boxes::rollout::Turn {
        edges: state.edges(),
        owners: state.box_owners(),
        mover: state.to_move(),
    };
    let n = 40_000;
    let frequencies = |policy: &mut DabPolicy, rng: &mut Rng, t: f32| {
        let mut counts = [0u32; 4];
        for _ in 0..n {
            let e = policy.draw(geo, &position, pool, t, rng) as Action;
            let k = moves
                .iter()
                .position(|&m| m == e)
                .expect("a draw from the pool");
            counts[k] += 1;
        }
        counts.map(|c| c as f64 / n as f64)
    };
    let at_one = frequencies(&mut policy, &mut rng, 1.0);
    for (f, s) in at_one.iter().zip(&shares) {
        assert!((f - *s as f64).abs() < 0.015, "{at_one:?} vs {shares:?}");
    }
    let favourite = (0..4).fold(0, |b, k| if shares[k] > shares[b] { k } else { b });
    let cold = frequencies(&mut policy, &mut rng, 0.01);
    assert!(cold[favourite] > 0.99, "{cold:?} vs {shares:?}");
    let hot = frequencies(&mut policy, &mut rng, 1000.0);
    assert!(hot.iter().all(|f| (f - 0.25).abs() < 0.02), "{hot:?}");
}
