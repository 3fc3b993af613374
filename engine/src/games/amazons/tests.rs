//! Amazons rules: perft from every start, notation, both turn shapes against each other,
//! random games against invariants, the evaluation against its definition, the players.

use super::eval::{terms, terms_by_definition, EvalWeights, Evaluator};
use super::*;
use crate::agents::Agent;
use crate::game::{Game, Outcome};
use crate::mcts::{Budget, SearchConfig};
use crate::rng::Rng;

fn start(n: usize, shape: TurnShape) -> Amazons {
    Amazons::new(n, shape).unwrap()
}

/// The known counts (whole turns, from the start): 10x10 2,176 and 4,307,152; 8x8 1,232 and
/// 1,331,198; 6x6 544 and 238,532.
#[test]
fn perft_from_every_start() {
    for (n, counts) in [
        (10, [2_176u64, 4_307_152]),
        (8, [1_232, 1_331_198]),
        (6, [544, 238_532]),
    ] {
        for shape in [TurnShape::Split, TurnShape::Whole] {
            let s = start(n, shape);
            assert_eq!(s.perft(1), counts[0], "{n}x{n}");
            assert_eq!(s.perft(2), counts[1], "{n}x{n}");
        }
        // The generic ply count agrees: whole turns are single plies of the whole shape.
        let whole = start(n, TurnShape::Whole);
        let mut actions = Vec::new();
        whole.legal_actions(&mut actions);
        assert_eq!(actions.len() as u64, counts[0]);
    }
}

#[test]
fn starts_and_notation() {
    let s = start(10, TurnShape::Split);
    assert_eq!(
        s.board_string(),
        "...B..B.../........../........../B........B/........../\
         ........../W........W/........../........../...W..W..."
    );
    let e = start(8, TurnShape::Split);
    assert_eq!(e.board_string().split('/').next_back().unwrap(), "..W..W..");
    let six = start(6, TurnShape::Split);
    assert_eq!(
        six.board_string(),
        ".B..B./B....B/....../....../W....W/.W..W."
    );
    // A whole turn in both shapes.
    let whole = start(10, TurnShape::Whole);
    let id = whole.parse_legal_action("d1-d7/g7").unwrap();
    assert!(id < 40_000);
    assert_eq!(whole.format_action(id), "d1-d7/g7");
    let plies = s.parse_legal_plies("d1-d7/g7").unwrap();
    assert_eq!(plies.len(), 2);
    assert_eq!(s.format_plies(&plies), "d1-d7/g7");
    let queen = s.parse_legal_action("d1-d7").unwrap();
    assert_eq!(s.format_action(queen), "d1-d7");
    let mut after = s;
    after.apply(queen);
    assert!(after.mid_turn() && after.to_move() == Player::P1);
    let arrow = after.parse_legal_action("g7").unwrap();
    assert_eq!(after.format_action(arrow), "g7");
    // The arrow may land on the square just left, or fly over it.
    assert!(after.parse_legal_action("d1").is_ok());
    let mut d2 = s;
    d2.apply(s.parse_legal_action("d1-d2").unwrap());
    assert!(d2.parse_legal_action("d1").is_ok());
    // Errors name the move and the reason.
    for (text, says) in [
        ("d1-d7/g7x", "not a square"),
        ("k1-k2/k3", "off the"),
        ("d2-d7/g7", "no amazon of P1 on d2"),
        ("d1-e3/e4", "cannot reach e3"),
        ("a4-a8/a9", "cannot reach a8"),
        ("d1", "queen move"),
        ("d1-d7/d10", "cannot shoot to d10"),
        ("zz", "queen move"),
    ] {
        let e = s.parse_legal_plies(text).unwrap_err().to_string();
        assert!(e.contains(says), "{text}: {e}");
    }
    let e = after.parse_legal_action("d1-d2").unwrap_err().to_string();
    assert!(e.contains("arrow"), "{e}");
    let e = whole.parse_legal_action("d1-d7").unwrap_err().to_string();
    assert!(e.contains("from-to/arrow"), "{e}");
}

