use super::*;
use crate::games::DotsAndBoxes;

/// Runs a script through `serve` and returns the answers, one string each (without the final
/// empty line).
fn session(script: &str) -> Vec<String> {
    let mut out = Vec::new();
    serve(&mut script.as_bytes(), &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.is_empty() || text.ends_with("\n\n"), "{text:?}");
    text.split_terminator("\n\n").map(str::to_string).collect()
}

#[test]
fn the_basic_commands_answer_as_documented() {
    let answers = session(
        "protocol_version\n1 name\nversion\nknown_command genmove\nknown_command fly\n\
         # a comment line gets no answer\n\n7 list_commands\nquit\nname\n",
    );
    assert_eq!(answers[0], "= 2");
    assert_eq!(answers[1], "=1 engine");
    assert_eq!(answers[2], format!("= {}", env!("CARGO_PKG_VERSION")));
    assert_eq!(answers[3], "= true");
    assert_eq!(answers[4], "= false");
    assert!(
        answers[5].starts_with("=7 protocol_version\nname\n"),
        "{}",
        answers[5]
    );
    assert_eq!(answers[5].lines().count(), COMMANDS.len());
    assert_eq!(answers[6], "=");
    // Nothing is read after quit.
    assert_eq!(answers.len(), 7);
}

#[test]
fn a_dots_and_boxes_game_through_the_protocol() {
    let answers = session(
        "game dots_and_boxes rows=1 cols=2\n\
         legal_moves\nto_move\nplay h0,0\nplay 0\nplay 1\nplay v0,0\nto_move\nscore\n\
         set_option notation id\nlegal_moves\nplay 3\nscore\nto_move\nis_over\nresult\n\
         undo\nscore\nget_position\nplay 3\nplay 4\nplay v0,2\nplay 5\nplay 2\nplay 6\nis_over\n\
         result\nscore\nto_move\ngenmove\n",
    );
    let expected = [
        "= dots_and_boxes rows=1 cols=2",
        "= h0,0 h0,1 h1,0 h1,1 v0,0 v0,1 v0,2",
        "= 1",
        "=",
        "? move '0' is illegal here: h0,0 is already drawn",
        "=",
        "=",
        "= 2",
        "= 0 0",
        "=",
        "= 2 3 5 6",
        "=",
        "= 0 0",
        "= 1",
        "= false",
        "= none",
        "=",
        "= 0 0",
        "= 1100100 0 0 2 ..",
        "=",
        "? move '4' is illegal here: v0,0 is already drawn",
        "=",
        "=",
        "=",
        "? move '6' is illegal here: the game is over",
        "= true",
        "= 2",
        "= 0 2",
        "? the game is over",
        "? the game is over",
    ];
    assert_eq!(answers, expected);
}

#[test]
fn genmove_searches_plays_and_answers_in_the_notation() {
    let answers = session(
        "game dots_and_boxes rows=2 cols=2\nset_option iterations 2000\nset_option seed 3\n\
         genmove\nget_position\nundo\nget_position\nset_option notation id\ngenmove 2\ngenmove 1\n\
         set_option iterations 0\ngenmove\nset_option time_ms 20\ngenmove\n",
    );
    let mv = answers[3].strip_prefix("= ").unwrap();
    assert!(mv.starts_with('h') || mv.starts_with('v'), "{mv}");
    assert!(answers[4].contains('1'), "one edge drawn: {}", answers[4]);
    assert_eq!(answers[6], "= 000000000000 0 0 1 ....");
    assert_eq!(answers[8], "? player 1 is to move, not 2");
    let id: u32 = answers[9].strip_prefix("= ").unwrap().parse().unwrap();
    assert!(id < 12);
    assert!(answers[11].starts_with("? no budget"), "{}", answers[11]);
    assert!(answers[13].starts_with("= "), "{}", answers[13]);
}

