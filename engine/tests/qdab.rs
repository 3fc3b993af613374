//! `qdab`, the QDab-modelled rival: its canonical moves on hand-built positions, the exactness
//! of its forced captures and class-2 choices, legality over random games, and its strength.

use engine::agents::{parse_spec, play_game, Agent};
use engine::games::dots_and_boxes::endgame::EndgameSolver;
use engine::games::dots_and_boxes::qdab::canonical::{canonical, forced_capture, Board};
use engine::games::dots_and_boxes::qdab::search::{Pos, Schedule, Stop, Worker};
use engine::games::dots_and_boxes::spec::BuildDots;
use engine::games::dots_and_boxes::{GreedyAgent, QdabAgent, QdabConfig, QdabReason};
use engine::games::DotsAndBoxes;
use engine::mcts::Budget;
use engine::{Action, Game, Outcome, Rng};

mod common;
use common::random_safe_play;

fn board(rows: usize, cols: usize, moves: &str) -> DotsAndBoxes {
    DotsAndBoxes::from_move_text(rows, cols, moves).unwrap()
}

fn bit(s: &DotsAndBoxes, text: &str) -> u128 {
    1u128 << s.parse_action(text).unwrap()
}

fn bits(s: &DotsAndBoxes, texts: &[&str]) -> u128 {
    texts.iter().fold(0, |m, t| m | bit(s, t))
}

fn qdab(iterations: u64, seed: u64) -> QdabAgent {
    QdabAgent::new(
        "qdab",
        QdabConfig {
            budget: Budget::iterations(iterations),
            seed,
            solver_nodes: 300_000,
            ..QdabConfig::default()
        },
    )
}

#[test]
fn a_one_chain_is_one_class_1_edge() {
    // 1x1 with the top and bottom drawn: a single box between the border on both sides.
    let s = board(1, 1, "h0,0 h1,0");
    let c = canonical(&Board::new(s.geometry()), s.edges());
    assert_eq!(c.class1.count_ones(), 1);
    assert_eq!(c.class1 & !bits(&s, &["v0,0", "v0,1"]), 0);
    assert_eq!((c.class2, c.class3), (0, 0));
    // A 1x3 whose middle box is a 1-chain between two untouched boxes: one of its two edges,
    // and of each end box's three border edges (alike) one.
    let s = board(1, 3, "h0,1 h1,1");
    let c = canonical(&Board::new(s.geometry()), s.edges());
    assert_eq!((c.class1 & bits(&s, &["v0,1", "v0,2"])).count_ones(), 1);
    assert_eq!(
        (c.class1 & bits(&s, &["h0,0", "h1,0", "v0,0"])).count_ones(),
        1
    );
    assert_eq!(c.class1.count_ones(), 3);
}

#[test]
fn a_two_chain_is_its_middle_edge_and_one_end() {
    // 1x2 with top and bottom drawn: X-O-O-X.
    let s = board(1, 2, "h0,0 h0,1 h1,0 h1,1");
    let c = canonical(&Board::new(s.geometry()), s.edges());
    assert_eq!(c.class1, bit(&s, "v0,1"), "the hard-hearted handout");
    assert_eq!(c.class3.count_ones(), 1);
    assert_eq!(c.class3 & !bits(&s, &["v0,0", "v0,2"]), 0, "an end edge");
    assert_eq!(c.class2, 0);
    assert_eq!(c.shortest3, Some(c.class3.trailing_zeros() as usize));
}

#[test]
fn each_long_chain_is_one_end_edge() {
    // 2x4 with every horizontal edge drawn: two 4-chains, each open to the border at both ends.
    let s = board(
        2,
        4,
        "h0,0 h1,0 h0,1 h1,1 h0,2 h1,2 h0,3 h1,3 h2,0 h2,1 h2,2 h2,3",
    );
    let c = canonical(&Board::new(s.geometry()), s.edges());
    assert_eq!((c.class1, c.class2), (0, 0));
    let top_ends = bits(&s, &["v0,0", "v0,4"]);
    let bottom_ends = bits(&s, &["v1,0", "v1,4"]);
    assert_eq!((c.class3 & top_ends).count_ones(), 1);
    assert_eq!((c.class3 & bottom_ends).count_ones(), 1);
    assert_eq!(c.class3.count_ones(), 2);
}

