//! Any Gomocup brain as a player (`gomocup:cmd=PATH`), seated as a tournament manager seats it:
//! `START`, the `INFO` lines (timeout_turn, timeout_match, max_memory, thread_num, rule and
//! time_left before every turn), `BEGIN`, `TURN x,y` or a `BOARD` block, and the clock kept
//! here, from the moment a command is written to the moment its move is read.
//!
//! A brain loses the game, with the reason in the report, when it does not start or answer
//! `START`, answers `ERROR`, `UNKNOWN` or anything that is not `x,y`, plays off the board or on
//! a taken or forbidden point, crashes, or overruns its turn or its game's time (by more than
//! `tolerance_ms`). It is then killed and started afresh for the next game; nothing waits past
//! the deadline. The last `MESSAGE` lines before a move (depth, evaluation, nodes) are kept as
//! its note.

use std::time::{Duration, Instant};

use super::gomocup::parse_pair;
use super::Gomoku;
use crate::agents::process::{clip, or_drop};
use crate::agents::{Agent, AgentError, ChildProcess, Choice, Silence};
use crate::game::{Action, Game, Player};
use crate::game_spec::{key, KeyDecl};

/// How a brain is run and timed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BrainConfig {
    /// The command line (run by the shell, as `external`'s).
    pub command: String,
    /// The name in tables; by default the `name` its `ABOUT` gives.
    pub name: Option<String>,
    /// `INFO timeout_turn`: the most a move may take, ms (0: no limit).
    pub turn_ms: u64,
    /// `INFO timeout_match`: the whole game's time, ms (0: no limit).
    pub match_ms: u64,
    /// `INFO thread_num`.
    pub threads: u32,
    /// `INFO max_memory`, in MiB (sent in bytes).
    pub memory_mb: u64,
    /// How far past its turn or its game's time a move may arrive and still count, ms.
    pub tolerance_ms: u64,
    /// How long the brain may take to start and answer `ABOUT`, and to answer `START` before
    /// each game (a brain may build large tables then), ms.
    pub start_ms: u64,
    /// Further `INFO KEY VALUE` lines sent at the start of each game.
    pub info: Vec<(String, String)>,
}

/// How long after a brain's move its next command waits at least (not on its clock).
const SETTLE: Duration = Duration::from_millis(30);

/// The `MESSAGE` lines a move's note keeps (the last ones before the move).
const NOTE_LINES: usize = 3;

/// The keys of `gomocup`.
pub const GOMOCUP_KEYS: [KeyDecl; 9] = [
    key(
        "cmd",
        "",
        "the brain's command line (required; in double quotes when it holds a comma: cmd=\"pbrain-engine --player pvs:beam=12,depth=30\")",
    ),
    key(
        "name",
        "",
        "the name in tables (default: the name its ABOUT gives)",
    ),
    key(
        "turn_ms",
        "1000",
        "INFO timeout_turn: the most a move may take, ms (0: no limit)",
    ),
    key(
        "match_ms",
        "30000",
        "INFO timeout_match: the game's time, ms, kept by the match (0: no limit)",
    ),
    key("threads", "1", "INFO thread_num"),
    key("memory_mb", "350", "INFO max_memory, in MiB"),
    key(
        "tolerance_ms",
        "0",
        "how late past the turn's or the game's limit a move still counts, ms",
    ),
    key(
        "start_ms",
        "30000",
        "how long the brain may take to start and answer ABOUT, and to answer START before each game (a silent brain: ABOUT is an error, START a lost game), ms",
    ),
    key("info.KEY", "", "INFO KEY VALUE at the start of each game"),
];

