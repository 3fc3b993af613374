use super::*;
use crate::game::{Game, Outcome, Player};
use crate::rng::Rng;

fn play(state: &mut DotsAndBoxes, moves: &[&str]) {
    for m in moves {
        let a = state.parse_legal_action(m).unwrap();
        state.apply(a);
    }
}

fn features(state: &DotsAndBoxes) -> Vec<f32> {
    let mut out = vec![-1.0; state.feature_len()];
    state.encode_features(&mut out);
    out
}

#[test]
fn empty_board_sizes_and_legal_moves() {
    let s = DotsAndBoxes::new(5, 5).unwrap();
    assert_eq!(s.num_edges(), 60);
    assert_eq!(s.feature_len(), 85);
    let mut buf = Vec::new();
    s.legal_actions(&mut buf);
    assert_eq!(buf, (0..60).collect::<Vec<Action>>());
    assert_eq!(s.to_move(), Player::P1);
    assert!(!s.is_terminal());
    assert_eq!(s.outcome(), None);
    let big = DotsAndBoxes::new(7, 7).unwrap();
    assert_eq!(big.num_edges(), 112);
    assert_eq!(big.feature_len(), 112 + 49);
    assert!(DotsAndBoxes::new(0, 3).is_err());
    assert!(DotsAndBoxes::new(8, 1).is_err());
}

#[test]
fn notation_known_ids() {
    let s = DotsAndBoxes::new(5, 5).unwrap();
    assert_eq!(s.parse_action("h0,1"), Ok(1));
    assert_eq!(s.parse_action("h5,4"), Ok(29));
    // Vertical (r, c) = (rows+1)*cols + r*(cols+1) + c = 30 + 12 + 0.
    assert_eq!(s.parse_action("v2,0"), Ok(42));
    assert_eq!(s.parse_action(" V4,5 "), Ok(59));
    assert_eq!(s.parse_action("17"), Ok(17));
    assert_eq!(s.format_action(42), "v2,0");
    assert!(matches!(
        s.parse_action("x1,2"),
        Err(ActionError::Malformed { .. })
    ));
    assert!(matches!(
        s.parse_action("h1"),
        Err(ActionError::Malformed { .. })
    ));
    assert!(matches!(
        s.parse_action("h6,0"),
        Err(ActionError::OutOfRange { .. })
    ));
    assert!(matches!(
        s.parse_action("v0,6"),
        Err(ActionError::OutOfRange { .. })
    ));
    assert!(matches!(
        s.parse_action("60"),
        Err(ActionError::OutOfRange { .. })
    ));
    assert!(matches!(
        s.parse_action("99999999999999999999"),
        Err(ActionError::Malformed { .. }) | Err(ActionError::OutOfRange { .. })
    ));
}

#[test]
fn notation_round_trips_on_every_size() {
    for rows in 1..=7 {
        for cols in 1..=7 {
            let s = DotsAndBoxes::new(rows, cols).unwrap();
            for a in 0..s.num_edges() as Action {
                assert_eq!(s.parse_action(&s.format_action(a)), Ok(a));
                assert_eq!(s.parse_action(&a.to_string()), Ok(a));
            }
        }
    }
}

#[test]
fn closing_a_box_gives_the_point_and_another_move() {
    let mut s = DotsAndBoxes::new(5, 5).unwrap();
    play(&mut s, &["h0,0", "h1,0", "v0,0"]);
    assert_eq!(s.to_move(), Player::P2);
    assert_eq!(s.boxes_closed_by(s.parse_action("v0,1").unwrap()), 1);
    play(&mut s, &["v0,1"]);
    assert_eq!(s.scores(), Some([0, 1]));
    assert_eq!(s.to_move(), Player::P2, "a capture keeps the turn");
    assert_eq!(s.box_owners(), [0, 1]);
}

#[test]
fn one_edge_can_close_two_boxes() {
    // 1x2 board: draw everything but the middle edge v0,1, then close both boxes at once.
    let mut s = DotsAndBoxes::new(1, 2).unwrap();
    play(&mut s, &["h0,0", "h0,1", "h1,0", "h1,1", "v0,0", "v0,2"]);
    let mover = s.to_move();
    assert_eq!(mover, Player::P1, "six quiet moves alternate back to P1");
    play(&mut s, &["v0,1"]);
    assert_eq!(s.scores(), Some([2, 0]));
    assert!(s.is_terminal());
    assert_eq!(s.outcome(), Some(Outcome::P1Win));
}

