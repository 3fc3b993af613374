//! External engines as players: our engine against itself through the protocol, each side in
//! its own process, and every way an external engine can fail a game.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use engine::agents::{
    parse_spec, play_game, Agent, AgentSpec, ExternalAgent, ExternalConfig, MctsAgent,
};
use engine::games::dots_and_boxes::spec::BuildDots;
use engine::games::{DotsAndBoxes, GameSpec};
use engine::mcts::{Budget, SearchConfig};
use engine::{Game, Outcome, Player};

fn spec() -> GameSpec {
    engine::games::DotsAndBoxes::spec_for(3, 3).unwrap()
}

fn our_engine(name: &str, seed: u64) -> ExternalAgent {
    let mut config = ExternalConfig::new(format!("{} protocol", env!("CARGO_BIN_EXE_engine")));
    config.name = Some(name.into());
    config.options = vec![
        ("iterations".into(), "3000".into()),
        ("seed".into(), seed.to_string()),
    ];
    ExternalAgent::new(config, spec())
}

fn alive(pid: u32) -> bool {
    PathBuf::from(format!("/proc/{pid}")).exists()
}

#[test]
fn our_engine_plays_itself_through_the_protocol_in_two_processes() {
    let board = DotsAndBoxes::new(3, 3).unwrap();
    let mut p1 = our_engine("one", 1);
    let mut p2 = our_engine("two", 2);
    let mut pids = Vec::new();
    for opening in [vec![], vec![0, 12, 5]] {
        let report = play_game(&board, &opening, [&mut p1, &mut p2]).unwrap();
        assert_eq!(report.forfeit, None, "{report:?}");
        assert_eq!(report.moves.len(), 24);
        assert_eq!(report.start_moves, opening.len());
        assert_eq!(&report.moves[..opening.len()], &opening[..]);
        // The record replays to the reported result.
        let mut s = board;
        for &m in &report.moves {
            assert!(s.is_legal(m));
            s.apply(m);
        }
        assert_eq!(s.outcome(), Some(report.outcome));
        assert_eq!(s.scores(), report.scores);
        assert!(report.moves_made[0] > 0 && report.moves_made[1] > 0);
        pids.extend([p1.pid().unwrap(), p2.pid().unwrap()]);
    }
    assert_eq!(Agent::<DotsAndBoxes>::name(&p1), "one");
    // One process per side for both games, gone once the players are dropped.
    assert_eq!(pids[0], pids[2]);
    assert_ne!(pids[0], pids[1]);
    drop(p1);
    drop(p2);
    assert!(pids.iter().all(|&p| !alive(p)), "{pids:?}");
}

/// A fake engine: a shell script answering every command with '= ok' except genmove.
fn fake(genmove: &str, name: &str) -> ExternalAgent {
    let dir = std::env::temp_dir().join(format!("external-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.sh"));
    let script = format!(
        "while read -r line; do\n  case \"$line\" in\n    genmove*) {genmove} ;;\n    *) printf '= ok\\n\\n' ;;\n  esac\ndone\n"
    );
    std::fs::write(&path, script).unwrap();
    let mut config = ExternalConfig::new(format!("sh {}", path.display()));
    config.move_timeout = Duration::from_millis(400);
    ExternalAgent::new(config, spec())
}

fn quick_mcts() -> MctsAgent<DotsAndBoxes> {
    MctsAgent::plain(
        "mcts",
        SearchConfig {
            budget: Budget::iterations(500),
            ..SearchConfig::default()
        },
    )
}

/// Plays the fake as P1 and returns the forfeit reason, checking the result and that its
/// process is gone.
fn forfeit_of(fake: &mut ExternalAgent) -> String {
    let board = DotsAndBoxes::new(3, 3).unwrap();
    let mut other = quick_mcts();
    let report = play_game(&board, &[], [fake, &mut other]).unwrap();
    let f = report.forfeit.expect("the fake engine loses");
    assert_eq!(f.player, Player::P1);
    assert_eq!(report.outcome, Outcome::P2Win);
    assert_eq!(fake.pid(), None, "killed after failing");
    f.reason
}

