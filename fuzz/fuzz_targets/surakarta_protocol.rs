//! Any bytes as a protocol session playing Surakarta: the session must never panic, and every answer
//! must be framed (`=` or `?`, ending with an empty line). Searches are kept short so that
//! inputs reaching `genmove` stay fast.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(problem) = engine::protocol::fuzz_session(&["game surakarta", "set_option iterations 100"], data) {
        panic!("{problem}");
    }
});
