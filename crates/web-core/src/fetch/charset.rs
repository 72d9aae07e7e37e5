//! Bytes to UTF-8 as a browser decides the encoding: BOM, then the Content-Type
//! charset, then a `<meta>` prescan of the first 1024 bytes (HTML only), then
//! detection.

use encoding_rs::{Encoding, UTF_8, UTF_16BE, UTF_16LE, WINDOWS_1252, X_USER_DEFINED};

/// Where the encoding came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// A byte-order mark.
    Bom,
    /// The `charset` parameter of Content-Type.
    Header,
    /// A `<meta charset>` or `http-equiv` declaration.
    Meta,
    /// Guessed from the bytes.
    Detected,
    /// JSON is UTF-8 by definition (RFC 8259).
    Json,
}

/// Decodes `bytes` to UTF-8. `truncated` says the bytes are a prefix cut by a cap: a
/// multi-byte character cut in two at the end is dropped instead of becoming U+FFFD.
/// Returns the text, the encoding used and where it came from.
pub fn decode(
    bytes: &[u8],
    header_charset: Option<&str>,
    html: bool,
    json: bool,
    truncated: bool,
) -> (String, &'static Encoding, Source) {
    let (encoding, source, skip) = if let Some((enc, bom_len)) = Encoding::for_bom(bytes) {
        (enc, Source::Bom, bom_len)
    } else if let Some(enc) = header_charset.and_then(|c| Encoding::for_label(c.trim().as_bytes()))
    {
        (enc, Source::Header, 0)
    } else if json {
        (UTF_8, Source::Json, 0)
    } else if let Some(enc) = html.then(|| prescan(bytes)).flatten() {
        (enc, Source::Meta, 0)
    } else {
        let mut detector = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Deny);
        let sample = &bytes[..bytes.len().min(64 * 1024)];
        detector.feed(sample, !truncated && sample.len() == bytes.len());
        (
            detector.guess(None, chardetng::Utf8Detection::Allow),
            Source::Detected,
            0,
        )
    };
    let encoding = if encoding == X_USER_DEFINED && source != Source::Header {
        WINDOWS_1252
    } else {
        encoding
    };
    let body = bytes.get(skip..).unwrap_or_default();
    let mut decoder = encoding.new_decoder_without_bom_handling();
    let mut text = String::with_capacity(
        decoder
            .max_utf8_buffer_length(body.len())
            .unwrap_or(body.len()),
    );
    let (_, _, _) = decoder.decode_to_string(body, &mut text, !truncated);
    (text, encoding, source)
}

/// The WHATWG "prescan a byte stream to determine its encoding", simplified: the
/// first `<meta>` in the first 1024 bytes with a `charset` attribute, or with
/// `http-equiv="content-type"` and a `content` naming a charset.
pub fn prescan(bytes: &[u8]) -> Option<&'static Encoding> {
    let head = &bytes[..bytes.len().min(1024)];
    let lower: Vec<u8> = head.iter().map(u8::to_ascii_lowercase).collect();
    let mut at = 0;
    while at < lower.len() {
        let rest = &lower[at..];
        if rest.starts_with(b"<!--") {
            at += find(rest, b"-->").map_or(rest.len(), |end| end + 3);
            continue;
        }
        if rest.starts_with(b"<meta")
            && rest
                .get(5)
                .is_some_and(|b| b.is_ascii_whitespace() || *b == b'/')
        {
            let (attrs, len) = attributes(&head[at + 5..]);
            at += 5 + len;
            if let Some(enc) = meta_encoding(&attrs) {
                // A UTF-16 declaration in a byte stream that parsed as ASCII is UTF-8.
                return Some(if enc == UTF_16BE || enc == UTF_16LE {
                    UTF_8
                } else {
                    enc
                });
            }
            continue;
        }
        at += 1;
    }
    None
}

fn meta_encoding(attrs: &[(String, String)]) -> Option<&'static Encoding> {
    let get = |name: &str| {
        attrs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    if let Some(charset) = get("charset") {
        return Encoding::for_label(charset.trim().as_bytes());
    }
    let is_content_type = get("http-equiv").is_some_and(|v| v.eq_ignore_ascii_case("content-type"));
    if is_content_type {
        return get("content")
            .and_then(charset_param)
            .and_then(|c| Encoding::for_label(c.as_bytes()));
    }
    None
}

/// The `charset=` parameter of a Content-Type value, unquoted.
pub fn charset_param(value: &str) -> Option<&str> {
    let lower = value.to_ascii_lowercase();
    let at = lower.find("charset")?;
    let rest = value.get(at + "charset".len()..)?.trim_start();
    let rest = rest.strip_prefix('=')?.trim_start();
    let rest = rest.trim_start_matches(['"', '\'']);
    let end = rest
        .find(|c: char| c == ';' || c == '"' || c == '\'' || c.is_whitespace())
        .unwrap_or(rest.len());
    let charset = &rest[..end];
    (!charset.is_empty()).then_some(charset)
}