#[test]
fn illegal_moves_are_refused_with_their_index() {
    let err = DotsAndBoxes::from_actions(2, 2, &[0, 5, 0]).unwrap_err();
    assert!(matches!(err, PositionError::Move { index: 2, .. }), "{err}");
    assert!(err.to_string().contains("move 3"), "{err}");
    let err = DotsAndBoxes::from_actions(2, 2, &[0, 12]).unwrap_err();
    assert!(matches!(err, PositionError::Move { index: 1, .. }), "{err}");
    let err = DotsAndBoxes::from_move_text(2, 2, "h0,0 h0,0").unwrap_err();
    assert!(err.to_string().contains("move 2"), "{err}");
    let err = DotsAndBoxes::from_move_text(2, 2, "h0,0 bogus").unwrap_err();
    assert!(err.to_string().contains("bogus"), "{err}");
    let s = DotsAndBoxes::new(2, 2).unwrap();
    assert!(s.parse_legal_action("h0,0").is_ok());
}

/// 5x5: P1 h0,0, P2 h1,0, P1 v0,0, P2 v0,1 closes box (0,0) for P2. Written out by hand from
/// the paper's Table 2, grid row by grid row.
#[test]
fn features_of_a_known_5x5_position() {
    let s = DotsAndBoxes::from_move_text(5, 5, "h0,0 h1,0 v0,0 v0,1").unwrap();
    #[rustfmt::skip]
    let expected: [f32; 85] = [
        0.25, 0.0, 0.0, 0.0, 0.0,
        0.25, 0.75, 0.25, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0,
        0.25, 0.0, 0.0, 0.0, 0.0,
        0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0,
        0.0, 0.0, 0.0, 0.0, 0.0,
        0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0,
        0.0, 0.0, 0.0, 0.0, 0.0,
        0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0,
        0.0, 0.0, 0.0, 0.0, 0.0,
        0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0,
        0.0, 0.0, 0.0, 0.0, 0.0,
    ];
    assert_eq!(features(&s), expected.to_vec());
    let empty = DotsAndBoxes::new(5, 5).unwrap();
    let f = features(&empty);
    assert_eq!(f.iter().filter(|&&x| x == 1.0).count(), 25);
    assert_eq!(f.iter().filter(|&&x| x == 0.0).count(), 60);
}

/// 2x2: a game with one box for each player, grid rows
/// `h h / v b v b v / h h / v b v b v / h h`.
#[test]
fn features_of_a_known_2x2_position() {
    let s = DotsAndBoxes::from_move_text(2, 2, "h0,0 v0,0 h1,0 v0,1 h2,1 v1,2 h1,1 v1,1").unwrap();
    assert_eq!(s.scores(), Some([1, 1]));
    assert_eq!(s.to_move(), Player::P1);
    assert_eq!(s.owner_string(), "2..1");
    #[rustfmt::skip]
    let expected: [f32; 16] = [
        0.25, 0.0,
        0.25, 0.75, 0.25, 1.0, 0.0,
        0.25, 0.25,
        0.0, 1.0, 0.25, 0.5, 0.25,
        0.0, 0.25,
    ];
    assert_eq!(features(&s), expected.to_vec());
}

#[test]
fn edge_string_round_trip_and_checks() {
    let s = DotsAndBoxes::from_move_text(2, 2, "h0,0 v0,0 h1,0 v0,1 h2,1 v1,2 h1,1 v1,1").unwrap();
    let text = s.edge_string();
    assert_eq!(text, "101101110011");
    let back =
        DotsAndBoxes::from_edge_string(2, 2, &text, [1, 1], Player::P1, Some(&s.owner_string()))
            .unwrap();
    assert_eq!(back, s);
    // Without owners the first closed box (row-major) goes to P1.
    let guessed = DotsAndBoxes::from_edge_string(2, 2, &text, [1, 1], Player::P1, None).unwrap();
    assert_eq!(guessed.owner_string(), "1..2");
    assert_eq!(guessed.edges(), s.edges());
    let bad_len = DotsAndBoxes::from_edge_string(2, 2, "1011", [0, 0], Player::P1, None);
    assert!(bad_len.unwrap_err().to_string().contains("12 edges"));
    let bad_char = DotsAndBoxes::from_edge_string(2, 2, "10110111101x", [1, 1], Player::P1, None);
    assert!(bad_char.unwrap_err().to_string().contains("character 12"));
    let bad_scores = DotsAndBoxes::from_edge_string(2, 2, &text, [2, 1], Player::P1, None);
    assert!(bad_scores.unwrap_err().to_string().contains("closed boxes"));
    let bad_owner = DotsAndBoxes::from_edge_string(2, 2, &text, [1, 1], Player::P1, Some("21.."));
    assert!(bad_owner.is_err());
}

