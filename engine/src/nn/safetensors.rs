//! The safetensors container, f32 tensors only: an 8-byte little-endian header length, a JSON
//! header (`__metadata__` of strings, then per tensor its dtype, shape and byte range in the data
//! section), then the raw little-endian data. Spec: huggingface/safetensors.
//!
//! Files are read by the reference crate (`safetensors`, fuzzed by its maintainers: a model
//! file may come from anyone). They are written here: the crate's writer puts the metadata in
//! a hash map's order, so the same net would not give the same bytes twice; ours writes the
//! header's keys sorted and the tensors in the order given, byte for byte as before.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// One tensor to write.
pub struct TensorEntry<'a> {
    pub name: &'a str,
    pub shape: Vec<usize>,
    pub data: &'a [f32],
}

impl<'a> TensorEntry<'a> {
    pub fn new(name: &'a str, shape: Vec<usize>, data: &'a [f32]) -> TensorEntry<'a> {
        assert_eq!(
            shape.iter().product::<usize>(),
            data.len(),
            "{name}: shape and data"
        );
        TensorEntry { name, shape, data }
    }
}

/// Writes `tensors` and `meta` to `path` (atomically: a temporary file renamed into place).
pub fn write_safetensors(
    path: &Path,
    meta: &BTreeMap<String, String>,
    tensors: &[TensorEntry],
) -> Result<(), String> {
    let mut header = serde_json::Map::new();
    header.insert(
        "__metadata__".into(),
        serde_json::to_value(meta).expect("strings"),
    );
    let mut offset = 0usize;
    for t in tensors {
        let bytes = t.data.len() * 4;
        header.insert(
            t.name.into(),
            serde_json::json!({
                "dtype": "F32",
                "shape": t.shape,
                "data_offsets": [offset, offset + bytes],
            }),
        );
        offset += bytes;
    }
    let mut json = serde_json::to_string(&header).expect("a header serialises");
    // Pad with spaces so the data section starts 8-byte aligned, as the spec recommends.
    while (8 + json.len()) % 8 != 0 {
        json.push(' ');
    }
    let mut out = Vec::with_capacity(8 + json.len() + offset);
    out.extend_from_slice(&(json.len() as u64).to_le_bytes());
    out.extend_from_slice(json.as_bytes());
    for t in tensors {
        for v in t.data {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    let tmp = path.with_extension("safetensors.tmp");
    std::fs::write(&tmp, &out)
        .and_then(|_| std::fs::rename(&tmp, path))
        .map_err(|e| format!("cannot write: {e}"))
}

/// Tensors read from a file: name -> (shape, data).
pub type Tensors = HashMap<String, (Vec<usize>, Vec<f32>)>;

/// Reads safetensors bytes of f32 tensors with the reference `safetensors` crate (which checks
/// the header, the offsets and that the tensors cover the data exactly), in words that say what
/// is wrong.
pub fn parse_safetensors(bytes: &[u8]) -> Result<(BTreeMap<String, String>, Tensors), String> {
    use safetensors::{Dtype, SafeTensorError, SafeTensors};
    if bytes.len() < 8 {
        return Err(format!(
            "{} bytes: too short for a safetensors file (truncated?)",
            bytes.len()
        ));
    }
    let header_len = u64::from_le_bytes(bytes[..8].try_into().expect("eight bytes"));
    let explain = |e: SafeTensorError| {
        match e {
        SafeTensorError::HeaderTooLarge | SafeTensorError::InvalidHeaderLength => format!(
            "header length {header_len} does not fit the file's {} bytes (truncated or not safetensors)",
            bytes.len()
        ),
        SafeTensorError::MetadataIncompleteBuffer => format!(
            "the header's tensors do not match the file's {} bytes (truncated or damaged file?)",
            bytes.len()
        ),
        other => format!("not a valid safetensors file: {other}"),
    }
    };
    let (_, metadata) = SafeTensors::read_metadata(bytes).map_err(explain)?;
    let meta: BTreeMap<String, String> = metadata
        .metadata()
        .as_ref()
        .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        .unwrap_or_default();
    let file = SafeTensors::deserialize(bytes).map_err(explain)?;
    let mut tensors = HashMap::new();
    for (name, view) in file.tensors() {
        if view.dtype() != Dtype::F32 {
            return Err(format!(
                "tensor '{name}': dtype {:?}; this engine reads F32",
                view.dtype()
            ));
        }
        let values = view
            .data()
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().expect("four bytes")))
            .collect();
        tensors.insert(name, (view.shape().to_vec(), values));
    }
    Ok((meta, tensors))
}
