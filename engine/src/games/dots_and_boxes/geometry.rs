//! Precomputed tables for one board size: which boxes each edge touches, each box's edge mask,
//! and where every edge and box sits in the value-net input.
//!
//! Edge ids follow OpenSpiel: horizontal edge (r, c), r in 0..=rows, c in 0..cols, is
//! `r*cols + c`; vertical edge (r, c), r in 0..rows, c in 0..=cols, is
//! `(rows+1)*cols + r*(cols+1) + c`. Bit `id` of a `u128` is edge `id`: 7x7 has 112 edges.

use std::sync::OnceLock;

/// Largest number of box rows or columns.
pub const MAX_SIZE: usize = 7;
/// Largest number of edges (7x7).
pub const MAX_EDGES: usize = 2 * MAX_SIZE * (MAX_SIZE + 1);
/// Largest number of boxes (7x7).
pub const MAX_BOXES: usize = MAX_SIZE * MAX_SIZE;

/// An edge is either horizontal or vertical, at a row and column of the dot grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeKind {
    Horizontal,
    Vertical,
}

/// A mask no position ever completes: bit 127 is beyond the last edge of a 7x7 board. Used for
/// the missing second box of an edge on the border, so the capture test needs no branch.
const NEVER: u128 = 1 << 127;
const NEVER64: u64 = 1 << 63;

/// Boxes grouped by their number of free sides, one bit a box (row-major).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Valences {
    pub closed: u64,
    pub one: u64,
    pub two: u64,
    pub three: u64,
    pub four: u64,
}

pub struct Geometry {
    pub rows: usize,
    pub cols: usize,
    pub num_edges: usize,
    pub num_boxes: usize,
    /// All edge bits of this board.
    pub all_edges: u128,
    /// Per edge, the edge masks of the (up to two) boxes it borders; `NEVER` where absent.
    pub edge_box_masks: [[u128; 2]; MAX_EDGES],
    /// The same masks as `u64` for boards of at most 63 edges (5x5 has 60), where the rollout
    /// runs on one machine word; bit 63 plays `NEVER`'s part.
    pub edge_box_masks64: [[u64; 2]; MAX_EDGES],
    /// Per edge, the indices (row-major) of the boxes it borders; `u8::MAX` where absent.
    pub edge_boxes: [[u8; 2]; MAX_EDGES],
    /// Per box (row-major), the mask of its four edges.
    pub box_masks: [u128; MAX_BOXES],
    /// Per edge, its index in the value-net input.
    pub edge_feature: [u8; MAX_EDGES],
    /// Per box, its index in the value-net input.
    pub box_feature: [u8; MAX_BOXES],
    /// The board's symmetries as edge maps, the first `symmetry_count` in use (see
    /// [`symmetries`](Self::symmetries)).
    symmetry_maps: [[u8; MAX_EDGES]; 8],
    symmetry_count: usize,
}

