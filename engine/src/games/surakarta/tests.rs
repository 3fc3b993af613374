//! Surakarta rules: perft from the start, the capture cases of the issue and more found by
//! reasoning about the circuits, notation, positions, the end rules, random games against
//! invariants.

use super::*;
use crate::game::{Action, Game, Outcome};
use crate::games::RegisteredGame;
use crate::rng::Rng;

fn rules(repetition: Repetition) -> Rules {
    Rules {
        repetition,
        limit: 50,
    }
}

/// A position from lists of points, P1 to move, no repetition rule.
fn position(p1: &[&str], p2: &[&str]) -> Surakarta {
    let start = Surakarta::new(rules(Repetition::Off));
    let bits = |names: &[&str]| {
        names.iter().fold(0u64, |acc, n| {
            let a = start.parse_action(&format!("{n}a1")).unwrap() as usize / POINTS;
            acc | 1 << a
        })
    };
    Surakarta::from_pieces([bits(p1), bits(p2)], Player::P1, rules(Repetition::Off), 0)
}

fn legal(s: &Surakarta, text: &str) -> bool {
    s.is_legal(s.parse_action(text).unwrap())
}

fn moves(s: &Surakarta) -> Vec<String> {
    let mut out = Vec::new();
    s.legal_actions(&mut out);
    out.iter().map(|&a| s.format_action(a)).collect()
}

#[test]
fn perft_from_the_start_without_the_repetition_rule() {
    let s = Surakarta::new(rules(Repetition::Off));
    let counts: Vec<u64> = (1..=4).map(|d| RegisteredGame::perft(&s, d)).collect();
    assert_eq!(counts, [16, 256, 5_382, 111_122]);
    // Depth 4 cannot reach a repeated position that a later ply would need, so the default
    // rules count the same; forbidding repeats removes the moves back to the start.
    let end = Surakarta::new(Rules::default());
    assert_eq!(RegisteredGame::perft(&end, 4), 111_122);
    let forbid = Surakarta::new(rules(Repetition::Forbid));
    assert!(RegisteredGame::perft(&forbid, 4) < 111_122);
}

/// The issue's cases, P1 to move.
#[test]
fn the_issues_capture_cases() {
    // b2 to b4: backwards along the inner circuit from b2's rank-2 station, a2, round the a1
    // loop, b1, then b2 again (its own point, left empty), b3, b4.
    assert!(legal(&position(&["b2"], &["b4"]), "b2b4"));
    // a2 to e3: along rank 2 to f2, round the f1 loop, up file e through e2 (crossed twice).
    assert!(legal(&position(&["a2"], &["e3"]), "a2e3"));
    // a6 is on no circuit, and a full lap back to a2 is not a move.
    let s = position(&["a2"], &["a6"]);
    assert_eq!(moves(&s), ["a2a1", "a2b1", "a2b2", "a2a3", "a2b3"]);
    assert!(!s.is_legal(s.parse_action("a2a2").unwrap()));
    // c1 to a3: c1 is the last point of the outer circuit's file c; round the a1 loop to a3.
    assert!(legal(&position(&["c1"], &["a3", "f6"]), "c1a3"));
}

