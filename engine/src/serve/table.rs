//! One browser tab's game: the position, the turns played, who plays each side, and the engine
//! players (built from the same spec strings as `engine match`), for every game of the registry.

use std::any::Any;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use serde_json::{json, Value};

use crate::agents::{parse_spec, Agent, AgentSpec, Choice};
use crate::game::{Action, Player};
use crate::games::dots_and_boxes::net::{net_input, NetChoice};
use crate::games::dots_and_boxes::spec::{parse_dots, DotsSpec};
use crate::games::{DotsAndBoxes, GameSpec, RegisteredGame};
use crate::mcts::SearchResult;
use crate::nn::ValueNet;
use crate::record::{
    recorded_scores, GameRecord, MoveKind, MoveRecord, RecordReader, RecordWriter, RootStat,
};
use crate::registry::{GameVisitor, Lookup};

/// Root moves listed in an analysis at most (the most visited first).
const MAX_LISTED: usize = 600;
/// Threads a player may ask for from the browser.
pub const MAX_THREADS: usize = 64;

/// A request the table refuses, with the HTTP status it means.
#[derive(Debug)]
pub struct Refusal {
    pub status: u16,
    pub message: String,
}

impl Refusal {
    pub fn bad(message: impl Into<String>) -> Refusal {
        Refusal {
            status: 400,
            message: message.into(),
        }
    }

    pub fn conflict(message: impl Into<String>) -> Refusal {
        Refusal {
            status: 409,
            message: message.into(),
        }
    }
}

/// What a tab asks for when it starts a game.
pub struct NewGame {
    pub spec: GameSpec,
    /// Per side (P1, P2): a player, or `None` for a person at the page.
    pub players: [Option<SeatSpec>; 2],
    /// A move list to replay from the start (a record loaded again).
    pub moves: Vec<String>,
}

/// A player a page named, as it named it and as the server builds it (the page's checked
/// spec, a shipped model's name read as its file: `guard::PlayerPolicy::screen`).
pub struct SeatSpec {
    pub shown: String,
    pub built: String,
}

/// The time and iteration budget of a player spec, for the page's progress bar.
pub fn budget_of(spec: &str) -> (Option<u64>, Option<u64>) {
    match parse_spec(spec) {
        Ok(AgentSpec::Mcts { config, .. }) => (
            config.budget.time.map(|t| t.as_millis() as u64),
            config.budget.iterations,
        ),
        // A game's own kind: the budget its keys name (its defaults are the game's).
        Ok(game @ AgentSpec::Game { .. }) => (
            game.key("time_ms").and_then(|v| v.parse().ok()),
            game.key("iterations").and_then(|v| v.parse().ok()),
        ),
        _ => (None, None),
    }
}

/// A game table of any registered game, behind one object-safe face.
pub trait Table: Send {
    fn state(&self) -> Value;
    /// Plays a person's move (a whole turn's text or one ply).
    fn play(&mut self, text: &str) -> Result<(), Refusal>;
    /// The engine plays the side to move (a whole turn); returns what its search saw.
    fn engine_turn(&mut self) -> Result<Value, Refusal>;
    /// Takes back the last turn, and in a game against a person the engine's turns after
    /// the person's last one.
    fn undo(&mut self) -> Result<(), Refusal>;
    /// Legal plies after the plies of `text` (an Amazons queen move: its arrows).
    fn legal_after(&self, text: &str) -> Result<Vec<String>, Refusal>;
    /// The game record as a plain move list.
    fn record(&self) -> String;
    /// The finished game in the dataset record format (a record file of one game, as
    /// `selfplay` writes them: `data/FORMAT.md`).
    fn dataset_record(&self) -> Result<Vec<u8>, Refusal>;
    /// The spec of the side to move, when an engine plays it.
    fn engine_to_move(&self) -> Option<String>;
}

/// Builds a table for `new` (checks the players and replays the moves).
pub fn new_table(new: NewGame) -> Result<Box<dyn Table>, Refusal> {
    struct Build(NewGame);
    impl GameVisitor for Build {
        type Output = Result<Box<dyn Table>, Refusal>;
        fn visit<G: RegisteredGame>(self, start: G) -> Self::Output {
            GameTable::new(start, self.0).map(|t| Box::new(t) as Box<dyn Table>)
        }
    }
    let spec = new.spec;
    spec.visit(Build(new)).map_err(Refusal::bad)?
}