/// The solver's and the proofs' ranges follow the board until set: 34 and 40 on 5x5, 44 and
/// 50 on 7x7; one set by hand stays, the other still follows the board.
#[test]
fn the_endgame_ranges_follow_the_board_until_set() {
    let answers = session(
        "get_option solver_edges\nget_option prove_edges\ngame dots_and_boxes rows=7 cols=7\n\
         get_option solver_edges\nget_option prove_edges\nget_option engine\n\
         set_option prove_edges 46\nget_option solver_edges\nget_option prove_edges\n\
         get_option engine\nset_option engine best\nget_option prove_edges\n",
    );
    let want = [
        "= 34",
        "= 40",
        "= dots_and_boxes rows=7 cols=7",
        "= 44",
        "= 50",
        "= best",
        "=",
        "= 44",
        "= 46",
        "= custom",
        "=",
        "= 50",
    ];
    assert_eq!(answers, want);
}

/// A position or a net of another board size is refused, naming both sizes, and nothing
/// changes.
#[test]
fn a_position_or_net_of_another_board_is_refused_by_both_sizes() {
    let seven = "1".to_string() + &"0".repeat(111);
    let answers = session(&format!(
        "play h0,0\nset_position {seven} 0 0 1\nget_position\n\
         game dots_and_boxes rows=7 cols=7\nset_option model models/dab-5x5/model.safetensors\n\
         get_option model\n"
    ));
    assert!(
        answers[1].starts_with("? bad edge string: a 5x5 board has 60 edges")
            && answers[1].contains("the edges of a 7x7 board"),
        "{}",
        answers[1]
    );
    assert!(answers[2].starts_with("= 1000"), "{}", answers[2]);
    assert!(
        answers[4].contains("5x5") && answers[4].contains("7x7"),
        "{}",
        answers[4]
    );
    assert_eq!(answers[5], "= product");
}

#[test]
fn positions_games_and_options_are_checked() {
    let answers = session(
        "set_position 0101 0 0 1\nset_position 111100000000000000000000000000000000000000000000000000000000 1 0 1\n\
         game tictactoe\nset_position XXO.O....\nto_move\nshowboard\nscore\nset_position XXX......\n\
         game chess\ngame dots_and_boxes rows=9\ngame dots_and_boxes depth=3\ngame tictactoe rows=3\n\
         set_option model models/dab-5x5/model.safetensors\nget_option model\nset_option colour red\n\
         set_option threads 5000\nset_option threshold 2\nset_option counter triple\nlist_options\n\
         get_option threshold\n",
    );
    assert!(
        answers[0].starts_with("? bad edge string: a 5x5 board has 60 edges"),
        "{}",
        answers[0]
    );
    assert!(
        answers[1].starts_with(
            "? inconsistent position: scores 1 + 0 do not add up to the 0 closed boxes"
        ),
        "{}",
        answers[1]
    );
    assert_eq!(answers[2], "= tictactoe");
    assert_eq!(answers[3], "=");
    assert_eq!(answers[4], "= 1");
    assert!(
        answers[5].starts_with("=\n  a b c\n1 X X O\n2 . O ."),
        "{}",
        answers[5]
    );
    assert_eq!(answers[6], "? tictactoe keeps no score");
    assert!(answers[7].contains("3 X and 0 O"), "{}", answers[7]);
    assert!(
        answers[8].contains("unknown game 'chess'"),
        "{}",
        answers[8]
    );
    assert!(
        answers[9].contains("rows is 1 to 7, not 9"),
        "{}",
        answers[9]
    );
    assert!(answers[10].contains("not 'depth'"), "{}", answers[10]);
    assert!(
        answers[11].contains("takes no parameter 'rows'"),
        "{}",
        answers[11]
    );
    // A game's own options are its own: tictactoe has no net.
    assert!(
        answers[12].contains("unknown option 'model' for tictactoe"),
        "{}",
        answers[12]
    );
    assert!(
        answers[13].starts_with("? unknown option 'model'"),
        "{}",
        answers[13]
    );
    assert!(
        answers[14].contains("unknown option 'colour'"),
        "{}",
        answers[14]
    );
    assert!(
        answers[15].contains("threads is 0 (one a core) to 256, not 5000"),
        "{}",
        answers[15]
    );
    assert!(
        answers[16].contains("unknown option 'threshold' for tictactoe"),
        "{}",
        answers[16]
    );
    assert!(
        answers[17].contains("'double' or 'single'"),
        "{}",
        answers[17]
    );
    assert!(
        answers[18].starts_with("= iterations 100000\ntime_ms 0\nthreads 1\n"),
        "{}",
        answers[18]
    );
    assert!(
        answers[18].ends_with("notation text\ngenmove_plies 0"),
        "{}",
        answers[18]
    );
    assert!(
        answers[19].starts_with("? unknown option"),
        "{}",
        answers[19]
    );
    // Dots and Boxes lists its own after the shared ones, and checks their values.
    let answers = session(
        "set_option threshold 2
get_option threshold
list_options
",
    );
    assert!(
        answers[0].contains("threshold must be above 0"),
        "{}",
        answers[0]
    );
    assert_eq!(answers[1], "= 1");
    assert!(
        answers[2].contains("genmove_plies 0\nmodel product\nthreshold 1\n"),
        "{}",
        answers[2]
    );
}

