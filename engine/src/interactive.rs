//! A person against the engine in a terminal (`engine play`), for any game. Reads lines from any
//! reader and writes to any writer, so a test can play a whole session from a script.

use std::io::{self, BufRead, Write};

use crate::agents::Agent;
use crate::game::{Action, Game, Player};
use crate::mcts::{RolloutPolicy, Search, SearchResult, TreePolicy};

const HELP: &str = "Type a move in the game's notation, or one of:
  moves   list the legal moves
  undo    take back your last move (and the engine's replies)
  help    show this text
  quit    leave the game";

/// How the engine finds its moves against a person: the move, and a note on how it was found.
/// `moves` are the game's moves from its start.
pub trait EngineSide<G: Game> {
    fn engine_move(&mut self, state: &G, moves: &[Action]) -> Result<(Action, String), String>;
}

/// Any player a spec names (`best`, `nn`, `alphabeta`, ...) as the engine's side.
pub struct AgentSide<G: Game> {
    agent: Box<dyn Agent<G>>,
}

impl<G: Game> AgentSide<G> {
    /// `agent`, told that a game begins at `start`.
    pub fn new(mut agent: Box<dyn Agent<G>>, start: &G) -> Result<AgentSide<G>, String> {
        agent.new_game(start, &[]).map_err(|e| e.to_string())?;
        Ok(AgentSide { agent })
    }
}

impl<G: Game> EngineSide<G> for AgentSide<G> {
    fn engine_move(&mut self, state: &G, moves: &[Action]) -> Result<(Action, String), String> {
        let choice = self
            .agent
            .choose(state, moves)
            .map_err(|e| format!("{}: {e}", self.agent.name()))?;
        let note = match (self.agent.last_search(), choice.how) {
            (Some(result), _) => describe_search(result, state.to_move()),
            (None, Some(how)) => how.to_string(),
            (None, None) => match choice.win_probability {
                Some(p) => format!(
                    "{} ({} nodes or iterations, {:.0}% to win for it)",
                    self.agent.name(),
                    choice.iterations,
                    100.0 * p
                ),
                None => self.agent.name(),
            },
        };
        Ok((choice.action, note))
    }
}

/// What a search did, as a note: its iterations, time, value and the net's cut-offs.
fn describe_search(result: &SearchResult, mover: Player) -> String {
    let net = if result.rollouts.net_evaluations > 0 {
        format!(
            ", {} of {} rollouts ended by the net",
            result.rollouts.net_cutoffs, result.rollouts.rollouts
        )
    } else {
        String::new()
    };
    format!(
        "{} iterations in {:.0} ms, value {:+.3} for it{net}",
        result.iterations,
        result.elapsed.as_secs_f64() * 1000.0,
        result.best_move().value_for(mover)
    )
}

/// A search over `root_moves` (all when empty), with what it did as the note.
fn searched_move<G: Game, T: TreePolicy, R: RolloutPolicy<G>>(
    search: &mut Search<G, T, R>,
    state: &G,
    root_moves: &[Action],
) -> (Action, String) {
    let result = search
        .run_among(state, root_moves)
        .expect("the position is not over and the budget is set");
    let note = describe_search(&result, state.to_move());
    (result.best, note)
}

impl<G: Game, T: TreePolicy, R: RolloutPolicy<G>> EngineSide<G> for Search<G, T, R> {
    fn engine_move(&mut self, state: &G, _: &[Action]) -> Result<(Action, String), String> {
        Ok(searched_move(self, state, &[]))
    }
}

/// Plays one game: `human` moves by typing, the engine moves for the other side with `engine`.
/// Returns the final position (or the position when the person quit or input ended).
pub fn play<G: Game>(
    start: G,
    human: Player,
    mut engine: impl EngineSide<G>,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> io::Result<G> {
    let mut state = start;
    // The game's moves from the start, and the positions (with the moves' count) before each
    // of the person's moves, for `undo`.
    let mut moves: Vec<Action> = Vec::new();
    let mut history: Vec<(G, usize)> = Vec::new();
    writeln!(out, "You are {human}. Type 'help' for commands.\n")?;
    loop {
        writeln!(out, "{state}\n")?;
        if state.is_terminal() {
            return Ok(state);
        }
        if state.to_move() != human {
            let (action, note) = engine
                .engine_move(&state, &moves)
                .map_err(io::Error::other)?;
            writeln!(
                out,
                "Engine ({}) plays {}  [{note}]\n",
                state.to_move(),
                state.format_action(action),
            )?;
            state.apply(action);
            moves.push(action);
            continue;
        }
        loop {
            write!(out, "Your move: ")?;
            out.flush()?;
            let mut bytes = Vec::new();
            if input.read_until(b'\n', &mut bytes)? == 0 {
                writeln!(out, "\nInput ended; leaving the game.")?;
                return Ok(state);
            }
            let line = match String::from_utf8(bytes) {
                Ok(text) => text,
                Err(_) => {
                    writeln!(
                        out,
                        "That line is not text (UTF-8). Type 'help' for commands."
                    )?;
                    continue;
                }
            };
            let text = line.trim();
            match text {
                "" => continue,
                "quit" | "exit" => {
                    writeln!(out, "Bye.")?;
                    return Ok(state);
                }
                "help" | "?" => writeln!(out, "{HELP}")?,
                "moves" => {
                    let mut actions = Vec::new();
                    state.legal_actions(&mut actions);
                    let list: Vec<String> =
                        actions.iter().map(|&a| state.format_action(a)).collect();
                    writeln!(out, "{}", list.join(" "))?;
                }
                "undo" => match history.pop() {
                    Some((previous, played)) => {
                        state = previous;
                        moves.truncate(played);
                        writeln!(out)?;
                        break;
                    }
                    None => writeln!(out, "Nothing to undo.")?,
                },
                _ => match state.parse_legal_plies(text) {
                    Ok(plies) => {
                        history.push((state.clone(), moves.len()));
                        for a in plies {
                            state.apply(a);
                            moves.push(a);
                        }
                        writeln!(out)?;
                        break;
                    }
                    Err(e) => writeln!(out, "{e}. Type 'help' for commands.")?,
                },
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{DotsAndBoxes, TicTacToe};
    use crate::mcts::{Budget, SearchConfig};

    fn search<G: Game>() -> Search<G> {
        Search::plain(SearchConfig {
            budget: Budget::iterations(2_000),
            ..SearchConfig::default()
        })
    }

    #[test]
    fn garbage_is_answered_and_the_game_goes_on() {
        // A line that is not UTF-8 is answered, and the game asks again.
        let script: &[u8] =
            b"help\nzz\n\xff\xfe h0,0\nh9,9\n\nmoves\nh0,0\nh0,0\nundo\nundo\nquit\n";
        let mut out = Vec::new();
        let start = DotsAndBoxes::new(2, 2).unwrap();
        let end = play(start, Player::P1, search(), &mut &script[..], &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("cannot read move 'zz'"), "{text}");
        assert!(text.contains("That line is not text (UTF-8)"), "{text}");
        assert!(text.contains("not on this board"), "{text}");
        assert!(text.contains("Engine (P2) plays"), "{text}");
        assert!(text.contains("Nothing to undo"), "{text}");
        assert!(text.contains("h0,0 is already drawn"), "{text}");
        assert!(text.contains("Bye."));
        // After one undo the board is empty again; the second undo had nothing left.
        assert_eq!(end.edges_drawn(), 0);
    }

    #[test]
    fn a_whole_game_ends_with_the_result() {
        // The person plays every legal move in order from the list; input never runs out first.
        let script: String = (0..9).map(|c| format!("{c}\n")).collect();
        let mut out = Vec::new();
        let end = play(
            TicTacToe::new(),
            Player::P2,
            search(),
            &mut script.as_bytes(),
            &mut out,
        )
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(end.is_terminal(), "{text}");
        assert!(text.contains("game over"), "{text}");
    }

    #[test]
    fn with_the_knowledge_the_solver_and_free_captures_answer() {
        // 2x2 has 12 edges: with the solver from 12 free edges no engine move is searched.
        let script: String = (0..12).map(|c| format!("{c}\n")).collect();
        let mut out = Vec::new();
        let start = DotsAndBoxes::new(2, 2).unwrap();
        let spec =
            crate::agents::parse_spec("nn:iterations=200,solver_edges=12,safe_first=1").unwrap();
        let agent =
            <DotsAndBoxes as crate::games::RegisteredGame>::build_player(&spec, &start).unwrap();
        let engine = AgentSide::new(agent, &start).unwrap();
        let end = play(start, Player::P1, engine, &mut script.as_bytes(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(end.is_terminal(), "{text}");
        let notes: Vec<&str> = text.lines().filter(|l| l.contains("Engine (P2)")).collect();
        assert!(!notes.is_empty(), "{text}");
        assert!(
            notes
                .iter()
                .all(|l| l.contains("[the exact solver's move]") || l.contains("[a free capture]")),
            "{text}"
        );
    }

    #[test]
    fn end_of_input_leaves_quietly() {
        let mut out = Vec::new();
        let start = DotsAndBoxes::new(1, 1).unwrap();
        play(start, Player::P1, search(), &mut "".as_bytes(), &mut out).unwrap();
        assert!(String::from_utf8(out).unwrap().contains("Input ended"));
    }
}