/// More cases from the circuits' shape.
#[test]
fn captures_need_a_loop_and_an_empty_path() {
    // a2 and b2 are neighbours on rank 2, but the path from a2 to b2 along it passes no loop;
    // backwards round the a1 loop it is a2, b1, b2: a capture.
    let s = position(&["a2"], &["b2"]);
    assert!(legal(&s, "a2b2"));
    // b2 to d2 straight along rank 2 passes no loop; but from b2's station on file b the path
    // runs down to b1, round the a1 loop, a2, b2 (its own point, empty), c2, d2: legal...
    assert!(legal(&position(&["b2"], &["d2"]), "b2d2"));
    // ...until its own piece on c2 blocks that way; then the long way round (up file b, along
    // rank 5, down file e, round f1 to rank 2) still reaches d2, and a piece on f5 blocks it.
    assert!(legal(&position(&["b2", "c2"], &["d2"]), "b2d2"));
    let s = position(&["b2", "c2", "f5"], &["d2"]);
    assert!(!legal(&s, "b2d2"));
    assert!(s
        .illegal_reason(s.parse_action("b2d2").unwrap())
        .contains("circuit"));
    // An enemy piece on the way blocks too: the first piece met ends the path.
    assert!(!legal(
        &position(&["b2", "c2"], &["d2", "b4", "e4"]),
        "b2d2"
    ));
    // A corner point (a1) is on no circuit: it only steps.
    let s = position(&["a1"], &["b2", "a3", "c1"]);
    assert_eq!(moves(&s), ["a1b1", "a1a2"]);
    // The outer circuit: c3 lies on it twice (rank 3 and file c); c3 to f4 runs along rank 3
    // to f3, round the loop to d1, up file d through d3 and d4, round the loop to f4.
    assert!(legal(&position(&["c3"], &["f4"]), "c3f4"));
    // b3 lies on both circuits (file b inner, rank 3 outer): captures on either.
    let s = position(&["b3"], &["e2", "f4"]);
    assert!(legal(&s, "b3e2"), "{:?}", moves(&s));
    assert!(legal(&s, "b3f4"), "{:?}", moves(&s));
    // A piece never captures its own side, and a capture is optional: the steps stay.
    let s = position(&["a2", "e3"], &["f6"]);
    assert!(!legal(&s, "a2e3"));
    assert!(legal(&s, "a2a3"));
}

#[test]
fn notation_and_positions_round_trip() {
    let s = Surakarta::new(Rules::default());
    for text in ["a2a3", "a2-a3", "a2xa3", "A2A3", " a2a3 "] {
        assert_eq!(s.parse_action(text).unwrap(), (6 * POINTS + 12) as Action);
    }
    assert_eq!(s.format_action((6 * POINTS + 12) as Action), "a2a3");
    for bad in ["a2", "a2a7", "g1a1", "a2a3a4", "zz", "9999"] {
        assert!(s.parse_action(bad).is_err(), "{bad}");
    }
    let e = s.parse_legal_action("a2a4").unwrap_err().to_string();
    assert!(e.contains("not a neighbour"), "{e}");
    let e = s.parse_legal_action("a5a4").unwrap_err().to_string();
    assert!(e.contains("no piece"), "{e}");
    assert_eq!(
        s.board_string(),
        "OOOOOO/OOOOOO/....../....../XXXXXX/XXXXXX"
    );
    let text = s.position_text();
    let back = s
        .parse_position(&text.split(' ').collect::<Vec<_>>())
        .unwrap();
    assert_eq!(back, s);
    for bad in [
        vec!["OOOOOO/OOOOOO/....../....../XXXXXX", "1"],
        vec!["OOOOOO/OOOOOO/....../....Z./XXXXXX/XXXXXX", "1"],
        vec!["OOOOOO/OOOOOO/....../....../XXXXXX/XXXXXX", "3"],
        vec!["OOOOOO/OOOOOO/....../....../XXXXXX/XXXXXX", "1", "x"],
        vec!["XXXXXX/XXXXXX/X...../....../XXXXXX/XXXXXX", "1"],
    ] {
        assert!(s.parse_position(&bad).is_err(), "{bad:?}");
    }
    assert!(format!("{s}").contains("P1 to move"));
}