#[test]
fn a_model_is_loaded_checked_and_kept_only_for_games_it_fits() {
    let model = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../models/dab-5x5/model.safetensors"
    );
    let script = format!(
        "set_option model {model}\nget_option model\ngame dots_and_boxes rows=4 cols=4\n\
         game dots_and_boxes rows=5 cols=5\nset_option model none\ngame dots_and_boxes rows=4 cols=4\n\
         set_option model {model}\nset_option model /no/such/file.safetensors\n"
    );
    let answers = session(&script);
    assert_eq!(answers[0], "=");
    assert_eq!(answers[1], format!("= {model}"));
    assert!(
        answers[2].contains("not dots_and_boxes 4x4")
            && answers[2].contains("set_option model none first"),
        "{}",
        answers[2]
    );
    assert_eq!(answers[3], "= dots_and_boxes rows=5 cols=5");
    assert_eq!(answers[4], "=");
    assert_eq!(answers[5], "= dots_and_boxes rows=4 cols=4");
    assert!(
        answers[6].contains("trained for dots_and_boxes 5x5, not dots_and_boxes 4x4"),
        "{}",
        answers[6]
    );
    assert!(
        answers[7].contains("/no/such/file.safetensors"),
        "{}",
        answers[7]
    );
}

#[test]
fn the_dots_and_boxes_knowledge_plays_proven_and_safe_moves_and_only_there() {
    use crate::games::dots_and_boxes::analysis::safe_edges;
    use crate::games::dots_and_boxes::endgame::EndgameSolver;
    use crate::Game;

    // The 40-edge positions (20 free edges, nothing to take): one iteration alone plays
    // almost any edge; with the solver every move keeps the perfect-play margin.
    let genmove_id = |moves: &str, options: &str| -> crate::game::Action {
        let answers = session(&format!(
            "set_option notation id\n{options}{moves}genmove\n"
        ));
        let reply = answers.last().unwrap();
        reply.trim_start_matches("= ").parse().expect(reply)
    };
    let mut solver = EndgameSolver::new(5, 5, 20);
    let mut blunders_without = 0;
    for line in include_str!("../../../configs/state-s-40.txt").lines() {
        if line.starts_with('#') {
            continue;
        }
        let ids: Vec<&str> = line.split('#').next().unwrap().split_whitespace().collect();
        let mut state = DotsAndBoxes::new(5, 5).unwrap();
        for id in &ids {
            state.apply(id.parse().unwrap());
        }
        let moves: String = ids.iter().map(|id| format!("play {id}\n")).collect();
        let best = solver.final_margin(&state);
        let mut margin_after = |action| {
            let mut after = state;
            after.apply(action);
            let m = solver.final_margin(&after);
            if after.to_move() == state.to_move() {
                m
            } else {
                -m
            }
        };
        let with = genmove_id(
            &moves,
            "set_option iterations 1\nset_option solver_edges 20\n",
        );
        assert_eq!(margin_after(with), best, "{line}: {with}");
        let without = genmove_id(&moves, "set_option engine paper\nset_option iterations 1\n");
        blunders_without += usize::from(margin_after(without) != best);
    }
    assert!(blunders_without > 10, "{blunders_without}");

    // Safe first: while safe edges remain, only they are played, whatever the seed. (The
    // first moves make edges of low ids unsafe, which a short search reaches first.)
    let moves = "play v0,0\nplay v0,1\nplay v1,0\nplay v1,1\nplay v0,2\nplay v0,3\n";
    let open = DotsAndBoxes::from_move_text(5, 5, "v0,0 v0,1 v1,0 v1,1 v0,2 v0,3").unwrap();
    let safe = safe_edges(open.geometry(), open.edges());
    let mut unsafe_without = 0;
    for seed in 1..=12 {
        let options =
            format!("set_option engine paper\nset_option iterations 30\nset_option seed {seed}\n");
        let with = genmove_id(moves, &format!("{options}set_option safe_first 1\n"));
        assert_eq!(safe >> with & 1, 1, "seed {seed}: {with} is not safe");
        let without = genmove_id(moves, &options);
        unsafe_without += usize::from(safe >> without & 1 == 0);
    }
    assert!(unsafe_without > 0);

    // The knowledge is on by default (the product's engine) and other games have none: a game
    // change is never refused for it, and other games know no such option.
    let answers = session(
        "set_option solver_edges 30\ngame tictactoe\nset_option solver_edges 0\n\
         game tictactoe\nset_option safe_first 1\nset_option solver_edges 5\n\
         set_option safe_first 0\nset_option safe_first yes\nset_option rollout chains\n\
         set_option engine paper\nget_option engine\n",
    );
    assert_eq!(answers[0], "=");
    assert_eq!(answers[1], "= tictactoe");
    assert_eq!(answers[3], "= tictactoe");
    assert!(
        answers[2].contains("unknown option 'solver_edges' for tictactoe"),
        "{}",
        answers[2]
    );
    assert!(
        answers[4].contains("unknown option 'safe_first' for tictactoe"),
        "{}",
        answers[4]
    );
    assert!(
        answers[5].contains("unknown option 'solver_edges' for tictactoe"),
        "{}",
        answers[5]
    );
    assert!(answers[6].contains("unknown option"), "{}", answers[6]);
    assert!(answers[7].contains("unknown option"), "{}", answers[7]);
    assert!(answers[8].contains("unknown option 'rollout' for tictactoe"));
    assert!(
        answers[9].contains("unknown option 'engine'"),
        "{}",
        answers[9]
    );
    assert!(
        answers[10].contains("unknown option 'engine'"),
        "{}",
        answers[10]
    );
    // Set on Dots and Boxes, the knowledge outlives a game of another kind.
    let answers = session(
        "set_option safe_first 1
set_option safe_first yes
game tictactoe
         game dots_and_boxes
get_option safe_first
",
    );
    assert_eq!(answers[0], "=");
    assert!(
        answers[1].contains("safe_first is 0 or 1"),
        "{}",
        answers[1]
    );
    assert_eq!(answers[4], "= 1");
}