/// One turn: one person's move text or one engine answer (all plies of the mover's turn).
struct Turn {
    player: Player,
    plies: Vec<Action>,
    text: String,
    /// The engine's spec when an engine played it.
    by: Option<String>,
    seconds: f64,
    /// The search behind the turn's first ply (iterations and root moves), for the dataset
    /// record.
    searched: Option<(u64, Vec<RootStat>)>,
}

struct Seat<G: RegisteredGame> {
    /// The spec as the page named it.
    spec: String,
    /// The spec the player was built from.
    built: String,
    agent: Box<dyn Agent<G>>,
    started: bool,
}

struct GameTable<G: RegisteredGame> {
    spec: GameSpec,
    start: G,
    state: G,
    turns: Vec<Turn>,
    seats: [Option<Seat<G>>; 2],
    analysis: Option<Value>,
    /// The value net of an `nn` player (Dots and Boxes), for its prediction of the position.
    net: Option<(NetChoice, ValueNet)>,
}

fn build_seat<G: RegisteredGame>(seat: &SeatSpec, start: &G) -> Result<Seat<G>, Refusal> {
    let text = seat.shown.trim();
    let spec = parse_spec(&seat.built).map_err(Refusal::bad)?;
    let threads = match &spec {
        AgentSpec::Mcts { config, .. } => config.threads,
        AgentSpec::Game { .. } => spec
            .key("threads")
            .map_or(Ok(1), |v| v.parse::<usize>())
            .map_err(|_| Refusal::bad(format!("player '{text}': threads must be a number")))?,
        _ => 1,
    };
    if threads > MAX_THREADS {
        return Err(Refusal::bad(format!(
            "player '{text}': at most {MAX_THREADS} threads from the browser"
        )));
    }
    let agent = G::build_player(&spec, start).map_err(Refusal::bad)?;
    Ok(Seat {
        spec: text.to_string(),
        built: seat.built.trim().to_string(),
        agent,
        started: false,
    })
}

impl<G: RegisteredGame> GameTable<G> {
    fn new(start: G, new: NewGame) -> Result<GameTable<G>, Refusal> {
        let [p1, p2] = &new.players;
        let seat = |seat: &Option<SeatSpec>| -> Result<Option<Seat<G>>, Refusal> {
            seat.as_ref().map(|s| build_seat(s, &start)).transpose()
        };
        let seats = [seat(p1)?, seat(p2)?];
        let mut table = GameTable {
            spec: new.spec,
            state: start.clone(),
            start,
            turns: Vec::new(),
            seats,
            analysis: None,
            net: None,
        };
        for (i, text) in new.moves.iter().enumerate() {
            table.play(text).map_err(|e| {
                Refusal::bad(format!("move {} of the record: {}", i + 1, e.message))
            })?;
        }
        Ok(table)
    }

    fn moves(&self) -> Vec<Action> {
        self.turns.iter().flat_map(|t| t.plies.clone()).collect()
    }

    fn replay(&mut self) {
        let mut state = self.start.clone();
        for turn in &self.turns {
            for &a in &turn.plies {
                state.apply(a);
            }
        }
        self.state = state;
    }

    fn result_text(&self) -> Option<String> {
        self.state.outcome().map(|o| o.to_string())
    }

    fn legal_texts(state: &G) -> Vec<String> {
        if state.is_terminal() {
            return Vec::new();
        }
        let mut actions = Vec::new();
        state.legal_actions(&mut actions);
        actions.iter().map(|&a| state.format_action(a)).collect()
    }

    /// The net's prediction (P1 wins, P2 wins, draw) for `state` when the mover is an `nn`
    /// player of Dots and Boxes.
    fn net_prediction(&mut self, spec: &str, state: &G) -> Option<[f32; 3]> {
        let board = (state as &dyn Any).downcast_ref::<DotsAndBoxes>()?;
        let Ok(Some(DotsSpec::Nn { model, .. })) = parse_dots(spec) else {
            return None;
        };
        if self.net.as_ref().map(|(p, _)| p) != Some(&model) {
            let net = model.load(board).ok()??;
            self.net = Some((model, net.value_net().clone()));
        }
        let (_, net) = self.net.as_ref()?;
        let input = net_input(net, board);
        Some(net.forward(&input))
    }

