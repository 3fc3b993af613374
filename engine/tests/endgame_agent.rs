//! Dots-and-Boxes knowledge in front of a search: free captures at once, the solver's moves
//! late (`solver_edges`), and the safe edges first while the position is open (`safe_first`).

use std::path::Path;

use engine::agents::{parse_spec, play_game, Agent, RandomAgent};
use engine::agents::{AgentError, Choice};
use engine::arena::positions::{read_positions, StartPosition};
use engine::games::dots_and_boxes::analysis::{
    capture_edges, free_capture, safe_edges, safe_first_moves,
};
use engine::games::dots_and_boxes::endgame::EndgameSolver;
use engine::games::dots_and_boxes::spec::BuildDots;
use engine::games::dots_and_boxes::{EndgameConfig, ExactEndgame};
use engine::games::DotsAndBoxes;
use engine::{Game, Player, Rng};

mod common;
use common::random_safe_play;

fn state_s_40(board: &DotsAndBoxes) -> Vec<StartPosition> {
    let path = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../configs/state-s-40.txt"
    ));
    read_positions(path, board).unwrap()
}

/// A random player with the exact endgame in front of it.
struct RandomWithEndgame {
    random: RandomAgent,
    endgame: ExactEndgame,
}

fn random_with_endgame(seed: u64, edges: u32) -> RandomWithEndgame {
    RandomWithEndgame {
        random: RandomAgent::new(seed),
        endgame: ExactEndgame::new(EndgameConfig::from_edges(edges)),
    }
}

impl Agent<DotsAndBoxes> for RandomWithEndgame {
    fn name(&self) -> String {
        "random with the endgame".into()
    }

    fn reseed(&mut self, seed: u64) {
        Agent::<DotsAndBoxes>::reseed(&mut self.random, seed);
    }

    fn new_game(
        &mut self,
        start: &DotsAndBoxes,
        moves: &[engine::Action],
    ) -> Result<(), AgentError> {
        self.endgame.new_game();
        Agent::<DotsAndBoxes>::new_game(&mut self.random, start, moves)
    }

    fn choose(
        &mut self,
        state: &DotsAndBoxes,
        moves: &[engine::Action],
    ) -> Result<Choice, AgentError> {
        match self.endgame.try_move(state) {
            Some(action) => Ok(Choice::plain(action)),
            None => Agent::<DotsAndBoxes>::choose(&mut self.random, state, moves),
        }
    }
}

#[test]
fn a_free_capture_is_taken_at_once_and_a_chain_capture_is_left_to_the_solver() {
    // Top-left box with three sides, its last edge on the border (v0,0): free.
    let s = DotsAndBoxes::from_move_text(5, 5, "h0,0 h1,0 v0,1").unwrap();
    let e = free_capture(s.geometry(), s.edges()).unwrap();
    assert_eq!(s.format_action(e as _), "v0,0");
    // Its solver is off (no edge count reaches it): the capture still comes first.
    let mut agent = random_with_endgame(1, 1);
    for _ in 0..10 {
        assert_eq!(agent.choose(&s, &[]).unwrap().action as usize, e);
    }
    // The box's last edge leads into a box with two sides: the capture opens that box, and
    // whether to take it (or double-deal) is not free.
    let s = DotsAndBoxes::from_move_text(5, 5, "h0,0 h1,0 v0,0 h0,1 h1,1").unwrap();
    assert_eq!(free_capture(s.geometry(), s.edges()), None);
}

#[test]
fn late_moves_keep_the_perfect_play_margin() {
    // Both players random but for the solver from 20 free edges on: from the 40-edge
    // positions, every game ends with the margin perfect play gives.
    let board = DotsAndBoxes::new(5, 5).unwrap();
    let positions = state_s_40(&board);
    let mut solver = EndgameSolver::for_board(&board);
    for (k, p) in positions.iter().take(12).enumerate() {
        let mut start = board;
        for &a in &p.moves {
            start.apply(a);
        }
        let margin = solver.final_margin(&start);
        let lead_p1 = match start.to_move() {
            Player::P1 => margin,
            Player::P2 => -margin,
        };
        let mut a = random_with_endgame(k as u64, 20);
        let mut b = random_with_endgame(100 + k as u64, 20);
        let report = play_game(&board, &p.moves, [&mut a, &mut b]).unwrap();
        let scores = report.scores.unwrap();
        assert_eq!(
            scores[0] as i32 - scores[1] as i32,
            lead_p1,
            "position {}",
            k + 1
        );
        assert_eq!(Some(report.outcome), p.perfect, "position {}", k + 1);
    }
}