/// A session that sends only `genmove` gets the product's engine; `engine paper` gives the
/// paper's plain MCTS and `engine best` (or the old `product`) brings the product back; bad values are refused by
/// name and change nothing.
#[test]
fn the_dots_and_boxes_defaults_are_the_product_and_the_paper_is_one_option_away() {
    let answers = session(
        "get_option engine\nget_option solver_edges\nget_option safe_first\n\
         get_option rollout\nget_option tree\nset_option engine paper\nget_option rollout\n\
         get_option tree\nget_option solver_edges\nset_option tree safe\n\
         set_option rollout chains\nget_option tree\nget_option engine\n\
         set_option engine product\nget_option engine\nset_option engine worst\n\
         set_option rollout smart\nset_option tree some\nget_option engine\n",
    );
    let want_ok = [
        "= best",
        "= 34",
        "= 0",
        "= sacrifices",
        "= canonical",
        "=",
        "= random",
        "= all",
        "= 0",
    ];
    assert_eq!(answers[..9], want_ok);
    assert!(
        answers[9].contains("tree=safe and endgame_nodes need rollout=chains"),
        "{}",
        answers[9]
    );
    assert_eq!(answers[10], "=");
    assert_eq!(answers[11], "= safe");
    assert_eq!(answers[12], "= custom");
    assert_eq!(answers[13], "=");
    assert_eq!(answers[14], "= best");
    assert!(
        answers[15].contains("engine is 'best' or 'paper'"),
        "{}",
        answers[15]
    );
    assert!(
        answers[16].contains("rollout is random, chains or sacrifices"),
        "{}",
        answers[16]
    );
    assert!(
        answers[17].contains("tree is all, safe or canonical"),
        "{}",
        answers[17]
    );
    assert_eq!(answers[18], "= best");
}

