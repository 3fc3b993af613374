//! Random openings: a few stones on distinct points of the board's centre, black and white in
//! turn, no two openings with the same stones of each colour. Self-play needs them for variety
//! (the searcher makes no random choice), as `scripts/gomoku_openings.py` makes them for files.

use std::collections::HashSet;

use super::Gomoku;
use crate::game::{Action, Game};
use crate::rng::Rng;

/// The side of the central square the stones are drawn from (the whole board when smaller).
pub const CENTRE: usize = 9;

/// `count` openings of `stones` stones on the central [`CENTRE`] x [`CENTRE`] square of
/// `start`'s board (an empty board), drawn with `seed`: each the moves that make it. Refused when the square has too few
/// distinct openings for `count`, or when the stones could make a five.
pub fn random_openings(
    start: &Gomoku,
    count: usize,
    stones: usize,
    seed: u64,
) -> Result<Vec<Vec<Action>>, String> {
    let side = CENTRE.min(start.size());
    let low = (start.size() - side) / 2;
    if stones == 0 || stones > 8 || stones > side * side {
        return Err(format!(
            "an opening has 1 to 8 stones within the central {side}x{side}, not {stones}"
        ));
    }
    if start.stones() > 0 {
        return Err("random openings start from the empty board".into());
    }
    // Far fewer than the square's distinct openings, so that drawing stays quick.
    let points = (side * side) as f64;
    let distinct = (0..stones).fold(1.0, |n, k| n * (points - k as f64));
    if count as f64 > distinct / 4.0 {
        return Err(format!(
            "{count} openings of {stones} stones are too many for the central {side}x{side}"
        ));
    }
    let mut rng = Rng::new(seed);
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let mut moves: Vec<u16> = Vec::with_capacity(stones);
        while moves.len() < stones {
            let col = low + rng.below(side as u32) as usize;
            let row = low + rng.below(side as u32) as usize;
            let p = (row * start.size() + col) as u16;
            if !moves.contains(&p) {
                moves.push(p);
            }
        }
        let mut key: [Vec<u16>; 2] = [
            moves.iter().step_by(2).copied().collect(),
            moves.iter().skip(1).step_by(2).copied().collect(),
        ];
        key.iter_mut().for_each(|k| k.sort_unstable());
        if !seen.insert(key) {
            continue;
        }
        let mut state = *start;
        for &m in &moves {
            state.apply(m);
        }
        if state.is_terminal() {
            return Err(format!("{stones} stones made a finished game"));
        }
        out.push(moves);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::gomoku::Rule;

    #[test]
    fn openings_are_distinct_central_and_seeded() {
        let start = Gomoku::new(15, Rule::Freestyle).unwrap();
        let openings = random_openings(&start, 300, 4, 7).unwrap();
        assert_eq!(openings.len(), 300);
        let mut keys = HashSet::new();
        for o in &openings {
            assert_eq!(o.len(), 4);
            for &m in o {
                let (col, row) = (usize::from(m) % 15, usize::from(m) / 15);
                assert!((3..12).contains(&col) && (3..12).contains(&row), "{m}");
            }
            let mut colours = [vec![o[0], o[2]], vec![o[1], o[3]]];
            colours.iter_mut().for_each(|c| c.sort_unstable());
            assert!(keys.insert(colours), "a repeated opening");
        }
        assert_eq!(openings, random_openings(&start, 300, 4, 7).unwrap());
        assert_ne!(openings, random_openings(&start, 300, 4, 8).unwrap());
    }

    #[test]
    fn a_small_board_uses_all_of_itself_and_too_many_are_refused() {
        let start = Gomoku::new(7, Rule::Standard).unwrap();
        let openings = random_openings(&start, 50, 2, 1).unwrap();
        assert!(openings.iter().all(|o| o.iter().all(|&m| m < 49)));
        let err = random_openings(&start, 100_000, 2, 1).unwrap_err();
        assert!(err.contains("too many for the central 7x7"), "{err}");
        assert!(random_openings(&start, 1, 0, 1).is_err());
    }
}