#[test]
fn the_game_ends_by_pieces_moves_limit_and_repetition() {
    // The last enemy piece taken: over, won by the capturer.
    let mut s = position(&["a2"], &["b2"]);
    s.apply(s.parse_action("a2b2").unwrap());
    assert_eq!(s.outcome(), Some(Outcome::P1Win));
    // No capture for `limit` plies: the side with more pieces wins.
    let limit = Rules {
        repetition: Repetition::Off,
        limit: 4,
    };
    let p = position(&["a1", "a2"], &["f6"]);
    let mut s = Surakarta::from_pieces(
        [p.pieces(Player::P1), p.pieces(Player::P2)],
        Player::P1,
        limit,
        0,
    );
    for m in ["a1b1", "f6f5", "b1a1", "f5f6"] {
        assert!(!s.is_terminal());
        s.apply(s.parse_action(m).unwrap());
    }
    assert_eq!(s.outcome(), Some(Outcome::P1Win));
    // A repeated position ends the game (equal pieces: a draw), or with `forbid` the move
    // back is not legal.
    let play = |repetition| {
        let mut s = Surakarta::new(rules(repetition));
        for m in ["a2a3", "a5a4", "a3a2"] {
            s.apply(s.parse_action(m).unwrap());
        }
        s
    };
    let mut end = play(Repetition::End);
    end.apply(end.parse_action("a4a5").unwrap());
    assert_eq!(end.outcome(), Some(Outcome::Draw));
    let forbid = play(Repetition::Forbid);
    assert!(!legal(&forbid, "a4a5"));
    assert!(forbid
        .illegal_reason(forbid.parse_action("a4a5").unwrap())
        .contains("repeat"));
    let mut off = play(Repetition::Off);
    off.apply(off.parse_action("a4a5").unwrap());
    assert!(!off.is_terminal());
    // A side with no legal move: P2's only piece boxed in at a6 by P1 pieces, none of which
    // can be captured (a6 is on no circuit).
    let s = Surakarta::from_pieces(
        [
            position(&["a5", "b5", "b6", "f1"], &[]).pieces(Player::P1),
            position(&["a6"], &[]).pieces(Player::P1),
        ],
        Player::P2,
        rules(Repetition::Off),
        0,
    );
    assert!(s.is_terminal());
    assert_eq!(s.outcome(), Some(Outcome::P1Win));
}

/// Random games: moves are listed once in ascending order, each is legal, captures take one
/// piece, the no-capture count and the end rules hold, and repetitions (found through the
/// position's filter and history) match a plain list of the positions since the last capture.
#[test]
fn random_games_keep_the_invariants() {
    let mut rng = Rng::new(17);
    let mut buf = Vec::new();
    for game in 0..300 {
        let repetition = Repetition::from_index(game % 3);
        let mut s = Surakarta::new(rules(repetition));
        let key = |s: &Surakarta| (s.pieces(Player::P1), s.pieces(Player::P2), s.to_move());
        let mut since_capture = vec![key(&s)];
        let mut plies = 0;
        while !s.is_terminal() {
            s.legal_actions(&mut buf);
            assert!(!buf.is_empty(), "{s}");
            assert!(buf.windows(2).all(|w| w[0] < w[1]));
            for &a in &buf {
                assert!(s.is_legal(a), "{}", s.format_action(a));
                if repetition == Repetition::Forbid {
                    let mut next = s;
                    next.apply(a);
                    assert!(
                        !since_capture.contains(&key(&next)),
                        "{s} {}",
                        s.format_action(a)
                    );
                }
            }
            let a = rng.pick(&buf);
            let before = (
                s.pieces(Player::P1).count_ones(),
                s.pieces(Player::P2).count_ones(),
            );
            let quiet = s.quiet_plies();
            let mover = s.to_move();
            s.apply(a);
            let after = (
                s.pieces(Player::P1).count_ones(),
                s.pieces(Player::P2).count_ones(),
            );
            let taken = (before.0 - after.0) + (before.1 - after.1);
            assert!(taken <= 1);
            assert_eq!(s.quiet_plies(), if taken == 1 { 0 } else { quiet + 1 });
            if taken == 1 {
                assert_eq!(
                    s.pieces(mover).count_ones(),
                    if mover == Player::P1 {
                        before.0
                    } else {
                        before.1
                    }
                );
            }
            assert_eq!(s.pieces(Player::P1) & s.pieces(Player::P2), 0);
            if taken == 1 {
                since_capture.clear();
            }
            let repeated = since_capture.contains(&key(&s));
            since_capture.push(key(&s));
            match repetition {
                Repetition::End => assert!(!repeated || s.is_terminal(), "{s}"),
                Repetition::Forbid => assert!(!repeated, "{s}"),
                Repetition::Off => {}
            }
            if repetition == Repetition::End && s.is_terminal() && s.quiet_plies() < 50 {
                // Ended by a repetition or by the side to move having no pieces or moves.
                let mut moves = MoveList::new();
                s.any_move(|a| {
                    moves.push(a);
                    false
                });
                assert!(repeated || moves.is_empty(), "{s}");
            }
            plies += 1;
            assert!(plies < 10_000);
        }
        let (a, b) = (
            s.pieces(Player::P1).count_ones(),
            s.pieces(Player::P2).count_ones(),
        );
        assert_eq!(s.outcome(), Some(Outcome::from_scores(a, b)));
        assert!(s.quiet_plies() <= 50);
        s.legal_actions(&mut buf);
        assert!(buf.is_empty());
    }
}

