//! The safetensors container, f32 tensors only: an 8-byte little-endian header length, a JSON
//! header (`__metadata__` of strings, then per tensor its dtype, shape and byte range in the data
//! section), then the raw little-endian data. Spec: huggingface/safetensors.

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

/// Headers longer than this are refused as damaged.
const MAX_HEADER: u64 = 1 << 24;

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

/// Reads a safetensors file of f32 tensors, checking its structure.
pub fn read_safetensors(path: &Path) -> Result<(BTreeMap<String, String>, Tensors), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read: {e}"))?;
    if bytes.len() < 8 {
        return Err(format!(
            "{} bytes: too short for a safetensors file (truncated?)",
            bytes.len()
        ));
    }
    let header_len = u64::from_le_bytes(bytes[..8].try_into().unwrap());
    if header_len > MAX_HEADER || 8 + header_len > bytes.len() as u64 {
        return Err(format!(
            "header length {header_len} does not fit the file's {} bytes (truncated or not safetensors)",
            bytes.len()
        ));
    }
    let header_end = 8 + header_len as usize;
    let header: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(&bytes[8..header_end])
            .map_err(|e| format!("header is not a JSON object: {e}"))?;
    let data = &bytes[header_end..];
    let mut meta = BTreeMap::new();
    let mut tensors = HashMap::new();
    let mut covered = 0usize;
    for (name, entry) in &header {
        if name == "__metadata__" {
            let map = entry
                .as_object()
                .ok_or("__metadata__ is not an object of strings")?;
            for (k, v) in map {
                let v = v
                    .as_str()
                    .ok_or_else(|| format!("metadata '{k}' is not a string"))?;
                meta.insert(k.clone(), v.to_string());
            }
            continue;
        }
        let bad = |what: &str| format!("tensor '{name}': {what}");
        let dtype = entry["dtype"].as_str().ok_or_else(|| bad("no dtype"))?;
        if dtype != "F32" {
            return Err(bad(&format!("dtype {dtype}; this engine reads F32")));
        }
        let shape: Vec<usize> = entry["shape"]
            .as_array()
            .ok_or_else(|| bad("no shape"))?
            .iter()
            .map(|d| {
                d.as_u64()
                    .map(|d| d as usize)
                    .ok_or_else(|| bad("bad shape"))
            })
            .collect::<Result<_, _>>()?;
        let offsets = entry["data_offsets"]
            .as_array()
            .filter(|a| a.len() == 2)
            .ok_or_else(|| bad("no data_offsets"))?;
        let begin = offsets[0].as_u64().ok_or_else(|| bad("bad data_offsets"))? as usize;
        let end = offsets[1].as_u64().ok_or_else(|| bad("bad data_offsets"))? as usize;
        let count: usize = shape.iter().product();
        if end < begin || end - begin != count * 4 {
            return Err(bad(&format!(
                "bytes {begin}..{end} do not hold {count} f32 values of shape {shape:?}"
            )));
        }
        if end > data.len() {
            return Err(bad(&format!(
                "bytes {begin}..{end} run past the data section ({} bytes; truncated file?)",
                data.len()
            )));
        }
        covered += end - begin;
        let values = data[begin..end]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        tensors.insert(name.clone(), (shape, values));
    }
    if covered != data.len() {
        return Err(format!(
            "the tensors cover {covered} of the {} data bytes (damaged file?)",
            data.len()
        ));
    }
    Ok((meta, tensors))
}