#[test]
fn a_loop_is_one_edge() {
    // 2x2 with the outer border drawn: a loop of four.
    let s = board(2, 2, "h0,0 h0,1 h2,0 h2,1 v0,0 v1,0 v0,2 v1,2");
    let c = canonical(&Board::new(s.geometry()), s.edges());
    assert_eq!((c.class1, c.class2), (0, 0));
    assert_eq!(c.class3.count_ones(), 1);
    assert_eq!(c.class3 & !bits(&s, &["h1,0", "h1,1", "v0,1", "v1,1"]), 0);
}

#[test]
fn safe_edges_keep_one_border_edge_of_each_corner() {
    let s = DotsAndBoxes::new(5, 5).unwrap();
    let c = canonical(&Board::new(s.geometry()), s.edges());
    assert_eq!(c.class1.count_ones(), 60 - 4);
    assert_eq!(c.untouched, s.geometry().all_edges);
    assert_eq!((c.class2, c.class3), (0, 0));
    // Both border edges of the top-left box: one only.
    assert_eq!((c.class1 & bits(&s, &["h0,0", "v0,0"])).count_ones(), 1);
}

#[test]
fn an_opened_chain_is_eaten_down_to_its_last_two_boxes() {
    // 1x3 chain opened at its left end: box 0 capturable, then two more.
    let s = board(1, 3, "h0,0 h0,1 h0,2 h1,0 h1,1 h1,2 v0,0");
    let geo = s.geometry();
    assert_eq!(
        forced_capture(geo, s.edges()),
        Some(s.parse_action("v0,1").unwrap() as usize)
    );
    let mut t = s;
    t.apply(s.parse_action("v0,1").unwrap());
    // O-O-X: take (v0,2) or double-deal (the far end, v0,3), nothing else.
    assert_eq!(forced_capture(geo, t.edges()), None);
    let c = canonical(&Board::new(geo), t.edges());
    assert_eq!(c.class2, bits(&t, &["v0,2", "v0,3"]));
    assert_eq!((c.class1, c.class3), (0, 0));
}

#[test]
fn an_opened_loop_leaves_take_or_all_but_four() {
    // The 2x2 loop opened by the edge between the top two boxes: O-O-O-O.
    let s = board(2, 2, "h0,0 h0,1 h2,0 h2,1 v0,0 v1,0 v0,2 v1,2 v0,1");
    let geo = s.geometry();
    assert_eq!(forced_capture(geo, s.edges()), None);
    let c = canonical(&Board::new(geo), s.edges());
    let middle = bit(&s, "v1,1");
    assert_eq!(c.class2 & middle, middle, "all-but-four");
    assert_eq!(
        (c.class2 & bits(&s, &["h1,0", "h1,1"])).count_ones(),
        1,
        "take"
    );
    assert_eq!(c.class2.count_ones(), 2);
    // A capture that leads nowhere is forced.
    let s = board(5, 5, "h0,0 h1,0 v0,1");
    assert_eq!(
        forced_capture(s.geometry(), s.edges()),
        Some(s.parse_action("v0,0").unwrap() as usize)
    );
}

/// Positions of random games that mostly hand nothing over while they can.
fn random_positions(rows: usize, cols: usize, count: usize, rng: &mut Rng) -> Vec<DotsAndBoxes> {
    let mut out = Vec::new();
    let mut buf = Vec::new();
    while out.len() < count {
        let mut s = random_safe_play(DotsAndBoxes::new(rows, cols).unwrap(), rng.below(40), rng);
        for _ in 0..rng.below(12) {
            if s.is_terminal() {
                break;
            }
            s.legal_actions(&mut buf);
            s.apply(rng.pick(&buf));
        }
        if !s.is_terminal() {
            out.push(s);
        }
    }
    out
}