/// The rule as written: walk the circuit point by point from each of the piece's stations,
/// either way round, over empty points (its own point empty), and stop at the first piece;
/// an enemy piece reached after a loop is a capture.
fn captures_by_walking(from: usize, own: u64, enemy: u64) -> u64 {
    let occupied = (own | enemy) & !(1 << from);
    let mut targets = 0;
    for k in 0..circuits::STATIONS.count[from] as usize {
        let (c, start) = circuits::STATIONS.at[from][k];
        let points = &circuits::CIRCUITS[c as usize].points;
        for forwards in [true, false] {
            let (mut i, mut looped) = (start as usize, false);
            for _ in 1..24 {
                let next = if forwards {
                    (i + 1) % 24
                } else {
                    (i + 23) % 24
                };
                // The loops join station 6k + 5 to 6k + 6.
                looped |= if forwards { i % 6 == 5 } else { next % 6 == 5 };
                i = next;
                let bit = 1u64 << points[i];
                if occupied & bit != 0 {
                    if enemy & bit != 0 && looped {
                        targets |= bit;
                    }
                    break;
                }
            }
        }
    }
    targets
}

/// A random position: each point empty, P1's or P2's with the given chances.
fn random_pieces(rng: &mut Rng, fill: u32) -> [u64; 2] {
    let mut pieces = [0u64; 2];
    for p in 0..POINTS {
        let r = rng.below(100);
        if r < fill {
            pieces[(r % 2) as usize] |= 1 << p;
        }
    }
    pieces
}

/// The word-operation captures equal the walk along the circuits on 20,000 random boards,
/// from every point, for both sides.
#[test]
fn captures_match_a_walk_along_the_circuits() {
    let mut rng = Rng::new(5);
    for n in 0..20_000 {
        let pieces = random_pieces(&mut rng, 10 + (n % 80) as u32);
        for side in 0..2 {
            let (own, enemy) = (pieces[side], pieces[1 - side]);
            for from in 0..POINTS {
                if own >> from & 1 == 1 {
                    assert_eq!(
                        capture_targets(from, own, enemy),
                        captures_by_walking(from, own, enemy),
                        "from {from} in {pieces:?}"
                    );
                }
            }
        }
    }
}

/// The rollouts' move drawn by tries is uniform over the legal moves: in positions with
/// captures that two slots reach, each move's count stays within five standard deviations
/// of its expectation, and only legal moves are drawn.
#[test]
fn random_moves_are_uniform_over_the_legal_moves() {
    let mut rng = Rng::new(8);
    let mut cases = vec![
        // b2 alone on the inner circuit with e5: forwards from its rank-2 station (c2, d2, e2,
        // f2, the f1 loop, e1 ... e5), backwards from its file-b station (b3 ... b6, the a6
        // loop, a5 ... e5), and each of those two ways begun from the other station, through
        // b2 itself (empty) and round the a1 loop: the same capture by all four slots.
        position(&["b2"], &["e5"]),
        position(&["a2"], &["b2", "e3"]),
        position(&["b3", "c3"], &["e2", "f4", "b5"]),
        Surakarta::new(rules(Repetition::Off)),
    ];
    for _ in 0..20 {
        let p = random_pieces(&mut rng, 40);
        let s = Surakarta::from_pieces(p, Player::P1, rules(Repetition::Off), 0);
        if !s.is_terminal() {
            cases.push(s);
        }
    }
    let mut list = Vec::new();
    let slots_reaching = |s: &Surakarta, from: &str, to: &str| {
        let (from, to) = (
            s.parse_action(&format!("{from}{to}")).unwrap() as usize / POINTS,
            to,
        );
        let rings = Rings::of(s.pieces(Player::P1) | s.pieces(Player::P2));
        (0..circuits::STATIONS.count[from] as usize)
            .flat_map(|k| [true, false].map(|f| circuits::capture_along(from, k, f, rings)))
            .filter(|&bit| {
                bit != 0
                    && s.format_action((from * POINTS + bit.trailing_zeros() as usize) as Action)
                        .ends_with(to)
            })
            .count()
    };
    assert_eq!(slots_reaching(&cases[0], "b2", "e5"), 4);
    for s in &cases {
        s.legal_actions(&mut list);
        let draws = 2_000 * list.len();
        let mut counts = std::collections::HashMap::new();
        for _ in 0..draws {
            *counts
                .entry(s.random_move_by_tries(&mut rng))
                .or_insert(0u32) += 1;
        }
        assert_eq!(counts.len(), list.len(), "{s}");
        let p = 1.0 / list.len() as f64;
        let (mean, sd) = (draws as f64 * p, (draws as f64 * p * (1.0 - p)).sqrt());
        for &a in &list {
            let c = counts[&a] as f64;
            assert!(
                (c - mean).abs() < 5.0 * sd,
                "{}: {c} vs {mean} in {s}",
                s.format_action(a)
            );
        }
    }
}

