//! `engine botzone`: Botzone's simple interaction for 8x8 Amazons on stdin/stdout.

use std::io;
use std::time::Duration;

use clap::Args;

use engine::games::amazons::botzone::{serve, BotzoneConfig};

#[derive(Args)]
pub struct BotzoneArgs {
    /// The game (Botzone's Amazons is 8x8).
    #[arg(long, default_value = "amazons")]
    game: String,
    /// Thinking time a turn in milliseconds (Botzone allows 1000).
    #[arg(long, default_value_t = 850)]
    time_ms: u64,
    /// Thinking time of the first turn (Botzone allows 2000).
    #[arg(long, default_value_t = 1700)]
    first_time_ms: u64,
    /// Search threads (0: one a core, at most 256). Botzone gives a bot one core, so the
    /// default is 1, where every other search defaults to one thread too.
    #[arg(long, default_value_t = 1, value_parser = engine::cli::parse_threads)]
    threads: usize,
    /// The seed of the search's random choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Stay alive between turns (prints >>>BOTZONE_REQUEST_KEEP_RUNNING<<< after each answer).
    #[arg(long)]
    keep_running: bool,
}

pub fn run(args: BotzoneArgs) -> Result<(), String> {
    let name = args.game.replace('-', "_");
    if name != "amazons" {
        return Err(format!(
            "engine botzone speaks Botzone's Amazons only, not '{}'",
            args.game
        ));
    }
    if args.time_ms == 0 || args.first_time_ms == 0 {
        return Err("--time-ms and --first-time-ms must be positive".into());
    }
    let config = BotzoneConfig {
        time: Duration::from_millis(args.time_ms),
        first_time: Duration::from_millis(args.first_time_ms),
        threads: engine::cli::or_all_cores(args.threads),
        seed: args.seed,
        keep_running: args.keep_running,
    };
    serve(&config, &mut io::stdin().lock(), &mut io::stdout().lock())
        .map_err(|e| format!("botzone: {e}"))
}
