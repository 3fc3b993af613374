//! Dots and Boxes on any board from 1x1 to 7x7 boxes, as a bitboard.
//!
//! * A position is the set of drawn edges (one `u128`, bit = OpenSpiel edge id), the boxes each
//!   player has closed (two `u64`, bit = row-major box index), the scores and the player to move.
//!   A player who closes a box (or two) with an edge moves again.
//! * Move notation: the OpenSpiel action id (`17`), or the readable `h<r>,<c>` for the horizontal
//!   edge from dot (r, c) to dot (r, c+1) and `v<r>,<c>` for the vertical edge from dot (r, c) to
//!   dot (r+1, c). Both are accepted everywhere; the readable form is printed.
//! * Value-net input (the paper's Table 2, for any size): the (2*rows+1) x (2*cols+1) grid without
//!   its dots, row by row; a drawn edge is 0.25 and a free one 0.0 (whoever drew it); a box is 1.0
//!   when free, 0.5 when closed by P1 and 0.75 when closed by P2. 5x5 gives 85 floats.

pub mod analysis;
pub mod bench;
pub mod bench_board;
pub mod chains;
pub mod endgame;
mod engine;
mod geometry;
pub mod knowledge;
pub mod net;
pub mod options;
pub mod players;
pub mod positions;
pub mod qdab;
pub mod rollout;
pub mod solver;
pub mod spec;

pub use knowledge::{DotsKnowledge, EndgameConfig, ExactEndgame, KnowledgeAgent, KnownMove};
pub use players::{GreedyAgent, RivalAgent, RivalConfig, RivalReason};
pub use qdab::{QdabAgent, QdabConfig, QdabReason};
pub use rollout::{ChainRollout, DotsRolloutKind, DotsSearch, TreeMoves};

use std::fmt;

pub use geometry::{EdgeKind, Geometry, Valences, MAX_BOXES, MAX_EDGES, MAX_SIZE};

use crate::game::{Action, ActionError, Game, Outcome, Player};
use crate::rng::{HalfDraws, Rng};

/// Value-net input value of a drawn edge (by either player).
pub const FEATURE_EDGE_DRAWN: f32 = 0.25;
/// Value-net input value of a free edge.
pub const FEATURE_EDGE_FREE: f32 = 0.0;
/// Value-net input value of a box nobody has closed.
pub const FEATURE_BOX_FREE: f32 = 1.0;
/// Value-net input value of a box closed by P1.
pub const FEATURE_BOX_P1: f32 = 0.5;
/// Value-net input value of a box closed by P2.
pub const FEATURE_BOX_P2: f32 = 0.75;

/// The value-net inputs of a position given as its drawn edges and the boxes each player
/// (P1, P2) closed: [`Game::encode_features`] for positions a play-out holds as bits.
pub fn encode_position(geo: &Geometry, edges: u128, owners: [u64; 2], out: &mut [f32]) {
    for e in 0..geo.num_edges {
        out[geo.edge_feature[e] as usize] = if edges >> e & 1 == 1 {
            FEATURE_EDGE_DRAWN
        } else {
            FEATURE_EDGE_FREE
        };
    }
    for b in 0..geo.num_boxes {
        out[geo.box_feature[b] as usize] = if owners[0] >> b & 1 == 1 {
            FEATURE_BOX_P1
        } else if owners[1] >> b & 1 == 1 {
            FEATURE_BOX_P2
        } else {
            FEATURE_BOX_FREE
        };
    }
}

/// Why a position could not be set up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionError {
    BoardSize {
        rows: usize,
        cols: usize,
    },
    /// Move number `index` (0-based) of a move list was refused.
    Move {
        index: usize,
        error: ActionError,
    },
    /// An edge string of the wrong length or with characters other than '0'/'1'.
    EdgeString(String),
    /// Scores, owners or player to move that do not fit the edges.
    Inconsistent(String),
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::BoardSize { rows, cols } => write!(
                f,
                "board size {rows}x{cols} is not supported: rows and columns must be 1 to {MAX_SIZE}"
            ),
            PositionError::Move { index, error } => write!(f, "move {}: {error}", index + 1),
            PositionError::EdgeString(msg) => write!(f, "bad edge string: {msg}"),
            PositionError::Inconsistent(msg) => write!(f, "inconsistent position: {msg}"),
        }
    }
}

impl std::error::Error for PositionError {}

/// A Dots-and-Boxes position.
#[derive(Clone, Copy)]
pub struct DotsAndBoxes {
    geo: &'static Geometry,
    edges: u128,
    p1_boxes: u64,
    p2_boxes: u64,
    scores: [u8; 2],
    to_move: Player,
}

