//! Any bytes as Botzone input (turn number, requests and responses, keep-running): the bot must
//! never panic, and every answer it writes is one line of six numbers.
#![no_main]

use std::time::Duration;

use engine::protocol::botzone::{serve, BotzoneConfig};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let config = BotzoneConfig {
        time: Duration::from_millis(1),
        first_time: Duration::from_millis(1),
        threads: 1,
        seed: 1,
        keep_running: true,
    };
    let mut out = Vec::new();
    serve(&config, &mut &data[..], &mut out).expect("writing to a Vec cannot fail");
    let text = String::from_utf8(out).expect("answers are UTF-8");
    for line in text.lines().filter(|l| !l.starts_with(">>>")) {
        assert_eq!(line.split_whitespace().count(), 6, "{line:?}");
    }
});
