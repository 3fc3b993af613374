//! Gomoku rules: fives under each rule set, renju's forbidden points on constructed positions
//! (with the reasoning for each), notation in both forms, random games against invariants.

use super::renju::{forbidden, shapes};
use super::*;
use crate::game::{Game, Outcome};
use crate::games::RegisteredGame;
use crate::registry::Lookup;
use crate::rng::Rng;

/// A 15x15 position with these stones (no rule applied), `to_move` to move.
pub(super) fn board(rule: Rule, black: &[&str], white: &[&str], to_move: Player) -> Gomoku {
    let mut g = Gomoku::new(15, rule).unwrap();
    for (names, player) in [(black, Player::P1), (white, Player::P2)] {
        for name in names {
            let p = g.parse_action(name).unwrap() as usize;
            g.put(p, Some(player));
        }
    }
    g.to_move = to_move;
    g
}

/// A 15x15 board in the protocol's text form, from the ranks listed (top first) over empty
/// ranks.
pub(super) fn ranks_board(ranks: &[(usize, &str)]) -> String {
    let mut rows = vec![".".repeat(15); 15];
    for &(rank, row) in ranks {
        rows[15 - rank] = format!("{row:.<15}");
    }
    rows.join("/")
}

/// Black's d5-d7 (closed by white's d4) and e8-g8 (closed by c8) meet at d8, a double four;
/// white's stones on the first rank make the counts for `to_move` (15x15 freestyle).
pub(super) fn double_four(to_move: Player) -> Gomoku {
    let rank1 = if to_move == Player::P1 {
        "O.O.O.O"
    } else {
        "O.O.O"
    };
    let ranks = [
        (8, "..O.XXX"),
        (7, "...X"),
        (6, "...X"),
        (5, "...X"),
        (4, "...O"),
        (1, rank1),
    ];
    Gomoku::from_board(15, Rule::Freestyle, &ranks_board(&ranks), to_move).unwrap()
}

fn point(g: &Gomoku, name: &str) -> usize {
    g.parse_action(name).unwrap() as usize
}

#[test]
fn fives_and_overlines_under_each_rule() {
    // Black d8 e8 f8 h8 i8: g8 joins them into six.
    let six = |rule| {
        board(
            rule,
            &["d8", "e8", "f8", "h8", "i8"],
            &["a1", "a2", "a3", "a4", "a5"],
            Player::P1,
        )
    };
    let mut free = six(Rule::Freestyle);
    free.apply(point(&free, "g8") as Action);
    assert_eq!(free.outcome(), Some(Outcome::P1Win), "freestyle: six wins");
    let mut standard = six(Rule::Standard);
    standard.apply(point(&standard, "g8") as Action);
    assert_eq!(standard.outcome(), None, "standard: six does not win");
    let renju = six(Rule::Renju);
    assert!(
        !renju.is_legal(point(&renju, "g8") as Action),
        "renju: black's six is forbidden"
    );
    assert!(renju
        .illegal_reason(point(&renju, "g8") as Action)
        .contains("overline"));
    // White's six wins under renju.
    let mut white = board(
        Rule::Renju,
        &["a1", "a2", "a3", "a4", "a5", "c1"],
        &["d8", "e8", "f8", "h8", "i8"],
        Player::P2,
    );
    white.apply(point(&white, "g8") as Action);
    assert_eq!(white.outcome(), Some(Outcome::P2Win));
    // Exactly five wins under every rule, in every direction.
    for rule in [Rule::Freestyle, Rule::Standard, Rule::Renju] {
        for (line, last) in [
            (["d4", "e5", "f6", "g7"], "h8"),
            (["h4", "h5", "h6", "h7"], "h8"),
            (["d12", "e11", "f10", "g9"], "h8"),
            (["d8", "e8", "f8", "g8"], "h8"),
        ] {
            let mut g = board(rule, &line, &["a1", "a3", "a5", "a7"], Player::P1);
            g.apply(point(&g, last) as Action);
            assert_eq!(g.outcome(), Some(Outcome::P1Win), "{rule:?} {line:?}");
        }
    }
}