impl Geometry {
    /// The shared tables for a `rows` x `cols` board (1..=7 each). Built once per size.
    pub fn get(rows: usize, cols: usize) -> &'static Geometry {
        assert!(
            (1..=MAX_SIZE).contains(&rows) && (1..=MAX_SIZE).contains(&cols),
            "board size {rows}x{cols} out of range"
        );
        static CACHE: [OnceLock<Geometry>; MAX_BOXES] = [const { OnceLock::new() }; MAX_BOXES];
        CACHE[(rows - 1) * MAX_SIZE + (cols - 1)].get_or_init(|| Geometry::build(rows, cols))
    }

    fn build(rows: usize, cols: usize) -> Geometry {
        let num_edges = (rows + 1) * cols + rows * (cols + 1);
        let num_boxes = rows * cols;
        let mut g = Geometry {
            rows,
            cols,
            num_edges,
            num_boxes,
            all_edges: if num_edges == 128 {
                u128::MAX
            } else {
                (1u128 << num_edges) - 1
            },
            edge_box_masks: [[NEVER; 2]; MAX_EDGES],
            edge_box_masks64: [[NEVER64; 2]; MAX_EDGES],
            edge_boxes: [[u8::MAX; 2]; MAX_EDGES],
            box_masks: [0; MAX_BOXES],
            edge_feature: [0; MAX_EDGES],
            box_feature: [0; MAX_BOXES],
            symmetry_maps: [[0; MAX_EDGES]; 8],
            symmetry_count: 0,
        };
        for r in 0..rows {
            for c in 0..cols {
                let b = r * cols + c;
                let edges = [
                    g.horizontal(r, c),
                    g.horizontal(r + 1, c),
                    g.vertical(r, c),
                    g.vertical(r, c + 1),
                ];
                let mask = edges.iter().fold(0u128, |m, &e| m | 1u128 << e);
                g.box_masks[b] = mask;
                for e in edges {
                    let slot = if g.edge_boxes[e][0] == u8::MAX { 0 } else { 1 };
                    g.edge_boxes[e][slot] = b as u8;
                    g.edge_box_masks[e][slot] = mask;
                    if num_edges <= 63 {
                        g.edge_box_masks64[e][slot] = mask as u64;
                    }
                }
            }
        }
        // The value-net input is the (2*rows+1) x (2*cols+1) grid without its dots, row by row:
        // even grid rows hold horizontal edges, odd grid rows alternate vertical edge, box, ...
        let mut index = 0u8;
        for r in 0..=rows {
            for c in 0..cols {
                g.edge_feature[g.horizontal(r, c)] = index;
                index += 1;
            }
            if r < rows {
                for c in 0..=cols {
                    g.edge_feature[g.vertical(r, c)] = index;
                    index += 1;
                    if c < cols {
                        g.box_feature[r * cols + c] = index;
                        index += 1;
                    }
                }
            }
        }
        debug_assert_eq!(index as usize, num_edges + num_boxes);
        g.build_symmetries();
        g
    }

    /// Whether the `u64` tables are valid for this board.
    #[inline]
    pub fn fits_u64(&self) -> bool {
        self.num_edges <= 63
    }

    /// Id of horizontal edge (r, c), r in 0..=rows, c in 0..cols.
    #[inline]
    pub fn horizontal(&self, r: usize, c: usize) -> usize {
        r * self.cols + c
    }

    /// Id of vertical edge (r, c), r in 0..rows, c in 0..=cols.
    #[inline]
    pub fn vertical(&self, r: usize, c: usize) -> usize {
        (self.rows + 1) * self.cols + r * (self.cols + 1) + c
    }

    /// Kind, row and column of an edge id.
    pub fn edge_coords(&self, edge: usize) -> (EdgeKind, usize, usize) {
        let first_vertical = (self.rows + 1) * self.cols;
        if edge < first_vertical {
            (EdgeKind::Horizontal, edge / self.cols, edge % self.cols)
        } else {
            let v = edge - first_vertical;
            (EdgeKind::Vertical, v / (self.cols + 1), v % (self.cols + 1))
        }
    }

    /// Number of boxes that drawing `edge` completes when `edges` (which must not hold it yet)
    /// is the set of edges already drawn.
    #[inline]
    pub fn boxes_closed_by(&self, edges: u128, edge: usize) -> u32 {
        let after = edges | 1u128 << edge;
        let [a, b] = self.edge_box_masks[edge];
        (after & a == a) as u32 + (after & b == b) as u32
    }

    /// The boxes (bit = row-major box index) by valence (free sides) at `edges`, computed for
    /// all boxes at once: each box's four sides gathered into four box-indexed words, then
    /// added bit by bit. The hot loops of the endgame solver and the chain rollouts ask this
    /// at every node instead of counting each box's sides.
    #[inline]
    pub fn valences(&self, edges: u128) -> Valences {
        let free = !edges & self.all_edges;
        let boxes = self.box_bits();
        // A box's top edge has the box's own index; its bottom one is a row further.
        let top = free as u64 & boxes;
        let bottom = (free >> self.cols) as u64 & boxes;
        let (mut left, mut right) = (0u64, 0u64);
        let row_mask = (1u64 << self.cols) - 1;
        let first_vertical = (self.rows + 1) * self.cols;
        for r in 0..self.rows {
            let row = (free >> (first_vertical + r * (self.cols + 1))) as u64;
            left |= (row & row_mask) << (r * self.cols);
            right |= ((row >> 1) & row_mask) << (r * self.cols);
        }
        // Two half adders, then a full one: bits s0, s1, s2 of top + bottom + left + right.
        let (a1, c1) = (top ^ bottom, top & bottom);
        let (a2, c2) = (left ^ right, left & right);
        let s0 = a1 ^ a2;
        let carry = a1 & a2;
        let s1 = c1 ^ c2 ^ carry;
        let s2 = c1 & c2;
        Valences {
            closed: boxes & !(s0 | s1 | s2),
            one: s0 & !s1,
            two: !s0 & s1,
            three: s0 & s1,
            four: s2,
        }
    }

    /// Every box of the board as a bit (row-major).
    #[inline]
    pub fn box_bits(&self) -> u64 {
        (1u64 << self.num_boxes) - 1
    }

    /// The union of the edges of the boxes in `boxes` (bit = row-major box index).
    #[inline]
    pub fn sides_of(&self, boxes: u64) -> u128 {
        let mut out = boxes as u128 | (boxes as u128) << self.cols;
        let row_mask = (1u64 << self.cols) - 1;
        let first_vertical = (self.rows + 1) * self.cols;
        for r in 0..self.rows {
            let row = (boxes >> (r * self.cols)) & row_mask;
            let sides = row | row << 1;
            out |= (sides as u128) << (first_vertical + r * (self.cols + 1));
        }
        out
    }

    /// Mask of the boxes (bit = row-major box index) whose four edges are all in `edges`.
    pub fn closed_boxes(&self, edges: u128) -> u64 {
        let mut closed = 0u64;
        for b in 0..self.num_boxes {
            let m = self.box_masks[b];
            if edges & m == m {
                closed |= 1 << b;
            }
        }
        closed
    }

    /// The board's symmetries as edge maps, the identity first: `map[e]` is where edge `e`
    /// goes. A rectangle has four (the identity, the two mirrors, the half turn); a square
    /// board four more (the two diagonal mirrors, the quarter turns). Each maps every box's
    /// sides onto one box's sides, so a game and its image close the same number of boxes at
    /// every move and end alike.
    pub fn symmetries(&self) -> &[[u8; MAX_EDGES]] {
        &self.symmetry_maps[..self.symmetry_count]
    }

    /// Fills [`symmetries`](Self::symmetries)' maps, once per board size.
    fn build_symmetries(&mut self) {
        // On the (2 rows + 1) x (2 cols + 1) grid of dots, edges and boxes, each edge is a
        // point (y, x); a symmetry moves points, and a point back to its edge.
        let (h, w) = (2 * self.rows + 1, 2 * self.cols + 1);
        let point = |e: usize| match self.edge_coords(e) {
            (EdgeKind::Horizontal, r, c) => (2 * r, 2 * c + 1),
            (EdgeKind::Vertical, r, c) => (2 * r + 1, 2 * c),
        };
        let edge_at = |(y, x): (usize, usize)| {
            if y % 2 == 0 {
                self.horizontal(y / 2, x / 2)
            } else {
                self.vertical(y / 2, x / 2)
            }
        };
        type Move = fn(usize, usize, usize, usize) -> (usize, usize);
        let mut moves: Vec<Move> = vec![
            |y, x, _, _| (y, x),
            |y, x, _, w| (y, w - 1 - x),
            |y, x, h, _| (h - 1 - y, x),
            |y, x, h, w| (h - 1 - y, w - 1 - x),
        ];
        if h == w {
            moves.extend_from_slice(&[
                (|y, x, _, _| (x, y)) as Move,
                |y, x, h, w| (w - 1 - x, h - 1 - y),
                |y, x, h, _| (x, h - 1 - y),
                |y, x, _, w| (w - 1 - x, y),
            ]);
        }
        let mut maps = [[0u8; MAX_EDGES]; 8];
        for (m, map) in moves.iter().zip(maps.iter_mut()) {
            for (e, to) in map.iter_mut().enumerate().take(self.num_edges) {
                let (y, x) = point(e);
                *to = edge_at(m(y, x, h, w)) as u8;
            }
        }
        self.symmetry_maps = maps;
        self.symmetry_count = moves.len();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every symmetry is a permutation of the edges that maps each box's sides onto a box's
    /// sides; the identity comes first; a square has 8 and any other rectangle 4, all
    /// different; and the set is closed under composition (a group).
    #[test]
    fn symmetries_are_the_boards_dihedral_group() {
        for rows in 1..=MAX_SIZE {
            for cols in 1..=MAX_SIZE {
                let g = Geometry::get(rows, cols);
                let maps = g.symmetries();
                assert_eq!(
                    maps.len(),
                    if rows == cols { 8 } else { 4 },
                    "{rows}x{cols}"
                );
                let n = g.num_edges;
                assert!(maps[0][..n]
                    .iter()
                    .enumerate()
                    .all(|(e, &m)| m as usize == e));
                let image = |map: &[u8; MAX_EDGES], mask: u128| {
                    (0..n)
                        .filter(|e| mask >> e & 1 == 1)
                        .fold(0u128, |m, e| m | 1u128 << map[e])
                };
                let boxes: Vec<u128> = g.box_masks[..g.num_boxes].to_vec();
                for map in maps {
                    assert_eq!(
                        image(map, g.all_edges),
                        g.all_edges,
                        "{rows}x{cols}: not onto"
                    );
                    for &b in &boxes {
                        assert!(boxes.contains(&image(map, b)), "{rows}x{cols}: box lost");
                    }
                    for other in maps {
                        let composed: Vec<u8> = (0..n).map(|e| map[other[e] as usize]).collect();
                        assert!(
                            maps.iter().any(|m| m[..n] == composed[..]),
                            "{rows}x{cols}: not closed"
                        );
                    }
                }
                for (i, a) in maps.iter().enumerate() {
                    for b in &maps[i + 1..] {
                        assert_ne!(a[..n], b[..n], "{rows}x{cols}: a symmetry twice");
                    }
                }
            }
        }
    }

    #[test]
    fn edge_ids_follow_openspiel() {
        let g = Geometry::get(2, 3);
        assert_eq!(g.num_edges, 3 * 3 + 2 * 4);
        assert_eq!(g.horizontal(0, 0), 0);
        assert_eq!(g.horizontal(2, 2), 8);
        assert_eq!(g.vertical(0, 0), 9);
        assert_eq!(g.vertical(1, 3), 9 + 4 + 3);
        for e in 0..g.num_edges {
            let (kind, r, c) = g.edge_coords(e);
            let back = match kind {
                EdgeKind::Horizontal => g.horizontal(r, c),
                EdgeKind::Vertical => g.vertical(r, c),
            };
            assert_eq!(back, e);
        }
    }

    #[test]
    fn every_box_has_four_edges_and_every_edge_one_or_two_boxes() {
        for rows in 1..=MAX_SIZE {
            for cols in 1..=MAX_SIZE {
                let g = Geometry::get(rows, cols);
                for b in 0..g.num_boxes {
                    assert_eq!(g.box_masks[b].count_ones(), 4);
                    assert_eq!(g.box_masks[b] & !g.all_edges, 0);
                }
                let mut incidences = 0;
                for e in 0..g.num_edges {
                    let n = g.edge_boxes[e].iter().filter(|&&b| b != u8::MAX).count();
                    assert!((1..=2).contains(&n));
                    incidences += n;
                }
                assert_eq!(incidences, 4 * g.num_boxes);
            }
        }
    }

    /// The word-parallel valences and sides agree with counting each box's sides, on random
    /// edge sets of every board size.
    #[test]
    fn valences_and_sides_agree_with_counting() {
        let mut seed = 0x1234_5678_9abc_def0u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for rows in 1..=MAX_SIZE {
            for cols in 1..=MAX_SIZE {
                let g = Geometry::get(rows, cols);
                for _ in 0..200 {
                    let edges = ((next() as u128) << 64 | next() as u128) & g.all_edges;
                    let v = g.valences(edges);
                    let mut want = [0u64; 5];
                    for b in 0..g.num_boxes {
                        let free = 4 - (edges & g.box_masks[b]).count_ones();
                        want[free as usize] |= 1 << b;
                    }
                    assert_eq!([v.closed, v.one, v.two, v.three, v.four], want);
                    let boxes = next() & g.box_bits();
                    let want_sides = (0..g.num_boxes)
                        .filter(|b| boxes >> b & 1 == 1)
                        .fold(0u128, |m, b| m | g.box_masks[b]);
                    assert_eq!(g.sides_of(boxes), want_sides, "{rows}x{cols}");
                }
            }
        }
    }

    #[test]
    fn feature_indices_cover_the_grid_once() {
        for (rows, cols) in [(1, 1), (5, 5), (2, 7), (7, 7)] {
            let g = Geometry::get(rows, cols);
            let mut seen = vec![false; g.num_edges + g.num_boxes];
            for e in 0..g.num_edges {
                assert!(!std::mem::replace(
                    &mut seen[g.edge_feature[e] as usize],
                    true
                ));
            }
            for b in 0..g.num_boxes {
                assert!(!std::mem::replace(
                    &mut seen[g.box_feature[b] as usize],
                    true
                ));
            }
            assert!(seen.iter().all(|&s| s));
        }
    }
}
