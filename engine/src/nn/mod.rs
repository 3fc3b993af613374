//! Value nets as the engine runs them, for any game: two dense layers (inputs, a sigmoid hidden
//! layer, three sigmoid outputs: P1 wins, P2 wins, draw; the Dots-and-Boxes paper's 85-100-3
//! net is one), their file format, and a forward pass without any framework ([`inference`]:
//! SIMD dense layers and a first layer a caller updates in place). A game's own nets (their
//! encodings, layouts and net-guided rollouts) live in the game's folder.
//!
//! The file is safetensors (readable by PyTorch's `safetensors.torch.load_file`), with the
//! tensors `hidden.weight` (hidden x inputs), `hidden.bias`, `output.weight` (3 x hidden) and
//! `output.bias`, f32, in PyTorch's `nn.Linear` layout, and string metadata saying what the net
//! is for: see [`ModelMeta`] and `models/README.md`.

pub mod inference;
mod safetensors;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::game_spec::{GameInfo, GameSpec};

pub use inference::FastNet;
pub use safetensors::{parse_safetensors, write_safetensors, TensorEntry};

/// What every model file says it is.
pub const MODEL_FORMAT: &str = "selfplay-mcts value net";
/// The number of outputs: P1 wins, P2 wins, draw.
pub const OUTPUTS: usize = 3;

/// What a model file says about itself (safetensors `__metadata__`, all strings).
#[derive(Clone, Debug, PartialEq)]
pub struct ModelMeta {
    pub game: GameSpec,
    pub encoding: String,
    pub inputs: usize,
    pub hidden: usize,
    /// Everything else (dataset, metrics, command, ...), kept as written.
    pub extra: BTreeMap<String, String>,
}

/// A model that cannot be used: the file and what is wrong.
#[derive(Debug)]
pub struct ModelError {
    pub path: PathBuf,
    pub detail: String,
}

impl std::fmt::Display for ModelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "model {}: {}", self.path.display(), self.detail)
    }
}

impl std::error::Error for ModelError {}

/// The value net's weights, in PyTorch's layout (weight rows are output units).
#[derive(Clone, Debug, PartialEq)]
pub struct ValueNet {
    pub meta: ModelMeta,
    /// hidden x inputs, row-major.
    pub hidden_weight: Vec<f32>,
    pub hidden_bias: Vec<f32>,
    /// OUTPUTS x hidden, row-major.
    pub output_weight: Vec<f32>,
    pub output_bias: Vec<f32>,
}

/// A fingerprint of a net's numbers (FNV-1a over each part's length and its floats' bits), in
/// 16 hex digits: what a dataset records of the net that played it, so that a resume with
/// another net is refused rather than mixed in.
pub fn weights_fingerprint(parts: &[&[f32]]) -> String {
    use crate::key_hash::{fnv1a, FNV_OFFSET_BASIS};
    let mut hash = FNV_OFFSET_BASIS;
    for part in parts {
        hash = fnv1a(hash, &(part.len() as u64).to_le_bytes());
        for x in *part {
            hash = fnv1a(hash, &u64::from(x.to_bits()).to_le_bytes());
        }
    }
    format!("{hash:016x}")
}

#[inline]
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

impl ValueNet {
    pub fn inputs(&self) -> usize {
        self.meta.inputs
    }

    pub fn hidden(&self) -> usize {
        self.meta.hidden
    }

    /// [`weights_fingerprint`] of the weights and biases.
    pub fn fingerprint(&self) -> String {
        weights_fingerprint(&[
            &self.hidden_weight,
            &self.hidden_bias,
            &self.output_weight,
            &self.output_bias,
        ])
    }

    /// The three outputs (P1 wins, P2 wins, draw) for one input vector: the reference forward
    /// pass, one dot product per hidden unit.
    pub fn forward(&self, input: &[f32]) -> [f32; OUTPUTS] {
        let (n_in, n_hidden) = (self.inputs(), self.hidden());
        assert_eq!(input.len(), n_in, "input length");
        let mut hidden = vec![0f32; n_hidden];
        for (j, h) in hidden.iter_mut().enumerate() {
            let row = &self.hidden_weight[j * n_in..(j + 1) * n_in];
            let z: f32 = row.iter().zip(input).map(|(w, x)| w * x).sum();
            *h = sigmoid(z + self.hidden_bias[j]);
        }
        let mut out = [0f32; OUTPUTS];
        for (k, o) in out.iter_mut().enumerate() {
            let row = &self.output_weight[k * n_hidden..(k + 1) * n_hidden];
            let z: f32 = row.iter().zip(&hidden).map(|(w, h)| w * h).sum();
            *o = sigmoid(z + self.output_bias[k]);
        }
        out
    }

