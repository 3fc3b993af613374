//! The Gomocup brain protocol (<https://plastovicka.github.io/protocl2en.htm>) on
//! stdin/stdout, so any Gomocup manager (Piskvork, the tournament's) can run the engine as
//! `pbrain-engine`.
//!
//! Commands (case does not matter; CRLF or LF): `START n`, `RECTSTART w,h` (square only),
//! `BEGIN`, `TURN x,y`, `BOARD` then `x,y,field` lines (1 own stone, 2 the opponent's, 3 a
//! stone of a winning line in a continuous game) and `DONE`, `INFO key value` (timeout_turn,
//! timeout_match, time_left in ms; max_memory, game_type, folder read and not needed; `rule` as
//! its bit flags: 1 exactly five, 4 renju, 2 continuous, 8 caro; unknown keys ignored), `END`,
//! `ABOUT`, `RESTART`, `TAKEBACK x,y`. Anything else is answered `UNKNOWN`, bad input `ERROR`
//! with the reason, and nothing changes.
//!
//! A move is won at once or an opponent's five blocked at once, without a search; otherwise
//! the search gets the time the clock allows ([`Clock::budget`]).

use std::io::{self, BufRead, Write};
use std::time::Duration;

use super::pvs::{Pvs, PvsConfig};
use super::shape_board::ShapeBoard;
use super::{Gomoku, Rule, DIRECTIONS, MAX_SIZE, MIN_SIZE};
use crate::game::{Action, Game, Player};

/// What the manager said of the time, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    /// The most a move may take (0: as fast as possible).
    pub timeout_turn: u64,
    /// The whole game's time (0: no limit).
    pub timeout_match: u64,
    /// What is left of the game's time, when the manager said.
    pub time_left: Option<u64>,
}

impl Default for Clock {
    /// Gomocup's freestyle tournament: 5 s a move, 180 s a game.
    fn default() -> Clock {
        Clock {
            timeout_turn: 5_000,
            timeout_match: 180_000,
            time_left: None,
        }
    }
}

impl Clock {
    /// The time a search may take with `moves_left` of our moves at most still to play: the
    /// turn's limit and an even share of the time left, each less a margin for the manager
    /// and the answer (a tenth, at least 30 ms and at most 500 ms); 10 ms when the turn's
    /// limit is 0 ("as fast as possible"); never below 5 ms.
    pub fn budget(&self, moves_left: usize) -> Duration {
        let mut ms = self.turn_limit();
        if let Some(left) = self.left() {
            // Plan for at least 20 more moves of ours, so a long game keeps time in hand.
            let share = left / moves_left.clamp(20, 200) as u64;
            ms = ms.min(share.saturating_sub(margin(share)));
        }
        Duration::from_millis(ms.max(5))
    }

    /// The turn's limit less its margin (10 ms for "as fast as possible").
    fn turn_limit(&self) -> u64 {
        if self.timeout_turn == 0 {
            10
        } else {
            self.timeout_turn.saturating_sub(margin(self.timeout_turn))
        }
    }

    /// The game's time left, where there is a limit.
    fn left(&self) -> Option<u64> {
        match (self.time_left, self.timeout_match) {
            (Some(left), _) => Some(left),
            (None, 0) => None,
            (None, m) => Some(m),
        }
    }

    /// The search's two limits with `moves_left` of our moves at most still to play: the
    /// [`budget`](Self::budget) it aims at, and the most a critical position may take: the
    /// turn's limit less its margin, and a fifth of the time left less its margin, so that a
    /// nearly spent clock is never overrun.
    pub fn limits(&self, moves_left: usize) -> (Duration, Duration) {
        let soft = self.budget(moves_left);
        let mut hard = self.turn_limit();
        if let Some(left) = self.left() {
            let share = left / 5;
            hard = hard.min(share.saturating_sub(margin(share)));
        }
        let hard = Duration::from_millis(hard.max(5));
        (soft.min(hard), hard)
    }
}

/// The most moves of ours the clock plans for.
const PLANNED_MOVES: usize = 30;

/// What a search leaves for the manager and the answer out of `t` ms: a tenth, at least
/// 30 ms and at most 500 ms.
fn margin(t: u64) -> u64 {
    (t / 10).clamp(30, 500)
}