/// The energy's terms at the start and in constructed positions.
#[test]
fn energy_terms_follow_the_papers_definitions() {
    use super::energy::{energy_terms, EnergyWeights, POSITION_MAP};
    let s = Surakarta::new(Rules::default());
    let t = s.energy_terms(Player::P1);
    // Rank 1: 0 5 5 5 5 0; rank 2: 5 10 20 20 10 5.
    assert_eq!(t.position, 90);
    // Nobody can capture at the start (perft 1 is the 16 steps).
    assert_eq!(t.attack, 0);
    // The map is symmetric: P2's start scores the same.
    assert_eq!(s.energy_terms(Player::P2).position, 90);
    assert_eq!(
        POSITION_MAP.iter().sum::<u32>(),
        20 + 70 + 70 + 70 + 70 + 20
    );
    // Attack counts the pieces with a capture, whatever their number of captures: a2 takes
    // b2 round the a1 loop; c3 takes e3 the long way round the outer circuit (b3, a3, the
    // loop, up file c through its own point, a4 ... f4, down file d, f3, e3); f1 nothing.
    let p = position(&["a2", "c3", "f1"], &["b2", "e3"]);
    let t = energy_terms(p.pieces(Player::P1), p.pieces(Player::P2));
    assert!(legal(&p, "a2b2") && legal(&p, "c3e3"));
    assert_eq!(t.attack, 2);
    // Alone on the inner circuit, b2 reaches e5 (four ways); with a friend on e5, e5 is
    // defended by b2 and b2 by e5 (the same paths backwards).
    let p = position(&["b2", "e5"], &[]);
    let t = energy_terms(p.pieces(Player::P1), 0);
    assert_eq!((t.attack, t.defence), (0, 2));
    // A corner piece is on no circuit: it neither attacks nor defends nor is defended.
    let p = position(&["a1", "f6"], &["b2"]);
    let t = energy_terms(p.pieces(Player::P1), p.pieces(Player::P2));
    assert_eq!((t.position, t.attack, t.defence), (0, 0, 0));
    // F is the weighted sum; the energy after a move is the energy of the position it makes.
    let w = EnergyWeights::PAPER;
    let terms = super::energy::EnergyTerms {
        position: 100,
        attack: 2,
        defence: 3,
    };
    assert!((w.energy(terms) - (0.0025 + 0.06 + 0.09)).abs() < 1e-6);
    let s = Surakarta::new(rules(Repetition::Off));
    let a = s.parse_action("b2b3").unwrap();
    let mut after = s;
    after.apply(a);
    assert_eq!(s.energy_terms_after(a), after.energy_terms(Player::P1));
}