    /// Writes the net as safetensors, with its metadata.
    pub fn save(&self, path: &Path) -> Result<(), ModelError> {
        let layout = FileLayout::VALUE;
        layout.write(
            path,
            &self.meta,
            OUTPUTS,
            [
                &self.hidden_weight,
                &self.hidden_bias,
                &self.output_weight,
                &self.output_bias,
            ],
        )
    }

    /// Reads a net written by [`save`](Self::save), checking every tensor's shape and the
    /// metadata; `games` are the games a net may be for. It does not check that the net fits a game: see [`check_fits`](Self::check_fits).
    /// `games` are the games a net may be for (a file naming another is refused).
    pub fn load(path: &Path, games: &[&'static GameInfo]) -> Result<ValueNet, ModelError> {
        ValueNet::load_or(path, games, None)
    }

    /// [`load`](Self::load), reading `shipped` (a copy compiled into the binary) instead when
    /// no file is at `path`: how a shipped net loads from any working directory.
    pub fn load_or(
        path: &Path,
        games: &[&'static GameInfo],
        shipped: Option<&'static [u8]>,
    ) -> Result<ValueNet, ModelError> {
        let (meta, outputs, [hidden_weight, hidden_bias, output_weight, output_bias]) =
            FileLayout::VALUE.read(path, games, shipped)?;
        if outputs != OUTPUTS {
            return Err(ModelError {
                path: path.to_path_buf(),
                detail: format!(
                    "layers {}-{}-{outputs}: expected inputs-hidden-{OUTPUTS}",
                    meta.inputs, meta.hidden
                ),
            });
        }
        Ok(ValueNet {
            meta,
            hidden_weight,
            hidden_bias,
            output_weight,
            output_bias,
        })
    }

    /// Checks that the net was made for `game`, in one of the encodings the game reads, each
    /// given with its number of inputs.
    pub fn check_fits(&self, game: GameSpec, encodings: &[(&str, usize)]) -> Result<(), String> {
        if self.meta.game != game {
            return Err(format!(
                "the net was trained for {}, not {game}",
                self.meta.game
            ));
        }
        let Some(&(_, want)) = encodings
            .iter()
            .find(|(name, _)| *name == self.meta.encoding)
        else {
            return Err(format!(
                "the net reads encoding '{}', this engine writes {}",
                self.meta.encoding,
                encodings
                    .iter()
                    .map(|(e, _)| format!("'{e}'"))
                    .collect::<Vec<_>>()
                    .join(" or ")
            ));
        };
        if self.inputs() != want {
            return Err(format!(
                "the net has {} inputs, {game} positions in encoding '{}' have {want}",
                self.inputs(),
                self.meta.encoding
            ));
        }
        Ok(())
    }
}

/// The value nets' file layout: two dense layers (inputs -> sigmoid hidden layer -> outputs) in
/// safetensors, PyTorch's `nn.Linear` layout, with string metadata.
struct FileLayout {
    format: &'static str,
    output_activation: &'static str,
    outputs_text: &'static str,
}

impl FileLayout {
    const VALUE: FileLayout = FileLayout {
        format: MODEL_FORMAT,
        output_activation: "sigmoid",
        outputs_text: "p1_win,p2_win,draw",
    };

    /// Writes `meta` and the tensors (hidden weight, hidden bias, output weight, output bias).
    fn write(
        &self,
        path: &Path,
        model: &ModelMeta,
        outputs: usize,
        tensors: [&[f32]; 4],
    ) -> Result<(), ModelError> {
        let (n_in, n_hidden) = (model.inputs, model.hidden);
        let mut meta: BTreeMap<String, String> = model.extra.clone();
        let spec = serde_json::to_value(model.game).expect("a spec serialises");
        meta.insert("format".into(), self.format.into());
        meta.insert("game".into(), model.game.name().into());
        if let (Some(rows), Some(cols)) = (model.game.get("rows"), model.game.get("cols")) {
            meta.insert("rows".into(), rows.to_string());
            meta.insert("cols".into(), cols.to_string());
        }
        meta.insert("game_spec".into(), spec.to_string());
        meta.insert("encoding".into(), model.encoding.clone());
        meta.insert("layers".into(), format!("{n_in}-{n_hidden}-{outputs}"));
        meta.insert("activation".into(), "sigmoid".into());
        meta.insert("output_activation".into(), self.output_activation.into());
        meta.insert("outputs".into(), self.outputs_text.into());
        let [hw, hb, ow, ob] = tensors;
        let tensors = [
            TensorEntry::new("hidden.weight", vec![n_hidden, n_in], hw),
            TensorEntry::new("hidden.bias", vec![n_hidden], hb),
            TensorEntry::new("output.weight", vec![outputs, n_hidden], ow),
            TensorEntry::new("output.bias", vec![outputs], ob),
        ];
        write_safetensors(path, &meta, &tensors).map_err(|e| ModelError {
            path: path.to_path_buf(),
            detail: e,
        })
    }

    /// Reads a file written by [`write`](Self::write): the metadata, the number of outputs and
    /// the four tensors, each shape checked against the layers the metadata names. `shipped`
    /// is read instead when there is no file at `path`.
    fn read(
        &self,
        path: &Path,
        games: &[&'static GameInfo],
        shipped: Option<&'static [u8]>,
    ) -> Result<(ModelMeta, usize, [Vec<f32>; 4]), ModelError> {
        let err = |detail: String| ModelError {
            path: path.to_path_buf(),
            detail,
        };
        let file = match std::fs::read(path) {
            Ok(bytes) => std::borrow::Cow::Owned(bytes),
            Err(e) => match shipped {
                Some(bytes) if e.kind() == std::io::ErrorKind::NotFound => bytes.into(),
                _ => return Err(err(format!("cannot read: {e}"))),
            },
        };
        let (meta, mut tensors) = parse_safetensors(&file).map_err(err)?;
        let get = |key: &str| {
            meta.get(key)
                .cloned()
                .ok_or_else(|| err(format!("metadata has no '{key}'")))
        };
        if get("format")? != self.format {
            return Err(err(format!(
                "metadata format is '{}', not '{}'",
                get("format")?,
                self.format
            )));
        }
        let game_json: serde_json::Value = serde_json::from_str(&get("game_spec")?)
            .map_err(|e| err(format!("metadata game_spec: {e}")))?;
        let game = GameSpec::from_json_in(games, &game_json)
            .map_err(|e| err(format!("metadata game_spec: {e}")))?;
        let layers = get("layers")?;
        let sizes: Vec<usize> = layers
            .split('-')
            .map(|s| {
                s.parse()
                    .map_err(|_| err(format!("metadata layers '{layers}'")))
            })
            .collect::<Result<_, _>>()?;
        if sizes.len() != 3 || sizes.contains(&0) {
            return Err(err(format!(
                "layers {layers}: expected inputs-hidden-outputs"
            )));
        }
        for (key, want) in [
            ("activation", "sigmoid"),
            ("output_activation", self.output_activation),
        ] {
            if get(key)? != want {
                return Err(err(format!(
                    "{key} is '{}', this engine runs '{want}'",
                    get(key)?
                )));
            }
        }
        let (n_in, n_hidden, n_out) = (sizes[0], sizes[1], sizes[2]);
        let mut take = |name: &str, shape: Vec<usize>| -> Result<Vec<f32>, ModelError> {
            let t = tensors
                .remove(name)
                .ok_or_else(|| err(format!("no tensor '{name}'")))?;
            if t.0 != shape {
                return Err(err(format!(
                    "tensor '{name}' has shape {:?}, layers {layers} need {shape:?}",
                    t.0
                )));
            }
            Ok(t.1)
        };
        let hidden_weight = take("hidden.weight", vec![n_hidden, n_in])?;
        let hidden_bias = take("hidden.bias", vec![n_hidden])?;
        let output_weight = take("output.weight", vec![n_out, n_hidden])?;
        let output_bias = take("output.bias", vec![n_out])?;
        let known = [
            "format",
            "game",
            "rows",
            "cols",
            "game_spec",
            "encoding",
            "layers",
            "activation",
            "output_activation",
            "outputs",
        ];
        let extra = meta
            .iter()
            .filter(|(k, _)| !known.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let meta = ModelMeta {
            game,
            encoding: get("encoding")?,
            inputs: n_in,
            hidden: n_hidden,
            extra,
        };
        Ok((
            meta,
            n_out,
            [hidden_weight, hidden_bias, output_weight, output_bias],
        ))
    }
}

#[cfg(test)]
pub(crate) mod tests;