/// Random games in both shapes: the same turns are legal, ids are ascending and unique, every
/// legal id is `is_legal` and parses back from its text, and the loser is the side that cannot
/// move.
#[test]
fn random_games_keep_the_invariants() {
    let mut rng = Rng::new(7);
    for n in [6, 8, 10] {
        for _ in 0..6 {
            let mut split = start(n, TurnShape::Split);
            let mut whole = start(n, TurnShape::Whole);
            let mut actions = Vec::new();
            let mut turns = Vec::new();
            while !whole.is_terminal() {
                assert!(!split.is_terminal());
                whole.legal_actions(&mut actions);
                whole.whole_turns(&mut turns);
                assert_eq!(actions.len(), turns.len());
                assert!(actions.windows(2).all(|w| w[0] < w[1]));
                assert!(actions.len() <= whole.max_actions());
                for (&a, &t) in actions.iter().zip(&turns).step_by(37) {
                    assert!(whole.is_legal(a));
                    assert_eq!(whole.decode_whole(a), Some(t));
                    assert_eq!(whole.parse_legal_action(&whole.format_action(a)), Ok(a));
                    assert_eq!(
                        split
                            .parse_legal_plies(&whole.format_action(a))
                            .unwrap()
                            .len(),
                        2
                    );
                }
                // The split game's queen plies are the distinct (from, to) pairs.
                split.legal_actions(&mut actions);
                let mut pairs: Vec<(u32, u32)> = turns.iter().map(|t| (t.from, t.to)).collect();
                pairs.dedup();
                assert_eq!(actions.len(), pairs.len());
                assert!(actions.windows(2).all(|w| w[0] < w[1]));
                let t = rng.pick(&turns);
                whole.play_turn(t);
                for a in split.turn_plies(t) {
                    assert!(split.is_legal(a), "{}", split.format_action(a));
                    split.apply(a);
                }
                assert_eq!(split.with_shape(TurnShape::Whole), whole);
            }
            assert!(split.is_terminal());
            let loser = whole.to_move();
            assert!(!whole.can_move(loser));
            assert_eq!(whole.outcome(), Some(Outcome::win_for(loser.opponent())));
            assert_eq!(split.outcome(), whole.outcome());
        }
    }
}

/// The bitboard terms equal the square-by-square definition on random positions.
#[test]
fn evaluation_terms_match_the_definition() {
    let mut rng = Rng::new(11);
    for n in [6, 8, 10] {
        for game in 0..30 {
            let mut s = start(n, TurnShape::Whole);
            for _ in 0..rng.below(40 + game) {
                if !s.play_random_turn(&mut rng) {
                    break;
                }
            }
            let fast = terms(&s, 0.2);
            let slow = terms_by_definition(&s, 0.2);
            for (i, (a, b)) in fast.as_array().iter().zip(slow.as_array()).enumerate() {
                assert!((a - b).abs() < 1e-3, "term {i}: {a} vs {b} in\n{s}");
            }
            assert!(
                (fast.w - slow.w).abs() < 1e-3,
                "w: {} vs {} in\n{s}",
                fast.w,
                slow.w
            );
        }
    }
    // The start is symmetric: every term but the ties' share is zero; every empty square is
    // contested, most at equal distance.
    let t = terms(&start(10, TurnShape::Whole), 0.0);
    assert_eq!(
        t,
        EvalTerms {
            w: t.w,
            ..EvalTerms::default()
        }
    );
    assert!((60.0..92.0).contains(&t.w), "{}", t.w);
}

/// The tempo constant moves the value against the side that made the last ply (P2 to move at a
/// turn's start, or P1 mid-turn, means P1 just moved), and mid-turn the pending-arrow constant
/// too.
#[test]
fn tempo_counts_against_the_side_that_moved_last() {
    let plain = Evaluator::new(EvalWeights::paper());
    let mut weights = EvalWeights::paper();
    weights.tempo = [1.5, 0.5, 0.25];
    weights.pending_arrow = [4.0, 2.0, 1.0];
    let tempo = Evaluator::new(weights);
    let mut rng = Rng::new(3);
    let mut s = start(8, TurnShape::Split);
    let mut seen = [false; 4];
    while !s.is_terminal() {
        let p1_moved_last = (s.to_move() == Player::P2) != s.mid_turn();
        let phase = weights.phase(s.arrows_shot(), 64);
        let mut size = weights.tempo[phase];
        if s.mid_turn() {
            size += weights.pending_arrow[phase];
        }
        let shift = if p1_moved_last { -1.0 } else { 1.0 } * size;
        assert!(
            (tempo.value(&s) - (plain.value(&s) + shift)).abs() < 1e-4,
            "{s}"
        );
        seen[(s.to_move() == Player::P2) as usize * 2 + s.mid_turn() as usize] = true;
        let mut actions = Vec::new();
        s.legal_actions(&mut actions);
        s.apply(rng.pick(&actions));
    }
    assert_eq!(
        seen, [true; 4],
        "both sides, at a turn's start and mid-turn"
    );
}

