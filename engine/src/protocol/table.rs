//! The game on the protocol's table: its position, the history `undo` walks back, and what
//! each game adds (its position text, how it searches).

use std::sync::Arc;

use super::settings::{Notation, Settings};
use crate::agents::{DotsKnowledge, EndgameConfig};
use crate::game::{Action, Game};
use crate::games::{DotsAndBoxes, GameSpec, TicTacToe};
use crate::mcts::{Search, SearchConfig, Ucb};
use crate::nn::NetRollout;
use crate::Player;

/// What the protocol needs of a game beyond [`Game`].
pub trait ProtocolGame: Game {
    fn spec(&self) -> GameSpec;
    /// The position `set_position` describes (same game and size as `self`).
    fn parse_position(&self, args: &[&str]) -> Result<Self, String>;
    /// The position as `set_position` arguments.
    fn position_text(&self) -> String;
    /// What a game keeps from move to move to choose its moves (the solver's table).
    type Memory: Default;
    /// The move for this position: searched with the settings (and the net and knowledge,
    /// where the game has them).
    fn choose(
        &self,
        settings: &Settings,
        config: SearchConfig,
        memory: &mut Self::Memory,
    ) -> Result<Action, String>;
}

impl ProtocolGame for DotsAndBoxes {
    fn spec(&self) -> GameSpec {
        GameSpec::DotsAndBoxes {
            rows: self.rows() as u8,
            cols: self.cols() as u8,
        }
    }

    /// `EDGES P1_SCORE P2_SCORE TO_MOVE [OWNERS]`.
    fn parse_position(&self, args: &[&str]) -> Result<DotsAndBoxes, String> {
        let usage = "set_position EDGES P1_SCORE P2_SCORE TO_MOVE [OWNERS]";
        if !(4..=5).contains(&args.len()) {
            return Err(format!("expected {usage}, got {} arguments", args.len()));
        }
        let score = |text: &str| {
            text.parse::<u32>()
                .map_err(|_| format!("a score is a whole number, got '{text}'"))
        };
        let to_move = Player::parse(args[3])
            .ok_or_else(|| format!("the player to move is 1 or 2, got '{}'", args[3]))?;
        DotsAndBoxes::from_edge_string(
            self.rows(),
            self.cols(),
            args[0],
            [score(args[1])?, score(args[2])?],
            to_move,
            args.get(4).copied(),
        )
        .map_err(|e| e.to_string())
    }

    fn position_text(&self) -> String {
        let [a, b] = self.scores().expect("Dots and Boxes keeps scores");
        format!(
            "{} {a} {b} {} {}",
            self.edge_string(),
            self.to_move().number(),
            self.owner_string()
        )
    }

    type Memory = DotsKnowledge;

    fn choose(
        &self,
        settings: &Settings,
        config: SearchConfig,
        knowledge: &mut DotsKnowledge,
    ) -> Result<Action, String> {
        knowledge.configure(
            EndgameConfig::from_edges(settings.solver_edges),
            settings.safe_first,
        );
        let mut root_moves = Vec::new();
        if let Some(known) = knowledge.known_move(self, &mut root_moves) {
            return Ok(known.action());
        }
        let cp = config.cp;
        let result = match &settings.model {
            Some((_, net)) => {
                let rollout = NetRollout::new(Arc::clone(net), settings.guide)?;
                Search::new(config, Ucb::new(cp), rollout).run_among(self, &root_moves)
            }
            None => Search::plain(config).run_among(self, &root_moves),
        };
        result.map(|r| r.best).map_err(|e| e.to_string())
    }
}

impl ProtocolGame for TicTacToe {
    fn spec(&self) -> GameSpec {
        GameSpec::TicTacToe
    }

    /// `BOARD`: nine cells row by row, each X, O or '.'.
    fn parse_position(&self, args: &[&str]) -> Result<TicTacToe, String> {
        match args {
            [board] => TicTacToe::from_board_string(board),
            _ => Err(format!(
                "expected set_position BOARD (nine cells of X, O or '.'), got {} arguments",
                args.len()
            )),
        }
    }

    fn position_text(&self) -> String {
        self.board_string()
    }

    type Memory = ();

    fn choose(
        &self,
        _settings: &Settings,
        config: SearchConfig,
        _: &mut (),
    ) -> Result<Action, String> {
        Search::plain(config)
            .run(self)
            .map(|r| r.best)
            .map_err(|e| e.to_string())
    }
}

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
}

/// A game's start position, current position and history.
pub struct Table<G: ProtocolGame> {
    start: G,
    state: G,
    /// Positions before each move played since the start or the last `set_position`.
    history: Vec<G>,
    memory: G::Memory,
}

impl<G: ProtocolGame> Table<G> {
    pub fn new(start: G) -> Table<G> {
        Table {
            state: start.clone(),
            start,
            history: Vec::new(),
            memory: G::Memory::default(),
        }
    }

    fn format(&self, action: Action, notation: Notation) -> String {
        match notation {
            Notation::Text => self.state.format_action(action),
            Notation::Id => action.to_string(),
        }
    }
}

impl<G: ProtocolGame> GameTable for Table<G> {
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
        let action = self
            .state
            .parse_legal_action(text)
            .map_err(|e| e.to_string())?;
        self.history.push(self.state.clone());
        self.state.apply(action);
        Ok(())
    }

    fn genmove(&mut self, settings: &Settings) -> Result<String, String> {
        if self.state.is_terminal() {
            return Err("the game is over".into());
        }
        let config = settings.search_config(self.history.len() as u64)?;
        let best = self.state.choose(settings, config, &mut self.memory)?;
        let text = self.format(best, settings.notation);
        self.history.push(self.state.clone());
        self.state.apply(best);
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
}