/// A random game and its image under each of the board's symmetries (`Geometry::symmetries`)
/// move alike: the same player to move, the same scores and the same edges drawn after every
/// move.
#[test]
fn a_game_and_its_symmetric_images_play_alike() {
    let mut rng = Rng::new(77);
    let mut buf = Vec::new();
    for game in 0..300 {
        let rows = 1 + game % 7;
        let cols = 1 + (game / 7) % 7;
        let mut s = DotsAndBoxes::new(rows, cols).unwrap();
        let maps = s.geometry().symmetries();
        let mut images = vec![s; maps.len()];
        while !s.is_terminal() {
            s.legal_actions(&mut buf);
            let a = rng.pick(&buf);
            s.apply(a);
            for (image, map) in images.iter_mut().zip(maps) {
                let b = map[a as usize] as Action;
                assert!(image.is_legal(b), "{rows}x{cols}: {b} drawn twice");
                image.apply(b);
                assert_eq!(image.to_move(), s.to_move());
                assert_eq!(image.scores(), s.scores());
                assert_eq!(image.edges().count_ones(), s.edges().count_ones());
            }
        }
    }
}

#[test]
fn random_games_keep_the_invariants() {
    let mut rng = Rng::new(2024);
    let mut buf = Vec::new();
    for game in 0..2000 {
        let rows = 1 + game % 7;
        let cols = 1 + (game / 7) % 7;
        let mut s = DotsAndBoxes::new(rows, cols).unwrap();
        let mut plies = 0;
        while !s.is_terminal() {
            s.legal_actions(&mut buf);
            assert_eq!(buf.len(), s.num_edges() - s.edges_drawn() as usize);
            assert!(buf.windows(2).all(|w| w[0] < w[1]), "ascending ids");
            let a = rng.pick(&buf);
            let before = s;
            let closes = s.boxes_closed_by(a);
            s.apply(a);
            plies += 1;
            let [b1, b2] = before.scores().unwrap();
            let [a1, a2] = s.scores().unwrap();
            assert_eq!(a1 + a2, b1 + b2 + closes);
            if closes == 0 {
                assert_eq!(s.to_move(), before.to_move().opponent());
            } else {
                assert_eq!(s.to_move(), before.to_move());
            }
            let [p1, p2] = s.box_owners();
            assert_eq!(p1 & p2, 0);
            assert_eq!(p1 | p2, s.geometry().closed_boxes(s.edges()));
            assert_eq!([p1.count_ones(), p2.count_ones()], [a1, a2]);
        }
        assert_eq!(plies, s.num_edges());
        let [f1, f2] = s.scores().unwrap();
        assert_eq!((f1 + f2) as usize, rows * cols);
        assert_eq!(s.outcome(), Some(Outcome::from_scores(f1, f2)));
        // The edge string and owners recreate the same final position.
        let again = DotsAndBoxes::from_edge_string(
            rows,
            cols,
            &s.edge_string(),
            [f1, f2],
            s.to_move(),
            Some(&s.owner_string()),
        )
        .unwrap();
        assert_eq!(again, s);
    }
}

/// The fast rollout must give exactly the outcome of playing its edge order with `apply`.
#[test]
fn fast_rollout_matches_playing_the_same_edges_out() {
    let mut rng = Rng::new(5);
    let mut buf = Vec::new();
    for trial in 0..3000u64 {
        let (rows, cols) = [(5, 5), (2, 2), (3, 4), (7, 7), (1, 1)][trial as usize % 5];
        let mut s = DotsAndBoxes::new(rows, cols).unwrap();
        let prefix = rng.below(s.num_edges() as u32);
        for _ in 0..prefix {
            s.legal_actions(&mut buf);
            s.apply(rng.pick(&buf));
        }
        let seed = rng.next_u64();
        let fast = s.clone().random_rollout(&mut Rng::new(seed));
        // Replay: the rollout draws edge i uniformly from the edges not yet played, in the
        // same order of the same stream.
        let mut replay_rng = Rng::new(seed);
        let mut replay_draws = crate::rng::HalfDraws::new(&mut replay_rng);
        s.legal_actions(&mut buf);
        let mut order = buf.clone();
        let mut slow = s;
        for i in 0..order.len() {
            let j = i + replay_draws.below((order.len() - i) as u32) as usize;
            order.swap(i, j);
            slow.apply(order[i]);
        }
        assert_eq!(fast, slow.outcome().unwrap(), "trial {trial}");
    }
}

#[test]
fn rendering_shows_edges_owners_and_scores() {
    let s = DotsAndBoxes::from_move_text(1, 2, "h0,0 h1,0 v0,0 v0,1 h0,1").unwrap();
    // P1 h0,0, P2 h1,0, P1 v0,0, P2 v0,1 closes box 0 and moves again: h0,1.
    let text = s.to_string();
    let expected =
        "   0   1   2   \n 0 +---+---+\n   | 2 |    \n 1 +---+   +\nP1 0 - P2 1, P1 to move";
    assert_eq!(text, expected);
}