#[test]
fn weights_round_trip_and_phases() {
    let w = EvalWeights::paper();
    assert_eq!(w.from_vector(&w.to_vector()).unwrap(), w);
    assert!(w.from_vector(&[0.0; 3]).is_err());
    assert_eq!(w.phase(0, 100), 0);
    assert_eq!(w.phase(19, 100), 0);
    assert_eq!(w.phase(20, 100), 1);
    assert_eq!(w.phase(49, 100), 1);
    assert_eq!(w.phase(50, 100), 2);
}

#[test]
fn positions_read_and_write() {
    let s = start(6, TurnShape::Split);
    let mut after = s;
    after.apply(s.parse_legal_action("b1-b4").unwrap());
    let text = after.board_string();
    let back =
        Amazons::from_board(6, TurnShape::Split, &text, Player::P1, Some(("b4", "b1"))).unwrap();
    assert_eq!(back.pending(), after.pending());
    assert_eq!(back.board_string(), after.board_string());
    for (board, pending, says) in [
        ("......", None, "36 squares"),
        (".B..B./B....B/....../....../W....W/.W..Wq", None, "'q'"),
        (
            ".B..B./B....B/....../....../W....W/.W..W.",
            Some(("c3", "b1")),
            "no amazon",
        ),
        (
            ".B..B./B....B/....../....../W....W/.W....",
            None,
            "3 amazons",
        ),
    ] {
        let e = Amazons::from_board(6, TurnShape::Split, board, Player::P1, pending).unwrap_err();
        assert!(e.contains(says), "{board}: {e}");
    }
}

/// Positions where one side is shut in: the game ends at once, and every player finds the
/// only winning turn when there is one.
#[test]
fn players_find_the_win_in_one() {
    // P2's amazons are all walled in but for b6's step to c6; P1 wins by d6-c6/d6 (its other
    // turn, b1-a1/b1, leaves c6 open).
    let board = "WB.Wxx/xxxxxx/Bx.xxx/xxxxxB/xxBxxx/.WxxWx";
    let s = Amazons::from_board(6, TurnShape::Whole, board, Player::P1, None).unwrap();
    assert!(s.can_move(Player::P2));
    let mut wins = Vec::new();
    let mut turns = Vec::new();
    s.whole_turns(&mut turns);
    for &t in &turns {
        let mut next = s;
        next.play_turn(t);
        if next.is_terminal() {
            wins.push(t);
        }
    }
    assert_eq!(wins.len(), 1);
    assert_eq!(turns.len(), 2);
    let mut greedy = players::Greedy::new(1);
    assert!(wins.contains(&greedy.best_turn(&s).unwrap()));
    let mut ab = players::AlphaBeta::new("ab", std::time::Duration::from_millis(200), 3, 1);
    assert!(wins.contains(&ab.best_turn(&s).unwrap().0));
    for shape in [TurnShape::Split, TurnShape::Whole] {
        let search = SearchConfig {
            budget: Budget::iterations(3000),
            ..SearchConfig::default()
        };
        for mut config in [
            AmazonsMctsConfig::new(search.clone()),
            AmazonsMctsConfig::paper(search.clone()),
        ] {
            config.shape = shape;
            let label = format!(
                "{shape:?}, evaluated expansion {}",
                config.evaluate_children
            );
            let mut mcts = AmazonsMcts::new("mcts", config);
            let (turn, _) = mcts.search_turn(&s, 0).unwrap();
            assert!(wins.contains(&turn), "{label}: {}", s.format_turn(turn));
        }
    }
}

