//! CRC-32 (IEEE 802.3, the polynomial of zlib, gzip and PNG), so that any language's standard
//! library can check a record: Python's `zlib.crc32`, Go's `hash/crc32.ChecksumIEEE`.

/// The CRC-32 of `bytes` (the `crc32fast` crate: SIMD where the CPU has it).
#[inline]
pub fn crc32(bytes: &[u8]) -> u32 {
    crc32fast::hash(bytes)
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