impl BrainConfig {
    /// The keys of a `gomocup` spec (`text` names it in errors).
    pub fn read(text: &str, keys: &[(String, String)]) -> Result<BrainConfig, String> {
        use crate::agents::spec::{number, unknown_key_in, whole_in, MAX_TIME_MS};
        let err = |e: String| format!("player '{text}': {e}");
        let mut config = BrainConfig::default();
        // The declared defaults first, so the help and the player cannot drift apart.
        let defaults = GOMOCUP_KEYS.iter().filter(|k| !k.default.is_empty());
        let defaults = defaults.map(|k| (k.name.to_string(), k.default.to_string()));
        let ms = |key: &str, value: &str, min: u64| whole_in(key, value, min, MAX_TIME_MS);
        for (key, value) in defaults.chain(keys.iter().cloned()) {
            match key.as_str() {
                "cmd" => config.command = value,
                "name" => config.name = Some(value),
                "turn_ms" => config.turn_ms = ms(&key, &value, 0).map_err(err)?,
                "match_ms" => config.match_ms = ms(&key, &value, 0).map_err(err)?,
                "start_ms" => config.start_ms = ms(&key, &value, 1).map_err(err)?,
                "threads" => {
                    let most = crate::cli::MAX_THREADS as u32;
                    config.threads = whole_in(&key, &value, 1, most).map_err(err)?
                }
                "memory_mb" => config.memory_mb = number(&key, &value).map_err(err)?,
                "tolerance_ms" => config.tolerance_ms = ms(&key, &value, 0).map_err(err)?,
                _ => match key.strip_prefix("info.") {
                    Some(name) if !name.is_empty() && !name.contains(char::is_whitespace) => {
                        config.info.push((name.to_string(), value))
                    }
                    _ => return Err(unknown_key_in(text, &key, &GOMOCUP_KEYS)),
                },
            }
        }
        if config.command.trim().is_empty() {
            return Err(err("gomocup needs cmd=COMMAND, the brain to run".into()));
        }
        Ok(config)
    }
}

/// A Gomocup brain seated at a match.
pub struct GomocupAgent {
    config: BrainConfig,
    process: Option<ChildProcess>,
    about_name: Option<String>,
    /// Moves of the current game the brain knows of (the ones it was told and its own).
    synced: usize,
    /// What is left of the game's time, ms (when there is a limit).
    time_left: i64,
    /// When the brain last answered a move.
    answered: Option<Instant>,
}

/// What a brain said before its move, and the move.
struct Answer {
    x: i32,
    y: i32,
    messages: Vec<String>,
}

impl GomocupAgent {
    /// Starts the brain and reads its name: a brain that cannot start is an error here, before
    /// any game.
    pub fn start(config: BrainConfig) -> Result<GomocupAgent, AgentError> {
        let mut agent = GomocupAgent {
            config,
            process: None,
            about_name: None,
            synced: 0,
            time_left: 0,
            answered: None,
        };
        agent.ensure_started()?;
        Ok(agent)
    }

    /// The process id while it runs (for tests that check nothing is left behind).
    pub fn pid(&self) -> Option<u32> {
        self.process.as_ref().map(ChildProcess::id)
    }

    /// Writes `lines`; a failure kills the brain.
    fn send(&mut self, lines: &[String]) -> Result<(), AgentError> {
        or_drop(&mut self.process, "the brain is not running", |process| {
            lines.iter().try_for_each(|l| process.send(l))
        })
    }

    /// Reads lines until one `accept` takes (returning what it makes of it). `MESSAGE` lines
    /// are kept in `messages`; `DEBUG` lines and lines of no known form are skipped, as
    /// managers skip them (the last is named if no answer follows). `ERROR` or `UNKNOWN`,
    /// silence past `deadline` (said after `late`) or an exit is an error naming `what`, and
    /// kills the brain.
    fn read_until<T>(
        &mut self,
        what: &str,
        (deadline, late): (Instant, &str),
        messages: &mut Vec<String>,
        accept: &dyn Fn(&str) -> Option<T>,
    ) -> Result<T, AgentError> {
        or_drop(&mut self.process, "the brain is not running", |process| {
            let mut stray: Option<String> = None;
            let said = |stray: &Option<String>| match stray {
                Some(line) => format!(" (its last line: '{}')", clip(line)),
                None => String::new(),
            };
            loop {
                let line = match process.next_line(deadline) {
                    Ok(line) => line,
                    Err(Silence::TimedOut) => {
                        return Err(AgentError::new(format!(
                            "{late}no answer to {what} in time{}",
                            said(&stray)
                        )))
                    }
                    Err(Silence::Gone(reason)) => {
                        return Err(AgentError::new(format!(
                            "no answer to {what}: {reason}{}",
                            said(&stray)
                        )))
                    }
                };
                let line = line.trim();
                if let Some(value) = accept(line) {
                    return Ok(value);
                }
                let upper = line.to_ascii_uppercase();
                if upper.starts_with("MESSAGE") {
                    messages.push(line[7..].trim().to_string());
                } else if upper.starts_with("ERROR") || upper.starts_with("UNKNOWN") {
                    return Err(AgentError::new(format!(
                        "answered '{}' to {what}",
                        clip(line)
                    )));
                } else if !line.is_empty() && !upper.starts_with("DEBUG") {
                    stray = Some(line.to_string());
                }
            }
        })
    }