/// Forced captures never cost anything, and where a class-2 choice exists the better of its
/// moves is worth what the position is: both by the exact solver on random small positions.
#[test]
fn forced_captures_and_class_2_choices_lose_nothing() {
    let mut rng = Rng::new(21);
    let (mut forced_seen, mut class2_seen) = (0, 0);
    for (rows, cols) in [(2, 3), (3, 3), (2, 4), (3, 4)] {
        let mut solver = EndgameSolver::new(rows, cols, 18);
        let positions = random_positions(rows, cols, 400, &mut rng);
        for s in positions {
            let geo = s.geometry();
            if (!s.edges() & geo.all_edges).count_ones() > 22 {
                continue;
            }
            let value = solver.future_value(&s);
            if let Some(e) = forced_capture(geo, s.edges()) {
                forced_seen += 1;
                let mut t = s;
                t.apply(e as Action);
                assert!(t.to_move() == s.to_move(), "a forced capture closes a box");
                let after = if t.is_terminal() {
                    0
                } else {
                    solver.future_value(&t)
                };
                let closed = s.boxes_closed_by(e as Action) as i32;
                assert_eq!(closed + after, value, "{rows}x{cols} {}", s.edge_string());
                continue;
            }
            let c = canonical(&Board::new(geo), s.edges());
            if c.class2 == 0 {
                continue;
            }
            class2_seen += 1;
            let best = (0..geo.num_edges)
                .filter(|&e| c.class2 >> e & 1 == 1)
                .map(|e| {
                    let mut t = s;
                    t.apply(e as Action);
                    let rest = if t.is_terminal() {
                        0
                    } else {
                        solver.future_value(&t)
                    };
                    if t.to_move() == s.to_move() {
                        s.boxes_closed_by(e as Action) as i32 + rest
                    } else {
                        -rest
                    }
                })
                .max()
                .unwrap();
            assert_eq!(best, value, "{rows}x{cols} {}", s.edge_string());
        }
    }
    assert!(
        forced_seen > 100 && class2_seen > 30,
        "{forced_seen} {class2_seen}"
    );
}

#[test]
fn every_move_is_legal_over_random_games_and_positions() {
    let mut rng = Rng::new(5);
    let mut player = qdab(150, 2);
    for (rows, cols) in [(1, 1), (1, 4), (2, 2), (3, 3), (2, 5), (5, 5), (7, 7)] {
        let start = DotsAndBoxes::new(rows, cols).unwrap();
        let mut random = engine::agents::RandomAgent::new(rng.next_u64());
        player.new_game(&start, &[]).unwrap();
        let report = play_game(&start, &[], [&mut player, &mut random]).unwrap();
        assert!(
            report.forfeit.is_none(),
            "{rows}x{cols}: {:?}",
            report.forfeit
        );
        // Positions of any kind, with or without the moves that led to them.
        for s in random_positions(rows, cols, 6, &mut rng) {
            let a = player.choose(&s, &[]).unwrap().action;
            assert!(s.is_legal(a), "{rows}x{cols} {}: {a}", s.edge_string());
        }
    }
    let over = board(1, 1, "h0,0 h1,0 v0,0 v0,1");
    assert!(player.choose(&over, &[]).is_err());
}

#[test]
fn it_takes_a_free_box() {
    let s = board(5, 5, "h0,0 h1,0 v0,1");
    let mut player = qdab(200, 1);
    let a = player.choose(&s, &[]).unwrap().action;
    assert_eq!(s.boxes_closed_by(a), 1, "{}", s.format_action(a));
    assert_eq!(player.last_reason, Some(QdabReason::Forced));
}

/// The textbook 2x4: two 4-chains, the top one opened by the opponent at its left end. Eaten
/// down to its last two boxes, the double-deal wins 6-2 (the opener must then open the bottom
/// chain), taking all draws 4-4.
#[test]
fn it_keeps_control_in_the_textbook_position() {
    let mut s = board(
        2,
        4,
        "h0,0 h1,0 h0,1 h1,1 h0,2 h1,2 h0,3 h1,3 h2,0 h2,1 h2,2 h2,3",
    );
    s.apply(s.parse_action("v0,0").unwrap());
    let mover = s.to_move();
    // The search alone, at the decision (the player would ask the solver this late).
    let mut t = s;
    while let Some(e) = forced_capture(t.geometry(), t.edges()) {
        t.apply(e as Action);
    }
    let c = canonical(&Board::new(t.geometry()), t.edges());
    assert_eq!(c.class2, bits(&t, &["v0,3", "v0,4"]));
    let mut worker = Worker::new(&t, 20_000, 16);
    let schedule = Schedule::new(0, mover, t.geometry().num_edges);
    let stop = Stop {
        iterations: Some(300),
        deadline: None,
    };
    let (moves, done) = worker.search(&Pos::new(&t, 0), &schedule, stop, 1);
    assert_eq!(done, 300);
    let best = moves.iter().max_by_key(|m| m.visits).unwrap();
    assert_eq!(
        best.edge,
        t.parse_action("v0,4").unwrap() as usize,
        "{moves:?}"
    );
    assert!(best.reward / best.visits as f64 > 0.9, "{moves:?}");
    // The player: two boxes taken, two left to the opener.
    let mut player = qdab(400, 4);
    while s.to_move() == mover && !s.is_terminal() {
        let a = player.choose(&s, &[]).unwrap().action;
        s.apply(a);
    }
    assert_eq!(s.scores().unwrap()[mover.index()], 2, "{s}");
    let rest = forced_capture(s.geometry(), s.edges()).unwrap();
    assert_eq!(s.boxes_closed_by(rest as Action), 2);
}