/// A whole game between two players in a split game: each turn is a queen ply and its arrow,
/// the players' arrows arrive as planned, and the game ends with a winner.
#[test]
fn a_split_game_between_mcts_and_alphabeta() {
    let initial = start(6, TurnShape::Split);
    let mut config = AmazonsMctsConfig::new(SearchConfig {
        budget: Budget::iterations(300),
        ..SearchConfig::default()
    });
    config.shape = TurnShape::Whole;
    let mut a = AmazonsMcts::new("mcts", config);
    let mut b = players::AlphaBeta::new("ab", std::time::Duration::from_millis(5), 2, 1);
    let report =
        crate::agents::play_game(&initial, &[], [&mut a as &mut dyn Agent<Amazons>, &mut b])
            .unwrap();
    assert!(report.forfeit.is_none(), "{:?}", report.forfeit);
    assert_eq!(report.moves.len() % 2, 0);
    let mut s = initial;
    for &m in &report.moves {
        s.apply(m);
    }
    assert!(s.is_terminal());
    assert_eq!(Some(report.outcome), s.outcome());
}

/// The evaluation is antisymmetric in the players: swapping colours and the mover negates it.
#[test]
fn evaluation_is_antisymmetric() {
    let mut rng = Rng::new(5);
    let e = Evaluator::default();
    for _ in 0..20 {
        let mut s = start(8, TurnShape::Whole);
        for _ in 0..rng.below(30) {
            s.play_random_turn(&mut rng);
        }
        let mirrored: String = s
            .board_string()
            .chars()
            .map(|c| match c {
                'W' => 'B',
                'B' => 'W',
                c => c,
            })
            .collect();
        let m = Amazons::from_board(8, TurnShape::Whole, &mirrored, s.to_move().opponent(), None)
            .unwrap();
        let (a, b) = (e.value(&s), e.value(&m));
        assert!((a + b).abs() < 1e-3, "{a} vs {b}");
    }
}

/// Tree reuse reads the moves since the last search in the searching player's shape: random
/// turns played as split plies and as whole turns are the same moves either way, and a ply
/// that is not legal or a turn left half played gives nothing.
#[test]
fn plies_convert_between_turn_shapes() {
    let mut rng = Rng::new(3);
    for n in [6, 8, 10] {
        for _ in 0..20 {
            let mut split = start(n, TurnShape::Split);
            let mut whole = start(n, TurnShape::Whole);
            let (split_start, whole_start) = (split, whole);
            let (mut split_plies, mut whole_plies) = (Vec::new(), Vec::new());
            for _ in 0..1 + rng.below(4) {
                let mut turns = Vec::new();
                whole.whole_turns(&mut turns);
                if turns.is_empty() {
                    break;
                }
                let turn = rng.pick(&turns);
                for ply in split.turn_plies(turn) {
                    split_plies.push(ply);
                    split.apply(ply);
                }
                let id = whole.whole_id(turn);
                whole_plies.push(id);
                whole.apply(id);
            }
            let (reached, as_whole) =
                players::plies_in_shape(&split_start, &split_plies, TurnShape::Whole).unwrap();
            assert_eq!(reached.board_string(), split.board_string());
            assert_eq!(as_whole, whole_plies);
            let (reached, as_split) =
                players::plies_in_shape(&whole_start, &whole_plies, TurnShape::Split).unwrap();
            assert_eq!(reached.board_string(), whole.board_string());
            assert_eq!(as_split, split_plies);
            let same = players::plies_in_shape(&split_start, &split_plies, TurnShape::Split);
            assert_eq!(same.unwrap().1, split_plies);
            assert!(
                players::plies_in_shape(&split_start, &split_plies[..1], TurnShape::Whole)
                    .is_none(),
                "half a turn"
            );
            assert!(players::plies_in_shape(&whole_start, &[u16::MAX], TurnShape::Split).is_none());
        }
    }
}

