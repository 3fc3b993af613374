use std::collections::BTreeMap;

use super::*;
use crate::games::dots_and_boxes::net::{value_encodings, DAB_ENCODING};
use crate::games::DotsAndBoxes;
use crate::rng::Rng;

pub(crate) fn random_net(inputs: usize, hidden: usize, seed: u64) -> ValueNet {
    let mut rng = Rng::new(seed);
    let mut values = |n: usize| -> Vec<f32> {
        (0..n)
            .map(|_| (rng.unit_f64() * 2.0 - 1.0) as f32)
            .collect()
    };
    let mut extra = BTreeMap::new();
    extra.insert("dataset".to_string(), "data/test".to_string());
    ValueNet {
        meta: ModelMeta {
            game: crate::games::DotsAndBoxes::spec_for(5, 5).unwrap(),
            encoding: DAB_ENCODING.into(),
            inputs,
            hidden,
            extra,
        },
        hidden_weight: values(inputs * hidden),
        hidden_bias: values(hidden),
        output_weight: values(OUTPUTS * hidden),
        output_bias: values(OUTPUTS),
    }
}

pub(crate) fn temp_file(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("nn-test-{}-{name}.safetensors", std::process::id()))
}

#[test]
fn save_load_round_trip() {
    let net = random_net(85, 100, 1);
    let path = temp_file("round-trip");
    net.save(&path).unwrap();
    let loaded = ValueNet::load(&path, crate::registry::GAMES).unwrap();
    assert_eq!(loaded, net);
    // The header is 8-byte aligned JSON with the PyTorch layout names.
    let bytes = std::fs::read(&path).unwrap();
    let len = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    assert_eq!((8 + len) % 8, 0);
    let header = std::str::from_utf8(&bytes[8..8 + len]).unwrap();
    assert!(
        header.contains(
            "\"hidden.weight\":{\"data_offsets\":[0,34000],\"dtype\":\"F32\",\"shape\":[100,85]}"
        ),
        "{header}"
    );
    assert!(
        header.contains("\"encoding\":\"dab-table2-v1\""),
        "{header}"
    );
    std::fs::remove_file(path).unwrap();
}

#[test]
fn forward_matches_a_hand_computation() {
    // 2 inputs, 2 hidden units.
    let mut net = random_net(2, 2, 2);
    net.hidden_weight = vec![1.0, -1.0, 0.5, 0.25];
    net.hidden_bias = vec![0.0, -0.5];
    net.output_weight = vec![1.0, 1.0, -1.0, 0.0, 0.0, 2.0];
    net.output_bias = vec![0.0, 0.5, -1.0];
    let x = [0.25f32, 1.0];
    let h = [sigmoid(0.25 - 1.0), sigmoid(0.125 + 0.25 - 0.5)];
    let expected = [
        sigmoid(h[0] + h[1]),
        sigmoid(-h[0] + 0.5),
        sigmoid(2.0 * h[1] - 1.0),
    ];
    let out = net.forward(&x);
    for k in 0..3 {
        assert!(
            (out[k] - expected[k]).abs() < 1e-6,
            "{out:?} vs {expected:?}"
        );
    }
}

#[test]
fn damaged_or_foreign_files_are_refused_with_a_reason() {
    let net = random_net(85, 100, 3);
    let path = temp_file("damaged");
    net.save(&path).unwrap();
    let good = std::fs::read(&path).unwrap();
    let load_err = |bytes: &[u8]| {
        std::fs::write(&path, bytes).unwrap();
        ValueNet::load(&path, crate::registry::GAMES)
            .unwrap_err()
            .to_string()
    };
    assert!(load_err(&good[..good.len() - 10]).contains("truncated"));
    assert!(load_err(&good[..5]).contains("too short"));
    assert!(load_err(&[0xFF; 64]).contains("header length"));
    // Wrong layer sizes in the metadata are named.
    let mut other = net.clone();
    other.meta.hidden = 50;
    other.hidden_weight.truncate(50 * 85);
    other.hidden_bias.truncate(50);
    other.output_weight.truncate(150);
    other.save(&path).unwrap();
    let loaded = ValueNet::load(&path, crate::registry::GAMES).unwrap();
    assert_eq!(loaded.hidden(), 50);
    // Fitting: game, size and encoding are checked.
    let five = crate::games::DotsAndBoxes::spec_for(5, 5).unwrap();
    let four = crate::games::DotsAndBoxes::spec_for(4, 4).unwrap();
    let encodings = value_encodings(&DotsAndBoxes::new(5, 5).unwrap());
    assert!(net.check_fits(five, &encodings).is_ok());
    let four_encodings = value_encodings(&DotsAndBoxes::new(4, 4).unwrap());
    assert!(net
        .check_fits(four, &four_encodings)
        .unwrap_err()
        .contains("5x5"));
    let mut old = net.clone();
    old.meta.encoding = "dab-table2-v0".into();
    assert!(old
        .check_fits(five, &encodings)
        .unwrap_err()
        .contains("encoding"));
    std::fs::remove_file(path).unwrap();
}

#[test]
fn the_shipped_model_loads_and_fits_5x5() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../models/dab-5x5/model.safetensors");
    let net = ValueNet::load(&path, crate::registry::GAMES).unwrap();
    net.check_fits(
        crate::games::DotsAndBoxes::spec_for(5, 5).unwrap(),
        &value_encodings(&DotsAndBoxes::new(5, 5).unwrap()),
    )
    .unwrap();
    assert_eq!((net.inputs(), net.hidden()), (85, 100));
    let board = crate::games::DotsAndBoxes::new(5, 5).unwrap();
    let mut x = vec![0f32; 85];
    crate::game::Game::encode_features(&board, &mut x);
    let out = net.forward(&x);
    assert!(out.iter().all(|p| (0.0..=1.0).contains(p)), "{out:?}");
}

/// The fingerprint a dataset records must not drift between releases (a resume compares it):
/// this value is FNV-1a over the parts' lengths and bits as written by an independent script.
#[test]
fn weights_fingerprint_is_stable() {
    assert_eq!(
        weights_fingerprint(&[&[1.0, -0.5], &[3.25]]),
        "a93c605a8a2bbe16"
    );
    assert_ne!(
        weights_fingerprint(&[&[1.0], &[-0.5, 3.25]]),
        "a93c605a8a2bbe16",
        "the parts' lengths are part of the fingerprint"
    );
}
