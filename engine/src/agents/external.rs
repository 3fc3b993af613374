//! An external program as a player: started once, spoken to in the text protocol
//! (`docs/PROTOCOL.md`), checked at every answer. An illegal move, a malformed answer, a crash or
//! a time-out loses the game for it, with the reason; the process is then killed (its whole
//! process group on Unix) and started afresh for the next game. Dropping the agent kills it too:
//! no process is left behind.

use std::time::{Duration, Instant};

use super::process::{clip, or_drop, ChildProcess, Silence};
use super::{Agent, AgentError, Choice};
use crate::game::{Action, Game};
use crate::game_spec::GameSpec;

/// How to run and treat an external engine.
#[derive(Clone, Debug, PartialEq)]
pub struct ExternalConfig {
    /// The command line, run by `sh -c "exec <command>"` on Unix (so quoting and variables work
    /// as in a shell), split at whitespace elsewhere.
    pub command: String,
    /// The name in tables; by default the engine's answer to `name`.
    pub name: Option<String>,
    /// Sent as `set_option time_ms` at the start of each game: the engine's time a move.
    pub time_ms: Option<u64>,
    /// How long `genmove` may take before the engine loses on time.
    pub move_timeout: Duration,
    /// How long any other command may take.
    pub command_timeout: Duration,
    /// Further `set_option NAME VALUE` commands sent at the start of each game.
    pub options: Vec<(String, String)>,
}

impl ExternalConfig {
    pub fn new(command: impl Into<String>) -> ExternalConfig {
        ExternalConfig {
            command: command.into(),
            name: None,
            time_ms: None,
            move_timeout: Duration::from_secs(60),
            command_timeout: Duration::from_secs(10),
            options: Vec::new(),
        }
    }

    /// The default move time-out for an engine given `time_ms` a move: twice that, and at least
    /// one second more (process start, scheduling on a loaded machine).
    pub fn default_move_timeout(time_ms: u64) -> Duration {
        Duration::from_millis(time_ms.saturating_mul(2).max(time_ms.saturating_add(1000)))
    }
}

/// The running program, spoken to in the text protocol.
struct Process(ChildProcess);

impl Process {
    fn start(command: &str) -> Result<Process, AgentError> {
        ChildProcess::start(command).map(Process)
    }

    /// Sends one command and reads its answer: the text after `=` (and any id), with further
    /// lines joined by newlines. A `?` answer, a malformed one, silence past `timeout` or an
    /// exit is an error naming it.
    fn request(&mut self, command: &str, timeout: Duration) -> Result<String, AgentError> {
        let deadline = Instant::now() + timeout;
        self.0.send(command)?;
        let mut lines: Vec<String> = Vec::new();
        loop {
            match self.0.next_line(deadline) {
                Ok(line) => {
                    if line.is_empty() {
                        if lines.is_empty() {
                            continue; // blank lines before an answer are skipped
                        }
                        break;
                    }
                    lines.push(line);
                }
                Err(Silence::TimedOut) => {
                    return Err(AgentError::new(format!(
                        "time-out: no complete answer to '{command}' within {} ms",
                        timeout.as_millis()
                    )))
                }
                Err(Silence::Gone(reason)) => {
                    return Err(AgentError::new(format!(
                        "no answer to '{command}': {reason}"
                    )));
                }
            }
        }
        let first = &lines[0];
        let (ok, rest) = match first.as_bytes()[0] {
            b'=' => (true, &first[1..]),
            b'?' => (false, &first[1..]),
            _ => {
                return Err(AgentError::new(format!(
                    "malformed answer to '{command}': '{}' (an answer starts with '=' or '?')",
                    clip(first)
                )))
            }
        };
        let text = rest.trim_start_matches(|c: char| c.is_ascii_digit()).trim();
        let mut answer = text.to_string();
        for line in &lines[1..] {
            answer.push('\n');
            answer.push_str(line);
        }
        if ok {
            Ok(answer)
        } else {
            Err(AgentError::new(format!(
                "the engine refused '{command}': {}",
                clip(&answer)
            )))
        }
    }
}

/// An external engine as a player of game `spec`.
pub struct ExternalAgent {
    config: ExternalConfig,
    spec: GameSpec,
    process: Option<Process>,
    engine_name: Option<String>,
    /// Moves of the current game the engine has been told of (or played itself).
    synced: usize,
}

impl ExternalAgent {
    pub fn new(config: ExternalConfig, spec: GameSpec) -> ExternalAgent {
        ExternalAgent {
            config,
            spec,
            process: None,
            engine_name: None,
            synced: 0,
        }
    }

    /// Starts the engine and reads its name: an engine that cannot start (no such program, it
    /// exits, it does not answer `name`) is an error here, before any game.
    pub fn start(config: ExternalConfig, spec: GameSpec) -> Result<ExternalAgent, AgentError> {
        let mut agent = ExternalAgent::new(config, spec);
        agent.launch()?;
        Ok(agent)
    }

    /// Starts the process unless it runs, and reads its name.
    fn launch(&mut self) -> Result<(), AgentError> {
        if self.process.is_none() {
            self.process = Some(Process::start(&self.config.command)?);
            let name = self.request("name", self.config.command_timeout)?;
            self.engine_name = Some(name);
        }
        Ok(())
    }

    /// The process id while it runs (for tests that check nothing is left behind).
    pub fn pid(&self) -> Option<u32> {
        self.process.as_ref().map(|p| p.0.id())
    }

    /// Sends `command`; on any failure the process is killed, so the next game starts afresh.
    fn request(&mut self, command: &str, timeout: Duration) -> Result<String, AgentError> {
        or_drop(&mut self.process, "the engine is not running", |process| {
            process.request(command, timeout)
        })
    }
}

impl<G: Game> Agent<G> for ExternalAgent {
    fn name(&self) -> String {
        self.config
            .name
            .clone()
            .or_else(|| self.engine_name.clone())
            .unwrap_or_else(|| format!("external:{}", self.config.command))
    }

    fn new_game(&mut self, _start: &G, _moves: &[Action]) -> Result<(), AgentError> {
        let short = self.config.command_timeout;
        self.launch()?;
        self.request(&format!("game {}", self.spec.canonical()), short)?;
        let mut options = self.config.options.clone();
        if let Some(t) = self.config.time_ms {
            options.insert(0, ("time_ms".into(), t.to_string()));
        }
        for (name, value) in options {
            self.request(&format!("set_option {name} {value}"), short)?;
        }
        self.request("clear_board", short)?;
        self.synced = 0;
        Ok(())
    }

    fn choose(&mut self, state: &G, moves: &[Action]) -> Result<Choice, AgentError> {
        let short = self.config.command_timeout;
        if self.synced > moves.len() {
            return Err(AgentError::new(
                "the game went back past moves the engine was told of",
            ));
        }
        for &m in &moves[self.synced..] {
            self.request(&format!("play {m}"), short)?;
        }
        self.synced = moves.len();
        let answer = self.request("genmove", self.config.move_timeout)?;
        let word = answer.trim();
        let action = match state.parse_legal_action(word) {
            Ok(a) => a,
            Err(e) => {
                // Its own position now differs from the game's: start it afresh next game.
                self.process = None;
                return Err(AgentError::new(format!("bad move from the engine: {e}")));
            }
        };
        self.synced += 1;
        Ok(Choice::plain(action))
    }
}
