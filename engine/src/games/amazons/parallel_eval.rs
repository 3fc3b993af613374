//! The paper's Parallel Evaluation (its Algorithm 4): the terms of one evaluation computed on two
//! threads at once. A helper thread, started once and kept, computes the queen-distance terms
//! (`t1`, `p1`, the larger half) while the caller computes the king-distance terms and the
//! mobility; the two meet through atomics, with no lock and no allocation.
//!
//! An evaluation takes a few microseconds, so the hand-over (two cache-line transfers and a
//! spin) is a visible share of it, and the helper holds a second core that root parallelism
//! could use for a whole second search. `engine bench --game amazons` measures both; docs/amazons.md
//! gives the figures. The helper spins while evaluations keep coming and sleeps (parks) after a
//! short idle time, so a player that is not thinking costs no CPU.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use super::board::Bits;
use super::eval::{king_and_mobility_terms, queen_terms, EvalInput, EvalTerms};

/// No work posted, or the last result taken.
const IDLE: u32 = 0;
/// Work posted for the helper.
const POSTED: u32 = 1;
/// The helper's result is ready.
const DONE: u32 = 2;

/// Spins of an idle helper before it parks.
const SPINS_BEFORE_PARK: u32 = 1 << 16;

/// What the caller and the helper share.
#[derive(Default)]
struct Mailbox {
    state: AtomicU32,
    quit: AtomicBool,
    width: AtomicU32,
    /// empty, P1's pieces, P2's pieces: low and high halves.
    board: [AtomicU64; 6],
    tie: AtomicU32,
    /// t1, p1 and w as f32 bits.
    result: [AtomicU32; 3],
}

fn split(x: Bits) -> (u64, u64) {
    (x as u64, (x >> 64) as u64)
}

fn join(lo: u64, hi: u64) -> Bits {
    lo as Bits | (hi as Bits) << 64
}

impl Mailbox {
    fn post(&self, input: &EvalInput) {
        let words = [input.empty, input.pieces[0], input.pieces[1]];
        for (i, w) in words.into_iter().enumerate() {
            let (lo, hi) = split(w);
            self.board[2 * i].store(lo, Ordering::Relaxed);
            self.board[2 * i + 1].store(hi, Ordering::Relaxed);
        }
        self.width.store(input.width, Ordering::Relaxed);
        self.tie.store(input.tie.to_bits(), Ordering::Relaxed);
        self.state.store(POSTED, Ordering::Release);
    }

    fn read(&self) -> EvalInput {
        let w = |i: usize| self.board[i].load(Ordering::Relaxed);
        EvalInput {
            width: self.width.load(Ordering::Relaxed),
            empty: join(w(0), w(1)),
            pieces: [join(w(2), w(3)), join(w(4), w(5))],
            tie: f32::from_bits(self.tie.load(Ordering::Relaxed)),
        }
    }
}

/// The helper thread's loop: wait for work, compute the queen terms, answer.
fn helper(mailbox: Arc<Mailbox>) {
    let mut idle = 0u32;
    loop {
        if mailbox.quit.load(Ordering::Acquire) {
            return;
        }
        if mailbox.state.load(Ordering::Acquire) == POSTED {
            let (t1, p1, w) = queen_terms(&mailbox.read());
            mailbox.result[0].store(t1.to_bits(), Ordering::Relaxed);
            mailbox.result[1].store(p1.to_bits(), Ordering::Relaxed);
            mailbox.result[2].store(w.to_bits(), Ordering::Relaxed);
            mailbox.state.store(DONE, Ordering::Release);
            idle = 0;
        } else if idle < SPINS_BEFORE_PARK {
            idle += 1;
            std::hint::spin_loop();
        } else {
            // The caller unparks after posting; the time-out only bounds a missed wake-up.
            std::thread::park_timeout(Duration::from_millis(5));
        }
    }
}

/// An evaluation split over the caller's thread and one helper thread of its own.
pub struct ParallelTerms {
    mailbox: Arc<Mailbox>,
    thread: Option<JoinHandle<()>>,
}

impl Default for ParallelTerms {
    fn default() -> ParallelTerms {
        ParallelTerms::new()
    }
}

impl ParallelTerms {
    /// Starts the helper thread.
    pub fn new() -> ParallelTerms {
        let mailbox = Arc::new(Mailbox::default());
        let shared = Arc::clone(&mailbox);
        let thread = std::thread::Builder::new()
            .name("amazons-pe".into())
            .spawn(move || helper(shared))
            .expect("the parallel-evaluation helper thread starts");
        ParallelTerms {
            mailbox,
            thread: Some(thread),
        }
    }

    /// The terms of `input`, the queen half computed by the helper meanwhile.
    pub fn terms(&mut self, input: &EvalInput) -> EvalTerms {
        self.mailbox.post(input);
        if let Some(t) = &self.thread {
            t.thread().unpark();
        }
        let king_half = king_and_mobility_terms(input);
        while self.mailbox.state.load(Ordering::Acquire) != DONE {
            std::hint::spin_loop();
        }
        let t1 = f32::from_bits(self.mailbox.result[0].load(Ordering::Relaxed));
        let p1 = f32::from_bits(self.mailbox.result[1].load(Ordering::Relaxed));
        let w = f32::from_bits(self.mailbox.result[2].load(Ordering::Relaxed));
        self.mailbox.state.store(IDLE, Ordering::Relaxed);
        EvalTerms::from_halves((t1, p1, w), king_half)
    }
}

impl Drop for ParallelTerms {
    fn drop(&mut self) {
        self.mailbox.quit.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::amazons::{eval::terms, Amazons, TurnShape};
    use crate::rng::Rng;

    /// The split evaluation gives exactly the terms of the one-thread evaluation.
    #[test]
    fn parallel_terms_equal_serial_terms() {
        let mut pe = ParallelTerms::new();
        let mut rng = Rng::new(11);
        for n in [6, 8, 10] {
            for _ in 0..20 {
                let mut game = Amazons::new(n, TurnShape::Whole).unwrap();
                for _ in 0..rng.below(30) {
                    if !game.play_random_turn(&mut rng) {
                        break;
                    }
                }
                let input = EvalInput::of(&game, 0.2);
                assert_eq!(pe.terms(&input), terms(&game, 0.2));
            }
        }
    }
}
