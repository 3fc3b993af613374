//! The shapes a stone makes along one line, and the pattern heuristic built on them (the
//! paper's section 4.2: "for each move ... consider patterns around the move in 4 directions ...
//! give each an empirical score ... add them up").
//!
//! A shape is what a stone of one player on a point makes through that point in one direction,
//! read from the five points either side (the most a five through the point can reach, and the
//! point beyond it, which decides an overline). The eleven points are one index into a table of
//! 3^10 entries (each neighbour empty, the player's, or blocked: the opponent's or off the
//! board), built once from these definitions, each from the one above it:
//!
//! * **five**: a winning run through the point (five or more; exactly five under the rules where
//!   an overline does not win).
//! * **live four**: two or more empty points in the line that would each make five with it
//!   (`.XXXX.`, also `X.XXX.X`): one block cannot stop it.
//! * **four**: exactly one such point.
//! * **live three**: a point that makes a live four (`.XXX..`, `.X.XX.`).
//! * **three**: a point that makes a four.
//! * **live two** / **two** / **one**: a point that makes a live three / a three / a two.
//!
//! Renju's forbidden points are the rules' business ([`super::renju`]); the heuristic only
//! scores the points the rules let a player take.

use super::{Gomoku, DIRECTIONS};
use crate::game::{Game, Player};
use std::sync::OnceLock;

/// A shape along one line, weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Shape {
    None = 0,
    One,
    Two,
    LiveTwo,
    Three,
    LiveThree,
    Four,
    LiveFour,
    Five,
}

impl Shape {
    /// Every shape, in the order of their weights.
    pub const ALL: [Shape; 9] = [
        Shape::None,
        Shape::One,
        Shape::Two,
        Shape::LiveTwo,
        Shape::Three,
        Shape::LiveThree,
        Shape::Four,
        Shape::LiveFour,
        Shape::Five,
    ];

    pub const NAMES: [&'static str; 9] = [
        "none",
        "one",
        "two",
        "live-two",
        "three",
        "live-three",
        "four",
        "live-four",
        "five",
    ];

    fn from_u8(v: u8) -> Shape {
        Shape::ALL[v as usize]
    }

    /// Whether the line threatens five next move (a four or a live four).
    #[inline]
    pub fn is_four(self) -> bool {
        matches!(self, Shape::Four | Shape::LiveFour)
    }
}

/// Points either side of the centre the table reads.
const REACH: i32 = 5;
/// Table entries: three states for each of the ten neighbours.
const ENTRIES: usize = 59_049;
/// The centre's bit in a window's masks (bit `i` is offset `i - 5`).
const CENTRE: u32 = 1 << 5;

/// A neighbour's state in a table index.
const EMPTY: usize = 0;
const MINE: usize = 1;
const BLOCKED: usize = 2;

/// The shapes by window index where five or more wins, or (`exactly`) only five.
fn table(exactly: bool) -> &'static [u8] {
    static TABLES: OnceLock<[Vec<u8>; 2]> = OnceLock::new();
    &TABLES.get_or_init(|| [build(false), build(true)])[usize::from(exactly)]
}

/// The table's position of a neighbour at `offset` (-5..=5, not 0).
#[inline]
pub(super) fn digit(offset: i32) -> usize {
    if offset < 0 {
        (offset + REACH) as usize
    } else {
        (offset + REACH - 1) as usize
    }
}

/// 3^i for the ten positions.
const POWERS: [usize; 10] = {
    let mut p = [1usize; 10];
    let mut i = 1;
    while i < 10 {
        p[i] = p[i - 1] * 3;
        i += 1;
    }
    p
};