    fn describe(
        state: &G,
        spec: &str,
        choice: &Choice,
        search: Option<&SearchResult>,
        seconds: f64,
    ) -> Value {
        let mut out = json!({
            "player": state.to_move().number(),
            "by": spec,
            "seconds": seconds,
            "best": state.format_action(choice.action),
            "win_probability": choice.win_probability,
        });
        let Some(r) = search else {
            out["note"] = json!(
                "no tree search behind this move (the player's knowledge, its solver, or a \
                 player that does not search)"
            );
            return out;
        };
        let p1 = r.best_move().value_for(Player::P1);
        let mut moves: Vec<&crate::mcts::RootMove> = r.root_moves.iter().collect();
        moves.sort_by(|a, b| b.visits.cmp(&a.visits).then(a.action.cmp(&b.action)));
        let listed: Vec<Value> = moves
            .iter()
            .take(MAX_LISTED)
            .map(|m| {
                json!({
                    "move": state.format_action(m.action),
                    "id": m.action,
                    "visits": m.visits,
                    "value": m.value_for(r.to_move),
                })
            })
            .collect();
        out["search"] = json!({
            "iterations": r.iterations,
            "ms": r.elapsed.as_secs_f64() * 1000.0,
            "iterations_per_second": r.iterations_per_second(),
            "threads": r.threads,
            "tree_nodes": r.tree_nodes,
            "value": {"p1": p1, "p2": -p1},
            "root_moves": r.root_moves.len(),
            "moves": listed,
            "rollouts": r.rollouts.rollouts,
            "net_evaluations": r.rollouts.net_evaluations,
            "net_cutoffs": r.rollouts.net_cutoffs,
        });
        out
    }
}

impl<G: RegisteredGame> Table for GameTable<G> {
    fn state(&self) -> Value {
        let s = &self.state;
        let over = s.is_terminal();
        let to_move = (!over).then(|| s.to_move().number());
        let human_to_move = !over && self.seats[s.to_move().index()].is_none();
        let mut clocks = [0.0f64; 2];
        for t in &self.turns {
            clocks[t.player.index()] += t.seconds;
        }
        let turns: Vec<Value> = self
            .turns
            .iter()
            .map(|t| json!({"player": t.player.number(), "move": t.text, "by": t.by, "seconds": t.seconds}))
            .collect();
        json!({
            "game": self.spec,
            "canonical": self.spec.canonical(),
            "position": s.position_text(),
            "board": s.to_string(),
            "to_move": to_move,
            "mid_turn": !over && s.mid_turn(),
            "over": over,
            "result": self.result_text(),
            "scores": s.scores(),
            "legal": Self::legal_texts(s),
            "players": [
                self.seats[0].as_ref().map(|x| x.spec.clone()),
                self.seats[1].as_ref().map(|x| x.spec.clone()),
            ],
            "human_to_move": human_to_move,
            "turns": turns,
            "clocks": clocks,
            "analysis": self.analysis,
        })
    }

    fn play(&mut self, text: &str) -> Result<(), Refusal> {
        if self.state.is_terminal() {
            return Err(Refusal::conflict("the game is over"));
        }
        let player = self.state.to_move();
        let text = text.trim();
        let plies = self
            .state
            .parse_legal_plies(text)
            .map_err(|e| Refusal::bad(e.to_string()))?;
        let shown = self.state.format_plies(&plies);
        for &a in &plies {
            self.state.apply(a);
        }
        self.turns.push(Turn {
            player,
            plies,
            text: shown,
            by: None,
            seconds: 0.0,
            searched: None,
        });
        self.analysis = None;
        Ok(())
    }