impl PartialEq for DotsAndBoxes {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.geo, other.geo)
            && self.edges == other.edges
            && self.p1_boxes == other.p1_boxes
            && self.p2_boxes == other.p2_boxes
            && self.scores == other.scores
            && self.to_move == other.to_move
    }
}

impl Eq for DotsAndBoxes {}

impl fmt::Debug for DotsAndBoxes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "DotsAndBoxes({}x{}, edges={}, scores={:?}, to_move={})",
            self.geo.rows,
            self.geo.cols,
            self.edge_string(),
            self.scores,
            self.to_move
        )
    }
}

impl DotsAndBoxes {
    /// The empty board of `rows` x `cols` boxes, P1 to move.
    pub fn new(rows: usize, cols: usize) -> Result<DotsAndBoxes, PositionError> {
        if !(1..=MAX_SIZE).contains(&rows) || !(1..=MAX_SIZE).contains(&cols) {
            return Err(PositionError::BoardSize { rows, cols });
        }
        Ok(DotsAndBoxes {
            geo: Geometry::get(rows, cols),
            edges: 0,
            p1_boxes: 0,
            p2_boxes: 0,
            scores: [0, 0],
            to_move: Player::P1,
        })
    }

    /// The position reached from the empty board by `actions`, each checked for legality.
    pub fn from_actions(
        rows: usize,
        cols: usize,
        actions: &[Action],
    ) -> Result<DotsAndBoxes, PositionError> {
        let mut state = DotsAndBoxes::new(rows, cols)?;
        for (index, &a) in actions.iter().enumerate() {
            let text = a.to_string();
            if a as usize >= state.geo.num_edges {
                return Err(PositionError::Move {
                    index,
                    error: state.out_of_range(&text, a as usize),
                });
            }
            if !state.is_legal(a) {
                let detail = if state.is_terminal() {
                    "the game is over".to_string()
                } else {
                    state.illegal_reason(a)
                };
                return Err(PositionError::Move {
                    index,
                    error: ActionError::Illegal { text, detail },
                });
            }
            state.apply(a);
        }
        Ok(state)
    }

    /// The position reached by a move list in text, moves separated by whitespace or ';'
    /// (each an id or `h<r>,<c>` / `v<r>,<c>`).
    pub fn from_move_text(
        rows: usize,
        cols: usize,
        text: &str,
    ) -> Result<DotsAndBoxes, PositionError> {
        let mut state = DotsAndBoxes::new(rows, cols)?;
        for (index, word) in text
            .split(|c: char| c.is_whitespace() || c == ';')
            .filter(|w| !w.is_empty())
            .enumerate()
        {
            let action = state
                .parse_legal_action(word)
                .map_err(|error| PositionError::Move { index, error })?;
            state.apply(action);
        }
        Ok(state)
    }

