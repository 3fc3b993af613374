//! The game on the protocol's table: its position and the history `undo` walks back. What each
//! game adds (its position text, how the engine searches it) is its registry entry.

use super::settings::{Notation, Settings};
use crate::game::Action;
use crate::games::{GameSpec, RegisteredGame};

/// The game being played, as the protocol drives it (object safe, so the `game` command can
/// swap games).
pub trait GameTable {
    fn spec(&self) -> GameSpec;
    fn clear_board(&mut self);
    fn set_position(&mut self, args: &[&str]) -> Result<(), String>;
    fn play(&mut self, text: &str) -> Result<(), String>;
    /// Searches, plays and returns the move.
    fn genmove(&mut self, settings: &Settings) -> Result<String, String>;
    fn legal_moves(&self, notation: Notation) -> String;
    fn to_move(&self) -> Result<String, String>;
    fn score(&self) -> Result<String, String>;
    fn is_over(&self) -> bool;
    fn result(&self) -> &'static str;
    fn showboard(&self) -> String;
    fn undo(&mut self) -> Result<(), String>;
    fn position(&self) -> String;
    /// Sets one of the game's own options; `Ok(false)`: the game has none of that name.
    fn set_option(&mut self, name: &str, value: &str) -> Result<bool, String>;
    /// The value of one of the game's own options.
    fn get_option(&self, name: &str) -> Option<String>;
    /// The names of the game's own options.
    fn option_names(&self) -> Vec<&'static str>;
}

/// A game's start position, current position and history.
pub struct Table<G: RegisteredGame> {
    start: G,
    state: G,
    /// Positions before each `play` or `genmove` since the start or the last `set_position`
    /// (a whole turn of several plies is one entry).
    history: Vec<G>,
    memory: G::Memory,
    options: G::Options,
}

impl<G: RegisteredGame> Table<G> {
    pub fn new(start: G) -> Table<G> {
        Table {
            state: start.clone(),
            start,
            history: Vec::new(),
            memory: G::Memory::default(),
            options: G::Options::default(),
        }
    }

    fn format(&self, action: Action, notation: Notation) -> String {
        match notation {
            Notation::Text => self.state.format_action(action),
            Notation::Id => action.to_string(),
        }
    }
}

impl<G: RegisteredGame> GameTable for Table<G> {
    fn spec(&self) -> GameSpec {
        self.state.spec()
    }

    fn clear_board(&mut self) {
        self.state = self.start.clone();
        self.history.clear();
    }

    fn set_position(&mut self, args: &[&str]) -> Result<(), String> {
        self.state = self.state.parse_position(args)?;
        self.history.clear();
        Ok(())
    }

    fn play(&mut self, text: &str) -> Result<(), String> {
        let plies = self
            .state
            .parse_legal_plies(text)
            .map_err(|e| e.to_string())?;
        self.history.push(self.state.clone());
        for a in plies {
            self.state.apply(a);
        }
        Ok(())
    }

    fn genmove(&mut self, settings: &Settings) -> Result<String, String> {
        if self.state.is_terminal() {
            return Err("the game is over".into());
        }
        let before = self.state.clone();
        let mut played = Vec::new();
        let mut state = self.state.clone();
        // A whole turn: the plies the search saw, then more searches while the turn goes on
        // (unless plies are asked for).
        loop {
            let config = settings.search_config((self.history.len() + played.len()) as u64)?;
            let searched = state.engine_search(&self.options, config, &mut self.memory)?;
            for a in searched.plies {
                if state.is_terminal() || !state.is_legal(a) {
                    break;
                }
                state.apply(a);
                played.push(a);
                if !state.mid_turn() || settings.plies {
                    break;
                }
            }
            if !state.mid_turn() || settings.plies || state.is_terminal() {
                break;
            }
        }
        let text = match settings.notation {
            Notation::Text => before.format_plies(&played),
            Notation::Id => played
                .iter()
                .map(|a| a.to_string())
                .collect::<Vec<_>>()
                .join(" "),
        };
        self.history.push(before);
        self.state = state;
        Ok(text)
    }

    fn legal_moves(&self, notation: Notation) -> String {
        let mut actions = Vec::new();
        self.state.legal_actions(&mut actions);
        let words: Vec<String> = actions.iter().map(|&a| self.format(a, notation)).collect();
        words.join(" ")
    }

    fn to_move(&self) -> Result<String, String> {
        if self.state.is_terminal() {
            return Err("the game is over".into());
        }
        Ok(self.state.to_move().number().to_string())
    }

    fn score(&self) -> Result<String, String> {
        match self.state.scores() {
            Some([a, b]) => Ok(format!("{a} {b}")),
            None => Err(format!("{} keeps no score", self.state.name())),
        }
    }

    fn is_over(&self) -> bool {
        self.state.is_terminal()
    }

    fn result(&self) -> &'static str {
        match self.state.outcome() {
            Some(crate::Outcome::P1Win) => "1",
            Some(crate::Outcome::P2Win) => "2",
            Some(crate::Outcome::Draw) => "draw",
            None => "none",
        }
    }

    fn showboard(&self) -> String {
        format!("\n{}", self.state)
    }

    fn undo(&mut self) -> Result<(), String> {
        match self.history.pop() {
            Some(previous) => {
                self.state = previous;
                Ok(())
            }
            None => Err("cannot undo: no move played since the start or set_position".into()),
        }
    }

    fn position(&self) -> String {
        self.state.position_text()
    }

    fn set_option(&mut self, name: &str, value: &str) -> Result<bool, String> {
        self.start.set_option(&mut self.options, name, value)
    }

    fn get_option(&self, name: &str) -> Option<String> {
        self.start.get_option(&self.options, name)
    }

    fn option_names(&self) -> Vec<&'static str> {
        G::OPTIONS.iter().map(|o| o.name).collect()
    }
}
