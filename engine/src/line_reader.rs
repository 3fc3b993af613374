//! Reading command lines: bounded in length whatever arrives, any bytes accepted, and GTP's
//! preprocessing (control characters dropped, tabs to spaces, `#` comments cut); and reading
//! the text files users write ([`read_text_file`]).

use std::io::{self, BufRead};

/// The longest command line read; longer lines are answered with an error and skipped.
pub const MAX_LINE: usize = 4096;

/// One line as read.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// The line, preprocessed (may be empty: such lines get no answer).
    Text(String),
    /// A line longer than [`MAX_LINE`] bytes; its bytes were discarded as they arrived.
    TooLong(usize),
}

/// Reads the next line without ever holding more than `MAX_LINE` bytes of it, preprocessed as
/// GTP asks ([`preprocess`]). `None` at the end of input.
pub fn read_line(input: &mut impl BufRead) -> io::Result<Option<Line>> {
    read_line_with(input, preprocess)
}

/// Reads the next line as [`read_line`] does, but keeps it as written: only a final `\r` is
/// dropped and any other control character shown as `\xNN` ([`escape_controls`]), so that a
/// program's output is logged as it was.
pub fn read_raw_line(input: &mut impl BufRead) -> io::Result<Option<Line>> {
    read_line_with(input, escape_controls)
}

fn read_line_with(input: &mut impl BufRead, clean: fn(&str) -> String) -> io::Result<Option<Line>> {
    let mut bytes: Vec<u8> = Vec::new();
    let mut length = 0usize;
    let mut any = false;
    loop {
        let buf = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            break;
        }
        any = true;
        let (chunk, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        length += chunk.len();
        if bytes.len() < MAX_LINE {
            let room = MAX_LINE - bytes.len();
            bytes.extend_from_slice(&chunk[..chunk.len().min(room)]);
        }
        let used = done.unwrap_or(buf.len());
        input.consume(used);
        if done.is_some() {
            break;
        }
    }
    if !any {
        return Ok(None);
    }
    if length > MAX_LINE {
        return Ok(Some(Line::TooLong(length)));
    }
    Ok(Some(Line::Text(clean(&String::from_utf8_lossy(&bytes)))))
}

/// The byte-order mark some editors (Windows Notepad) write at the start of a UTF-8 file.
pub const BYTE_ORDER_MARK: char = '\u{feff}';

/// Reads a text file of the user's (positions and openings, configs, weights) as every reader
/// of one does: whole, without a leading byte-order mark, which would otherwise cling unseen to
/// the first word (as `str::lines` drops the `\r` of CRLF line ends).
pub fn read_text_file(path: &std::path::Path) -> io::Result<String> {
    let mut text = std::fs::read_to_string(path)?;
    if text.starts_with(BYTE_ORDER_MARK) {
        text.replace_range(..BYTE_ORDER_MARK.len_utf8(), "");
    }
    Ok(text)
}

/// `line` without a final `\r`, its other control characters but tab written `\xNN`.
pub fn escape_controls(line: &str) -> String {
    let line = line.strip_suffix('\r').unwrap_or(line);
    let mut out = String::with_capacity(line.len());
    for c in line.chars() {
        if c.is_control() && c != '\t' {
            out.push_str(&format!("\\x{:02x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// GTP's preprocessing: drop control characters but tab, turn tabs into spaces, cut a `#`
/// comment, trim.
pub fn preprocess(line: &str) -> String {
    let line = line.split('#').next().unwrap_or("");
    line.chars()
        .filter_map(|c| match c {
            '\t' => Some(' '),
            c if c.is_control() => None,
            c => Some(c),
        })
        .collect::<String>()
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8]) -> Vec<Line> {
        let mut reader = io::BufReader::with_capacity(7, input);
        let mut out = Vec::new();
        while let Some(line) = read_line(&mut reader).unwrap() {
            out.push(line);
        }
        out
    }

    #[test]
    fn lines_are_split_cleaned_and_bounded() {
        let long = vec![b'a'; MAX_LINE + 1];
        let mut input = b"1 name\r\n\tplay\th0,0 # a comment\n\x00\x07\n".to_vec();
        input.extend_from_slice(&long);
        input.extend_from_slice(b"\nquit");
        assert_eq!(
            lines(&input),
            vec![
                Line::Text("1 name".into()),
                Line::Text("play h0,0".into()),
                Line::Text(String::new()),
                Line::TooLong(MAX_LINE + 1),
                Line::Text("quit".into()),
            ]
        );
        let exact = vec![b'b'; MAX_LINE];
        assert_eq!(lines(&exact), vec![Line::Text("b".repeat(MAX_LINE))]);
        assert_eq!(
            lines(&[0xff, 0xfe, b'x']),
            vec![Line::Text("\u{fffd}\u{fffd}x".into())]
        );
        assert!(lines(b"").is_empty());
    }

    #[test]
    fn a_text_file_is_read_without_its_byte_order_mark() {
        let path = std::env::temp_dir().join(format!("line-reader-bom-{}.txt", std::process::id()));
        for (written, read) in [
            ("\u{feff}h8 i7\r\nj9\n", "h8 i7\r\nj9\n"),
            ("h8\n", "h8\n"),
            ("\u{feff}", ""),
            // Only a leading mark is the file's; one inside is text.
            ("a\u{feff}b", "a\u{feff}b"),
        ] {
            std::fs::write(&path, written).unwrap();
            assert_eq!(read_text_file(&path).unwrap(), read, "{written:?}");
        }
        std::fs::remove_file(&path).unwrap();
        assert!(read_text_file(&path).is_err());
    }

    #[test]
    fn raw_lines_keep_what_was_written() {
        let mut reader = io::BufReader::with_capacity(5, &b"MESSAGE dep \x0d-\x1c # 3\r\nx\n"[..]);
        let mut out = Vec::new();
        while let Some(line) = read_raw_line(&mut reader).unwrap() {
            out.push(line);
        }
        assert_eq!(
            out,
            vec![
                Line::Text("MESSAGE dep \\x0d-\\x1c # 3".into()),
                Line::Text("x".into())
            ]
        );
    }
}
