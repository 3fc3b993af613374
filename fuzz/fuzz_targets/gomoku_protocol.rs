//! Any bytes as a protocol session playing Gomoku (renju rules, so forbidden points are in
//! play): the session must never panic, and every answer must be framed (`=` or `?`, ending
//! with an empty line). Searches are kept short so that inputs reaching `genmove` stay fast.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let setup = ["game gomoku size=9 rule=renju", "set_option iterations 100"];
    if let Err(problem) = engine::protocol::fuzz_session(&setup, data) {
        panic!("{problem}");
    }
});