#[test]
fn renju_forbidden_points() {
    let b = |black: &[&str], white: &[&str]| board(Rule::Renju, black, white, Player::P1);
    // Double four in two lines: e8 f8 g8 and h5 h6 h7 both become fours with h8.
    let g = b(
        &["e8", "f8", "g8", "h5", "h6", "h7"],
        &["a1", "a3", "a5", "a7", "a9", "a11"],
    );
    let s = shapes(&g, point(&g, "h8"));
    assert_eq!((s.fours, s.five, s.overline), (2, false, false));
    assert!(forbidden(&g, point(&g, "h8")));
    assert!(g
        .illegal_reason(point(&g, "h8") as Action)
        .contains("double four"));
    // Four-four in one line: c8 . e8 [f8] g8 . i8: f8 makes c-g with d8 and e-i with h8,
    // two different fives, so two fours in one line.
    let g = b(&["c8", "e8", "g8", "i8"], &["a1", "a3", "a5", "a7"]);
    let s = shapes(&g, point(&g, "f8"));
    assert_eq!(s.fours, 2);
    assert!(forbidden(&g, point(&g, "f8")));
    // A straight four is one four, not two: e8 f8 g8 with h8 (d8 and i8 both complete).
    let g = b(&["e8", "f8", "g8"], &["a1", "a3", "a5"]);
    assert_eq!(shapes(&g, point(&g, "h8")).fours, 1);
    assert!(!forbidden(&g, point(&g, "h8")));
    // Double three: f8 g8 and h6 h7, both open, with h8.
    let g = b(&["f8", "g8", "h6", "h7"], &["a1", "a3", "a5", "a7"]);
    assert_eq!(shapes(&g, point(&g, "h8")).live_threes, 2);
    assert!(forbidden(&g, point(&g, "h8")));
    assert!(g
        .illegal_reason(point(&g, "h8") as Action)
        .contains("double three"));
    // A three blocked at one end is not live: white on e8 and j8 leaves f8 g8 h8 no straight
    // four (e8 taken; i8 gives f-i with j8 white).
    let g = b(&["f8", "g8", "h6", "h7"], &["e8", "j8", "a1", "a3"]);
    assert_eq!(shapes(&g, point(&g, "h8")).live_threes, 1);
    assert!(!forbidden(&g, point(&g, "h8")));
    // A three whose only completion to a straight four is itself forbidden is not live:
    // with white on d8, f8 g8 h8 becomes a straight four only at i8 (f-i, e8 and j8 open),
    // and i8 is an overline for black (i5 i6 i7 i8 i9 i10). So h8 makes one live three (the
    // file h one) and is allowed...
    let black = ["f8", "g8", "h6", "h7", "i5", "i6", "i7", "i9", "i10"];
    let white = ["d8", "a1", "a3", "a5", "a7", "a9", "a11", "a13"];
    let g = b(&black, &white[..8]);
    assert!(forbidden(&g, point(&g, "i8")), "i8 is an overline");
    assert_eq!(shapes(&g, point(&g, "h8")).live_threes, 1);
    assert!(!forbidden(&g, point(&g, "h8")));
    // ...while without white's d8, e8 makes a straight four (e-h) and h8 is a double three.
    let g = b(&black, &white[1..]);
    assert_eq!(shapes(&g, point(&g, "h8")).live_threes, 2);
    assert!(forbidden(&g, point(&g, "h8")));
    // An overline in one line and exactly five in another: the five wins, the move is legal.
    // h8 makes d8-h8 (five) on rank 8 and h4-h9 (six) on file h.
    let mut g = b(
        &["d8", "e8", "f8", "g8", "h4", "h5", "h6", "h7", "h9"],
        &["a1", "a3", "a5", "a7", "a9", "a11", "a13", "c1", "c3"],
    );
    let s = shapes(&g, point(&g, "h8"));
    assert!(s.five && s.overline, "{s:?}");
    assert!(!forbidden(&g, point(&g, "h8")));
    g.apply(point(&g, "h8") as Action);
    assert_eq!(g.outcome(), Some(Outcome::P1Win));
    // White is never restricted: the double four point is white's to play.
    let g = board(
        Rule::Renju,
        &["a1", "a3", "a5", "a7", "a9", "a11", "c1"],
        &["e8", "f8", "g8", "h5", "h6", "h7"],
        Player::P2,
    );
    assert!(g.is_legal(point(&g, "h8") as Action));
    // Under freestyle the same double four point is black's to play.
    let g = board(
        Rule::Freestyle,
        &["e8", "f8", "g8", "h5", "h6", "h7"],
        &["a1", "a3", "a5", "a7", "a9", "a11"],
        Player::P1,
    );
    assert!(g.is_legal(point(&g, "h8") as Action));
}