/// The product's net is the default model, as a prior of weight 1; the paper's engine drops
/// it; a prior needs chain rollouts; bad priors are refused by name and change nothing.
#[test]
fn the_product_net_is_the_default_model_and_its_prior_needs_chain_rollouts() {
    let answers = session(
        "get_option model
get_option prior
set_option engine paper
get_option model
         get_option prior
set_option prior 1
set_option engine product
get_option model
         get_option prior
set_option prior -1
set_option prior lots
get_option prior
         set_option prior 2.5
get_option engine
set_option rollout random
get_option prior
         set_option model none
set_option model product
get_option model
",
    );
    let want = [
        "= product",
        "= 1",
        "=",
        "= none",
        "= 0",
        "? prior needs chain rollouts: set_option rollout sacrifices (or chains) first",
        "=",
        "= product",
        "= 1",
        "? prior must be a non-negative number, got -1",
        "? prior must be a number, got 'lots'",
        "= 1",
        "=",
        "= custom",
        "=",
        "= 0",
        "=",
        "=",
        "= product",
    ];
    assert_eq!(answers, want);
}

/// `model product` guides 5x5 boards with the product's net (read from the binary's copy when
/// the working directory has no `models/`, as here: tests run in `engine/`), nothing on other
/// sizes or with the paper's random rollouts; `model none` and the paper's engine guide nothing.
#[test]
fn the_product_model_guides_the_boards_it_was_made_for() {
    use crate::games::dots_and_boxes::options::DotsOptions;
    let five = DotsAndBoxes::new(5, 5).unwrap();
    let four = DotsAndBoxes::new(4, 4).unwrap();
    let mut settings = DotsOptions::default();
    let net = settings
        .net(&five)
        .unwrap()
        .expect("the product net on 5x5");
    assert!(format!("{net:?}").contains("86-100-3"), "{net:?}");
    assert!(settings.net(&four).unwrap().is_none());
    settings.set("rollout", "random", &five).unwrap();
    assert!(settings.net(&five).unwrap().is_none());
    settings.set("engine", "product", &five).unwrap();
    settings.set("model", "none", &five).unwrap();
    assert!(settings.net(&five).unwrap().is_none());
    settings.set("engine", "paper", &five).unwrap();
    assert!(settings.net(&five).unwrap().is_none());
}

