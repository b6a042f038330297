//! JSON values, a parser and a serializer: everything that crosses the C ABI is JSON text, and the
//! plugin takes no dependencies, so it carries this small one of its own.

use std::fmt::Write as _;

/// A JSON value. Integers and other numbers are kept apart because the capability protocol tells
/// them apart: an SQL integer travels as a JSON integer, a real as `{"r": x}`.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    /// A number written without fraction or exponent that fits in an i64.
    Int(i64),
    /// Any other number.
    Float(f64),
    String(String),
    Array(Vec<Value>),
    /// Members in the order they were written or built, so output is stable and readable.
    Object(Vec<(String, Value)>),
}

impl Value {
    /// The member `key` of an object (the last one, if a key repeats, as most readers do).
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(members) => members.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }

    /// The number as an integer, if it was written as one ("5", not "5.0" or "5e0"): the C plugin
    /// reads integers the same way, and the two must answer alike.
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Value::Int(i) => Some(i),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Value::Int(i) => Some(i as f64),
            Value::Float(f) => Some(f),
            _ => None,
        }
    }

    /// The value as compact JSON text.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        write_value(&mut out, self);
        out
    }
}

/// Builds an object from `(key, value)` pairs, keeping their order.
pub fn object(members: Vec<(&str, Value)>) -> Value {
    Value::Object(members.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

pub fn string(s: &str) -> Value {
    Value::String(s.to_string())
}

// ---------------------------------------------------------------------------------------------
// Serializer

fn write_value(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Int(i) => {
            let _ = write!(out, "{}", i);
        }
        Value::Float(f) => write_float(out, *f),
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (n, item) in items.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Value::Object(members) => {
            out.push('{');
            for (n, (key, item)) in members.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                write_string(out, key);
                out.push(':');
                write_value(out, item);
            }
            out.push('}');
        }
    }
}

/// Rust's `Display` for f64 is the shortest text that reads back to the same number and never
/// uses an exponent, which is valid JSON as it stands. JSON has no NaN or infinity: those become
/// null rather than text no reader accepts.
fn write_float(out: &mut String, f: f64) {
    if f.is_finite() {
        let _ = write!(out, "{}", f);
    } else {
        out.push_str("null");
    }
}

/// Quotes `s`: the quote and backslash escaped, every control character as `\u00XX` (as the
/// plugin spec asks); everything else, emoji included, as its own UTF-8.
fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

// ---------------------------------------------------------------------------------------------
// Parser

/// Why some bytes are not JSON, with the byte offset where reading stopped.
#[derive(Debug, PartialEq)]
pub struct ParseError {
    pub offset: usize,
    pub reason: &'static str,
}

/// Nesting deeper than this is refused: the parser recurses, and a stack overflow would abort
/// the host's process, which no catch_unwind can stop.
const MAX_DEPTH: usize = 128;

/// Parses one JSON value (RFC 8259) from UTF-8 bytes, with nothing but whitespace around it.
pub fn parse(bytes: &[u8]) -> Result<Value, ParseError> {
    if std::str::from_utf8(bytes).is_err() {
        return Err(ParseError { offset: 0, reason: "the text is not UTF-8" });
    }
    let mut parser = Parser { bytes, pos: 0 };
    parser.skip_whitespace();
    let value = parser.value(0)?;
    parser.skip_whitespace();
    if parser.pos != bytes.len() {
        return Err(parser.fail("unexpected text after the value"));
    }
    Ok(value)
}