/// The masks (the player's stones with the centre, the empty points) of a table index.
fn masks(index: usize) -> (u32, u32) {
    let (mut mine, mut empty) = (CENTRE, 0u32);
    let mut rest = index;
    for offset in (-REACH..=REACH).filter(|&o| o != 0) {
        let bit = 1u32 << (offset + REACH);
        match rest % 3 {
            EMPTY => empty |= bit,
            MINE => mine |= bit,
            _ => {}
        }
        rest /= 3;
        debug_assert!(digit(offset) < 10);
    }
    (mine, empty)
}

/// The run of stones through the centre.
fn run_through_centre(mine: u32) -> u32 {
    let right = (!(mine >> 5)).trailing_zeros();
    let left = (!(mine << (31 - 5))).leading_zeros();
    right + left - 1
}

fn is_five(mine: u32, exactly: bool) -> bool {
    let run = run_through_centre(mine);
    if exactly {
        run == 5
    } else {
        run >= 5
    }
}

fn build(exactly: bool) -> Vec<u8> {
    let mut memo = std::collections::HashMap::new();
    (0..ENTRIES)
        .map(|index| {
            let (mine, empty) = masks(index);
            classify(mine, empty, exactly, &mut memo) as u8
        })
        .collect()
}

/// The shape of the centre's line, by the definitions above (memoised on the masks).
fn classify(
    mine: u32,
    empty: u32,
    exactly: bool,
    memo: &mut std::collections::HashMap<(u32, u32), Shape>,
) -> Shape {
    if let Some(&s) = memo.get(&(mine, empty)) {
        return s;
    }
    let shape = if is_five(mine, exactly) {
        Shape::Five
    } else if run_through_centre(mine) > 5 {
        // An overline that does not win: the line is dead for this point.
        Shape::None
    } else {
        let points = (0..11).map(|i| 1u32 << i).filter(|b| empty & b != 0);
        let fives = points
            .clone()
            .filter(|&b| is_five(mine | b, exactly))
            .count();
        match fives {
            0 => {
                let best = points
                    .map(|b| classify(mine | b, empty & !b, exactly, memo))
                    .max()
                    .unwrap_or(Shape::None);
                match best {
                    Shape::LiveFour => Shape::LiveThree,
                    Shape::Four => Shape::Three,
                    Shape::LiveThree => Shape::LiveTwo,
                    Shape::Three => Shape::Two,
                    Shape::LiveTwo | Shape::Two => Shape::One,
                    _ => Shape::None,
                }
            }
            1 => Shape::Four,
            _ => Shape::LiveFour,
        }
    };
    memo.insert((mine, empty), shape);
    shape
}

/// The shapes by neighbour code, for the incremental board ([`super::shape_board`]): a key
/// holds two bits a neighbour in [`digit`]'s order (0 empty, 1 black, 2 white, 3 off the
/// board), and the entry is the shape a stone of `colour` (1 black, 2 white) makes between
/// them, five or more winning or (`exactly`) only five.
pub(super) fn coded_table(exactly: bool, colour: u8) -> Vec<u8> {
    let table = table(exactly);
    (0..1usize << 20)
        .map(|key| {
            let mut index = 0;
            for (slot, power) in POWERS.iter().enumerate() {
                let state = match (key >> (2 * slot)) & 3 {
                    0 => EMPTY,
                    c if c == usize::from(colour) => MINE,
                    _ => BLOCKED,
                };
                index += state * power;
            }
            table[index]
        })
        .collect()
}

/// The shape a stone of `player` on `p` (empty or not: the point itself is read as theirs)
/// makes in direction `d` (an index into [`DIRECTIONS`]).
#[inline]
pub fn shape(g: &Gomoku, p: usize, d: usize, player: Player) -> Shape {
    let table = table(g.rule().exactly_five(player));
    Shape::from_u8(table[window_index(g, p, d, player)])
}

