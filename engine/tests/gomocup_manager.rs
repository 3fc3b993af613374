//! Gomocup brains as players (`gomocup:cmd=...`): our own brain against itself through the
//! protocol from Gomocup's opening format, and every way a brain can fail a game (a crash, a
//! taken point, `ERROR`, garbage, silence past its turn): each loses that game with the reason,
//! nothing hangs, and no process is left behind.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use engine::agents::{parse_spec, play_game, Agent};
use engine::arena::positions::read_positions;
use engine::games::gomoku::{Gomoku, Rule};
use engine::games::RegisteredGame;
use engine::{Game, Player};

fn board() -> Gomoku {
    Gomoku::new(15, Rule::Freestyle).unwrap()
}

fn player(spec: &str) -> Result<Box<dyn Agent<Gomoku>>, String> {
    Gomoku::build_player(&parse_spec(spec)?, &board())
}

/// Our brain on a short clock, with a second's tolerance so that a loaded machine does not
/// turn a test of the protocol into one of timing.
fn our_brain(turn_ms: u64, match_ms: u64) -> Box<dyn Agent<Gomoku>> {
    let cmd = env!("CARGO_BIN_EXE_pbrain-engine");
    player(&format!(
        "gomocup:cmd={cmd},turn_ms={turn_ms},match_ms={match_ms},tolerance_ms=1000"
    ))
    .unwrap()
}

/// A folder of its own for a test's files.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gomocup-manager-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A shell brain that answers ABOUT and START and does `on_move` when asked a move (BEGIN,
/// TURN or a BOARD's DONE); its pid goes to `pid_file`.
fn fake_brain(dir: &Path, name: &str, on_move: &str) -> String {
    let path = dir.join(format!("{name}.sh"));
    let pid_file = dir.join(format!("{name}.pid"));
    let script = format!(
        "#!/bin/sh\n\
         echo $$ > {pid}\n\
         while IFS= read -r line; do\n\
           line=$(printf '%s' \"$line\" | tr -d '\\r')\n\
           case \"$line\" in\n\
             ABOUT) echo 'name=\"{name}\", version=\"1\"' ;;\n\
             START*) echo OK ;;\n\
             BEGIN|TURN*|DONE) {on_move} ;;\n\
             END) exit 0 ;;\n\
           esac\n\
         done\n",
        pid = pid_file.display()
    );
    std::fs::write(&path, script).unwrap();
    format!("sh {}", path.display())
}

fn alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

#[test]
fn our_brain_plays_itself_from_gomocup_openings_both_ways() {
    let dir = scratch("openings");
    let file = dir.join("openings.txt");
    std::fs::write(&file, "0,0, 1,1, -1,1\n# a comment line\n0,0, 1,0,\n").unwrap();
    let openings = read_positions(&file, &board()).unwrap();
    assert_eq!(openings.len(), 2);
    let named: Vec<String> = {
        let mut g = board();
        openings[0]
            .moves
            .iter()
            .map(|&a| {
                let name = g.format_action(a);
                g.apply(a);
                name
            })
            .collect()
    };
    // Offsets from the centre h8: x to the right, y downwards.
    assert_eq!(named, ["h8", "i7", "g7"]);

    let (mut a, mut b) = (our_brain(150, 6000), our_brain(150, 6000));
    for opening in &openings {
        // A BOARD block opens the game for the side to move, TURN follows.
        for swapped in [false, true] {
            let (p1, p2) = if swapped {
                (&mut *b, &mut *a)
            } else {
                (&mut *a, &mut *b)
            };
            let report = play_game(&board(), &opening.moves, [p1, p2]).unwrap();
            assert_eq!(report.forfeit, None, "{report:?}");
            let mut g = board();
            for &m in &report.moves {
                assert!(g.is_legal(m));
                g.apply(m);
            }
            assert!(g.is_terminal());
            assert_eq!(report.notes.len(), report.moves.len() - opening.moves.len());
            // Each move's note says its time and, from our brain, what the search did.
            let searched = report
                .notes
                .iter()
                .flatten()
                .filter(|n| n.contains("depth"));
            assert!(searched.count() > 0, "{:?}", report.notes);
            assert_eq!(report.move_ms.len(), report.notes.len());
        }
    }
    assert!(
        a.name().starts_with("engine"),
        "named by ABOUT: {}",
        a.name()
    );
}

