//! Botzone's simple interaction for 8x8 Amazons (<https://wiki.botzone.org.cn>), so the engine
//! can be uploaded there as it is.
//!
//! Input: the first line is the turn number `n`, then the `2n - 1` lines of the game so far:
//! the judge's requests and our earlier responses, alternately, each a turn
//! `x0 y0 x1 y1 x2 y2` (from, to, arrow; `x` the column 0-7, `y` the row 0-7, Botzone's row 0
//! being the first player's home row, which is rank 1 here). The first request `-1 -1 -1 -1 -1
//! -1` means we move first. Output: one line, our turn. In keep-running mode
//! (`>>>BOTZONE_REQUEST_KEEP_RUNNING<<<` printed after the answer) the program stays alive and
//! later inputs carry only the new request (a full input is read too).
//!
//! An input that is not a legal game is reported on stderr and still answered with a legal turn
//! of the position as far as it could be replayed.

use std::io::{self, BufRead, Write};
use std::time::Duration;

use crate::agents::Agent;
use crate::game::{Action, Game};
use crate::games::amazons::{Amazons, AmazonsMcts, AmazonsMctsConfig, Turn, TurnShape};
use crate::mcts::{Budget, SearchConfig};

/// The keep-running marker.
pub const KEEP_RUNNING: &str = ">>>BOTZONE_REQUEST_KEEP_RUNNING<<<";

/// How the bot plays.
#[derive(Clone, Debug)]
pub struct BotzoneConfig {
    /// Thinking time a turn, and on the first turn (Botzone allows 1 s and 2 s).
    pub time: Duration,
    pub first_time: Duration,
    pub threads: usize,
    pub seed: u64,
    pub keep_running: bool,
}

/// Reads a Botzone turn `x0 y0 x1 y1 x2 y2`; `None` for the `-1` start marker.
fn read_turn(game: &Amazons, line: &str) -> Result<Option<Turn>, String> {
    let numbers: Vec<i64> = line
        .split_whitespace()
        .map(|w| w.parse::<i64>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("'{line}' is not six whole numbers"))?;
    if numbers.len() != 6 {
        return Err(format!("'{line}' has {} numbers, not six", numbers.len()));
    }
    if numbers.iter().all(|&v| v == -1) {
        return Ok(None);
    }
    let n = game.size() as i64;
    if numbers.iter().any(|&v| !(0..n).contains(&v)) {
        return Err(format!("'{line}' has a coordinate off the {n}x{n} board"));
    }
    let geo = game.geometry();
    let bit = |i: usize| geo.bit(numbers[i] as usize, numbers[i + 1] as usize);
    Ok(Some(Turn {
        from: bit(0),
        to: bit(2),
        arrow: bit(4),
    }))
}

/// A turn in Botzone's form.
fn write_turn(game: &Amazons, turn: Turn) -> String {
    let geo = game.geometry();
    let (x0, y0) = geo.coords(turn.from);
    let (x1, y1) = geo.coords(turn.to);
    let (x2, y2) = geo.coords(turn.arrow);
    format!("{x0} {y0} {x1} {y1} {x2} {y2}")
}

/// The game so far from the lines of one input (requests and responses in order); the
/// position as far as it replayed, and the problem that stopped it.
pub fn replay(lines: &[String]) -> (Amazons, Option<String>) {
    let (game, _, problem) = replay_moves(lines);
    (game, problem)
}

/// [`replay`], with the whole turns played (ids of the 8x8 whole-turn game).
pub fn replay_moves(lines: &[String]) -> (Amazons, Vec<Action>, Option<String>) {
    let mut game = Amazons::new(8, TurnShape::Whole).expect("8x8 is a size");
    let mut moves = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        let problem = |why: String| Some(format!("line {}: {why}", i + 2));
        match read_turn(&game, line) {
            Ok(None) if i == 0 => {}
            Ok(None) => {
                return (game, moves, problem("-1 only starts a game".into()));
            }
            Ok(Some(turn)) => {
                if !game.is_legal_turn(turn) {
                    let why = if game.is_terminal() {
                        "the game is already over".to_string()
                    } else {
                        game.illegal_reason(game.whole_id(turn))
                    };
                    return (game, moves, problem(format!("'{line}' is illegal: {why}")));
                }
                moves.push(game.whole_id(turn));
                game.play_turn(turn);
            }
            Err(e) => return (game, moves, problem(e)),
        }
    }
    (game, moves, None)
}

/// Plays one answer for `game`, reached by `moves`: the search's turn (continuing the bot's
/// last tree when `game` follows its last search), or `-1 ...` when there is none.
fn answer(bot: &mut AmazonsMcts, game: &Amazons, moves: &[Action]) -> String {
    if game.is_terminal() {
        return "-1 -1 -1 -1 -1 -1".into();
    }
    match bot.search_next_turn(game, moves) {
        Ok((turn, _)) => write_turn(game, turn),
        Err(e) => {
            eprintln!("botzone: search failed ({e}); answering the first legal turn");
            let mut turns = Vec::new();
            game.whole_turns(&mut turns);
            turns
                .first()
                .map_or("-1 -1 -1 -1 -1 -1".into(), |&t| write_turn(game, t))
        }
    }
}

