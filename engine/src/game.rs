//! The `Game` trait every game implements, and the small types the search shares with it.
//!
//! Design points, checked against the games that come after Dots and Boxes:
//!
//! * **Actions are `u16` ids.** Dots and Boxes uses OpenSpiel's edge numbering (< 112 on 7x7),
//!   Gomoku a cell (< 225), Surakarta a (from, to) pair (< 36 * 36), and Amazons is searched as
//!   two plies of the same player (queen move `from * 100 + to` < 10,000, then an arrow square),
//!   so every game fits 16 bits and a tree node stays small.
//! * **Turns need not alternate.** `to_move` is asked after every action; nothing in the search
//!   assumes the player changes (a Dots-and-Boxes capture, an Amazons queen move before its arrow).
//! * **Outcomes are absolute** (P1 win, P2 win, draw): the same three classes the value net
//!   predicts and the search backs up.
//! * **No allocation in the search loop.** `legal_actions` fills a buffer the caller owns and
//!   reuses; `encode_features` fills a caller's slice.

use std::fmt;

use crate::rng::Rng;

/// A move (or one ply of a multi-ply turn) as a game-specific id.
pub type Action = u16;

/// One of the two players. P1 moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub enum Player {
    P1,
    P2,
}

impl Player {
    /// The other player.
    #[inline]
    pub fn opponent(self) -> Player {
        match self {
            Player::P1 => Player::P2,
            Player::P2 => Player::P1,
        }
    }

    /// 0 for P1, 1 for P2: an index into per-player arrays.
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// 1 or 2, as shown to people and written in protocols.
    pub fn number(self) -> u8 {
        self as u8 + 1
    }

    /// Parses `1`/`2` (also `p1`/`P2`).
    pub fn parse(text: &str) -> Option<Player> {
        match text.trim().to_ascii_lowercase().as_str() {
            "1" | "p1" => Some(Player::P1),
            "2" | "p2" => Some(Player::P2),
            _ => None,
        }
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "P{}", self.number())
    }
}

/// The result of a finished game, in absolute terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Outcome {
    P1Win,
    P2Win,
    Draw,
}

impl Outcome {
    /// The outcome given both players' final scores.
    #[inline]
    pub fn from_scores(p1: u32, p2: u32) -> Outcome {
        match p1.cmp(&p2) {
            std::cmp::Ordering::Greater => Outcome::P1Win,
            std::cmp::Ordering::Less => Outcome::P2Win,
            std::cmp::Ordering::Equal => Outcome::Draw,
        }
    }

    /// The outcome in which `player` wins.
    #[inline]
    pub fn win_for(player: Player) -> Outcome {
        match player {
            Player::P1 => Outcome::P1Win,
            Player::P2 => Outcome::P2Win,
        }
    }

    /// The winner, if any.
    pub fn winner(self) -> Option<Player> {
        match self {
            Outcome::P1Win => Some(Player::P1),
            Outcome::P2Win => Some(Player::P2),
            Outcome::Draw => None,
        }
    }

    /// +1 for a win of `player`, -1 for a loss, 0 for a draw.
    pub fn value_for(self, player: Player) -> i32 {
        match self.winner() {
            Some(p) if p == player => 1,
            Some(_) => -1,
            None => 0,
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Outcome::P1Win => "P1 wins",
            Outcome::P2Win => "P2 wins",
            Outcome::Draw => "draw",
        })
    }
}

/// Why a move text or a move id was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ActionError {
    /// The text is not a move in this game's notation.
    Malformed { text: String, expected: String },
    /// The text names a move that does not exist on this board.
    OutOfRange { text: String, detail: String },
    /// The move exists but cannot be played in this position.
    Illegal { text: String, detail: String },
}

impl fmt::Display for ActionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ActionError::Malformed { text, expected } => {
                write!(f, "cannot read move '{text}': expected {expected}")
            }
            ActionError::OutOfRange { text, detail } => {
                write!(f, "move '{text}' is not on this board: {detail}")
            }
            ActionError::Illegal { text, detail } => {
                write!(f, "move '{text}' is illegal here: {detail}")
            }
        }
    }
}

impl std::error::Error for ActionError {}

