//! Tests of the fast forward pass, the incremental update and net-guided rollouts.

use std::sync::Arc;

use std::path::Path;

use super::guided::net_call;
use super::*;
use crate::game::{Game, Outcome};
use crate::mcts::{Budget, RolloutPolicy, Search, SearchConfig, Ucb};
use crate::nn::inference::{
    fast_exp, fast_sigmoid_with, logit_error_bound, FastNet, Simd, SIGMOID_ERROR_BOUND,
};
use crate::nn::tests::{random_net, temp_file};
use crate::nn::{sigmoid, ValueNet, OUTPUTS};
use crate::rng::Rng;

fn shipped_model() -> ValueNet {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../models/dab-5x5/model.safetensors");
    ValueNet::load(&path, crate::registry::GAMES).unwrap()
}

/// A random net made for a `rows` x `cols` board.
fn random_board_net(rows: usize, cols: usize, hidden: usize, seed: u64) -> ValueNet {
    let inputs = DotsAndBoxes::new(rows, cols).unwrap().feature_len();
    let mut net = random_net(inputs, hidden, seed);
    net.meta.game = crate::games::DotsAndBoxes::spec_for(rows, cols).unwrap();
    net
}

/// A net for the 3x3 board whose outputs are its output biases whatever the position (every
/// output weight zero): P1 wins, P2 wins, draw as logits.
fn fixed_output_net(logits: [f32; OUTPUTS]) -> Arc<DabNet> {
    let mut net = random_board_net(3, 3, 10, 8);
    net.output_weight.iter_mut().for_each(|w| *w = 0.0);
    net.output_bias = logits.to_vec();
    Arc::new(DabNet::new(&net, &DotsAndBoxes::new(3, 3).unwrap()).unwrap())
}

/// `guide`'s net-guided chain rollouts with `dab`, started on `board`.
fn chain_rollouts(dab: Arc<DabNet>, guide: NetGuide, board: &DotsAndBoxes) -> NetRollout {
    let mut rollout = NetRollout::new(dab, guide)
        .unwrap()
        .then_chains(crate::games::dots_and_boxes::rollout::ChainRollout::default());
    rollout.begin_search(board);
    rollout
}

/// A move as `DabNet::add_move` takes it: the edge, who drew it, which of its boxes it closed.
type MoveChange = (usize, crate::Player, [bool; 2]);

/// Every position of `games` uniformly random games on the board, with the move that left it
/// (none for the empty board).
fn random_positions(
    rows: usize,
    cols: usize,
    games: usize,
    seed: u64,
) -> Vec<(DotsAndBoxes, Option<MoveChange>)> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    let mut actions = Vec::new();
    for _ in 0..games {
        let mut state = DotsAndBoxes::new(rows, cols).unwrap();
        out.push((state, None));
        while !state.is_terminal() {
            state.legal_actions(&mut actions);
            let a = rng.pick(&actions);
            let mover = state.to_move();
            let before = state.box_owners();
            state.apply(a);
            let after = state.box_owners()[mover.index()] & !before[mover.index()];
            let boxes = state.geometry().edge_boxes[a as usize];
            let closed = boxes.map(|b| b != u8::MAX && after >> b & 1 == 1);
            out.push((state, Some((a as usize, mover, closed))));
        }
    }
    out
}

/// The reference in f64: hidden sigmoids and output logits computed from the PyTorch layout.
fn logits_f64(net: &ValueNet, input: &[f32]) -> [f64; OUTPUTS] {
    let (n_in, n_hidden) = (net.inputs(), net.hidden());
    let hidden: Vec<f64> = (0..n_hidden)
        .map(|j| {
            let z: f64 = net.hidden_weight[j * n_in..(j + 1) * n_in]
                .iter()
                .zip(input)
                .map(|(&w, &x)| w as f64 * x as f64)
                .sum::<f64>()
                + net.hidden_bias[j] as f64;
            1.0 / (1.0 + (-z).exp())
        })
        .collect();
    let mut out = [0f64; OUTPUTS];
    for (k, o) in out.iter_mut().enumerate() {
        *o = net.output_weight[k * n_hidden..(k + 1) * n_hidden]
            .iter()
            .zip(&hidden)
            .map(|(&w, &h)| w as f64 * h)
            .sum::<f64>()
            + net.output_bias[k] as f64;
    }
    out
}