    /// Starts the brain if it is not running, and reads its name.
    fn ensure_started(&mut self) -> Result<(), AgentError> {
        if self.process.is_some() {
            return Ok(());
        }
        self.process = Some(ChildProcess::start_raw(&self.config.command)?);
        self.send(&["ABOUT".into()])?;
        let deadline = Instant::now() + Duration::from_millis(self.config.start_ms);
        // A brain without ABOUT answers UNKNOWN or ERROR: it plays on, named by its command.
        self.about_name = self.read_until("ABOUT", (deadline, ""), &mut Vec::new(), &|l| {
            let upper = l.to_ascii_uppercase();
            if l.contains("name=") {
                Some(about_value(l, "name"))
            } else if upper.starts_with("UNKNOWN") || upper.starts_with("ERROR") {
                Some(None)
            } else {
                None
            }
        })?;
        Ok(())
    }

    /// The command that brings the brain to `state` and asks its move: `BEGIN` on the empty
    /// board, `TURN` after the opponent's one move, else a `BOARD` block of every stone (1 the
    /// mover's, 2 the opponent's, in the order played).
    fn turn_commands(&self, start: &Gomoku, moves: &[Action]) -> Vec<String> {
        if moves.is_empty() {
            return vec!["BEGIN".into()];
        }
        if self.synced > 0 && self.synced + 1 == moves.len() {
            let (x, y) = start.gomocup_coords(moves[moves.len() - 1]);
            return vec![format!("TURN {x},{y}")];
        }
        let mover = [Player::P1, Player::P2][moves.len() % 2];
        let mut lines = vec!["BOARD".to_string()];
        let mut state = *start;
        for &a in moves {
            let (x, y) = start.gomocup_coords(a);
            let field = if state.to_move() == mover { 1 } else { 2 };
            lines.push(format!("{x},{y},{field}"));
            state.apply(a);
        }
        lines.push("DONE".into());
        lines
    }

    /// Waits until [`SETTLE`] has passed since the brain's last move: a brain may still be
    /// finishing it when the opponent answers at once (Rapfi drops commands that arrive
    /// then). Off its clock.
    fn settle(&self) {
        if let Some(at) = self.answered {
            std::thread::sleep(SETTLE.saturating_sub(at.elapsed()));
        }
    }

    /// Sends the turn and reads the move within the clock; returns it with the brain's
    /// messages and the milliseconds it took.
    fn ask(&mut self, commands: &[String]) -> Result<(Answer, u64), AgentError> {
        let turn = self.config.turn_ms;
        let clock = self.config.match_ms > 0;
        let mut limit = if turn > 0 { turn } else { u64::MAX / 4 };
        if clock {
            limit = limit.min(self.time_left.max(0) as u64);
        }
        let mut lines = Vec::new();
        if clock {
            lines.push(format!("INFO time_left {}", self.time_left.max(0)));
        }
        lines.extend_from_slice(commands);
        let allowed = Duration::from_millis(limit.saturating_add(self.config.tolerance_ms));
        self.settle();
        let started = Instant::now();
        self.send(&lines)?;
        let deadline = started + allowed.min(Duration::from_secs(86_400));
        let mut messages = Vec::new();
        let what = format!("'{}'", commands[0]);
        let of = if turn > 0 && limit == turn {
            "its turn"
        } else {
            "the game's time left"
        };
        let late = format!("lost on time ({limit} ms, {of}): ");
        let (x, y) = self.read_until(&what, (deadline, &late), &mut messages, &parse_pair)?;
        self.answered = Some(Instant::now());
        let took = started.elapsed().as_millis() as u64;
        if clock {
            self.time_left -= took as i64;
        }
        if turn > 0 && took > turn + self.config.tolerance_ms {
            self.process = None;
            return Err(AgentError::new(format!(
                "lost on time: {took} ms for a move, over its turn of {turn} ms"
            )));
        }
        if clock && self.time_left < -(self.config.tolerance_ms as i64) {
            self.process = None;
            return Err(AgentError::new(format!(
                "lost on time: the game's {} ms are spent ({took} ms for this move)",
                self.config.match_ms
            )));
        }
        Ok((Answer { x, y, messages }, took))
    }
}