/// Reads a tag's attributes up to its `>`: the (lowercased name, value) pairs and
/// how many bytes were consumed.
fn attributes(bytes: &[u8]) -> (Vec<(String, String)>, usize) {
    let mut attrs = Vec::new();
    let mut i = 0;
    let skip_ws = |i: &mut usize| {
        while *i < bytes.len() && (bytes[*i].is_ascii_whitespace() || bytes[*i] == b'/') {
            *i += 1;
        }
    };
    loop {
        skip_ws(&mut i);
        if i >= bytes.len() || bytes[i] == b'>' {
            return (attrs, (i + 1).min(bytes.len()));
        }
        let start = i;
        while i < bytes.len()
            && !bytes[i].is_ascii_whitespace()
            && !matches!(bytes[i], b'=' | b'>' | b'/')
        {
            i += 1;
        }
        let name = String::from_utf8_lossy(&bytes[start..i]).to_ascii_lowercase();
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        let mut value = String::new();
        if bytes.get(i) == Some(&b'=') {
            i += 1;
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            match bytes.get(i) {
                Some(&q @ (b'"' | b'\'')) => {
                    i += 1;
                    let s = i;
                    while i < bytes.len() && bytes[i] != q {
                        i += 1;
                    }
                    value = String::from_utf8_lossy(&bytes[s..i]).into_owned();
                    i += 1;
                }
                _ => {
                    let s = i;
                    while i < bytes.len() && !bytes[i].is_ascii_whitespace() && bytes[i] != b'>' {
                        i += 1;
                    }
                    value = String::from_utf8_lossy(&bytes[s..i]).into_owned();
                }
            }
        }
        if !name.is_empty() && !attrs.iter().any(|(n, _)| *n == name) {
            attrs.push((name, value));
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bom_wins_over_everything() {
        let mut bytes = vec![0xEF, 0xBB, 0xBF];
        bytes.extend_from_slice("<meta charset=windows-1251>é".as_bytes());
        let (text, enc, src) = decode(&bytes, Some("iso-8859-1"), true, false, false);
        assert_eq!((enc, src), (UTF_8, Source::Bom));
        assert!(text.ends_with('é') && !text.starts_with('\u{feff}'));
    }

    #[test]
    fn header_beats_meta() {
        let (_, enc, src) = decode(
            b"<meta charset=shift_jis>x",
            Some("windows-1251"),
            true,
            false,
            false,
        );
        assert_eq!((enc.name(), src), ("windows-1251", Source::Header));
    }

    #[test]
    fn meta_forms() {
        let cases: &[(&[u8], Option<&str>)] = &[
            (
                b"<html><head><meta charset=\"windows-1251\">",
                Some("windows-1251"),
            ),
            (b"<META CHARSET='Shift_JIS'>", Some("Shift_JIS")),
            (
                b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=koi8-r\">",
                Some("KOI8-R"),
            ),
            (
                b"<meta content='text/html;charset=euc-jp' http-equiv=content-type>",
                Some("EUC-JP"),
            ),
            (
                b"<!-- <meta charset=koi8-r> --><meta charset=gbk>",
                Some("GBK"),
            ),
            (b"<meta charset=utf-16le>", Some("UTF-8")),
            (b"<meta name=description content=\"charset=koi8-r\">", None),
            (b"<metadata charset=koi8-r>", None),
            (b"<p>no meta</p>", None),
        ];
        for (html, want) in cases {
            assert_eq!(
                prescan(html).map(Encoding::name),
                *want,
                "{}",
                String::from_utf8_lossy(html)
            );
        }
        let mut late = vec![b' '; 1100];
        late.extend_from_slice(b"<meta charset=koi8-r>");
        assert_eq!(
            prescan(&late),
            None,
            "only the first 1024 bytes are scanned"
        );
    }

    #[test]
    fn detection_when_nothing_declares() {
        let (cyrillic, _, _) = encoding_rs::WINDOWS_1251
            .encode("Привет, это страница на русском языке, и её нужно прочитать правильно.");
        let (text, enc, src) = decode(&cyrillic, None, false, false, false);
        assert_eq!(src, Source::Detected);
        assert_eq!(enc.name(), "windows-1251");
        assert!(text.starts_with("Привет"));
    }

    #[test]
    fn truncated_prefix_drops_a_split_character() {
        let bytes = "ab€".as_bytes();
        let cut = &bytes[..bytes.len() - 1];
        let (text, _, _) = decode(cut, Some("utf-8"), false, false, true);
        assert_eq!(text, "ab");
        let (text, _, _) = decode(cut, Some("utf-8"), false, false, false);
        assert_eq!(text, "ab\u{fffd}");
    }

    #[test]
    fn charset_parameter() {
        assert_eq!(charset_param("text/html; charset=UTF-8"), Some("UTF-8"));
        assert_eq!(
            charset_param("text/html;Charset=\"koi8-r\""),
            Some("koi8-r")
        );
        assert_eq!(charset_param("text/html"), None);
        assert_eq!(charset_param("text/html; charset="), None);
        assert!(decode(b"{\"a\":1}", None, false, true, false).2 == Source::Json);
    }
}