    /// A position from its edge string ('0'/'1' per edge, in id order), the scores and the
    /// player to move. The edges alone do not say who closed which box: `owners`, if given, is
    /// one character per box in row-major order ('1', '2', or '.'/'0' for an open box); without
    /// it, the first `scores[0]` closed boxes in row-major order are credited to P1 and the rest
    /// to P2 (this only matters for the value-net input).
    pub fn from_edge_string(
        rows: usize,
        cols: usize,
        edge_string: &str,
        scores: [u32; 2],
        to_move: Player,
        owners: Option<&str>,
    ) -> Result<DotsAndBoxes, PositionError> {
        let mut state = DotsAndBoxes::new(rows, cols)?;
        let geo = state.geo;
        let text = edge_string.trim();
        let length = text.chars().count();
        if length != geo.num_edges {
            // Name the boards the string would fit: a position of another size, most likely.
            let fits: Vec<String> = (1..=MAX_SIZE)
                .flat_map(|r| (1..=MAX_SIZE).map(move |c| (r, c)))
                .filter(|&(r, c)| 2 * r * c + r + c == length)
                .map(|(r, c)| format!("{r}x{c}"))
                .collect();
            let of = match fits.len() {
                0 => String::new(),
                _ => format!(" (the edges of a {} board)", fits.join(" or ")),
            };
            return Err(PositionError::EdgeString(format!(
                "a {rows}x{cols} board has {} edges but the string has {length} characters{of}",
                geo.num_edges,
            )));
        }
        for (i, ch) in text.chars().enumerate() {
            match ch {
                '0' => {}
                '1' => state.edges |= 1u128 << i,
                other => {
                    return Err(PositionError::EdgeString(format!(
                        "character {} is '{other}', expected '0' or '1'",
                        i + 1
                    )))
                }
            }
        }
        let closed = geo.closed_boxes(state.edges);
        let num_closed = closed.count_ones();
        if scores[0] + scores[1] != num_closed {
            return Err(PositionError::Inconsistent(format!(
                "scores {} + {} do not add up to the {num_closed} closed boxes",
                scores[0], scores[1]
            )));
        }
        match owners {
            Some(owner_text) => {
                let owner_text = owner_text.trim();
                if owner_text.chars().count() != geo.num_boxes {
                    return Err(PositionError::Inconsistent(format!(
                        "owners string has {} characters, the board has {} boxes",
                        owner_text.chars().count(),
                        geo.num_boxes
                    )));
                }
                for (b, ch) in owner_text.chars().enumerate() {
                    let is_closed = closed >> b & 1 == 1;
                    match (ch, is_closed) {
                        ('1', true) => state.p1_boxes |= 1 << b,
                        ('2', true) => state.p2_boxes |= 1 << b,
                        ('.' | '0', false) => {}
                        _ => {
                            return Err(PositionError::Inconsistent(format!(
                                "owner '{ch}' of box {} (row {}, column {}) does not fit: the box is {}",
                                b + 1,
                                b / cols,
                                b % cols,
                                if is_closed { "closed" } else { "open" }
                            )))
                        }
                    }
                }
                if state.p1_boxes.count_ones() != scores[0] {
                    return Err(PositionError::Inconsistent(format!(
                        "owners give P1 {} boxes but the P1 score is {}",
                        state.p1_boxes.count_ones(),
                        scores[0]
                    )));
                }
            }
            None => {
                let mut remaining = closed;
                for _ in 0..scores[0] {
                    let low = remaining & remaining.wrapping_neg();
                    state.p1_boxes |= low;
                    remaining ^= low;
                }
                state.p2_boxes = remaining;
            }
        }
        state.scores = [scores[0] as u8, scores[1] as u8];
        state.to_move = to_move;
        Ok(state)
    }

    /// The board's tables (size, edge ids, box masks).
    pub fn geometry(&self) -> &'static Geometry {
        self.geo
    }

    pub fn rows(&self) -> usize {
        self.geo.rows
    }

    pub fn cols(&self) -> usize {
        self.geo.cols
    }

    pub fn num_edges(&self) -> usize {
        self.geo.num_edges
    }

    /// The drawn edges as a bitset (bit = edge id).
    pub fn edges(&self) -> u128 {
        self.edges
    }

    /// Number of edges drawn.
    pub fn edges_drawn(&self) -> u32 {
        self.edges.count_ones()
    }

    /// Boxes closed by P1 and by P2 (bit = row-major box index).
    pub fn box_owners(&self) -> [u64; 2] {
        [self.p1_boxes, self.p2_boxes]
    }

    /// '0'/'1' per edge in id order.
    pub fn edge_string(&self) -> String {
        (0..self.geo.num_edges)
            .map(|e| if self.edges >> e & 1 == 1 { '1' } else { '0' })
            .collect()
    }

    /// '1', '2' or '.' per box in row-major order.
    pub fn owner_string(&self) -> String {
        (0..self.geo.num_boxes)
            .map(|b| {
                if self.p1_boxes >> b & 1 == 1 {
                    '1'
                } else if self.p2_boxes >> b & 1 == 1 {
                    '2'
                } else {
                    '.'
                }
            })
            .collect()
    }

    /// The score of the player to move minus the opponent's.
    pub fn lead_of_mover(&self) -> i32 {
        let lead = self.scores[0] as i32 - self.scores[1] as i32;
        match self.to_move {
            Player::P1 => lead,
            Player::P2 => -lead,
        }
    }

    /// Writes the free edges in ascending id order into `order`; their count. (The random
    /// playouts draw from this array without replacement.)
    #[inline]
    pub fn free_edges_into(&self, order: &mut [u8; MAX_EDGES]) -> usize {
        let mut n = 0usize;
        let mut free = !self.edges & self.geo.all_edges;
        while free != 0 {
            order[n] = free.trailing_zeros() as u8;
            n += 1;
            free &= free - 1;
        }
        n
    }

    /// Number of boxes `action` would close now.
    #[inline]
    pub fn boxes_closed_by(&self, action: Action) -> u32 {
        self.geo.boxes_closed_by(self.edges, action as usize)
    }

    fn out_of_range(&self, text: &str, id: usize) -> ActionError {
        ActionError::OutOfRange {
            text: text.to_string(),
            detail: format!(
                "edge id {id} but a {}x{} board has ids 0 to {}",
                self.geo.rows,
                self.geo.cols,
                self.geo.num_edges - 1
            ),
        }
    }
}

