//! The Gomocup brain as a manager runs it: the `pbrain-engine` process on pipes, a whole game
//! against a scripted opponent under a short `timeout_turn`, every answer a legal move that
//! comes back within the turn's limit (a brain that loses on time is a broken brain).

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The turn limit the manager sets, in milliseconds.
const TIMEOUT_TURN: u64 = 1000;

#[test]
fn the_brain_answers_every_turn_in_time_with_a_legal_move() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pbrain-engine"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("pbrain-engine starts");
    let mut to_brain = child.stdin.take().unwrap();
    let mut from_brain = BufReader::new(child.stdout.take().unwrap());
    let mut send = |line: &str| {
        // CRLF, as Piskvork sends it.
        write!(to_brain, "{line}\r\n").unwrap();
        to_brain.flush().unwrap();
    };
    // The next answer that is not a MESSAGE or DEBUG line, and how long it took.
    let mut answer = |since: Instant| loop {
        let mut line = String::new();
        assert!(
            from_brain.read_line(&mut line).unwrap() > 0,
            "the brain hung up"
        );
        let line = line.trim_end().to_string();
        if !(line.starts_with("MESSAGE") || line.starts_with("DEBUG")) {
            return (line, since.elapsed());
        }
    };
    send(&format!("INFO timeout_turn {TIMEOUT_TURN}"));
    send("INFO timeout_match 180000");
    send("INFO time_left 180000");
    send("START 15");
    assert_eq!(answer(Instant::now()).0, "OK");

    let mut stones = HashSet::new();
    let parse = |text: &str| -> (u32, u32) {
        let (x, y) = text
            .split_once(',')
            .unwrap_or_else(|| panic!("not a move: {text}"));
        let number = |t: &str| t.parse().unwrap_or_else(|_| panic!("not a move: {text}"));
        (number(x), number(y))
    };
    let limit = Duration::from_millis(TIMEOUT_TURN);
    // The scripted opponent: the first empty point scanning from the top-left corner, far from
    // the brain's play in the centre, so the game lasts.
    let mut opponent = (0..15u32).flat_map(|y| (0..15u32).map(move |x| (x, y)));
    let started = Instant::now();
    send("BEGIN");
    let (mut reply, mut took) = answer(started);
    let mut own = HashSet::new();
    for turn in 0..12 {
        assert!(
            took < limit,
            "turn {turn}: {took:?} for a {TIMEOUT_TURN} ms turn"
        );
        let (x, y) = parse(&reply);
        assert!(x < 15 && y < 15, "off the board: {reply}");
        assert!(stones.insert((x, y)), "turn {turn}: {reply} is taken");
        own.insert((x as i32, y as i32));
        if has_five(&own) {
            // The brain won (the scripted opponent never blocks): enough turns were timed.
            assert!(turn >= 4, "a five in {turn} turns");
            break;
        }
        let mine = opponent.find(|p| !stones.contains(p)).unwrap();
        stones.insert(mine);
        let sent = Instant::now();
        send(&format!("TURN {},{}", mine.0, mine.1));
        (reply, took) = answer(sent);
    }
    send("END");
    let status = child.wait().unwrap();
    assert!(status.success(), "the brain ends cleanly on END: {status}");
}

/// Whether five of these points are in a row.
fn has_five(points: &HashSet<(i32, i32)>) -> bool {
    points.iter().any(|&(x, y)| {
        [(1, 0), (0, 1), (1, 1), (1, -1)]
            .iter()
            .any(|&(dx, dy)| (1..5).all(|k| points.contains(&(x + k * dx, y + k * dy))))
    })
}