/// The spec keys of the heuristic MCTS, each switch alone, and errors that name the key.
#[test]
fn heuristic_switches_are_read_from_spec_keys() {
    use super::energy::EnergyWeights;
    use super::search::Heuristics;
    let keys = |text: &str| -> Vec<(String, String)> {
        text.split(',')
            .filter(|p| !p.is_empty())
            .map(|p| {
                let (k, v) = p.split_once('=').unwrap();
                (k.to_string(), v.to_string())
            })
            .collect()
    };
    let read = |text: &str| Heuristics::from_keys("mcts", &keys(text));
    assert_eq!(read("").unwrap(), Heuristics::PLAIN);
    assert_eq!(read("heuristic=1").unwrap(), Heuristics::PAPER);
    assert_eq!(read("heuristic=paper").unwrap(), Heuristics::PAPER);
    assert_eq!(read("heuristic=best").unwrap(), Heuristics::BEST);
    assert_eq!(read("heuristic=engine").unwrap(), Heuristics::ENGINE);
    assert_eq!(
        read("heuristic=best,quiescence=150").unwrap(),
        Heuristics::ENGINE
    );
    let mut config = crate::mcts::SearchConfig::default();
    Heuristics::ENGINE.fit_cp(&mut config);
    assert_eq!(config.cp, 0.3);
    config.cp = 0.7;
    Heuristics::ENGINE.fit_cp(&mut config);
    assert_eq!(config.cp, 0.7, "a cp the spec gives stays");
    assert_eq!(read("heuristic=0").unwrap(), Heuristics::PLAIN);
    let h = read("heuristic=1,energy=0,lead=0").unwrap();
    assert_eq!((h.energy, h.lead, h.steps), (None, 0, 50));
    let h = read("relative=1,progressive=1,cutoff=pieces,captures=0.5").unwrap();
    assert!(h.relative && h.progressive);
    assert_eq!((h.cutoff, h.captures), (super::search::Cutoff::Pieces, 0.5));
    let h = read("attack=0.5,energy=1").unwrap();
    assert_eq!(
        h.energy,
        Some(EnergyWeights {
            attack: 0.5,
            ..EnergyWeights::PAPER
        })
    );
    assert_eq!((h.lead, h.steps), (0, 0));
    for (bad, says) in [
        ("energy=2", "energy is 0 or 1"),
        ("heuristic=most", "heuristic is 0 (plain)"),
        ("lead=-1", "lead must not be negative"),
        ("attack=x", "attack must be a number"),
        ("attack=inf", "attack must be a number"),
        ("captures=2", "captures is a chance from 0 to 1"),
        ("quiescence=-1", "quiescence is a scale of 0 or more"),
        ("cutoff=maybe", "cutoff is draw or pieces"),
        ("weights=/no/such/file.json", "/no/such/file.json"),
        (
            "turn=split",
            "unknown key 'turn' (it takes iterations, time_ms, threads, cp, counter, seed, heuristic, energy,",
        ),
    ] {
        let e = read(bad).unwrap_err();
        assert!(e.contains(says), "{bad}: {e}");
    }
}

/// The paper's rollouts: a lead above L ends them for the side ahead, and after `steps`
/// moves they end drawn; plain rollouts play to the end.
#[test]
fn rollouts_stop_at_a_lead_or_after_the_step_limit() {
    use super::search::{Heuristics, SurakartaRollout};
    use crate::mcts::RolloutPolicy;
    let mut rng = Rng::new(4);
    // P1 five pieces up: over at once, P1's.
    let s = position(&["a1", "b1", "c1", "d1", "e1", "f1"], &["f6"]);
    let mut paper = SurakartaRollout::new(Heuristics::PAPER);
    let mut t = s;
    assert_eq!(paper.rollout(&mut t, &mut rng), Outcome::P1Win);
    assert_eq!(t.board_string(), s.board_string(), "no move was played");
    // One step allowed, and no lead: a draw after one move unless the game ended.
    let mut one = SurakartaRollout::new(Heuristics {
        steps: 1,
        ..Heuristics::PLAIN
    });
    for _ in 0..20 {
        let mut t = Surakarta::new(Rules::default());
        assert_eq!(one.rollout(&mut t, &mut rng), Outcome::Draw);
        assert_eq!(t.quiet_plies(), 1);
    }
    // Plain rollouts end only with the game.
    let mut plain = SurakartaRollout::new(Heuristics::PLAIN);
    for _ in 0..20 {
        let mut t = Surakarta::new(Rules::default());
        let o = plain.rollout(&mut t, &mut rng);
        assert!(t.is_terminal());
        assert_eq!(Some(o), t.outcome());
    }
}

