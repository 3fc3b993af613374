//! `engine protocol`: a GTP-shaped text protocol for every game the engine hosts, so that GUIs,
//! scripts, match runners and other engines can drive it (see `docs/PROTOCOL.md`).
//!
//! One command a line on stdin; each answer is `= result` or `? message` (with the command's
//! numeric id after `=`/`?` when it had one), followed by an empty line. Nothing a client sends
//! can crash the session: lines are bounded ([`reader::MAX_LINE`]), any bytes are read, and
//! every command checks its arguments and the state before changing anything.

pub mod settings;
pub mod table;

use std::io::{self, BufRead, Write};

use crate::games::{GameSpec, RegisteredGame};
pub use crate::line_reader as reader;
use crate::registry::{game_names, GameVisitor, Lookup};
use reader::{read_line, Line, MAX_LINE};
use settings::{OptionLog, Settings, OPTION_NAMES};
use table::{GameTable, Table};

/// The protocol's version (GTP's is 2; this follows its shape).
pub const PROTOCOL_VERSION: &str = "2";
/// What `name` answers.
pub const ENGINE_NAME: &str = "engine";

/// Every command, as `list_commands` answers them.
pub const COMMANDS: [&str; 22] = [
    "protocol_version",
    "name",
    "version",
    "list_commands",
    "known_command",
    "quit",
    "game",
    "clear_board",
    "set_position",
    "get_position",
    "play",
    "genmove",
    "legal_moves",
    "to_move",
    "score",
    "is_over",
    "result",
    "showboard",
    "undo",
    "set_option",
    "get_option",
    "list_options",
];

/// One answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    pub id: Option<u64>,
    pub ok: bool,
    pub text: String,
}

impl Reply {
    /// The answer as sent: `=` or `?`, the id, a space and the text (lines kept, none empty,
    /// so that only the final empty line ends the answer), then the empty line.
    pub fn render(&self) -> String {
        let mut out = String::from(if self.ok { "=" } else { "?" });
        if let Some(id) = self.id {
            out.push_str(&id.to_string());
        }
        let lines: Vec<&str> = self
            .text
            .split('\n')
            .map(|l| l.trim_end_matches('\r'))
            .collect();
        for (i, line) in lines.iter().enumerate() {
            if i == 0 {
                if !line.is_empty() {
                    out.push(' ');
                    out.push_str(line);
                }
            } else {
                out.push('\n');
                out.push_str(if line.trim().is_empty() { " " } else { line });
            }
        }
        out.push_str("\n\n");
        out
    }
}

/// The state of one protocol session: the game on the table and the search settings.
pub struct Session {
    settings: Settings,
    /// Every option set, replayed on a new game.
    options: OptionLog,
    table: Box<dyn GameTable + Send>,
}

impl Default for Session {
    fn default() -> Session {
        Session::new()
    }
}

/// What the session does after a line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// An empty or comment-only line: no answer at all.
    Nothing,
    Reply(Reply),
    /// The answer to `quit`; the session ends after sending it.
    Quit(Reply),
}

impl Session {
    /// A session at the start of the first registered game with the
    /// default settings.
    pub fn new() -> Session {
        let first = GameSpec::named(game_names()[0]).expect("a registered game");
        Session {
            settings: Settings::default(),
            options: OptionLog::default(),
            table: first.visit(NewTable).expect("the default game builds"),
        }
    }