    fn engine_turn(&mut self) -> Result<Value, Refusal> {
        if self.state.is_terminal() {
            return Err(Refusal::conflict("the game is over"));
        }
        let mover = self.state.to_move();
        let before = self.state.clone();
        let mut moves = self.moves();
        let (spec, built) = match &self.seats[mover.index()] {
            Some(seat) => (seat.spec.clone(), seat.built.clone()),
            None => {
                return Err(Refusal::conflict(format!(
                    "{mover} is played by a person at the page: play its move"
                )))
            }
        };
        let net = self.net_prediction(&built, &before);
        let seat = self.seats[mover.index()]
            .as_mut()
            .expect("checked just above");
        if !seat.started {
            seat.agent
                .new_game(&before, &moves)
                .map_err(|e| Refusal::bad(format!("player '{spec}': {e}")))?;
            seat.started = true;
        }
        let started = Instant::now();
        let mut state = before.clone();
        let mut plies = Vec::new();
        let mut analysis = None;
        let mut searched = None;
        loop {
            let t = Instant::now();
            let choice = seat.agent.choose(&state, &moves).map_err(|e| Refusal {
                status: 500,
                message: format!("player '{spec}' could not move: {e}"),
            })?;
            if !state.is_legal(choice.action) {
                return Err(Refusal {
                    status: 500,
                    message: format!(
                        "player '{spec}' chose an illegal move: {}",
                        state.illegal_reason(choice.action)
                    ),
                });
            }
            if analysis.is_none() {
                searched = seat
                    .agent
                    .last_search()
                    .map(|r| (r.iterations, RootStat::of_search(r)));
                analysis = Some(Self::describe(
                    &state,
                    &spec,
                    &choice,
                    seat.agent.last_search(),
                    t.elapsed().as_secs_f64(),
                ));
            }
            state.apply(choice.action);
            moves.push(choice.action);
            plies.push(choice.action);
            if state.is_terminal() || !state.mid_turn() || state.to_move() != mover {
                break;
            }
        }
        let seconds = started.elapsed().as_secs_f64();
        let text = before.format_plies(&plies);
        let mut analysis = analysis.expect("one ply at least");
        analysis["move"] = json!(text);
        if let Some([p1, p2, draw]) = net {
            analysis["net"] = json!({"p1": p1, "p2": p2, "draw": draw});
        }
        self.state = state;
        self.turns.push(Turn {
            player: mover,
            plies,
            text,
            by: Some(spec),
            seconds,
            searched,
        });
        self.analysis = Some(analysis.clone());
        Ok(analysis)
    }

    fn undo(&mut self) -> Result<(), Refusal> {
        let Some(last) = self.turns.pop() else {
            return Err(Refusal::conflict("no move to take back"));
        };
        let someone_plays = self.seats.iter().any(|s| s.is_none());
        if someone_plays && last.by.is_some() {
            // Against the engine: back to the person's last move, and that one too.
            while let Some(t) = self.turns.pop() {
                if t.by.is_none() {
                    break;
                }
            }
        }
        self.replay();
        self.analysis = None;
        for seat in self.seats.iter_mut().flatten() {
            seat.started = false;
        }
        Ok(())
    }

    fn legal_after(&self, text: &str) -> Result<Vec<String>, Refusal> {
        let mut state = self.state.clone();
        if !text.trim().is_empty() {
            let plies = state
                .parse_legal_plies(text.trim())
                .map_err(|e| Refusal::bad(e.to_string()))?;
            for a in plies {
                state.apply(a);
            }
        }
        Ok(Self::legal_texts(&state))
    }

    fn record(&self) -> String {
        let mut out = String::from("# a game record of engine serve: the game, then its moves\n");
        for (i, seat) in self.seats.iter().enumerate() {
            let who = seat.as_ref().map_or("a person", |s| s.spec.as_str());
            out.push_str(&format!("# P{}: {who}\n", i + 1));
        }
        if let Some(result) = self.result_text() {
            out.push_str(&format!("# result: {result}\n"));
        }
        out.push_str(&format!("game {}\n", self.spec.canonical()));
        let texts: Vec<&str> = self.turns.iter().map(|t| t.text.as_str()).collect();
        out.push_str(&texts.join(" "));
        out.push('\n');
        out
    }

    fn dataset_record(&self) -> Result<Vec<u8>, Refusal> {
        let Some(outcome) = self.state.outcome() else {
            return Err(Refusal::conflict(
                "the dataset record format keeps finished games: finish the game first",
            ));
        };
        let mut moves = Vec::new();
        let mut state = self.start.clone();
        for turn in &self.turns {
            for (i, &action) in turn.plies.iter().enumerate() {
                let search = turn.searched.as_ref().filter(|_| i == 0);
                moves.push(MoveRecord {
                    action,
                    player: state.to_move(),
                    kind: if search.is_some() {
                        MoveKind::Searched
                    } else {
                        MoveKind::Given
                    },
                    iterations: search.map_or(0, |(n, _)| (*n).min(u32::MAX as u64) as u32),
                    root: search.map_or_else(Vec::new, |(_, root)| root.clone()),
                });
                state.apply(action);
            }
        }
        let game = GameRecord {
            index: 0,
            seed: 0,
            outcome,
            scores: recorded_scores(&state, outcome),
            moves,
        };
        with_temp_file(|path| {
            let mut writer = RecordWriter::create(path, &self.spec).map_err(|e| e.to_string())?;
            writer.append(&game).map_err(|e| e.to_string())?;
            writer.sync().map_err(|e| e.to_string())?;
            drop(writer);
            std::fs::read(path).map_err(|e| e.to_string())
        })
        .map_err(|e| Refusal {
            status: 500,
            message: format!("cannot write the dataset record: {e}"),
        })
    }