/// The rival takes a free piece, sees a two-ply trap, and wins a won ending.
#[test]
fn the_rival_finds_tactics() {
    use super::rival::AlphaBeta;
    use std::time::Duration;
    let mut ab = AlphaBeta::new("ab", Duration::from_secs(10), 4, 1);
    // a2 can take b2 (round the a1 loop); nothing can take back.
    let s = position(&["a2", "f1"], &["b2", "f6"]);
    let (best, score) = ab.best_move(&s).unwrap();
    assert_eq!(s.format_action(best), "a2b2");
    assert!(score >= 100, "{score}");
    // P2's last piece capturable: a win, scored as one.
    let s = position(&["a2"], &["b2"]);
    let (best, score) = ab.best_move(&s).unwrap();
    assert_eq!(s.format_action(best), "a2b2");
    assert!(score > 900_000, "{score}");
    // Over a second, a search of the start goes several plies deep and returns a legal move.
    let mut ab = AlphaBeta::new("ab", Duration::from_millis(300), 64, 1);
    let s = Surakarta::new(Rules::default());
    let (best, _) = ab.best_move(&s).unwrap();
    assert!(s.is_legal(best));
    assert!(ab.depth >= 3, "depth {}", ab.depth);
}

/// Quiescence leaves: a child's first value is its quiescence score for P1, squashed; a
/// finished game's is its result; the search takes a free piece at once.
#[test]
fn quiescence_leaves_score_material() {
    use super::search::{Heuristics, SurakartaRollout};
    use crate::mcts::{Budget, RolloutPolicy, SearchConfig};
    let s = position(&["a2", "f1", "d1"], &["b2", "f6"]);
    let mut policy = SurakartaRollout::new(Heuristics::ENGINE);
    let take = s.parse_action("a2b2").unwrap();
    let step = s.parse_action("f1e1").unwrap();
    let mut out = Vec::new();
    assert!(policy.child_rewards(&s, &[take, step], &mut out));
    // After a2b2 P1 is two pieces up (P2 to move, nothing to take back): about tanh(200/150).
    assert!(out[0].p1 > 0.8, "{:?}", out[0]);
    assert!(out[0].p1 > out[1].p1);
    let config = SearchConfig {
        budget: Budget::iterations(2000),
        seed: 3,
        ..SearchConfig::default()
    };
    let r = Heuristics::ENGINE.search(config).run(&s).unwrap();
    assert_eq!(s.format_action(r.best), "a2b2");
}

/// The protocol's `genmove` plays `best`, the principal variation search, unless `set_option engine mcts` asks
/// for the MCTS; both answer a legal move.
#[test]
fn the_protocol_plays_best_the_principal_variation_search_by_default() {
    use crate::agents::Agent;
    use crate::mcts::{Budget, SearchConfig};
    use std::time::Duration;
    let start = Surakarta::new(rules(Repetition::End));
    let config = SearchConfig {
        budget: Budget {
            iterations: Some(200),
            time: Some(Duration::from_millis(30)),
        },
        ..SearchConfig::default()
    };
    let mut options = <Surakarta as RegisteredGame>::Options::default();
    assert_eq!(
        start.get_option(&options, "engine").as_deref(),
        Some("best")
    );
    let mut memory = None;
    let searched = start
        .engine_search(&options, config.clone(), &mut memory)
        .unwrap();
    let note = searched.note.unwrap();
    assert!(note.starts_with("best (pvs)"), "{note}");
    assert!(start.is_legal(searched.plies[0]));
    // The player (and its table) is kept for the next move at the same time and threads,
    // and built again for another time.
    let kept = |m: &<Surakarta as RegisteredGame>::Memory| {
        let (text, player) = m.as_ref().expect("the player is kept");
        (
            text.clone(),
            &**player as *const dyn Agent<Surakarta> as *const u8,
        )
    };
    let first = kept(&memory);
    assert_eq!(first.0, "best:time_ms=30,threads=1");
    let mut next = start;
    next.apply(searched.plies[0]);
    next.engine_search(&options, config.clone(), &mut memory)
        .unwrap();
    assert_eq!(kept(&memory), first);
    let mut longer = config.clone();
    longer.budget.time = Some(Duration::from_millis(40));
    next.engine_search(&options, longer, &mut memory).unwrap();
    assert_eq!(kept(&memory).0, "best:time_ms=40,threads=1");
    assert!(start.set_option(&mut options, "engine", "mcts").unwrap());
    let searched = start.engine_search(&options, config, &mut memory).unwrap();
    assert!(searched.note.is_none() && searched.result.is_some());
    assert!(start
        .set_option(&mut options, "engine", "fast")
        .unwrap_err()
        .contains("engine is 'best' or 'mcts'"));
}