#[test]
fn solver_edges_chooses_who_has_the_endgame() {
    let board = DotsAndBoxes::new(5, 5).unwrap();
    // Plain MCTS with a tiny budget misplays some 40-edge positions; with the solver on it
    // plays each one perfectly, so it never loses a position that perfect play wins for it.
    let positions = state_s_40(&board);
    let mut with = parse_spec("mcts:iterations=200,solver_edges=30")
        .unwrap()
        .build_dots(&board)
        .unwrap();
    let mut rival = parse_spec("rival").unwrap().build_dots(&board).unwrap();
    let mut plain = parse_spec("mcts:iterations=200")
        .unwrap()
        .build_dots(&board)
        .unwrap();
    let mut plain_converted = 0;
    let mut winnable = 0;
    for p in positions.iter().take(20) {
        let perfect = p.perfect.unwrap();
        // Seat the player on the side that perfect play wins (a drawn position is skipped).
        let Some(winner) = perfect.winner() else {
            continue;
        };
        winnable += 1;
        let seat_of = |agent: &mut dyn Agent<DotsAndBoxes>, rival: &mut dyn Agent<DotsAndBoxes>| {
            let players: [&mut dyn Agent<DotsAndBoxes>; 2] = if winner == Player::P1 {
                [agent, rival]
            } else {
                [rival, agent]
            };
            play_game(&board, &p.moves, players).unwrap().outcome
        };
        assert_eq!(seat_of(with.as_mut(), rival.as_mut()), perfect);
        if seat_of(plain.as_mut(), rival.as_mut()) == perfect {
            plain_converted += 1;
        }
    }
    assert!(winnable >= 15, "{winnable}");
    assert!(plain_converted < winnable, "{plain_converted}/{winnable}");
}

#[test]
fn safe_first_searches_only_the_safe_edges_while_the_position_is_open() {
    let board = DotsAndBoxes::new(5, 5).unwrap();
    let mut allowed = Vec::new();
    safe_first_moves(&board, &mut allowed);
    assert_eq!(allowed.len(), 60);
    // A box to take: every move is searched.
    let s = DotsAndBoxes::from_move_text(5, 5, "h0,0 h1,0 v0,1").unwrap();
    safe_first_moves(&s, &mut allowed);
    assert!(allowed.is_empty());

    let mut player = parse_spec("mcts:iterations=300,safe_first=1")
        .unwrap()
        .build_dots(&board)
        .unwrap();
    let mut rng = Rng::new(23);
    let (mut checked, mut only_one) = (0, 0);
    for _ in 0..80 {
        let moves = rng.below(40);
        let s = random_safe_play(board, moves, &mut rng);
        let geo = s.geometry();
        let safe = safe_edges(geo, s.edges());
        if capture_edges(geo, s.edges()) != 0 || safe == 0 {
            continue;
        }
        safe_first_moves(&s, &mut allowed);
        assert_eq!(allowed.len() as u32, safe.count_ones());
        let choice = player.choose(&s, &[]).unwrap();
        assert_eq!(safe >> choice.action & 1, 1, "{s}");
        if safe.count_ones() == 1 {
            // The only safe edge is played without a search.
            assert_eq!(choice.iterations, 0);
            only_one += 1;
        } else {
            assert_eq!(choice.iterations, 300);
        }
        checked += 1;
    }
    assert!(checked > 40 && only_one > 0, "{checked} {only_one}");
}