impl Game for DotsAndBoxes {
    fn name(&self) -> &'static str {
        "dots_and_boxes"
    }

    #[inline]
    fn to_move(&self) -> Player {
        self.to_move
    }

    #[inline]
    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        let mut free = !self.edges & self.geo.all_edges;
        while free != 0 {
            out.push(free.trailing_zeros() as Action);
            free &= free - 1;
        }
    }

    #[inline]
    fn max_actions(&self) -> usize {
        self.geo.num_edges
    }

    #[inline]
    fn is_legal(&self, action: Action) -> bool {
        (action as usize) < self.geo.num_edges && self.edges >> action & 1 == 0
    }

    #[inline]
    fn apply(&mut self, action: Action) {
        debug_assert!(self.is_legal(action), "illegal edge {action}");
        let e = action as usize;
        self.edges |= 1u128 << e;
        let mut closed = 0;
        for slot in 0..2 {
            let m = self.geo.edge_box_masks[e][slot];
            if self.edges & m == m {
                let b = self.geo.edge_boxes[e][slot];
                match self.to_move {
                    Player::P1 => self.p1_boxes |= 1 << b,
                    Player::P2 => self.p2_boxes |= 1 << b,
                }
                closed += 1;
            }
        }
        if closed == 0 {
            self.to_move = self.to_move.opponent();
        } else {
            self.scores[self.to_move.index()] += closed;
        }
    }

    #[inline]
    fn is_terminal(&self) -> bool {
        self.edges == self.geo.all_edges
    }

    #[inline]
    fn outcome(&self) -> Option<Outcome> {
        self.is_terminal()
            .then(|| Outcome::from_scores(self.scores[0] as u32, self.scores[1] as u32))
    }

    #[inline]
    fn scores(&self) -> Option<[u32; 2]> {
        Some([self.scores[0] as u32, self.scores[1] as u32])
    }

    fn feature_len(&self) -> usize {
        self.geo.num_edges + self.geo.num_boxes
    }

    fn encode_features(&self, out: &mut [f32]) {
        assert_eq!(out.len(), self.feature_len(), "feature buffer length");
        encode_position(self.geo, self.edges, [self.p1_boxes, self.p2_boxes], out);
    }

    fn parse_action(&self, text: &str) -> Result<Action, ActionError> {
        let t = text.trim();
        let malformed = || ActionError::Malformed {
            text: t.to_string(),
            expected: "an edge id (0, 1, ...) or h<row>,<col> / v<row>,<col> (e.g. h0,1 or v2,0)"
                .into(),
        };
        if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
            let id: usize = t.parse().map_err(|_| malformed())?;
            if id >= self.geo.num_edges {
                return Err(self.out_of_range(t, id));
            }
            return Ok(id as Action);
        }
        let mut chars = t.chars();
        let kind = match chars.next().map(|c| c.to_ascii_lowercase()) {
            Some('h') => EdgeKind::Horizontal,
            Some('v') => EdgeKind::Vertical,
            _ => return Err(malformed()),
        };
        let rest = chars.as_str();
        let (r, c) = rest.split_once(',').ok_or_else(malformed)?;
        let r: usize = r.trim().parse().map_err(|_| malformed())?;
        let c: usize = c.trim().parse().map_err(|_| malformed())?;
        let (rows, cols) = (self.geo.rows, self.geo.cols);
        let (max_r, max_c) = match kind {
            EdgeKind::Horizontal => (rows, cols - 1),
            EdgeKind::Vertical => (rows - 1, cols),
        };
        if r > max_r || c > max_c {
            return Err(ActionError::OutOfRange {
                text: t.to_string(),
                detail: format!(
                    "on a {rows}x{cols} board {} edges have rows 0 to {max_r} and columns 0 to {max_c}",
                    match kind {
                        EdgeKind::Horizontal => "horizontal",
                        EdgeKind::Vertical => "vertical",
                    }
                ),
            });
        }
        Ok(match kind {
            EdgeKind::Horizontal => self.geo.horizontal(r, c),
            EdgeKind::Vertical => self.geo.vertical(r, c),
        } as Action)
    }

    fn illegal_reason(&self, action: Action) -> String {
        format!("{} is already drawn", self.format_action(action))
    }

    fn format_action(&self, action: Action) -> String {
        let (kind, r, c) = self.geo.edge_coords(action as usize);
        match kind {
            EdgeKind::Horizontal => format!("h{r},{c}"),
            EdgeKind::Vertical => format!("v{r},{c}"),
        }
    }

    /// A random playout: every free edge is legal whatever happens, so a uniformly random game
    /// is a uniformly random order of the free edges. Draw them one by one without replacement
    /// (an inside-out Fisher-Yates shuffle), and stop as soon as the lead is larger than the
    /// boxes left, when the outcome can no longer change.
    #[inline]
    fn random_rollout(&mut self, rng: &mut Rng) -> Outcome {
        let geo = self.geo;
        let mut order = [0u8; MAX_EDGES];
        let n = self.free_edges_into(&mut order);
        let mut playout = Playout {
            lead: self.scores[0] as i32 - self.scores[1] as i32,
            sign: if self.to_move == Player::P1 { 1 } else { -1 },
            left: (geo.num_boxes as u32 - self.scores[0] as u32 - self.scores[1] as u32) as i32,
        };
        if geo.fits_u64() {
            playout.run(
                self.edges as u64,
                &geo.edge_box_masks64,
                &mut order[..n],
                rng,
            );
        } else {
            playout.run(self.edges, &geo.edge_box_masks, &mut order[..n], rng);
        }
        match playout.lead.signum() {
            1 => Outcome::P1Win,
            -1 => Outcome::P2Win,
            _ => Outcome::Draw,
        }
    }
}