/// The table index of the ten neighbours of `p` along direction `d`, for `player`.
#[inline]
fn window_index(g: &Gomoku, p: usize, d: usize, player: Player) -> usize {
    let n = g.size() as i32;
    let (c, r) = ((p as i32) % n, (p as i32) / n);
    let (dc, dr) = DIRECTIONS[d];
    let mine = player.number();
    let mut index = 0;
    for offset in (-REACH..=REACH).filter(|&o| o != 0) {
        let (cc, rr) = (c + dc * offset, r + dr * offset);
        let state = if cc < 0 || cc >= n || rr < 0 || rr >= n {
            BLOCKED
        } else {
            match g.cells[(rr * n + cc) as usize] {
                0 => EMPTY,
                s if s == mine => MINE,
                _ => BLOCKED,
            }
        };
        index += state * POWERS[digit(offset)];
    }
    index
}

/// The four shapes of a colour on a point, and what they add up to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PointShapes {
    /// Lines with a four or a live four.
    pub fours: u8,
    /// Lines with a live three.
    pub live_threes: u8,
    /// Whether one of the lines is five.
    pub five: bool,
    /// The shapes by direction.
    pub lines: [u8; 4],
}

impl PointShapes {
    /// The shapes of the four lines (as [`Shape`] numbers), counted.
    #[inline(always)]
    pub fn from_lines(lines: [u8; 4]) -> PointShapes {
        let mut s = PointShapes {
            lines,
            ..PointShapes::default()
        };
        for l in lines {
            s.fours += u8::from(l == Shape::Four as u8 || l == Shape::LiveFour as u8);
            s.live_threes += u8::from(l == Shape::LiveThree as u8);
            s.five |= l == Shape::Five as u8;
        }
        s
    }

    /// The best shape over the four lines.
    pub fn best(&self) -> Shape {
        Shape::from_u8(self.lines.into_iter().max().unwrap_or(0))
    }

    /// A move that threatens to win at once or next move (a four of any kind).
    pub fn is_four(&self) -> bool {
        self.fours > 0
    }

    /// A move that wins unless answered by fours: a live four, two fours, or a four and a live
    /// three.
    pub fn is_double(&self) -> bool {
        self.lines.contains(&(Shape::LiveFour as u8))
            || self.fours >= 2
            || (self.fours >= 1 && self.live_threes >= 1)
    }

    /// A threat that wins unless the opponent has a four of their own: [`is_double`] or two
    /// live threes (short of renju's forbidden points, which the rules keep black from
    /// playing).
    ///
    /// [`is_double`]: Self::is_double
    pub fn is_winning_threat(&self) -> bool {
        self.is_double() || self.live_threes >= 2
    }

    /// The shape of line `d`.
    pub fn line(&self, d: usize) -> Shape {
        Shape::from_u8(self.lines[d])
    }
}

/// The shapes of `player` on `p` in all four directions.
#[inline]
pub fn point_shapes(g: &Gomoku, p: usize, player: Player) -> PointShapes {
    // A plain loop: `array::from_fn` cost the paper's MCTS a few percent here.
    let mut lines = [0; 4];
    for (d, line) in lines.iter_mut().enumerate() {
        *line = shape(g, p, d, player) as u8;
    }
    PointShapes::from_lines(lines)
}

/// The pattern heuristic's weights: a score for each shape the mover makes (attack) and each
/// shape of the opponent's the move takes away (defence), by [`Shape`] order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PatternWeights {
    pub attack: [f32; 9],
    pub defence: [f32; 9],
}

impl PatternWeights {
    /// Scores in the spirit of the alpha-beta heuristic the paper reuses: each shape about ten
    /// times the one below it, a four about a live three, defence a little under attack.
    pub const DEFAULT: PatternWeights = PatternWeights {
        attack: [
            0.0,
            1.0,
            10.0,
            30.0,
            60.0,
            1_000.0,
            1_200.0,
            20_000.0,
            1_000_000.0,
        ],
        defence: [0.0, 0.5, 6.0, 20.0, 40.0, 800.0, 900.0, 15_000.0, 500_000.0],
    };