#[test]
fn garbage_gets_error_answers_and_the_session_goes_on() {
    let mut script = Vec::new();
    script.extend_from_slice(b"\xff\xfe\x00garbage\n");
    script.extend_from_slice(&vec![b'x'; MAX_LINE * 3]);
    script.extend_from_slice(
        b"\n99999999999999999999999 name\n12\nplay\nplay a b\nundo\n\
        known_command\nset_option\nPLAY h0,0\n3 name extra\nname\n",
    );
    let mut out = Vec::new();
    serve(&mut script.as_slice(), &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    let answers: Vec<&str> = text.split_terminator("\n\n").collect();
    assert_eq!(answers.len(), 12, "{text}");
    assert!(answers[..11].iter().all(|a| a.starts_with('?')), "{text}");
    assert!(answers[1].contains("longer than"), "{}", answers[1]);
    assert!(answers[2].contains("too large"), "{}", answers[2]);
    assert_eq!(answers[3], "?12 no command after the id");
    assert!(
        answers[10].starts_with("?3 name takes no arguments"),
        "{}",
        answers[10]
    );
    assert_eq!(answers[11], "= engine");
}

#[test]
fn replies_never_hold_an_empty_line_inside() {
    let r = Reply {
        id: Some(4),
        ok: true,
        text: "\nline one\n\nline three\r".into(),
    };
    assert_eq!(r.render(), "=4\nline one\n \nline three\n\n");
}

mod fuzz {
    //! Random bytes and random command sequences: every non-empty line gets exactly one
    //! answer, the session never panics and stays usable.
    use super::*;
    use proptest::prelude::*;

    fn word() -> impl Strategy<Value = String> {
        prop_oneof![
            proptest::sample::select(COMMANDS.to_vec()).prop_map(str::to_string),
            proptest::sample::select(vec![
                "dots_and_boxes",
                "tictactoe",
                "rows=1",
                "cols=2",
                "rows=0",
                "cols=99",
                "h0,0",
                "v0,0",
                "0",
                "3",
                "59",
                "60",
                "a1",
                "b2",
                "1",
                "2",
                "iterations",
                "time_ms",
                "threads",
                "seed",
                "notation",
                "id",
                "text",
                "threshold",
                "0.5",
                "solver_edges",
                "safe_first",
                "model",
                "none",
                "XXO.O....",
                "1111000",
                "..",
                "-1",
                "18446744073709551616",
                "=",
                "#",
                "\t",
                // Amazons: the game, sizes, shapes, whole turns, halves, squares, sides.
                "amazons",
                "size=6",
                "size=8",
                "size=10",
                "size=7",
                "turn=whole",
                "turn=split",
                "b1-b3/b5",
                "b1-b3",
                "e1-e4/b1",
                "a2-a4",
                "b5",
                "f6",
                "z9",
                "d1-d7/g7",
                "genmove_plies",
                "set_position",
                "W",
                "B",
                "white",
                // Surakarta: the game, its rules, moves in each notation, boards, weights.
                "surakarta",
                "repetition=end",
                "repetition=forbid",
                "repetition=off",
                "repetition=sometimes",
                "limit=0",
                "limit=128",
                "a2a3",
                "a2-a3",
                "a2xa3",
                "b2b4",
                "a5a4",
                "a2a2",
                "OOOOOO/OOOOOO/....../....../XXXXXX/XXXXXX",
                "....../....../....../....../....../.X...O",
                "XXXXXXX/....../....../....../....../......",
                "weights",
                "models/amazons/tuned-phases.json",
                // Gomoku: the game, its rules, points in both notations, boards.
                "gomoku",
                "rule=renju",
                "rule=standard",
                "size=9",
                "size=23",
                "e5",
                "d5",
                "f5",
                "4,4",
                "9,9",
                "j10",
                "........./........./........./........./....X..../........./........./........./.........",
                "XXXX..../",
            ])
            .prop_map(str::to_string),
            "[ -~]{0,12}",
            any::<String>(),
        ]
    }

    fn command_line() -> impl Strategy<Value = String> {
        proptest::collection::vec(word(), 0..6).prop_map(|w| w.join(" "))
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

        #[test]
        fn any_bytes_get_answers_and_no_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
            let mut out = Vec::new();
            serve(&mut bytes.as_slice(), &mut out).unwrap();
            let text = String::from_utf8(out).unwrap();
            prop_assert!(text.is_empty() || text.ends_with("\n\n"));
        }

        #[test]
        fn amazons_sessions_get_one_answer_each(lines in proptest::collection::vec(command_line(), 1..30)) {
            check_session(&["game amazons size=6", "set_option iterations 50"], &lines)?;
        }

        #[test]
        fn surakarta_sessions_get_one_answer_each(lines in proptest::collection::vec(command_line(), 1..30)) {
            check_session(&["game surakarta", "set_option iterations 50", "set_option time_ms 5"], &lines)?;
        }

        #[test]
        fn gomoku_sessions_get_one_answer_each(lines in proptest::collection::vec(command_line(), 1..30)) {
            check_session(&["game gomoku size=9 rule=renju", "set_option iterations 50"], &lines)?;
        }

        #[test]
        fn command_sequences_get_one_answer_each(lines in proptest::collection::vec(command_line(), 1..40)) {
            check_session(&["set_option iterations 50"], &lines)?;
        }
    }

    /// Plays `lines` after `setup` (searches kept short): one framed answer each, and the
    /// session still answers at the end.
    fn check_session(setup: &[&str], lines: &[String]) -> Result<(), TestCaseError> {
        let mut session = Session::new();
        for line in setup {
            let _ = session.handle_line(line);
        }
        for line in lines {
            if line.contains("iterations") || line.contains("time_ms") || line.contains("threads") {
                continue;
            }
            match session.handle_line(line) {
                Answer::Nothing => prop_assert!(reader::preprocess(line).is_empty()),
                Answer::Reply(r) | Answer::Quit(r) => {
                    let rendered = r.render();
                    let mark = if r.ok { '=' } else { '?' };
                    prop_assert!(rendered.starts_with(mark), "{}", rendered);
                    prop_assert!(rendered.ends_with("\n\n"));
                    prop_assert_eq!(rendered.matches("\n\n").count(), 1);
                }
            }
        }
        // Still answering.
        prop_assert_eq!(
            session.handle_line("name"),
            Answer::Reply(Reply {
                id: None,
                ok: true,
                text: ENGINE_NAME.into()
            })
        );
        Ok(())
    }
}

