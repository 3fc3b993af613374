//! Monte Carlo Tree Search as the Dots-and-Boxes paper describes it (sections 3 and 5.1):
//! UCB selection with the double counter, expansion of a leaf on its second visit, random
//! rollouts, backpropagation of absolute outcomes; root parallelisation over threads.
//!
//! The search knows nothing of any one game or of any network: the tree policy and the rollout
//! policy are traits ([`TreePolicy`], [`RolloutPolicy`]).

mod node;
mod policy;
mod search;

pub use node::{Children, Node, Tree, BYTES_PER_NODE};
pub use policy::{RandomRollout, RolloutPolicy, RolloutStats, TreePolicy, Ucb};
pub use search::{
    mean_result, Budget, CounterMode, RootMove, Search, SearchConfig, SearchError, SearchResult,
};

#[cfg(test)]
mod tests;