    /// The weights' names, as a weight file spells them.
    pub fn names() -> Vec<String> {
        let named = |side| {
            Shape::NAMES[1..]
                .iter()
                .map(move |shape| format!("{side}-{shape}"))
        };
        ["attack", "defence"].into_iter().flat_map(named).collect()
    }

    /// The weights in [`names`](Self::names)' order (the `none` shapes always score 0).
    pub fn to_vec(&self) -> Vec<f32> {
        self.attack[1..]
            .iter()
            .chain(&self.defence[1..])
            .copied()
            .collect()
    }

    /// The weights from [`to_vec`](Self::to_vec)'s order.
    pub fn from_slice(w: &[f32]) -> Result<PatternWeights, String> {
        if w.len() != 16 {
            return Err(format!(
                "the pattern weights are 16 numbers, not {}",
                w.len()
            ));
        }
        let mut out = PatternWeights {
            attack: [0.0; 9],
            defence: [0.0; 9],
        };
        out.attack[1..].copy_from_slice(&w[..8]);
        out.defence[1..].copy_from_slice(&w[8..]);
        Ok(out)
    }

    /// The heuristic's score of the side to move playing `p`: its shapes there, the
    /// opponent's shapes it blocks, and a bonus for a winning threat either way.
    pub fn move_score(&self, g: &Gomoku, p: usize) -> f32 {
        let me = g.to_move();
        self.shapes_score(&point_shapes(g, p, me), &point_shapes(g, p, me.opponent()))
    }

    /// [`move_score`](Self::move_score) from the point's shapes for the mover (`mine`) and the
    /// opponent (`theirs`), for callers that read the shapes anyway.
    pub fn shapes_score(&self, mine: &PointShapes, theirs: &PointShapes) -> f32 {
        let mut score = 0.0;
        for d in 0..4 {
            score += self.attack[mine.lines[d] as usize] + self.defence[theirs.lines[d] as usize];
        }
        if mine.is_winning_threat() {
            score += self.attack[Shape::LiveFour as usize];
        }
        if theirs.is_winning_threat() {
            score += self.defence[Shape::LiveFour as usize];
        }
        score
    }
}