/// Both variants: plain and fused multiply-adds (`mul_add` is exact in software too, so the
/// fused variant is checked on any CPU).
#[test]
fn fast_sigmoid_is_within_its_bound_everywhere() {
    check_sigmoid(fast_sigmoid_with::<false>);
    check_sigmoid(fast_sigmoid_with::<true>);
}

fn check_sigmoid(fast: fn(f32) -> f32) {
    let mut worst = 0f64;
    let mut check = |x: f32| {
        let exact = 1.0 / (1.0 + (-(x as f64)).exp());
        let err = (fast(x) as f64 - exact).abs();
        assert!(
            err <= SIGMOID_ERROR_BOUND as f64,
            "sigmoid({x}): fast {} exact {exact}",
            fast(x)
        );
        worst = worst.max(err);
    };
    // A dense sweep of the range where the sigmoid is not flat, and the tails.
    for i in -2_000_000..=2_000_000 {
        check(i as f32 * 1e-5 * 20.0);
    }
    for x in [
        -1e30, -1e4, -200.0, -88.5, -87.0, -80.0, 80.0, 87.0, 88.5, 200.0, 1e30,
    ] {
        check(x);
    }
    check(f32::INFINITY);
    check(f32::NEG_INFINITY);
    assert!(worst > 0.0, "the sweep compared something");
}

#[test]
fn fast_exp_is_accurate_in_its_range() {
    let mut y = -87.0f32;
    while y <= 80.0 {
        let exact = (y as f64).exp();
        let rel = ((fast_exp(y) as f64 - exact) / exact).abs();
        assert!(rel < 3e-7, "exp({y}): fast {} exact {exact}", fast_exp(y));
        y += 0.001_3;
    }
    // Never subnormal, never infinite.
    assert!(fast_exp(-1e9).is_normal() && fast_exp(1e9).is_finite());
}

#[test]
fn fast_forward_matches_the_reference() {
    let nets = [
        random_net(85, 100, 5),
        shipped_model(),
        random_net(24, 7, 6),
    ];
    for (net, simd) in nets
        .iter()
        .flat_map(|n| Simd::available().into_iter().map(move |s| (n, s)))
    {
        let fast = FastNet::with_simd(net, simd);
        assert_eq!(fast.width() % crate::nn::inference::LANES, 0);
        let mut acc = vec![0f32; fast.width()];
        let mut rng = Rng::new(2);
        for _ in 0..500 {
            let x: Vec<f32> = (0..net.inputs())
                .map(|_| [0.0, 0.25, 0.5, 0.75, 1.0][rng.below(5) as usize])
                .collect();
            let want = net.forward(&x);
            let got = fast.evaluate(&x, &mut acc);
            for k in 0..OUTPUTS {
                assert!((want[k] - got[k]).abs() < 2e-6, "{want:?} vs {got:?}");
            }
        }
    }
}