/// Wins of `a` over `games` games from the empty 5x5 board, seats alternating.
fn wins(a: &mut dyn Agent<DotsAndBoxes>, b: &mut dyn Agent<DotsAndBoxes>, games: usize) -> usize {
    let start = DotsAndBoxes::new(5, 5).unwrap();
    let mut won = 0;
    for g in 0..games {
        a.reseed(g as u64 + 1);
        b.reseed(g as u64 + 101);
        let (outcome, seat) = if g % 2 == 0 {
            (
                play_game(&start, &[], [&mut *a, &mut *b]).unwrap().outcome,
                0,
            )
        } else {
            (
                play_game(&start, &[], [&mut *b, &mut *a]).unwrap().outcome,
                1,
            )
        };
        won += matches!((outcome, seat), (Outcome::P1Win, 0) | (Outcome::P2Win, 1)) as usize;
    }
    won
}

/// Short matches at a small budget in iterations (reproducible): measured at 100 ms a move in
/// docs/players.md.
#[test]
fn it_beats_greedy_and_the_old_rival() {
    let start = DotsAndBoxes::new(5, 5).unwrap();
    let spec = "qdab:iterations=300";
    let mut player = parse_spec(spec).unwrap().build_dots(&start).unwrap();
    let mut greedy = GreedyAgent::new(5);
    let won = wins(player.as_mut(), &mut greedy, 6);
    assert!(won >= 6, "{spec} won {won} of 6 against greedy");
    let mut rival = parse_spec("rival:iterations=2000")
        .unwrap()
        .build_dots(&start)
        .unwrap();
    let won = wins(player.as_mut(), rival.as_mut(), 8);
    assert!(
        won >= 6,
        "{spec} won {won} of 8 against rival:iterations=2000"
    );
}

/// Not a check, a measurement: iterations a second and solver positions an iteration from
/// positions of random safe play. `cargo test --release -p engine --test qdab probe --
/// --ignored --nocapture`
#[test]
#[ignore]
fn probe_search_speed() {
    let mut rng = Rng::new(3);
    let leaf_nodes: u64 = std::env::var("LEAF_NODES").map_or(20_000, |v| v.parse().unwrap());
    for drawn in [0u32, 10, 16, 20, 24] {
        let s = random_safe_play(DotsAndBoxes::new(5, 5).unwrap(), drawn, &mut rng);
        let turn = engine::games::dots_and_boxes::qdab::turns_played(&s, &[]);
        let mut w = Worker::new(&s, leaf_nodes, 20);
        let root = Pos::new(&s, turn);
        let schedule = Schedule::new(turn, s.to_move(), 60);
        let n0 = w.solver().nodes();
        let t = std::time::Instant::now();
        let (moves, done) = w.search(
            &root,
            &schedule,
            Stop {
                iterations: Some(3000),
                deadline: None,
            },
            7,
        );
        let dt = t.elapsed().as_secs_f64();
        eprintln!(
            "drawn {drawn} turn {turn}: {:.0} iterations/s, {:.0} solver positions an iteration, {} root moves, solves answered/given up {:?}",
            done as f64 / dt,
            (w.solver().nodes() - n0) as f64 / done as f64,
            moves.len(),
            w.solves
        );
    }
}