impl Agent<Gomoku> for GomocupAgent {
    fn name(&self) -> String {
        self.config
            .name
            .clone()
            .or_else(|| self.about_name.clone())
            .unwrap_or_else(|| format!("gomocup:{}", self.config.command))
    }

    fn new_game(&mut self, start: &Gomoku, _moves: &[Action]) -> Result<(), AgentError> {
        self.ensure_started()?;
        self.settle();
        let size = start.size();
        self.send(&[format!("START {size}")])?;
        let deadline = Instant::now() + Duration::from_millis(self.config.start_ms);
        self.read_until("START", (deadline, ""), &mut Vec::new(), &|l| {
            l.eq_ignore_ascii_case("OK").then_some(())
        })?;
        let c = &self.config;
        let mut info = vec![
            format!("INFO timeout_turn {}", c.turn_ms),
            format!("INFO timeout_match {}", c.match_ms),
            format!("INFO max_memory {}", c.memory_mb.saturating_mul(1 << 20)),
            format!("INFO thread_num {}", c.threads),
            // `INFO rule` flags: 0 freestyle, 1 exactly five, 4 renju.
            format!("INFO rule {}", [0, 1, 4][start.rule().index()]),
            "INFO game_type 1".to_string(),
        ];
        for (k, v) in &c.info {
            info.push(format!("INFO {k} {v}"));
        }
        self.time_left = c.match_ms as i64;
        self.synced = 0;
        self.send(&info)
    }

    fn choose(&mut self, state: &Gomoku, moves: &[Action]) -> Result<Choice, AgentError> {
        let start = Gomoku::new(state.size(), state.rule()).map_err(AgentError::new)?;
        let commands = self.turn_commands(&start, moves);
        let (answer, took) = self.ask(&commands)?;
        let Answer { x, y, messages } = answer;
        let Some(action) = state.gomocup_point(x, y) else {
            self.process = None;
            let n = state.size();
            return Err(AgentError::new(format!(
                "played {x},{y}, off the {n}x{n} board"
            )));
        };
        if !state.is_legal(action) {
            self.process = None;
            return Err(AgentError::new(format!(
                "played {x},{y}: {}",
                state.illegal_reason(action)
            )));
        }
        self.synced = moves.len() + 1;
        // The last few lines: brains print their depth and score on one line and their
        // principal variation on the next (Rapfi), or all on one (PentaZen, ours).
        let mut note = format!("{took} ms");
        for line in &messages[messages.len().saturating_sub(NOTE_LINES)..] {
            note.push_str("; ");
            note.push_str(&clip(line));
        }
        Ok(Choice {
            note: Some(note),
            ..Choice::plain(action)
        })
    }
}

impl Drop for GomocupAgent {
    /// `END`, and a moment to obey; the process group is killed after.
    fn drop(&mut self) {
        if let Some(p) = self.process.as_mut() {
            if p.send("END").is_ok() {
                let until = Instant::now() + Duration::from_millis(200);
                while Instant::now() < until && !p.has_exited() {
                    std::thread::sleep(Duration::from_millis(10));
                }
            }
        }
    }
}

/// The value of `key="value"` (or `key=value`) in an `ABOUT` answer.
fn about_value(about: &str, key: &str) -> Option<String> {
    let at = about.find(&format!("{key}="))? + key.len() + 1;
    let rest = &about[at..];
    let value = match rest.strip_prefix('"') {
        Some(quoted) => quoted.split('"').next()?,
        None => rest.split([',', ' ']).next()?,
    };
    (!value.trim().is_empty()).then(|| value.trim().to_string())
}
