use engine::agents::{parse_spec, play_game};
use engine::games::DotsAndBoxes;
use engine::Outcome;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (a, b, n) = (&args[1], &args[2], args[3].parse::<usize>().unwrap());
    let board = DotsAndBoxes::new(5, 5).unwrap();
    let mut pa = parse_spec(a).unwrap().build_dots(&board).unwrap();
    let mut pb = parse_spec(b).unwrap().build_dots(&board).unwrap();
    let (mut wa, mut wb, mut ta, mut tb) = (0, 0, 0.0, 0.0);
    for g in 0..n {
        let r = if g % 2 == 0 {
            let r = play_game(&board, &[], [pa.as_mut(), pb.as_mut()]).unwrap();
            ta += r.seconds[0] / r.moves_made[0] as f64;
            tb += r.seconds[1] / r.moves_made[1] as f64;
            match r.outcome {
                Outcome::P1Win => wa += 1,
                Outcome::P2Win => wb += 1,
                _ => {}
            }
            r
        } else {
            let r = play_game(&board, &[], [pb.as_mut(), pa.as_mut()]).unwrap();
            ta += r.seconds[1] / r.moves_made[1] as f64;
            tb += r.seconds[0] / r.moves_made[0] as f64;
            match r.outcome {
                Outcome::P1Win => wb += 1,
                Outcome::P2Win => wa += 1,
                _ => {}
            }
            r
        };
        eprintln!(
            "game {g}: {:?} {:?} forfeit {:?}",
            r.outcome, r.scores, r.forfeit
        );
    }
    println!(
        "{a}: {wa} wins, {:.1} ms/move; {b}: {wb} wins, {:.1} ms/move",
        ta / n as f64 * 1000.0,
        tb / n as f64 * 1000.0
    );
}