/// The brain's state between commands.
pub struct Brain {
    game: Option<Gomoku>,
    size: usize,
    rule: Rule,
    pub clock: Clock,
    /// Each move since the game or the last BOARD block began, with the position before it
    /// (for TAKEBACK).
    history: Vec<(Gomoku, Action)>,
    /// Stones of a BOARD block being read: (x, y, field).
    board: Option<Vec<(i32, i32, u8)>>,
    /// The searcher's configuration (`pbrain-engine --player`): `best`'s unless told; its
    /// time comes from the clock.
    pub config: PvsConfig,
    /// The searcher, kept from move to move (its table survives between moves).
    searcher: Option<Pvs>,
    /// What the last search said of itself, sent as a `MESSAGE` line before the move.
    last_note: Option<String>,
}

/// What one line asks to write, and whether the session ends.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Answer {
    pub lines: Vec<String>,
    /// What the brain says of its search (written first, each as `MESSAGE text`).
    pub messages: Vec<String>,
    pub quit: bool,
}

impl Answer {
    fn line(text: impl Into<String>) -> Answer {
        Answer {
            lines: vec![text.into()],
            ..Answer::default()
        }
    }

    fn error(reason: impl Into<String>) -> Answer {
        Answer::line(format!("ERROR {}", reason.into()))
    }
}

impl Default for Brain {
    fn default() -> Brain {
        Brain::new()
    }
}

impl Brain {
    pub fn new() -> Brain {
        Brain {
            game: None,
            size: 15,
            rule: Rule::Freestyle,
            clock: Clock::default(),
            history: Vec::new(),
            board: None,
            config: super::pvs_spec_config("best").expect("best is a pvs"),
            searcher: None,
            last_note: None,
        }
    }

    /// The position, when a game has started.
    pub fn game(&self) -> Option<&Gomoku> {
        self.game.as_ref()
    }