#[test]
fn one_exact_endgame_serves_any_board_size_and_is_off_at_zero() {
    let mut endgame = ExactEndgame::new(EndgameConfig::from_edges(12));
    let small = DotsAndBoxes::new(2, 2).unwrap();
    assert!(endgame.try_move(&small).is_some());
    // 3x3 with 12 edges free: the solver is rebuilt for the new size.
    let mut larger = DotsAndBoxes::new(3, 3).unwrap();
    for a in [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22] {
        larger.apply(a);
    }
    assert_eq!(larger.edges_drawn(), 12);
    endgame.new_game();
    let a = endgame.try_move(&larger).expect("12 free edges are solved");
    assert!(larger.is_legal(a));
    // Off: not even a free capture.
    let mut off = ExactEndgame::new(EndgameConfig::from_edges(0));
    let capture = DotsAndBoxes::from_move_text(2, 2, "h0,0 h1,0 v0,0").unwrap();
    assert!(free_capture(capture.geometry(), capture.edges()).is_some());
    assert_eq!(off.try_move(&capture), None);
}

#[test]
fn a_proven_win_is_kept_and_a_lost_or_unproven_position_is_left_to_the_search() {
    // 3x3 (24 edges): the solver from 8 free edges, proofs up to 20. Random positions of 9 to
    // 20 free edges: a proof answers exactly where the player to move wins (checked by the
    // plain value), and its move keeps the win.
    let config = EndgameConfig {
        prove_edges: 20,
        ..EndgameConfig::from_edges(8)
    };
    let mut endgame = ExactEndgame::new(config);
    let mut solver = EndgameSolver::new(3, 3, 16);
    let mut rng = Rng::new(21);
    let (mut proven, mut left) = (0, 0);
    for k in 0..200 {
        let free = 9 + k % 12;
        let mut state = DotsAndBoxes::new(3, 3).unwrap();
        let mut moves = Vec::new();
        while state.num_edges() - state.edges_drawn() as usize > free {
            state.legal_actions(&mut moves);
            state.apply(rng.pick(&moves));
        }
        if state.is_terminal() {
            continue;
        }
        let mover_wins = solver.final_margin(&state) > 0;
        match endgame.try_prove(&state) {
            Some(a) => {
                assert!(mover_wins, "{}", state.edge_string());
                let mover = state.to_move();
                let mut after = state;
                after.apply(a);
                assert_eq!(solver.outcome(&after), engine::Outcome::win_for(mover));
                proven += 1;
            }
            None => {
                assert!(!mover_wins, "{}", state.edge_string());
                left += 1;
            }
        }
    }
    assert!(proven > 20 && left > 20, "{proven} {left}");
    // Without the solver, proofs still answer (and free captures are taken).
    let mut alone = ExactEndgame::new(EndgameConfig { edges: 0, ..config });
    let mut s = DotsAndBoxes::new(3, 3).unwrap();
    for a in [0, 5, 10, 15, 20, 3, 8] {
        s.apply(a);
    }
    assert_eq!(alone.try_prove(&s).is_some(), solver.final_margin(&s) > 0);
    // Past its node limit a proof gives up; at the solver's range it is the solver's turn.
    let mut tiny = ExactEndgame::new(EndgameConfig {
        prove_nodes: 1,
        ..config
    });
    let state = DotsAndBoxes::new(3, 3).unwrap();
    let mut s = state;
    for a in [0, 5, 10, 15] {
        s.apply(a);
    }
    assert_eq!(tiny.try_prove(&s), None);
    let mut late = s;
    let mut moves = Vec::new();
    while late.num_edges() - late.edges_drawn() as usize > 8 {
        late.legal_actions(&mut moves);
        late.apply(moves[0]);
    }
    assert_eq!(endgame.try_prove(&late), None);
}

#[test]
fn a_clock_bounds_a_proof() {
    // 5x5 positions with 34 free edges: no proof within no time; within a minute's worth of
    // positions, a proof wherever the player to move wins.
    let config = EndgameConfig {
        prove_edges: 60,
        prove_nodes: u64::MAX,
        ..EndgameConfig::from_edges(30)
    };
    let mut rng = Rng::new(4);
    let mut endgame = ExactEndgame::new(config);
    let mut checked = 0;
    for _ in 0..20 {
        let state = random_safe_play(DotsAndBoxes::new(5, 5).unwrap(), 26, &mut rng);
        endgame.new_game();
        endgame.set_move_time(Some(std::time::Duration::ZERO));
        assert_eq!(endgame.try_prove(&state), None);
        endgame.set_move_time(Some(std::time::Duration::from_secs(60)));
        if endgame.try_prove(&state).is_some() {
            checked += 1;
        }
    }
    assert!(
        checked > 0,
        "some of 20 positions are won for the player to move"
    );
}
