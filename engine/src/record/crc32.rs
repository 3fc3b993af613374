//! CRC-32 (IEEE 802.3, the polynomial of zlib, gzip and PNG), so that any language's standard
//! library can check a record: Python's `zlib.crc32`, Go's `hash/crc32.ChecksumIEEE`.

const POLY: u32 = 0xEDB8_8320;

const fn make_table() -> [[u32; 256]; 4] {
    let mut table = [[0u32; 256]; 4];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { POLY ^ (c >> 1) } else { c >> 1 };
            k += 1;
        }
        table[0][i] = c;
        i += 1;
    }
    // Slicing-by-4: table[t][b] is the CRC of byte b followed by t zero bytes.
    let mut t = 1;
    while t < 4 {
        let mut i = 0;
        while i < 256 {
            let prev = table[t - 1][i];
            table[t][i] = (prev >> 8) ^ table[0][(prev & 0xFF) as usize];
            i += 1;
        }
        t += 1;
    }
    table
}

static TABLE: [[u32; 256]; 4] = make_table();

/// The CRC-32 of `bytes`.
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    let mut chunks = bytes.chunks_exact(4);
    for chunk in &mut chunks {
        let word = crc ^ u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        crc = TABLE[3][(word & 0xFF) as usize]
            ^ TABLE[2][((word >> 8) & 0xFF) as usize]
            ^ TABLE[1][((word >> 16) & 0xFF) as usize]
            ^ TABLE[0][(word >> 24) as usize];
    }
    for &b in chunks.remainder() {
        crc = (crc >> 8) ^ TABLE[0][((crc ^ b as u32) & 0xFF) as usize];
    }
    !crc
}

#[cfg(test)]
mod tests {
    use super::crc32;

    #[test]
    fn known_check_values() {
        // The standard check value of CRC-32/ISO-HDLC, and zlib.crc32 of a few strings.
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
        assert_eq!(crc32(b"a"), 0xE8B7_BE43);
        assert_eq!(
            crc32(b"The quick brown fox jumps over the lazy dog"),
            0x414F_A339
        );
    }

    #[test]
    fn slicing_matches_bytewise() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 7919 % 251) as u8).collect();
        for len in 0..40 {
            let mut crc = !0u32;
            for &b in &data[..len] {
                crc ^= b as u32;
                for _ in 0..8 {
                    crc = if crc & 1 != 0 {
                        0xEDB8_8320 ^ (crc >> 1)
                    } else {
                        crc >> 1
                    };
                }
            }
            assert_eq!(crc32(&data[..len]), !crc, "length {len}");
        }
    }
}