#[test]
fn an_amazons_game_through_the_protocol() {
    let answers = session(
        "game amazons size=6\nto_move\nplay b1-b4/b5\nto_move\nplay b6-c5\nto_move\nplay b4\n\
         play c3\nget_position\nundo\nget_position\nplay a5-a4/a3\nplay c3\n\
         set_option iterations 300\ngenmove\nto_move\nset_option genmove_plies 1\ngenmove\n\
         genmove\nset_option genmove_plies 0\nundo\nundo\n\
         set_position .B..B./B....B/....../....../W....W/.W..W. 2\nto_move\n\
         set_position .B..B./B....B/....../.W..../W....W/....W. 1 b1-b3\nlegal_moves\n\
         set_position .B..B./B....B 1\n\
         set_position .B..B./B....B/....../.W..../W....W/....W. 1 a1-b3\n\
         game amazons size=9\ngame amazons turn=half\nresult\n",
    );
    let expected_start = [
        "= amazons size=6 turn=split",
        "= 1",
        "=",
        "= 2",
        "=",
        // The queen move alone leaves the same player to shoot.
        "= 2",
        "? move 'b4' is illegal here: the amazon on c5 cannot shoot to b4",
        "=",
        "= ....B./BxB..B/.W..../..x.../W....W/....W. 1",
        "=",
        "= ....B./BxB..B/.W..../....../W....W/....W. 2 b6-c5",
        "? cannot read move 'a5-a4/a3': expected the arrow's square such as g7",
        "=",
        "=",
    ];
    assert_eq!(answers[..14], expected_start);
    // A whole turn by default; one ply at a time when asked.
    let whole = &answers[14];
    assert!(
        whole.starts_with("= ") && whole.contains('-') && whole.contains('/'),
        "{whole}"
    );
    assert_eq!(answers[15], "= 2");
    let (queen, arrow) = (&answers[17], &answers[18]);
    assert!(queen.contains('-') && !queen.contains('/'), "{queen}");
    assert!(!arrow.contains('-') && arrow.len() >= 4, "{arrow}");
    assert_eq!(answers[19..24], ["=", "=", "=", "=", "= 2"]);
    let arrows: Vec<&str> = answers[25].trim_start_matches("= ").split(' ').collect();
    assert!(
        arrows.contains(&"b1") && arrows.contains(&"b4"),
        "{arrows:?}"
    );
    assert!(!arrows.contains(&"b6"), "{arrows:?}");
    assert!(answers[26].contains("36 squares"), "{}", answers[26]);
    assert!(
        answers[27].contains("cannot have come from a1"),
        "{}",
        answers[27]
    );
    assert!(
        answers[28].contains("size is 10 or 8 or 6, not 9"),
        "{}",
        answers[28]
    );
    assert!(
        answers[29].contains("turn is one of split, whole"),
        "{}",
        answers[29]
    );
    assert_eq!(answers[30], "= none");
}