#[test]
fn notation_positions_and_bad_input() {
    let g = Gomoku::new(15, Rule::Freestyle).unwrap();
    assert_eq!(
        g.parse_action("h8").unwrap(),
        g.parse_action("7,7").unwrap()
    );
    assert_eq!(g.format_action(g.parse_action("0,0").unwrap()), "a15");
    assert_eq!(g.format_action(g.parse_action("0,14").unwrap()), "a1");
    assert_eq!(g.gomocup_coords(g.parse_action("o15").unwrap()), (14, 0));
    for bad in [
        "p1", "h16", "h0", "15,0", "-1,3", "z", "", "h", "7;7", "a,b",
    ] {
        assert!(g.parse_action(bad).is_err(), "{bad}");
    }
    let mut g2 = g;
    g2.apply(g.parse_action("h8").unwrap());
    let e = g2.parse_legal_action("7,7").unwrap_err().to_string();
    assert!(e.contains("taken"), "{e}");
    let text = g2.position_text();
    let back = g2
        .parse_position(&text.split(' ').collect::<Vec<_>>())
        .unwrap();
    assert_eq!(back, g2);
    let empty = ranks_board(&[]);
    for (args, says) in [
        (vec![empty.as_str(), "2"], "cannot happen"),
        (vec!["X..../...../...../...../.....", "1"], "not 15 rows"),
        (vec![empty.as_str()], "expected set_position"),
        (vec![empty.as_str(), "3"], "1 or 2"),
    ] {
        let e = g.parse_position(&args).unwrap_err();
        assert!(e.contains(says), "{args:?}: {e}");
    }
    let five = ranks_board(&[(15, "XXXXX"), (1, "OOOO")]);
    let e = g.parse_position(&[&five, "2"]).unwrap_err();
    assert!(e.contains("already has a winning line"), "{e}");
    assert!(Gomoku::new(4, Rule::Freestyle).is_err());
    assert!(Gomoku::new(23, Rule::Freestyle).is_err());
}

/// Random games on small boards: moves are empty points (and never forbidden under renju),
/// the game ends exactly when someone has a winning line or the board is full.
#[test]
fn random_games_keep_the_invariants() {
    let mut rng = Rng::new(3);
    let mut moves = Vec::new();
    for game in 0..150 {
        let rule = Rule::from_index(game % 3);
        let size = [7, 9, 15][game % 3];
        let mut g = Gomoku::new(size, rule).unwrap();
        while !g.is_terminal() {
            g.legal_actions(&mut moves);
            assert!(!moves.is_empty());
            let a = rng.pick(&moves);
            assert!(g.stone(a as usize).is_none());
            let mover = g.to_move();
            assert!(!(rule == Rule::Renju && mover == Player::P1 && forbidden(&g, a as usize)));
            let wins = g.wins_at(a as usize, mover);
            g.apply(a);
            assert_eq!(g.winner(), wins.then_some(mover));
        }
        match g.outcome().unwrap() {
            Outcome::Draw => assert_eq!(g.stones(), size * size),
            o => assert_eq!(o.winner(), g.winner()),
        }
    }
    // The registry builds every rule and size.
    let spec = crate::games::GameSpec::from_text("gomoku:size=20,rule=renju").unwrap();
    let g: Gomoku = spec.start().unwrap();
    assert_eq!((g.size(), g.rule()), (20, Rule::Renju));
    assert_eq!(RegisteredGame::spec(&g), spec);
}