#[test]
fn each_failure_loses_its_game_with_the_reason_and_leaves_no_process() {
    let dir = scratch("failures");
    // The opening's first stone is on 7,7, which the first brain answers.
    let opening = read_positions(
        &{
            let f = dir.join("o.txt");
            std::fs::write(&f, "0,0, 1,1\n").unwrap();
            f
        },
        &board(),
    )
    .unwrap()
    .remove(0)
    .moves;
    let cases = [
        ("taken", "echo 7,7", "played 7,7: h8 is taken"),
        (
            "error",
            "echo 'ERROR out of ideas'",
            "answered 'ERROR out of ideas'",
        ),
        ("crash", "exit 3", "exited"),
        (
            "garbage",
            "echo 'what is this'",
            "in time (its last line: 'what is this')",
        ),
        ("slow", "sleep 30; echo 0,0", "no answer to 'BOARD' in time"),
        ("offboard", "echo 15,3", "played 15,3, off the 15x15 board"),
    ];
    for (name, on_move, reason) in cases {
        let cmd = fake_brain(&dir, name, on_move);
        let mut fake = player(&format!("gomocup:cmd={cmd},turn_ms=300,match_ms=5000")).unwrap();
        assert_eq!(fake.name(), name);
        let pid: u32 = std::fs::read_to_string(dir.join(format!("{name}.pid")))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        let mut ours = our_brain(100, 5000);
        let started = Instant::now();
        // Three stones: white (P2) is to move, the fake.
        let report = play_game(
            &board(),
            &[opening.clone(), vec![opening[0] + 3]].concat(),
            [ours.as_mut(), fake.as_mut()],
        )
        .unwrap();
        let forfeit = report.forfeit.expect("the fake brain loses");
        assert_eq!(forfeit.player, Player::P2, "{name}");
        assert!(
            forfeit.reason.contains(reason),
            "{name}: {}",
            forfeit.reason
        );
        assert!(started.elapsed() < Duration::from_secs(10), "{name} hung");
        // A failed brain is killed at once; the next game starts it afresh.
        std::thread::sleep(Duration::from_millis(100));
        assert!(!alive(pid), "{name}: pid {pid} still runs");
    }
}

#[test]
fn a_brain_past_its_turn_or_its_game_time_loses_on_time() {
    let dir = scratch("late");
    let mut ours = our_brain(100, 5000);
    // Answers after 400 ms, with a 300 ms turn and 50 ms of tolerance.
    let cmd = fake_brain(&dir, "late", "sleep 0.4; echo 0,0");
    let spec = format!("gomocup:cmd={cmd},turn_ms=300,tolerance_ms=50,match_ms=0");
    let mut late = player(&spec).unwrap();
    let report = play_game(&board(), &[], [late.as_mut(), ours.as_mut()]).unwrap();
    let reason = report.forfeit.expect("late loses").reason;
    assert!(
        reason.starts_with("lost on time (300 ms, its turn)"),
        "{reason}"
    );
    // With a tolerance that covers it, the move counts.
    let spec = format!("gomocup:cmd={cmd},turn_ms=300,tolerance_ms=400,match_ms=0");
    let mut late = player(&spec).unwrap();
    late.new_game(&board(), &[]).unwrap();
    let choice = late.choose(&board(), &[]).unwrap();
    assert_eq!(board().format_action(choice.action), "a15");
    // No turn limit, a game of 1 s, 300 ms a move along the top row, two points apart (no
    // threat for our brain to block there, which would take the fake's next point): the
    // fourth move is late.
    let cmd = fake_brain(&dir, "slow", "sleep 0.3; n=$((n+1)); echo $((3 * n)),0");
    let spec = format!("gomocup:cmd={cmd},turn_ms=0,match_ms=1000");
    let mut slow = player(&spec).unwrap();
    let report = play_game(&board(), &[], [ours.as_mut(), slow.as_mut()]).unwrap();
    let reason = report.forfeit.expect("slow loses").reason;
    assert!(
        reason.starts_with("lost on time") && reason.contains("the game's time left"),
        "{reason}"
    );
    assert!(
        (2..=3).contains(&report.moves_made[1]),
        "{:?}",
        report.moves_made
    );
}