/// The rules of one game, as a position that actions change in place.
///
/// A value of the implementing type is a whole position (board, scores, player to move), cheap
/// to clone: the search clones the root once per iteration.
pub trait Game: Clone + Send + Sync + fmt::Display + 'static {
    /// The canonical name of the game, as the CLI and the protocol spell it.
    fn name(&self) -> &'static str;

    /// The player who makes the next action. Meaningless once the game is over.
    fn to_move(&self) -> Player;

    /// Clears `out` and fills it with the legal actions in ascending id order.
    /// Reserve `max_actions()` once and this never allocates.
    fn legal_actions(&self, out: &mut Vec<Action>);

    /// An upper bound on the number of legal actions in any position of this game.
    fn max_actions(&self) -> usize;

    /// Whether `action` can be played now.
    fn is_legal(&self, action: Action) -> bool;

    /// Plays `action` for the player to move. The action must be legal (checked in debug builds).
    fn apply(&mut self, action: Action);

    /// Whether the game is over.
    fn is_terminal(&self) -> bool;

    /// The result once the game is over, `None` before.
    fn outcome(&self) -> Option<Outcome>;

    /// Current scores `[P1, P2]` for games that keep score.
    fn scores(&self) -> Option<[u32; 2]> {
        None
    }

    /// Length of the value-net input vector for this game and board size.
    fn feature_len(&self) -> usize;

    /// Writes the value-net input for this position into `out` (`out.len() == feature_len()`).
    fn encode_features(&self, out: &mut [f32]);

    /// Reads one action in the game's notation (every accepted form is listed in its docs).
    /// Legality is not checked here; see [`Game::parse_legal_action`].
    fn parse_action(&self, text: &str) -> Result<Action, ActionError>;

    /// The readable notation of `action`.
    fn format_action(&self, action: Action) -> String;

    /// Plays random legal actions until the game ends and returns its outcome. Games override
    /// this with something faster when they can; the default is the textbook loop.
    fn random_rollout(&mut self, rng: &mut Rng) -> Outcome {
        let mut buf = Vec::with_capacity(self.max_actions());
        while !self.is_terminal() {
            self.legal_actions(&mut buf);
            let pick = rng.pick(&buf);
            self.apply(pick);
        }
        self.outcome().expect("a terminal position has an outcome")
    }

    /// Parses an action and checks that it is legal in this position.
    fn parse_legal_action(&self, text: &str) -> Result<Action, ActionError> {
        let action = self.parse_action(text)?;
        if self.is_terminal() {
            return Err(ActionError::Illegal {
                text: text.to_string(),
                detail: "the game is over".into(),
            });
        }
        if !self.is_legal(action) {
            return Err(ActionError::Illegal {
                text: text.to_string(),
                detail: self.illegal_reason(action),
            });
        }
        Ok(action)
    }

    /// Why an existing action cannot be played now, in words for people.
    fn illegal_reason(&self, action: Action) -> String {
        format!("{} is not available", self.format_action(action))
    }

    /// Whether the player to move is in the middle of a turn of several plies (an Amazons
    /// arrow due after the queen move): commands that answer whole turns play on until it ends.
    fn mid_turn(&self) -> bool {
        false
    }

    /// Reads a move text that may stand for several plies (an Amazons turn `d1-d7/g7` in a game
    /// searched ply by ply) and checks each in turn; by default one action.
    fn parse_legal_plies(&self, text: &str) -> Result<Vec<Action>, ActionError> {
        self.parse_legal_action(text).map(|a| vec![a])
    }

    /// A start position written in a format of the game's own (Gomocup's openings: `x,y, x,y`
    /// offsets from the centre) as its moves, each checked; `None` when `line` is not in such
    /// a format, to be read as moves in the game's notation.
    fn parse_start_line(&self, _line: &str) -> Option<Result<Vec<Action>, String>> {
        None
    }

    /// The notation of `plies` played one after the other from this position (a whole turn);
    /// by default the plies' notations separated by spaces.
    fn format_plies(&self, plies: &[Action]) -> String {
        let mut state = self.clone();
        let mut words = Vec::with_capacity(plies.len());
        for &a in plies {
            words.push(state.format_action(a));
            state.apply(a);
        }
        words.join(" ")
    }
}