/// Reads one line into `line` (cleared), bytes that are not UTF-8 replaced; 0 at the end of the
/// input.
fn read_line_lossy(input: &mut impl BufRead, line: &mut String) -> io::Result<usize> {
    let mut bytes = Vec::new();
    let n = input.read_until(b'\n', &mut bytes)?;
    line.clear();
    line.push_str(&String::from_utf8_lossy(&bytes));
    Ok(n)
}

/// The thinking time of a turn: the first turn's longer allowance only on turn 1, read from the
/// input's turn number (`None`: a bare request of keep-running mode, never the first). In
/// Botzone's plain mode every turn is a fresh process, so "the first answer of this process"
/// would be every turn.
fn turn_time(config: &BotzoneConfig, turn: Option<usize>) -> Duration {
    if turn == Some(1) {
        config.first_time
    } else {
        config.time
    }
}

/// Serves Botzone inputs from `input` until it ends (one input without keep-running).
pub fn serve(
    config: &BotzoneConfig,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> io::Result<()> {
    let search = |time: Duration| SearchConfig {
        budget: Budget::time(time),
        threads: config.threads.max(1),
        seed: config.seed,
        ..SearchConfig::default()
    };
    let mut bot = AmazonsMcts::new("botzone", AmazonsMctsConfig::new(search(config.first_time)));
    bot.new_game(&Amazons::new(8, TurnShape::Whole).expect("8x8"), &[])
        .expect("a search player starts any game");
    let mut history: Vec<String> = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        if read_line_lossy(input, &mut line)? == 0 {
            return Ok(());
        }
        let head = line.trim();
        if head.is_empty() {
            continue;
        }
        // A full input starts with the turn number; in keep-running mode a bare request follows.
        let turn = head.parse::<usize>().ok();
        if let Some(n) = turn {
            history.clear();
            for _ in 0..n.saturating_mul(2).saturating_sub(1) {
                line.clear();
                if read_line_lossy(input, &mut line)? == 0 {
                    break;
                }
                history.push(line.trim().to_string());
            }
        } else {
            history.push(head.to_string());
        }
        let (game, moves, problem) = replay_moves(&history);
        if let Some(p) = problem {
            eprintln!("botzone: {p}; answering from the position before it");
        }
        // In keep-running mode the same bot goes on, so its tree carries over between turns.
        bot.set_budget(Budget::time(turn_time(config, turn)));
        let reply = answer(&mut bot, &game, &moves);
        writeln!(out, "{reply}")?;
        history.push(reply);
        if !config.keep_running {
            out.flush()?;
            return Ok(());
        }
        writeln!(out, "{KEEP_RUNNING}")?;
        out.flush()?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> BotzoneConfig {
        BotzoneConfig {
            time: Duration::from_millis(50),
            first_time: Duration::from_millis(50),
            threads: 1,
            seed: 1,
            keep_running: false,
        }
    }

    fn run(input: &str, config: &BotzoneConfig) -> String {
        let mut out = Vec::new();
        serve(config, &mut input.as_bytes(), &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// Only turn 1 of a full input gets the first turn's time: in plain mode each turn is a new
    /// process, and turn 2 given the first turn's 1.7 s would overrun Botzone's 1 s.
    #[test]
    fn the_first_turns_time_is_read_from_the_turn_number() {
        let slow_first = BotzoneConfig {
            first_time: Duration::from_secs(120),
            time: Duration::from_millis(20),
            ..config()
        };
        assert_eq!(turn_time(&slow_first, Some(1)), slow_first.first_time);
        assert_eq!(turn_time(&slow_first, Some(2)), slow_first.time);
        assert_eq!(turn_time(&slow_first, None), slow_first.time);
        // A fresh process given turn 2 thinks for `time` (with 120 s it would not end soon).
        let (first, theirs) = our_first_turn_and_their_reply(0);
        let started = std::time::Instant::now();
        let answer = run(
            &format!("2\n-1 -1 -1 -1 -1 -1\n{first}\n{theirs}\n"),
            &slow_first,
        );
        assert!(started.elapsed() < Duration::from_secs(60), "{answer}");
        check_legal(&["-1 -1 -1 -1 -1 -1", &first, &theirs], answer.trim());
    }

    /// Our answer to turn 1 as the first player, and the reply `nth` of the second player's
    /// turns after it: the history of a turn 2.
    fn our_first_turn_and_their_reply(nth: usize) -> (String, String) {
        let first = run("1\n-1 -1 -1 -1 -1 -1\n", &config());
        let first = first.lines().next().unwrap().to_string();
        let (g, _) = replay(&["-1 -1 -1 -1 -1 -1".into(), first.clone()]);
        let mut turns = Vec::new();
        g.whole_turns(&mut turns);
        let theirs = write_turn(&g, turns[nth]);
        (first, theirs)
    }

    /// The answer is a legal turn of the position the input describes.
    fn check_legal(history: &[&str], answer: &str) {
        let lines: Vec<String> = history.iter().map(|s| s.to_string()).collect();
        let (game, problem) = replay(&lines);
        assert_eq!(problem, None);
        let turn = read_turn(&game, answer).unwrap().unwrap();
        assert!(game.is_legal_turn(turn), "{answer} in\n{game}");
    }

    #[test]
    fn first_turn_and_a_later_turn_are_legal() {
        let out = run("1\n-1 -1 -1 -1 -1 -1\n", &config());
        let answer = out.lines().next().unwrap();
        check_legal(&["-1 -1 -1 -1 -1 -1"], answer);
        // We are second: the first player's turn c1 (2,0) to c4 (2,3), arrow c6 (2,5).
        let out = run("1\n2 0 2 3 2 5\n", &config());
        let answer = out.lines().next().unwrap();
        check_legal(&["2 0 2 3 2 5"], answer);
        // Turn 2 of the first player: our first answer, their reply, then us.
        let (first, theirs) = our_first_turn_and_their_reply(7);
        let input = format!("2\n-1 -1 -1 -1 -1 -1\n{first}\n{theirs}\n");
        let answer = run(&input, &config());
        check_legal(&["-1 -1 -1 -1 -1 -1", &first, &theirs], answer.trim());
    }

    #[test]
    fn keep_running_reads_bare_requests() {
        let mut c = config();
        c.keep_running = true;
        let first = Amazons::new(8, TurnShape::Whole).unwrap();
        let mut turns = Vec::new();
        first.whole_turns(&mut turns);
        let opening = write_turn(&first, turns[0]);
        let out = run(&format!("1\n{opening}\n"), &c);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[1], KEEP_RUNNING);
        let mut after = first;
        after.play_turn(turns[0]);
        let ours = read_turn(&after, lines[0]).unwrap().unwrap();
        assert!(after.is_legal_turn(ours));
        after.play_turn(ours);
        after.whole_turns(&mut turns);
        let theirs = write_turn(&after, turns[0]);
        let out = run(&format!("1\n{opening}\n{theirs}\n"), &c);
        // Two answers: one a request, each followed by the marker.
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 4, "{out}");
        let (g, problem) = replay(&[opening.clone(), lines[0].to_string(), theirs.clone()]);
        assert_eq!(problem, None);
        assert!(g.is_legal_turn(read_turn(&g, lines[2]).unwrap().unwrap()));
    }

    #[test]
    fn bad_input_is_reported_and_still_answered_legally() {
        for bad in [
            "1\n2 0 2 0 2 5\n",                                 // no move
            "1\n9 9 9 9 9 9\n",                                 // off the board
            "1\nhello\n",                                       // not numbers
            "1\n2 0 2 3\n",                                     // too short
            "2\n-1 -1 -1 -1 -1 -1\n0 0 0 1 0 2\n3 3 3 4 3 5\n", // our 'earlier response' illegal
        ] {
            let out = run(bad, &config());
            let answer = out.lines().next().unwrap_or_default();
            let lines: Vec<String> = bad.lines().skip(1).map(str::to_string).collect();
            let (game, problem) = replay(&lines);
            assert!(problem.is_some(), "{bad:?}");
            let turn = read_turn(&game, answer).unwrap().unwrap();
            assert!(game.is_legal_turn(turn), "{bad:?}: {answer}");
        }
    }

    mod fuzz {
        use super::*;
        use proptest::prelude::*;

        fn word() -> impl Strategy<Value = String> {
            prop_oneof![
                proptest::sample::select(vec![
                    "1",
                    "2",
                    "3",
                    "-1",
                    "0",
                    "7",
                    "8",
                    "9",
                    "99999999999999999999",
                    "\n",
                    "2 0 2 3 2 5",
                    "-1 -1 -1 -1 -1 -1",
                    "5 7 5 3 1 3",
                ])
                .prop_map(str::to_string),
                "[ -~]{0,8}",
                any::<String>(),
            ]
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

            /// Any input, bytes or lines of likely words: no panic, no error, and every answer
            /// is one line of six numbers.
            #[test]
            fn any_input_gets_six_numbers(
                lines in proptest::collection::vec(proptest::collection::vec(word(), 0..7), 0..8),
                junk in proptest::collection::vec(any::<u8>(), 0..40),
            ) {
                let mut input: Vec<u8> = lines
                    .iter()
                    .map(|l| l.join(" "))
                    .collect::<Vec<_>>()
                    .join("\n")
                    .into_bytes();
                input.extend(junk);
                let config = BotzoneConfig {
                    time: Duration::from_millis(1),
                    first_time: Duration::from_millis(1),
                    keep_running: true,
                    ..config()
                };
                let mut out = Vec::new();
                serve(&config, &mut input.as_slice(), &mut out).unwrap();
                let text = String::from_utf8(out).unwrap();
                for line in text.lines().filter(|l| *l != KEEP_RUNNING) {
                    prop_assert_eq!(line.split_whitespace().count(), 6, "{}", line);
                }
            }
        }
    }
}