/// `set_option weights FILE` loads a `tune` weights file for Amazons (its searches then use
/// those weights), refuses a file for another game or a damaged one, and a game cannot be
/// changed to one the weights do not fit while they are set.
#[test]
fn weights_option_loads_tuned_weights_for_amazons() {
    use crate::registry::tunable;
    use crate::tuning::WeightsFile;
    let dir = std::env::temp_dir().join(format!("protocol-weights-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let t = tunable("amazons", Some("w-segments")).unwrap();
    let good = dir.join("tuned.json");
    WeightsFile::new(t.as_ref(), &t.start())
        .save(&good)
        .unwrap();
    let bad = dir.join("bad.json");
    std::fs::write(
        &bad,
        "{\"game\": \"amazons\", \"set\": \"phases\", \"weights\": []}",
    )
    .unwrap();
    let script = format!(
        "game amazons size=6\nset_option weights {}\nget_option weights\n\
         set_option iterations 200\ngenmove\ngame gomoku\nset_option weights {}\n\
         set_option weights none\ngame gomoku\nset_option weights {}\ngame dots_and_boxes\n\
         set_option weights none\n",
        good.display(),
        bad.display(),
        good.display()
    );
    let answers = session(&script);
    assert_eq!(answers[1], "=");
    assert_eq!(answers[2], format!("= {}", good.display()));
    assert!(answers[4].starts_with("= "), "{}", answers[4]);
    assert!(
        answers[5].contains("set_option weights none first"),
        "{}",
        answers[5]
    );
    assert!(
        answers[6].contains("bad.json") && answers[6].contains("0 weights"),
        "{}",
        answers[6]
    );
    assert_eq!(answers[7], "=");
    assert!(answers[8].starts_with("= gomoku"), "{}", answers[8]);
    assert!(
        answers[9].contains("tuned.json") && answers[9].contains("no weight set 'w-segments'"),
        "{}",
        answers[9]
    );
    // Dots and Boxes has no weights: the game is not refused for them, and has no such option.
    assert!(answers[10].starts_with("= dots"), "{}", answers[10]);
    assert!(
        answers[11].contains("unknown option 'weights'"),
        "{}",
        answers[11]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `prove_edges`: the product's 40 by default, 0 in the paper's engine, back with the product;
/// refused for other games and when it is not a number.
#[test]
fn proofs_of_wins_are_an_option_of_the_product() {
    let answers = session(
        "get_option prove_edges\nset_option engine paper\nget_option prove_edges\n\
         set_option engine product\nget_option prove_edges\nset_option prove_edges 38\n\
         get_option engine\nset_option prove_edges many\ngame tictactoe\n\
         set_option prove_edges 3\nset_option prove_edges 0\n",
    );
    assert_eq!(
        answers[..7],
        ["= 40", "=", "= 0", "=", "= 40", "=", "= custom"]
    );
    assert!(
        answers[7].contains("prove_edges must be a number"),
        "{}",
        answers[7]
    );
    assert_eq!(answers[8], "= tictactoe");
    assert!(
        answers[9].contains("unknown option 'prove_edges' for tictactoe"),
        "{}",
        answers[9]
    );
    assert!(answers[10].contains("unknown option"), "{}", answers[10]);
}
