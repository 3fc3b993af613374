//! Dots and Boxes in the registry: its parameters, its protocol position, and how the engine
//! searches it (the value net and the game's knowledge when the settings ask for them).

use super::knowledge::{time_after_knowledge, DotsKnowledge};
use super::net::{NetRollout, PRODUCT_CP};
use super::options::{DotsOptions, OPTIONS};
use super::DotsAndBoxes;
use crate::agents::{Agent, AgentSpec};
use crate::game::Game;
use crate::game_spec::{KeyDecl, ParamDecl, ParamKind, PlayerDecl};
use crate::games::{OptionDecl, Oracle, RegisteredGame, Searched};
use crate::mcts::bench::{BenchOptions, BenchOutput};
use crate::mcts::{RandomRollout, Search, SearchConfig, Ucb};
use crate::Player;

const SIZE: ParamKind = ParamKind::Int { min: 1, max: 7 };

impl RegisteredGame for DotsAndBoxes {
    const NAME: &'static str = "dots_and_boxes";
    const ALIASES: &'static [&'static str] = &["dots", "dab"];
    const ABOUT: &'static str = "Dots and Boxes (OpenSpiel's edge ids).";
    const PARAMS: &'static [ParamDecl] = &[
        ParamDecl {
            name: "rows",
            kind: SIZE,
            default: 5,
            help: "rows of boxes",
        },
        ParamDecl {
            name: "cols",
            kind: SIZE,
            default: 5,
            help: "columns of boxes",
        },
    ];

    const PLAYERS: &'static [PlayerDecl] = &super::spec::PLAYERS;

    const MCTS_KEYS: &'static [KeyDecl] = &super::spec::MCTS_KEYS;

    const SHORT: Option<fn(&[i64]) -> String> =
        Some(|v| format!("dots_and_boxes {}x{}", v[0], v[1]));

    const BENCH_ITERATIONS: u64 = 100_000;

    fn from_params(values: &[i64]) -> Result<DotsAndBoxes, String> {
        DotsAndBoxes::new(values[0] as usize, values[1] as usize).map_err(|e| e.to_string())
    }

    fn param_values(&self) -> Vec<i64> {
        vec![self.rows() as i64, self.cols() as i64]
    }

    type Rollout = RandomRollout;

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

    type Options = DotsOptions;

    const OPTIONS: &'static [OptionDecl] = &OPTIONS;

    fn set_option(
        &self,
        options: &mut DotsOptions,
        name: &str,
        value: &str,
    ) -> Result<bool, String> {
        options.set(name, value, self)
    }

    fn get_option(&self, options: &DotsOptions, name: &str) -> Option<String> {
        options.get(name, self)
    }

    fn engine_search(
        &self,
        settings: &DotsOptions,
        config: SearchConfig,
        knowledge: &mut DotsKnowledge,
    ) -> Result<Searched, String> {
        knowledge.configure(settings.endgame(), settings.safe_first);
        knowledge.set_move_time(config.budget.time);
        let start = std::time::Instant::now();
        let mut root_moves = Vec::new();
        if let Some(known) = knowledge.known_move(self, &mut root_moves) {
            return Ok(Searched {
                plies: vec![known.action()],
                result: None,
                note: Some(known.describe().to_string()),
            });
        }
        // A proof that found no win took its time from the search's.
        let mut config = config;
        if let Some(time) = config.budget.time {
            config.budget.time = Some(time_after_knowledge(time, start.elapsed()));
        }
        let chains = settings.search.chain_rollout();
        // The generic default constant means the product's with chain rollouts (as `nn`).
        let cp = if config.cp == Ucb::DEFAULT_CP && chains.is_some() {
            PRODUCT_CP
        } else {
            config.cp
        };
        let result = match (settings.net(self)?, chains) {
            (Some(net), chains) => {
                let mut rollout = NetRollout::new(net, settings.guide)?;
                if let Some(chains) = chains {
                    rollout = rollout.then_chains(chains);
                }
                let ucb = settings.guide.tree_policy(cp);
                Search::new(config, ucb, rollout).run_among(self, &root_moves)
            }
            (None, Some(chains)) => {
                Search::new(config, Ucb::new(cp), chains).run_among(self, &root_moves)
            }
            (None, None) => Search::plain(config).run_among(self, &root_moves),
        }
        .map_err(|e| e.to_string())?;
        Ok(Searched {
            plies: vec![result.best],
            result: Some(result),
            note: None,
        })
    }

    fn build_kind(
        spec: &AgentSpec,
        start: &DotsAndBoxes,
    ) -> Result<Box<dyn Agent<DotsAndBoxes>>, String> {
        super::spec::build_dots(spec, start)
    }

    fn endgame_oracle(&self, free_edges: u32) -> Box<Oracle<Self>> {
        let mut solver = None;
        Box::new(move |state: &DotsAndBoxes| {
            let free = state.num_edges() as u32 - state.edges_drawn();
            if free_edges == 0 || free > free_edges {
                return None;
            }
            let solver =
                solver.get_or_insert_with(|| super::endgame::EndgameSolver::for_board(state));
            // Far more than 40 free edges ever need; past it the search plays the move.
            solver.try_best_action(state, 200_000_000).map(|(a, _)| a)
        })
    }

    /// With no board named, the paper's 5x5 report (and a value net's figures with `--model`);
    /// on a board named, the product's search, the solver's reach and the net's figures.
    fn bench(start: &DotsAndBoxes, options: &BenchOptions) -> Result<BenchOutput, String> {
        if options.report && (start.rows(), start.cols()) == (5, 5) {
            return super::bench::output(options);
        }
        let net = super::bench::bench_net(options, start)?;
        Ok(BenchOutput::figures(super::bench_board::board_figures(
            start,
            options,
            net.as_ref(),
        )))
    }
}

impl DotsAndBoxes {
    /// The spec of Dots and Boxes of `rows` x `cols` boxes (checked).
    pub fn spec_for(rows: usize, cols: usize) -> Result<crate::game_spec::GameSpec, String> {
        crate::game_spec::GameSpec::with_values(Self::INFO, &[rows as i64, cols as i64])
    }
}
