//! `pbrain-engine`: the engine as a Gomocup brain (Gomoku on stdin/stdout). A Gomocup manager
//! starts it with no arguments; `--threads N` is for people.

use std::io::{self, BufReader};

use engine::games::gomoku::gomocup::{serve, Brain};
use engine::games::gomoku::pvs_spec_config;

const USAGE: &str = "Usage: pbrain-engine [OPTIONS]

The engine as a Gomocup brain: it speaks the Gomocup protocol on stdin/stdout (a manager
starts it with no arguments). It plays the product's best Gomoku player, `best` (the
principal variation search with threat-space proofs; `engine players --game gomoku`), its
time taken from the manager's timeout_turn, timeout_match and time_left.

Options:
      --threads <N>      Search threads (0: one a core, at most 256) [default: 1]
      --player <SPEC>    The searcher as a player spec of `pvs` (or `best`) with its keys, such as
                         `pvs:beam=12` (`engine players --game gomoku` lists them); its time
                         comes from the manager's clock [default: best]
  -h, --help             Print help";

fn main() {
    engine::cli::exit_quietly_when_output_closes();
    let mut brain = Brain::new();
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return;
    }
    let mut i = 0;
    let mut threads = None;
    while i < args.len() {
        let text = args.get(i + 1);
        let value = text.map(|v| engine::cli::parse_threads(v));
        match (args[i].as_str(), value, text) {
            ("--threads", Some(Ok(n)), _) => threads = Some(engine::cli::or_all_cores(n)),
            ("--threads", Some(Err(e)), Some(v)) => {
                eprintln!("pbrain-engine: --threads {v}: {e}");
                std::process::exit(2);
            }
            ("--player", _, Some(spec)) => match pvs_spec_config(spec) {
                Ok(config) => brain.config = config,
                Err(e) => {
                    eprintln!("pbrain-engine: {e}");
                    std::process::exit(2);
                }
            },
            _ => {
                eprintln!(
                    "pbrain-engine: unexpected argument '{}' (usage: pbrain-engine [--threads N] [--player SPEC]; it then speaks the Gomocup protocol on stdin/stdout)",
                    args[i]
                );
                std::process::exit(2);
            }
        }
        i += 2;
    }
    if let Some(n) = threads {
        brain.config.threads = n;
    }
    let stdin = io::stdin();
    let mut input = BufReader::new(stdin.lock());
    let mut output = io::stdout().lock();
    if let Err(e) = serve(&mut brain, &mut input, &mut output) {
        eprintln!("pbrain-engine: {e}");
        std::process::exit(1);
    }
}