#[test]
fn failures_lose_the_game_with_the_reason_and_leave_no_process() {
    let crash = forfeit_of(&mut fake("exit 3", "crash"));
    assert!(crash.contains("exited") && crash.contains('3'), "{crash}");
    let malformed = forfeit_of(&mut fake("printf 'hello\\n\\n'", "malformed"));
    assert!(
        malformed.contains("malformed answer to 'genmove': 'hello'"),
        "{malformed}"
    );
    let off_board = forfeit_of(&mut fake("printf '= 99\\n\\n'", "offboard"));
    assert!(
        off_board.contains("bad move") && off_board.contains("not on this board"),
        "{off_board}"
    );
    let garbage = forfeit_of(&mut fake("printf '= zz\\n\\n'", "garbage"));
    assert!(garbage.contains("cannot read move 'zz'"), "{garbage}");
    let refused = forfeit_of(&mut fake("printf '? no idea\\n\\n'", "refuses"));
    assert!(refused.contains("refused 'genmove': no idea"), "{refused}");
}

#[test]
fn an_illegal_move_loses() {
    // Always edge 0: legal the first time, drawn already the second.
    let mut fake = fake("printf '= 0\\n\\n'", "repeats");
    let reason = forfeit_of(&mut fake);
    assert!(reason.contains("move '0' is illegal here"), "{reason}");
}

#[test]
fn a_silent_engine_loses_on_time_and_is_killed_with_its_children() {
    let mut slow = fake("sleep 30", "slow");
    let board = DotsAndBoxes::new(3, 3).unwrap();
    for _ in 0..2 {
        // Two games: the second restarts the killed engine, which times out again.
        let mut other = quick_mcts();
        let started = Instant::now();
        let report = play_game(&board, &[], [&mut slow, &mut other]).unwrap();
        let reason = report.forfeit.unwrap().reason;
        assert!(reason.starts_with("time-out"), "{reason}");
        assert!(started.elapsed() < Duration::from_secs(10));
        assert_eq!(slow.pid(), None);
    }
    // No `sleep 30` of ours is left: it was in the killed process group. (Read from /proc,
    // so the check needs no tool that a fresh machine may lack.)
    let leftover: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.trim() == "sleep 30")
        .collect();
    assert!(leftover.is_empty(), "left behind: {leftover:?}");
}

#[test]
fn a_missing_program_loses_before_the_first_move() {
    let board = DotsAndBoxes::new(3, 3).unwrap();
    let mut missing = ExternalAgent::new(ExternalConfig::new("/no/such/engine protocol"), spec());
    let mut other = quick_mcts();
    let report = play_game(&board, &[], [&mut other, &mut missing]).unwrap();
    let f = report.forfeit.unwrap();
    assert_eq!(f.player, Player::P2);
    assert!(
        f.reason.contains("could not start the game"),
        "{}",
        f.reason
    );
    assert_eq!(report.moves.len(), 0);
}

#[test]
fn specs_build_players_that_play() {
    let board = DotsAndBoxes::new(3, 3).unwrap();
    let cmd = format!(
        "external:cmd={} protocol,opt.iterations=500,time_ms=2000",
        env!("CARGO_BIN_EXE_engine")
    );
    let mut a = parse_spec(&cmd).unwrap().build_dots(&board).unwrap();
    let mut b = parse_spec("mcts:iterations=500")
        .unwrap()
        .build_dots(&board)
        .unwrap();
    let report = play_game(&board, &[], [a.as_mut(), b.as_mut()]).unwrap();
    assert_eq!(report.forfeit, None);
    assert!(matches!(parse_spec("nn").unwrap(), AgentSpec::Game { .. }));
    // The shipped net is for 5x5.
    let nn = format!(
        "nn:model={}/../models/dab-5x5/model.safetensors",
        env!("CARGO_MANIFEST_DIR")
    );
    let e = parse_spec(&nn).unwrap().build_dots(&board).err().unwrap();
    assert!(e.contains("5x5") && e.contains("3x3"), "{e}");
}
