//! The value net as the engine runs it: the paper's 85-100-3 network (sigmoid hidden layer,
//! three sigmoid outputs: P1 wins, P2 wins, draw), its file format, and a forward pass
//! without any framework.
//!
//! The file is safetensors (readable by PyTorch's `safetensors.torch.load_file`), with the
//! tensors `hidden.weight` (hidden x inputs), `hidden.bias`, `output.weight` (3 x hidden) and
//! `output.bias`, f32, in PyTorch's `nn.Linear` layout, and string metadata saying what the net
//! is for: see [`ModelMeta`] and `models/README.md`.

pub mod inference;
pub mod policy;
pub mod rollout;
mod safetensors;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::games::{DotsAndBoxes, GameSpec};

pub use inference::FastNet;
pub use policy::{load_policy_net, DabPolicy, PolicyNet};
pub use rollout::{DabNet, LateNet, LateUse, NetGuide, NetRollout};
pub use safetensors::{parse_safetensors, write_safetensors, TensorEntry};

/// The paper's net (`models/dab-5x5`): the model of `nn` with the paper's random rollouts and of
/// `engine paper`.
pub const PAPER_MODEL: &str = "models/dab-5x5/model.safetensors";
/// The product's net (`models/dab-5x5-sv`, trained on the values of the product's own searches):
/// the model of `nn` with chain rollouts and of the protocol, asked as a prior. Measured at
/// 300 ms a move: 121-79 against `nn` with generation 1's net (`models/dab-5x5-gen1`), 101-99
/// against the same search without a net (docs/players.md).
pub const PRODUCT_MODEL: &str = "models/dab-5x5-sv/model.safetensors";

/// The weight of the product net's prior (`nn`'s `prior` and the protocol's): each child of a
/// tree node starts with a bias of this times the net's P(mover wins) - P(mover loses).
pub const PRODUCT_PRIOR: f64 = 1.0;

/// UCB's constant of the product's search (`nn` with chain rollouts, and the protocol's engine
/// when its `cp` is left at the generic default): the paper's `sqrt(2)` explores far more than
/// chain rollouts and exact endgames need. Measured at 300 ms a move, the search against itself
/// at a neighbouring constant: 0.7 beat `sqrt(2)` 64-36, 0.35 beat 0.7 67-33, and 0.15 and 0.5
/// lost to 0.35 43-57 and 42-58 (docs/players.md).
pub const PRODUCT_CP: f64 = 0.35;

/// The product's net laid out for `board`, or `None` when it was made for another board size
/// (it is the 5x5 net). The file is read once a process.
pub fn product_net(board: &DotsAndBoxes) -> Result<Option<DabNet>, String> {
    static NET: std::sync::OnceLock<Result<ValueNet, String>> = std::sync::OnceLock::new();
    let net = NET
        .get_or_init(|| ValueNet::load(Path::new(PRODUCT_MODEL)).map_err(|e| e.to_string()))
        .as_ref()
        .map_err(Clone::clone)?;
    if net.meta.game != GameSpec::dots_and_boxes(board.rows(), board.cols())? {
        return Ok(None);
    }
    DabNet::new(net, board).map(Some)
}

/// The shipped nets, compiled in: a shipped net's path (as written above, relative to the
/// repository) loads from any working directory, from the file when it is there (so a net
/// retrained in place is the one used) and from the binary's copy when it is not.
const SHIPPED: [(&str, &[u8]); 2] = [
    (
        PAPER_MODEL,
        include_bytes!("../../../models/dab-5x5/model.safetensors"),
    ),
    (
        PRODUCT_MODEL,
        include_bytes!("../../../models/dab-5x5-sv/model.safetensors"),
    ),
];

/// The binary's copy of the shipped net at `path`, if `path` names one.
fn shipped(path: &Path) -> Option<&'static [u8]> {
    SHIPPED
        .iter()
        .find(|(name, _)| Path::new(name) == path)
        .map(|&(_, bytes)| bytes)
}

/// Loads the model at `path` for net-guided rollouts on `board`'s size. A file that cannot be
/// read, is damaged, or was made for another game, board size, encoding or layer layout is
/// refused with the path and the reason.
pub fn load_dab_net(path: &Path, board: &DotsAndBoxes) -> Result<DabNet, ModelError> {
    let net = ValueNet::load(path)?;
    DabNet::new(&net, board).map_err(|detail| ModelError {
        path: path.to_path_buf(),
        detail,
    })
}

