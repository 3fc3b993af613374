//! Any bytes as a protocol session playing Surakarta: the session must never panic, and every
//! answer must be framed (`=` or `?`, ending with an empty line).
#![no_main]

use engine::protocol::{serve_session, Session};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut session = Session::new();
    session.handle_line("game surakarta");
    // Short searches, so that inputs reaching `genmove` stay fast.
    session.handle_line("set_option iterations 100");
    let mut out = Vec::new();
    serve_session(&mut session, &mut &data[..], &mut out).expect("writing to a Vec cannot fail");
    let text = String::from_utf8(out).expect("answers are UTF-8");
    assert!(text.is_empty() || text.ends_with("\n\n"));
    for answer in text.split_terminator("\n\n") {
        assert!(answer.starts_with('=') || answer.starts_with('?'), "{answer:?}");
    }
});
