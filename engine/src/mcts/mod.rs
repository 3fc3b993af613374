//! Monte Carlo Tree Search as the Dots-and-Boxes paper describes it (sections 3 and 5.1):
//! UCB selection with the double counter, expansion of a leaf on its second visit, random
//! rollouts, backpropagation of absolute outcomes; root parallelisation over threads.
//!
//! A rollout policy may also back up fractional rewards (an evaluation's win
//! probability) and may evaluate every child of a node as it is expanded, which
//! orders the children and gives each its first visit (see [`RolloutPolicy::child_rewards`]).
//!
//! The search knows nothing of any one game or of any network: the tree policy and the rollout
//! policy are traits ([`TreePolicy`], [`RolloutPolicy`]).

pub mod bench;
mod node;
mod policy;
mod search;
pub mod stop;

pub use node::{Children, Node, Reward, Tree, BYTES_PER_NODE};
pub use policy::{RandomRollout, RolloutPolicy, RolloutStats, TreePolicy, Ucb};
pub use search::{
    mean_result, Budget, CounterMode, RootMove, Search, SearchConfig, SearchError, SearchResult,
};

#[cfg(test)]
mod tests;