/// The pre-activations kept move by move equal the full product at every position of random
/// games, on several board sizes, for both encodings (with and without the player to move), and
/// so do the outputs.
#[test]
fn incremental_evaluation_matches_full_evaluation_along_random_games() {
    let sizes = [
        (5, 5, 100, false),
        (5, 5, 100, true),
        (3, 3, 20, false),
        (3, 3, 20, true),
        (2, 4, 13, false),
        (1, 1, 3, false),
    ];
    let cases = sizes
        .iter()
        .flat_map(|&size| Simd::available().into_iter().map(move |simd| (size, simd)));
    for ((rows, cols, hidden, to_move), simd) in cases {
        let mut net = random_board_net(rows, cols, hidden, 11);
        if to_move {
            net = random_net(net.inputs() + 1, hidden, 11);
            net.meta.game = crate::games::DotsAndBoxes::spec_for(rows, cols).unwrap();
            net.meta.encoding = DAB_ENCODING_TO_MOVE.into();
        }
        let board = DotsAndBoxes::new(rows, cols).unwrap();
        let dab = DabNet::with_simd(&net, &board, simd).unwrap();
        let w = dab.width();
        let (mut inc, mut full, mut sparse) = (vec![0f32; w], vec![0f32; w], vec![0f32; w]);
        let mut checked = 0;
        for (state, last) in random_positions(rows, cols, 60, 7) {
            match last {
                None => dab.preactivations(&state, &mut inc),
                Some((edge, mover, closed)) => {
                    dab.add_move(&mut inc, edge, mover, closed);
                    dab.change_mover(&mut inc, mover, state.to_move());
                }
            }
            let input = super::net_input(dab.value_net(), &state);
            dab.fast_net().preactivations(&input, &mut full);
            dab.preactivations(&state, &mut sparse);
            for j in 0..w {
                let scale = 1.0 + full[j].abs();
                assert!(
                    (inc[j] - full[j]).abs() < 1e-4 * scale,
                    "{rows}x{cols} unit {j}: incremental {} full {} at {state:?}",
                    inc[j],
                    full[j]
                );
                assert!((sparse[j] - full[j]).abs() < 1e-4 * scale);
            }
            let reference = net.forward(&input);
            let got = dab.logits(&inc).map(sigmoid);
            for k in 0..OUTPUTS {
                assert!(
                    (reference[k] - got[k]).abs() < 1e-4,
                    "{reference:?} {got:?}"
                );
            }
            checked += 1;
        }
        assert!(checked > 60 * (board.num_edges()), "{checked}");
    }
}

/// A net that reads the player to move has one input more than the grid; a wrong count is
/// refused, naming the count it needs.
#[test]
fn a_to_move_net_is_refused_or_accepted_by_its_input_count() {
    let board = DotsAndBoxes::new(5, 5).unwrap();
    let mut net = random_net(86, 10, 4);
    net.meta.encoding = DAB_ENCODING_TO_MOVE.into();
    assert!(DabNet::new(&net, &board).is_ok());
    let mut wrong = random_net(85, 10, 4);
    wrong.meta.encoding = DAB_ENCODING_TO_MOVE.into();
    let e = DabNet::new(&wrong, &board).err().unwrap();
    assert!(e.contains("86"), "{e}");
}