/// The running state of a random playout: P1's lead, +1/-1 for the player to move, boxes left.
struct Playout {
    lead: i32,
    sign: i32,
    left: i32,
}

/// The edge bitset of a playout: one machine word when the board fits, else 128 bits.
trait EdgeBits: Copy + Eq + std::ops::BitOr<Output = Self> + std::ops::BitAnd<Output = Self> {
    fn bit(e: usize) -> Self;
}

impl EdgeBits for u64 {
    #[inline(always)]
    fn bit(e: usize) -> u64 {
        1 << e
    }
}

impl EdgeBits for u128 {
    #[inline(always)]
    fn bit(e: usize) -> u128 {
        1 << e
    }
}

impl Playout {
    #[inline(always)]
    fn run<B: EdgeBits>(
        &mut self,
        mut edges: B,
        masks: &[[B; 2]; MAX_EDGES],
        order: &mut [u8],
        rng: &mut Rng,
    ) {
        let n = order.len();
        let mut draws = HalfDraws::new(rng);
        for i in 0..n {
            // Take a uniformly random edge of order[i..]; the edge at i moves into its place
            // (order[i] itself is never read again, so it need not be written).
            let j = i + draws.below((n - i) as u32) as usize;
            let e = order[j] as usize;
            order[j] = order[i];
            edges = edges | B::bit(e);
            let [a, b] = masks[e];
            let closed = (edges & a == a) as i32 + (edges & b == b) as i32;
            // Branch-free: captures are too frequent and too random to predict.
            self.lead += self.sign * closed;
            self.left -= closed;
            self.sign = if closed == 0 { -self.sign } else { self.sign };
            if self.lead.abs() > self.left {
                break;
            }
        }
    }
}

impl fmt::Display for DotsAndBoxes {
    /// The board with dot rows and columns numbered, boxes marked with their owner (1 or 2),
    /// then the scores and the player to move.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let geo = self.geo;
        let drawn = |e: usize| self.edges >> e & 1 == 1;
        write!(f, "   ")?;
        for c in 0..=geo.cols {
            write!(f, "{c:<4}")?;
        }
        writeln!(f)?;
        for r in 0..=geo.rows {
            write!(f, "{r:>2} +")?;
            for c in 0..geo.cols {
                let seg = if drawn(geo.horizontal(r, c)) {
                    "---"
                } else {
                    "   "
                };
                write!(f, "{seg}+")?;
            }
            writeln!(f)?;
            if r == geo.rows {
                break;
            }
            write!(f, "   ")?;
            for c in 0..=geo.cols {
                write!(f, "{}", if drawn(geo.vertical(r, c)) { '|' } else { ' ' })?;
                if c < geo.cols {
                    let b = r * geo.cols + c;
                    let mark = if self.p1_boxes >> b & 1 == 1 {
                        '1'
                    } else if self.p2_boxes >> b & 1 == 1 {
                        '2'
                    } else {
                        ' '
                    };
                    write!(f, " {mark} ")?;
                }
            }
            writeln!(f)?;
        }
        write!(f, "P1 {} - P2 {}", self.scores[0], self.scores[1])?;
        match self.outcome() {
            Some(o) => write!(f, ", game over: {o}"),
            None => write!(f, ", {} to move", self.to_move),
        }
    }
}

#[cfg(test)]
mod tests;
