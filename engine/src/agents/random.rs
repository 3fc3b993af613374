//! The uniformly random player, for any game.

use super::{Agent, AgentError, Choice};
use crate::game::{Action, Game};
use crate::rng::Rng;

/// Uniformly random legal moves (any game).
pub struct RandomAgent {
    rng: Rng,
    buf: Vec<Action>,
}

impl RandomAgent {
    pub fn new(seed: u64) -> RandomAgent {
        RandomAgent {
            rng: Rng::new(seed),
            buf: Vec::new(),
        }
    }
}

impl<G: Game> Agent<G> for RandomAgent {
    fn name(&self) -> String {
        "random".into()
    }

    fn reseed(&mut self, seed: u64) {
        self.rng = Rng::new(seed);
    }

    fn new_game(&mut self, _start: &G, _moves: &[Action]) -> Result<(), AgentError> {
        Ok(())
    }

    fn choose(&mut self, state: &G, _moves: &[Action]) -> Result<Choice, AgentError> {
        state.legal_actions(&mut self.buf);
        let a = self.rng.pick(&self.buf);
        Ok(Choice::plain(a))
    }
}