/// On a large sample of positions the fast cut-off decision (incremental pre-activations, fast
/// sigmoid, logits against the threshold's logit) equals the exact one (f64 sigmoids, output
/// probability against the threshold), except where the exact logit lies within the error
/// bound of the threshold's logit; and the sample holds both decisions.
#[test]
fn the_fast_cut_off_decision_equals_the_exact_one() {
    let positions = random_positions(5, 5, 2_000, 21);
    assert!(positions.len() > 100_000);
    let board = DotsAndBoxes::new(5, 5).unwrap();
    let mut input = vec![0f32; 85];
    // The shipped net and a random net with smaller output weights (sure about half the time at
    // 0.8).
    let mut random = random_net(85, 100, 12);
    random.output_weight.iter_mut().for_each(|w| *w *= 0.6);
    let cases = [
        (shipped_model(), vec![0.6, 0.8, 0.9]),
        (random, vec![0.7, 0.8, 0.9]),
    ];
    let cases = cases
        .iter()
        .flat_map(|c| Simd::available().into_iter().map(move |simd| (c, simd)));
    for ((net, thresholds), simd) in cases {
        let dab = DabNet::with_simd(net, &board, simd).unwrap();
        let mut acc = vec![0f32; dab.width()];
        // The sigmoid's error through the output weights, plus summation rounding.
        let bound = logit_error_bound(net) as f64 + 1e-4;
        for &t in thresholds {
            let guide = NetGuide {
                threshold: t,
                from_move: 0,
                ..NetGuide::default()
            };
            let tl = guide.threshold_logit();
            let (mut calls, mut near, mut differ) = (0usize, 0usize, 0usize);
            for (state, last) in &positions {
                match *last {
                    None => dab.preactivations(state, &mut acc),
                    Some((edge, mover, closed)) => dab.add_move(&mut acc, edge, mover, closed),
                }
                let fast = net_call(dab.logits(&acc), tl);
                state.encode_features(&mut input);
                let z = logits_f64(net, &input);
                let (best, zmax) =
                    z.iter()
                        .enumerate()
                        .fold(
                            (0, f64::NEG_INFINITY),
                            |a, (k, &v)| if v > a.1 { (k, v) } else { a },
                        );
                let exact = (1.0 / (1.0 + (-zmax).exp()) >= t).then_some(best);
                let fast_index = fast.map(|o| match o {
                    Outcome::P1Win => 0,
                    Outcome::P2Win => 1,
                    Outcome::Draw => 2,
                });
                calls += exact.is_some() as usize;
                let close = (zmax - tl as f64).abs() <= bound;
                near += close as usize;
                if fast_index != exact {
                    differ += 1;
                    assert!(
                        close,
                        "threshold {t}: fast {fast:?} exact {exact:?}, logits {z:?}, bound {bound}"
                    );
                }
            }
            eprintln!(
                "{simd:?}, threshold {t}: {calls} of {} positions cut, {differ} decisions differ, {near} within the bound",
                positions.len()
            );
            assert!(
                calls > 0 && calls < positions.len(),
                "threshold {t}: {calls}"
            );
        }
    }
}

fn search_config(iterations: u64, seed: u64) -> SearchConfig {
    SearchConfig {
        budget: Budget::iterations(iterations),
        seed,
        ..SearchConfig::default()
    }
}

/// With the net never asked, a net-guided search is plain MCTS draw for draw: the rollout
/// plays the same random moves as the game's own playout.
#[test]
fn a_net_never_asked_gives_the_plain_search() {
    let board = DotsAndBoxes::new(5, 5).unwrap();
    let dab = Arc::new(DabNet::new(&random_net(85, 100, 3), &board).unwrap());
    for moves in ["", "0 1 2 3 4 5 6 7 8 9 10 11 30 31 32 33 34 35 36 37 38"] {
        let state = DotsAndBoxes::from_move_text(5, 5, moves).unwrap();
        let guide = NetGuide {
            threshold: 0.9,
            from_move: 61,
            ..NetGuide::default()
        };
        let rollout = NetRollout::new(dab.clone(), guide).unwrap();
        let mut guided = Search::new(search_config(20_000, 4), Ucb::default(), rollout);
        let mut plain: Search<DotsAndBoxes> = Search::plain(search_config(20_000, 4));
        let g = guided.run(&state).unwrap();
        let p = plain.run(&state).unwrap();
        assert_eq!(g.root_moves, p.root_moves);
        assert_eq!(g.rollouts.net_evaluations, 0);
        assert_eq!(g.rollouts.rollouts, p.rollouts.rollouts);
        assert!(g.rollouts.rollouts > 19_000);
    }
}

/// A net sure that P1 wins ends every rollout at its leaf, and every result backed up is then
/// a P1 win; the counts say so.
#[test]
fn a_sure_net_ends_every_rollout_at_once() {
    let board = DotsAndBoxes::new(3, 3).unwrap();
    let dab = fixed_output_net([5.0, -5.0, -5.0]);
    let rollout = NetRollout::new(dab, NetGuide::default()).unwrap();
    let mut search = Search::new(search_config(3_000, 1), Ucb::default(), rollout);
    let r = search.run(&board).unwrap();
    assert_eq!(r.rollouts.net_cutoffs, r.rollouts.rollouts);
    assert_eq!(r.rollouts.net_evaluations, r.rollouts.rollouts);
    // Only iterations that reach the end of the game inside the tree escape the net; in 3,000
    // iterations on 24 edges the tree is far from any end.
    assert_eq!(r.rollouts.rollouts, 3_000);
    for m in &r.root_moves {
        assert_eq!(m.p1_wins, m.visits, "{m:?}");
    }
    // The counts are per search, not cumulative.
    let again = search.run(&board).unwrap();
    assert_eq!(again.rollouts.rollouts, 3_000);
}