/// The Amazons keys of an `mcts` spec reach the search's configuration, and a bad value is
/// refused naming the player and the key.
#[test]
fn search_keys_configure_the_search_or_are_refused() {
    use super::engine::read_search_keys;
    use super::rollout::Backup;
    let read = |text: &str| {
        let keys: Vec<(String, String)> = text
            .split(',')
            .map(|kv| {
                let (k, v) = kv.split_once('=').unwrap();
                (k.to_string(), v.to_string())
            })
            .collect();
        let mut config = AmazonsMctsConfig::new(SearchConfig::default());
        read_search_keys(text, &keys, &mut config).map(|()| config)
    };
    let c = read("turn=whole,depth=3,backup=sign,expand=random,reuse=0,pe=1,tempo=1.5").unwrap();
    assert_eq!(c.shape, TurnShape::Whole);
    assert_eq!(c.depth, 3);
    assert_eq!(c.backup, Backup::Sign);
    assert!(!c.evaluate_children && !c.reuse_tree && c.parallel_eval);
    assert_eq!(c.weights.tempo, [1.5; 3]);
    let c = read("scale=5,tempo=2/0/-0.5,arrow=3").unwrap();
    assert_eq!(c.backup, Backup::Expected { scale: 5.0 });
    assert_eq!(c.weights.tempo, [2.0, 0.0, -0.5]);
    assert_eq!(c.weights.pending_arrow, [3.0; 3]);
    // The default is the corrected evaluation; `eval=paper` is the paper's, and explicit
    // corrections win over either in any order.
    assert_eq!(read("depth=2").unwrap().weights, EvalWeights::corrected());
    assert_eq!(read("eval=paper").unwrap().weights, EvalWeights::paper());
    let c = read("tempo=1,eval=paper").unwrap();
    assert_eq!(
        (c.weights.tempo, c.weights.pending_arrow),
        ([1.0; 3], [0.0; 3])
    );
    for (bad, named) in [
        ("turn=diagonal", "turn"),
        ("depth=-1", "depth"),
        ("backup=max", "backup"),
        ("scale=0", "scale"),
        ("expand=all", "expand"),
        ("reuse=maybe", "reuse"),
        ("tempo=1/2", "tempo"),
        ("tempo=x", "tempo"),
        ("arrow=1/2/z", "arrow"),
        ("eval=tuned", "eval"),
        ("speed=9", "speed"),
    ] {
        let e = read(bad).unwrap_err();
        assert!(e.contains(bad) && e.contains(named), "{bad}: {e}");
    }
}

/// Measures the two corrections of [`EvalWeights::corrected`] (run it with `cargo test --release
/// -p engine --lib measure_tempo_and_pending_arrow -- --ignored --nocapture`): 100 games of
/// greedy against greedy from three random turns, by ten arrows at a time,
///
/// * tempo: half the zigzag of P1's value along the game, `m (e_t - (e_{t-1} + e_{t+1}) / 2) / 2`
///   with `m` +1 when P1 moved last (a second difference, so a real trend cancels);
/// * pending arrow: the mover's value after the queen move of the turn played minus after its
///   arrow.
#[test]
#[ignore]
fn measure_tempo_and_pending_arrow() {
    use super::players::Greedy;
    let ev = Evaluator::default();
    let mut tempo = [0f64; 10];
    let mut arrow = [0f64; 10];
    let mut counts = [0u64; 10];
    let mut rng = Rng::new(5);
    let mut turns = Vec::new();
    for g in 0..100 {
        let mut greedy = Greedy::new(g);
        let mut s = start(10, TurnShape::Whole);
        // (P1's value, ten-arrow bucket, +1 if P1 moved last, the turn's pending-arrow gap)
        let mut seq: Vec<(f32, usize, f32, f32)> = Vec::new();
        loop {
            let bucket = (s.arrows_shot() / 10).min(9) as usize;
            let m = if s.to_move() == Player::P2 { 1.0 } else { -1.0 };
            if s.is_terminal() {
                seq.push((ev.value(&s), bucket, m, 0.0));
                break;
            }
            let turn = if seq.len() < 3 {
                s.whole_turns(&mut turns);
                rng.pick(&turns)
            } else {
                greedy.best_turn(&s).unwrap()
            };
            let mut mid = s.with_shape(TurnShape::Split);
            mid.apply(mid.queen_id(turn.from, turn.to));
            let mut after = mid;
            after.apply(mid.arrow_id(turn.arrow));
            let me = s.to_move();
            let gap = ev.value_for(&mid, me) - ev.value_for(&after, me);
            seq.push((ev.value(&s), bucket, m, gap));
            s.play_turn(turn);
        }
        for i in 1..seq.len() - 1 {
            let (e, b, m, gap) = seq[i];
            let zigzag = e - (seq[i - 1].0 + seq[i + 1].0) / 2.0;
            tempo[b] += (m * zigzag) as f64 / 2.0;
            arrow[b] += gap as f64;
            counts[b] += 1;
        }
    }
    for b in 0..10 {
        let n = counts[b].max(1) as f64;
        println!(
            "arrows {:2}-{:2}: {:5} positions, tempo {:6.2}, pending arrow {:6.2}",
            b * 10,
            b * 10 + 9,
            counts[b],
            tempo[b] / n,
            arrow[b] / n
        );
    }
}
