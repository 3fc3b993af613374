use std::path::{Path, PathBuf};

use super::*;
use crate::game::{Game, Outcome, Player};
use crate::games::{DotsAndBoxes, GameSpec};
use crate::rng::Rng;

fn spec() -> GameSpec {
    crate::games::DotsAndBoxes::spec_for(3, 3).unwrap()
}

/// A random legal 3x3 game with made-up root statistics, as a record.
fn random_game(index: u64, rng: &mut Rng) -> GameRecord {
    let mut state = DotsAndBoxes::new(3, 3).unwrap();
    let mut moves = Vec::new();
    let mut legal = Vec::new();
    while !state.is_terminal() {
        state.legal_actions(&mut legal);
        let action = rng.pick(&legal);
        let kind = match moves.len() {
            0 => MoveKind::Given,
            1 => MoveKind::Sampled,
            _ => MoveKind::Searched,
        };
        let root = if kind == MoveKind::Given {
            Vec::new()
        } else {
            legal
                .iter()
                .map(|&a| RootStat {
                    action: a,
                    visits: rng.below(100_000),
                    p1_wins: rng.below(50_000),
                    p2_wins: rng.below(50_000),
                })
                .collect()
        };
        moves.push(MoveRecord {
            action,
            player: state.to_move(),
            kind,
            iterations: if kind == MoveKind::Given { 0 } else { 100_000 },
            root,
        });
        state.apply(action);
    }
    GameRecord {
        index,
        seed: rng.next_u64(),
        outcome: state.outcome().unwrap(),
        scores: state.scores().unwrap(),
        moves,
    }
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("record-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write_file(path: &Path, games: &[GameRecord]) -> Vec<u64> {
    let mut w = RecordWriter::create(path, &spec()).unwrap();
    let mut offsets = Vec::new();
    let mut at = std::fs::metadata(path).unwrap().len();
    for g in games {
        offsets.push(at);
        w.append(g).unwrap();
        w.sync().unwrap();
        at = std::fs::metadata(path).unwrap().len();
    }
    offsets
}

fn read_all(path: &Path) -> Vec<Result<(u64, GameRecord), RecordError>> {
    RecordReader::open(path).unwrap().collect()
}

#[test]
fn payload_round_trip() {
    let mut rng = Rng::new(1);
    for i in 0..200 {
        let game = random_game(i, &mut rng);
        let mut bytes = Vec::new();
        encode_game(&game, &mut bytes).unwrap();
        assert_eq!(decode_game(&bytes).unwrap(), game);
        // Every strict prefix fails to decode, with a message, never a panic.
        for cut in [0, 1, bytes.len() / 2, bytes.len() - 1] {
            assert!(decode_game(&bytes[..cut]).is_err());
        }
    }
}

#[test]
fn payload_layout_is_the_documented_one() {
    let game = GameRecord {
        index: 7,
        seed: 0x0102_0304_0506_0708,
        outcome: Outcome::P2Win,
        scores: [4, 5],
        moves: vec![MoveRecord {
            action: 12,
            player: Player::P2,
            kind: MoveKind::Sampled,
            iterations: 1000,
            root: vec![RootStat {
                action: 3,
                visits: 10,
                p1_wins: 4,
                p2_wins: 5,
            }],
        }],
    };
    let mut bytes = Vec::new();
    encode_game(&game, &mut bytes).unwrap();
    let expected: Vec<u8> = [
        &7u64.to_le_bytes()[..],
        &[8, 7, 6, 5, 4, 3, 2, 1],
        &[1],
        &[4, 0, 5, 0, 1, 0],
        &[12, 0, 2, 1],
        &1000u32.to_le_bytes(),
        &[1, 0],
        &[3, 0, 10, 0, 0, 0, 4, 0, 0, 0, 5, 0, 0, 0],
    ]
    .concat();
    assert_eq!(bytes, expected);
}

#[test]
fn file_round_trip_with_offsets() {
    let dir = temp_dir("round-trip");
    let path = dir.join("games.rec");
    let mut rng = Rng::new(2);
    let games: Vec<_> = (0..50).map(|i| random_game(i, &mut rng)).collect();
    let offsets = write_file(&path, &games);
    let read: Vec<_> = read_all(&path).into_iter().map(|r| r.unwrap()).collect();
    assert_eq!(read.len(), games.len());
    for ((offset, game), (expected_offset, expected)) in read.iter().zip(offsets.iter().zip(&games))
    {
        assert_eq!(offset, expected_offset);
        assert_eq!(game, expected);
    }
    // Random access by offset, in any order.
    let mut reader = RecordReader::open(&path).unwrap();
    for i in [7usize, 3, 49, 0, 3] {
        assert_eq!(reader.read_at(offsets[i]).unwrap(), games[i]);
    }
    let report = scan(&path).unwrap();
    assert_eq!(report.indices, (0..50).collect::<Vec<_>>());
    assert!(report.torn.is_none());
    assert_eq!(report.valid_len, std::fs::metadata(&path).unwrap().len());
    // The file starts with the documented header.
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(&bytes[..8], b"MCTSGAME");
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 1);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn flipped_byte_in_a_middle_record_is_reported_with_file_and_offset() {
    let dir = temp_dir("flip");
    let path = dir.join("games.rec");
    let mut rng = Rng::new(3);
    let games: Vec<_> = (0..10).map(|i| random_game(i, &mut rng)).collect();
    let offsets = write_file(&path, &games);
    let mut bytes = std::fs::read(&path).unwrap();
    // Flip one bit inside the payload of record 4.
    let target = offsets[4] as usize + 8 + 30;
    bytes[target] ^= 0x10;
    std::fs::write(&path, &bytes).unwrap();
    let results = read_all(&path);
    assert_eq!(
        results.len(),
        5,
        "four good records, then the error, then nothing"
    );
    for (i, r) in results[..4].iter().enumerate() {
        assert_eq!(r.as_ref().unwrap().1, games[i]);
    }
    let err = results[4].as_ref().unwrap_err();
    match err {
        RecordError::Corrupt {
            path: p, offset, ..
        } => {
            assert_eq!(p, &path);
            assert_eq!(*offset, offsets[4]);
        }
        other => panic!("expected Corrupt, got {other}"),
    }
    let text = err.to_string();
    assert!(
        text.contains("games.rec") && text.contains(&offsets[4].to_string()),
        "{text}"
    );
    assert!(text.contains("checksum"), "{text}");
    // A resume refuses to build on a damaged file.
    assert!(matches!(scan(&path), Err(RecordError::Corrupt { .. })));
    assert!(RecordWriter::resume(&path, &spec()).is_err());
    // A damaged length field in the middle is caught too (as a checksum or layout error of the
    // frame that follows, never read as data).
    bytes[target] ^= 0x10;
    bytes[offsets[6] as usize] ^= 0x01;
    std::fs::write(&path, &bytes).unwrap();
    let results = read_all(&path);
    assert!(results[..6].iter().all(|r| r.is_ok()));
    assert!(results[6].is_err());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn truncated_file_is_a_torn_tail_and_resume_drops_it() {
    let dir = temp_dir("torn");
    let path = dir.join("games.rec");
    let mut rng = Rng::new(4);
    let games: Vec<_> = (0..8).map(|i| random_game(i, &mut rng)).collect();
    let offsets = write_file(&path, &games);
    let full = std::fs::read(&path).unwrap();
    // Cut inside the frame header, inside the payload, and one byte short of the end.
    for cut in [
        offsets[7] as usize + 3,
        offsets[7] as usize + 20,
        full.len() - 1,
    ] {
        std::fs::write(&path, &full[..cut]).unwrap();
        let results = read_all(&path);
        assert_eq!(results.len(), 8);
        assert!(results[..7].iter().all(|r| r.is_ok()));
        let err = results[7].as_ref().unwrap_err();
        assert!(err.is_torn_tail(), "{err}");
        let report = scan(&path).unwrap();
        assert_eq!(report.indices, (0..7).collect::<Vec<_>>());
        assert_eq!(report.torn.as_ref().unwrap().0, offsets[7]);
        // Resume truncates to the last complete record and appends after it.
        let (mut w, report) = RecordWriter::resume(&path, &spec()).unwrap();
        assert_eq!(report.valid_len, offsets[7]);
        w.append(&games[7]).unwrap();
        w.sync().unwrap();
        drop(w);
        assert_eq!(std::fs::read(&path).unwrap(), full);
    }
    // A file cut inside its header is not a record file.
    std::fs::write(&path, &full[..10]).unwrap();
    assert!(matches!(
        RecordReader::open(&path),
        Err(RecordError::NotARecordFile { .. })
    ));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn resume_refuses_another_game() {
    let dir = temp_dir("other-game");
    let path = dir.join("games.rec");
    write_file(&path, &[]);
    let other = crate::games::DotsAndBoxes::spec_for(5, 5).unwrap();
    let err = RecordWriter::resume(&path, &other)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("3x3") && err.contains("5x5"), "{err}");
    assert!(
        RecordWriter::create(&path, &spec()).is_err(),
        "create never overwrites"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

fn manifest_for(files: Vec<FileEntry>) -> Manifest {
    Manifest {
        format: Manifest::FORMAT.to_string(),
        format_version: FORMAT_VERSION,
        game: spec(),
        generator: "test".into(),
        config: serde_json::json!({"iterations": 1}),
        seeds: "test".into(),
        shard: None,
        games_planned: 5,
        games: 5,
        positions: 0,
        complete: true,
        files,
        sources: Vec::new(),
    }
}

#[test]
fn dataset_positions_carry_features_and_labels() {
    let dir = temp_dir("positions");
    let mut rng = Rng::new(5);
    let games: Vec<_> = (0..5).map(|i| random_game(i, &mut rng)).collect();
    write_file(&dir.join("a.rec"), &games[..3]);
    write_file(&dir.join("b.rec"), &games[3..]);
    let entry = |name: &str| FileEntry {
        name: name.into(),
        games: 0,
        positions: 0,
    };
    manifest_for(vec![entry("a.rec"), entry("b.rec")])
        .write(&dir)
        .unwrap();
    let dataset = Dataset::open(&dir).unwrap();
    let read: Vec<_> = dataset.games().map(|g| g.unwrap()).collect();
    assert_eq!(read, games);
    let positions: Vec<_> = dataset
        .positions(DotsAndBoxes::new(3, 3).unwrap())
        .map(|p| p.unwrap())
        .collect();
    assert_eq!(
        positions.len(),
        games.iter().map(|g| g.moves.len()).sum::<usize>()
    );
    let mut i = 0;
    for g in &games {
        let mut state = DotsAndBoxes::new(3, 3).unwrap();
        for (ply, m) in g.moves.iter().enumerate() {
            let p = &positions[i];
            let mut expected = vec![0.0; state.feature_len()];
            state.encode_features(&mut expected);
            assert_eq!(
                (p.game_index, p.ply, p.to_move, p.kind),
                (g.index, ply, m.player, m.kind)
            );
            assert_eq!(p.features, expected);
            assert_eq!(p.label, g.outcome);
            state.apply(m.action);
            i += 1;
        }
    }
    // A missing file is named.
    std::fs::remove_file(dir.join("b.rec")).unwrap();
    let err = Dataset::open(&dir).unwrap_err().to_string();
    assert!(err.contains("b.rec"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_record_that_does_not_replay_is_reported() {
    let dir = temp_dir("bad-replay");
    let mut rng = Rng::new(6);
    let mut game = random_game(0, &mut rng);
    game.moves[3].action = game.moves[2].action; // an edge drawn twice
    let mut wrong_score = random_game(1, &mut rng);
    wrong_score.scores[0] += 1;
    write_file(&dir.join("a.rec"), &[game, wrong_score]);
    manifest_for(vec![FileEntry {
        name: "a.rec".into(),
        games: 2,
        positions: 0,
    }])
    .write(&dir)
    .unwrap();
    let dataset = Dataset::open(&dir).unwrap();
    let errors: Vec<String> = dataset
        .positions(DotsAndBoxes::new(3, 3).unwrap())
        .filter_map(|p| p.err().map(|e| e.to_string()))
        .collect();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(
        errors[0].contains("move 4") && errors[0].contains("already drawn"),
        "{}",
        errors[0]
    );
    assert!(
        errors[1].contains("game 1") && errors[1].contains("record says"),
        "{}",
        errors[1]
    );
    std::fs::remove_dir_all(dir).unwrap();
}