/// With chain rollouts a sure net ends the play-out at its leaf (asked once there), and only
/// from `from_move` edges on: before that the chain rollout runs unasked.
#[test]
fn a_sure_net_ends_chain_rollouts_at_the_leaf() {
    let board = DotsAndBoxes::new(3, 3).unwrap();
    let dab = fixed_output_net([-5.0, 5.0, -5.0]);
    let mut rollout = chain_rollouts(dab.clone(), NetGuide::default(), &board);
    let mut rng = Rng::new(3);
    for _ in 0..200 {
        let mut s = board;
        assert_eq!(rollout.rollout(&mut s, &mut rng), Outcome::P2Win);
        let stats = rollout.take_stats();
        assert_eq!((stats.net_evaluations, stats.net_cutoffs), (1, 1));
    }
    let guide = NetGuide {
        from_move: 4,
        ..NetGuide::default()
    };
    let mut late = chain_rollouts(dab, guide, &board);
    let mut s = board;
    late.rollout(&mut s, &mut rng);
    assert_eq!(late.take_stats().net_evaluations, 0);
}

/// `prior`: each child's bias is `prior` times the net's P(mover wins) - P(mover loses) of the
/// position after the move, as a full evaluation of that position gives it (with a net that
/// reads the player to move too), from random positions with boxes closed; without `prior` the
/// policy gives no bias, and a negative one is refused.
#[test]
fn prior_biases_children_by_the_nets_view_of_them() {
    use crate::games::dots_and_boxes::rollout::ChainRollout;
    let board = DotsAndBoxes::new(5, 5).unwrap();
    let mut raw = random_net(86, 40, 17);
    raw.meta.encoding = DAB_ENCODING_TO_MOVE.into();
    let dab = Arc::new(DabNet::new(&raw, &board).unwrap());
    let guide = NetGuide {
        prior: 0.5,
        ..NetGuide::default()
    };
    let mut policy = NetRollout::new(dab.clone(), guide)
        .unwrap()
        .then_chains(ChainRollout::default());
    assert!(policy.gives_bias());
    policy.begin_search(&board);
    let mut actions = Vec::new();
    let mut biases = Vec::new();
    let mut acc = vec![0f32; dab.width()];
    let mut checked = 0;
    for (state, _) in random_positions(5, 5, 6, 31) {
        if state.is_terminal() {
            continue;
        }
        state.legal_actions(&mut actions);
        policy.child_bias(&state, &actions, &mut biases);
        assert_eq!(biases.len(), actions.len());
        let mover = state.to_move().index();
        for (&a, &bias) in actions.iter().zip(&biases) {
            let mut child = state;
            child.apply(a);
            let input = super::net_input(dab.value_net(), &child);
            let p = dab.fast_net().evaluate(&input, &mut acc);
            let want = 0.5 * (p[mover] - p[1 - mover]);
            assert!((bias - want).abs() < 1e-4, "{bias} vs {want}");
            checked += 1;
        }
    }
    assert!(checked > 1_000, "{checked}");
    let plain = NetRollout::new(dab, NetGuide::default()).unwrap();
    assert!(!RolloutPolicy::<DotsAndBoxes>::gives_bias(&plain));
    assert!(NetGuide {
        prior: -0.1,
        ..NetGuide::default()
    }
    .check()
    .is_err());
}