/// Perft: every empty point, so n, n(n-1), n(n-1)(n-2) while nobody can have a line; renju's
/// forbidden points need three black stones at least.
#[test]
fn perft_counts_the_empty_points() {
    let g = Gomoku::new(9, Rule::Freestyle).unwrap();
    let counts: Vec<u64> = (1..=3).map(|d| RegisteredGame::perft(&g, d)).collect();
    assert_eq!(counts, [81, 81 * 80, 81 * 80 * 79]);
    let r = Gomoku::new(15, Rule::Renju).unwrap();
    assert_eq!(RegisteredGame::perft(&r, 2), 225 * 224);
}

/// The benchmark's middle-game position is legal and unfinished.
#[test]
fn the_benchmarks_middle_game_is_legal() {
    let start = Gomoku::new(15, Rule::Freestyle).unwrap();
    let g = super::bench::middle_game(&start).expect("20 legal moves");
    assert_eq!((g.stones(), g.to_move()), (20, Player::P1));
    assert!(super::bench::middle_game(&Gomoku::new(9, Rule::Freestyle).unwrap()).is_none());
}

/// Runs (the line through a point, read from the line bits) against a walk by coordinates
/// through `point`, on random boards of every shape from 5 to 22, at every point
/// and in every direction, for both colours: no run wraps round an edge.
#[test]
fn runs_match_a_walk_by_coordinates() {
    let mut rng = Rng::new(11);
    for size in MIN_SIZE..=MAX_SIZE {
        let mut g = Gomoku::new(size, Rule::Freestyle).unwrap();
        // Twice over: the second fill replaces and clears stones (the line bits follow).
        for _ in 0..2 {
            for p in 0..g.points() {
                let stone = [None, Some(Player::P1), Some(Player::P2)][rng.below(3) as usize];
                g.put(p, stone);
            }
        }
        for p in 0..g.points() {
            let (c, r) = ((p % size) as i32, (p / size) as i32);
            for d in DIRECTIONS {
                for player in [Player::P1, Player::P2] {
                    let mut walk = 1;
                    for sign in [1, -1] {
                        let mut k = 1;
                        while g
                            .point(c + sign * k * d.0, r + sign * k * d.1)
                            .is_some_and(|q| g.stone(q) == Some(player))
                        {
                            walk += 1;
                            k += 1;
                        }
                    }
                    assert_eq!(g.run(p, d, player), walk, "size {size}, point {p}, {d:?}");
                }
            }
        }
    }
}

/// What a dataset records of a player's net (`selfplay`'s `player_net`): the product's net
/// where `best` plays one, a model file's own, nothing for the weighed shapes.
#[test]
fn a_player_names_the_net_it_plays_with() {
    let build = |text: &str, start: &Gomoku| {
        let spec = crate::agents::parse_spec(text).unwrap();
        Gomoku::build_player(&spec, start).unwrap().knowledge(start)
    };
    let start = Gomoku::new(15, Rule::Freestyle).unwrap();
    let product = super::net::product_net(Rule::Freestyle, 15).unwrap();
    let shipped = format!("pattern net {}", product.fingerprint());
    assert_eq!(build("best", &start), Some(shipped.clone()));
    assert_eq!(build("pvs:model=product", &start), Some(shipped));
    assert_eq!(build("pvs", &start), None);
    assert_eq!(
        build("best", &Gomoku::new(9, Rule::Freestyle).unwrap()),
        None
    );
    assert_eq!(build("paper", &start), None);
    // Another net's numbers give another fingerprint.
    let mut other = (*product).clone();
    other.output_bias += 0.5;
    assert_ne!(other.fingerprint(), product.fingerprint());
}
