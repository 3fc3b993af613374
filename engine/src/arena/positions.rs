//! Start positions for matches: the file format (one position a line, the moves from the start
//! in the game's notation or as ids, or in a format of the game's own such as Gomocup's
//! openings, then an optional `#` comment that may say `winner=1|2|draw`, the winner under
//! perfect play). A game that makes positions files of its
//! own (Dots and Boxes' State-S-like positions) does so in its folder.

use std::path::Path;

use crate::game::{Action, Game, Outcome};

/// A start position: the moves that lead to it and, when known, its perfect-play winner.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StartPosition {
    pub moves: Vec<Action>,
    pub perfect: Option<Outcome>,
}

/// Reads a positions file for `board`'s game: one position a line, the moves from the start in
/// the game's notation (or ids), `# winner=1|2|draw` after them when known. Every move is
/// checked, and errors name the file, the line and the move.
pub fn read_positions<G: Game>(path: &Path, board: &G) -> Result<Vec<StartPosition>, String> {
    let text =
        crate::line_reader::read_text_file(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let at = || format!("{}:{}", path.display(), n + 1);
        let (body, comment) = line.split_once('#').unwrap_or((line, ""));
        if body.trim().is_empty() {
            continue;
        }
        let mut moves = Vec::new();
        let mut state = board.clone();
        match board.parse_start_line(body) {
            Some(given) => {
                moves = given.map_err(|e| format!("{}: {e}", at()))?;
                for &a in &moves {
                    state.apply(a);
                }
            }
            None => {
                for word in body.split_whitespace() {
                    let plies = state
                        .parse_legal_plies(word)
                        .map_err(|e| format!("{}: move {}: {e}", at(), moves.len() + 1))?;
                    for a in plies {
                        state.apply(a);
                        moves.push(a);
                    }
                }
            }
        }
        if state.is_terminal() {
            return Err(format!("{}: the position is already over", at()));
        }
        let mut perfect = None;
        for word in comment.split_whitespace() {
            if let Some(w) = word.strip_prefix("winner=") {
                perfect = Some(match w {
                    "1" => Outcome::P1Win,
                    "2" => Outcome::P2Win,
                    "draw" => Outcome::Draw,
                    _ => return Err(format!("{}: winner= must be 1, 2 or draw, got '{w}'", at())),
                });
            }
        }
        out.push(StartPosition { moves, perfect });
    }
    if out.is_empty() {
        return Err(format!("{}: no positions in the file", path.display()));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::gomoku::{Gomoku, Rule};

    #[test]
    fn a_byte_order_mark_and_crlf_ends_are_not_part_of_the_moves() {
        let path = std::env::temp_dir().join(format!("positions-bom-{}.txt", std::process::id()));
        // Notepad's file: a mark before the first move, CRLF line ends; in the game's notation
        // and in Gomocup's opening format.
        std::fs::write(&path, "\u{feff}h8 i7\r\n0,0, 1,1\r\n").unwrap();
        let board = Gomoku::new(15, Rule::Freestyle).unwrap();
        let read = read_positions(&path, &board);
        std::fs::write(&path, "\u{feff}0,0, 1,1\r\n").unwrap();
        let gomocup = read_positions(&path, &board);
        std::fs::remove_file(&path).unwrap();
        let lengths: Vec<usize> = read.unwrap().iter().map(|p| p.moves.len()).collect();
        assert_eq!(lengths, [2, 2]);
        assert_eq!(gomocup.unwrap()[0].moves.len(), 2);
    }
}
