//! The engine: game rules behind one [`game::Game`] trait, Monte Carlo Tree Search with the
//! Dots-and-Boxes paper's double counter ([`mcts`]), and exact solvers used as test oracles.
//!
//! The `engine` binary (play, analyse, bench, protocol) is a thin layer over this library. The
//! engine never depends on a neural-network framework: value-net inference is hand-written in
//! [`nn`].

pub mod agents;
pub mod arena;
pub mod cli;
pub mod game;
pub mod game_record;
pub mod game_spec;
pub mod games;
pub mod interactive;
pub mod key_hash;
pub mod line_reader;
pub mod mcts;
pub mod nn;
pub mod protocol;
pub mod record;
pub mod registry;
pub mod rng;
pub mod serve;
pub mod transposition;
pub mod tuning;

pub use game::{Action, ActionError, Game, Outcome, Player};
pub use rng::Rng;