impl Default for PatternWeights {
    fn default() -> PatternWeights {
        PatternWeights::DEFAULT
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::gomoku::tests::ranks_board;
    use crate::games::gomoku::Rule;

    /// A one-line position: `line` along rank 8 from file a (`X` black, `O` white), with the
    /// point under test marked `*` (empty on the board, read as black's).
    fn line_shape(line: &str, rule: Rule) -> Shape {
        // Keep the counts possible: white (or black) stones padded on rank 1.
        let (black, white) = (line.matches('X').count(), line.matches('O').count());
        let pad =
            "O.".repeat(black.saturating_sub(white)) + &"X.".repeat(white.saturating_sub(black));
        let rows = ranks_board(&[(8, &line.replace('*', ".")), (1, &pad)]);
        let g = Gomoku::from_board(15, rule, &rows, Player::P1).unwrap();
        let p = 7 * 15 + line.find('*').expect("a * in the line");
        shape(&g, p, 0, Player::P1)
    }

    #[test]
    fn shapes_along_a_line() {
        use Shape::*;
        let f = Rule::Freestyle;
        let cases = [
            ("...XX*XX....", Five),
            ("...XXX*XX...", Five),
            ("....*XXX....", LiveFour),
            ("...X.*XX.X..", LiveFour), // two fives a point apart, in one line
            ("...OXXX*....", Four),
            ("....XX*.X...", Four),
            ("....X*X.....", LiveThree),
            ("....X.*X....", LiveThree),
            ("...OXX*.....", Three),
            ("...X..*X....", Three),
            ("*XX..O......", Three), // the edge blocks one side
            ("....*X......", LiveTwo),
            ("....*.X.....", LiveTwo),
            ("...O*X......", Two),
            ("....*.......", One),
            ("O*...O......", None), // four points between walls: no five fits
        ];
        for (line, want) in cases {
            assert_eq!(line_shape(line, f), want, "{line}");
        }
        // Exactly five: the overline is no five and kills the line; the four that could only
        // become six is no four.
        assert_eq!(line_shape("...XXX*XX...", Rule::Standard), None);
        assert_eq!(line_shape("..X.XX*X....", Rule::Standard), Four);
        assert_eq!(line_shape("..X.XX*X....", Rule::Freestyle), LiveFour);
        assert_eq!(line_shape("..XX*XX.....", Rule::Standard), Five);
    }

    #[test]
    fn the_table_agrees_with_the_definitions_on_every_window() {
        // Each entry again from the masks, and the invariants of the ladder: a live four has
        // two five points, a four one, and a live three a point that makes a live four.
        for exactly in [false, true] {
            let t = table(exactly);
            for index in (0..ENTRIES).step_by(7) {
                let (mine, empty) = masks(index);
                let fives = (0..11)
                    .map(|i| 1u32 << i)
                    .filter(|&b| empty & b != 0 && is_five(mine | b, exactly))
                    .count();
                let s = Shape::from_u8(t[index]);
                if is_five(mine, exactly) {
                    assert_eq!(s, Shape::Five);
                    continue;
                }
                match s {
                    Shape::LiveFour => assert!(fives >= 2),
                    Shape::Four => assert_eq!(fives, 1),
                    _ => assert!(fives == 0 || run_through_centre(mine) > 5, "{index}"),
                }
            }
        }
    }

    #[test]
    fn a_five_shape_is_the_rules_win_on_random_boards() {
        // The pruning reads fives from the shapes instead of the rules' `wins_at`: the two
        // must agree on every empty point, for both players, under every rule.
        let mut rng = crate::rng::Rng::new(11);
        for rule in [Rule::Freestyle, Rule::Standard, Rule::Renju] {
            for _ in 0..60 {
                let mut g = Gomoku::new(15, rule).unwrap();
                let mut moves = Vec::new();
                for _ in 0..(40 + rng.below(80)) {
                    g.legal_actions(&mut moves);
                    if g.is_terminal() || moves.is_empty() {
                        break;
                    }
                    g.apply(rng.pick(&moves));
                }
                for p in (0..g.points()).filter(|&p| g.stone(p).is_none()) {
                    for player in [Player::P1, Player::P2] {
                        assert_eq!(
                            point_shapes(&g, p, player).five,
                            g.wins_at(p, player),
                            "{rule:?} {} {player:?}\n{g}",
                            g.point_name(p)
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn winning_threats_and_scores() {
        // Black on h8 makes a four along rank 8 (d8-g8 blocked at c8) and a live three along
        // file h (h9, h10): a four-three.
        let rows = ranks_board(&[
            (15, "O"),
            (10, ".......X"),
            (9, ".......X"),
            (8, "..OXXX"),
            (2, "..O"),
            (1, "O.............O"),
        ]);
        let g = Gomoku::from_board(15, Rule::Freestyle, &rows, Player::P1).unwrap();
        let h8 = g.parse_action("h8").unwrap() as usize;
        let s = point_shapes(&g, h8, Player::P1);
        assert_eq!(s.line(0), Shape::Four);
        assert_eq!(s.line(1), Shape::LiveThree);
        assert!(s.is_winning_threat());
        // The four-three outscores any quiet point; for white, blocking there is the best
        // defence.
        let w = PatternWeights::DEFAULT;
        let best = (0..g.points())
            .filter(|&p| g.stone(p).is_none())
            .max_by(|&a, &b| w.move_score(&g, a).total_cmp(&w.move_score(&g, b)))
            .unwrap();
        assert_eq!(g.point_name(best), "h8");
        let v = PatternWeights::from_slice(&w.to_vec()).unwrap();
        assert_eq!(v, w);
        assert_eq!(PatternWeights::names().len(), 16);
    }
}