    /// Every option's name: the shared ones, then the game's own.
    fn option_names(&self) -> Vec<&'static str> {
        let mut names = OPTION_NAMES.to_vec();
        names.extend(self.table.option_names());
        names
    }

    fn unknown_option(&self, name: &str) -> String {
        format!(
            "unknown option '{name}' for {} (known: {})",
            self.table.spec(),
            self.option_names().join(", ")
        )
    }

    /// The value of an option, shared or the game's.
    fn get_option(&self, name: &str) -> Result<String, String> {
        self.settings
            .get(name)
            .or_else(|| self.table.get_option(name))
            .ok_or_else(|| self.unknown_option(name))
    }

    /// Answers one line (as read: it is preprocessed here too).
    pub fn handle_line(&mut self, raw: &str) -> Answer {
        let line = reader::preprocess(raw);
        let mut words = line.split(' ').filter(|w| !w.is_empty());
        let Some(first) = words.next() else {
            return Answer::Nothing;
        };
        let (id, command) = if first.bytes().all(|b| b.is_ascii_digit()) {
            match first.parse::<u64>() {
                Ok(id) => (Some(id), words.next()),
                Err(_) => {
                    return Answer::Reply(Reply {
                        id: None,
                        ok: false,
                        text: format!("id '{first}' is too large"),
                    })
                }
            }
        } else {
            (None, Some(first))
        };
        let Some(command) = command else {
            return Answer::Reply(Reply {
                id,
                ok: false,
                text: "no command after the id".into(),
            });
        };
        let args: Vec<&str> = words.collect();
        let result = self.run(command, &args, &line);
        let reply = |result: Result<String, String>| match result {
            Ok(text) => Reply { id, ok: true, text },
            Err(text) => Reply {
                id,
                ok: false,
                text,
            },
        };
        if command == "quit" && result.is_ok() {
            return Answer::Quit(reply(result));
        }
        Answer::Reply(reply(result))
    }

    /// The answer to a line longer than the protocol reads.
    pub fn too_long(length: usize) -> Reply {
        Reply {
            id: None,
            ok: false,
            text: format!(
                "line of {length} bytes is longer than the {MAX_LINE} bytes read; skipped"
            ),
        }
    }

    fn run(&mut self, command: &str, args: &[&str], line: &str) -> Result<String, String> {
        let none = |args: &[&str]| -> Result<(), String> {
            if args.is_empty() {
                Ok(())
            } else {
                Err(format!("{command} takes no arguments"))
            }
        };
        match command {
            "protocol_version" => none(args).map(|_| PROTOCOL_VERSION.into()),
            "name" => none(args).map(|_| ENGINE_NAME.into()),
            "version" => none(args).map(|_| env!("CARGO_PKG_VERSION").into()),
            "list_commands" => none(args).map(|_| COMMANDS.join("\n")),
            "known_command" => match args {
                [name] => Ok(COMMANDS.contains(name).to_string()),
                _ => Err("expected known_command NAME".into()),
            },
            "quit" => Ok(String::new()),
            "game" => self.choose_game(args),
            "clear_board" => none(args).map(|_| {
                self.table.clear_board();
                String::new()
            }),
            "set_position" => self.table.set_position(args).map(|_| String::new()),
            "get_position" => none(args).map(|_| self.table.position()),
            "play" => match args {
                [mv] => self.table.play(mv).map(|_| String::new()),
                _ => Err("expected play MOVE".into()),
            },
            "genmove" => {
                if args.len() > 1 {
                    return Err("expected genmove [PLAYER]".into());
                }
                if let Some(who) = args.first() {
                    let wanted = crate::Player::parse(who)
                        .ok_or_else(|| format!("the player is 1 or 2, got '{who}'"))?;
                    let to_move = self.table.to_move()?;
                    if wanted.number().to_string() != to_move {
                        return Err(format!("player {to_move} is to move, not {who}"));
                    }
                }
                self.table.genmove(&self.settings)
            }
            "legal_moves" => none(args).map(|_| self.table.legal_moves(self.settings.notation)),
            "to_move" => none(args).and_then(|_| self.table.to_move()),
            "score" => none(args).and_then(|_| self.table.score()),
            "is_over" => none(args).map(|_| self.table.is_over().to_string()),
            "result" => none(args).map(|_| self.table.result().to_string()),
            "showboard" => none(args).map(|_| self.table.showboard()),
            "undo" => none(args).and_then(|_| self.table.undo().map(|_| String::new())),
            "set_option" => {
                let (name, value) = match args {
                    [name, _, ..] => {
                        // The value is the rest of the line, spaces included (a model path).
                        let after_name = line
                            .split_once(&format!(" {name} "))
                            .map(|(_, rest)| rest.trim())
                            .unwrap_or_default();
                        (*name, after_name)
                    }
                    _ => return Err("expected set_option NAME VALUE".into()),
                };
                let known =
                    self.settings.set(name, value)? || self.table.set_option(name, value)?;
                if !known {
                    return Err(self.unknown_option(name));
                }
                self.options.record(name, value);
                Ok(String::new())
            }
            "get_option" => match args {
                [name] => self.get_option(name),
                _ => Err("expected get_option NAME".into()),
            },
            "list_options" => none(args).map(|_| {
                self.option_names()
                    .iter()
                    .map(|n| format!("{n} {}", self.get_option(n).unwrap_or_default()))
                    .collect::<Vec<_>>()
                    .join("\n")
            }),
            other => Err(format!(
                "unknown command '{}' (list_commands lists them)",
                other.chars().take(64).collect::<String>()
            )),
        }
    }

    /// `game NAME [key=value ...]`: a new game at its start position.
    fn choose_game(&mut self, args: &[&str]) -> Result<String, String> {
        let Some((name, params)) = args.split_first() else {
            return Err(format!(
                "expected game NAME [key=value ...] (games: {})",
                game_names().join(", ")
            ));
        };
        let spec = GameSpec::parse(name, params)?;
        let mut table = spec.visit(NewTable)?;
        // The game's own options set so far carry over to the new game where it has them.
        let names = table.option_names();
        for (name, value) in self.options.entries() {
            if names.contains(&name.as_str()) {
                table
                    .set_option(name, value)
                    .map_err(|e| format!("{e}; set_option {name} none first"))?;
            }
        }
        self.table = table;
        Ok(canonical_name(spec))
    }
}