/// Loads a late net (encoding `dab-late-v1`, made by `train run --encoding late`) for `board`'s
/// size, refusing any other net with the path and the reason.
pub fn load_late_net(path: &Path, board: &DotsAndBoxes) -> Result<FastNet, ModelError> {
    use crate::games::dots_and_boxes::late::{late_feature_len, LATE_ENCODING};
    let net = ValueNet::load(path)?;
    let refuse = |detail: String| ModelError {
        path: path.to_path_buf(),
        detail,
    };
    let spec = GameSpec::dots_and_boxes(board.rows(), board.cols()).map_err(refuse)?;
    if net.meta.game != spec {
        return Err(refuse(format!(
            "the net was trained for {}, not {spec}",
            net.meta.game
        )));
    }
    if net.meta.encoding != LATE_ENCODING {
        return Err(refuse(format!(
            "a late net reads encoding '{LATE_ENCODING}', this one '{}' (train it with --encoding late)",
            net.meta.encoding
        )));
    }
    let want = late_feature_len(board.geometry());
    if net.inputs() != want {
        return Err(refuse(format!(
            "the net has {} inputs, {spec} late inputs are {want}",
            net.inputs()
        )));
    }
    Ok(FastNet::new(&net))
}

/// The input encoding of Dots and Boxes nets: the paper's Table 2 grid (see
/// `games::dots_and_boxes`). Bumped if the encoding ever changes.
pub const DAB_ENCODING: &str = "dab-table2-v1";
/// The Table 2 grid plus one input saying who is to move (1.0 for P1, 0.0 for P2): 86 floats on
/// 5x5. Not in the paper; its input cannot tell who must move, which decides loony endgames.
pub const DAB_ENCODING_TO_MOVE: &str = "dab-table2-tomove-v1";

/// Whether a Dots-and-Boxes net with this encoding reads the player to move as its last input.
pub fn reads_to_move(encoding: &str) -> bool {
    encoding == DAB_ENCODING_TO_MOVE
}
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
    /// metadata. It does not check that the net fits a game: see [`check_fits`](Self::check_fits).
    pub fn load(path: &Path) -> Result<ValueNet, ModelError> {
        let (meta, outputs, [hidden_weight, hidden_bias, output_weight, output_bias]) =
            FileLayout::VALUE.read(path)?;
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

    /// Checks that the net was made for `game` with this engine's encoding and input size.
    pub fn check_fits(&self, game: GameSpec, feature_len: usize) -> Result<(), String> {
        if self.meta.game != game {
            return Err(format!(
                "the net was trained for {}, not {game}",
                self.meta.game
            ));
        }
        let known: &[&str] = match game.name() {
            "dots_and_boxes" => &[DAB_ENCODING, DAB_ENCODING_TO_MOVE],
            "tictactoe" => &["tictactoe-v1"],
            _ => &[],
        };
        if !known.contains(&self.meta.encoding.as_str()) {
            return Err(format!(
                "the net reads encoding '{}', this engine writes {}",
                self.meta.encoding,
                known
                    .iter()
                    .map(|e| format!("'{e}'"))
                    .collect::<Vec<_>>()
                    .join(" or ")
            ));
        }
        let want = feature_len + usize::from(reads_to_move(&self.meta.encoding));
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

/// The file layout shared by the value and policy nets: two dense layers (inputs -> sigmoid
/// hidden layer -> outputs) in safetensors, PyTorch's `nn.Linear` layout, with string metadata.
/// The kinds differ in their format string and output activation.
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
    const POLICY: FileLayout = FileLayout {
        format: policy::POLICY_FORMAT,
        output_activation: "softmax",
        outputs_text: "edge_logits",
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
    /// the four tensors, each shape checked against the layers the metadata names.
    fn read(&self, path: &Path) -> Result<(ModelMeta, usize, [Vec<f32>; 4]), ModelError> {
        let err = |detail: String| ModelError {
            path: path.to_path_buf(),
            detail,
        };
        let file = match std::fs::read(path) {
            Ok(bytes) => std::borrow::Cow::Owned(bytes),
            Err(e) => match shipped(path) {
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
        let game: GameSpec = serde_json::from_str(&get("game_spec")?)
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
mod guided_tests;
#[cfg(test)]
mod policy_tests;
#[cfg(test)]
mod tests;