/// With threshold 1 the net is asked at every step from `from_move` on and ends nothing.
#[test]
fn threshold_one_asks_but_never_cuts_and_from_move_is_respected() {
    let board = DotsAndBoxes::new(3, 3).unwrap();
    let dab = Arc::new(DabNet::new(&random_board_net(3, 3, 10, 2), &board).unwrap());
    let mut evaluations = Vec::new();
    for from_move in [0, 12, 20] {
        let guide = NetGuide {
            threshold: 1.0,
            from_move,
            ..NetGuide::default()
        };
        let mut rollout = NetRollout::new(dab.clone(), guide).unwrap();
        rollout.begin_search(&board);
        let mut rng = Rng::new(5);
        let mut total = 0;
        for _ in 0..500 {
            let mut s = board;
            rollout.rollout(&mut s, &mut rng);
            let stats = rollout.take_stats();
            assert_eq!(stats.net_cutoffs, 0);
            // At most one call per position from `from_move` edges on, the last excluded.
            assert!(stats.net_evaluations <= 24 - from_move as u64);
            total += stats.net_evaluations;
        }
        evaluations.push(total);
    }
    assert!(evaluations[0] > evaluations[1] && evaluations[1] > evaluations[2]);
    assert!(evaluations[2] > 0, "{evaluations:?}");
}

#[test]
fn models_that_do_not_fit_are_refused_with_the_reason() {
    let five = DotsAndBoxes::new(5, 5).unwrap();
    let four = DotsAndBoxes::new(4, 4).unwrap();
    let path = temp_file("fit");
    random_net(85, 100, 1).save(&path).unwrap();
    assert!(load_dab_net(&path, &five).is_ok());
    let err = load_dab_net(&path, &four).err().unwrap().to_string();
    assert!(
        err.contains(&path.display().to_string()) && err.contains("5x5"),
        "{err}"
    );
    let mut other = random_net(85, 100, 1);
    other.meta.encoding = "dab-table2-v0".into();
    other.save(&path).unwrap();
    let err = load_dab_net(&path, &five).err().unwrap().to_string();
    assert!(err.contains("encoding"), "{err}");
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let err = load_dab_net(&path, &five).err().unwrap().to_string();
    assert!(err.contains("truncated"), "{err}");
    std::fs::remove_file(&path).unwrap();
    let err = load_dab_net(Path::new("no/such/model.safetensors"), &five)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("no/such/model.safetensors"), "{err}");
    for t in [0.0, -1.0, 1.5, f64::NAN] {
        let guide = NetGuide {
            threshold: t,
            from_move: 0,
            ..NetGuide::default()
        };
        let dab = Arc::new(DabNet::new(&random_net(85, 100, 1), &five).unwrap());
        assert!(NetRollout::new(dab, guide)
            .err()
            .unwrap()
            .contains("threshold"));
    }
}

/// With chain rollouts the leaf asks the net only where something can come of it: at a
/// threshold of 1 (no play-out ends), not at all; at the paper's 0.9 once a leaf.
#[test]
fn chain_rollouts_ask_the_net_at_leaves_only_where_it_can_matter() {
    use crate::games::dots_and_boxes::rollout::ChainRollout;
    let board = DotsAndBoxes::new(3, 3).unwrap();
    let dab = Arc::new(DabNet::new(&random_board_net(3, 3, 10, 2), &board).unwrap());
    let asks = |guide: NetGuide| {
        let mut rollout = NetRollout::new(dab.clone(), guide)
            .unwrap()
            .then_chains(ChainRollout::default());
        rollout.begin_search(&board);
        let mut rng = Rng::new(9);
        for _ in 0..50 {
            let mut s = board;
            rollout.rollout(&mut s, &mut rng);
        }
        rollout.take_stats().net_evaluations
    };
    let never = NetGuide {
        threshold: 1.0,
        ..NetGuide::default()
    };
    assert_eq!(asks(never), 0);
    assert_eq!(asks(NetGuide::default()), 50);
}
