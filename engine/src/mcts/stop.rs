//! Stopping a search early from outside: a flag a caller raises (a browser tab that went away,
//! a "move now" button) and every worker of the searches run under it reads with the clock.
//!
//! The flag is set for the searches a thread runs inside [`with_stop`]; a search hands it to
//! its worker threads. A stopped search returns what it has so far (a legal move: the most
//! visited root move, or any root move when none was visited yet).

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

thread_local! {
    static CURRENT: RefCell<Option<Arc<AtomicBool>>> = const { RefCell::new(None) };
}

/// Runs `f` with `flag` as the stop flag of every search it runs on this thread.
pub fn with_stop<R>(flag: Arc<AtomicBool>, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Arc<AtomicBool>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let old = self.0.take();
            CURRENT.with(|c| *c.borrow_mut() = old);
        }
    }
    let old = CURRENT.with(|c| c.borrow_mut().replace(flag));
    let _restore = Restore(old);
    f()
}

/// The stop flag of this thread's searches, if a caller set one.
pub(crate) fn current() -> Option<Arc<AtomicBool>> {
    CURRENT.with(|c| c.borrow().clone())
}

/// Whether `flag` was raised.
#[inline]
pub(crate) fn raised(flag: Option<&AtomicBool>) -> bool {
    flag.is_some_and(|f| f.load(Ordering::Relaxed))
}