/// A new table at a game's start.
struct NewTable;

impl GameVisitor for NewTable {
    type Output = Box<dyn GameTable + Send>;
    fn visit<G: RegisteredGame>(self, start: G) -> Self::Output {
        Box::new(Table::new(start))
    }
}

/// How `game` names a game in its answer: its name and every parameter (`NAME key=value ...`).
pub fn canonical_name(spec: GameSpec) -> String {
    spec.canonical()
}

/// Serves the protocol from a new session: reads commands from `input` until `quit` or its end,
/// writes each answer to `output` and flushes it.
pub fn serve(input: &mut impl BufRead, output: &mut impl Write) -> io::Result<()> {
    serve_session(&mut Session::new(), input, output)
}

/// [`serve`] with a session set up by the caller.
pub fn serve_session(
    session: &mut Session,
    input: &mut impl BufRead,
    output: &mut impl Write,
) -> io::Result<()> {
    while let Some(line) = read_line(input)? {
        let answer = match line {
            Line::TooLong(length) => Answer::Reply(Session::too_long(length)),
            Line::Text(text) => session.handle_line(&text),
        };
        match answer {
            Answer::Nothing => {}
            Answer::Reply(reply) => {
                output.write_all(reply.render().as_bytes())?;
                output.flush()?;
            }
            Answer::Quit(reply) => {
                output.write_all(reply.render().as_bytes())?;
                output.flush()?;
                return Ok(());
            }
        }
    }
    Ok(())
}

/// Plays `input` as a session after `setup` lines and checks what the fuzz targets check:
/// the answers are UTF-8, each framed (`=` or `?`, ending with an empty line). Returns the
/// first problem found.
pub fn fuzz_session(setup: &[&str], input: &[u8]) -> Result<(), String> {
    let mut session = Session::new();
    for line in setup {
        session.handle_line(line);
    }
    let mut out = Vec::new();
    serve_session(&mut session, &mut &input[..], &mut out)
        .map_err(|e| format!("writing to a Vec failed: {e}"))?;
    let text = String::from_utf8(out).map_err(|e| format!("answers are not UTF-8: {e}"))?;
    if !(text.is_empty() || text.ends_with("\n\n")) {
        return Err(format!("the last answer is not framed: {text:?}"));
    }
    match text
        .split_terminator("\n\n")
        .find(|a| !(a.starts_with('=') || a.starts_with('?')))
    {
        Some(answer) => Err(format!("an answer is not framed: {answer:?}")),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests;