    /// Answers one line.
    pub fn handle_line(&mut self, line: &str) -> Answer {
        let line = line.trim_end_matches(['\r', '\n']).trim();
        if line.is_empty() {
            return Answer::default();
        }
        if let Some(stones) = self.board.as_mut() {
            if line.eq_ignore_ascii_case("DONE") {
                let stones = self.board.take().expect("reading a board");
                return self.set_board(&stones);
            }
            return match parse_board_line(line) {
                Ok(stone) => {
                    stones.push(stone);
                    Answer::default()
                }
                Err(e) => {
                    // The block is dropped whole: the position stays as it was.
                    self.board = None;
                    Answer::error(e)
                }
            };
        }
        let (command, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        match command.to_ascii_uppercase().as_str() {
            "START" => match rest.parse::<usize>() {
                Ok(n) => self.start(n),
                Err(_) => Answer::error(format!("START takes the board size, not '{rest}'")),
            },
            "RECTSTART" => match parse_pair(rest) {
                Some((w, h)) if w == h && w > 0 => self.start(w as usize),
                Some((w, h)) => Answer::error(format!(
                    "unsupported board {w}x{h}: only square boards of {MIN_SIZE} to {MAX_SIZE}"
                )),
                None => Answer::error(format!("RECTSTART takes width,height, not '{rest}'")),
            },
            "RESTART" => self.start(self.size),
            "BEGIN" => match &self.game {
                None => Answer::error("no game: START first"),
                Some(g) if g.stones() > 0 => Answer::error("BEGIN on a board that has stones"),
                Some(_) => self.reply_move(),
            },
            "TURN" => self.turn(rest),
            "BOARD" => {
                if self.game.is_none() {
                    return Answer::error("no game: START first");
                }
                self.board = Some(Vec::new());
                Answer::default()
            }
            "TAKEBACK" => self.takeback(rest),
            "INFO" => {
                self.info(rest);
                Answer::default()
            }
            "ABOUT" => Answer::line(format!(
                "name=\"engine\", version=\"{}\", author=\"the selfplay-mcts team\", country=\"-\", www=\"-\"",
                env!("CARGO_PKG_VERSION")
            )),
            "END" => Answer {
                quit: true,
                ..Answer::default()
            },
            _ => Answer::line(format!("UNKNOWN {command}")),
        }
    }

    fn start(&mut self, n: usize) -> Answer {
        match Gomoku::new(n, self.rule) {
            Ok(g) => {
                self.size = n;
                self.game = Some(g);
                self.history.clear();
                // The searcher's tables (the shapes', the transpositions') are built now, not
                // on the first move's clock.
                ShapeBoard::new(&g);
                self.searcher();
                Answer::line("OK")
            }
            Err(e) => Answer::error(format!("unsupported size: {e}")),
        }
    }

    /// `INFO key value`: the clock and the rule; unknown keys are ignored, as the protocol
    /// asks.
    fn info(&mut self, rest: &str) {
        let (key, value) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        let number = value.trim().parse::<u64>().ok();
        match (key.to_ascii_lowercase().as_str(), number) {
            ("timeout_turn", Some(v)) => self.clock.timeout_turn = v,
            ("timeout_match", Some(v)) => self.clock.timeout_match = v,
            ("time_left", Some(v)) => self.clock.time_left = Some(v),
            ("rule", Some(v)) => {
                self.rule = if v & 4 != 0 {
                    Rule::Renju
                } else if v & 1 != 0 {
                    Rule::Standard
                } else {
                    Rule::Freestyle
                };
                // A new rule applies to a game that has not begun.
                if let Some(g) = &self.game {
                    if g.stones() == 0 && g.rule() != self.rule {
                        self.game = Gomoku::new(self.size, self.rule).ok();
                    }
                }
            }
            _ => {}
        }
    }

    /// `TURN x,y`: the opponent's move, then ours.
    fn turn(&mut self, rest: &str) -> Answer {
        let Some(g) = self.game.as_mut() else {
            return Answer::error("no game: START first");
        };
        let Some((x, y)) = parse_pair(rest) else {
            return Answer::error(format!("TURN takes x,y, not '{rest}'"));
        };
        let Some(a) = g.gomocup_point(x, y) else {
            return Answer::error(format!("{x},{y} is off the {0}x{0} board", g.size()));
        };
        if !g.is_legal(a) {
            return Answer::error(format!("{x},{y}: {}", g.illegal_reason(a)));
        }
        self.history.push((*g, a));
        g.apply(a);
        if g.is_terminal() {
            return Answer::error(format!("{x},{y} ends the game: no move to answer"));
        }
        self.reply_move()
    }

    /// `TAKEBACK x,y`: the last move, which must be that one, is taken back.
    fn takeback(&mut self, rest: &str) -> Answer {
        let Some(g) = self.game.as_mut() else {
            return Answer::error("no game: START first");
        };
        let Some(a) = parse_pair(rest).and_then(|(x, y)| g.gomocup_point(x, y)) else {
            return Answer::error(format!("TAKEBACK takes x,y on the board, not '{rest}'"));
        };
        match self.history.last() {
            Some(&(before, last)) if last == a => {
                *g = before;
                self.history.pop();
                Answer::line("OK")
            }
            _ => Answer::error(format!(
                "{rest} is not the last move since the game or the last BOARD began"
            )),
        }
    }

    /// The position of a BOARD block: ours are 1, the opponent's 2 (3: a winning line's stone
    /// of a continuous game, counted by its owner being unknown: refused here); we are to
    /// move, so the counts say our colour.
    fn set_board(&mut self, stones: &[(i32, i32, u8)]) -> Answer {
        let Some(current) = self.game else {
            return Answer::error("no game: START first");
        };
        let mut g = Gomoku::new(current.size(), current.rule()).expect("the size was accepted");
        let mut seen = std::collections::HashSet::new();
        let (mine, theirs) = stones.iter().fold((0, 0), |(m, t), &(_, _, f)| {
            (m + usize::from(f == 1), t + usize::from(f == 2))
        });
        let me = if mine == theirs {
            Player::P1
        } else if theirs == mine + 1 {
            Player::P2
        } else {
            return Answer::error(format!(
                "{mine} own and {theirs} opponent stones cannot happen with us to move"
            ));
        };
        for &(x, y, field) in stones {
            let Some(a) = g.gomocup_point(x, y) else {
                return Answer::error(format!("{x},{y} is off the board"));
            };
            if !seen.insert(a) {
                return Answer::error(format!("{x},{y} is given twice"));
            }
            let owner = match field {
                1 => me,
                2 => me.opponent(),
                _ => {
                    return Answer::error(format!(
                        "field {field} at {x},{y}: only 1 and 2 are played here"
                    ))
                }
            };
            g.put(a as usize, Some(owner));
        }
        g.to_move = me;
        for p in 0..g.points() {
            if let Some(owner) = g.stone(p) {
                if g.wins_at(p, owner) {
                    return Answer::error("the board already has a winning line");
                }
                let overline = DIRECTIONS.iter().any(|&d| g.run(p, d, owner) > 5);
                if g.rule() == Rule::Renju && owner == Player::P1 && overline {
                    let (x, y) = g.gomocup_coords(p as Action);
                    return Answer::error(format!(
                        "black has an overline through {x},{y}, which renju forbids black to make"
                    ));
                }
            }
        }
        self.game = Some(g);
        self.history.clear();
        self.reply_move()
    }

    /// Our move: played on our board and written `x,y`.
    fn reply_move(&mut self) -> Answer {
        let Some(g) = self.game else {
            return Answer::error("no game: START first");
        };
        let a = match self.choose(&g) {
            Ok(a) => a,
            Err(e) => return Answer::error(e),
        };
        let mut next = g;
        next.apply(a);
        self.game = Some(next);
        self.history.push((g, a));
        let (x, y) = g.gomocup_coords(a);
        Answer {
            messages: self.last_note.take().into_iter().collect(),
            ..Answer::line(format!("{x},{y}"))
        }
    }

    /// The searcher, made on first use.
    fn searcher(&mut self) -> &mut Pvs {
        let config = &self.config;
        self.searcher
            .get_or_insert_with(|| Pvs::new("best", config.clone()))
    }

    /// A win at once, else a block of the opponent's five, else the search's move.
    pub fn choose(&mut self, g: &Gomoku) -> Result<Action, String> {
        let mut moves = Vec::new();
        g.legal_actions(&mut moves);
        if moves.is_empty() {
            return Err("no legal move".into());
        }
        if let Some(net) = &self.config.model {
            net.check_fits(g.rule(), g.size())
                .map_err(|e| format!("--player's model: {e}"))?;
        }
        let me = g.to_move();
        self.last_note = None;
        if let Some(&a) = moves.iter().find(|&&a| g.wins_at(a as usize, me)) {
            return Ok(a);
        }
        if let Some(&a) = moves
            .iter()
            .find(|&&a| g.wins_at(a as usize, me.opponent()))
        {
            return Ok(a);
        }
        if moves.len() == 1 {
            return Ok(moves[0]);
        }
        // Games between strong brains rarely last 30 more moves of ours, whatever the board's
        // size: plan for that many at most, so that a generous clock is spent.
        let moves_left = ((g.points() - g.stones()) / 2).min(PLANNED_MOVES);
        let (soft, hard) = self.clock.limits(moves_left);
        let searcher = self.searcher();
        let found = searcher.best_move_timed(g, soft, hard).map(|(a, _)| a);
        self.last_note = Some(searcher.last_note());
        found.ok_or_else(|| "no legal move".to_string())
    }
}

/// `x,y`, each an integer.
pub(super) fn parse_pair(text: &str) -> Option<(i32, i32)> {
    let (x, y) = text.split_once(',')?;
    Some((x.trim().parse().ok()?, y.trim().parse().ok()?))
}

fn parse_board_line(line: &str) -> Result<(i32, i32, u8), String> {
    let stone = line.rsplit_once(',').and_then(|(xy, field)| {
        let (x, y) = parse_pair(xy)?;
        Some((x, y, field.trim().parse().ok()?))
    });
    stone.ok_or_else(|| format!("BOARD line '{line}' is not x,y,field"))
}

/// Serves the protocol until END or the end of input.
/// A line whose bytes are not UTF-8 is read with the bad bytes replaced (and answered, as any
/// line is); it does not end the session.
pub fn serve(brain: &mut Brain, input: &mut dyn BufRead, output: &mut dyn Write) -> io::Result<()> {
    let mut bytes = Vec::new();
    loop {
        bytes.clear();
        if input.read_until(b'\n', &mut bytes)? == 0 {
            return Ok(());
        }
        let answer = brain.handle_line(&String::from_utf8_lossy(&bytes));
        for m in &answer.messages {
            writeln!(output, "MESSAGE {m}")?;
        }
        for l in &answer.lines {
            writeln!(output, "{l}")?;
        }
        output.flush()?;
        if answer.quit {
            return Ok(());
        }
    }
}

/// Whether `line` is a move answer, `x,y`.
pub fn is_move_answer(line: &str) -> bool {
    parse_pair(line).is_some()
}

/// Plays `input` (any bytes, read as lines) to a brain searching for at most a few
/// milliseconds a move, and checks what the fuzz target checks: no panic, every answer line
/// one of the protocol's forms, and the brain still answering ABOUT afterwards. Returns the
/// first problem found.
pub fn fuzz_session(input: &[u8]) -> Result<(), String> {
    let mut brain = Brain::new();
    brain.clock.timeout_turn = 0;
    for raw in input.split(|&b| b == b'\n') {
        let line = String::from_utf8_lossy(raw);
        let upper = line.trim().to_ascii_uppercase();
        // Keep the session going (END quits) and the searches short (the clock stays at "as
        // fast as possible").
        if upper == "END"
            || upper.starts_with("INFO TIMEOUT")
            || upper.starts_with("INFO TIME_LEFT")
        {
            continue;
        }
        for answer in brain.handle_line(&line).lines {
            let ok = answer == "OK"
                || answer.starts_with("ERROR ")
                || answer.starts_with("UNKNOWN")
                || answer.starts_with("name=")
                || is_move_answer(&answer);
            if !ok || answer.contains('\n') {
                return Err(format!("{line:?} was answered {answer:?}"));
            }
        }
    }
    brain.handle_line("DONE");
    match brain.handle_line("ABOUT").lines.first() {
        Some(l) if l.starts_with("name=") => Ok(()),
        other => Err(format!("ABOUT after the session was answered {other:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn session(lines: &[&str]) -> (Brain, Vec<String>) {
        let mut brain = Brain::new();
        brain.clock.timeout_turn = 60;
        let mut out = Vec::new();
        for line in lines {
            out.extend(brain.handle_line(line).lines);
        }
        (brain, out)
    }

    /// The fuzz target's check on a few sessions, bytes that are not UTF-8 among them.
    #[test]
    fn fuzz_sessions_hold() {
        let sessions: [&[u8]; 4] = [
            b"START 15\r\nBEGIN\r\nTURN 7,8\r\nTAKEBACK 7,8\r\nEND\r\n",
            b"START 9\nBOARD\n1,1,1\n1,1,2\n\xff\xfe\nDONE\nTURN 3,3\n",
            b"INFO rule 4\nSTART 7\nBOARD\n0,0,1\n1,0,1\n2,0,1\n3,0,1\nDONE\nRESTART\nBEGIN\n",
            b"\x00\x01TURN\nSTART 99\nRECTSTART 10,12\nTURN -1,0\n",
        ];
        for input in sessions {
            assert_eq!(fuzz_session(input), Ok(()), "{input:?}");
        }
    }

    /// A line that is not UTF-8 is answered and the session goes on (it used to end it).
    #[test]
    fn a_line_that_is_not_utf8_is_answered_and_the_session_goes_on() {
        let mut brain = Brain::new();
        let input = b"START 15\r\nTURN \xff\xfe,3\r\nABOUT\r\n".to_vec();
        let mut output = Vec::new();
        serve(&mut brain, &mut &input[..], &mut output).unwrap();
        let text = String::from_utf8(output).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "OK");
        assert!(lines[1].starts_with("ERROR TURN takes x,y"), "{text}");
        assert!(lines[2].starts_with("name="), "{text}");
    }

    /// A game as a manager plays it, with CRLF, the answers in order.
    #[test]
    fn a_session_answers_each_command() {
        let (brain, out) = session(&[
            "INFO timeout_turn 60\r\n",
            "INFO max_memory 83886080",
            "INFO some_future_key 3",
            "START 15\r\n",
            "BEGIN",
            "TURN 7,8",
            "ABOUT",
            "RESTART",
        ]);
        assert_eq!(out[0], "OK");
        assert!(
            is_move_answer(&out[1]) && is_move_answer(&out[2]),
            "{out:?}"
        );
        assert!(out[3].starts_with("name=\"engine\""));
        assert_eq!(out[4], "OK");
        assert_eq!(brain.game().unwrap().stones(), 0);
        let (_, out) = session(&[
            "START 4",
            "START 23",
            "RECTSTART 20,15",
            "RECTSTART 20,20",
            "BEGIN",
        ]);
        assert!(out[0].starts_with("ERROR unsupported size"), "{out:?}");
        assert!(out[1].starts_with("ERROR"));
        assert!(out[2].starts_with("ERROR unsupported board 20x15"));
        assert_eq!(out[3], "OK");
        assert!(is_move_answer(&out[4]));
        let (_, out) = session(&["END"]);
        assert!(out.is_empty());
        assert!(Brain::new().handle_line("END").quit);
    }

    /// Bad input is refused with a reason, nothing changes, and the brain keeps answering.
    #[test]
    fn bad_input_gets_errors_and_changes_nothing() {
        let (brain, out) = session(&[
            "TURN 1,1",
            "START 15",
            "TURN 15,0",
            "TURN x",
            "TURN 7,7",
            "TAKEBACK 3,3",
            "BOARD",
            "1,1,1",
            "1,1,2",
            "DONE",
            "BOARD",
            "1,1,1",
            "2,2,1",
            "DONE",
            "BOARD",
            "garbage",
            "FROB 1",
        ]);
        assert!(out[0].starts_with("ERROR no game"), "{out:?}");
        assert!(out[1] == "OK");
        assert!(out[2].starts_with("ERROR 15,0 is off"), "{out:?}");
        assert!(out[3].starts_with("ERROR TURN takes x,y"));
        assert!(is_move_answer(&out[4]));
        assert!(out[5].starts_with("ERROR 3,3 is not the last move"));
        assert!(out[6].starts_with("ERROR 1,1 is given twice"), "{out:?}");
        assert!(out[7].starts_with("ERROR 2 own and 0 opponent"), "{out:?}");
        assert!(out[8].starts_with("ERROR BOARD line 'garbage'"), "{out:?}");
        assert_eq!(out[9], "UNKNOWN FROB");
        // The position is the one after TURN 7,7 and our answer.
        assert_eq!(brain.game().unwrap().stones(), 2);
        // An occupied point, and renju's forbidden point for the opponent as black.
        let (_, out) = session(&["START 15", "TURN 7,7", "TAKEBACK 7,7"]);
        assert_eq!(
            out[2],
            "ERROR 7,7 is not the last move since the game or the last BOARD began"
        );
        // (The same session's own stone: a timed search need not answer alike twice.)
        let (mut brain, out) = session(&["START 15", "TURN 7,7"]);
        let answer = brain.handle_line(&format!("TURN {}", out[1]));
        assert!(
            answer.lines[0].starts_with("ERROR") && answer.lines[0].contains("taken"),
            "{answer:?}"
        );
    }

    /// A BOARD block with a five already on it, or a black overline under renju, is refused
    /// with the reason, and the brain keeps its position and answers the next command.
    #[test]
    fn boards_that_cannot_happen_are_refused() {
        let (brain, out) = session(&[
            "START 15", "TURN 7,7", "BOARD", "0,0,1", "1,0,1", "2,0,1", "3,0,1", "4,0,1", "0,5,2",
            "1,5,2", "2,5,2", "3,5,2", "4,5,2", "DONE",
        ]);
        assert!(is_move_answer(&out[1]), "{out:?}");
        assert_eq!(out[2], "ERROR the board already has a winning line");
        assert_eq!(brain.game().unwrap().stones(), 2);
        // Renju: black (the opponent, one stone more) with six in a row.
        let mut lines = vec!["INFO rule 4", "START 15", "BOARD"];
        let black = [
            "0,0,2", "1,0,2", "2,0,2", "3,0,2", "4,0,2", "5,0,2", "9,9,2",
        ];
        let white = ["0,5,1", "2,5,1", "4,5,1", "6,5,1", "8,5,1", "10,5,1"];
        lines.extend(black);
        lines.extend(white);
        lines.extend(["DONE", "ABOUT"]);
        let (brain, out) = session(&lines);
        assert!(
            out[1].starts_with("ERROR black has an overline through"),
            "{out:?}"
        );
        assert!(out[2].starts_with("name="), "{out:?}");
        assert_eq!(brain.game().unwrap().stones(), 0);
    }

    /// Under renju the opponent (black) may not play a double three; the brain says why.
    #[test]
    fn renju_forbidden_moves_are_refused() {
        // The opponent (black, 8 stones to our 7) has f8 g8 h6 h7 (Gomocup x = column,
        // y = 14 - row), a double three at h8 = 7,7, and a four on the top row that we must
        // block first (so our answer is forced). Then black's 7,7 is refused.
        let (brain, out) = session(&[
            "INFO rule 4",
            "START 15",
            "BOARD",
            "5,7,2",
            "6,7,2",
            "7,9,2",
            "7,8,2",
            "10,0,2",
            "11,0,2",
            "12,0,2",
            "13,0,2",
            "0,14,1",
            "2,14,1",
            "4,14,1",
            "6,14,1",
            "8,14,1",
            "0,12,1",
            "2,12,1",
            "DONE",
            "TURN 7,7",
        ]);
        assert!(out[1] == "9,0" || out[1] == "14,0", "{out:?}");
        assert!(
            out[2].starts_with("ERROR 7,7") && out[2].contains("double three"),
            "{out:?}"
        );
        assert_eq!(brain.game().unwrap().rule(), Rule::Renju);
        assert_eq!(brain.game().unwrap().stones(), 16);
    }

    /// A five at once is played without a search, and an opponent's five is blocked.
    #[test]
    fn forced_moves_are_played_at_once() {
        // Own stones 3,3 4,3 5,3 6,3 (a four): the answer is 2,3 or 7,3.
        let (_, out) = session(&[
            "START 15", "BOARD", "3,3,1", "4,3,1", "5,3,1", "6,3,1", "0,0,2", "0,2,2", "0,4,2",
            "9,9,2", "DONE",
        ]);
        assert!(out[1] == "2,3" || out[1] == "7,3", "{out:?}");
        // The opponent's four 3,3 .. 6,3 with a blocked end: the other end is blocked.
        let (_, out) = session(&[
            "START 15", "BOARD", "3,3,2", "4,3,2", "5,3,2", "6,3,2", "2,3,1", "0,10,1", "14,14,1",
            "DONE",
        ]);
        assert_eq!(out[1], "7,3", "{out:?}");
    }

    /// The search never plans past the turn's limit less a margin, or past a fair share of
    /// the time left; "as fast as possible" is 10 ms. Of its two limits, the aim stays within
    /// the hard limit, and the hard limit within the turn and a fifth of what is left, each
    /// less its margin.
    #[test]
    fn the_clock_leaves_a_margin_and_stretches_within_the_turn() {
        let clock = |timeout_turn, timeout_match, time_left| Clock {
            timeout_turn,
            timeout_match,
            time_left,
        };
        let ms = |d: Duration| d.as_millis() as u64;
        // (turn, game, time left, moves to plan for): the budget.
        for (turn, game, left, moves, budget) in [
            (300, 0, None, 50, 270),
            (5_000, 0, None, 50, 4_500),
            (100_000, 0, None, 50, 99_500),
            (0, 0, None, 50, 10),
            // 10 s left for 100 moves: 100 ms, less 30; for 5, the turn's share.
            (5_000, 180_000, Some(10_000), 100, 70),
            (5_000, 180_000, Some(10_000), 5, 450),
            (5_000, 180_000, Some(40), 10, 5),
        ] {
            let c = clock(turn, game, left);
            assert_eq!(ms(c.budget(moves)), budget, "{c:?} {moves}");
        }
        // The limits (aim, hard). Gomocup's 1 s turns and 30 s games: an even share of the
        // game early, the turn's limit for a critical move; then a nearly spent clock.
        for (turn, game, left, moves, limits) in [
            (100, 0, None, 60, (70, 70)),
            (1_000, 0, None, 60, (900, 900)),
            (5_000, 0, None, 60, (4_500, 4_500)),
            (1_000, 30_000, Some(30_000), 100, (270, 900)),
            (1_000, 30_000, Some(200), 100, (5, 10)),
        ] {
            let (aim, hard) = clock(turn, game, left).limits(moves);
            assert_eq!((ms(aim), ms(hard)), limits, "{turn} {game} {left:?}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

        /// Any lines: no panic, every answer one of the protocol's forms, still answering
        /// (the fuzz target's check).
        #[test]
        fn any_lines_get_protocol_answers(lines in proptest::collection::vec(
            prop_oneof![
                Just("START 9".to_string()),
                Just("BEGIN".to_string()),
                Just("BOARD".to_string()),
                Just("DONE".to_string()),
                Just("RESTART".to_string()),
                Just("INFO rule 4".to_string()),
                Just("INFO rule 1".to_string()),
                (0i32..11, 0i32..11).prop_map(|(x, y)| format!("TURN {x},{y}")),
                (0i32..11, 0i32..11).prop_map(|(x, y)| format!("TAKEBACK {x},{y}")),
                (0i32..11, 0i32..11, 0u8..4).prop_map(|(x, y, f)| format!("{x},{y},{f}")),
                "[ -~]{0,12}",
            ],
            1..40,
        )) {
            let session = fuzz_session(lines.join("\n").as_bytes());
            prop_assert!(session.is_ok(), "{:?}", session);
        }
    }
}