struct Parser<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Parser<'a> {
    fn fail(&self, reason: &'static str) -> ParseError {
        ParseError { offset: self.pos, reason }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_whitespace(&mut self) {
        while let Some(b' ') | Some(b'\t') | Some(b'\n') | Some(b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn expect_word(&mut self, word: &'static [u8], value: Value) -> Result<Value, ParseError> {
        if self.bytes[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.fail("unexpected character"))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, ParseError> {
        if depth > MAX_DEPTH {
            return Err(self.fail("nested too deeply"));
        }
        match self.peek() {
            None => Err(self.fail("unexpected end of text")),
            Some(b'n') => self.expect_word(b"null", Value::Null),
            Some(b't') => self.expect_word(b"true", Value::Bool(true)),
            Some(b'f') => self.expect_word(b"false", Value::Bool(false)),
            Some(b'"') => self.string().map(Value::String),
            Some(b'[') => self.array(depth),
            Some(b'{') => self.object(depth),
            Some(b'-') | Some(b'0'..=b'9') => self.number(),
            Some(_) => Err(self.fail("unexpected character")),
        }
    }

    fn array(&mut self, depth: usize) -> Result<Value, ParseError> {
        self.pos += 1; // '['
        let mut items = Vec::new();
        self.skip_whitespace();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(Value::Array(items));
        }
        loop {
            self.skip_whitespace();
            items.push(self.value(depth + 1)?);
            self.skip_whitespace();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Value::Array(items));
                }
                _ => return Err(self.fail("expected ',' or ']'")),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Value, ParseError> {
        self.pos += 1; // '{'
        let mut members = Vec::new();
        self.skip_whitespace();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(Value::Object(members));
        }
        loop {
            self.skip_whitespace();
            if self.peek() != Some(b'"') {
                return Err(self.fail("expected a member name"));
            }
            let key = self.string()?;
            self.skip_whitespace();
            if self.peek() != Some(b':') {
                return Err(self.fail("expected ':'"));
            }
            self.pos += 1;
            self.skip_whitespace();
            let value = self.value(depth + 1)?;
            members.push((key, value));
            self.skip_whitespace();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Value::Object(members));
                }
                _ => return Err(self.fail("expected ',' or '}'")),
            }
        }
    }

    fn number(&mut self) -> Result<Value, ParseError> {
        let start = self.pos;
        let mut integral = true;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        // Integer part: "0" or a non-zero digit followed by digits (no leading zeros in JSON).
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(self.fail("expected a digit")),
        }
        if self.peek() == Some(b'.') {
            integral = false;
            self.pos += 1;
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.fail("expected a digit after '.'"));
            }
            self.digits();
        }
        if let Some(b'e') | Some(b'E') = self.peek() {
            integral = false;
            self.pos += 1;
            if let Some(b'+') | Some(b'-') = self.peek() {
                self.pos += 1;
            }
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.fail("expected a digit in the exponent"));
            }
            self.digits();
        }
        // The bytes are ASCII digits and signs, checked above, so this cannot fail.
        let text = std::str::from_utf8(&self.bytes[start..self.pos]).map_err(|_| self.fail("bad number"))?;
        if integral {
            if let Ok(i) = text.parse::<i64>() {
                return Ok(Value::Int(i));
            }
        }
        // An integer beyond i64 is kept as the nearest double, as JavaScript would read it.
        text.parse::<f64>().map(Value::Float).map_err(|_| self.fail("bad number"))
    }

    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
    }

    fn string(&mut self) -> Result<String, ParseError> {
        self.pos += 1; // opening quote
        let mut out = String::new();
        loop {
            // Copy the run of plain bytes up to the next quote, backslash or control character in
            // one go; the input was checked to be UTF-8 and these stops are all ASCII, so each run
            // is whole characters.
            let run_start = self.pos;
            while let Some(b) = self.peek() {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            out.push_str(std::str::from_utf8(&self.bytes[run_start..self.pos]).map_err(|_| self.fail("not UTF-8"))?);
            match self.peek() {
                None => return Err(self.fail("unterminated string")),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    self.escape(&mut out)?;
                }
                Some(_) => return Err(self.fail("control character in a string")),
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Result<(), ParseError> {
        let c = match self.peek() {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => {
                self.pos += 1;
                let unit = self.hex4()?;
                let c = match unit {
                    // A high surrogate must be followed by an escaped low one: together they are
                    // one character beyond the Basic Multilingual Plane (an emoji, say).
                    0xD800..=0xDBFF => {
                        if !self.bytes[self.pos..].starts_with(b"\\u") {
                            return Err(self.fail("a high surrogate without its low surrogate"));
                        }
                        self.pos += 2;
                        let low = self.hex4()?;
                        if !(0xDC00..=0xDFFF).contains(&low) {
                            return Err(self.fail("a high surrogate without its low surrogate"));
                        }
                        0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                    }
                    0xDC00..=0xDFFF => return Err(self.fail("a low surrogate on its own")),
                    _ => unit,
                };
                // Surrogates were handled above, so every value here is a character.
                out.push(char::from_u32(c).ok_or_else(|| self.fail("not a character"))?);
                return Ok(());
            }
            _ => return Err(self.fail("unknown escape")),
        };
        self.pos += 1;
        out.push(c);
        Ok(())
    }

    fn hex4(&mut self) -> Result<u32, ParseError> {
        let digits = self.bytes.get(self.pos..self.pos + 4).ok_or_else(|| self.fail("short \\u escape"))?;
        let mut unit = 0u32;
        for &d in digits {
            let v = (d as char).to_digit(16).ok_or_else(|| self.fail("bad \\u escape"))?;
            unit = unit * 16 + v;
        }
        self.pos += 4;
        Ok(unit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Value {
        parse(s.as_bytes()).unwrap()
    }

    #[test]
    fn scalars() {
        assert_eq!(p(" null "), Value::Null);
        assert_eq!(p("true"), Value::Bool(true));
        assert_eq!(p("false"), Value::Bool(false));
        assert_eq!(p("0"), Value::Int(0));
        assert_eq!(p("-12"), Value::Int(-12));
        assert_eq!(p("1.5"), Value::Float(1.5));
        assert_eq!(p("-2.5e3"), Value::Float(-2500.0));
        assert_eq!(p("1E2"), Value::Float(100.0));
        assert_eq!(p("796809600.25"), Value::Float(796809600.25));
        assert_eq!(p("99999999999999999999"), Value::Float(1e20));
    }

    #[test]
    fn refuses_bad_numbers_and_words() {
        for bad in ["01", "-", "1.", ".5", "1e", "+1", "nul", "tru", "NaN", "", "  ", "1 2", "[1,]", "{\"a\":1,}", "{a:1}"] {
            assert!(parse(bad.as_bytes()).is_err(), "{:?} should fail", bad);
        }
    }

    #[test]
    fn strings_and_escapes() {
        assert_eq!(p(r#""a\"b\\c\/d\b\f\n\r\t""#), Value::String("a\"b\\c/d\u{8}\u{c}\n\r\t".into()));
        assert_eq!(p(r#""\u00e9\u20AC""#), Value::String("é€".into()));
        assert_eq!(p(r#""\ud83d\ude00""#), Value::String("😀".into()));
        assert_eq!(p("\"😀 raw\""), Value::String("😀 raw".into()));
        assert!(parse(br#""\ud83d""#).is_err());
        assert!(parse(br#""\ud83dx""#).is_err());
        assert!(parse(br#""\ude00""#).is_err());
        assert!(parse(br#""\u12""#).is_err());
        assert!(parse(b"\"a\nb\"").is_err());
        assert!(parse(b"\"\xff\"").is_err());
        assert!(parse(b"\"open").is_err());
    }

    #[test]
    fn nesting() {
        let v = p(r#" { "a" : [1, {"b": null}, []], "c": {} } "#);
        assert_eq!(v.get("a").unwrap().as_array().unwrap().len(), 3);
        assert_eq!(v.get("c"), Some(&Value::Object(vec![])));
        let deep = "[".repeat(200) + &"]".repeat(200);
        assert!(parse(deep.as_bytes()).is_err());
        let ok = "[".repeat(100) + &"]".repeat(100);
        assert!(parse(ok.as_bytes()).is_ok());
    }

    #[test]
    fn serializes() {
        let v = object(vec![
            ("s", string("q\"b\\n\n\u{1}😀")),
            ("i", Value::Int(-3)),
            ("f", Value::Float(1.5)),
            ("w", Value::Float(796809600.0)),
            ("n", Value::Null),
            ("a", Value::Array(vec![Value::Bool(true), Value::Float(f64::NAN)])),
        ]);
        assert_eq!(v.to_json(), "{\"s\":\"q\\\"b\\\\n\\u000a\\u0001😀\",\"i\":-3,\"f\":1.5,\"w\":796809600,\"n\":null,\"a\":[true,null]}");
        assert_eq!(parse(v.to_json().as_bytes()).unwrap().get("s"), v.get("s"));
    }

    #[test]
    fn integers_from_floats() {
        assert_eq!(p("5").as_i64(), Some(5));
        assert_eq!(p("5.0").as_i64(), None);
        assert_eq!(p("5e0").as_i64(), None);
    }
}
