//! Any bytes as lines to the Gomocup brain (`pbrain-engine`): no panic, every answer one of
//! the protocol's forms (OK, a move, ERROR, UNKNOWN, ABOUT's line), and the brain still
//! answering afterwards. Its searches are kept to the "as fast as possible" clock.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(problem) = engine::games::gomoku::gomocup::fuzz_session(data) {
        panic!("{problem}");
    }
});