#[test]
fn a_brain_that_cannot_start_is_an_error_before_any_game() {
    let err = player("gomocup:cmd=/nonexistent/pbrain-nothing")
        .err()
        .unwrap();
    assert!(err.contains("the brain did not start"), "{err}");
    let err = player("gomocup:turn_ms=100").err().unwrap();
    assert!(err.contains("needs cmd="), "{err}");
    let err = player("gomocup:cmd=x,turns=3").err().unwrap();
    assert!(err.contains("unknown key 'turns'"), "{err}");
}

/// A brain silent at `ABOUT` is an error, and one silent at `START` loses the game, once
/// `start_ms` has passed: the wait is the key's, not a fixed 30 s.
#[test]
fn a_silent_brain_is_given_up_after_start_ms() {
    let dir = scratch("silent");
    let mute = dir.join("mute.sh");
    std::fs::write(&mute, "#!/bin/sh\nexec sleep 60\n").unwrap();
    let started = Instant::now();
    let err = player(&format!("gomocup:cmd=sh {},start_ms=400", mute.display()))
        .err()
        .unwrap();
    assert!(err.contains("ABOUT"), "{err}");
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "waited {:?}",
        started.elapsed()
    );
    // Answers ABOUT, then never START.
    let no_start = dir.join("no-start.sh");
    std::fs::write(
        &no_start,
        "#!/bin/sh\nwhile IFS= read -r line; do\n  case \"$line\" in\n    ABOUT*) echo 'name=\"mute\"' ;;\n  esac\ndone\n",
    )
    .unwrap();
    let mut brain = player(&format!(
        "gomocup:cmd=sh {},start_ms=400",
        no_start.display()
    ))
    .unwrap();
    let started = Instant::now();
    let err = brain.new_game(&board(), &[]).unwrap_err();
    assert!(err.reason.contains("START"), "{}", err.reason);
    assert!(started.elapsed() < Duration::from_secs(20));
    for bad in ["start_ms=0", "start_ms=-1", "turn_ms=18446744073709551615"] {
        let err = player(&format!("gomocup:cmd=x,{bad}")).err().unwrap();
        assert!(err.contains("is a whole number from"), "{bad}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn openings_off_the_board_or_already_won_are_refused_naming_the_line() {
    let dir = scratch("bad-openings");
    for (text, says) in [
        (
            "0,0, 1,1\n0,0, 8,0\n",
            "o.txt:2: stone 2 (offset 8,0, point 15,7) is off the 15x15 board",
        ),
        (
            "0,0, 1,1\n0,0, 0,0\n",
            "o.txt:2: stone 2 (offset 0,0, point 7,7): h8 is taken",
        ),
        (
            "0,0, 0,1, 1,0, 1,1, 2,0, 2,1, 3,0, 3,1, 4,0\n",
            "o.txt:1: the position is already over",
        ),
        (
            "0,0, 0,1, 1,0, 1,1, 2,0, 2,1, 3,0, 3,1, 4,0, 4,1\n",
            "comes after a five",
        ),
    ] {
        let file = dir.join("o.txt");
        std::fs::write(&file, text).unwrap();
        let err = read_positions(&file, &board()).unwrap_err();
        assert!(err.contains(says), "{text:?}: {err}");
    }
    // Gomocup's absolute points, a word a move, stay moves in the game's notation.
    let file = dir.join("o.txt");
    std::fs::write(&file, "7,7 8,8\n").unwrap();
    let moves = read_positions(&file, &board()).unwrap().remove(0).moves;
    assert_eq!(moves.len(), 2);
}