    fn engine_to_move(&self) -> Option<String> {
        if self.state.is_terminal() {
            return None;
        }
        self.seats[self.state.to_move().index()]
            .as_ref()
            .map(|s| s.spec.clone())
    }
}

/// Runs `f` with the path of a new temporary file, removed afterwards.
fn with_temp_file<T>(f: impl FnOnce(&Path) -> Result<T, String>) -> Result<T, String> {
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let path = std::env::temp_dir().join(format!(
        "engine-serve-{}-{}.rec",
        std::process::id(),
        COUNT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_file(&path);
    let result = f(&path);
    let _ = std::fs::remove_file(&path);
    result
}

/// Reads a record file of the dataset format (its first game): the game and its moves in the
/// game's notation, one ply each.
pub fn read_dataset_record(bytes: &[u8]) -> Result<(GameSpec, Vec<String>), String> {
    struct Texts(Vec<Action>);
    impl GameVisitor for Texts {
        type Output = Result<Vec<String>, String>;
        fn visit<G: RegisteredGame>(self, start: G) -> Self::Output {
            let mut state = start;
            let mut out = Vec::with_capacity(self.0.len());
            for (i, &a) in self.0.iter().enumerate() {
                if state.is_terminal() || !state.is_legal(a) {
                    return Err(format!("move {} (id {a}) of the record is illegal", i + 1));
                }
                out.push(state.format_action(a));
                state.apply(a);
            }
            Ok(out)
        }
    }
    with_temp_file(|path| {
        std::fs::write(path, bytes).map_err(|e| e.to_string())?;
        let mut reader = RecordReader::open(path).map_err(|e| e.to_string())?;
        let spec = *reader.spec();
        let game = reader
            .next()
            .ok_or_else(|| "the record file holds no game".to_string())?
            .map_err(|e| e.to_string())?;
        let actions: Vec<Action> = game.1.moves.iter().map(|m| m.action).collect();
        let texts = spec.visit(Texts(actions))??;
        Ok((spec, texts))
    })
}

/// Reads standard base64 (the page sends a dataset record file so); line breaks, spaces and
/// missing padding are taken as before.
pub fn base64_decode(text: &str) -> Result<Vec<u8>, String> {
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    use base64::Engine as _;
    const LENIENT: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    let compact: String = text
        .chars()
        .filter(|c| !matches!(c, '\n' | '\r' | ' '))
        .collect();
    LENIENT
        .decode(compact)
        .map_err(|e| format!("not base64: {e}"))
}

/// Reads a record as [`Table::record`] writes it (or any plain move list, with an optional
/// `game NAME key=value ...` line): the game, if named, and the move texts.
pub fn read_record(text: &str) -> Result<(Option<GameSpec>, Vec<String>), String> {
    let mut spec = None;
    let mut moves = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(rest) = line.strip_prefix("game ") {
            let words: Vec<&str> = rest.split_whitespace().collect();
            let (name, params) = words
                .split_first()
                .ok_or_else(|| "the game line names no game".to_string())?;
            spec = Some(GameSpec::parse(name, params)?);
            continue;
        }
        moves.extend(line.split_whitespace().map(str::to_string));
    }
    Ok((spec, moves))
}

#[cfg(test)]
mod tests {
    use super::base64_decode;

    #[test]
    fn base64_is_read_with_line_breaks_and_without_padding() {
        assert_eq!(base64_decode("TUNUUw==").unwrap(), b"MCTS");
        assert_eq!(base64_decode("TUNU\r\nUw").unwrap(), b"MCTS");
        assert!(base64_decode("TU*U").unwrap_err().starts_with("not base64"));
    }
}
